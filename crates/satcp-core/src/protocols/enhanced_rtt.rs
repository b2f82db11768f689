//! Enhanced RTT sampling ("-ES", TCP-R paper Sec. 4.7, after Zhang et al.'s
//! DSACK-TAES): a segment retransmitted because it was delayed, not lost,
//! comes back twice, once covered by an ACK (at a1) and once reported by a
//! DSACK (at a2). Pairing the first ACK with the original transmission (t1)
//! and the DSACK with the retransmission (t2) gives one RTT sample
//! ((a1 - t1) + (a2 - t2)) / 2 for the RTO estimator. The sum is the same
//! whichever copy each report belongs to. Without a DSACK one copy was
//! lost and there is no sample (Karn's rule stands).
//!
//! Reusable by any sender: call `on_retransmit` from
//! `CongestionControl::on_retransmit` and `on_ack_info` from
//! `CongestionControl::on_ack_info`, and `feed` the returned sample to the
//! estimator. Readings: docs/tcpr.md, "DSACK-R and RR-TCP".

use crate::engine::{Duration, SimTime};
use crate::net::packet::SeqRange;
use crate::tcp::ack_info::AckInfo;
use crate::tcp::send_state::SendState;
use crate::tcp::sent_queue::SentSegment;
use std::collections::BTreeMap;

/// Retransmitted segments still waiting for their DSACK are forgotten,
/// lowest sequence first, beyond this many.
const MAX_PENDING: usize = 1024;

#[derive(Clone, Copy, Debug)]
struct Pending {
    end: u64,
    /// Original transmission.
    t1: SimTime,
    /// The retransmission.
    t2: SimTime,
    /// First ACK covering the segment (cumulatively or by a SACK block).
    a1: Option<SimTime>,
}

/// The -ES sampler of one sender.
#[derive(Debug, Default)]
pub struct EnhancedRtt {
    /// Retransmitted segments by start sequence number.
    pending: BTreeMap<u64, Pending>,
    /// Cumulative ACKs up to here have been applied to `pending`.
    acked_to: u64,
    samples: u64,
}

impl EnhancedRtt {
    pub fn new() -> EnhancedRtt {
        EnhancedRtt::default()
    }

    /// Samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// A segment was just retransmitted (`seg` after the retransmission).
    /// Only a segment sent exactly twice is paired [I]: with three copies
    /// the two reports cannot be matched with two send times.
    pub fn on_retransmit(&mut self, seg: &SentSegment, now: SimTime) {
        let start = seg.range.start;
        if seg.tx_count == 2 && seg.payload() > 0 {
            self.pending.insert(
                start,
                Pending {
                    end: seg.range.end,
                    t1: seg.first_sent,
                    t2: now,
                    a1: None,
                },
            );
            while self.pending.len() > MAX_PENDING {
                self.pending.pop_first();
            }
        } else {
            self.pending.remove(&start);
        }
    }

    /// Every ACK: notes the first ACK covering each retransmitted segment
    /// and, when a DSACK reports one, returns its sample (the entry is then
    /// done). The DSACK may come with the covering ACK itself (a1 = a2).
    pub fn on_ack_info(&mut self, ack: &AckInfo, now: SimTime) -> Option<Duration> {
        let cum = ack.ack();
        if cum > self.acked_to {
            for (_, p) in self.pending.range_mut(self.acked_to..cum) {
                if p.end <= cum && p.a1.is_none() {
                    p.a1 = Some(now);
                }
            }
            self.acked_to = cum;
        }
        for b in ack.sack_blocks() {
            for (_, p) in self.pending.range_mut(b.start..b.end) {
                if p.end <= b.end && p.a1.is_none() {
                    p.a1 = Some(now);
                }
            }
        }
        let d = ack.dsack?;
        let (&start, _) = self
            .pending
            .range(d.start..d.end)
            .find(|(_, p)| p.end <= d.end)?;
        let p = self.pending.remove(&start)?;
        let a1 = p.a1.unwrap_or(now);
        self.samples += 1;
        Some(Self::sample(p.t1, p.t2, a1, now))
    }

    /// ((a1 - t1) + (a2 - t2)) / 2.
    pub fn sample(t1: SimTime, t2: SimTime, a1: SimTime, a2: SimTime) -> Duration {
        Duration(((a1 - t1).0 + (a2 - t2).0) / 2)
    }

    /// Whether `r` awaits its pairing (for tests and counters).
    pub fn is_pending(&self, r: SeqRange) -> bool {
        self.pending.get(&r.start).is_some_and(|p| p.end == r.end)
    }
}

/// Gives a sample to the RTO estimator, as a Karn-valid one would be
/// (it also ends any back-off, RFC 6298 Sec. 5.7).
pub fn feed(s: &mut SendState, rtt: Duration) {
    s.add_rtt_sample(rtt);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{flags, TcpHeader};
    use crate::tcp::sent_queue::SentQueue;

    fn t(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn info<'a>(h: &'a TcpHeader, dsack: Option<SeqRange>) -> AckInfo<'a> {
        AckInfo {
            header: h,
            window: 65_535,
            dsack,
            newly_acked: 0,
            newly_sacked: 0,
            newly_delivered: 0,
            duplicate: false,
            rtt: None,
            rate: None,
            prior_in_flight: 0,
        }
    }

    fn ack(a: u64, blocks: &[SeqRange]) -> TcpHeader {
        let mut h = TcpHeader {
            ack: a,
            flags: flags::ACK,
            ..Default::default()
        };
        h.set_sack(blocks);
        h
    }

    /// Segments [1, 101) and [101, 201) sent at 1.0 s; the first resent
    /// (`times` - 1 times) from 1.5 s on.
    fn resent(es: &mut EnhancedRtt, times: u32) {
        let mut q = SentQueue::default();
        q.push_new(SeqRange::new(1, 101), false, false, t(1.0));
        q.push_new(SeqRange::new(101, 201), false, false, t(1.0));
        for i in 1..times {
            let at = t(1.0 + 0.5 * i as f64);
            q.on_retransmit(0, at);
            es.on_retransmit(q.get(0), at);
        }
    }

    #[test]
    fn one_sample_from_the_covering_ack_and_the_dsack() {
        let mut es = EnhancedRtt::new();
        resent(&mut es, 2);
        let seg = SeqRange::new(1, 101);
        assert!(es.is_pending(seg));
        // a1 = 1.7 s: the ACK covering it; a2 = 2.1 s: its DSACK.
        let h = ack(201, &[]);
        assert_eq!(es.on_ack_info(&info(&h, None), t(1.7)), None);
        let h = ack(201, &[seg]);
        let got = es.on_ack_info(&info(&h, Some(seg)), t(2.1)).unwrap();
        // ((1.7 - 1.0) + (2.1 - 1.5)) / 2 = 0.65 s.
        assert_eq!(got, Duration::from_secs_f64(0.65));
        assert_eq!(es.samples(), 1);
        assert!(!es.is_pending(seg));
        // A second DSACK for it gives nothing more.
        assert_eq!(es.on_ack_info(&info(&h, Some(seg)), t(2.2)), None);
    }

    #[test]
    fn a_sack_block_covering_it_counts_as_its_ack() {
        let mut es = EnhancedRtt::new();
        resent(&mut es, 2);
        let seg = SeqRange::new(1, 101);
        let h = ack(1, &[seg]);
        es.on_ack_info(&info(&h, None), t(1.6));
        let h = ack(201, &[seg]);
        let got = es.on_ack_info(&info(&h, Some(seg)), t(2.0)).unwrap();
        assert_eq!(got, Duration::from_secs_f64(0.55)); // (0.6 + 0.5) / 2
    }

    #[test]
    fn no_dsack_no_sample_and_no_pairing_of_three_copies() {
        let mut es = EnhancedRtt::new();
        resent(&mut es, 2);
        let h = ack(201, &[]);
        for at in [1.7, 2.0, 3.0] {
            assert_eq!(es.on_ack_info(&info(&h, None), t(at)), None);
        }
        assert_eq!(es.samples(), 0);
        let mut es = EnhancedRtt::new();
        resent(&mut es, 3);
        let seg = SeqRange::new(1, 101);
        assert!(!es.is_pending(seg));
        let h = ack(201, &[seg]);
        assert_eq!(es.on_ack_info(&info(&h, Some(seg)), t(2.5)), None);
    }
}
