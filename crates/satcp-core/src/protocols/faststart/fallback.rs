//! The fallback: what a Fast Start sender does when burst data is lost
//! (Reading (7) of docs/faststart.md).
//!
//! The burst was sent on cached, possibly stale state, at low priority, so
//! its loss says the cached window was too large, not that this sender's
//! ordinary traffic congested the path; and a priority router that drops
//! one low-priority segment has likely dropped many. So instead of Fast
//! Recovery (ssthresh = half the flight, cwnd inflated by duplicate ACKs,
//! one hole per round trip) the sender reverts to slow start from where it
//! would have started without the cache:
//!
//! - ssthresh = the initial ssthresh (set through `ssthresh`, in
//!   `mod.rs`), cwnd = the initial window;
//! - every burst segment neither acknowledged nor SACKed is presumed lost
//!   and resent in order as the slow-start window allows, the first one at
//!   once; whatever the receiver acknowledges or SACKs meanwhile is skipped;
//! - each ACK of new data grows cwnd as slow start does, and if it leaves
//!   a segment at the head that has not been resent, that one is resent at
//!   once (NewReno's partial-ACK rule), so the episode never waits for a
//!   timeout while the window is filled by data beyond a hole;
//! - duplicate ACKs do not inflate cwnd; with SACK they mark holes lost;
//! - when everything outstanding at the loss is acknowledged the episode
//!   ends and cwnd stays where slow start has brought it.
//!
//! Losses outside the burst, and any loss after the fallback, go to the
//! plain NewReno or SACK module.

use super::Shared;
use crate::protocols::reno::reno_ca_increase;
use crate::tcp::recovery::{LossRecovery, RecoveryAck, RecoveryRules};
use crate::tcp::send_state::SendState;

pub struct FastStartRecovery {
    st: Shared,
    plain: Box<dyn LossRecovery>,
    /// Remainder of the congestion-avoidance division, should the episode
    /// reach ssthresh (`reno_ca_increase`).
    ca_carry: u64,
}

impl FastStartRecovery {
    pub fn new(st: Shared, plain: Box<dyn LossRecovery>) -> FastStartRecovery {
        FastStartRecovery {
            st,
            plain,
            ca_carry: 0,
        }
    }

    fn in_fallback(&self) -> bool {
        self.st.borrow().fallback_episode
    }

    /// Reno's growth for an ACK of `acked` new bytes: slow start below
    /// ssthresh (RFC 5681 Eq. 2), congestion avoidance above.
    fn grow(&mut self, s: &mut SendState, acked: u64) {
        if s.in_slow_start() {
            s.cwnd += acked.min(s.mss() as u64);
        } else {
            s.cwnd += reno_ca_increase(s, &mut self.ca_carry);
        }
    }
}

impl LossRecovery for FastStartRecovery {
    fn name(&self) -> &'static str {
        "faststart"
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        self.plain.loss_detected(s)
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        if !self.in_fallback() {
            return self.plain.enter(s, reduced);
        }
        let st = self.st.borrow();
        s.cwnd = st.initial_cwnd;
        let end = st.burst.end().unwrap_or(s.snd_una());
        // The head is the burst segment the duplicate ACKs report; the
        // rest of the burst goes behind it, as the window allows.
        s.retransmit_first_now();
        s.presume_lost_below(end);
        if s.sack() {
            s.presume_lost_by_sack();
        }
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        if !self.in_fallback() {
            return self.plain.on_ack(s, ack);
        }
        let RecoveryAck::Partial { acked } = ack else {
            if s.sack() {
                s.presume_lost_by_sack();
            }
            return;
        };
        self.grow(s, acked);
        if s.sack() {
            s.presume_lost_by_sack();
        }
        // Everything below `recover` was sent before the loss was seen, so
        // a head segment not resent since is missing, not in flight.
        if let Some(head) = s.first_segment() {
            if !(head.rtx_after_loss || head.rtx_before_loss) {
                s.retransmit_first_now();
            }
        }
    }

    fn exit(&mut self, s: &mut SendState) {
        let episode = std::mem::take(&mut self.st.borrow_mut().fallback_episode);
        if !episode {
            self.plain.exit(s);
        }
    }

    /// The fallback episode selects segments as its plain module does.
    fn rules(&self) -> RecoveryRules {
        RecoveryRules {
            // The fallback's slow start is its own cwnd rule.
            standard_cwnd: false,
            ..self.plain.rules()
        }
    }
}
