//! Router functions: the extension point for protocols that need help from
//! the network (EPDN gateways, drop notification). A node runs any number
//! of them, built from the scenario's `[[routers]]` entries; each sees the
//! packets the node forwards (not those it originates or delivers), what
//! its output queue decided about them, packets it discards, and the clock.
//! A function may rewrite a packet's header extension before it is queued
//! and keep per-flow state keyed by `Packet::flow()`.

use super::packet::{LinkId, Packet};
use crate::engine::SimTime;

/// Why a packet was discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The output queue was full (or RED's forced drop above max_th).
    Overflow,
    /// RED dropped it early (probabilistically, below the forced region).
    EarlyDrop,
    /// Bit errors on the incoming link: the node found the checksum wrong.
    Corruption,
    /// Random loss on a link (fixed loss probability, or a listed drop).
    Loss,
    /// An ACK filter (`queue = "ack_filter"`) removed a queued pure ACK
    /// that a newer one of its flow made redundant: no congestion.
    AckFiltered,
}

impl DropCause {
    pub fn name(&self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::EarlyDrop => "early_drop",
            DropCause::Corruption => "corruption",
            DropCause::Loss => "loss",
            DropCause::AckFiltered => "ack_filtered",
        }
    }
    /// A congestion drop (a queue's decision), as opposed to a link's.
    pub fn is_congestion(&self) -> bool {
        matches!(self, DropCause::Overflow | DropCause::EarlyDrop)
    }
}

/// What an output queue did with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDecision {
    Enqueued,
    Dropped(DropCause),
}

pub trait RouterFunction {
    fn name(&self) -> &'static str;

    /// A transit packet arrived from `from` (already routed to `to`), before
    /// it is offered to the output queue. The function may rewrite its header
    /// extension (the simulation then recomputes its size).
    fn on_forward(&mut self, _pkt: &mut Packet, _from: LinkId, _to: LinkId, _now: SimTime) {}

    /// The output queue's decision about a packet this node forwards. A
    /// packet that the arrival of `pkt` pushes out of the queue is reported
    /// as dropped too, with its own header.
    fn on_queue(&mut self, _pkt: &Packet, _to: LinkId, _d: QueueDecision, _now: SimTime) {}

    /// The node discarded a packet that arrived from link `from` before
    /// routing it (a corrupted packet, when the link lets corrupted packets
    /// reach the next node).
    fn on_discard(&mut self, _pkt: &Packet, _from: LinkId, _cause: DropCause, _now: SimTime) {}
}
