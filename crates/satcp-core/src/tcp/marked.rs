//! The receive-side hook for segments that carry header marks
//! (`TcpHeader::marks`), e.g. TCP-Peach dummy segments. A receiver that
//! knows a mark answers such a segment on its own terms; one that does not
//! (the default) sees an ordinary segment, as a real stack would, since
//! the marks sit in header bits it ignores.

use crate::net::packet::{Priority, TcpHeader};

/// How to answer a marked segment the policy recognises: with a pure ACK
/// carrying `marks`, sent at `priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkedReply {
    pub marks: u8,
    pub priority: Priority,
}

/// Consulted by the endpoint for every arriving segment with data and
/// nonzero marks, once the connection is established.
pub trait MarkedSegmentPolicy {
    /// `Some(reply)`: the segment is answered with `reply` and otherwise
    /// left alone: no reassembly, no cumulative ACK, no delayed-ACK or
    /// duplicate-segment logic. `None`: it is processed as an ordinary
    /// segment.
    fn on_marked_segment(&mut self, _h: &TcpHeader) -> Option<MarkedReply> {
        None
    }
}

/// A receiver that knows no marks.
pub struct IgnoreMarks;

impl MarkedSegmentPolicy for IgnoreMarks {}
