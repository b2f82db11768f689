//! Scalable TCP (T. Kelly, "Scalable TCP: improving performance in
//! highspeed wide area networks", ACM CCR 33(2), 2003), as Linux's
//! `tcp_scalable.c` runs it: in congestion avoidance cwnd grows by `a`
//! segments per segment acknowledged (1/cwnd while cwnd is below 1/a
//! segments, as Reno), and a loss multiplies it by 1 - `b`. Slow start and
//! loss recovery are standard.
//!
//! This is also the smallest complete variant: a congestion control with
//! its settings and nothing else. To write your own, copy this file,
//! rename the struct and the settings, and add one line to `VARIANTS` in
//! `protocols/mod.rs` (docs/architecture.md, "Adding a variant").

use super::{CongestionSettings, Variant, VariantInput};
use crate::engine::SimTime;
use crate::error::{bad, ScenarioError};
use crate::tcp::{CongestionControl, Recovery, SendState};
use serde::Deserialize;

pub const VARIANT: Variant = Variant::congestion_only::<ScalableConfig>(
    "scalable",
    "Scalable TCP (Kelly 2003): cwnd + a per segment acknowledged, x (1 - b) on a loss",
    &[Recovery::Sack, Recovery::NewReno],
    &[],
);

/// `[tcp.scalable]`: the paper's constants (Sec. 2).
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// a: segments added per segment acknowledged (0.01).
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub a: f64,
    /// b: the share of cwnd a loss takes (0.125).
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub b: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: 0.01, b: 0.125 }
    }
}

impl CongestionSettings for ScalableConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return Err(bad("a", self.a, "must be in (0, 1]"));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(bad("b", self.b, "must be between 0 and 1 (exclusive)"));
        }
        Ok(())
    }

    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Scalable {
            cfg: self.clone(),
            carry: 0.0,
        })
    }
}

pub struct Scalable {
    cfg: ScalableConfig,
    /// Growth not yet added, bytes (cwnd moves in whole bytes).
    carry: f64,
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    /// cwnd x (1 - b), at least two segments.
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        let reduced = (s.cwnd as f64 * (1.0 - self.cfg.b)) as u64;
        reduced.max(2 * s.mss() as u64)
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, _now: SimTime) {
        let mss = s.mss() as u64;
        let mut acked = acked;
        if s.in_slow_start() {
            // The standard slow start (tcp/slow_start.rs).
            acked = s.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        // Linux: one segment per min(cwnd, 1/a) segments acknowledged.
        let cwnd_segs = s.cwnd as f64 / mss as f64;
        let per_segment = 1.0 / cwnd_segs.min(1.0 / self.cfg.a);
        self.carry += per_segment * acked as f64;
        let whole = self.carry.floor();
        self.carry -= whole;
        s.cwnd += whole as u64;
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        let ssthresh = self.ssthresh(s);
        s.restart_after_timeout(ssthresh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::test_support::{send_state, settings_error};

    const MSS: u64 = 1000;

    #[test]
    fn a_loss_takes_b_of_the_window() {
        let mut s = send_state(MSS as u32);
        s.cwnd = 800 * MSS;
        let mut c = Scalable {
            cfg: ScalableConfig::default(),
            carry: 0.0,
        };
        assert_eq!(c.ssthresh(&s), 700 * MSS);
        s.cwnd = 2 * MSS;
        assert_eq!(c.ssthresh(&s), 2 * MSS, "never below two segments");
    }

    /// Above 1/a = 100 segments a window's worth of ACKs adds a x cwnd
    /// segments (1 % per RTT, independent of the RTT); below, one segment
    /// as Reno.
    #[test]
    fn congestion_avoidance_grows_by_a_per_segment_above_100_segments() {
        for (segs, expected) in [(1000u64, 10u64), (50, 1)] {
            let mut s = send_state(MSS as u32);
            s.cwnd = segs * MSS;
            s.ssthresh = s.cwnd;
            let mut c = Scalable {
                cfg: ScalableConfig::default(),
                carry: 0.0,
            };
            for _ in 0..segs {
                c.on_ack(&mut s, MSS, SimTime::ZERO);
            }
            let grown = (s.cwnd - segs * MSS) as f64 / MSS as f64;
            assert!(
                (grown - expected as f64).abs() <= 0.05 * expected as f64,
                "{segs} segments: grew {grown}"
            );
        }
    }

    #[test]
    fn a_timeout_restarts_from_one_segment() {
        let mut s = send_state(MSS as u32);
        s.cwnd = 400 * MSS;
        let mut c = Scalable {
            cfg: ScalableConfig::default(),
            carry: 0.0,
        };
        c.on_timeout(&mut s);
        assert_eq!((s.cwnd, s.ssthresh), (MSS, 350 * MSS));
    }

    #[test]
    fn settings_are_checked() {
        let e = |v| settings_error("scalable", v);
        assert_eq!(e(serde_json::json!({"a": 0})), Some("scalable.a".into()));
        assert_eq!(e(serde_json::json!({"b": 1})), Some("scalable.b".into()));
        assert_eq!(e(serde_json::json!({"c": 1})), Some("scalable.c".into()));
        assert_eq!(e(serde_json::json!({"a": 0.02})), None);
    }
}
