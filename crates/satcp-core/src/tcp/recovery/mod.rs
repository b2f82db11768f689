//! The loss-recovery contract, after ns-3's `TcpRecoveryOps`. The
//! connection counts duplicate ACKs, keeps the scoreboard and sends
//! whatever is presumed lost before new data; a recovery module decides
//! when recovery starts, what is presumed lost, and how cwnd moves while
//! it lasts. The standard ones, NewReno (RFC 6582) and SACK-based
//! recovery (RFC 6675), are here; variants wrap them or bring their own.

pub mod counters;
pub mod frto;
pub mod newreno;
pub mod prr;
pub mod rack;
pub mod sack;
pub mod tlp;

use super::config::Recovery;
use super::send_state::SendState;
use crate::engine::Duration;

pub use counters::RecoveryCounters;
pub use newreno::NewRenoRecovery;
pub use prr::Prr;
pub use sack::SackRecovery;

/// An ACK during recovery that does not end it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryAck {
    /// A duplicate ACK.
    Duplicate,
    /// An ACK of `acked` new bytes below the recovery point.
    Partial { acked: u64 },
}

/// How the machinery runs a module's episodes: fixed for the module, read
/// once when the endpoint is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryRules {
    /// RFC 6675 NextSeg rules (3) and (4) apply in its episodes: when no
    /// presumed-lost segment waits and no new segment may go, resend the
    /// first unSACKed segment above HighRxt and below the highest SACKed
    /// octet, else once per episode the highest unSACKed one (the rescue).
    /// SACK-based recovery says true; wrappers of it must pass it on.
    pub nextseg_rules_3_and_4: bool,
    /// Extra time added to the retransmission timer restarted after a
    /// timeout (on top of the backed-off RTO).
    pub rto_restart_margin: Duration,
    /// While recovering from a timeout, at most this many segments are
    /// retransmitted per transmission round (None: as the window allows).
    pub timeout_retransmit_limit: Option<u32>,
    /// cwnd in its episodes follows the standard rule (RFC 6675's cwnd =
    /// ssthresh, RFC 6582's inflation), which `tcp.prr` replaces with
    /// Proportional Rate Reduction (`Prr`). The standard modules say true;
    /// a module with its own cwnd rule says false (a wrapper that copies
    /// its base's rules must set it).
    pub standard_cwnd: bool,
}

pub trait LossRecovery {
    fn name(&self) -> &'static str;

    /// Recovery starts: ssthresh and `recover` are already set. Sets cwnd
    /// (unless `reduced` is false: the congestion control kept its window,
    /// `CcEvent::LossDetected`), presumes segments lost and asks for the
    /// fast retransmission.
    fn enter(&mut self, s: &mut SendState, reduced: bool);

    /// A duplicate ACK or a partial ACK during recovery.
    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck);

    /// The ACK that covers `recover` arrived.
    fn exit(&mut self, s: &mut SendState);

    /// Whether the ACK just processed (a duplicate ACK, or one with new
    /// SACK information) shows a loss that should start recovery.
    fn loss_detected(&self, s: &SendState) -> bool {
        s.dupacks() >= s.dupthresh()
    }

    fn rules(&self) -> RecoveryRules {
        RecoveryRules::default()
    }
}

/// The endpoint's recovery module: the variant's, wrapped in PRR when
/// `tcp.prr` asks for it and the module's cwnd rule is the standard one.
pub fn with_settings(r: Box<dyn LossRecovery>, prr: bool) -> Box<dyn LossRecovery> {
    if prr && r.rules().standard_cwnd {
        Box::new(Prr::new(r))
    } else {
        r
    }
}

/// NewReno or SACK recovery, as `tcp.recovery` chooses.
pub fn standard(r: Recovery) -> Box<dyn LossRecovery> {
    match r {
        Recovery::NewReno => Box::new(NewRenoRecovery),
        Recovery::Sack => Box::new(SackRecovery),
    }
}
