//! TCP Hybla (C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satellite Communications and
//! Networking 22(5), 2004): a long-RTT connection grows its window as a
//! reference connection of RTT0 = 25 ms would, in units of that reference
//! round trip. With rho = max(RTT / RTT0, 1) (Sec. 3, Eq. 6-7): per ACK,
//! slow start adds 2^rho - 1 segments and congestion avoidance rho^2 /
//! cwnd, so W(t) = rho W_ref(t): the same sending rate W/RTT as the
//! reference. Loss recovery is standard (SACK or NewReno). The authors
//! recommend pacing (Sec. 4.2) against the bursts this growth makes.

use super::{CongestionSettings, Showcase, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{positive, ScenarioError};
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::send_state::SendState;
use crate::tcp::Recovery;
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::congestion_only::<HyblaConfig>(
    "hybla",
    "TCP Hybla (Caini, Firrincieli 2004): window growth of a 25 ms reference connection, paced",
    &[Recovery::Sack, Recovery::NewReno],
    &[],
)
.compared_as(&[Showcase {
    label: "Hybla",
    tcp: r#"{"variant": "hybla"}"#,
}]);

/// `[tcp.hybla]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// RTT0, seconds (the paper: 25 ms).
    pub rtt0_s: f64,
    /// Pace transmissions at a multiple of cwnd / SRTT: 2 in slow start,
    /// 1.2 in congestion avoidance (Linux's default pacing ratios).
    pub pacing: bool,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig {
            rtt0_s: 0.025,
            pacing: true,
        }
    }
}

impl CongestionSettings for HyblaConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        positive("rtt0_s", self.rtt0_s)
    }

    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Hybla::new(self.clone()))
    }
}

pub struct Hybla {
    cfg: HyblaConfig,
    /// The smallest RTT seen: rho is taken from it, so queueing delay does
    /// not inflate it (Linux's tcp_hybla also uses the minimum).
    min_rtt: Option<Duration>,
    /// Fractional segments of congestion-avoidance growth not yet added.
    carry: f64,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig) -> Hybla {
        Hybla {
            cfg,
            min_rtt: None,
            carry: 0.0,
        }
    }

    /// rho = max(RTT / RTT0, 1).
    pub fn rho(&self) -> f64 {
        self.min_rtt
            .map_or(1.0, |r| (r.as_secs_f64() / self.cfg.rtt0_s).max(1.0))
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn on_event(&mut self, _s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        if let CcEvent::RttSample(rtt) = ev {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        Reply::Default
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.half_flight()
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.half_flight());
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, _now: SimTime) {
        let mss = s.mss() as f64;
        let rho = self.rho();
        let segs = acked as f64 / mss;
        if s.in_slow_start() {
            // Eq. 6: 2^rho - 1 segments per ACK of one segment; never past
            // ssthresh in one step (2^24 segments at 600 ms would be absurd).
            let inc = ((2f64.powf(rho) - 1.0) * segs.min(1.0) * mss).round() as u64;
            s.cwnd += s.capped_slow_start_increase(inc, acked);
        } else {
            // Eq. 7: rho^2 / cwnd segments per segment acknowledged.
            self.carry += rho * rho * segs / (s.cwnd as f64 / mss) * mss;
            let whole = self.carry.floor();
            self.carry -= whole;
            s.cwnd += whole as u64;
        }
    }

    fn pacing_rate(&self, s: &SendState) -> Option<f64> {
        if !self.cfg.pacing {
            return None;
        }
        let srtt = s.rtt().srtt()?.as_secs_f64();
        let ratio = if s.in_slow_start() { 2.0 } else { 1.2 };
        Some(ratio * s.cwnd as f64 / srtt.max(1e-6))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::test_support::send_state;

    const MSS: u64 = 1000;

    fn run_ca(rtt: f64, seconds: f64) -> (f64, f64) {
        let mut s = send_state(MSS as u32);
        let mut h = Hybla::new(HyblaConfig::default());
        h.on_event(
            &mut s,
            CcEvent::RttSample(Duration::from_secs_f64(rtt)),
            SimTime::ZERO,
        );
        let rho = h.rho();
        // Congestion avoidance from W = rho x 20 segments (W_ref = 20).
        s.cwnd = (rho * 20.0) as u64 * MSS;
        s.ssthresh = s.cwnd;
        let mut t = 0.0;
        while t < seconds - 1e-9 {
            let n = s.cwnd / MSS;
            for _ in 0..n {
                h.on_ack(&mut s, MSS, SimTime::from_secs_f64(t));
            }
            t += rtt;
        }
        (rho, s.cwnd as f64 / MSS as f64)
    }

    /// W(t) = rho W_ref(t): in units of RTT0 the normalised window grows by
    /// one segment per RTT0 whatever the RTT (Eq. 7).
    #[test]
    fn congestion_avoidance_is_rtt_independent_in_units_of_rtt0() {
        let (r1, w1) = run_ca(0.025, 6.0);
        let (r2, w2) = run_ca(0.6, 6.0);
        assert_eq!(r1, 1.0);
        assert!((r2 - 24.0).abs() < 1e-9);
        // 6 s = 240 RTT0: W_ref from 20 to about 260. Per ACK the increase
        // is rho^2 / cwnd with the cwnd of that moment, so a round adds a
        // little less than rho^2 segments, the more so the larger rho (at
        // rho = 24 a round more than doubles W): 10 % less growth at 600 ms.
        let (n1, n2) = (w1 / r1, w2 / r2);
        println!("normalised windows after 240 RTT0: {n1:.1} (25 ms), {n2:.1} (600 ms)");
        assert!((n1 - n2).abs() / n1 < 0.12, "{n1} vs {n2}");
        assert!((200.0..=261.0).contains(&n1));
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack() {
        let mut s = send_state(MSS as u32);
        s.ssthresh = 1_000_000;
        s.cwnd = 2 * MSS;
        let mut h = Hybla::new(HyblaConfig::default());
        h.on_event(
            &mut s,
            CcEvent::RttSample(Duration::from_secs_f64(0.075)),
            SimTime::ZERO,
        ); // rho = 3
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 2 * MSS + 7 * MSS);
        // Capped at ssthresh.
        s.ssthresh = 10 * MSS;
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 10 * MSS);
    }

    #[test]
    fn paces_at_a_multiple_of_cwnd_per_srtt() {
        let mut s = send_state(1460);
        let h = Hybla::new(HyblaConfig::default());
        assert_eq!(h.pacing_rate(&s), None, "no RTT yet");
        s.rtt_mut().sample(Duration::from_secs_f64(0.5));
        s.cwnd = 100_000;
        s.ssthresh = 50_000;
        assert!((h.pacing_rate(&s).unwrap() - 1.2 * 200_000.0).abs() < 1e-6);
    }
}
