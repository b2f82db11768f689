//! NewReno loss recovery (RFC 6582, thesis Sec. 2.3.4): fast retransmit at
//! the third duplicate ACK, cwnd inflated by one SMSS per further duplicate
//! ACK, one retransmission per partial ACK with cwnd deflated by the bytes
//! it acknowledged, and cwnd = ssthresh when the whole window is acknowledged.

use super::{LossRecovery, RecoveryAck, RecoveryRules};
use crate::tcp::send_state::SendState;

#[derive(Default)]
pub struct NewRenoRecovery;

impl NewRenoRecovery {
    /// RFC 6582 Sec. 3.2 step 3: deflate by what a partial ACK
    /// acknowledged, add back one SMSS if at least one SMSS was.
    pub fn deflate(s: &mut SendState, acked: u64) {
        let mss = s.mss() as u64;
        s.cwnd = s.cwnd.saturating_sub(acked).max(mss);
        if acked >= mss {
            s.cwnd += mss;
        }
    }
}

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        if reduced {
            s.cwnd = s.ssthresh + 3 * s.mss() as u64;
        }
        s.retransmit_first_now();
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        match ack {
            RecoveryAck::Duplicate => s.cwnd += s.mss() as u64,
            RecoveryAck::Partial { acked } => {
                Self::deflate(s, acked);
                // The partial ACK shows the segment at snd_una lost too.
                s.retransmit_first_now();
            }
        }
    }

    fn exit(&mut self, s: &mut SendState) {
        s.cwnd = s.ssthresh;
    }

    fn rules(&self) -> RecoveryRules {
        RecoveryRules {
            standard_cwnd: true,
            ..RecoveryRules::default()
        }
    }
}
