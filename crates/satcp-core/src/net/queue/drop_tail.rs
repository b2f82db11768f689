//! First-in first-out with tail drop.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{RngStream, SimTime};
use crate::net::packet::{PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = "drop_tail"` (the default); its table `drop_tail = {}` has no
/// settings.
pub const KIND: QueueKind = QueueKind {
    name: "drop_tail",
    settings: super::read::<DropTailConfig>,
    schema: super::schema_of::<DropTailConfig>,
};

#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a table")]
pub struct DropTailConfig {}

impl QueueSettings for DropTailConfig {
    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(DropTail::new(limit))
    }
}

pub struct DropTail {
    limit: QueueLimit,
    q: VecDeque<PacketId>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> DropTail {
        DropTail {
            limit,
            q: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl Queue for DropTail {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        _now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let size = pool.get(pkt).size;
        if !self.limit.admits(self.q.len(), self.bytes, size) {
            dropped.push((pkt, DropCause::Overflow));
            return;
        }
        self.bytes += size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        _now: SimTime,
        _dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let p = self.q.pop_front()?;
        self.bytes -= pool.get(p).size as u64;
        // The next one leaves a transmission time from now.
        if let Some(&next) = self.q.front() {
            pool.prefetch(next);
        }
        Some(p)
    }

    fn passes_straight(&self, size: u32) -> bool {
        self.q.is_empty() && self.limit.admits(0, 0, size)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}
