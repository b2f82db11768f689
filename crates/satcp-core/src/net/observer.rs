//! The packet observer: a view of every packet event on every link
//! direction, for metrics, traces and capture files (pcap). A simulation
//! without observers pays one branch per event for it.

use super::packet::{EndpointId, LinkId, Packet};
use super::router::DropCause;
use crate::engine::SimTime;

/// What happened to a packet on link direction `link`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEventKind {
    /// Accepted into the link's output queue.
    Enqueue,
    /// Discarded: by the queue (overflow, early drop), on the wire (loss),
    /// or for corruption.
    Drop(DropCause),
    /// Its first bit left the transmitter.
    Transmit,
    /// It reached the far end intact (a duplicate arrives twice).
    Arrive,
}

#[derive(Clone, Copy, Debug)]
pub struct PacketEvent<'a> {
    pub time: SimTime,
    pub link: LinkId,
    pub kind: PacketEventKind,
    pub packet: &'a Packet,
    /// The endpoints the packet goes between as a capture shows them
    /// (sender, receiver): a proxy's leg appears as the end host it speaks
    /// for.
    pub ends: (EndpointId, EndpointId),
}

pub trait PacketObserver {
    fn on_packet(&mut self, ev: &PacketEvent);
}
