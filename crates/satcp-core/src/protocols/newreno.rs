//! NewReno loss recovery (RFC 6582, thesis Sec. 2.3.4): fast retransmit at
//! the third duplicate ACK, cwnd inflated by one SMSS per further duplicate
//! ACK, one retransmission per partial ACK with cwnd deflated by the bytes
//! it acknowledged, and cwnd = ssthresh when the whole window is acknowledged.

use crate::tcp::recovery::LossRecovery;
use crate::tcp::send_state::SendState;

#[derive(Default)]
pub struct NewRenoRecovery;

impl NewRenoRecovery {
    /// A partial ACK shows the segment at snd_una lost too: resend it now.
    pub fn retransmit_first_hole(s: &mut SendState) {
        s.sent.mark_first_lost();
        s.retransmit_now = true;
    }
}

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn enter(&mut self, s: &mut SendState) {
        s.cwnd = s.ssthresh + 3 * s.mss as u64;
        s.sent.mark_first_lost();
        s.retransmit_now = true;
    }

    fn on_dupack(&mut self, s: &mut SendState) {
        s.cwnd += s.mss as u64;
    }

    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64) {
        // Deflate by what was acknowledged, add back one SMSS if at least
        // one SMSS was acknowledged (RFC 6582 Sec. 3.2 step 3).
        let mss = s.mss as u64;
        s.cwnd = s.cwnd.saturating_sub(acked).max(mss);
        if acked >= mss {
            s.cwnd += mss;
        }
        Self::retransmit_first_hole(s);
    }

    fn exit(&mut self, s: &mut SendState) {
        s.cwnd = s.ssthresh;
    }
}
