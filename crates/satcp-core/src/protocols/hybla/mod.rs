//! TCP Hybla (C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satellite Communications and
//! Networking 22(5), 2004): a long-RTT connection grows its window as a
//! reference connection of RTT0 = 25 ms would, in units of that reference
//! round trip. With rho = max(RTT / RTT0, 1) (Sec. 3, Eq. 6-7): per ACK,
//! slow start adds 2^rho - 1 segments and congestion avoidance rho^2 /
//! cwnd, so W(t) = rho W_ref(t): the same sending rate W/RTT as the
//! reference. Loss recovery is standard (SACK or NewReno). The authors
//! recommend pacing (Sec. 4.2) against the bursts this growth makes.
//!
//! The paper's slow start has no bound: at 600 ms, rho = 24 and one ACK
//! would add 2^24 segments. satcp bounds it as Linux's `tcp_hybla.c` does
//! (docs/modern-variants.md, "TCP Hybla"):
//!
//! - the exponent is at most 16 (`hybla_cong_avoid`: `1 << min(ca->rho,
//!   16U)`): one ACK adds at most 65,535 segments;
//! - slow start never carries cwnd past ssthresh (`hybla_cong_avoid`: the
//!   slow-start cwnd is clamped to `snd_ssthresh`);
//! - cwnd is at most 65,535 segments (`hybla_init` sets `snd_cwnd_clamp`);
//! - Hybla's rules apply in the Open state only; in Disorder and after a
//!   timeout (Loss) the window grows as Reno's (`hybla_state` clears
//!   `hybla_en` outside TCP_CA_Open).
//!
//! Growth only while the sender is cwnd-limited (Linux's
//! `tcp_is_cwnd_limited`) is the machinery's (`tcp.cwnd_validation`), not
//! repeated here.

use super::reno::Reno;
use super::{CongestionSettings, Showcase, Variant, VariantInput};
use crate::engine::{math, Duration, SimTime};
use crate::error::{positive, ScenarioError};
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::send_state::{CongState, SendState};
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
    tcp: r#"{"variant": "hybla", "profile": "linux"}"#,
}]);

/// `[tcp.hybla]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// RTT0, seconds (the paper: 25 ms).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
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

/// The largest slow-start exponent (Linux's `hybla_cong_avoid`: `1 <<
/// min(ca->rho, 16U)`).
const MAX_EXPONENT: f64 = 16.0;
/// The largest cwnd, segments (Linux's `hybla_init`: `snd_cwnd_clamp =
/// 65535`).
pub const CWND_CLAMP_SEGMENTS: u64 = 65_535;

pub struct Hybla {
    cfg: HyblaConfig,
    /// The smallest RTT seen: rho is taken from it, so queueing delay does
    /// not inflate it (Linux's `hybla_recalc_param` runs when the SRTT
    /// falls below the smallest seen).
    min_rtt: Option<Duration>,
    /// Fractional segments of congestion-avoidance growth not yet added.
    carry: f64,
    /// Growth outside the Open state (Linux's `hybla_en`).
    reno: Reno,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig) -> Hybla {
        Hybla {
            cfg,
            min_rtt: None,
            carry: 0.0,
            reno: Reno::new(),
        }
    }

    /// rho = max(RTT / RTT0, 1).
    pub fn rho(&self) -> f64 {
        self.min_rtt
            .map_or(1.0, |r| (r.as_secs_f64() / self.cfg.rtt0_s).max(1.0))
    }

    /// Segments one ACK adds in slow start: 2^min(rho, 16) - 1 (Eq. 6 with
    /// Linux's bound). Linux computes 2^rho in fixed point, rho in eighths:
    /// it bounds the integer part by 16 and still multiplies by 2^(k/8) for
    /// the eighths, so above 16 its increment lies between 2^16 and 2^17
    /// and drops back to 2^16 at each whole rho; satcp bounds the exponent.
    pub fn slow_start_increment(&self) -> f64 {
        math::powf(2.0, self.rho().min(MAX_EXPONENT)) - 1.0
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
        s.halved_window()
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        let mss = s.mss() as f64;
        let segs = acked as f64 / mss;
        if s.state() != CongState::Open {
            // Linux's `hybla_state`: Hybla's rules hold in the Open state;
            // with duplicate ACKs or SACKed data outstanding (Disorder) and
            // after a timeout until the data then outstanding is
            // acknowledged (Loss), the window grows as Reno's.
            self.reno.on_ack(s, acked, now);
        } else if s.in_slow_start() {
            // Eq. 6: 2^rho - 1 segments per ACK of one segment, never past
            // ssthresh (Linux clamps the slow-start window to ssthresh).
            let inc = (self.slow_start_increment() * segs.min(1.0) * mss).round() as u64;
            s.cwnd = (s.cwnd + inc.max(1)).min(s.ssthresh);
        } else {
            // Eq. 7: rho^2 / cwnd segments per ACK (an ACK of one segment
            // or more; a delayed ACK of two counts once, as in the paper and
            // Linux's hybla_cong_avoid, like the slow-start rule above).
            // One ACK adds at most the clamp: an RTT0 far below the RTT
            // (a valid 10^-300 s) makes rho^2 infinite, and the carry with
            // it (then NaN).
            let rho = self.rho();
            let clamp = (CWND_CLAMP_SEGMENTS * s.mss() as u64) as f64;
            self.carry += (rho * rho * segs.min(1.0) / (s.cwnd as f64 / mss) * mss).min(clamp);
            let whole = self.carry.floor();
            self.carry -= whole;
            s.cwnd = s.cwnd.saturating_add(whole as u64);
        }
        s.cwnd = s.cwnd.min(CWND_CLAMP_SEGMENTS * s.mss() as u64);
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

    fn hybla_with_rtt(s: &mut SendState, rtt: f64) -> Hybla {
        let mut h = Hybla::new(HyblaConfig::default());
        h.on_event(
            s,
            CcEvent::RttSample(Duration::from_secs_f64(rtt)),
            SimTime::ZERO,
        );
        h
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack() {
        let mut s = send_state(MSS as u32);
        s.ssthresh = 1_000_000;
        s.cwnd = 2 * MSS;
        let mut h = hybla_with_rtt(&mut s, 0.075); // rho = 3
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 2 * MSS + 7 * MSS);
    }

    /// Linux's `hybla_cong_avoid`: 2^min(rho, 16) - 1 segments per ACK.
    #[test]
    fn the_slow_start_exponent_is_at_most_sixteen() {
        let mut s = send_state(MSS as u32);
        let mut at = |rtt: f64| hybla_with_rtt(&mut s, rtt).slow_start_increment();
        assert_eq!(at(0.025), 1.0);
        assert!((at(0.1) - 15.0).abs() < 1e-9); // rho = 4
        assert!((at(0.3875) - (math::powf(2.0, 15.5) - 1.0)).abs() < 1e-6); // rho = 15.5
        assert_eq!(at(0.4), 65_535.0); // rho = 16
        assert_eq!(at(0.6), 65_535.0); // rho = 24: 2^24 - 1 unbounded
    }

    /// Linux clamps the slow-start window to ssthresh: one ACK never
    /// carries cwnd past it.
    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut s = send_state(MSS as u32);
        let mut h = hybla_with_rtt(&mut s, 0.6);
        s.cwnd = 2 * MSS;
        s.ssthresh = 10 * MSS + 1;
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 10 * MSS + 1);
        assert!(!s.in_slow_start());
    }

    /// Linux's `hybla_init`: cwnd is at most 65,535 segments, in slow start
    /// and in congestion avoidance.
    #[test]
    fn cwnd_is_clamped_to_65535_segments() {
        let mut s = send_state(MSS as u32);
        let mut h = hybla_with_rtt(&mut s, 0.6);
        s.cwnd = 2 * MSS;
        s.ssthresh = u64::MAX;
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, CWND_CLAMP_SEGMENTS * MSS);
        s.ssthresh = s.cwnd;
        for _ in 0..1000 {
            h.on_ack(&mut s, MSS, SimTime::ZERO);
        }
        assert_eq!(s.cwnd, CWND_CLAMP_SEGMENTS * MSS);
    }

    /// A valid RTT0 far below the RTT (the scenario fuzzer's 10^-300 s):
    /// rho^2 is infinite, and one ACK in congestion avoidance takes cwnd
    /// to the clamp, then keeps it there (it overflowed: debug builds
    /// panicked; the carry became NaN).
    #[test]
    fn an_infinite_rho_squared_takes_cwnd_to_the_clamp() {
        let mut s = send_state(MSS as u32);
        let mut h = Hybla::new(HyblaConfig {
            rtt0_s: 1e-300,
            pacing: false,
        });
        h.on_event(
            &mut s,
            CcEvent::RttSample(Duration::from_secs_f64(0.6)),
            SimTime::ZERO,
        );
        assert!(h.rho() * h.rho() == f64::INFINITY);
        s.cwnd = 10 * MSS;
        s.ssthresh = s.cwnd;
        for _ in 0..3 {
            h.on_ack(&mut s, MSS, SimTime::ZERO);
            assert_eq!(s.cwnd, CWND_CLAMP_SEGMENTS * MSS);
            assert!(h.carry.is_finite());
        }
    }

    /// Linux's `hybla_state`: with duplicate ACKs outstanding (Disorder)
    /// or after a timeout (Loss), the window grows as Reno's.
    #[test]
    fn outside_the_open_state_the_window_grows_as_renos() {
        let mut s = send_state(MSS as u32);
        let mut h = hybla_with_rtt(&mut s, 0.6);
        s.cwnd = 2 * MSS;
        s.ssthresh = 100 * MSS;
        s.set_dupacks(1);
        assert_eq!(s.state(), CongState::Disorder);
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 3 * MSS, "Reno's slow start: one segment");
        s.set_dupacks(0);
        s.set_state(CongState::Loss);
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(s.cwnd, 4 * MSS);
        s.cwnd = 200 * MSS;
        h.on_ack(&mut s, 200 * MSS, SimTime::ZERO);
        assert_eq!(
            s.cwnd,
            200 * MSS + MSS * MSS / (200 * MSS),
            "Reno's SMSS^2/cwnd"
        );
        s.set_state(CongState::Open);
        s.cwnd = 2 * MSS;
        s.ssthresh = u64::MAX;
        h.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(
            s.cwnd,
            CWND_CLAMP_SEGMENTS * MSS,
            "Hybla's again once Open: 2 + 65,535 segments, clamped"
        );
    }

    /// rho comes from the smallest RTT: queueing delay does not raise it.
    #[test]
    fn rho_follows_the_smallest_rtt() {
        let mut s = send_state(MSS as u32);
        let mut h = hybla_with_rtt(&mut s, 0.6);
        let mut sample = |h: &mut Hybla, rtt: f64| {
            h.on_event(
                &mut s,
                CcEvent::RttSample(Duration::from_secs_f64(rtt)),
                SimTime::ZERO,
            );
            h.rho()
        };
        assert!((sample(&mut h, 1.2) - 24.0).abs() < 1e-9);
        assert!((sample(&mut h, 0.3) - 12.0).abs() < 1e-9);
        assert_eq!(sample(&mut h, 0.001), 1.0, "at least 1");
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
