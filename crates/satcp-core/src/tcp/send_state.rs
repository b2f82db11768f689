//! The sender's state that congestion control and loss recovery modules may
//! read and change. The connection machinery owns it and keeps the sequence
//! variables, scoreboard and timers consistent; variants only decide.

use super::rtt_estimator::RttEstimator;
use super::sent_queue::SentQueue;
use crate::engine::SimTime;
use crate::net::packet::{Priority, SeqRange};

/// A segment a variant asks for outside the normal window logic, e.g. a
/// TCP-Peach dummy segment. The machinery sends a copy of the most recently
/// sent data segment with the given priority and header extension flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtraSegment {
    pub priority: Priority,
    pub ext_flags: u8,
}

/// What a window reduction can be undone to, and whether it still can
/// (after Linux's undo_marker / undo_retrans): the reduction was spurious
/// if every segment retransmitted since it turns out, by DSACK, to have
/// arrived twice.
#[derive(Clone, Debug, Default)]
pub struct UndoState {
    /// A reduction happened and may still be undone.
    pub armed: bool,
    /// cwnd and ssthresh just before the reduction.
    pub prior_cwnd: u64,
    pub prior_ssthresh: u64,
    /// Ranges retransmitted since the reduction, not yet reported by DSACK.
    pub retransmitted: Vec<SeqRange>,
    /// Retransmissions since the reduction (the undo needs all of them
    /// shown spurious).
    pub retransmissions: u32,
}

impl UndoState {
    /// A window reduction (loss recovery or timeout) starts.
    pub fn arm(&mut self, cwnd: u64, ssthresh: u64) {
        self.armed = true;
        self.prior_cwnd = cwnd;
        self.prior_ssthresh = ssthresh;
        self.retransmitted.clear();
        self.retransmissions = 0;
    }

    pub fn on_retransmit(&mut self, r: SeqRange) {
        if self.armed {
            self.retransmissions += 1;
            self.retransmitted.push(r);
        }
    }

    /// A DSACK reported `d`: if it covers a retransmission of this episode,
    /// returns that range (forgotten, so a second report is not counted).
    pub fn on_dsack(&mut self, d: SeqRange) -> Option<SeqRange> {
        let i = self
            .retransmitted
            .iter()
            .position(|r| d.start <= r.start && r.end <= d.end)?;
        Some(self.retransmitted.swap_remove(i))
    }

    /// Every retransmission of the episode has been shown spurious.
    pub fn all_spurious(&self) -> bool {
        self.armed && self.retransmissions > 0 && self.retransmitted.is_empty()
    }
}

pub struct SendState {
    pub mss: u32,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Highest sequence number sent plus one (snd_max of BSD).
    pub snd_max: u64,
    /// Sequence number after the last byte the application has written.
    pub stream_end: u64,
    /// Sequence number of our FIN once the application closed.
    pub fin_seq: Option<u64>,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Window the peer last advertised.
    pub rwnd: u64,
    pub dupacks: u32,
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// A timeout's go-back-N resend is under way (until `recover` is acked).
    pub in_timeout_recovery: bool,
    /// End of the current or last loss-recovery episode (snd_recover of
    /// RFC 6582, RecoveryPoint of RFC 6675); 0 until the first loss.
    pub recover: u64,
    /// Set by a recovery module: send the first presumed-lost segment now,
    /// regardless of cwnd (fast retransmit, NewReno partial ACK).
    pub retransmit_now: bool,
    pub sack: bool,
    pub rtt: RttEstimator,
    pub sent: SentQueue,
    /// Extra segments requested by the variant, sent at the next chance.
    pub extra: Vec<ExtraSegment>,
    /// Earliest time the next segment may leave, when pacing.
    pub next_send_time: SimTime,
    /// The last window reduction, for undoing it (`CongestionControl::undo`).
    pub undo: UndoState,
}

impl SendState {
    /// FlightSize of RFC 5681: data sent and not cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Bytes counted against cwnd (RFC 6675 pipe; flight size without SACK
    /// information, minus segments presumed lost and not yet resent).
    pub fn pipe(&self) -> u64 {
        self.sent.pipe()
    }
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    /// A slow-start increase of `inc` bytes for an ACK of `acked`, as the
    /// variants with faster slow starts read it: never carrying cwnd past
    /// ssthresh in one step, never less than standard slow start's
    /// min(acked, SMSS).
    pub fn capped_slow_start_increase(&self, inc: u64, acked: u64) -> u64 {
        let room = self.ssthresh.saturating_sub(self.cwnd);
        inc.min(room).max(acked.min(self.mss as u64))
    }
    /// Standard reduction after a loss (RFC 5681 Eq. 4).
    pub fn half_flight(&self) -> u64 {
        (self.flight_size() / 2).max(2 * self.mss as u64)
    }
}
