//! FQ-CoDel (RFC 8290): flow queueing by DRR++ with a CoDel queue
//! (`codel.rs`) per flow. The rules, each tested below under its name:
//! - Sec. 4.1.1 (classification): RFC 8290 hashes the 5-tuple into 1024
//!   buckets; satcp knows each packet's flow exactly (`Packet::flow()`),
//!   so every flow has its own queue and no two flows ever collide (with
//!   the few flows of a satcp scenario a 1024-bucket hash would almost
//!   never make them collide either);
//! - Sec. 4.1 (enqueue): a packet is stamped and queued in its flow; a
//!   flow that was in neither list joins the tail of the *new* list with
//!   a deficit of one quantum;
//! - Sec. 4.1 (overflow): when the total (the link's `queue_packets` or
//!   `queue_bytes`) is exceeded, packets are dropped from the head of the
//!   flow holding the most bytes, in a batch as Linux does (up to
//!   `drop_batch_packets`, stopping once half that flow's bytes are gone),
//!   so the flow that filled the buffer pays;
//! - Sec. 4.2 (scheduling): new flows go first, then old ones; a flow
//!   whose deficit is used up gets another quantum and moves to the tail
//!   of the old list; a flow that has a packet sends it through CoDel and
//!   its deficit falls by the packet's size;
//! - Sec. 4.2 (empty queues): a new flow found empty moves to the old
//!   list (so it cannot come back as new at once and jump the queue), an
//!   old flow found empty leaves the lists.
//!
//! CoDel's state is kept per flow across idle periods, as Linux keeps it
//! per bucket.

use super::codel::{CodelConfig, CodelFifo, CodelOutcome, CodelParams};
use super::drr::longest;
use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{RngStream, SimTime};
use crate::error::{bad, ScenarioError};
use crate::net::packet::{FlowKey, PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::{HashMap, VecDeque};

/// `queue = "fq_codel"` with `fq_codel = { quantum_bytes, target_s,
/// interval_s, ecn_marking, drop_batch_packets }`.
pub const KIND: QueueKind = QueueKind {
    name: "fq_codel",
    settings: super::read::<FqCodelConfig>,
    schema: super::schema_of::<FqCodelConfig>,
};

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct FqCodelConfig {
    /// Bytes a flow may send per round (RFC 8290 Sec. 5.1: 1514, an
    /// Ethernet MTU with its header).
    #[schemars(range(min = 1))]
    pub quantum_bytes: u32,
    /// CoDel's acceptable standing queue delay per flow, seconds
    /// (`codel.rs`).
    #[schemars(range(min = crate::net::queue::codel::MIN_TIME_S, max = crate::error::MAX_SIM_SECONDS))]
    pub target_s: f64,
    /// CoDel's interval per flow, seconds (`codel.rs`).
    #[schemars(range(min = crate::net::queue::codel::MIN_TIME_S, max = crate::error::MAX_SIM_SECONDS))]
    pub interval_s: f64,
    /// Mark ECN-capable packets CE instead of dropping them (Linux's
    /// fq_codel has this on by default; satcp's queues drop unless told,
    /// as RED's `ecn_marking`).
    pub ecn_marking: bool,
    /// Packets dropped at most from the fattest flow on one overflow
    /// (Linux's `drop_batch_size`, 64).
    #[schemars(range(min = 1))]
    pub drop_batch_packets: u32,
}

impl Default for FqCodelConfig {
    fn default() -> FqCodelConfig {
        let c = CodelConfig::default();
        FqCodelConfig {
            quantum_bytes: 1514,
            target_s: c.target_s,
            interval_s: c.interval_s,
            ecn_marking: c.ecn_marking,
            drop_batch_packets: 64,
        }
    }
}

impl FqCodelConfig {
    fn codel(&self) -> CodelConfig {
        CodelConfig {
            target_s: self.target_s,
            interval_s: self.interval_s,
            ecn_marking: self.ecn_marking,
        }
    }
}

impl QueueSettings for FqCodelConfig {
    fn validate(&self) -> Result<(), ScenarioError> {
        if self.quantum_bytes == 0 {
            return Err(bad("quantum_bytes", 0, "must be at least 1"));
        }
        if self.drop_batch_packets == 0 {
            return Err(bad("drop_batch_packets", 0, "must be at least 1"));
        }
        self.codel().check()
    }

    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(FqCodel::new(*self, limit))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum List {
    New,
    Old,
}

#[derive(Default)]
struct Flow {
    fifo: CodelFifo,
    deficit: i64,
    /// The list the flow is in (None: neither, it is idle).
    list: Option<List>,
}

pub struct FqCodel {
    params: CodelParams,
    quantum: i64,
    drop_batch: u32,
    limit: QueueLimit,
    /// Flow queues in order of first arrival; `index` finds them (only
    /// looked up, never iterated: runs stay deterministic).
    flows: Vec<Flow>,
    index: HashMap<FlowKey, usize>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    pkts: usize,
    bytes: u64,
    ce_marks: u64,
}

impl FqCodel {
    pub fn new(c: FqCodelConfig, limit: QueueLimit) -> FqCodel {
        FqCodel {
            params: c.codel().params(),
            quantum: c.quantum_bytes as i64,
            drop_batch: c.drop_batch_packets,
            limit,
            flows: Vec::new(),
            index: HashMap::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            pkts: 0,
            bytes: 0,
            ce_marks: 0,
        }
    }

    /// Sec. 4.1's overflow: a batch from the head of the fattest flow.
    fn drop_from_fattest(&mut self, pool: &PacketPool, dropped: &mut Vec<(PacketId, DropCause)>) {
        let Some(f) = longest(self.flows.iter().map(|f| f.fifo.bytes())) else {
            return;
        };
        let fifo = &mut self.flows[f].fifo;
        let threshold = fifo.bytes() / 2;
        let (mut n, mut gone) = (0, 0);
        while n < self.drop_batch && gone < threshold {
            let Some(p) = fifo.pop_head(pool) else { break };
            let size = pool.get(p).size as u64;
            gone += size;
            n += 1;
            dropped.push((p, DropCause::Overflow));
        }
        if n == 0 {
            // A flow of one packet: the threshold is 0, drop it anyway.
            if let Some(p) = fifo.pop_head(pool) {
                gone += pool.get(p).size as u64;
                n += 1;
                dropped.push((p, DropCause::Overflow));
            }
        }
        self.pkts -= n as usize;
        self.bytes -= gone;
    }
}

impl Queue for FqCodel {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let (key, size) = {
            let p = pool.get(pkt);
            (p.flow(), p.size)
        };
        let n = self.flows.len();
        let f = *self.index.entry(key).or_insert(n);
        if f == n {
            self.flows.push(Flow::default());
        }
        let flow = &mut self.flows[f];
        flow.fifo.push(pkt, size, now);
        if flow.list.is_none() {
            flow.list = Some(List::New);
            flow.deficit = self.quantum;
            self.new_flows.push_back(f);
        }
        self.pkts += 1;
        self.bytes += size as u64;
        while self.limit.exceeded(self.pkts, self.bytes) {
            self.drop_from_fattest(pool, dropped);
        }
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        loop {
            let (f, from_new) = match self.new_flows.front() {
                Some(&f) => (f, true),
                None => (*self.old_flows.front()?, false),
            };
            let flow = &mut self.flows[f];
            if flow.deficit <= 0 {
                // Used up: another quantum, and to the back of the old list.
                flow.deficit += self.quantum;
                flow.list = Some(List::Old);
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(f);
                continue;
            }
            let mut out = CodelOutcome::default();
            let before = flow.fifo.len();
            let p = flow
                .fifo
                .dequeue(pool, now, &self.params, dropped, &mut out);
            self.ce_marks += out.marked as u64;
            let taken = before - flow.fifo.len();
            self.pkts -= taken;
            self.bytes -= out.dropped_bytes;
            match p {
                Some(p) => {
                    let size = pool.get(p).size;
                    self.bytes -= size as u64;
                    flow.deficit -= size as i64;
                    return Some(p);
                }
                None => {
                    // Empty: a new flow goes to the old list (if any flow
                    // is there, else it leaves), an old one leaves.
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            flow.list = Some(List::Old);
                            self.old_flows.push_back(f);
                        } else {
                            flow.list = None;
                        }
                    } else {
                        self.old_flows.pop_front();
                        flow.list = None;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::net::queue::codel::tests::ms;
    use crate::net::queue::test_packet;

    fn pkt(pool: &mut PacketPool, endpoint: u32, size: u32) -> PacketId {
        test_packet(pool, endpoint, size, Ecn::NotEct)
    }

    fn fq(quantum: u32, limit: QueueLimit) -> FqCodel {
        FqCodel::new(
            FqCodelConfig {
                quantum_bytes: quantum,
                ..FqCodelConfig::default()
            },
            limit,
        )
    }

    fn offer(q: &mut FqCodel, pool: &mut PacketPool, e: u32, size: u32, t: SimTime) -> usize {
        let mut dropped = vec![];
        let p = pkt(pool, e, size);
        q.enqueue(p, pool, t, &mut dropped);
        dropped.len()
    }

    fn next(q: &mut FqCodel, pool: &mut PacketPool, t: SimTime) -> Option<u32> {
        q.dequeue(pool, t, &mut vec![])
            .map(|p| pool.get(p).endpoint)
    }

    #[test]
    fn settings_default_to_the_rfcs_and_are_checked() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        let c = FqCodelConfig::default();
        assert_eq!(
            (c.quantum_bytes, c.target_s, c.interval_s),
            (1514, 0.005, 0.1)
        );
        assert_eq!(c.drop_batch_packets, 64);
        for (v, field) in [
            (serde_json::json!({"quantum_bytes": 0}), "quantum_bytes"),
            (
                serde_json::json!({"drop_batch_packets": 0}),
                "drop_batch_packets",
            ),
            (serde_json::json!({"target_s": 0}), "target_s"),
            (serde_json::json!({"flows": 1024}), "flows"),
        ] {
            assert_eq!(read(v.clone()).unwrap_err().field, field, "{v}");
        }
    }

    #[test]
    fn sec_4_1_1_each_flow_is_classified_to_its_own_queue() {
        let mut pool = PacketPool::default();
        let mut q = fq(1514, QueueLimit::Unlimited);
        for e in [0, 2, 0, 4, 2] {
            offer(&mut q, &mut pool, e, 1000, SimTime::ZERO);
        }
        assert_eq!(q.flows.len(), 3);
        assert_eq!(q.flows[0].fifo.len(), 2);
        assert_eq!(q.len_packets(), 5);
    }

    #[test]
    fn sec_4_1_a_flow_joins_the_new_list_with_one_quantum() {
        let mut pool = PacketPool::default();
        let mut q = fq(1514, QueueLimit::Unlimited);
        offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        assert_eq!(q.new_flows, VecDeque::from([0]));
        assert_eq!(q.flows[0].deficit, 1514);
        assert!(q.old_flows.is_empty());
    }

    #[test]
    fn sec_4_1_overflow_drops_a_batch_from_the_fattest_flow() {
        let mut pool = PacketPool::default();
        let mut q = fq(1514, QueueLimit::Packets(10));
        for _ in 0..8 {
            offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        }
        for _ in 0..2 {
            offer(&mut q, &mut pool, 2, 1000, SimTime::ZERO);
        }
        // The eleventh: half of flow 0's 8000 bytes go (4 packets).
        assert_eq!(offer(&mut q, &mut pool, 2, 1000, SimTime::ZERO), 4);
        assert_eq!((q.flows[0].fifo.len(), q.flows[1].fifo.len()), (4, 3));
        assert_eq!(q.len_packets(), 7);
        // The batch is capped.
        let mut q = FqCodel::new(
            FqCodelConfig {
                drop_batch_packets: 2,
                ..FqCodelConfig::default()
            },
            QueueLimit::Packets(10),
        );
        for _ in 0..11 {
            offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        }
        assert_eq!(q.len_packets(), 9);
    }

    #[test]
    fn sec_4_2_new_flows_go_before_old_ones() {
        let mut pool = PacketPool::default();
        let mut q = fq(1000, QueueLimit::Unlimited);
        for _ in 0..3 {
            offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        }
        // Flow 0 sends one, uses its quantum, and becomes old.
        assert_eq!(next(&mut q, &mut pool, SimTime::ZERO), Some(0));
        // A sparse flow arrives: it is new and goes first.
        offer(&mut q, &mut pool, 2, 200, SimTime::ZERO);
        assert_eq!(next(&mut q, &mut pool, SimTime::ZERO), Some(2));
        assert_eq!(next(&mut q, &mut pool, SimTime::ZERO), Some(0));
    }

    #[test]
    fn sec_4_2_a_used_up_deficit_earns_a_quantum_and_the_old_list_tail() {
        let mut pool = PacketPool::default();
        let mut q = fq(1500, QueueLimit::Unlimited);
        for _ in 0..4 {
            offer(&mut q, &mut pool, 0, 500, SimTime::ZERO);
        }
        for _ in 0..4 {
            offer(&mut q, &mut pool, 2, 1500, SimTime::ZERO);
        }
        let order: Vec<u32> =
            std::iter::from_fn(|| next(&mut q, &mut pool, SimTime::ZERO)).collect();
        // Flow 0 sends 3 x 500 per quantum, flow 2 one 1500.
        assert_eq!(order, vec![0, 0, 0, 2, 0, 2, 2, 2]);
    }

    #[test]
    fn sec_4_2_an_empty_new_flow_moves_to_the_old_list_an_empty_old_flow_leaves() {
        let mut pool = PacketPool::default();
        let mut q = fq(1514, QueueLimit::Unlimited);
        // Flow 0 is old (has used a quantum); flow 2 new with one packet.
        for _ in 0..3 {
            offer(&mut q, &mut pool, 0, 1000, SimTime::ZERO);
        }
        next(&mut q, &mut pool, SimTime::ZERO);
        next(&mut q, &mut pool, SimTime::ZERO);
        offer(&mut q, &mut pool, 2, 100, SimTime::ZERO);
        assert_eq!(next(&mut q, &mut pool, SimTime::ZERO), Some(2));
        assert_eq!(q.flows[1].list, Some(List::New));
        // Next round: flow 2 is found empty in the new list: to old.
        assert_eq!(next(&mut q, &mut pool, SimTime::ZERO), Some(0));
        assert_eq!(q.flows[1].list, Some(List::Old));
        // A packet of flow 2 now does not make it new again.
        offer(&mut q, &mut pool, 2, 100, SimTime::ZERO);
        assert_eq!(q.new_flows, VecDeque::new());
        // Everything drained: old flows found empty leave the lists.
        while next(&mut q, &mut pool, SimTime::ZERO).is_some() {}
        assert!(q.old_flows.is_empty() && q.new_flows.is_empty());
        assert_eq!(q.flows.iter().filter(|f| f.list.is_some()).count(), 0);
    }

    #[test]
    fn sec_4_2_codel_runs_per_flow() {
        // Flow 0 builds a standing queue and is dropped; flow 2, sparse,
        // is never touched.
        let mut pool = PacketPool::default();
        let mut q = fq(1514, QueueLimit::Unlimited);
        let mut dropped = vec![];
        for _ in 0..100 {
            let p = pkt(&mut pool, 0, 1000);
            q.enqueue(p, &mut pool, SimTime::ZERO, &mut dropped);
        }
        let mut flow2_sent = 0;
        for i in 0..60u64 {
            let t = ms(10 + 5 * i);
            let p = pkt(&mut pool, 2, 100);
            q.enqueue(p, &mut pool, t, &mut dropped);
            while let Some(p) = q.dequeue(&mut pool, t, &mut dropped) {
                if pool.get(p).endpoint == 2 {
                    flow2_sent += 1;
                    break;
                }
            }
        }
        assert!(!dropped.is_empty());
        assert!(dropped
            .iter()
            .all(|&(p, c)| pool.get(p).endpoint == 0 && c == DropCause::EarlyDrop));
        assert_eq!(flow2_sent, 60);
        let held: usize = q.flows.iter().map(|f| f.fifo.len()).sum();
        assert_eq!(held, q.len_packets());
    }
}
