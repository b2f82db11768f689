//! Retransmission timeout per RFC 6298: SRTT/RTTVAR smoothing (Eq. 2.6-2.8
//! of the thesis), RTO = SRTT + max(G, K * RTTVAR) clamped to [min, max],
//! exponential back-off on expiry. Karn's rule (no samples from retransmitted
//! segments) is applied by the caller, which knows what was retransmitted.

use super::config::TcpConfig;
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
        }
    }

    pub fn sample(&mut self, rtt: Duration) {
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
