//! What the loss-recovery mechanisms beyond the RFC 6675 / RFC 6582
//! defaults did on one endpoint (as sender), reported per flow in the
//! results as `recovery_counters`: only the counters of the mechanisms
//! switched on, so that the RFC defaults report none and their results
//! keep their columns.

use crate::tcp::config::{ScoreboardAfterTimeout, TcpConfig};

#[derive(Clone, Debug, Default)]
pub struct RecoveryCounters {
    keep: bool,
    frto: bool,
    rack_tlp: bool,
    /// Timeouts that found the first segment SACKed: the receiver reneged
    /// and the scoreboard was cleared (`scoreboard_after_timeout = "keep"`).
    pub renegings: u64,
    /// Timeouts F-RTO showed spurious, and undid (RFC 5682 step 3b).
    pub frto_spurious: u64,
    /// Segments RACK presumed lost (RFC 8985 Sec. 6.2 step 5).
    pub rack_marked_lost: u64,
    /// Reorder-timer expiries that presumed segments lost.
    pub rack_timer_losses: u64,
    /// Tail loss probes sent (RFC 8985 Sec. 7.3).
    pub tlp_probes: u64,
    /// Probes whose ACK showed they repaired a loss (Sec. 7.4): cwnd
    /// reduced as for one loss.
    pub tlp_repairs: u64,
}

impl RecoveryCounters {
    pub fn new(cfg: &TcpConfig) -> RecoveryCounters {
        RecoveryCounters {
            keep: cfg.scoreboard_after_timeout == ScoreboardAfterTimeout::Keep,
            frto: cfg.frto,
            rack_tlp: cfg.rack_tlp,
            ..RecoveryCounters::default()
        }
    }

    /// (name, value) of the counters of the mechanisms switched on.
    pub fn reported(&self) -> Vec<(&'static str, u64)> {
        let mut v = Vec::new();
        if self.keep {
            v.push(("renegings", self.renegings));
        }
        if self.frto {
            v.push(("frto_spurious_timeouts", self.frto_spurious));
        }
        if self.rack_tlp {
            v.push(("rack_marked_lost", self.rack_marked_lost));
            v.push(("rack_timer_losses", self.rack_timer_losses));
            v.push(("tlp_probes", self.tlp_probes));
            v.push(("tlp_repairs", self.tlp_repairs));
        }
        v
    }
}
