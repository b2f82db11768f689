//! Counters of one TCP endpoint, as sender and as receiver: the
//! endpoint's own state, kept by the machinery as it sends and receives;
//! the results read them (`metrics/endpoint_record.rs`).

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FlowStats {
    // --- as sender ---
    pub segments_sent: u64,
    /// Data segments sent, retransmissions included.
    pub data_segments_sent: u64,
    pub payload_bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Loss-recovery episodes started by duplicate ACKs / SACK.
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub pure_acks_sent: u64,
    pub extra_segments_sent: u64,
    /// Data segments (new or resent) the variant sent at low priority
    /// (`CongestionControl::data_priority`, e.g. TCP Fast Start's burst).
    pub low_priority_data_segments_sent: u64,
    pub dupacks_received: u64,
    /// Of those, claimed by the variant as answers to its extra segments
    /// (TCP-Peach dummies at a receiver without Peach support).
    pub dupacks_claimed: u64,
    /// Marked ACKs (answers to our marked extra segments) received.
    pub marked_acks_received: u64,
    pub rtt_samples: u64,
    /// Window reductions in answer to ECN echoes (ECE), at most one per
    /// window (RFC 3168 Sec. 6.1.2).
    pub ecn_reductions: u64,
    /// ACKs whose first SACK block was a DSACK (RFC 2883).
    pub dsacks_received: u64,
    /// Of those, reports of a segment retransmitted since the last window
    /// reduction: retransmissions shown unnecessary.
    pub spurious_retransmissions: u64,
    /// Window reductions undone because all their retransmissions were
    /// spurious (only variants whose recovery asks for it, e.g. DSACK-R).
    pub undos: u64,
    // --- as receiver ---
    pub segments_received: u64,
    /// Payload bytes received, duplicates and retransmissions included
    /// (TCP throughput of thesis Sec. 7.4.4).
    pub payload_bytes_received: u64,
    /// Original bytes delivered in order to the application (goodput).
    pub bytes_delivered: u64,
    pub duplicate_segments_received: u64,
    pub out_of_order_segments: u64,
    /// Segments of an ECN connection that arrived CE-marked.
    pub ce_marks_received: u64,
    /// Marked ACKs sent in answer to marked segments (TCP-Peach dummies).
    pub marked_acks_sent: u64,
}
