//! Segments sent and not yet cumulatively acknowledged: the retransmission
//! queue and, with SACK, the scoreboard of RFC 6675. Segment boundaries are
//! fixed at first transmission; retransmissions resend the same ranges.
//!
//! `pipe` (RFC 6675 Sec. 4) is kept incrementally: a segment counts while it
//! is neither SACKed nor presumed lost, or once it has been retransmitted
//! after being presumed lost. Without SACK, nothing is SACKed and the same
//! rule gives the flight size that Reno/NewReno compare with cwnd.

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
    /// Delivery-rate state at the last transmission.
    pub tx: TxSnapshot,
}

impl SentSegment {
    fn counts_in_pipe(&self) -> bool {
        !self.sacked && (!self.lost || self.rtx_after_loss)
    }
    /// Presumed lost and waiting for its retransmission.
    fn awaits_retransmission(&self) -> bool {
        self.lost && !self.rtx_after_loss && !self.sacked
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
    /// ever retransmitted; measured from the newest one acknowledged.
    pub rtt: Option<Duration>,
    pub any_retransmitted: bool,
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
    /// Bytes delivered and the delivery-rate estimator.
    pub rate: DeliveryRate,
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
            (s.counts_in_pipe(), s.sacked, s.awaits_retransmission());
        f(s);
        let (after, now_sacked, len) = (s.counts_in_pipe(), s.sacked, s.len());
        match (was_awaiting, s.awaits_retransmission()) {
            (false, true) => {
                self.awaiting += 1;
                let from = self.awaiting_from.get().min(s.range.start);
                self.awaiting_from.set(from);
            }
            (true, false) => self.awaiting -= 1,
            _ => {}
        }
        match (before, after) {
            (true, false) => self.pipe -= len,
            (false, true) => self.pipe += len,
            _ => {}
        }
        match (was_sacked, now_sacked) {
            (false, true) => self.sacked_bytes += len,
            (true, false) => self.sacked_bytes -= len,
            _ => {}
        }
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
            tx,
        });
    }

    /// Records a retransmission of segment `i`.
    pub fn on_retransmit(&mut self, i: usize, now: SimTime) {
        let tx = self.rate.snapshot(now, self.pipe == 0);
        self.update(i, |s| {
            s.tx = tx;
            s.tx_count = s.tx_count.saturating_add(1);
            s.last_sent = now;
            if s.lost {
                s.rtx_after_loss = true;
            }
        });
    }

    /// Removes everything below `ack`. A segment only partly covered is
    /// trimmed (possible when the receiver's window cut a segment).
    pub fn ack_to(&mut self, ack: u64, now: SimTime) -> Acked {
        let mut out = Acked::default();
        let mut newest_sent = None;
        while let Some(f) = self.segs.front() {
            if f.range.end <= ack {
                let s = *f;
                if !s.delivery_counted {
                    self.rate.on_delivered(s.len(), s.last_sent, &s.tx, now);
                }
                // Out of the pipe and the scoreboard, then gone.
                self.update(0, |s| {
                    s.sacked = false;
                    s.lost = true;
                    s.rtx_after_loss = false;
                });
                self.segs.pop_front();
                self.awaiting -= 1;
                out.bytes += s.len();
                out.payload += s.payload() as u64;
                out.segments += 1;
                out.any_retransmitted |= s.tx_count > 1;
                newest_sent = Some(s.last_sent);
            } else if f.range.start < ack {
                let cut = ack - f.range.start;
                let counted = f.counts_in_pipe();
                let sacked = f.sacked;
                if !f.delivery_counted {
                    let (sent, tx) = (f.last_sent, f.tx);
                    self.rate.on_delivered(cut, sent, &tx, now);
                }
                let f = self.segs.front_mut().unwrap();
                f.range.start = ack;
                f.syn = false;
                if counted {
                    self.pipe -= cut;
                }
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
            let mut i = self.segs.partition_point(|s| s.range.end <= b.start);
            while i < self.segs.len() {
                let s = self.segs[i];
                if s.range.start >= b.end {
                    break;
                }
                if s.sacked {
                    let end = self.run_end(s.range.start);
                    i = self.segs.partition_point(|x| x.range.end <= end);
                    continue;
                }
                if s.range.start >= b.start && s.range.end <= b.end {
                    newly += s.len();
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
        let mut i = self
            .segs
            .partition_point(|s| s.range.end <= self.lost_marked_below);
        let mut any = false;
        while i < self.segs.len() && self.segs[i].range.start < below {
            let s = self.segs[i];
            if !s.sacked && !s.lost {
                self.update(i, |s| s.lost = true);
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
            self.update(0, |s| {
                s.lost = true;
                s.rtx_after_loss = false;
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
                self.update(i, |s| {
                    s.lost = true;
                    s.rtx_after_loss = false;
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
        let start = self.segs.partition_point(|s| s.range.end <= r.start);
        for i in start..self.segs.len() {
            let s = self.segs[i];
            if s.range.start >= r.end {
                break;
            }
            if s.range.start >= r.start && s.range.end <= r.end && !s.sacked && !s.lost {
                self.update(i, |s| {
                    s.lost = true;
                    s.rtx_after_loss = false;
                });
                n += 1;
            }
        }
        n
    }

    /// After a retransmission timeout: forget SACK information (the
    /// receiver may renege, RFC 2018 Sec. 8) and presume everything lost.
    pub fn mark_all_lost(&mut self) {
        for i in 0..self.segs.len() {
            self.update(i, |s| {
                s.sacked = false;
                s.lost = true;
                s.rtx_after_loss = false;
            });
        }
        self.sacked_runs.clear();
        self.high_sacked = 0;
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
            pipe += s.counts_in_pipe() as u64 * s.len();
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
        let from = self
            .segs
            .partition_point(|s| s.range.end <= self.awaiting_from.get());
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
        assert_eq!(s.pipe(), 100);
        assert_eq!(s.sacked_bytes(), 0);
    }

    #[test]
    fn karn_sample_from_newest_acked() {
        let mut s = q(3);
        let a = s.ack_to(201, SimTime(100));
        assert_eq!(a.rtt, Some(Duration(99)));
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

    #[test]
    fn partial_ack_trims() {
        let mut s = q(2);
        let a = s.ack_to(51, SimTime(5));
        assert_eq!(a.bytes, 50);
        assert_eq!(s.pipe(), 150);
        assert_eq!(s.first().unwrap().range.start, 51);
    }
}
