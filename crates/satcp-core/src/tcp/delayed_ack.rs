//! When the receiver acknowledges: the receiver-side hook. The standard
//! policy is RFC 1122 4.2.3.2 / RFC 5681 4.2 delayed ACK: acknowledge at
//! least every `max_segments` full-size segments and within `max_delay`;
//! acknowledge at once data that is out of order, duplicate, fills a hole,
//! or carries a FIN. With delayed ACK disabled every segment is acknowledged.
//! With `quick_acks`, Linux's quick-ACK mode (`tcp/quick_ack.rs`)
//! acknowledges every segment for a while at the start and after a
//! retransmission or an idle RTO.
//!
//! The delay is fixed: `max_ack_delay` from the first unacknowledged
//! arrival. Linux's delayed-ACK timeout (ato) starts at TCP_ATO_MIN
//! (40 ms, the `linux` profile's `max_ack_delay`) and adapts to the gaps
//! between arrivals (`tcp_event_data_recv`): it stays at 40 ms while
//! segments arrive less than 20 ms apart (any bulk transfer above about
//! 600 kb/s) and grows towards twice the gap for gaps of 20-40 ms, at most
//! the RTT (`tcp_send_delayed_ack`). satcp does not model the adaptation.

use super::quick_ack::QuickAck;
use super::receiver::Arrival;
use super::rtt_estimator::RttEstimator;
use crate::engine::{Duration, SimTime};

/// Receiver hook deciding when to send an ACK.
pub trait AckPolicy {
    /// A data (or FIN) segment arrived; returns true to ACK immediately,
    /// false to wait for `deadline()` or a later segment. `rtt`: the
    /// receiving endpoint's RTT estimator (its RTO).
    fn on_arrival(
        &mut self,
        a: &Arrival,
        full_size: bool,
        now: SimTime,
        rtt: &RttEstimator,
    ) -> bool;
    /// When a held-back ACK must go out.
    fn deadline(&self) -> Option<SimTime>;
    /// Any segment carrying the ACK left: nothing is held back any more.
    fn on_ack_sent(&mut self);
}

pub struct DelayedAck {
    max_delay: Duration,
    max_segments: u32,
    /// Full-size segments received and not yet acknowledged.
    unacked_full: u32,
    deadline: Option<SimTime>,
    /// Data arrived since the last ACK left.
    owed: bool,
    quick: QuickAck,
}

impl DelayedAck {
    pub fn new(max_delay: Duration, max_segments: u32) -> DelayedAck {
        DelayedAck {
            max_delay,
            max_segments: max_segments.max(1),
            unacked_full: 0,
            deadline: None,
            owed: false,
            quick: QuickAck::new(0, 0, 1),
        }
    }

    /// The same policy with Linux's quick-ACK mode.
    pub fn with_quick_acks(mut self, quick: QuickAck) -> DelayedAck {
        self.quick = quick;
        self
    }

    /// Every segment is acknowledged at once.
    pub fn disabled() -> DelayedAck {
        DelayedAck::new(Duration::ZERO, 1)
    }
}

impl AckPolicy for DelayedAck {
    fn on_arrival(
        &mut self,
        a: &Arrival,
        full_size: bool,
        now: SimTime,
        rtt: &RttEstimator,
    ) -> bool {
        self.owed = true;
        if a.delivered > 0 {
            self.quick.on_data(now, || rtt.rto());
        } else if a.duplicate() && !a.out_of_order() {
            self.quick.on_old_data();
        }
        let at_once =
            Arrival::OUT_OF_ORDER | Arrival::DUPLICATE | Arrival::FILLED_HOLE | Arrival::FIN_NOW;
        if a.any(at_once) || self.max_delay == Duration::ZERO || self.quick.active() {
            return true;
        }
        if full_size {
            self.unacked_full += 1;
            if self.unacked_full >= self.max_segments {
                return true;
            }
        }
        if self.deadline.is_none() {
            self.deadline = Some(now + self.max_delay);
        }
        false
    }

    fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    fn on_ack_sent(&mut self) {
        self.quick.on_ack_sent(self.owed);
        self.owed = false;
        self.unacked_full = 0;
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpConfig;

    fn rtt() -> RttEstimator {
        RttEstimator::new(&TcpConfig::default())
    }

    fn in_order() -> Arrival {
        Arrival::new(1460, 1460)
    }

    #[test]
    fn every_second_full_segment() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let t = SimTime::ZERO;
        assert!(!d.on_arrival(&in_order(), true, t, &rtt()));
        assert_eq!(d.deadline(), Some(t + Duration::from_millis(200)));
        assert!(d.on_arrival(&in_order(), true, t, &rtt()));
        d.on_ack_sent();
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn small_segment_waits_for_timer() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let small = Arrival::new(300, 300);
        assert!(!d.on_arrival(&small, false, SimTime::ZERO, &rtt()));
        assert!(!d.on_arrival(&small, false, SimTime::ZERO, &rtt()));
        assert_eq!(
            d.deadline(),
            Some(SimTime::ZERO + Duration::from_millis(200))
        );
    }

    #[test]
    fn out_of_order_and_hole_fill_are_immediate() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let ooo = in_order().with(Arrival::OUT_OF_ORDER);
        assert!(d.on_arrival(&ooo, true, SimTime::ZERO, &rtt()));
        let fill = in_order().with(Arrival::FILLED_HOLE);
        assert!(d.on_arrival(&fill, true, SimTime::ZERO, &rtt()));
    }

    #[test]
    fn disabled_acks_everything() {
        let mut d = DelayedAck::disabled();
        assert!(d.on_arrival(&in_order(), true, SimTime::ZERO, &rtt()));
    }

    /// Linux at the start of a connection: the first 16 segments are
    /// acknowledged one by one (quick ACKs), then every second one.
    #[test]
    fn quick_acks_at_the_start_then_every_second_segment() {
        let mut d = DelayedAck::new(Duration::from_millis(40), 2)
            .with_quick_acks(QuickAck::new(16, 6_291_456, 1448));
        let r = rtt();
        for i in 0..16 {
            let t = SimTime(i);
            assert!(d.on_arrival(&in_order(), true, t, &r), "segment {i}");
            d.on_ack_sent();
        }
        assert!(!d.on_arrival(&in_order(), true, SimTime(16), &r));
        assert!(d.on_arrival(&in_order(), true, SimTime(17), &r));
    }

    /// A retransmission below rcv_nxt (Arrival::DUPLICATE, not out of
    /// order) puts the receiver back into quick-ACK mode.
    #[test]
    fn a_retransmission_brings_quick_acks_back() {
        let mut d = DelayedAck::new(Duration::from_millis(40), 2)
            .with_quick_acks(QuickAck::new(2, 65_535, 1448));
        let r = rtt();
        for i in 0..2 {
            assert!(d.on_arrival(&in_order(), true, SimTime(i), &r));
            d.on_ack_sent();
        }
        assert!(!d.on_arrival(&in_order(), true, SimTime(2), &r));
        let old = Arrival::new(1460, 0).with(Arrival::DUPLICATE);
        assert!(d.on_arrival(&old, true, SimTime(3), &r));
        d.on_ack_sent();
        assert!(d.on_arrival(&in_order(), true, SimTime(4), &r));
    }
}
