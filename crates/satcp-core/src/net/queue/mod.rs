//! Queue disciplines of a link's output buffer. The packet being serialized
//! has already left the queue, so a limit of K packets means K waiting.

pub mod ack_filter;
pub mod codel;
pub mod config;
pub mod drop_tail;
pub mod drr;
pub mod fq_codel;
pub mod priority;
pub mod red;

use crate::engine::{RngStream, SimTime};
use crate::error::ScenarioError;
use crate::net::packet::{PacketId, PacketPool};
use crate::net::router::DropCause;
use std::sync::Arc;

pub use config::QueueConfig;
pub use drop_tail::DropTail;
pub use priority::StrictPriority;
pub use red::{Red, RedConfig};

/// The queue disciplines a scenario may name (`queue = "<name>"`), the
/// first being the default. Each kind's settings table has its name
/// (`red = { ... }`).
pub const KINDS: &[QueueKind] = &[
    drop_tail::KIND,
    priority::KIND,
    red::KIND,
    drr::KIND,
    codel::KIND,
    fq_codel::KIND,
    ack_filter::KIND,
];

/// A queue discipline in the registry.
pub struct QueueKind {
    pub name: &'static str,
    /// Reads and checks the kind's settings table (null when not given);
    /// errors name paths relative to the table.
    pub settings: fn(&serde_json::Value) -> Result<Arc<dyn QueueSettings>, ScenarioError>,
    /// The JSON Schema of the kind's settings table, derived from the type
    /// `settings` reads (`scenario/schema.rs`).
    pub schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
}

/// A queue kind's checked settings: they make the queue of a link
/// direction.
pub trait QueueSettings: std::fmt::Debug + Send + Sync {
    /// Checks the settings together (ranges, order); paths relative to
    /// the table.
    fn validate(&self) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// `rate_bps` is the link's rate; `rng` the queue's own stream
    /// (`queue/<link>/<dir>`), so that its draws leave the link's error
    /// model alone.
    fn build(&self, limit: QueueLimit, rate_bps: u64, rng: RngStream) -> Box<dyn Queue>;
}

/// The schema of a kind's settings type `C`.
pub fn schema_of<C: schemars::JsonSchema>(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<C>()
}

/// A kind's settings table read as `C` and checked: what `QueueKind`'s
/// `settings` is for most kinds.
pub fn read<C>(v: &serde_json::Value) -> Result<Arc<dyn QueueSettings>, ScenarioError>
where
    C: QueueSettings + serde::de::DeserializeOwned + Default + 'static,
{
    let c: C = crate::error::typed(v)?;
    c.validate()?;
    Ok(Arc::new(c))
}

/// How much a queue may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(usize),
    Bytes(u64),
    Unlimited,
}

impl QueueLimit {
    /// Whether `pkts`/`bytes` already queued leave room for one more packet of `size`.
    pub fn admits(&self, pkts: usize, bytes: u64, size: u32) -> bool {
        match *self {
            QueueLimit::Packets(k) => pkts < k,
            QueueLimit::Bytes(b) => bytes + size as u64 <= b,
            QueueLimit::Unlimited => true,
        }
    }

    /// Whether `pkts`/`bytes` queued are more than the limit allows: the
    /// per-flow queues take an arrival first and then push out packets
    /// of the longest flow until this is false.
    pub fn exceeded(&self, pkts: usize, bytes: u64) -> bool {
        match *self {
            QueueLimit::Packets(k) => pkts > k,
            QueueLimit::Bytes(b) => bytes > b,
            QueueLimit::Unlimited => false,
        }
    }
}

/// A router or host output queue. Implementations may mark packets (ECN), so
/// they get the packet pool mutably.
pub trait Queue {
    /// Offers a packet. Every packet the queue discards because of this
    /// arrival (the arrival itself, or queued ones it pushes out) is appended
    /// to `dropped` with the cause (overflow, or RED's early or forced
    /// drop); the caller accounts for them and frees them.
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    );
    /// The next packet to send. A queue that drops at the head (CoDel)
    /// appends what it drops on the way to `dropped`, as `enqueue` does;
    /// the others leave it alone.
    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Packets marked CE (RFC 3168) so far; queues that never mark keep 0.
    fn ce_marks(&self) -> u64 {
        0
    }
    /// Queued ACKs removed as redundant (cause `AckFiltered`) so far;
    /// queues that never filter keep 0.
    fn acks_filtered(&self) -> u64 {
        0
    }
    /// Whether a packet of `size` bytes offered now would be taken and be
    /// the next `dequeue`d, with nothing else changing: then a link whose
    /// transmitter is idle sends it at once without queueing it
    /// (`Link::offer_to_idle`). True only for a queue that is empty, takes
    /// the packet and keeps no state that the arrival would change (a
    /// drop-tail queue); the default says no, and the packet takes the
    /// usual way (RED, for one, updates its average queue on every
    /// arrival and may drop at an empty queue).
    fn passes_straight(&self, _size: u32) -> bool {
        false
    }
}

/// A packet of `size` bytes to `endpoint` (node 0 to node 1, high
/// priority), as the queues' tests offer them.
#[cfg(test)]
pub(crate) fn test_packet(
    pool: &mut PacketPool,
    endpoint: crate::net::packet::EndpointId,
    size: u32,
    ecn: crate::net::packet::Ecn,
) -> PacketId {
    pool.alloc(crate::net::packet::Packet {
        dst: 1,
        endpoint,
        size,
        priority: crate::net::packet::Priority::High,
        ecn,
        ..Default::default()
    })
}
