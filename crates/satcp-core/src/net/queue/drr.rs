//! Deficit round robin (Shreedhar & Varghese, "Efficient Fair Queuing
//! using Deficit Round Robin", SIGCOMM 1995): per-flow fair queueing of
//! the kind a Cisco router's fair-queue does, at O(1) work per packet.
//! The rules, each tested below under its name:
//! - classification: one FIFO per flow. Routers hash the 5-tuple into a
//!   fixed number of buckets; satcp knows each packet's flow exactly
//!   (`Packet::flow()`: source, destination, endpoint standing for the
//!   ports), so flows never share a queue here;
//! - a flow whose queue becomes non-empty joins the tail of the active
//!   list with a deficit of 0;
//! - when the round robin visits a flow it adds `quantum` to its deficit
//!   and sends head packets while the head fits in the deficit (taking
//!   its size off); then it moves to the next flow, the flow keeping the
//!   deficit left for its next visit;
//! - a flow whose queue empties leaves the active list and loses its
//!   deficit (so an idle flow saves no credit);
//! - buffers: an arrival to a flow holding `flow_limit_packets` is
//!   dropped (the per-flow limit); when the total (the link's
//!   `queue_packets` or `queue_bytes`) is exceeded, packets are dropped
//!   from the head of the longest flow (most bytes) until it is not, as
//!   fq_codel does and as DRR's paper suggests (Sec. 3.3, "drop from the
//!   longest queue"), so a flow that fills the buffer pays for it rather
//!   than the flows that arrive next.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{RngStream, SimTime};
use crate::error::{bad, ScenarioError};
use crate::net::packet::{FlowKey, PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::{HashMap, VecDeque};

/// `queue = "drr"` with `drr = { quantum_bytes, flow_limit_packets }`.
pub const KIND: QueueKind = QueueKind {
    name: "drr",
    settings: super::read::<DrrConfig>,
    schema: super::schema_of::<DrrConfig>,
};

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct DrrConfig {
    /// Bytes a flow may send per round: one MTU by default, the smallest
    /// quantum that keeps DRR O(1) (the paper's Lemma 1 needs quantum >=
    /// the largest packet).
    #[schemars(range(min = 1))]
    pub quantum_bytes: u32,
    /// Packets one flow may hold (None: only the total limit applies).
    #[schemars(range(min = 1))]
    pub flow_limit_packets: Option<u64>,
}

impl Default for DrrConfig {
    fn default() -> DrrConfig {
        DrrConfig {
            quantum_bytes: 1500,
            flow_limit_packets: None,
        }
    }
}

impl QueueSettings for DrrConfig {
    fn validate(&self) -> Result<(), ScenarioError> {
        if self.quantum_bytes == 0 {
            return Err(bad("quantum_bytes", 0, "must be at least 1"));
        }
        if self.flow_limit_packets == Some(0) {
            return Err(bad("flow_limit_packets", 0, "must be at least 1"));
        }
        Ok(())
    }

    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(Drr::new(*self, limit))
    }
}

#[derive(Default)]
struct Flow {
    q: VecDeque<PacketId>,
    bytes: u64,
    deficit: u64,
}

pub struct Drr {
    quantum: u64,
    flow_limit: usize,
    limit: QueueLimit,
    /// Flow queues, in order of first arrival; `index` finds them. The
    /// map is only looked up, never iterated, so runs stay deterministic.
    flows: Vec<Flow>,
    index: HashMap<FlowKey, usize>,
    /// The active list; its head is the flow being visited.
    active: VecDeque<usize>,
    /// Whether the head flow has had its quantum for this visit.
    head_credited: bool,
    pkts: usize,
    bytes: u64,
}

impl Drr {
    pub fn new(c: DrrConfig, limit: QueueLimit) -> Drr {
        Drr {
            quantum: c.quantum_bytes as u64,
            flow_limit: c.flow_limit_packets.map_or(usize::MAX, |n| n as usize),
            limit,
            flows: Vec::new(),
            index: HashMap::new(),
            active: VecDeque::new(),
            head_credited: false,
            pkts: 0,
            bytes: 0,
        }
    }

    fn flow_of(&mut self, key: FlowKey) -> usize {
        let n = self.flows.len();
        *self.index.entry(key).or_insert(n)
    }

    /// Drops the head of the flow holding the most bytes (the first such
    /// flow on a tie).
    fn drop_from_longest(&mut self, pool: &PacketPool, dropped: &mut Vec<(PacketId, DropCause)>) {
        let Some(f) = longest(self.flows.iter().map(|f| f.bytes)) else {
            return;
        };
        let flow = &mut self.flows[f];
        let p = flow.q.pop_front().expect("the longest flow holds a packet");
        let size = pool.get(p).size as u64;
        flow.bytes -= size;
        self.pkts -= 1;
        self.bytes -= size;
        dropped.push((p, DropCause::Overflow));
        if flow.q.is_empty() {
            self.leave_active(f);
        }
    }

    fn leave_active(&mut self, f: usize) {
        self.flows[f].deficit = 0;
        if self.active.front() == Some(&f) {
            self.head_credited = false;
        }
        self.active.retain(|&a| a != f);
    }
}

/// The index of the largest of `sizes` (the first on a tie), if any is
/// above 0.
pub(crate) fn longest(sizes: impl Iterator<Item = u64>) -> Option<usize> {
    let mut best: Option<(usize, u64)> = None;
    for (i, b) in sizes.enumerate() {
        if b > 0 && best.is_none_or(|(_, m)| b > m) {
            best = Some((i, b));
        }
    }
    best.map(|(i, _)| i)
}

impl Queue for Drr {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        _now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let (key, size) = {
            let p = pool.get(pkt);
            (p.flow(), p.size as u64)
        };
        let f = self.flow_of(key);
        if f == self.flows.len() {
            self.flows.push(Flow::default());
        }
        let flow = &mut self.flows[f];
        if flow.q.len() >= self.flow_limit {
            dropped.push((pkt, DropCause::Overflow));
            return;
        }
        if flow.q.is_empty() {
            flow.deficit = 0;
            self.active.push_back(f);
        }
        flow.q.push_back(pkt);
        flow.bytes += size;
        self.pkts += 1;
        self.bytes += size;
        while self.limit.exceeded(self.pkts, self.bytes) {
            self.drop_from_longest(pool, dropped);
        }
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        _now: SimTime,
        _dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        loop {
            let &f = self.active.front()?;
            let quantum = self.quantum;
            let flow = &mut self.flows[f];
            if !self.head_credited {
                flow.deficit += quantum;
                self.head_credited = true;
            }
            let head = *flow.q.front().expect("an active flow holds a packet");
            let size = pool.get(head).size as u64;
            if size <= flow.deficit {
                flow.q.pop_front();
                flow.deficit -= size;
                flow.bytes -= size;
                self.pkts -= 1;
                self.bytes -= size;
                if flow.q.is_empty() {
                    flow.deficit = 0;
                    self.active.pop_front();
                    self.head_credited = false;
                }
                return Some(head);
            }
            // The head does not fit: the visit ends, the deficit stays.
            self.active.rotate_left(1);
            self.head_credited = false;
        }
    }

    fn len_packets(&self) -> usize {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::net::queue::test_packet;

    fn pkt(pool: &mut PacketPool, endpoint: u32, size: u32) -> PacketId {
        test_packet(pool, endpoint, size, Ecn::NotEct)
    }

    fn drr(quantum: u32, flow_limit: Option<u64>, limit: QueueLimit) -> Drr {
        Drr::new(
            DrrConfig {
                quantum_bytes: quantum,
                flow_limit_packets: flow_limit,
            },
            limit,
        )
    }

    fn offer(q: &mut Drr, pool: &mut PacketPool, endpoint: u32, size: u32) -> Vec<PacketId> {
        let mut dropped = vec![];
        let p = pkt(pool, endpoint, size);
        q.enqueue(p, pool, SimTime::ZERO, &mut dropped);
        dropped.into_iter().map(|(d, _)| d).collect()
    }

    /// The endpoints of the packets in the order they leave.
    fn drain(q: &mut Drr, pool: &mut PacketPool) -> Vec<u32> {
        let mut out = vec![];
        while let Some(p) = q.dequeue(pool, SimTime::ZERO, &mut vec![]) {
            out.push(pool.get(p).endpoint);
        }
        out
    }

    #[test]
    fn settings_default_to_one_mtu_and_are_checked() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        assert_eq!(DrrConfig::default().quantum_bytes, 1500);
        read(serde_json::json!({"quantum_bytes": 3000, "flow_limit_packets": 20})).unwrap();
        for (v, field) in [
            (serde_json::json!({"quantum_bytes": 0}), "quantum_bytes"),
            (
                serde_json::json!({"flow_limit_packets": 0}),
                "flow_limit_packets",
            ),
            (serde_json::json!({"quantum": 1}), "quantum"),
        ] {
            assert_eq!(read(v.clone()).unwrap_err().field, field, "{v}");
        }
    }

    #[test]
    fn classification_gives_each_flow_its_own_queue() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, None, QueueLimit::Unlimited);
        for _ in 0..3 {
            offer(&mut q, &mut pool, 0, 1000);
        }
        offer(&mut q, &mut pool, 2, 1000);
        assert_eq!(q.flows.len(), 2);
        assert_eq!(q.flows[0].q.len(), 3);
        assert_eq!(q.len_packets(), 4);
    }

    #[test]
    fn round_robin_serves_equal_packets_alternately() {
        let mut pool = PacketPool::default();
        let mut q = drr(1000, None, QueueLimit::Unlimited);
        for _ in 0..3 {
            offer(&mut q, &mut pool, 0, 1000);
        }
        for _ in 0..3 {
            offer(&mut q, &mut pool, 2, 1000);
        }
        assert_eq!(drain(&mut q, &mut pool), vec![0, 2, 0, 2, 0, 2]);
    }

    #[test]
    fn a_visit_adds_the_quantum_and_sends_while_the_head_fits() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, None, QueueLimit::Unlimited);
        // Flow 0: 500-byte packets (three per 1500-byte visit); flow 2:
        // 1500-byte packets (one per visit).
        for _ in 0..6 {
            offer(&mut q, &mut pool, 0, 500);
        }
        for _ in 0..2 {
            offer(&mut q, &mut pool, 2, 1500);
        }
        assert_eq!(drain(&mut q, &mut pool), vec![0, 0, 0, 2, 0, 0, 0, 2]);
    }

    #[test]
    fn the_deficit_left_carries_to_the_next_visit() {
        let mut pool = PacketPool::default();
        // Quantum 1000, packets of 1500: flow 0 sends one every other
        // visit (1000 < 1500, then 2000 -> 500 left, then 1500 -> 0).
        let mut q = drr(1000, None, QueueLimit::Unlimited);
        for _ in 0..2 {
            offer(&mut q, &mut pool, 0, 1500);
        }
        for _ in 0..4 {
            offer(&mut q, &mut pool, 2, 500);
        }
        // Visit 1: flow 0 deficit 1000 < 1500, passes; flow 2 sends two
        // (1000); visit 2: flow 0 sends one (2000 -> 500), flow 2 two.
        // Visit 3: flow 0 has 1500, sends its second.
        assert_eq!(drain(&mut q, &mut pool), vec![2, 2, 0, 2, 2, 0]);
    }

    #[test]
    fn an_emptied_flow_leaves_the_active_list_and_loses_its_deficit() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, None, QueueLimit::Unlimited);
        offer(&mut q, &mut pool, 0, 500);
        q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]).unwrap();
        assert!(q.active.is_empty());
        assert_eq!(q.flows[0].deficit, 0);
        // It joins again at the tail, behind a flow already waiting.
        offer(&mut q, &mut pool, 2, 500);
        offer(&mut q, &mut pool, 0, 500);
        assert_eq!(q.active, VecDeque::from([1, 0]));
        assert_eq!(drain(&mut q, &mut pool), vec![2, 0]);
    }

    #[test]
    fn a_flow_at_its_limit_has_its_arrival_dropped() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, Some(2), QueueLimit::Unlimited);
        assert!(offer(&mut q, &mut pool, 0, 1000).is_empty());
        assert!(offer(&mut q, &mut pool, 0, 1000).is_empty());
        assert_eq!(offer(&mut q, &mut pool, 0, 1000).len(), 1);
        // Another flow still gets in.
        assert!(offer(&mut q, &mut pool, 2, 1000).is_empty());
    }

    #[test]
    fn a_full_buffer_drops_from_the_head_of_the_longest_flow() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, None, QueueLimit::Packets(4));
        let first = pkt(&mut pool, 0, 1000);
        q.enqueue(first, &mut pool, SimTime::ZERO, &mut vec![]);
        for _ in 0..2 {
            offer(&mut q, &mut pool, 0, 1000);
        }
        offer(&mut q, &mut pool, 2, 1000);
        // The fifth packet, of the short flow, is taken; flow 0 pays.
        assert_eq!(offer(&mut q, &mut pool, 2, 1000), vec![first]);
        assert_eq!((q.flows[0].q.len(), q.flows[1].q.len()), (2, 2));
        // Bytes decide the longest: flow 2 has fewer but larger packets.
        let mut q = drr(1500, None, QueueLimit::Bytes(4000));
        for _ in 0..3 {
            offer(&mut q, &mut pool, 0, 500);
        }
        offer(&mut q, &mut pool, 2, 1500);
        let d = offer(&mut q, &mut pool, 2, 1500);
        assert_eq!(d.len(), 1);
        assert_eq!(pool.get(d[0]).endpoint, 2);
    }

    #[test]
    fn counts_follow_every_path() {
        let mut pool = PacketPool::default();
        let mut q = drr(1500, Some(3), QueueLimit::Packets(5));
        for i in 0..40u32 {
            let d = offer(&mut q, &mut pool, (i % 3) * 2, 400 + 100 * (i % 7));
            for p in d {
                pool.release(p);
            }
            if i % 4 == 0 {
                q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]);
            }
            let sum: usize = q.flows.iter().map(|f| f.q.len()).sum();
            let bytes: u64 = q.flows.iter().map(|f| f.bytes).sum();
            assert_eq!((sum, bytes), (q.len_packets(), q.len_bytes()));
            assert!(q.len_packets() <= 5);
        }
    }
}
