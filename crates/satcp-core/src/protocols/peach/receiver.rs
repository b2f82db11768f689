//! The receiver side of TCP-Peach (Sec. III-A): "the receiver can recognize
//! the dummy segments and acknowledge them to the sender. The ACKs for
//! dummy segments are also marked ... and are carried by low-priority IP
//! segments." A dummy carries no new information, so the receiver answers
//! it and otherwise ignores it: reassembly, the cumulative ACK, the
//! delayed-ACK timer and duplicate-segment handling stay as they were.
//!
//! Whether a receiver has this support is a TCP setting
//! (`tcp.peach.receiver_support`), independent of the variant; one
//! without it takes a dummy for the duplicate data segment it looks like.

use crate::net::packet::{marks, Priority, TcpHeader};
use crate::tcp::marked::{MarkedReply, MarkedSegmentPolicy};

pub struct PeachReceiver;

impl MarkedSegmentPolicy for PeachReceiver {
    fn on_marked_segment(&mut self, h: &TcpHeader) -> Option<MarkedReply> {
        (h.marks & marks::DUMMY != 0).then_some(MarkedReply {
            marks: marks::DUMMY,
            priority: Priority::Low,
        })
    }
}
