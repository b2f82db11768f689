//! Proportional Rate Reduction (RFC 6937), PRR-SSRB as Linux runs it
//! (`tcp_cwnd_reduction`): during loss recovery, cwnd follows the data
//! delivered instead of jumping to ssthresh at once, so that the sender
//! spreads the reduction over the round trip (sending about ssthresh /
//! RecoverFS of what is delivered) while pipe is above ssthresh, and
//! grows back towards ssthresh, at most one segment more than is delivered
//! per ACK, once losses brought pipe below it.
//!
//! `tcp.prr = true` wraps the standard recovery modules (NewReno, SACK,
//! and every variant that runs them unchanged) in `Prr`: the inner module
//! still decides what is presumed lost and what is resent; PRR only sets
//! cwnd. A variant whose recovery has its own cwnd rule (TCP-ADaLR,
//! TCP-Peach's Rapid Recovery, TCP Fast Start's fallback) says so in its
//! rules (`RecoveryRules::standard_cwnd` false) and keeps it.
//!
//! RFC 6937 Sec. 3, per ACK during recovery:
//!
//! ```text
//! DeliveredData = change_in(snd.una) + change_in(SACKd)
//! prr_delivered += DeliveredData
//! if pipe > ssthresh:  sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//! else:                sndcnt = MIN(ssthresh - pipe,
//!                                   MAX(prr_delivered - prr_out, DeliveredData) + MSS)
//! cwnd = pipe + sndcnt
//! ```
//!
//! with RecoverFS the flight size at the start of recovery and prr_out
//! the data sent since. The "+ MSS" of the slow-start reduction bound is
//! added only on an ACK that advanced snd_una and marked no new loss, as
//! Linux does (and RFC 6937's successor draft). DeliveredData comes from
//! the scoreboard's count of delivered bytes (SACKed or acknowledged, each
//! once). Without SACK, RFC 6937 Sec. 3 estimates it: one SMSS per
//! duplicate ACK, and on a partial ACK the advance of snd_una less what the
//! duplicate ACKs already counted; the same duplicate ACKs count as
//! delivered in the pipe PRR compares with ssthresh (Linux's
//! `tcp_add_reno_sack`), since a sender without SACK cannot see them leave
//! it otherwise, and cwnd is set sndcnt above the machinery's own pipe. At
//! the end of recovery cwnd = ssthresh.

use super::{LossRecovery, RecoveryAck, RecoveryRules};
use crate::tcp::send_state::SendState;

pub struct Prr {
    inner: Box<dyn LossRecovery>,
    /// The episode is reduced (false: the congestion control kept its
    /// window, `CcEvent::LossDetected`, and PRR stays out of it).
    active: bool,
    /// RecoverFS: the flight size when recovery started.
    recover_fs: u64,
    prr_delivered: u64,
    /// What the connection had sent, and the scoreboard had counted as
    /// delivered, when recovery started / at the last ACK.
    sent_at_entry: u64,
    delivered_seen: u64,
    /// Without SACK: bytes the duplicate ACKs of the episode show arrived
    /// above snd_una, not yet covered by a partial ACK.
    dupack_delivered: u64,
}

impl Prr {
    pub fn new(inner: Box<dyn LossRecovery>) -> Prr {
        Prr {
            inner,
            active: false,
            recover_fs: 0,
            prr_delivered: 0,
            sent_at_entry: 0,
            delivered_seen: 0,
            dupack_delivered: 0,
        }
    }

    /// Data sent so far: new and resent.
    fn sent(s: &SendState) -> u64 {
        s.snd_max() + s.scoreboard().retransmitted_bytes()
    }

    /// prr_out: data sent since recovery started.
    fn prr_out(&self, s: &SendState) -> u64 {
        Self::sent(s) - self.sent_at_entry
    }

    /// pipe as PRR reads it: without SACK, less what duplicate ACKs showed
    /// delivered.
    fn pipe(&self, s: &SendState) -> u64 {
        s.pipe().saturating_sub(self.dupack_delivered)
    }

    /// DeliveredData of this ACK (RFC 6937 Sec. 3).
    fn delivered(&mut self, s: &SendState, ack: RecoveryAck) -> u64 {
        let mss = s.mss() as u64;
        if s.sack() {
            let total = s.scoreboard().rate.delivered;
            let d = total - self.delivered_seen;
            self.delivered_seen = total;
            return d;
        }
        match ack {
            RecoveryAck::Duplicate => {
                let room = s.flight_size().saturating_sub(mss + self.dupack_delivered);
                let d = mss.min(room);
                self.dupack_delivered += d;
                mss
            }
            RecoveryAck::Partial { acked } => {
                // One ACK fills a hole; the segments above it were counted
                // by their duplicate ACKs.
                let d = acked
                    .saturating_sub(self.dupack_delivered)
                    .max(acked.min(mss));
                self.dupack_delivered = self
                    .dupack_delivered
                    .saturating_sub(acked.saturating_sub(mss));
                d
            }
        }
    }

    /// cwnd = pipe + sndcnt (RFC 6937 Sec. 3, PRR-SSRB).
    fn set_cwnd(&self, s: &mut SendState, delivered: u64, una_advanced_no_new_loss: bool) {
        let mss = s.mss() as u64;
        let pipe = self.pipe(s);
        let prr_out = self.prr_out(s);
        let sndcnt = if pipe > s.ssthresh {
            // The proportional part: ssthresh / RecoverFS of what was
            // delivered, in whole segments (the CEIL, as Linux counts
            // packets), less what was sent.
            let share = (self.prr_delivered as u128 * s.ssthresh as u128)
                .div_ceil(self.recover_fs.max(1) as u128 * mss as u128)
                as u64
                * mss;
            share.saturating_sub(prr_out)
        } else {
            // The slow-start reduction bound: catch up towards ssthresh,
            // at most one segment more than delivered.
            let bonus = if una_advanced_no_new_loss { mss } else { 0 };
            let limit = self.prr_delivered.saturating_sub(prr_out).max(delivered) + bonus;
            (s.ssthresh - pipe).min(limit)
        };
        // The machinery sends while its own pipe (without the duplicate
        // ACKs' estimate) + a segment fits in cwnd.
        s.cwnd = (s.pipe() + sndcnt).max(mss);
    }
}

impl LossRecovery for Prr {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        self.inner.loss_detected(s)
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        self.inner.enter(s, reduced);
        self.active = reduced;
        if !reduced {
            return;
        }
        self.recover_fs = s.flight_size();
        self.prr_delivered = 0;
        self.sent_at_entry = Self::sent(s);
        self.delivered_seen = s.scoreboard().rate.delivered;
        // Without SACK, the duplicate ACKs that started recovery showed
        // DupThresh segments delivered.
        self.dupack_delivered = if s.sack() {
            0
        } else {
            let mss = s.mss() as u64;
            (s.dupacks() as u64 * mss).min(s.flight_size().saturating_sub(mss))
        };
        // Room for the fast retransmission alone (Linux: "Force a fast
        // retransmit upon entering fast recovery", sndcnt >= 1 while
        // prr_out is 0): it goes whatever cwnd says, and fills it.
        s.cwnd = s.pipe().max(s.mss() as u64);
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        if !self.active {
            return self.inner.on_ack(s, ack);
        }
        let (cwnd, lost_before) = (s.cwnd, s.scoreboard().awaiting_retransmission());
        self.inner.on_ack(s, ack);
        // PRR alone sets cwnd in the episode (NewReno's inflation and
        // deflation are not used).
        s.cwnd = cwnd;
        let delivered = self.delivered(s, ack);
        if delivered == 0 {
            // Linux leaves cwnd alone on an ACK that delivered nothing.
            return;
        }
        self.prr_delivered += delivered;
        let new_loss = s.scoreboard().awaiting_retransmission() > lost_before;
        let advanced = matches!(ack, RecoveryAck::Partial { .. });
        self.set_cwnd(s, delivered, advanced && !new_loss);
    }

    fn exit(&mut self, s: &mut SendState) {
        self.inner.exit(s);
        if self.active {
            // RFC 6937 Sec. 3: "On any ACK ... that ends recovery: cwnd =
            // ssthresh" (Linux's tcp_end_cwnd_reduction).
            s.cwnd = s.ssthresh.max(s.mss() as u64);
            self.active = false;
        }
    }

    fn rules(&self) -> RecoveryRules {
        self.inner.rules()
    }
}
