//! The receiver side of TCP-Peach (Sec. III-A): "the receiver can recognize
//! the dummy segments and acknowledge them to the sender. The ACKs for
//! dummy segments are also marked ... and are carried by low-priority IP
//! segments." A dummy carries no new information, so the receiver answers
//! it and otherwise ignores it: reassembly, the cumulative ACK, the
//! delayed-ACK timer and duplicate-segment handling stay as they were.
//!
//! Whether a receiver has this support is a setting
//! (`tcp.peach.receiver_support`); one without it takes a dummy for the
//! duplicate data segment it looks like.

use crate::engine::SimTime;
use crate::net::packet::{Priority, TcpHeader};
use crate::protocols::header_bits::PEACH_DUMMY;
use crate::tcp::receiver_part::{ExtraAck, ReceiverPart};

pub struct PeachReceiver;

impl ReceiverPart for PeachReceiver {
    fn screen(&mut self, h: &TcpHeader, _now: SimTime) -> Option<ExtraAck> {
        h.ext.has(PEACH_DUMMY).then_some(ExtraAck {
            ext_flags: PEACH_DUMMY,
            priority: Priority::Low,
        })
    }
}
