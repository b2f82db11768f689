//! The RN-TCP / TCP-R receiver part (TCP-R paper Sec. 2.2; readings in
//! docs/tcpr.md), shared by the `rntcp` and `tcpr` families.
//!
//! It keeps two lists of holes in the received sequence space:
//!
//! - the **drop list**: holes (or parts of holes) covered by an EPDN pair
//!   that arrived in a data packet (`protocols/epdn/`): the network said it
//!   dropped that data;
//! - the **reorder/corruption list**: the holes no EPDN pair covers.
//!
//! A pair joins the drop records and the holes it covers move over; each
//! new hole goes to the list its coverage says; filled holes leave both
//! lists (the lists are reclassified from the reassembly state after every
//! arrival, `ReceiverPart::on_reassembly`).
//!
//! On every duplicate ACK (an ACK for the same rcv_nxt as the previous one,
//! sent while out-of-order data is held) the drop-negative bit
//! `DROP_NEGATIVE` is 1 if the segment at rcv_nxt is in the
//! reorder/corruption list, 0 if it is in the drop list. Other ACKs carry
//! DN = 0.

use crate::engine::SimTime;
use crate::net::packet::{flags, SeqRange, TcpHeader};
use crate::protocols::header_bits::DROP_NEGATIVE;
use crate::tcp::receiver::Arrival;
use crate::tcp::receiver_part::ReceiverPart;

#[derive(Default, Debug)]
pub struct RnReceiver {
    /// EPDN pairs received, merged, sorted and disjoint, trimmed below
    /// rcv_nxt.
    records: Vec<SeqRange>,
    /// Holes (parts of holes) covered by a record.
    drop_list: Vec<SeqRange>,
    /// Holes (parts of holes) no record covers.
    reorder_list: Vec<SeqRange>,
    rcv_nxt: Option<u64>,
    /// The ACK field of the last ACK sent.
    last_ack: Option<u64>,
    /// Duplicate ACKs sent with DN = 1 and with DN = 0.
    pub dn_set: u64,
    pub dn_clear: u64,
}

/// Adds `r` to a sorted, disjoint list, merging what it touches.
fn insert_merged(list: &mut Vec<SeqRange>, r: SeqRange) {
    if r.is_empty() {
        return;
    }
    let mut m = r;
    list.retain(|b| {
        if b.end >= m.start && b.start <= m.end {
            m = SeqRange::new(m.start.min(b.start), m.end.max(b.end));
            false
        } else {
            true
        }
    });
    let pos = list.partition_point(|b| b.start < m.start);
    list.insert(pos, m);
}

fn contains(list: &[SeqRange], seq: u64) -> bool {
    list.iter().any(|r| r.start <= seq && seq < r.end)
}

impl RnReceiver {
    pub fn drop_list(&self) -> &[SeqRange] {
        &self.drop_list
    }
    pub fn reorder_list(&self) -> &[SeqRange] {
        &self.reorder_list
    }

    /// Splits `hole` into the parts the records cover (drop list) and the
    /// rest (reorder list).
    fn classify(&mut self, hole: SeqRange) {
        let mut at = hole.start;
        for r in &self.records {
            if r.end <= at {
                continue;
            }
            if r.start >= hole.end {
                break;
            }
            if r.start > at {
                self.reorder_list.push(SeqRange::new(at, r.start));
            }
            let end = r.end.min(hole.end);
            self.drop_list.push(SeqRange::new(r.start.max(at), end));
            at = end;
        }
        if at < hole.end {
            self.reorder_list.push(SeqRange::new(at, hole.end));
        }
    }
}

impl ReceiverPart for RnReceiver {
    fn on_arrival(&mut self, h: &TcpHeader, _a: &Arrival, _now: SimTime) {
        for r in h.ext_ranges() {
            insert_merged(&mut self.records, r);
        }
    }

    fn on_reassembly(&mut self, rcv_nxt: u64, blocks: &[SeqRange]) {
        self.rcv_nxt = Some(rcv_nxt);
        // Records of data below rcv_nxt are done with.
        self.records.retain(|r| r.end > rcv_nxt);
        if let Some(first) = self.records.first_mut() {
            first.start = first.start.max(rcv_nxt);
        }
        self.drop_list.clear();
        self.reorder_list.clear();
        let mut at = rcv_nxt;
        for b in blocks {
            if b.start > at {
                self.classify(SeqRange::new(at, b.start));
            }
            at = at.max(b.end);
        }
    }

    fn on_ack_out(&mut self, h: &mut TcpHeader) {
        if h.has(flags::SYN) {
            return;
        }
        let held = !self.drop_list.is_empty() || !self.reorder_list.is_empty();
        let duplicate =
            h.len == 0 && held && self.last_ack == Some(h.ack) && self.rcv_nxt == Some(h.ack);
        self.last_ack = Some(h.ack);
        h.ext.flags &= !DROP_NEGATIVE;
        if !duplicate {
            return;
        }
        if contains(&self.reorder_list, h.ack) {
            h.ext.flags |= DROP_NEGATIVE;
            self.dn_set += 1;
        } else {
            self.dn_clear += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::test_support::data_segment as seg;

    fn ack(a: u64) -> TcpHeader {
        TcpHeader {
            ack: a,
            flags: flags::ACK,
            ..Default::default()
        }
    }

    fn r(s: u64, e: u64) -> SeqRange {
        SeqRange::new(s, e)
    }

    /// Drives the part as the endpoint does: arrival, reassembly state,
    /// then the ACK it sends; returns the ACK's DN bit.
    fn arrive(p: &mut RnReceiver, h: &TcpHeader, rcv_nxt: u64, blocks: &[SeqRange]) -> bool {
        p.on_arrival(h, &Arrival::default(), SimTime::ZERO);
        p.on_reassembly(rcv_nxt, blocks);
        let mut a = ack(rcv_nxt);
        p.on_ack_out(&mut a);
        a.ext.has(DROP_NEGATIVE)
    }

    #[test]
    fn a_reordered_hole_gives_dn_1_on_duplicate_acks() {
        let mut p = RnReceiver::default();
        assert!(!arrive(&mut p, &seg(1, 1000), 1001, &[]));
        // Segment 1001 is late: 2001 and 3001 arrive above a hole.
        assert!(arrive(&mut p, &seg(2001, 1000), 1001, &[r(2001, 3001)]));
        assert_eq!(p.reorder_list(), &[r(1001, 2001)]);
        assert!(p.drop_list().is_empty());
        assert!(arrive(&mut p, &seg(3001, 1000), 1001, &[r(2001, 4001)]));
        // It arrives: the hole leaves the list, the new ACK carries DN = 0.
        assert!(!arrive(&mut p, &seg(1001, 1000), 4001, &[]));
        assert!(p.reorder_list().is_empty() && p.drop_list().is_empty());
        assert_eq!((p.dn_set, p.dn_clear), (2, 0));
    }

    #[test]
    fn a_dropped_hole_gives_dn_0_on_duplicate_acks() {
        let mut p = RnReceiver::default();
        arrive(&mut p, &seg(1, 1000), 1001, &[]);
        // 1001 was dropped at a gateway; the next data packet carries the
        // pair.
        let mut carrier = seg(2001, 1000);
        assert!(carrier.push_ext_range(r(1001, 2001)));
        assert!(!arrive(&mut p, &carrier, 1001, &[r(2001, 3001)]));
        assert_eq!(p.drop_list(), &[r(1001, 2001)]);
        assert!(p.reorder_list().is_empty());
        assert!(!arrive(&mut p, &seg(3001, 1000), 1001, &[r(2001, 4001)]));
        assert_eq!((p.dn_set, p.dn_clear), (0, 2));
        // The retransmission fills the hole: both lists are empty.
        arrive(&mut p, &seg(1001, 1000), 4001, &[]);
        assert!(p.reorder_list().is_empty() && p.drop_list().is_empty());
    }

    #[test]
    fn a_late_pair_moves_a_hole_from_the_reorder_list_to_the_drop_list() {
        let mut p = RnReceiver::default();
        arrive(&mut p, &seg(1, 1000), 1001, &[]);
        // Holes 1001..2001 and 3001..4001, then a pair for both and the
        // data between (one merged range as a gateway writes it).
        assert!(arrive(&mut p, &seg(2001, 1000), 1001, &[r(2001, 3001)]));
        assert!(arrive(
            &mut p,
            &seg(4001, 1000),
            1001,
            &[r(2001, 3001), r(4001, 5001)]
        ));
        assert_eq!(p.reorder_list(), &[r(1001, 2001), r(3001, 4001)]);
        let mut carrier = seg(5001, 1000);
        assert!(carrier.push_ext_range(r(3001, 4001)));
        assert!(arrive(
            &mut p,
            &carrier,
            1001,
            &[r(2001, 3001), r(4001, 6001)]
        ));
        assert_eq!(p.reorder_list(), &[r(1001, 2001)]);
        assert_eq!(p.drop_list(), &[r(3001, 4001)]);
        // The first hole fills: rcv_nxt moves to the dropped one, DN = 0 on
        // the next duplicate ACK.
        assert!(!arrive(&mut p, &seg(1001, 1000), 3001, &[r(4001, 6001)]));
        assert!(!arrive(&mut p, &seg(6001, 1000), 3001, &[r(4001, 7001)]));
        assert!(p.reorder_list().is_empty());
        assert_eq!(p.drop_list(), &[r(3001, 4001)]);
    }

    #[test]
    fn a_hole_partly_covered_is_split() {
        let mut p = RnReceiver::default();
        arrive(&mut p, &seg(1, 1000), 1001, &[]);
        let mut c = seg(4001, 1000);
        assert!(c.push_ext_range(r(2001, 3001)));
        arrive(&mut p, &c, 1001, &[r(4001, 5001)]);
        assert_eq!(p.reorder_list(), &[r(1001, 2001), r(3001, 4001)]);
        assert_eq!(p.drop_list(), &[r(2001, 3001)]);
    }
}
