//! Queue disciplines of a link's output buffer. The packet being serialized
//! has already left the queue, so a limit of K packets means K waiting.

pub mod drop_tail;
pub mod priority;
pub mod red;

use crate::engine::SimTime;
use crate::net::packet::{PacketId, PacketPool};
use crate::net::router::DropCause;

pub use drop_tail::DropTail;
pub use priority::StrictPriority;
pub use red::{Red, RedParams};

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
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Packets marked CE (RFC 3168) so far; queues that never mark keep 0.
    fn ce_marks(&self) -> u64 {
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
