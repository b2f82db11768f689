//! The example's receiver part: drop records found in arriving data are
//! echoed in the next ACK, flagged `EXAMPLE_DROP_ECHO`.

use crate::engine::SimTime;
use crate::net::packet::{SackBlocks, TcpHeader};
use crate::protocols::header_bits::EXAMPLE_DROP_ECHO;
use crate::tcp::receiver::Arrival;
use crate::tcp::receiver_part::ReceiverPart;

#[derive(Default)]
pub struct DropEcho {
    pending: SackBlocks,
}

impl ReceiverPart for DropEcho {
    fn on_arrival(&mut self, h: &TcpHeader, _a: &Arrival, _now: SimTime) {
        for r in h.ext_ranges() {
            if !self.pending.as_slice().contains(&r) {
                self.pending.push(r);
            }
        }
    }

    fn on_ack_out(&mut self, h: &mut TcpHeader) {
        if self.pending.is_empty() {
            return;
        }
        h.ext.flags |= EXAMPLE_DROP_ECHO;
        // What the option space cannot hold waits for the next ACK.
        let mut left = SackBlocks::default();
        for r in self.pending.as_slice() {
            if !h.push_ext_range(*r) {
                left.push(*r);
            }
        }
        self.pending = left;
    }
}
