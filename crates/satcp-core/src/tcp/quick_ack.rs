//! Linux's quick-ACK mode on the receiver (`tcp.quick_acks`): for a while
//! every data segment is acknowledged at once, not every second one, so
//! that a sender in slow start (or restarting) is not slowed by delayed
//! ACKs. After net/ipv4/tcp_input.c (Linux 6.x):
//!
//! - `tcp_incr_quickack`: the budget is rcv_wnd / (2 x rcv_mss) ACKs (2 if
//!   that is 0), at most TCP_MAX_QUICKACKS (16, the setting); it raises
//!   the count left, never lowers it;
//! - `tcp_event_data_recv`: the first in-order data segment of a
//!   connection, and one arriving more than an RTO after the previous
//!   in-order one ("Apparently sender failed to restart window"), grant
//!   the budget;
//! - `tcp_data_queue`: a segment entirely below rcv_nxt (a retransmission,
//!   "Force an immediate ack") enters quick-ACK mode with the budget
//!   (`tcp_enter_quickack_mode`);
//! - `tcp_dec_quickack_mode`: each ACK sent while data was waiting for one
//!   uses one.
//!
//! What satcp takes: rcv_wnd is the window satcp advertises, the whole
//! receive buffer (`rcv_buffer`), and rcv_mss the sender's MSS, both known
//! when the connection is set up. Linux's rcv_wnd at the first segment is
//! its initial window (about 64 kB since Linux 4.20); with the `linux`
//! profile both give more than 16, so the cap decides. Not modelled: the
//! quick ACK that Linux's receive-window growth grants (`tcp_grow_window`
//! sets the count to at least 1 whenever rcv_ssthresh grows, so a Linux
//! receiver acknowledges most segments while its autotuned window opens:
//! satcp advertises the whole buffer from the start, docs/profiles.md),
//! the two quick ACKs after a CE mark, and interactive (ping-pong) mode,
//! which a bulk receiver never enters.

use crate::engine::{Duration, SimTime};

#[derive(Clone, Debug)]
pub struct QuickAck {
    /// ACKs granted at a time; 0: quick-ACK mode off.
    budget: u32,
    /// ACKs left to send at once (Linux `icsk_ack.quick`).
    left: u32,
    /// When the last in-order data segment arrived (`lrcvtime`).
    last_data: Option<SimTime>,
}

impl QuickAck {
    /// Quick-ACK mode granting at most `max` ACKs (TCP_MAX_QUICKACKS) to a
    /// receiver advertising `rcv_wnd` bytes to a sender of `mss`-byte
    /// segments; `max` = 0 switches it off.
    pub fn new(max: u32, rcv_wnd: u64, mss: u32) -> QuickAck {
        let per_window = rcv_wnd / (2 * mss.max(1) as u64);
        let quick = if per_window == 0 { 2 } else { per_window };
        QuickAck {
            budget: quick.min(max as u64) as u32,
            left: 0,
            last_data: None,
        }
    }

    fn grant(&mut self) {
        self.left = self.left.max(self.budget);
    }

    /// An in-order data segment arrived at `now`; `rto` is the receiving
    /// endpoint's retransmission timeout (asked only after a gap).
    pub fn on_data(&mut self, now: SimTime, rto: impl FnOnce() -> Duration) {
        if self.budget == 0 {
            return;
        }
        match self.last_data {
            None => self.grant(),
            Some(t) if now.since(t) > rto() => self.grant(),
            Some(_) => {}
        }
        self.last_data = Some(now);
    }

    /// A segment with nothing new below rcv_nxt arrived (a retransmission).
    pub fn on_old_data(&mut self) {
        self.grant();
    }

    /// Whether the next ACK goes at once.
    pub fn active(&self) -> bool {
        self.left > 0
    }

    /// An ACK left; `owed`: data was waiting for it.
    pub fn on_ack_sent(&mut self, owed: bool) {
        if owed {
            self.left = self.left.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTO: Duration = Duration(1_000_000_000);

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// tcp_incr_quickack: min(rcv_wnd / (2 rcv_mss), TCP_MAX_QUICKACKS),
    /// 2 when the window holds less than two segments.
    #[test]
    fn the_budget_is_half_the_window_in_segments_at_most_the_cap() {
        assert_eq!(QuickAck::new(16, 6_291_456, 1448).budget, 16);
        assert_eq!(QuickAck::new(16, 65_535, 1448).budget, 16);
        assert_eq!(QuickAck::new(16, 14_480, 1448).budget, 5);
        assert_eq!(QuickAck::new(16, 2_000, 1448).budget, 2);
        assert_eq!(QuickAck::new(0, 65_535, 1448).budget, 0);
    }

    /// tcp_event_data_recv / tcp_dec_quickack_mode: the first data segment
    /// grants the budget, each ACK owed uses one.
    #[test]
    fn the_first_data_grants_quick_acks_each_ack_uses_one() {
        let mut q = QuickAck::new(3, 65_535, 1448);
        assert!(!q.active());
        for i in 0..3 {
            q.on_data(t(i), || RTO);
            assert!(q.active());
            q.on_ack_sent(true);
        }
        q.on_data(t(3), || RTO);
        assert!(!q.active(), "budget spent");
        // An ACK that acknowledges no new data (a pure window update, our
        // own data segment) uses none.
        q.on_old_data();
        q.on_ack_sent(false);
        assert!(q.active());
    }

    /// A gap of more than an RTO between in-order segments grants the
    /// budget again; a shorter one does not.
    #[test]
    fn data_after_an_idle_rto_grants_quick_acks_again() {
        let mut q = QuickAck::new(2, 65_535, 1448);
        q.on_data(t(0), || RTO);
        q.on_ack_sent(true);
        q.on_ack_sent(true);
        q.on_data(t(900), || RTO);
        assert!(!q.active());
        q.on_data(t(1901), || RTO);
        assert!(q.active());
    }

    /// tcp_data_queue: a retransmission below rcv_nxt enters quick-ACK
    /// mode; it raises the count left, never lowers it.
    #[test]
    fn a_retransmission_enters_quick_ack_mode() {
        let mut q = QuickAck::new(16, 65_535, 1448);
        q.on_data(t(0), || RTO);
        for _ in 0..16 {
            q.on_ack_sent(true);
        }
        assert!(!q.active());
        q.on_old_data();
        for _ in 0..16 {
            assert!(q.active());
            q.on_ack_sent(true);
        }
        assert!(!q.active());
    }
}
