//! SACK-based loss recovery (RFC 6675) with the RFC 2018 option: recovery
//! starts at DupThresh duplicate ACKs or when the first segment is presumed
//! lost by the scoreboard (IsLost); cwnd = ssthresh for the episode and
//! transmission is governed by pipe < cwnd, resending presumed-lost segments
//! before new data.
//!
//! NextSeg() is the machinery's (`TcpEndpoint::try_send`): rule (1) lost
//! segments, (2) new data, and, because this module asks for them, (3) the
//! first unSACKed segment above HighRxt below the highest SACK and (4) one
//! rescue retransmission per episode (docs/model.md).

use crate::tcp::recovery::LossRecovery;
use crate::tcp::send_state::SendState;

#[derive(Default)]
pub struct SackRecovery;

impl LossRecovery for SackRecovery {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        s.dupacks >= s.dupthresh || (!s.sent.is_empty() && s.sent.is_lost(0, s.dupthresh, s.mss))
    }

    fn enter(&mut self, s: &mut SendState) {
        s.cwnd = s.ssthresh;
        s.sent.mark_first_lost();
        s.sent.mark_lost_by_sack(s.dupthresh, s.mss);
        s.retransmit_now = true;
    }

    fn on_dupack(&mut self, s: &mut SendState) {
        s.sent.mark_lost_by_sack(s.dupthresh, s.mss);
    }

    fn on_partial_ack(&mut self, s: &mut SendState, _acked: u64) {
        s.sent.mark_lost_by_sack(s.dupthresh, s.mss);
    }

    fn exit(&mut self, _s: &mut SendState) {}

    fn nextseg_rules_3_and_4(&self) -> bool {
        true
    }
}
