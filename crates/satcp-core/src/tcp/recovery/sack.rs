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

use super::{LossRecovery, RecoveryAck, RecoveryRules};
use crate::tcp::send_state::SendState;

#[derive(Default)]
pub struct SackRecovery;

impl LossRecovery for SackRecovery {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        s.dupacks() >= s.dupthresh() || s.first_is_lost_by_sack()
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        if reduced {
            s.cwnd = s.ssthresh;
        }
        s.retransmit_first_now();
        s.presume_lost_by_sack();
    }

    fn on_ack(&mut self, s: &mut SendState, _ack: RecoveryAck) {
        s.presume_lost_by_sack();
    }

    fn exit(&mut self, _s: &mut SendState) {}

    fn rules(&self) -> RecoveryRules {
        RecoveryRules {
            nextseg_rules_3_and_4: true,
            standard_cwnd: true,
            ..RecoveryRules::default()
        }
    }
}
