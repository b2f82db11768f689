//! The receiving half of a TCP endpoint: RFC 793 segment acceptability,
//! reassembly of out-of-order data, in-order delivery to the application,
//! and the SACK blocks (RFC 2018, with RFC 2883 DSACK when enabled) that the
//! next outgoing segment will carry.
//!
//! The application reads instantly, so the advertised window is always the
//! whole receive buffer and out-of-order data sits inside it (docs/model.md).

use crate::net::packet::{flags, SackBlocks, SeqRange, TcpHeader, MAX_SACK_BLOCKS};

/// What one arriving segment did to the receive state.
///
/// The four yes/no answers share one byte (`Arrival::DUPLICATE` and the
/// others), written and read as a byte. As four `bool` fields they were
/// stored one byte at a time and the ACK policy, asking for any of them,
/// read them back as one word: a load the CPU cannot serve from its store
/// buffer, which stalled every arriving data segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Payload bytes that arrived (before trimming), all copies counted.
    pub payload: u32,
    /// Bytes newly delivered in order to the application.
    pub delivered: u64,
    what: u8,
}

impl Arrival {
    /// The segment carried nothing new (entirely old or outside the window).
    pub const DUPLICATE: u8 = 1;
    /// New data landed above rcv_nxt (a hole remains below it).
    pub const OUT_OF_ORDER: u8 = 2;
    /// Data was queued out of order before this arrival and rcv_nxt moved:
    /// the segment filled (part of) a hole.
    pub const FILLED_HOLE: u8 = 4;
    /// The peer's FIN became in-order with this arrival.
    pub const FIN_NOW: u8 = 8;

    /// `payload` bytes arrived and `delivered` went to the application,
    /// nothing else happened.
    pub fn new(payload: u32, delivered: u64) -> Arrival {
        Arrival {
            payload,
            delivered,
            what: 0,
        }
    }
    /// The same arrival with `what` (one or more of the constants) added.
    pub fn with(mut self, what: u8) -> Arrival {
        self.what |= what;
        self
    }
    /// True if any of `what` happened.
    pub fn any(&self, what: u8) -> bool {
        self.what & what != 0
    }
    pub fn duplicate(&self) -> bool {
        self.any(Self::DUPLICATE)
    }
    pub fn out_of_order(&self) -> bool {
        self.any(Self::OUT_OF_ORDER)
    }
    pub fn filled_hole(&self) -> bool {
        self.any(Self::FILLED_HOLE)
    }
    pub fn fin_now(&self) -> bool {
        self.any(Self::FIN_NOW)
    }
}

#[derive(Clone, Debug)]
pub struct ReceiveHalf {
    /// Next expected sequence number; None until the peer's SYN is seen.
    pub rcv_nxt: Option<u64>,
    pub rcv_wnd: u32,
    /// The peer's initial sequence number (its SYN's), once seen.
    irs: Option<u64>,
    /// Out-of-order data above rcv_nxt, sorted and disjoint.
    ooo: Vec<SeqRange>,
    /// Out-of-order blocks, most recently changed first (for SACK order).
    recent: Vec<SeqRange>,
    /// Sequence number of the peer's FIN, once any copy of it arrived.
    fin_seq: Option<u64>,
    pub fin_received: bool,
    sack: bool,
    dsack: bool,
    /// DSACK was asked for (`tcp.dsack`); it is used once SACK is agreed.
    dsack_wanted: bool,
    /// A duplicate range to report in the next ACK's first SACK block.
    pending_dsack: Option<SeqRange>,
}

impl ReceiveHalf {
    pub fn new(rcv_wnd: u32, sack: bool, dsack: bool) -> ReceiveHalf {
        ReceiveHalf {
            rcv_nxt: None,
            rcv_wnd,
            irs: None,
            ooo: Vec::new(),
            recent: Vec::new(),
            fin_seq: None,
            fin_received: false,
            sack,
            dsack: sack && dsack,
            dsack_wanted: dsack,
            pending_dsack: None,
        }
    }

    /// The handshake's outcome: SACK agreed or not (DSACK follows it).
    pub fn set_sack(&mut self, sack: bool) {
        self.sack = sack;
        // The endpoint is created before SACK is negotiated: DSACK follows
        // the negotiation (before, `&=` left it off for good).
        self.dsack = sack && self.dsack_wanted;
    }

    /// The peer's SYN: its sequence number is the peer's ISN.
    pub fn on_syn(&mut self, isn: u64) {
        if self.rcv_nxt.is_none() {
            self.rcv_nxt = Some(isn + 1);
            self.irs = Some(isn);
        }
    }

    /// The peer's initial sequence number, once its SYN arrived.
    pub fn irs(&self) -> Option<u64> {
        self.irs
    }

    pub fn has_holes(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Out-of-order data held above rcv_nxt: sorted, disjoint blocks.
    pub fn out_of_order_blocks(&self) -> &[SeqRange] {
        &self.ooo
    }

    /// Processes the data and FIN of a segment (SYN already handled).
    pub fn on_segment(&mut self, h: &TcpHeader) -> Arrival {
        let mut a = Arrival::new(h.len, 0);
        let Some(rcv_nxt) = self.rcv_nxt else {
            a = a.with(Arrival::DUPLICATE);
            return a;
        };
        // Data occupies [start, end); a SYN in front occupies one octet.
        let start = h.seq + h.has(flags::SYN) as u64;
        let end = start + h.len as u64;
        if h.has(flags::FIN) && self.fin_seq.is_none() {
            self.fin_seq = Some(end);
            self.cut_above(end);
        }
        let wnd_end = rcv_nxt + self.rcv_wnd as u64;
        // RFC 793 acceptability: keep only the part inside the window, and
        // nothing beyond the peer's FIN (a peer sends no data after it).
        let s = start.max(rcv_nxt);
        let e = end.min(wnd_end).min(self.fin_seq.unwrap_or(u64::MAX));
        if h.len > 0 && s >= e {
            a = a.with(Arrival::DUPLICATE);
            if end <= rcv_nxt && self.dsack {
                self.pending_dsack = Some(SeqRange::new(start, end));
            }
        } else if h.len > 0 {
            if start < rcv_nxt && self.dsack {
                self.pending_dsack = Some(SeqRange::new(start, rcv_nxt));
            }
            let had_holes = !self.ooo.is_empty();
            let covered_before = self.covered(s, e);
            if covered_before == e - s {
                a = a.with(Arrival::DUPLICATE);
                if self.dsack {
                    self.pending_dsack = Some(SeqRange::new(s, e));
                }
            }
            if s == rcv_nxt {
                let new_nxt = self.advance(e);
                a.delivered = new_nxt - rcv_nxt;
                if had_holes {
                    a = a.with(Arrival::FILLED_HOLE);
                }
            } else if covered_before < e - s {
                self.insert_ooo(SeqRange::new(s, e));
                a = a.with(Arrival::OUT_OF_ORDER);
            } else {
                a = a.with(Arrival::OUT_OF_ORDER);
            }
        }
        // A FIN is in order once everything before it arrived.
        if !self.fin_received && self.fin_seq == self.rcv_nxt {
            self.fin_received = true;
            self.rcv_nxt = self.rcv_nxt.map(|n| n + 1);
            a = a.with(Arrival::FIN_NOW);
        } else if h.has(flags::FIN) && self.fin_received && h.len == 0 {
            a = a.with(Arrival::DUPLICATE);
        }
        a
    }

    /// Forgets out-of-order data at or above `limit` (the peer's FIN):
    /// without this, data a misbehaving peer sent beyond its FIN stayed
    /// queued, touching rcv_nxt once the FIN was in (found by fuzzing).
    fn cut_above(&mut self, limit: u64) {
        for v in [&mut self.ooo, &mut self.recent] {
            v.retain(|b| b.start < limit);
            for b in v.iter_mut() {
                b.end = b.end.min(limit);
            }
        }
    }

    /// Bytes of [s, e) already held out of order.
    fn covered(&self, s: u64, e: u64) -> u64 {
        self.ooo
            .iter()
            .map(|r| r.end.min(e).saturating_sub(r.start.max(s)))
            .sum()
    }

    /// rcv_nxt moves to `e` and on through any queued blocks that now touch it.
    fn advance(&mut self, e: u64) -> u64 {
        let mut nxt = e;
        while let Some(first) = self.ooo.first() {
            if first.start <= nxt {
                nxt = nxt.max(first.end);
                self.ooo.remove(0);
            } else {
                break;
            }
        }
        self.rcv_nxt = Some(nxt);
        self.recent.retain(|r| r.end > nxt);
        nxt
    }

    fn insert_ooo(&mut self, r: SeqRange) {
        // Merge with every block it touches.
        let mut merged = r;
        self.ooo.retain(|b| {
            if b.end >= merged.start && b.start <= merged.end {
                merged.start = merged.start.min(b.start);
                merged.end = merged.end.max(b.end);
                false
            } else {
                true
            }
        });
        let pos = self.ooo.partition_point(|b| b.start < merged.start);
        self.ooo.insert(pos, merged);
        // Recency list: the merged block first, then others it did not absorb.
        self.recent
            .retain(|b| !(b.end >= merged.start && b.start <= merged.end));
        self.recent.insert(0, merged);
    }

    /// SACK blocks for an outgoing ACK: a pending DSACK range first (with
    /// the block containing it second when it lies above rcv_nxt), then the
    /// most recently changed out-of-order blocks (RFC 2018 Sec. 4).
    pub fn sack_blocks(&mut self) -> SackBlocks {
        // Most ACKs (and every data segment of a sender that also
        // receives) have nothing to report: return at once, without
        // building the blocks in memory and copying them out.
        if !self.sack || (self.pending_dsack.is_none() && self.recent.is_empty()) {
            return SackBlocks::default();
        }
        let mut out = SackBlocks::default();
        if let Some(d) = self.pending_dsack.take() {
            out.push(d);
            if let Some(c) = self
                .ooo
                .iter()
                .find(|b| b.start <= d.start && d.end <= b.end)
            {
                out.push(*c);
            }
        }
        for b in &self.recent {
            if out.len() >= MAX_SACK_BLOCKS {
                break;
            }
            if !out.as_slice().iter().skip(1).any(|x| x == b) {
                out.push(*b);
            }
        }
        out
    }

    pub fn rcv_nxt_or_zero(&self) -> u64 {
        self.rcv_nxt.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::test_support::data_segment as seg;

    fn rx() -> ReceiveHalf {
        let mut r = ReceiveHalf::new(65_535, true, true);
        r.on_syn(0);
        r
    }

    #[test]
    fn in_order_delivery() {
        let mut r = rx();
        let a = r.on_segment(&seg(1, 100));
        assert_eq!(a.delivered, 100);
        assert_eq!(r.rcv_nxt, Some(101));
        assert!(!a.out_of_order() && !a.duplicate());
    }

    #[test]
    fn hole_then_fill() {
        let mut r = rx();
        let a = r.on_segment(&seg(101, 100));
        assert!(a.out_of_order());
        assert_eq!(r.sack_blocks().as_slice(), &[SeqRange::new(101, 201)]);
        let a = r.on_segment(&seg(301, 100));
        assert!(a.out_of_order());
        // newest block first
        assert_eq!(
            r.sack_blocks().as_slice(),
            &[SeqRange::new(301, 401), SeqRange::new(101, 201)]
        );
        let a = r.on_segment(&seg(1, 100));
        assert!(a.filled_hole());
        assert_eq!(a.delivered, 200);
        assert_eq!(r.rcv_nxt, Some(201));
        assert_eq!(r.sack_blocks().as_slice(), &[SeqRange::new(301, 401)]);
    }

    #[test]
    fn duplicate_below_rcv_nxt_is_dsacked() {
        let mut r = rx();
        r.on_segment(&seg(1, 100));
        let a = r.on_segment(&seg(1, 100));
        assert!(a.duplicate());
        assert_eq!(r.sack_blocks().as_slice(), &[SeqRange::new(1, 101)]);
        assert!(r.sack_blocks().is_empty());
    }

    /// An endpoint makes its receive half before SACK is negotiated:
    /// DSACK, if asked for, starts with the negotiation.
    #[test]
    fn dsack_follows_the_sack_negotiation() {
        let mut r = ReceiveHalf::new(65_535, false, true);
        r.on_syn(0);
        r.set_sack(true);
        r.on_segment(&seg(1, 100));
        r.on_segment(&seg(1, 100));
        assert_eq!(r.sack_blocks().as_slice(), &[SeqRange::new(1, 101)]);
        let mut r = ReceiveHalf::new(65_535, false, false);
        r.on_syn(0);
        r.set_sack(true);
        r.on_segment(&seg(1, 100));
        r.on_segment(&seg(1, 100));
        assert!(r.sack_blocks().is_empty());
    }

    #[test]
    fn duplicate_above_rcv_nxt_reports_containing_block() {
        let mut r = rx();
        r.on_segment(&seg(201, 100));
        r.on_segment(&seg(301, 100));
        let a = r.on_segment(&seg(201, 100));
        assert!(a.duplicate());
        assert_eq!(
            r.sack_blocks().as_slice(),
            &[SeqRange::new(201, 301), SeqRange::new(201, 401)]
        );
    }

    #[test]
    fn data_beyond_window_is_trimmed() {
        let mut r = ReceiveHalf::new(1000, false, false);
        r.on_syn(0);
        let a = r.on_segment(&seg(1, 1500));
        assert_eq!(a.delivered, 1000);
        let a = r.on_segment(&seg(5000, 100));
        assert!(a.duplicate());
    }

    /// Fuzzing found it (fuzz/corpus/endpoint_segments/fin_below_queued_data):
    /// data queued above the peer's FIN must not stay behind once the FIN
    /// is in order, and data beyond a known FIN is not taken.
    #[test]
    fn nothing_is_kept_beyond_the_peers_fin() {
        let mut r = rx();
        r.on_segment(&seg(202, 100));
        let mut f = seg(101, 100);
        f.flags |= flags::FIN;
        r.on_segment(&f);
        assert_eq!(r.out_of_order_blocks(), &[SeqRange::new(101, 201)]);
        let a = r.on_segment(&seg(301, 100));
        assert!(a.duplicate());
        let a = r.on_segment(&seg(1, 100));
        assert_eq!(a.delivered, 200);
        assert!(a.fin_now());
        assert_eq!(r.rcv_nxt, Some(202));
        assert!(r.out_of_order_blocks().is_empty());
    }

    #[test]
    fn fin_after_hole_waits() {
        let mut r = rx();
        let mut f = seg(101, 0);
        f.flags |= flags::FIN;
        let a = r.on_segment(&f);
        assert!(!a.fin_now());
        let a = r.on_segment(&seg(1, 100));
        assert!(a.fin_now());
        assert_eq!(r.rcv_nxt, Some(102));
    }
}
