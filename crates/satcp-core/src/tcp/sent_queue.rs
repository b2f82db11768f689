//! Segments sent and not yet cumulatively acknowledged: the retransmission
//! queue and, with SACK, the scoreboard of RFC 6675. Segment boundaries are
//! fixed at first transmission; retransmissions resend the same ranges.
//!
//! `pipe` (RFC 6675 Sec. 4) is kept incrementally: a segment counts while it
//! is neither SACKed nor presumed lost, or once it has been retransmitted
//! after being presumed lost. Without SACK, nothing is SACKed and the same
//! rule gives the flight size that Reno/NewReno compare with cwnd.

use crate::engine::{Duration, SimTime};
use crate::net::packet::SeqRange;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct SentSegment {
    pub range: SeqRange,
    pub syn: bool,
    pub fin: bool,
    pub first_sent: SimTime,
    pub last_sent: SimTime,
    pub tx_count: u16,
    pub sacked: bool,
    /// Presumed lost: waiting for (or given) a retransmission.
    pub lost: bool,
    /// Retransmitted since it was presumed lost.
    pub rtx_after_loss: bool,
}

impl SentSegment {
    fn counts_in_pipe(&self) -> bool {
        !self.sacked && (!self.lost || self.rtx_after_loss)
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
        let (before, was_sacked) = (s.counts_in_pipe(), s.sacked);
        f(s);
        let (after, now_sacked, len) = (s.counts_in_pipe(), s.sacked, s.len());
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
        self.pipe += range.len();
        self.segs.push_back(SentSegment {
            range,
            syn,
            fin,
            first_sent: now,
            last_sent: now,
            tx_count: 1,
            sacked: false,
            lost: false,
            rtx_after_loss: false,
        });
    }

    /// Records a retransmission of segment `i`.
    pub fn on_retransmit(&mut self, i: usize, now: SimTime) {
        self.update(i, |s| {
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
                self.update(0, |s| {
                    s.sacked = false;
                    s.lost = true;
                    s.rtx_after_loss = false;
                });
                self.segs.pop_front();
                out.bytes += s.len();
                out.payload += s.payload() as u64;
                out.segments += 1;
                out.any_retransmitted |= s.tx_count > 1;
                newest_sent = Some(s.last_sent);
            } else if f.range.start < ack {
                let cut = ack - f.range.start;
                let counted = f.counts_in_pipe();
                let sacked = f.sacked;
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
        if !out.any_retransmitted {
            out.rtt = newest_sent.map(|t| now - t);
        }
        out
    }

    /// Marks segments fully covered by `blocks` as SACKed; returns the
    /// number of bytes newly SACKed.
    pub fn apply_sack(&mut self, blocks: &[SeqRange]) -> u64 {
        let mut newly = 0;
        for b in blocks {
            if b.is_empty() {
                continue;
            }
            self.high_sacked = self.high_sacked.max(b.end);
            let start = self.segs.partition_point(|s| s.range.end <= b.start);
            for i in start..self.segs.len() {
                let s = self.segs[i];
                if s.range.start >= b.end {
                    break;
                }
                if !s.sacked && s.range.start >= b.start && s.range.end <= b.end {
                    newly += s.len();
                    self.update(i, |s| s.sacked = true);
                }
            }
        }
        newly
    }

    /// RFC 6675 IsLost for every segment: presumed lost when more than
    /// (dupthresh - 1) * mss bytes above it are SACKed, or when dupthresh
    /// discontiguous SACKed segments lie above it. Returns whether any
    /// segment became lost.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u32) -> bool {
        let byte_limit = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut sacked_above = 0u64;
        let mut sacked_runs = 0u32;
        let mut prev_sacked = false;
        let mut any = false;
        for i in (0..self.segs.len()).rev() {
            let s = self.segs[i];
            if s.sacked {
                sacked_above += s.len();
                if !prev_sacked {
                    sacked_runs += 1;
                }
                prev_sacked = true;
                continue;
            }
            prev_sacked = false;
            if !s.lost && (sacked_above > byte_limit || sacked_runs >= dupthresh) {
                self.update(i, |s| s.lost = true);
                any = true;
            }
        }
        any
    }

    /// RFC 6675 IsLost for segment `i` alone, without marking anything.
    pub fn is_lost(&self, i: usize, dupthresh: u32, mss: u32) -> bool {
        let byte_limit = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let (mut bytes, mut runs, mut prev) = (0u64, 0u32, false);
        for s in self.segs.iter().skip(i + 1) {
            if s.sacked {
                bytes += s.len();
                runs += !prev as u32;
            }
            prev = s.sacked;
        }
        bytes > byte_limit || runs >= dupthresh
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
        self.high_sacked = 0;
    }

    /// First segment presumed lost and not yet retransmitted since.
    pub fn next_lost(&self) -> Option<usize> {
        self.segs
            .iter()
            .position(|s| s.lost && !s.rtx_after_loss && !s.sacked)
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
        s.apply_sack(&[SeqRange::new(101, 401)]);
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
        s.apply_sack(&[SeqRange::new(201, 301)]);
        s.mark_all_lost();
        assert_eq!(s.pipe(), 0);
        assert_eq!(s.next_lost(), Some(0));
        assert_eq!(s.sacked_bytes(), 0);
    }

    #[test]
    fn mark_lost_below_skips_sacked_and_lost_segments() {
        let mut s = q(5);
        s.apply_sack(&[SeqRange::new(201, 301)]);
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
