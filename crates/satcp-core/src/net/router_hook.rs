//! Router and gateway extension point. Protocols that need help from the
//! network (EPDN drop notification, TCP-Peach's priority handling beyond the
//! queue itself) attach a hook to a node; the core calls it when the node
//! forwards or drops a packet. A node without hooks forwards unchanged.

use super::packet::Packet;

/// Why a node discarded a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// Output queue overflow or active queue management.
    Congestion,
    /// Corrupted on the incoming link (bit errors).
    Corruption,
    /// Random loss on a link (fixed loss probability).
    Loss,
}

pub trait RouterHook {
    /// Called when the node puts `pkt` into an output queue (the packet may be
    /// rewritten, e.g. to carry a drop notification).
    fn on_forward(&mut self, pkt: &mut Packet);
    /// Called when the node discards `pkt`.
    fn on_drop(&mut self, pkt: &Packet, cause: DropCause);
}
