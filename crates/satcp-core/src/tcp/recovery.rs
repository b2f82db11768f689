//! The loss-recovery hook, after ns-3's TcpRecoveryOps. The connection
//! counts duplicate ACKs, keeps the scoreboard and sends whatever is presumed
//! lost before new data; a recovery module decides when recovery starts,
//! what is presumed lost, and how cwnd moves while it lasts.

use super::ack_info::AckInfo;
use super::send_state::SendState;
use crate::engine::Duration;

pub trait LossRecovery {
    fn name(&self) -> &'static str;

    /// Every ACK, before the machinery counts it or acts on it (a module
    /// may remember what it carried, e.g. a drop-negative bit, to decide
    /// `loss_detected` or `enter`).
    fn on_ack_info(&mut self, _s: &mut SendState, _ack: &AckInfo) {}

    /// Whether the ACK just processed (a duplicate ACK, or one with new SACK
    /// information) shows a loss that should start recovery.
    fn loss_detected(&self, s: &SendState) -> bool {
        s.dupacks >= s.dupthresh
    }

    /// Recovery is about to start (`loss_detected` said so, outside
    /// recovery): whether this episode reduces the window. The default,
    /// true, is the standard fast retransmit: the machinery counts it in
    /// `fast_retransmits`, arms the undo state and sets ssthresh from
    /// `CongestionControl::ssthresh_on_loss`. False (TCP-R's retransmission
    /// of a segment presumed reordered): ssthresh is left alone, nothing is
    /// counted or armed, and `enter` must leave cwnd alone too; the episode
    /// is otherwise the same (`recover` set, `enter`, recovery until
    /// `recover` is acknowledged).
    fn reduces_window(&mut self, _s: &SendState) -> bool {
        true
    }

    /// Recovery starts: ssthresh and `recover` are already set. Sets cwnd,
    /// presumes segments lost and asks for the fast retransmission.
    fn enter(&mut self, s: &mut SendState);

    /// A duplicate ACK during recovery.
    fn on_dupack(&mut self, s: &mut SendState);

    /// An ACK of new data that does not end recovery.
    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64);

    /// The ACK that covers `recover`.
    fn exit(&mut self, s: &mut SendState);

    /// RFC 6675 NextSeg rules (3) and (4) apply in this module's recovery
    /// episodes: when no presumed-lost segment waits and no new segment may
    /// go, resend the first unSACKed segment above HighRxt and below the
    /// highest SACKed octet, else once per episode the highest unSACKed one
    /// (the rescue). SACK-based recovery (RFC 6675) says true; wrappers of
    /// it must pass the answer on.
    fn nextseg_rules_3_and_4(&self) -> bool {
        false
    }

    /// Extra time added to the retransmission timer restarted after a
    /// timeout (on top of the backed-off RTO).
    fn rto_restart_margin(&self) -> Duration {
        Duration::ZERO
    }

    /// Undo the window reduction of an episode (or timeout) whose every
    /// retransmission a DSACK showed to be spurious (DSACK-R).
    fn undo_on_spurious(&self) -> bool {
        false
    }

    /// While recovering from a timeout, at most this many segments are
    /// retransmitted per transmission round (None: as the window allows).
    fn timeout_retransmit_limit(&self) -> Option<u32> {
        None
    }
}
