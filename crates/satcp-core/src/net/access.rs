//! A satellite access scheme on a link direction: a DVB-S2 forward
//! carrier (`dvbs2`) or a DVB-RCS2 return carrier (`dvbrcs2`). The link
//! holds one as an `Option<Box<Access>>`, so that a plain link pays one
//! test of that field, whichever scheme exists; the two answer the link's
//! few questions here.

use super::dvbrcs2::carrier::ReturnCarrier;
use super::dvbs2::carrier::Carrier;
use super::packet::{NodeId, PacketId};
use crate::engine::SimTime;

// The link boxes the whole enum: one allocation, whichever variant.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Access {
    Dvbs2(Carrier),
    Dvbrcs2(ReturnCarrier),
}

impl Access {
    /// Packets go to the scheme's own queues (`enqueue`), not to the
    /// direction's: a DVB-S2 carrier shared by terminals, every return
    /// carrier.
    pub fn owns_queues(&self) -> bool {
        match self {
            Access::Dvbs2(c) => c.is_shared(),
            Access::Dvbrcs2(_) => true,
        }
    }

    /// A packet from `src` to `dst` arrives at `now`; false if its queue
    /// is full.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        p: PacketId,
        size: u32,
        src: NodeId,
        dst: NodeId,
    ) -> bool {
        match self {
            Access::Dvbs2(c) => c.enqueue(p, size, dst),
            Access::Dvbrcs2(c) => c.enqueue(now, p, size, src),
        }
    }

    /// Packets in the scheme's own queues.
    pub fn queued(&self) -> usize {
        match self {
            Access::Dvbs2(c) => c.queued(),
            Access::Dvbrcs2(c) => c.queued(),
        }
    }

    pub fn busy_ns(&self) -> u64 {
        match self {
            Access::Dvbs2(c) => c.busy_ns(),
            Access::Dvbrcs2(c) => c.busy_ns(),
        }
    }

    /// Whether the packet last released was lost (a BBFrame not decoded,
    /// a collision).
    pub fn released_lost(&self) -> bool {
        match self {
            Access::Dvbs2(c) => c.released_lost(),
            Access::Dvbrcs2(c) => c.released_lost(),
        }
    }

    /// The next packet to leave and when; `dequeue` takes from the
    /// direction's queue (a DVB-S2 carrier with one terminal).
    pub fn next(
        &mut self,
        now: SimTime,
        dequeue: impl FnMut() -> Option<(PacketId, u32)>,
    ) -> Option<(PacketId, u32, SimTime)> {
        match self {
            Access::Dvbs2(c) => c.next(now, dequeue),
            Access::Dvbrcs2(c) => c.next(now),
        }
    }

    /// When the link should ask for a packet again though none left (a
    /// return carrier whose packets wait for the next superframe).
    pub fn take_wake(&mut self) -> Option<SimTime> {
        match self {
            Access::Dvbs2(_) => None,
            Access::Dvbrcs2(c) => c.take_wake(),
        }
    }
}
