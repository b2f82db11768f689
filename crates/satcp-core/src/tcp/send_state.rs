//! The sender's state as congestion control and loss recovery see it. The
//! connection machinery (`tcp/`) owns every field and keeps the sequence
//! variables, the scoreboard and the timers consistent; a variant reads
//! them through the methods below and writes only what it decides: cwnd
//! and ssthresh (public fields, its own), and a few requests (a segment
//! presumed lost, an extra segment, the duplicate-ACK threshold).

use super::cwnd_validation::CwndUse;
use super::loss_reduction::SsthreshFrom;
use super::rtt_estimator::RttEstimator;
use super::sent_queue::{SentQueue, SentSegment};
use super::slow_start::SlowStartRules;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{Priority, SeqRange};

/// The sender's congestion state, as Linux's `tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongState {
    /// Nothing unusual: ACKs advance the window.
    Open,
    /// Duplicate ACKs or SACKed data, but no loss presumed yet.
    Disorder,
    /// Fast retransmission and loss recovery until `recover` is
    /// acknowledged.
    Recovery,
    /// After a retransmission timeout, until the data outstanding at the
    /// timeout is acknowledged.
    Loss,
}

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
    /// Congestion window, bytes: the congestion control's to set.
    pub cwnd: u64,
    /// Slow-start threshold, bytes: the congestion control's to set.
    pub ssthresh: u64,
    pub(in crate::tcp) mss: u32,
    /// Oldest unacknowledged sequence number.
    pub(in crate::tcp) snd_una: u64,
    /// Highest sequence number sent plus one (snd_max of BSD).
    pub(in crate::tcp) snd_max: u64,
    /// Sequence number after the last byte the application has written.
    pub(in crate::tcp) stream_end: u64,
    /// Sequence number of our FIN once the application closed.
    pub(in crate::tcp) fin_seq: Option<u64>,
    /// Window the peer last advertised.
    pub(in crate::tcp) rwnd: u64,
    pub(in crate::tcp) dupacks: u32,
    pub(in crate::tcp) dupthresh: u32,
    /// Open, Recovery or Loss (Disorder is read off the scoreboard).
    pub(in crate::tcp) state: CongState,
    /// End of the current or last loss-recovery episode (snd_recover of
    /// RFC 6582, RecoveryPoint of RFC 6675); 0 until the first loss.
    pub(in crate::tcp) recover: u64,
    /// Send the first presumed-lost segment now, regardless of cwnd (fast
    /// retransmit, NewReno partial ACK).
    pub(in crate::tcp) retransmit_now: bool,
    pub(in crate::tcp) sack: bool,
    pub(in crate::tcp) rtt: RttEstimator,
    pub(in crate::tcp) sent: SentQueue,
    /// Extra segments requested by the variant, sent at the next chance.
    pub(in crate::tcp) extra: Vec<ExtraSegment>,
    /// Earliest time the next segment may leave, when pacing.
    pub(in crate::tcp) next_send_time: SimTime,
    /// The last window reduction, for undoing it.
    pub(in crate::tcp) undo: UndoState,
    /// Losses are found by time (RACK, RFC 8985), not by RFC 6675's
    /// IsLost: `presume_lost_by_sack` leaves marking to RACK.
    pub(in crate::tcp) loss_by_time: bool,
    /// The standard slow start's rules: byte counting, HyStart++
    /// (`tcp/slow_start.rs`).
    pub(in crate::tcp) slow_start: SlowStartRules,
    /// How much of cwnd is used: congestion window validation and the
    /// restart after idle (`tcp/cwnd_validation.rs`).
    pub(in crate::tcp) cwnd_use: CwndUse,
    /// The window a loss reduction scales (`tcp/loss_reduction.rs`).
    pub(in crate::tcp) ssthresh_from: SsthreshFrom,
}

/// Reading the state.
impl SendState {
    /// The sender's maximum segment size (payload bytes).
    pub fn mss(&self) -> u32 {
        self.mss
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// Sequence number after the last byte the application has written.
    pub fn stream_end(&self) -> u64 {
        self.stream_end
    }
    pub fn fin_seq(&self) -> Option<u64> {
        self.fin_seq
    }
    /// The window the peer last advertised, bytes.
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }
    /// Duplicate ACKs since the last ACK of new data.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// The duplicate-ACK threshold (DupThresh of RFC 6675).
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }
    pub fn state(&self) -> CongState {
        match self.state {
            CongState::Open if self.dupacks > 0 || self.sent.sacked_bytes() > 0 => {
                CongState::Disorder
            }
            s => s,
        }
    }
    pub fn in_recovery(&self) -> bool {
        self.state == CongState::Recovery
    }
    /// End of the current or last recovery episode or timeout.
    pub fn recover(&self) -> u64 {
        self.recover
    }
    /// Whether the connection uses SACK (both ends offered it).
    pub fn sack(&self) -> bool {
        self.sack
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The retransmission queue and SACK scoreboard.
    pub fn scoreboard(&self) -> &SentQueue {
        &self.sent
    }
    /// The window reduction that may still be undone.
    pub fn undo_state(&self) -> &UndoState {
        &self.undo
    }
    /// Extra segments asked for and not sent yet.
    pub fn extra_pending(&self) -> usize {
        self.extra.len()
    }
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
}

/// What a variant may ask of the machinery.
impl SendState {
    /// Sets the duplicate-ACK threshold (the count that starts fast
    /// retransmission and RFC 6675's IsLost alike).
    pub fn set_dupthresh(&mut self, n: u32) {
        self.dupthresh = n;
    }
    /// Presumes the first outstanding segment lost and resends it at once,
    /// whatever cwnd allows (fast retransmission, a NewReno partial ACK).
    pub fn retransmit_first_now(&mut self) {
        self.sent.mark_first_lost();
        self.retransmit_now = true;
    }
    /// Resends the first segment presumed lost at once, whatever cwnd
    /// allows.
    pub fn retransmit_lost_now(&mut self) {
        self.retransmit_now = true;
    }
    /// Presumes lost every segment RFC 6675's IsLost says is (DupThresh
    /// SACKed segments above it).
    pub fn presume_lost_by_sack(&mut self) {
        // With RACK, the segments RACK presumed lost are those (Linux's
        // `tcp_fastretrans_alert` leaves RFC 6675's marking out then).
        if !self.loss_by_time {
            self.sent.mark_lost_by_sack(self.dupthresh, self.mss);
        }
    }
    /// Presumes lost every unSACKed segment overlapping `r`; returns how
    /// many were newly presumed lost.
    pub fn presume_lost_in(&mut self, r: SeqRange) -> usize {
        self.sent.mark_lost_in(r)
    }
    /// Presumes lost every unSACKed segment that starts below `end`.
    pub fn presume_lost_below(&mut self, end: u64) -> usize {
        self.sent.mark_lost_below(end)
    }
    /// Whether RFC 6675's IsLost holds for the first outstanding segment.
    pub fn first_is_lost_by_sack(&self) -> bool {
        !self.sent.is_empty() && self.sent.is_lost(0, self.dupthresh, self.mss)
    }
    /// The first outstanding segment.
    pub fn first_segment(&self) -> Option<&SentSegment> {
        self.sent.first()
    }
    /// Asks for a segment outside the window logic (sent at the next
    /// chance: a copy of the last data segment with these marks).
    pub fn send_extra(&mut self, e: ExtraSegment) {
        self.extra.push(e);
    }
    /// Forgets the extra segments not sent yet.
    pub fn clear_extra(&mut self) {
        self.extra.clear();
    }
    /// The last window reduction may no longer be undone.
    pub fn disarm_undo(&mut self) {
        self.undo.armed = false;
    }
    /// Feeds an RTT measured by the variant itself to the RTO estimator.
    pub fn add_rtt_sample(&mut self, rtt: Duration) {
        self.rtt.sample_acked(rtt, self.snd_una, self.snd_max);
    }
}

/// Setting up a sender state by hand in unit tests.
#[cfg(test)]
impl SendState {
    pub fn set_ssthresh_from(&mut self, from: SsthreshFrom) {
        self.ssthresh_from = from;
    }
    pub fn set_snd_una(&mut self, v: u64) {
        self.snd_una = v;
    }
    pub fn set_snd_max(&mut self, v: u64) {
        self.snd_max = v;
    }
    /// Sends `len` new bytes at `now`: a segment in the scoreboard and
    /// snd_max past it.
    pub fn send_new(&mut self, len: u64, now: SimTime) {
        let r = SeqRange::new(self.snd_max, self.snd_max + len);
        self.sent.push_new(r, false, false, now);
        self.snd_max += len;
    }
    pub fn set_stream_end(&mut self, v: u64) {
        self.stream_end = v;
    }
    pub fn set_fin_seq(&mut self, v: Option<u64>) {
        self.fin_seq = v;
    }
    pub fn set_rwnd(&mut self, v: u64) {
        self.rwnd = v;
    }
    pub fn set_dupacks(&mut self, v: u32) {
        self.dupacks = v;
    }
    pub fn set_recover(&mut self, v: u64) {
        self.recover = v;
    }
    pub fn set_state(&mut self, state: CongState) {
        self.state = state;
    }
    pub fn set_sack(&mut self, v: bool) {
        self.sack = v;
    }
    pub fn set_retransmit_now(&mut self, v: bool) {
        self.retransmit_now = v;
    }
    pub fn retransmit_now(&self) -> bool {
        self.retransmit_now
    }
    pub fn rtt_mut(&mut self) -> &mut RttEstimator {
        &mut self.rtt
    }
    pub fn scoreboard_mut(&mut self) -> &mut SentQueue {
        &mut self.sent
    }
    pub fn extra(&self) -> &[ExtraSegment] {
        &self.extra
    }
    pub fn extra_mut(&mut self) -> &mut Vec<ExtraSegment> {
        &mut self.extra
    }
    pub fn undo_mut(&mut self) -> &mut UndoState {
        &mut self.undo
    }
}
