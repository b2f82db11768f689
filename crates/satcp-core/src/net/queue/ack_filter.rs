//! ACK filtering (Balakrishnan, Padmanabhan, Katz, "The effects of
//! asymmetry on TCP performance", MobiCom 1997, "AF"; RFC 3449 Sec. 5.3):
//! a drop-tail queue that, when a pure ACK arrives for a flow with pure
//! ACKs of that flow already waiting, removes the older ones the new ACK
//! makes redundant. TCP's acknowledgement is cumulative, so on a narrow
//! return link one ACK carries what several would, and the ACKs that
//! remain wait less.
//!
//! An older queued ACK `o` is redundant with the arriving ACK `n` of the
//! same flow (`Packet::flow`: source, destination, endpoint) when it
//! tells the sender nothing that `n` does not (RFC 3449's cautions):
//! - both are pure ACKs: no payload, no SYN or FIN;
//! - `n` acknowledges more: `n.ack > o.ack` (duplicate ACKs, which drive
//!   fast retransmit, are never removed);
//! - every SACK block of `o` is below `n.ack` or inside one of `n`'s
//!   blocks, and `o` carries no D-SACK (RFC 2883: its first block below its
//!   own cumulative ACK, or inside its second block);
//! - `o` echoes no congestion (ECE, CWR, a CE mark) that `n` does not;
//! - `n`'s window field is at least `o`'s: with `n.ack > o.ack` the right
//!   edge of `n`'s window is then beyond `o`'s whatever the scale, so `o`
//!   is no window update that `n` lacks;
//! - `o` carries no header-extension flag or range that `n` lacks.
//!
//! Every redundant ACK is removed (the paper's AF), each reported with
//! cause `ack_filtered` and counted in `acks_filtered`, not in
//! `queue_drops`. With `place = "first_removed"` (the default) the new ACK
//! takes the place of the earliest one it removed, so that it leaves as
//! soon as the ACK it replaces would have; with `place = "tail"` it joins
//! the tail as any arrival. Everything else keeps its order. An ACK that
//! would not fit even with its redundant ones gone is dropped as overflow,
//! and then nothing is removed.
//!
//! Cost: a pure ACK's arrival scans the queue (linear in its length);
//! other packets are queued as by drop-tail.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{RngStream, SimTime};
use crate::net::packet::{dsack_block, flags, Ecn, Packet, PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = "ack_filter"` with `ack_filter = { place }`.
pub const KIND: QueueKind = QueueKind {
    name: "ack_filter",
    settings: super::read::<AckFilterConfig>,
    schema: super::schema_of::<AckFilterConfig>,
};

/// Where an arriving ACK that removed older ones is queued.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// In the place of the earliest ACK it removed.
    #[default]
    FirstRemoved,
    /// At the tail, as any arrival.
    Tail,
}

#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct AckFilterConfig {
    /// Where an ACK that removed older ones of its flow is queued:
    /// "first_removed" (in the place of the earliest one) or "tail".
    pub place: Place,
}

impl QueueSettings for AckFilterConfig {
    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(AckFilter::new(limit, self.place))
    }
}

pub struct AckFilter {
    limit: QueueLimit,
    place: Place,
    q: VecDeque<PacketId>,
    bytes: u64,
    filtered: u64,
    /// Positions of the redundant ACKs found for an arrival (kept to
    /// reuse its allocation).
    redundant: Vec<usize>,
}

impl AckFilter {
    pub fn new(limit: QueueLimit, place: Place) -> AckFilter {
        AckFilter {
            limit,
            place,
            q: VecDeque::new(),
            bytes: 0,
            filtered: 0,
            redundant: Vec::new(),
        }
    }

    /// Fills `redundant` with the positions of the queued ACKs that `new`
    /// makes redundant, head first; returns their bytes.
    fn find_redundant(&mut self, new: &Packet, pool: &PacketPool) -> u64 {
        self.redundant.clear();
        let mut bytes = 0;
        for (i, &p) in self.q.iter().enumerate() {
            let old = pool.get(p);
            if old.flow() == new.flow() && is_pure_ack(old) && supersedes(new, old) {
                self.redundant.push(i);
                bytes += old.size as u64;
            }
        }
        bytes
    }

    /// Removes the ACKs at the positions in `redundant` (reporting them),
    /// and queues `new` in the place `place` says.
    fn replace(
        &mut self,
        new: PacketId,
        pool: &PacketPool,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let first = self.redundant[0];
        for &i in &self.redundant {
            let p = self.q[i];
            self.bytes -= pool.get(p).size as u64;
            dropped.push((p, DropCause::AckFiltered));
        }
        self.filtered += self.redundant.len() as u64;
        let mut i = 0;
        let mut next = self.redundant.iter().peekable();
        self.q.retain(|_| {
            let keep = next.next_if_eq(&&i).is_none();
            i += 1;
            keep
        });
        match self.place {
            Place::FirstRemoved => self.q.insert(first, new),
            Place::Tail => self.q.push_back(new),
        }
    }
}

/// A segment that only acknowledges: the ones ACK filtering considers.
fn is_pure_ack(p: &Packet) -> bool {
    let t = &p.tcp;
    t.len == 0 && t.has(flags::ACK) && !t.has(flags::SYN) && !t.has(flags::FIN)
}

/// Whether `new` (a pure ACK of the same flow) tells the sender
/// everything `old` does (the rules in the module's doc).
fn supersedes(new: &Packet, old: &Packet) -> bool {
    let (n, o) = (&new.tcp, &old.tcp);
    let echoes = flags::ECE | flags::CWR;
    let (old_sack, new_sack) = (o.sack(), n.sack());
    n.ack > o.ack
        && n.window >= o.window
        && o.flags & echoes & !n.flags == 0
        && (old.ecn != Ecn::Ce || new.ecn == Ecn::Ce)
        && dsack_block(o.ack, &old_sack).is_none()
        && old_sack
            .iter()
            .all(|b| b.end <= n.ack || new_sack.iter().any(|s| s.covers(*b)))
        && o.ext.flags & !n.ext.flags == 0
        && o.ext_ranges().iter().all(|r| n.ext_ranges().contains(r))
}

impl Queue for AckFilter {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        _now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let p = pool.get(pkt);
        let size = p.size;
        let freed = if is_pure_ack(p) && !self.q.is_empty() {
            self.find_redundant(p, pool)
        } else {
            self.redundant.clear();
            0
        };
        let left = self.q.len() - self.redundant.len();
        if !self.limit.admits(left, self.bytes - freed, size) {
            dropped.push((pkt, DropCause::Overflow));
            return;
        }
        if self.redundant.is_empty() {
            self.q.push_back(pkt);
        } else {
            self.replace(pkt, pool, dropped);
        }
        self.bytes += size as u64;
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        _now: SimTime,
        _dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let p = self.q.pop_front()?;
        self.bytes -= pool.get(p).size as u64;
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn acks_filtered(&self) -> u64 {
        self.filtered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{SeqRange, TcpHeader};

    /// A pure ACK of flow `endpoint` (node 1 to node 0) acknowledging
    /// `ack`, window field 1000, with `sack` blocks.
    fn ack(pool: &mut PacketPool, endpoint: u32, ack: u64, sack: &[(u64, u64)]) -> PacketId {
        let mut tcp = TcpHeader {
            ack,
            flags: flags::ACK,
            window: 1000,
            ..Default::default()
        };
        let blocks: Vec<SeqRange> = sack.iter().map(|&(s, e)| SeqRange::new(s, e)).collect();
        tcp.set_sack(&blocks);
        pool.alloc(Packet {
            src: 1,
            dst: 0,
            endpoint,
            size: tcp.wire_bytes(),
            tcp,
            ..Default::default()
        })
    }

    fn data(pool: &mut PacketPool, endpoint: u32, seq: u64) -> PacketId {
        let tcp = TcpHeader {
            seq,
            len: 1000,
            ack: 1,
            flags: flags::ACK,
            window: 1000,
            ..Default::default()
        };
        pool.alloc(Packet {
            src: 1,
            dst: 0,
            endpoint,
            size: tcp.wire_bytes(),
            tcp,
            ..Default::default()
        })
    }

    /// Offers `pkts` in turn to `q`; returns what was dropped.
    fn offer(
        q: &mut AckFilter,
        pool: &mut PacketPool,
        pkts: &[PacketId],
    ) -> Vec<(PacketId, DropCause)> {
        let mut dropped = vec![];
        for &p in pkts {
            q.enqueue(p, pool, SimTime::ZERO, &mut dropped);
        }
        dropped
    }

    fn drain(q: &mut AckFilter, pool: &mut PacketPool) -> Vec<PacketId> {
        std::iter::from_fn(|| q.dequeue(pool, SimTime::ZERO, &mut vec![])).collect()
    }

    fn queue() -> AckFilter {
        AckFilter::new(QueueLimit::Packets(10), Place::FirstRemoved)
    }

    #[test]
    fn settings_default_to_the_first_removed_place() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        read(serde_json::json!({"place": "tail"})).unwrap();
        assert_eq!(
            read(serde_json::json!({"place": "head"}))
                .unwrap_err()
                .field,
            "place"
        );
        assert_eq!(
            read(serde_json::json!({"keep": 2})).unwrap_err().field,
            "keep"
        );
        assert_eq!(AckFilterConfig::default().place, Place::FirstRemoved);
    }

    #[test]
    fn a_newer_ack_removes_older_ones_and_takes_the_first_place() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        let a1 = ack(&mut pool, 0, 1000, &[]);
        let other = ack(&mut pool, 7, 500, &[]);
        let a2 = ack(&mut pool, 0, 2000, &[]);
        let a3 = ack(&mut pool, 0, 3000, &[]);
        let dropped = offer(&mut q, &mut pool, &[a1, other, a2, a3]);
        assert_eq!(
            dropped,
            vec![(a1, DropCause::AckFiltered), (a2, DropCause::AckFiltered)]
        );
        assert_eq!(q.acks_filtered(), 2);
        assert_eq!(q.len_bytes(), 2 * 40);
        assert_eq!(drain(&mut q, &mut pool), vec![a3, other]);
    }

    #[test]
    fn with_place_tail_the_new_ack_joins_the_tail() {
        let mut pool = PacketPool::default();
        let mut q = AckFilter::new(QueueLimit::Packets(10), Place::Tail);
        let a1 = ack(&mut pool, 0, 1000, &[]);
        let other = ack(&mut pool, 7, 500, &[]);
        let a2 = ack(&mut pool, 0, 2000, &[]);
        offer(&mut q, &mut pool, &[a1, other, a2]);
        assert_eq!(drain(&mut q, &mut pool), vec![other, a2]);
    }

    #[test]
    fn duplicate_acks_and_other_flows_are_kept() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        let d1 = ack(&mut pool, 0, 1000, &[]);
        let d2 = ack(&mut pool, 0, 1000, &[]);
        let other = ack(&mut pool, 1, 500, &[]);
        let newer_other_flow = ack(&mut pool, 2, 5000, &[]);
        let pkts = [d1, d2, other, newer_other_flow];
        assert!(offer(&mut q, &mut pool, &pkts).is_empty());
        assert_eq!(drain(&mut q, &mut pool), pkts);
        assert_eq!(q.acks_filtered(), 0);
    }

    #[test]
    fn data_packets_are_never_removed_nor_remove() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        let d1 = data(&mut pool, 0, 1);
        let a1 = ack(&mut pool, 0, 1000, &[]);
        let d2 = data(&mut pool, 0, 1001);
        let a2 = ack(&mut pool, 0, 2000, &[]);
        let dropped = offer(&mut q, &mut pool, &[d1, a1, d2, a2]);
        assert_eq!(dropped, vec![(a1, DropCause::AckFiltered)]);
        assert_eq!(drain(&mut q, &mut pool), vec![d1, a2, d2]);
    }

    #[test]
    fn an_ack_with_sack_blocks_the_new_one_lacks_is_kept() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        // The new ACK covers [3000, 4000) by its cumulative ACK and
        // [5000, 6000) by a block, but not [7000, 8000).
        let covered = ack(&mut pool, 0, 1000, &[(3000, 4000), (5000, 6000)]);
        let uncovered = ack(&mut pool, 0, 1000, &[(7000, 8000)]);
        let new = ack(&mut pool, 0, 4000, &[(5000, 6000)]);
        let dropped = offer(&mut q, &mut pool, &[covered, uncovered, new]);
        assert_eq!(dropped, vec![(covered, DropCause::AckFiltered)]);
        assert_eq!(drain(&mut q, &mut pool), vec![new, uncovered]);
    }

    #[test]
    fn a_dsack_is_kept() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        let below = ack(&mut pool, 0, 2000, &[(500, 1000)]);
        let inside = ack(&mut pool, 0, 2000, &[(3000, 3500), (3000, 4000)]);
        let new = ack(&mut pool, 0, 5000, &[]);
        assert!(offer(&mut q, &mut pool, &[below, inside, new]).is_empty());
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn congestion_echoes_and_window_updates_the_new_ack_lacks_are_kept() {
        let mut pool = PacketPool::default();
        let mut q = queue();
        let ece = ack(&mut pool, 0, 1000, &[]);
        pool.get_mut(ece).tcp.flags |= flags::ECE;
        let ce = ack(&mut pool, 0, 1000, &[]);
        pool.get_mut(ce).ecn = Ecn::Ce;
        let wider = ack(&mut pool, 0, 1000, &[]);
        pool.get_mut(wider).tcp.window = 2000;
        let ext = ack(&mut pool, 0, 1000, &[]);
        pool.get_mut(ext).tcp.ext.flags = 1;
        let new = ack(&mut pool, 0, 2000, &[]);
        assert!(offer(&mut q, &mut pool, &[ece, ce, wider, ext, new]).is_empty());
        // A new ACK that echoes ECE too makes the first redundant.
        let new_ece = ack(&mut pool, 0, 3000, &[]);
        pool.get_mut(new_ece).tcp.flags |= flags::ECE;
        let dropped = offer(&mut q, &mut pool, &[new_ece]);
        assert_eq!(
            dropped,
            vec![(ece, DropCause::AckFiltered), (new, DropCause::AckFiltered)]
        );
    }

    #[test]
    fn a_full_queue_drops_at_the_tail_unless_the_ack_frees_room() {
        let mut pool = PacketPool::default();
        let mut q = AckFilter::new(QueueLimit::Packets(2), Place::FirstRemoved);
        let a1 = ack(&mut pool, 0, 1000, &[]);
        let other = ack(&mut pool, 1, 1000, &[]);
        let a2 = ack(&mut pool, 0, 2000, &[]);
        let third = ack(&mut pool, 2, 1000, &[]);
        let dropped = offer(&mut q, &mut pool, &[a1, other, a2, third]);
        assert_eq!(
            dropped,
            vec![(a1, DropCause::AckFiltered), (third, DropCause::Overflow)]
        );
        assert_eq!(q.acks_filtered(), 1);
        // In bytes: an ACK larger than the one it would remove, with no
        // room for the difference, is dropped and removes nothing.
        let mut q = AckFilter::new(QueueLimit::Bytes(80), Place::FirstRemoved);
        let small = ack(&mut pool, 0, 1000, &[]);
        let filler = ack(&mut pool, 1, 1000, &[]);
        let big = ack(&mut pool, 0, 2000, &[(3000, 4000)]);
        let dropped = offer(&mut q, &mut pool, &[small, filler, big]);
        assert_eq!(dropped, vec![(big, DropCause::Overflow)]);
        assert_eq!(drain(&mut q, &mut pool), vec![small, filler]);
    }
}
