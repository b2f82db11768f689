//! DSACK-R ("DSACK with Recovery", TCP-R paper Sec. 1, after Blanton and
//! Allman, CCR 2002, and RFC 3708): SACK TCP that undoes the window cut of
//! a fast retransmission a DSACK shows to have been spurious.
//!
//! - Detection (RFC 3708, as Linux's undo_retrans): the machinery's
//!   `UndoState`, armed at recovery entry with cwnd and ssthresh before the
//!   cut, matches DSACKs against the episode's retransmissions; when every
//!   one is DSACKed, the endpoint undoes (`EndpointParts::undo_on_dsack`).
//! - Response (the paper): ssthresh = cwnd before the cut, cwnd unchanged,
//!   so that slow start regrows it without a burst. The default
//!   `CongestionControl::undo` (Linux's: cwnd back to its old value) is not
//!   this response, so `DsackUndo::undo` replaces it.
//! - DSACKs may lag the ACK that ends recovery: they still count for
//!   `late_dsack_srtts` smoothed RTTs after it [I], then the episode can no
//!   longer be undone.
//! - Timeouts are not undone [I]: `on_rto` disarms the undo state.
//! - dupthresh stays at the configured value (3).
//!
//! Settings `[tcp.dsackr]`: `late_dsack_srtts` (1.0). Readings:
//! docs/tcpr.md, "DSACK-R and RR-TCP".

use super::reno::Reno;
use super::{Settings, Showcase, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{bad, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

#[cfg(test)]
pub(crate) mod tests;

pub const VARIANT: Variant = Variant::new::<DsackRConfig>(
    "dsackr",
    "DSACK-R: SACK TCP undoing spurious fast retransmissions found by DSACK (ssthresh = cwnd before the cut)",
    &[Recovery::Sack],
    &[("dsack-r", Recovery::Sack)],
)
.compared_as(&[Showcase {
    label: "DSACK-R",
    tcp: r#"{"variant": "dsack-r", "dsack": true}"#,
}]);

/// `[tcp.dsackr]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DsackRConfig {
    /// How long after recovery ended a DSACK still counts, in smoothed
    /// RTTs (the RTO before the first sample) [I].
    #[schemars(range(min = 0.0))]
    pub late_dsack_srtts: f64,
}

impl Default for DsackRConfig {
    fn default() -> Self {
        DsackRConfig {
            late_dsack_srtts: 1.0,
        }
    }
}

impl DsackRConfig {
    pub fn check(&self) -> Result<(), ScenarioError> {
        if !(self.late_dsack_srtts >= 0.0 && self.late_dsack_srtts.is_finite()) {
            return Err(bad(
                "late_dsack_srtts",
                self.late_dsack_srtts,
                "must be a finite number >= 0",
            ));
        }
        Ok(())
    }
}

impl Settings for DsackRConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        DsackRConfig::check(self)
    }
}

impl VariantFactory for DsackRConfig {
    fn endpoint(&self, _recovery: Recovery) -> EndpointParts {
        EndpointParts::new(Box::new(DsackR::new(self)), Box::new(SackRecovery), true)
            .undoing_on_dsack()
    }
}

/// The DSACK-R response and the bounds of what may be undone, for any
/// sender that undoes as DSACK-R does (RR-TCP builds on it).
#[derive(Clone, Debug)]
pub struct DsackUndo {
    late_dsack_srtts: f64,
    /// When the ACK ending the last recovery arrived.
    exit_at: Option<SimTime>,
    /// Undos done.
    pub undos: u64,
    /// Episodes whose late-DSACK window closed without an undo.
    pub expired: u64,
}

impl DsackUndo {
    pub fn new(cfg: &DsackRConfig) -> DsackUndo {
        DsackUndo {
            late_dsack_srtts: cfg.late_dsack_srtts,
            exit_at: None,
            undos: 0,
            expired: 0,
        }
    }

    /// Every ACK, before the machinery acts on it (and before its DSACK
    /// block is matched): notes the end of recovery, and closes the
    /// late-DSACK window once it has passed.
    pub fn on_ack_info(&mut self, s: &mut SendState, ack: &AckInfo, now: SimTime) {
        if s.in_recovery() {
            if ack.ack() >= s.recover() {
                self.exit_at = Some(now);
            }
            return;
        }
        let Some(t) = self.exit_at else {
            return;
        };
        let srtt = s.rtt().srtt().unwrap_or_else(|| s.rtt().rto());
        let window = Duration::from_secs_f64(srtt.as_secs_f64() * self.late_dsack_srtts);
        if now > t + window {
            self.exit_at = None;
            if s.undo_state().armed {
                s.disarm_undo();
                self.expired += 1;
            }
        }
    }

    /// Fast retransmission: a new episode starts (the machinery armed the
    /// undo state with cwnd and ssthresh before the cut).
    pub fn on_loss(&mut self) {
        self.exit_at = None;
    }

    /// A timeout: its reduction is not undone [I].
    pub fn on_timeout(&mut self, s: &mut SendState) {
        s.disarm_undo();
        self.exit_at = None;
    }

    /// The response: ssthresh = cwnd before the cut, cwnd unchanged.
    pub fn undo(&mut self, s: &mut SendState) {
        s.ssthresh = s.undo_state().prior_cwnd;
        self.undos += 1;
    }
}

/// DSACK-R's congestion control: Reno plus the DSACK-R undo.
pub struct DsackR {
    reno: Reno,
    pub undo: DsackUndo,
}

impl DsackR {
    pub fn new(cfg: &DsackRConfig) -> DsackR {
        DsackR {
            reno: Reno::new(),
            undo: DsackUndo::new(cfg),
        }
    }
}

impl CongestionControl for DsackR {
    fn name(&self) -> &'static str {
        "dsack-r"
    }
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }
    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        if let CcEvent::Ack(ack) = ev {
            self.reno.on_ack_info(s, ack);
            self.undo.on_ack_info(s, ack, now);
        }
        Reply::Default
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.undo.on_loss();
        s.halved_window()
    }
    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
        self.undo.on_timeout(s);
    }
    fn undo(&mut self, s: &mut SendState) {
        self.undo.undo(s);
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("undos", self.undo.undos),
            ("late_window_expired", self.undo.expired),
        ]
    }
}
