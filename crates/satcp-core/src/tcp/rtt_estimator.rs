//! Retransmission timeout per RFC 6298: SRTT/RTTVAR smoothing (Eq. 2.6-2.8
//! of the thesis), RTO = SRTT + max(G, K * RTTVAR) clamped to [min, max],
//! exponential back-off on expiry. Karn's rule (no samples from retransmitted
//! segments) is applied by the caller, which knows what was retransmitted.
//! With `rto_algorithm = "linux"` the samples feed Linux's estimator
//! instead (`tcp/linux_rto.rs`); back-off and the maximum are shared.

use super::config::{RtoAlgorithm, TcpConfig};
use super::linux_rto::LinuxRto;
use crate::engine::Duration;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    /// RTO before back-off, seconds.
    base_rto: f64,
    /// Number of back-offs since the last valid sample.
    pub backoffs: u32,
    alpha: f64,
    beta: f64,
    k: f64,
    g: f64,
    min_rto: f64,
    max_rto: f64,
    last_sample: Option<f64>,
    /// Linux's estimator, when `rto_algorithm = "linux"`.
    linux: Option<Box<LinuxRto>>,
}

impl RttEstimator {
    pub fn new(cfg: &TcpConfig) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            base_rto: cfg.initial_rto,
            backoffs: 0,
            alpha: cfg.rtt_gain,
            beta: cfg.deviation_gain,
            k: cfg.rtt_deviation_coefficient,
            g: cfg.timer_granularity,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            last_sample: None,
            linux: (cfg.rto_algorithm == RtoAlgorithm::Linux)
                .then(|| Box::new(LinuxRto::new(Duration::from_secs_f64(cfg.min_rto).0 as i64))),
        }
    }

    /// A valid RTT sample from an ACK that moved snd_una to `snd_una`
    /// with `snd_max` sent: Linux's estimator ends its round trip when
    /// snd_una passes the snd_max of the round's start.
    pub fn sample_acked(&mut self, rtt: Duration, snd_una: u64, snd_max: u64) {
        match self.linux.as_mut() {
            None => self.sample(rtt),
            Some(l) => {
                l.sample(rtt.0 as i64, snd_una, snd_max);
                let (srtt, rttvar, rto) = (l.srtt(), l.rttvar(), l.rto());
                self.srtt = Some(srtt as f64 / 1e9);
                self.rttvar = rttvar as f64 / 1e9;
                self.base_rto = (self.to_clock(rto) as f64 / 1e9).min(self.max_rto);
                self.backoffs = 0;
                self.last_sample = Some(rtt.as_secs_f64());
            }
        }
    }

    /// `ns` rounded up to a whole number of clock ticks of G (Linux's
    /// `usecs_to_jiffies`).
    fn to_clock(&self, ns: i64) -> i64 {
        let g = Duration::from_secs_f64(self.g).0 as i64;
        if g <= 1 {
            ns
        } else {
            (ns + g - 1) / g * g
        }
    }

    /// A valid RTT sample with no sequence numbers (a variant's own
    /// measurement, a test): Linux's estimator takes each as the end of a
    /// round trip.
    pub fn sample(&mut self, rtt: Duration) {
        if self.linux.is_some() {
            return self.sample_acked(rtt, u64::MAX, 0);
        }
        let r = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                // RTTVAR first, with the old SRTT (RFC 6298 2.3).
                self.rttvar = (1.0 - self.beta) * self.rttvar + self.beta * (srtt - r).abs();
                self.srtt = Some((1.0 - self.alpha) * srtt + self.alpha * r);
            }
        }
        let srtt = self.srtt.unwrap();
        self.base_rto = (srtt + self.g.max(self.k * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoffs = 0;
        self.last_sample = Some(r);
    }

    /// The current timeout, including back-off.
    pub fn rto(&self) -> Duration {
        let backed = self.base_rto * 2f64.powi(self.backoffs.min(30) as i32);
        Duration::from_secs_f64(backed.min(self.max_rto.max(self.base_rto)))
    }

    pub fn back_off(&mut self) {
        self.backoffs += 1;
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.map(Duration::from_secs_f64)
    }
    pub fn rttvar(&self) -> Duration {
        Duration::from_secs_f64(self.rttvar)
    }
    pub fn last_sample(&self) -> Option<Duration> {
        self.last_sample.map(Duration::from_secs_f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(&TcpConfig::default())
    }

    #[test]
    fn initial_rto_is_three_seconds() {
        assert_eq!(est().rto(), Duration::from_secs(3));
    }

    #[test]
    fn first_sample_sets_srtt_and_granularity_dominates() {
        let mut e = est();
        e.sample(Duration::from_millis(520));
        // 0.52 + max(0.5, 4 * 0.26) = 1.56
        assert_eq!(e.rto(), Duration::from_millis(1560));
        // steady samples shrink RTTVAR until G = 0.5 s dominates
        for _ in 0..100 {
            e.sample(Duration::from_millis(520));
        }
        assert_eq!(e.rto(), Duration::from_millis(1020));
    }

    #[test]
    fn min_rto_and_backoff_cap() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(Duration::from_millis(10));
        }
        assert_eq!(e.rto(), Duration::from_secs(1)); // 0.01 + 0.5 < 1 s minimum
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(64));
        e.sample(Duration::from_millis(10));
        assert_eq!(e.backoffs, 0);
    }
}

#[cfg(test)]
mod linux_rule {
    use super::*;

    fn linux() -> RttEstimator {
        RttEstimator::new(&TcpConfig {
            rto_algorithm: RtoAlgorithm::Linux,
            min_rto: 0.2,
            max_rto: 120.0,
            initial_rto: 1.0,
            timer_granularity: 0.001,
            ..TcpConfig::default()
        })
    }

    /// TCP_TIMEOUT_INIT before any sample; 3 RTT after the first
    /// (`tcp_rtt_estimator`), and no G term in the formula.
    #[test]
    fn linux_rto_is_srtt_plus_rttvar() {
        let mut e = linux();
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.sample_acked(Duration::from_millis(600), 1, 1001);
        assert_eq!(e.rto(), Duration::from_millis(1800));
        let mut una = 1001;
        for _ in 0..200 {
            una += 1000;
            e.sample_acked(Duration::from_millis(600), una, una + 1000);
        }
        // srtt + rto_min + 3 ns, rounded up to the next ms (Linux: 3 µs).
        assert_eq!(e.rto(), Duration::from_millis(801));
    }

    /// usecs_to_jiffies rounds up: the RTO is a whole number of ticks of
    /// G (1 ms at HZ = 1000).
    #[test]
    fn linux_rto_is_rounded_up_to_the_clock() {
        let mut e = linux();
        e.sample_acked(Duration(600_000_001), 1, 1001);
        assert_eq!(e.rto(), Duration::from_millis(1801));
    }

    /// The RTO doubles at each expiry up to TCP_RTO_MAX (120 s), and a
    /// valid sample resets the back-off (tcp_ack_update_rtt).
    #[test]
    fn linux_backoff_doubles_up_to_the_maximum() {
        let mut e = linux();
        e.sample_acked(Duration::from_millis(600), 1, 1001);
        e.back_off();
        assert_eq!(e.rto(), Duration::from_millis(3600));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(120));
        e.sample_acked(Duration::from_millis(600), 2001, 3001);
        assert!(e.rto() < Duration::from_secs(2));
    }
}
