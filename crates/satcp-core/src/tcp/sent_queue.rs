//! Segments sent and not yet cumulatively acknowledged: the retransmission
//! queue and, with SACK, the scoreboard of RFC 6675. Segment boundaries are
//! fixed at first transmission; retransmissions resend the same ranges.
//!
//! `pipe` (RFC 6675 Sec. 4, SetPipe) is kept incrementally. An unSACKed
//! segment counts once while it is not presumed lost (SetPipe (a)) and once
//! more once it has been retransmitted, i.e. lies at or below HighRxt
//! (SetPipe (b)): a segment resent after being presumed lost counts once, one
//! resent by NextSeg rule (3) before it is presumed lost counts twice. Without
//! SACK, nothing is SACKed and the same rule gives the flight size that
//! Reno/NewReno compare with cwnd.
//!
//! The scoreboard also keeps RFC 6675's HighRxt and RescueRxt, which NextSeg
//! rules (3) and (4) read (`next_seg_rule3`, `rescue_candidate`).

use super::delivery_rate::{DeliveryRate, TxSnapshot};
use crate::engine::{Duration, SimTime};
use crate::net::packet::SeqRange;
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug)]
pub struct SentSegment {
    pub range: SeqRange,
    pub syn: bool,
    pub fin: bool,
    pub first_sent: SimTime,
    pub last_sent: SimTime,
    pub tx_count: u16,
    pub sacked: bool,
    /// Its delivery was counted by the rate estimator (when SACKed): a
    /// timeout forgets SACKs, but the data did arrive once.
    pub delivery_counted: bool,
    /// Presumed lost: waiting for (or given) a retransmission.
    pub lost: bool,
    /// Retransmitted since it was presumed lost.
    pub rtx_after_loss: bool,
    /// Retransmitted by NextSeg rule (3) while not presumed lost: it lies at
    /// or below HighRxt, so SetPipe counts it for the original and for the
    /// retransmission, and rule (1) does not resend it once presumed lost.
    pub rtx_before_loss: bool,
    /// Delivery-rate state at the last transmission.
    pub tx: TxSnapshot,
}

impl SentSegment {
    /// How many times its length counts in pipe (RFC 6675 SetPipe): once
    /// if not presumed lost (a), once more if retransmitted (b).
    fn pipe_share(&self) -> u64 {
        if self.sacked {
            return 0;
        }
        !self.lost as u64 + (self.rtx_after_loss || self.rtx_before_loss) as u64
    }
    /// Presumed lost and waiting for its retransmission.
    fn awaits_retransmission(&self) -> bool {
        self.lost && !self.rtx_after_loss && !self.rtx_before_loss && !self.sacked
    }
    pub fn len(&self) -> u64 {
        self.range.len()
    }
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }
    /// Payload bytes (SYN and FIN occupy sequence space but carry none).
    pub fn payload(&self) -> u32 {
        (self.range.len() - self.syn as u64 - self.fin as u64) as u32
    }
}

/// What a cumulative ACK removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acked {
    /// Sequence space acknowledged (SYN and FIN octets included).
    pub bytes: u64,
    /// Payload bytes acknowledged.
    pub payload: u64,
    pub segments: u32,
    /// RTT sample per Karn: only when no newly acknowledged segment was
    /// ever retransmitted; measured from the newest one acknowledged, so
    /// that it leaves out the receiver's ACK delay (what congestion control
    /// is given, as Linux's `ca_rtt`).
    pub rtt: Option<Duration>,
    /// The same Karn sample measured from the oldest segment acknowledged:
    /// the effective RTT, including the time a delayed ACK waited for the
    /// later segments, which the RTO must cover (RFC 1323 Sec. 3.4 case (A):
    /// "The data-sender TCP must measure the effective RTT, including the
    /// additional time due to delayed ACKs, or else it will retransmit
    /// unnecessarily"). It is the segment whose timestamp a receiver
    /// following RFC 7323 Sec. 4.3 would echo; docs/model.md.
    pub rto_rtt: Option<Duration>,
    pub any_retransmitted: bool,
}

/// What the ACK being processed newly delivered (SACKed, or acknowledged
/// cumulatively without having been SACKed), as RACK reads it (RFC 8985
/// Sec. 6.2, steps 2 and 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveredNow {
    /// The most recently sent of the delivered segments sent only once:
    /// (time sent, end).
    pub newest_original: Option<(SimTime, u64)>,
    /// The most recently sent of the delivered segments resent at least
    /// once (which copy arrived is ambiguous): (time last sent, end).
    pub newest_resent: Option<(SimTime, u64)>,
    /// The lowest end of a delivered segment sent only once.
    pub lowest_original_end: Option<u64>,
}

impl DeliveredNow {
    fn note(&mut self, s: &SentSegment) {
        let key = (s.last_sent, s.range.end);
        if s.tx_count > 1 {
            self.newest_resent = Some(self.newest_resent.map_or(key, |k| k.max(key)));
        } else {
            self.newest_original = Some(self.newest_original.map_or(key, |k| k.max(key)));
            let end = s.range.end;
            self.lowest_original_end = Some(self.lowest_original_end.map_or(end, |e| e.min(end)));
        }
    }
}

#[derive(Default)]
pub struct SentQueue {
    segs: VecDeque<SentSegment>,
    pipe: u64,
    sacked_bytes: u64,
    /// Highest sequence number covered by a SACK block.
    pub high_sacked: u64,
    /// Segments that await a retransmission, and a sequence number below
    /// which none does: `next_lost` is O(1) when nothing is lost and
    /// amortized O(1) during recovery, which large windows need.
    awaiting: usize,
    awaiting_from: std::cell::Cell<u64>,
    /// Every segment below this sequence number is SACKed or presumed
    /// lost (RFC 6675 marking only ever moves up).
    lost_marked_below: u64,
    /// The SACKed segments as maximal runs, start -> end: a SACK block
    /// skips what is already SACKed and IsLost counts runs, not segments.
    sacked_runs: BTreeMap<u64, u64>,
    /// RFC 6675 HighRxt + 1: the end of the highest segment retransmitted
    /// (fast retransmit, NextSeg rules (1) and (3); not rule (4)).
    high_rxt: u64,
    /// RFC 6675 RescueRxt + 1; None while undefined.
    rescue_rxt: Option<u64>,
    /// Bytes delivered and the delivery-rate estimator.
    pub rate: DeliveryRate,
    /// Sequence bytes resent, every retransmission counted.
    retransmitted_bytes: u64,
    /// Sequence bytes presumed lost, every presumption counted: a segment
    /// once, and again each time a retransmission of it is presumed lost
    /// (Linux's `tp->lost`, `tcp_mark_skb_lost`).
    lost_bytes: u64,
    /// The end of the highest segment ever resent: above it, segments
    /// have been sent once, in sequence order, so in order of time too
    /// (RACK's scan stops there, `mark_lost_by_time`).
    resent_below: u64,
    /// The segments this ACK newly delivered (SACKed or acknowledged),
    /// as RACK and F-RTO read them (`take_delivered`); None unless one of
    /// them asked (`track_delivered`), so that other senders do not pay
    /// for it on every segment acknowledged.
    delivered_now: Option<DeliveredNow>,
}

impl SentQueue {
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn first(&self) -> Option<&SentSegment> {
        self.segs.front()
    }
    pub fn last(&self) -> Option<&SentSegment> {
        self.segs.back()
    }
    pub fn get(&self, i: usize) -> &SentSegment {
        &self.segs[i]
    }
    pub fn iter(&self) -> impl Iterator<Item = &SentSegment> {
        self.segs.iter()
    }

    fn update<F: FnOnce(&mut SentSegment)>(&mut self, i: usize, f: F) {
        let s = &mut self.segs[i];
        let (before, was_sacked, was_awaiting) =
            (s.pipe_share(), s.sacked, s.awaits_retransmission());
        f(s);
        let (after, now_sacked, len) = (s.pipe_share(), s.sacked, s.len());
        match (was_awaiting, s.awaits_retransmission()) {
            (false, true) => {
                self.awaiting += 1;
                let from = self.awaiting_from.get().min(s.range.start);
                self.awaiting_from.set(from);
            }
            (true, false) => self.awaiting -= 1,
            _ => {}
        }
        self.pipe = self.pipe + after * len - before * len;
        match (was_sacked, now_sacked) {
            (false, true) => self.sacked_bytes += len,
            (true, false) => self.sacked_bytes -= len,
            _ => {}
        }
    }

    /// Presumes segment `i` lost with `f` (which sets `lost`), counting it
    /// in `lost_bytes` unless it already waited for a retransmission.
    fn presume_lost<F: FnOnce(&mut SentSegment)>(&mut self, i: usize, f: F) {
        let s = &self.segs[i];
        let fresh = !(s.lost && !s.rtx_after_loss && !s.rtx_before_loss);
        let len = s.len();
        self.update(i, f);
        if fresh {
            self.lost_bytes += len;
        }
    }

    /// The index of the first segment that ends above `seq` (the number of
    /// segments that end at or below it), as
    /// `segs.partition_point(|s| s.range.end <= seq)` gives it.
    ///
    /// A binary search over a large window's queue (16,000 segments at
    /// 1 Gb/s over GEO) is 14 dependent loads, most of them cache misses,
    /// on every SACK block and every rule (3) step. The segments are
    /// contiguous and nearly all of one size, so the offset of `seq` over
    /// the mean segment length lands on the answer or next to it: the
    /// search starts there and widens by doubling steps until it brackets
    /// the answer, then bisects the bracket.
    fn first_ending_above(&self, seq: u64) -> usize {
        let n = self.segs.len();
        let (Some(front), Some(back)) = (self.segs.front(), self.segs.back()) else {
            return 0;
        };
        if seq < front.range.end {
            return 0;
        }
        if seq >= back.range.end {
            return n;
        }
        let ends_by = |i: usize| self.segs[i].range.end <= seq;
        let mean_len = ((back.range.end - front.range.start) / n as u64).max(1);
        let guess = (((seq - front.range.start) / mean_len) as usize).min(n - 1);
        // Bracket [lo, hi]: every segment below lo ends at or below seq,
        // every one from hi on ends above it.
        let (mut lo, mut hi);
        let mut step = 1;
        if ends_by(guess) {
            lo = guess + 1;
            hi = loop {
                let probe = lo + step - 1;
                if probe >= n {
                    break n;
                }
                if !ends_by(probe) {
                    break probe;
                }
                lo = probe + 1;
                step *= 2;
            };
        } else {
            hi = guess;
            lo = loop {
                let probe = hi.saturating_sub(step);
                if ends_by(probe) {
                    break probe + 1;
                }
                hi = probe;
                if probe == 0 {
                    break 0;
                }
                step *= 2;
            };
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if ends_by(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    pub fn push_new(&mut self, range: SeqRange, syn: bool, fin: bool, now: SimTime) {
        debug_assert!(self.segs.back().is_none_or(|s| s.range.end == range.start));
        let tx = self.rate.snapshot(now, self.pipe == 0);
        self.pipe += range.len();
        self.segs.push_back(SentSegment {
            range,
            syn,
            fin,
            first_sent: now,
            last_sent: now,
            tx_count: 1,
            sacked: false,
            delivery_counted: false,
            lost: false,
            rtx_after_loss: false,
            rtx_before_loss: false,
            tx,
        });
    }

    /// Records a retransmission of segment `i` (the fast retransmission,
    /// NextSeg rule (1) or (3), a timeout's resend): HighRxt moves to its
    /// end (RFC 6675 steps (4.3) and (C.2)).
    pub fn on_retransmit(&mut self, i: usize, now: SimTime) {
        let tx = self.rate.snapshot(now, self.pipe == 0);
        self.update(i, |s| {
            s.tx = tx;
            s.tx_count = s.tx_count.saturating_add(1);
            s.last_sent = now;
            if s.lost {
                s.rtx_after_loss = true;
            } else {
                s.rtx_before_loss = true;
            }
        });
        self.high_rxt = self.high_rxt.max(self.segs[i].range.end);
        self.count_resend(i);
    }

    fn count_resend(&mut self, i: usize) {
        let r = self.segs[i].range;
        self.retransmitted_bytes += r.len();
        self.resent_below = self.resent_below.max(r.end);
    }

    /// What the ACKs since the last call newly delivered (RACK's steps 2
    /// and 3, RFC 8985 Sec. 6.2).
    pub fn take_delivered(&mut self) -> DeliveredNow {
        self.delivered_now
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Keeps what each ACK newly delivered, for `take_delivered`.
    pub fn track_delivered(&mut self) {
        self.delivered_now.get_or_insert_with(DeliveredNow::default);
    }

    /// Records the rescue retransmission of segment `i` (NextSeg rule (4)):
    /// RescueRxt = RecoveryPoint (`recovery_point` is RecoveryPoint + 1,
    /// i.e. `SendState::recover`), HighRxt unchanged. Pipe is unchanged too:
    /// SetPipe (b) counts only octets at or below HighRxt, and the increment
    /// of step (C.4) lasts only until the next ACK's SetPipe; until then
    /// NextSeg can only fail (rules (1)-(3) failed on the same scoreboard and
    /// rule (4) is spent).
    pub fn on_rescue_retransmit(&mut self, i: usize, now: SimTime, recovery_point: u64) {
        let tx = self.rate.snapshot(now, self.pipe == 0);
        let s = &mut self.segs[i];
        s.tx = tx;
        s.tx_count = s.tx_count.saturating_add(1);
        s.last_sent = now;
        self.rescue_rxt = Some(recovery_point);
        self.count_resend(i);
    }

    /// Loss recovery starts (RFC 6675 step (4.3)): the segment at HighACK + 1
    /// is about to be retransmitted; RescueRxt is set to its end so that no
    /// rescue goes before the cumulative ACK passes it (HighRxt follows when
    /// it is sent).
    pub fn on_recovery_entry(&mut self) {
        if let Some(f) = self.segs.front() {
            self.rescue_rxt = Some(f.range.end);
        }
    }

    /// NextSeg rule (3) (RFC 6675 Sec. 4), asked once rules (1) and (2)
    /// failed: the first unSACKed segment starting above HighRxt (1.a) and
    /// below the highest octet covered by a SACK (1.b), not presumed lost.
    /// O(log n): at most one SACKed run lies between HighRxt and that hole.
    pub fn next_seg_rule3(&self) -> Option<usize> {
        let mut i = self.first_ending_above(self.high_rxt);
        while let Some(s) = self.segs.get(i) {
            if s.range.start >= self.high_sacked {
                return None;
            }
            if s.range.start < self.high_rxt {
                // A segment cut by the receiver's window straddles HighRxt.
                i += 1;
            } else if s.sacked {
                let end = self.run_end(s.range.start);
                i = self.first_ending_above(end);
            } else if s.awaits_retransmission() {
                // Rule (1)'s, not ours (it failed for want of cwnd).
                return None;
            } else {
                return Some(i);
            }
        }
        None
    }

    /// NextSeg rule (4) (RFC 6675 Sec. 4), asked once rules (1)-(3) failed:
    /// if HighACK > RescueRxt (or RescueRxt is undefined), the segment
    /// holding the highest outstanding unSACKed sequence number. `snd_una`
    /// is HighACK + 1; RescueRxt + 1 is stored, so HighACK > RescueRxt
    /// reads snd_una > rescue_rxt. O(log n).
    pub fn rescue_candidate(&self, snd_una: u64) -> Option<usize> {
        if self.rescue_rxt.is_some_and(|r| snd_una <= r) {
            return None;
        }
        let last = self.segs.back()?;
        if !last.sacked {
            return Some(self.segs.len() - 1);
        }
        // The last segment ends the highest SACKed run; the segment below
        // that run is unSACKed (runs are maximal), if there is one.
        let (&start, _) = self.sacked_runs.last_key_value()?;
        let i = self.first_ending_above(start);
        (i > 0).then(|| i - 1)
    }

    /// Removes everything below `ack`. A segment only partly covered is
    /// trimmed (possible when the receiver's window cut a segment).
    pub fn ack_to(&mut self, ack: u64, now: SimTime) -> Acked {
        let mut out = Acked::default();
        let mut oldest_sent = None;
        let mut newest_sent = None;
        while let Some(f) = self.segs.front() {
            if f.range.end <= ack {
                let s = *f;
                if !s.delivery_counted {
                    self.rate.on_delivered(s.len(), s.last_sent, &s.tx, now);
                }
                if let Some(d) = self.delivered_now.as_mut().filter(|_| !s.sacked) {
                    d.note(&s);
                }
                // Out of the pipe and the scoreboard, then gone.
                self.update(0, |s| {
                    s.sacked = false;
                    s.lost = true;
                    s.rtx_after_loss = false;
                    s.rtx_before_loss = false;
                });
                self.segs.pop_front();
                self.awaiting -= 1;
                out.bytes += s.len();
                out.payload += s.payload() as u64;
                out.segments += 1;
                out.any_retransmitted |= s.tx_count > 1;
                oldest_sent = oldest_sent.or(Some(s.last_sent));
                newest_sent = Some(s.last_sent);
            } else if f.range.start < ack {
                let cut = ack - f.range.start;
                let share = f.pipe_share();
                let sacked = f.sacked;
                if !f.delivery_counted {
                    let (sent, tx) = (f.last_sent, f.tx);
                    self.rate.on_delivered(cut, sent, &tx, now);
                }
                let f = self.segs.front_mut().unwrap();
                f.range.start = ack;
                f.syn = false;
                self.pipe -= share * cut;
                if sacked {
                    self.sacked_bytes -= cut;
                }
                out.bytes += cut;
                out.payload += cut;
                out.any_retransmitted |= f.tx_count > 1;
                break;
            } else {
                break;
            }
        }
        self.trim_runs_below(ack);
        if !out.any_retransmitted {
            out.rtt = newest_sent.map(|t| now - t);
            out.rto_rtt = oldest_sent.map(|t| now - t);
        }
        out
    }

    fn trim_runs_below(&mut self, ack: u64) {
        while let Some((&start, &end)) = self.sacked_runs.first_key_value() {
            if start >= ack {
                break;
            }
            self.sacked_runs.remove(&start);
            if end > ack {
                self.sacked_runs.insert(ack, end);
                break;
            }
        }
    }

    /// Adds a newly SACKed segment to the runs, merging with neighbours.
    fn add_run(&mut self, r: SeqRange) {
        let (mut start, mut end) = (r.start, r.end);
        if let Some((&s, &e)) = self.sacked_runs.range(..=start).next_back() {
            if e == start {
                self.sacked_runs.remove(&s);
                start = s;
            }
        }
        if let Some(e) = self.sacked_runs.remove(&end) {
            end = e;
        }
        self.sacked_runs.insert(start, end);
    }

    /// The end of the SACKed run that contains `seq`.
    fn run_end(&self, seq: u64) -> u64 {
        let (_, &end) = self
            .sacked_runs
            .range(..=seq)
            .next_back()
            .expect("a SACKed segment lies in a run");
        end
    }

    /// Marks segments fully covered by `blocks` as SACKed; returns the
    /// number of bytes newly SACKed. Runs already SACKed are skipped whole,
    /// so a block that grows by one segment per ACK costs O(log n).
    pub fn apply_sack(&mut self, blocks: &[SeqRange], now: SimTime) -> u64 {
        let mut newly = 0;
        for b in blocks {
            if b.is_empty() {
                continue;
            }
            self.high_sacked = self.high_sacked.max(b.end);
            let mut i = self.first_ending_above(b.start);
            while i < self.segs.len() {
                let s = self.segs[i];
                if s.range.start >= b.end {
                    break;
                }
                if s.sacked {
                    let end = self.run_end(s.range.start);
                    i = self.first_ending_above(end);
                    continue;
                }
                if s.range.start >= b.start && s.range.end <= b.end {
                    newly += s.len();
                    if let Some(d) = self.delivered_now.as_mut() {
                        d.note(&s);
                    }
                    if !s.delivery_counted {
                        self.rate.on_delivered(s.len(), s.last_sent, &s.tx, now);
                    }
                    self.update(i, |s| {
                        s.sacked = true;
                        s.delivery_counted = true;
                    });
                    self.add_run(s.range);
                }
                i += 1;
            }
        }
        newly
    }

    /// RFC 6675 IsLost for every segment: presumed lost when more than
    /// (dupthresh - 1) * mss bytes above it are SACKed, or when dupthresh
    /// discontiguous SACKed segments lie above it. Returns whether any
    /// segment became lost.
    ///
    /// Both counts only grow downwards, so IsLost holds for every unSACKed
    /// segment below the run at which they first suffice; and SACKs only
    /// add, so marking resumes where the previous call stopped.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u32) -> bool {
        let Some(below) = self.lost_below(dupthresh, mss, 0) else {
            return false;
        };
        let mut i = self.first_ending_above(self.lost_marked_below);
        let mut any = false;
        while i < self.segs.len() && self.segs[i].range.start < below {
            let s = self.segs[i];
            if !s.sacked && !s.lost {
                self.presume_lost(i, |s| s.lost = true);
                any = true;
            }
            i += 1;
        }
        self.lost_marked_below = self.lost_marked_below.max(below);
        any
    }

    /// The sequence number below which IsLost holds for every unSACKed
    /// segment, counting SACKed bytes at or above `floor` only.
    fn lost_below(&self, dupthresh: u32, mss: u32, floor: u64) -> Option<u64> {
        let byte_limit = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let (mut bytes, mut runs) = (0u64, 0u32);
        for (&start, &end) in self.sacked_runs.range(floor..).rev() {
            bytes += end - start;
            runs += 1;
            if bytes > byte_limit || runs >= dupthresh {
                return Some(start);
            }
        }
        // A run that began below `floor` counts from `floor` on.
        if let Some((_, &end)) = self.sacked_runs.range(..floor).next_back() {
            if end > floor {
                bytes += end - floor;
                runs += 1;
                if bytes > byte_limit || runs >= dupthresh {
                    return Some(floor);
                }
            }
        }
        None
    }

    /// RFC 6675 IsLost for segment `i` alone, without marking anything.
    pub fn is_lost(&self, i: usize, dupthresh: u32, mss: u32) -> bool {
        self.lost_below(dupthresh, mss, self.segs[i].range.end)
            .is_some()
    }

    /// Presumes the first segment lost (fast retransmit, NewReno partial ACK).
    pub fn mark_first_lost(&mut self) {
        if !self.segs.is_empty() && !self.segs[0].sacked {
            self.presume_lost(0, |s| {
                s.lost = true;
                s.rtx_after_loss = false;
                s.rtx_before_loss = false;
            });
        }
    }

    /// Presumes lost every segment that starts below `end` and is neither
    /// SACKed nor already presumed lost (a variant that knows a stretch of
    /// its data was likely dropped as a whole, e.g. a TCP Fast Start burst
    /// that failed). SACK information is kept. Returns how many were marked.
    pub fn mark_lost_below(&mut self, end: u64) -> usize {
        let mut n = 0;
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.range.start >= end {
                break;
            }
            if !s.sacked && !s.lost {
                self.presume_lost(i, |s| {
                    s.lost = true;
                    s.rtx_after_loss = false;
                    s.rtx_before_loss = false;
                });
                n += 1;
            }
        }
        n
    }

    /// Presumes lost every segment inside `r` that is neither SACKed nor
    /// already presumed lost (the network reported it dropped). Returns how
    /// many were marked.
    pub fn mark_lost_in(&mut self, r: SeqRange) -> usize {
        let mut n = 0;
        let start = self.first_ending_above(r.start);
        for i in start..self.segs.len() {
            let s = self.segs[i];
            if s.range.start >= r.end {
                break;
            }
            if s.range.start >= r.start && s.range.end <= r.end && !s.sacked && !s.lost {
                self.presume_lost(i, |s| {
                    s.lost = true;
                    s.rtx_after_loss = false;
                    s.rtx_before_loss = false;
                });
                n += 1;
            }
        }
        n
    }

    /// RACK's loss detection (RFC 8985 Sec. 6.2, step 5): a segment
    /// neither SACKed nor waiting for its retransmission, sent before the
    /// most recently delivered one (`rack`: RACK.xmit_ts and RACK.end_seq),
    /// is presumed lost once `expiry` (RACK.rtt + RACK.reo_wnd) has passed
    /// since it was last sent; a resent segment too (its retransmission is
    /// lost: it is resent again). Returns how many were marked and, if
    /// some are still within their window, the longest wait until they
    /// would be (RACK's reorder timer: "timeout = max(remaining, timeout)").
    ///
    /// The scan skips SACKed runs and stops at the first segment sent after
    /// RACK.xmit_ts above every resent one: the rest were sent once, in
    /// sequence order, so later still.
    pub fn mark_lost_by_time(
        &mut self,
        rack: (SimTime, u64),
        expiry: Duration,
        now: SimTime,
    ) -> (usize, Option<Duration>) {
        let (mut marked, mut wait) = (0, None::<Duration>);
        let mut i = 0;
        while let Some(s) = self.segs.get(i).copied() {
            if s.sacked {
                i = self.first_ending_above(self.run_end(s.range.start));
                continue;
            }
            // RACK_sent_after(RACK.xmit_ts, RACK.end_seq, xmit_ts, end_seq)
            let sent_before = (s.last_sent, s.range.end) < rack;
            if !sent_before {
                if s.range.start >= self.resent_below {
                    break;
                }
            } else if !s.awaits_retransmission() {
                let due = s.last_sent + expiry;
                if due <= now {
                    self.presume_lost(i, |s| {
                        s.lost = true;
                        s.rtx_after_loss = false;
                        s.rtx_before_loss = false;
                    });
                    marked += 1;
                } else {
                    let remaining = due - now;
                    wait = Some(wait.map_or(remaining, |w| w.max(remaining)));
                }
            }
            i += 1;
        }
        (marked, wait)
    }

    /// After a retransmission timeout: forget SACK information (the
    /// receiver may renege, RFC 2018 Sec. 8) and presume everything lost.
    /// SACK blocks that arrive afterwards mark segments SACKed again
    /// (`apply_sack`), and a SACKed segment is not resent (RFC 6675
    /// Sec. 5.1: the sender "SHOULD use this SACK information when
    /// determining what data should be sent in each segment following an
    /// RTO").
    pub fn mark_all_lost(&mut self) {
        for i in 0..self.segs.len() {
            self.presume_lost(i, |s| {
                s.sacked = false;
                s.lost = true;
                s.rtx_after_loss = false;
                s.rtx_before_loss = false;
            });
        }
        self.sacked_runs.clear();
        self.high_sacked = 0;
    }

    /// After a retransmission timeout, keeping the scoreboard (the erratum
    /// to RFC 6675 Sec. 5.1; Linux's `tcp_timeout_mark_lost`): every
    /// segment not SACKed is presumed lost, SACKed ones stay SACKed, unless
    /// the first segment is SACKed: the receiver has then reneged (it
    /// SACKed data it did not acknowledge cumulatively when the timer ran
    /// out), and the scoreboard is cleared as `mark_all_lost` clears it.
    /// `spare_sent_after`: segments other than the first that were last
    /// sent after this time are not presumed lost yet (RACK, RFC 8985
    /// Sec. 6.3). Returns whether the receiver reneged.
    pub fn mark_lost_keeping_sacks(&mut self, spare_sent_after: Option<SimTime>) -> bool {
        if self.segs.front().is_some_and(|f| f.sacked) {
            self.mark_all_lost();
            return true;
        }
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            let spared = i > 0 && spare_sent_after.is_some_and(|t| s.last_sent > t);
            if s.sacked || spared {
                continue;
            }
            self.presume_lost(i, |s| {
                s.lost = true;
                s.rtx_after_loss = false;
                s.rtx_before_loss = false;
            });
        }
        false
    }

    /// A loss presumed by a timeout or by RACK turned out spurious (F-RTO,
    /// RFC 5682; Linux's `tcp_undo_cwnd_reduction` with `unmark_loss`): no
    /// segment is presumed lost any more. A segment waiting for its
    /// retransmission is in flight again; one already resent counts for
    /// both copies, as one resent before it was presumed lost.
    pub fn unmark_lost(&mut self) {
        for i in 0..self.segs.len() {
            if !self.segs[i].lost {
                continue;
            }
            self.update(i, |s| {
                s.lost = false;
                s.rtx_before_loss |= s.rtx_after_loss;
                s.rtx_after_loss = false;
            });
        }
    }

    /// Segments presumed lost and not resent yet.
    pub fn awaiting_retransmission(&self) -> usize {
        self.awaiting
    }

    /// Bytes resent so far (every retransmission, rescue and probe): with
    /// snd_max, what the connection has sent (PRR's prr_out, RFC 6937).
    pub fn retransmitted_bytes(&self) -> u64 {
        self.retransmitted_bytes
    }
    /// Sequence bytes presumed lost so far, every presumption counted
    /// (Linux's `tp->lost`): what an ACK presumed lost is the change.
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// Recomputes what is kept incrementally (pipe, SACKed bytes, segments
    /// awaiting retransmission, SACKed runs) and checks that segments follow
    /// each other without gap or overlap: the transport invariants
    /// (`tcp::invariants`). O(segments).
    pub fn check(&self) -> Result<(), String> {
        let (mut pipe, mut sacked, mut awaiting) = (0u64, 0u64, 0usize);
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut prev: Option<SeqRange> = None;
        for s in &self.segs {
            if s.range.is_empty() {
                return Err(format!("scoreboard: empty segment {:?}", s.range));
            }
            if let Some(p) = prev {
                if p.end != s.range.start {
                    return Err(format!(
                        "scoreboard: segment {:?} does not follow {p:?}",
                        s.range
                    ));
                }
            }
            prev = Some(s.range);
            pipe += s.pipe_share() * s.len();
            sacked += s.sacked as u64 * s.len();
            awaiting += s.awaits_retransmission() as usize;
            if s.sacked {
                match runs.last_mut() {
                    Some(r) if r.1 == s.range.start => r.1 = s.range.end,
                    _ => runs.push((s.range.start, s.range.end)),
                }
            }
        }
        let kept: Vec<(u64, u64)> = self.sacked_runs.iter().map(|(&s, &e)| (s, e)).collect();
        if (pipe, sacked, awaiting) != (self.pipe, self.sacked_bytes, self.awaiting) || runs != kept
        {
            return Err(format!(
                "scoreboard: kept pipe {}, SACKed {}, awaiting {}, runs {kept:?}; \
                 recomputed {pipe}, {sacked}, {awaiting}, {runs:?}",
                self.pipe, self.sacked_bytes, self.awaiting
            ));
        }
        Ok(())
    }

    /// First segment presumed lost and not yet retransmitted since.
    pub fn next_lost(&self) -> Option<usize> {
        if self.awaiting == 0 {
            return None;
        }
        let from = self.first_ending_above(self.awaiting_from.get());
        let i = (from..self.segs.len()).find(|&i| self.segs[i].awaits_retransmission());
        if let Some(i) = i {
            self.awaiting_from.set(self.segs[i].range.start);
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: u64) -> SentQueue {
        let mut q = SentQueue::default();
        for i in 0..n {
            q.push_new(
                SeqRange::new(1 + i * 100, 1 + (i + 1) * 100),
                false,
                false,
                SimTime(i),
            );
        }
        q
    }

    #[test]
    fn pipe_tracks_sack_loss_and_retransmission() {
        let mut s = q(5);
        assert_eq!(s.pipe(), 500);
        s.apply_sack(&[SeqRange::new(101, 401)], SimTime(5));
        assert_eq!(s.pipe(), 200);
        assert!(s.mark_lost_by_sack(3, 100));
        assert_eq!(s.pipe(), 100); // first segment lost, last one in flight
        assert_eq!(s.next_lost(), Some(0));
        s.on_retransmit(0, SimTime(10));
        assert_eq!(s.pipe(), 200);
        assert_eq!(s.next_lost(), None);
        let a = s.ack_to(401, SimTime(20));
        assert_eq!(a.bytes, 400);
        assert!(a.any_retransmitted);
        assert!(a.rtt.is_none());
        assert!(a.rto_rtt.is_none());
        assert_eq!(s.pipe(), 100);
        assert_eq!(s.sacked_bytes(), 0);
    }

    proptest::proptest! {
        /// The guessed search finds what a binary search finds, with
        /// segments of any lengths (a SYN, short segments, a trimmed front).
        #[test]
        fn first_ending_above_is_partition_point(
            lens in proptest::collection::vec(
                proptest::prop_oneof![3 => proptest::strategy::Just(1460u64), 1 => 1u64..3000],
                0..200,
            ),
            trim in 0u64..1000,
            probes in proptest::collection::vec(0u64..400_000, 1..40),
        ) {
            let mut s = SentQueue::default();
            let mut seq = 1_000;
            for (i, len) in lens.iter().enumerate() {
                s.push_new(SeqRange::new(seq, seq + len), i == 0, false, SimTime(0));
                seq += len;
            }
            s.ack_to(1_000 + trim, SimTime(1));
            for p in probes.into_iter().chain([0, 1_000, 1_000 + trim, seq - 1, seq, seq + 1]) {
                let expected = s.segs.partition_point(|x| x.range.end <= p);
                proptest::prop_assert_eq!(s.first_ending_above(p), expected, "seq {}", p);
            }
        }
    }

    #[test]
    fn karn_samples_from_newest_and_oldest_acked() {
        let mut s = q(3);
        let a = s.ack_to(201, SimTime(100));
        assert_eq!(a.rtt, Some(Duration(99)));
        assert_eq!(a.rto_rtt, Some(Duration(100)));
        assert_eq!(a.segments, 2);
    }

    #[test]
    fn rto_presumes_all_lost() {
        let mut s = q(3);
        s.apply_sack(&[SeqRange::new(201, 301)], SimTime(5));
        s.mark_all_lost();
        assert_eq!(s.pipe(), 0);
        assert_eq!(s.next_lost(), Some(0));
        assert_eq!(s.sacked_bytes(), 0);
    }

    #[test]
    fn mark_lost_below_skips_sacked_and_lost_segments() {
        let mut s = q(5);
        s.apply_sack(&[SeqRange::new(201, 301)], SimTime(5));
        s.mark_first_lost();
        s.on_retransmit(0, SimTime(10));
        // Segments 1 and 3 are marked; 0 (resent) and 2 (SACKed) are not;
        // 4 starts at 401, not below the limit.
        assert_eq!(s.mark_lost_below(401), 2);
        assert_eq!(s.next_lost(), Some(1));
        assert!(s.get(0).rtx_after_loss, "the retransmission still counts");
        assert!(!s.get(4).lost);
        assert_eq!(s.pipe(), 200); // the resent 0 and the untouched 4
        assert_eq!(s.sacked_bytes(), 100);
        assert_eq!(s.mark_lost_below(401), 0);
    }

    /// Segment k of `q(n)` (100 bytes each, from sequence number 1).
    fn sg(k: u64) -> SeqRange {
        SeqRange::new(1 + k * 100, 1 + (k + 1) * 100)
    }

    /// RFC 6675 Sec. 4, NextSeg rule (3): "If the conditions for rules (1)
    /// and (2) fail, but there exists an unSACKed sequence number 'S3' that
    /// meets the criteria for detecting loss given in steps (1.a) and (1.b)
    /// above (specifically excluding step (1.c)), then one segment of up to
    /// SMSS octets starting with S3 SHOULD be returned." (1.a): S3 is
    /// greater than HighRxt; (1.b): S3 is less than the highest octet
    /// covered by any received SACK.
    ///
    /// Ten segments; 1-3, 6 and 9 SACKed; 0 presumed lost and resent (the
    /// fast retransmission, HighRxt = end of 0). IsLost (DupThresh 3, SMSS
    /// 100) holds for 0 only: above 4 and 5 lie two runs, 200 bytes (not
    /// more than 2 SMSS); above 7 and 8 one. So rule (3) returns the holes
    /// 4, 5, 7, 8 in turn, each once, and nothing at or above 9 (HighSACK).
    #[test]
    fn rule3_returns_the_unsacked_segments_above_highrxt_below_highsack() {
        let mut s = q(10);
        s.on_recovery_entry();
        s.apply_sack(
            &[SeqRange::new(sg(1).start, sg(3).end), sg(6), sg(9)],
            SimTime(10),
        );
        s.mark_first_lost();
        assert!(
            !s.mark_lost_by_sack(3, 100),
            "only the head is presumed lost"
        );
        s.on_retransmit(0, SimTime(11));
        assert_eq!(s.next_lost(), None, "rule (1) fails");
        let mut order = vec![];
        while let Some(i) = s.next_seg_rule3() {
            order.push(i);
            s.on_retransmit(i, SimTime(12));
        }
        assert_eq!(order, vec![4, 5, 7, 8]);
        for i in [4, 5, 7, 8] {
            assert!(s.get(i).rtx_before_loss && !s.get(i).lost);
        }
    }

    /// RFC 6675 Sec. 4: after a rule (3) retransmission "the sender has two
    /// copies of the same data considered to be in the network (and also in
    /// the Pipe estimate, in the case of (3))": SetPipe counts an octet once
    /// if IsLost is false (a) and once more if it is at or below HighRxt
    /// (b). Once IsLost holds, (a) stops and the copy counts once; rule (1)
    /// does not resend it, since it is not above HighRxt.
    #[test]
    fn a_rule3_retransmission_counts_twice_in_pipe_until_presumed_lost() {
        let mut s = q(6);
        s.on_recovery_entry();
        s.apply_sack(&[SeqRange::new(sg(1).start, sg(3).end), sg(5)], SimTime(10));
        s.mark_first_lost();
        s.mark_lost_by_sack(3, 100);
        s.on_retransmit(0, SimTime(11));
        // 0 resent after loss (once), 4 in flight (once).
        assert_eq!(s.pipe(), 200);
        assert_eq!(s.next_seg_rule3(), Some(4));
        s.on_retransmit(4, SimTime(12));
        assert_eq!(s.pipe(), 300, "4 counts for both copies");
        assert_eq!(s.next_seg_rule3(), None, "5 is SACKed; HighSACK reached");
        // Two more SACKed segments above 4 would make IsLost(4) true; here
        // the SACK of 5 plus a DupThresh of 2 does: (2 - 1) x SMSS exceeded.
        assert!(s.mark_lost_by_sack(2, 50));
        assert!(s.get(4).lost);
        assert_eq!(s.pipe(), 200, "4 now counts once, for its retransmission");
        assert_eq!(s.next_lost(), None, "rule (1) does not resend 4");
        // The ACK of everything takes both shares out.
        s.ack_to(sg(5).end, SimTime(20));
        assert_eq!(s.pipe(), 0);
    }

    /// RFC 6675 Sec. 4, NextSeg rule (4): "If the conditions for (1), (2),
    /// and (3) fail, but there exists outstanding unSACKed data, we provide
    /// the opportunity for a single "rescue" retransmission per entry into
    /// loss recovery. If HighACK is greater than RescueRxt (or RescueRxt is
    /// undefined), then one segment of up to SMSS octets that MUST include
    /// the highest outstanding unSACKed sequence number SHOULD be returned,
    /// and RescueRxt set to RecoveryPoint. HighRxt MUST NOT be updated."
    /// Sec. 5 step (4.3) sets RescueRxt to the end of the fast
    /// retransmission "to prevent ... a premature rescue retransmission".
    #[test]
    fn rule4_rescues_the_highest_unsacked_segment_once_after_highack_passes() {
        let mut s = q(6);
        // Recovery enters with the head at HighACK + 1 = 1: RescueRxt = 100.
        s.on_recovery_entry();
        s.apply_sack(&[SeqRange::new(sg(1).start, sg(4).end)], SimTime(10));
        s.mark_first_lost();
        s.on_retransmit(0, SimTime(11));
        assert_eq!(s.next_seg_rule3(), None, "nothing unSACKed below HighSACK");
        assert_eq!(
            s.rescue_candidate(1),
            None,
            "HighACK (0) is not above RescueRxt (100)"
        );
        // The retransmission arrives: HighACK = 500 > RescueRxt.
        s.ack_to(sg(4).end, SimTime(20));
        let highest = s.rescue_candidate(sg(4).end);
        assert_eq!(highest, Some(0), "segment 5, now first in the queue");
        let pipe = s.pipe();
        let recovery_point = sg(5).end;
        s.on_rescue_retransmit(0, SimTime(21), recovery_point);
        assert_eq!(
            s.pipe(),
            pipe,
            "SetPipe (b) does not count it: HighRxt unchanged"
        );
        assert_eq!(s.next_seg_rule3(), None);
        assert_eq!(s.get(0).tx_count, 2);
        assert_eq!(
            s.rescue_candidate(sg(4).end),
            None,
            "one rescue per episode: RescueRxt = RecoveryPoint"
        );
    }

    /// The highest unSACKed segment lies below the highest SACKed run when
    /// the last segments are SACKed; with everything SACKed there is none.
    #[test]
    fn rescue_candidate_is_below_a_sacked_tail() {
        let mut s = q(6);
        s.apply_sack(&[SeqRange::new(sg(4).start, sg(5).end), sg(2)], SimTime(10));
        assert_eq!(s.rescue_candidate(1), Some(3), "RescueRxt undefined");
        s.apply_sack(&[sg(0), sg(1), sg(3)], SimTime(11));
        assert_eq!(s.rescue_candidate(1), None);
    }

    #[test]
    fn partial_ack_trims() {
        let mut s = q(2);
        let a = s.ack_to(51, SimTime(5));
        assert_eq!(a.bytes, 50);
        assert_eq!(s.pipe(), 150);
        assert_eq!(s.first().unwrap().range.start, 51);
    }
}
