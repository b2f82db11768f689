//! The receiver hook: logic a variant adds to the receiving side of an
//! endpoint. It sees every arriving data segment, may answer one itself
//! (TCP-Peach's dummy segments), learns what the machinery did with each
//! segment, and writes into the header extension of every ACK the endpoint
//! sends (a drop-negative bit, echoed drop records). A receiver without a
//! part behaves as standard TCP: header extensions are ignored, as a real
//! stack ignores header bits and options it does not know.

use super::receiver::Arrival;
use crate::engine::SimTime;
use crate::net::packet::{Priority, SeqRange, TcpHeader};

/// How to answer a segment the part consumes: with a pure ACK carrying
/// these header extension flags, sent at `priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtraAck {
    pub ext_flags: u8,
    pub priority: Priority,
}

pub trait ReceiverPart {
    /// A data segment arrived on an established connection (before the
    /// machinery looks at it). `Some(answer)`: the part consumes it; the
    /// endpoint sends `answer` and otherwise leaves the segment alone (no
    /// reassembly, no cumulative ACK, no delayed-ACK or duplicate logic).
    /// `None` (the default): the segment is processed as usual.
    fn screen(&mut self, _h: &TcpHeader, _now: SimTime) -> Option<ExtraAck> {
        None
    }

    /// The machinery processed the data of `h` with outcome `a` (in order,
    /// out of order, duplicate, filled a hole; bytes delivered).
    fn on_arrival(&mut self, _h: &TcpHeader, _a: &Arrival, _now: SimTime) {}

    /// Right after `on_arrival`: the reassembly state the segment left,
    /// `rcv_nxt` and the out-of-order blocks held above it (sorted,
    /// disjoint, none touching `rcv_nxt`); the holes are the gaps between
    /// them. For parts that classify holes (the RN-TCP receiver).
    fn on_reassembly(&mut self, _rcv_nxt: u64, _blocks: &[SeqRange]) {}

    /// An ACK (pure, or piggybacked on data) is about to leave: the part
    /// may write into its header extension (`h.ext`).
    fn on_ack_out(&mut self, _h: &mut TcpHeader) {}
}
