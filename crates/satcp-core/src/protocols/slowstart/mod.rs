//! The modified slow start of M. Marchese's slow-start paper (Sec. II):
//! standard TCP (SACK in the paper, NewReno possible) whose slow start
//! adds F(N_ack, cwnd) x SMSS per ACK instead of one SMSS. Congestion
//! avoidance, fast retransmit and fast recovery are untouched (Sec. II-A).
//! The functions are in `functions.rs`; the policy that applies them, a
//! `SlowStart` any Reno-style sender can take, is `FunctionSlowStart`.
//!
//! Settings `[tcp.slowstart]`: `function = "standard" | "constant" |
//! "linear" | "piecewise"`, `k` (constant), `thr` (linear, segments),
//! `thresholds` and `factors` (piecewise, K_thr_n). Readings of the OCR-
//! damaged formulas: docs/slowstart.md.

pub mod functions;

use super::reno::Reno;
use super::{CongestionSettings, Showcase, Variant, VariantInput};
use crate::error::{bad, positive, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CongestionControl, SlowStart};
use crate::tcp::send_state::SendState;
use crate::tcp::Recovery;
use functions::{IncreaseFunction, LinearPiece};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::congestion_only::<SlowStartConfig>(
    "slowstart",
    "modified slow start (Marchese): cwnd += F(N_ack, cwnd) x SMSS per ACK, F constant, linear or piecewise linear",
    &[Recovery::Sack, Recovery::NewReno],
    &[],
)
.compared_as(&[Showcase {
    label: "Slow start K=2",
    tcp: r#"{"variant": "slowstart", "slowstart": {"function": "constant", "k": 2}}"#,
}]);

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FunctionKind {
    /// F = 1 (Eq. 1), the reference.
    #[default]
    Standard,
    /// F' = K (Eq. 2).
    Constant,
    /// F'' = N_ack while cwnd <= thr (Eq. 3).
    Linear,
    /// F''' = K_n x N_ack while cwnd <= thr_n (Eq. 5-6).
    Piecewise,
}

/// `[tcp.slowstart]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SlowStartConfig {
    /// The slow-start function: "standard", "constant", "linear" or
    /// "piecewise".
    pub function: FunctionKind,
    /// K of F' (the paper: 1, 2, 4, 6).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub k: f64,
    /// thr of F'', segments (the paper: 10, 20, 30, 50).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0), extend("x-unit" = "segments"))]
    pub thr: f64,
    /// thr_1 < thr_2 < ... of F''', segments (the paper: 10-20-30, 20-30-40).
    #[schemars(extend("x-unit" = "segments"))]
    pub thresholds: Vec<f64>,
    /// K_thr_n of F''' (the paper: 4, 2, 1).
    pub factors: Vec<f64>,
}

impl Default for SlowStartConfig {
    fn default() -> Self {
        SlowStartConfig {
            function: FunctionKind::Standard,
            k: 2.0,
            thr: 20.0,
            thresholds: vec![20.0, 30.0, 40.0],
            factors: vec![4.0, 2.0, 1.0],
        }
    }
}

impl SlowStartConfig {
    /// The selected function; every field is checked, also those the
    /// selected function does not use (a typo there is still a typo).
    pub fn function(&self) -> Result<IncreaseFunction, ScenarioError> {
        positive("k", self.k)?;
        positive("thr", self.thr)?;
        let pieces = self.pieces()?;
        Ok(match self.function {
            FunctionKind::Standard => IncreaseFunction::Standard,
            FunctionKind::Constant => IncreaseFunction::Constant { k: self.k },
            FunctionKind::Linear => IncreaseFunction::Linear { thr: self.thr },
            FunctionKind::Piecewise => IncreaseFunction::Piecewise { pieces },
        })
    }

    fn pieces(&self) -> Result<Vec<LinearPiece>, ScenarioError> {
        if self.thresholds.is_empty() || self.thresholds.len() != self.factors.len() {
            return Err(bad(
                "factors",
                format!("{:?}", self.factors),
                &format!(
                    "must give one factor per threshold ({} thresholds)",
                    self.thresholds.len()
                ),
            ));
        }
        for (i, (&thr, &k)) in self.thresholds.iter().zip(&self.factors).enumerate() {
            positive(&format!("thresholds[{i}]"), thr)?;
            positive(&format!("factors[{i}]"), k)?;
            if i > 0 && thr <= self.thresholds[i - 1] {
                return Err(bad(
                    format!("thresholds[{i}]"),
                    thr,
                    "must be above the threshold before it",
                ));
            }
        }
        Ok(self
            .thresholds
            .iter()
            .zip(&self.factors)
            .map(|(&thr, &k)| LinearPiece { thr, k })
            .collect())
    }
}

impl CongestionSettings for SlowStartConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        self.function().map(|_| ())
    }

    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        let policy = FunctionSlowStart {
            f: self.function().expect("checked"),
            n_ack: 0,
        };
        Box::new(Reno::with_slow_start(Box::new(policy)))
    }
}

/// Slow start by an increase function: F(N_ack, cwnd) x SMSS per ACK of
/// new data, N_ack counting every ACK the connection received (duplicates
/// included: "the number of received acknowledgements in a single TCP
/// connection", Sec. II-B).
pub struct FunctionSlowStart {
    pub f: IncreaseFunction,
    pub n_ack: u64,
}

impl SlowStart for FunctionSlowStart {
    fn on_ack_info(&mut self, _s: &SendState, _ack: &AckInfo) {
        self.n_ack += 1;
    }

    fn increase(&mut self, s: &SendState, acked: u64) -> u64 {
        let mss = s.mss() as u64;
        if self.f == IncreaseFunction::Standard {
            // The reference exactly as standard TCP (RFC 5681 Eq. 2).
            return acked.min(mss);
        }
        let cwnd_segs = s.cwnd as f64 / mss as f64;
        let inc = (self.f.factor(self.n_ack, cwnd_segs) * mss as f64) as u64;
        // Reading (5): an increase never carries cwnd past ssthresh (after a
        // timeout N_ack is large and F'' would add hundreds of segments at
        // once); it never adds less than standard slow start.
        s.capped_slow_start_increase(inc, acked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::protocols::test_support::send_state;
    use crate::tcp::congestion::CongestionControl;

    fn state(cwnd_segs: u64, ssthresh: u64) -> SendState {
        let mut s = send_state(1000);
        s.cwnd = cwnd_segs * 1000;
        s.ssthresh = ssthresh;
        s
    }

    fn settings(v: serde_json::Value) -> Result<IncreaseFunction, ScenarioError> {
        crate::error::typed::<SlowStartConfig>(&v)?.function()
    }

    #[test]
    fn settings_select_and_check_the_function() {
        assert_eq!(
            settings(serde_json::json!({})).unwrap(),
            IncreaseFunction::Standard
        );
        assert_eq!(
            settings(serde_json::json!({"function": "constant", "k": 4})).unwrap(),
            IncreaseFunction::Constant { k: 4.0 }
        );
        let e = settings(serde_json::json!({"function": "constant", "k": -1})).unwrap_err();
        assert_eq!(e.field, "k");
        let e = settings(
            serde_json::json!({"function": "piecewise", "thresholds": [10, 5],
            "factors": [2, 1]}),
        )
        .unwrap_err();
        assert_eq!(e.field, "thresholds[1]");
        let e = settings(
            serde_json::json!({"function": "piecewise", "thresholds": [10],
            "factors": [2, 1]}),
        )
        .unwrap_err();
        assert_eq!(e.field, "factors");
        let e = settings(serde_json::json!({"function": "quadratic"})).unwrap_err();
        assert_eq!(e.field, "function");
    }

    #[test]
    fn each_ack_adds_f_segments_in_slow_start() {
        let mut s = state(6, u64::MAX);
        let mut p = FunctionSlowStart {
            f: IncreaseFunction::Linear { thr: 20.0 },
            n_ack: 0,
        };
        let mut reno = Reno::with_slow_start(Box::new(FunctionSlowStart {
            f: IncreaseFunction::Constant { k: 4.0 },
            n_ack: 0,
        }));
        reno.on_ack(&mut s, 2000, SimTime::ZERO);
        assert_eq!(s.cwnd, 10_000, "K = 4 adds four segments per ACK");
        p.n_ack = 5;
        assert_eq!(p.increase(&s, 1000), 5000, "Linear: N_ack segments");
        s.cwnd = 21_000;
        assert_eq!(p.increase(&s, 1000), 1000, "above thr: one segment");
    }

    #[test]
    fn the_increase_stops_at_ssthresh_but_never_below_standard() {
        let s = state(10, 12_500);
        let mut p = FunctionSlowStart {
            f: IncreaseFunction::Constant { k: 6.0 },
            n_ack: 0,
        };
        assert_eq!(p.increase(&s, 1000), 2500);
        let s = state(10, 10_200);
        assert_eq!(p.increase(&s, 1000), 1000);
    }

    #[test]
    fn the_reference_is_standard_slow_start() {
        let s = state(3, u64::MAX);
        let mut p = FunctionSlowStart {
            f: IncreaseFunction::Standard,
            n_ack: 9,
        };
        assert_eq!(p.increase(&s, 2000), 1000);
        assert_eq!(p.increase(&s, 500), 500);
    }
}
