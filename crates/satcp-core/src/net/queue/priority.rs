//! Strict two-class priority, as TCP-Peach's routers need: low-priority
//! packets leave only when no high-priority packet waits. When the shared
//! buffer is full, a high-priority arrival pushes out queued low-priority
//! packets (newest first) if `push_out` is set, so probes never displace
//! real data; a low-priority arrival to a full buffer is dropped.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{RngStream, SimTime};
use crate::net::packet::{PacketId, PacketPool, Priority};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = "priority"` with `priority = { push_out }`.
pub const KIND: QueueKind = QueueKind {
    name: "priority",
    settings: super::read::<PriorityConfig>,
    schema: super::schema_of::<PriorityConfig>,
};

#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct PriorityConfig {
    /// A high-priority arrival to a full buffer pushes out queued
    /// low-priority packets, newest first.
    pub push_out: bool,
}

impl Default for PriorityConfig {
    fn default() -> PriorityConfig {
        PriorityConfig { push_out: true }
    }
}

impl QueueSettings for PriorityConfig {
    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(StrictPriority::new(limit, self.push_out))
    }
}

pub struct StrictPriority {
    limit: QueueLimit,
    high: VecDeque<PacketId>,
    low: VecDeque<PacketId>,
    bytes: u64,
    push_out: bool,
}

impl StrictPriority {
    pub fn new(limit: QueueLimit, push_out: bool) -> StrictPriority {
        StrictPriority {
            limit,
            high: VecDeque::new(),
            low: VecDeque::new(),
            bytes: 0,
            push_out,
        }
    }

    fn admits(&self, size: u32) -> bool {
        self.limit
            .admits(self.high.len() + self.low.len(), self.bytes, size)
    }

    /// Bytes that would be free if every low-priority packet left.
    fn admits_without_low(&self, size: u32, pool: &PacketPool) -> bool {
        let low_bytes: u64 = self.low.iter().map(|&p| pool.get(p).size as u64).sum();
        self.limit
            .admits(self.high.len(), self.bytes - low_bytes, size)
    }
}

impl Queue for StrictPriority {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        _now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let (size, prio) = {
            let p = pool.get(pkt);
            (p.size, p.priority)
        };
        if !self.admits(size) {
            let can_evict =
                prio == Priority::High && self.push_out && self.admits_without_low(size, pool);
            if !can_evict {
                dropped.push((pkt, DropCause::Overflow));
                return;
            }
            while !self.admits(size) {
                let v = self.low.pop_back().expect("checked that evicting low fits");
                self.bytes -= pool.get(v).size as u64;
                dropped.push((v, DropCause::Overflow));
            }
        }
        self.bytes += size as u64;
        match prio {
            Priority::High => self.high.push_back(pkt),
            Priority::Low => self.low.push_back(pkt),
        }
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        _now: SimTime,
        _dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let p = self.high.pop_front().or_else(|| self.low.pop_front())?;
        self.bytes -= pool.get(p).size as u64;
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.high.len() + self.low.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, Packet, TcpHeader};

    fn pkt(pool: &mut PacketPool, prio: Priority, seq: u64) -> PacketId {
        pool.alloc(Packet {
            src: 0,
            dst: 1,
            endpoint: 0,
            size: 1000,
            priority: prio,
            ecn: Ecn::NotEct,
            tcp: TcpHeader {
                seq,
                ..Default::default()
            },
            created: SimTime::ZERO,
        })
    }

    #[test]
    fn settings_push_out_by_default() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        read(serde_json::json!({"push_out": false})).unwrap();
        assert_eq!(
            read(serde_json::json!({"push_out": 1})).unwrap_err().field,
            "push_out"
        );
        assert_eq!(
            read(serde_json::json!({"pushout": true}))
                .unwrap_err()
                .field,
            "pushout"
        );
        assert!(PriorityConfig::default().push_out);
    }

    #[test]
    fn high_goes_first_and_pushes_out_low() {
        let mut pool = PacketPool::default();
        let mut q = StrictPriority::new(QueueLimit::Packets(2), true);
        let mut dropped = vec![];
        let l1 = pkt(&mut pool, Priority::Low, 1);
        let l2 = pkt(&mut pool, Priority::Low, 2);
        let h = pkt(&mut pool, Priority::High, 3);
        q.enqueue(l1, &mut pool, SimTime::ZERO, &mut dropped);
        q.enqueue(l2, &mut pool, SimTime::ZERO, &mut dropped);
        q.enqueue(h, &mut pool, SimTime::ZERO, &mut dropped);
        assert_eq!(dropped, vec![(l2, DropCause::Overflow)]);
        assert_eq!(q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]), Some(h));
        assert_eq!(q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]), Some(l1));
        assert_eq!(q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]), None);
    }

    #[test]
    fn low_arrival_to_full_buffer_is_dropped() {
        let mut pool = PacketPool::default();
        let mut q = StrictPriority::new(QueueLimit::Packets(1), true);
        let mut dropped = vec![];
        let h = pkt(&mut pool, Priority::High, 1);
        let l = pkt(&mut pool, Priority::Low, 2);
        q.enqueue(h, &mut pool, SimTime::ZERO, &mut dropped);
        q.enqueue(l, &mut pool, SimTime::ZERO, &mut dropped);
        assert_eq!(dropped, vec![(l, DropCause::Overflow)]);
        assert_eq!(q.len_packets(), 1);
    }
}
