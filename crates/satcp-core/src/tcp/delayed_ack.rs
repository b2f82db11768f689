//! When the receiver acknowledges: the receiver-side hook. The standard
//! policy is RFC 1122 4.2.3.2 / RFC 5681 4.2 delayed ACK: acknowledge at
//! least every `max_segments` full-size segments and within `max_delay`;
//! acknowledge at once data that is out of order, duplicate, fills a hole,
//! or carries a FIN. With delayed ACK disabled every segment is acknowledged.

use super::receiver::Arrival;
use crate::engine::{Duration, SimTime};

/// Receiver hook deciding when to send an ACK.
pub trait AckPolicy {
    /// A data (or FIN) segment arrived; returns true to ACK immediately,
    /// false to wait for `deadline()` or a later segment.
    fn on_arrival(&mut self, a: &Arrival, full_size: bool, now: SimTime) -> bool;
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
}

impl DelayedAck {
    pub fn new(max_delay: Duration, max_segments: u32) -> DelayedAck {
        DelayedAck {
            max_delay,
            max_segments: max_segments.max(1),
            unacked_full: 0,
            deadline: None,
        }
    }

    /// Every segment is acknowledged at once.
    pub fn disabled() -> DelayedAck {
        DelayedAck::new(Duration::ZERO, 1)
    }
}

impl AckPolicy for DelayedAck {
    fn on_arrival(&mut self, a: &Arrival, full_size: bool, now: SimTime) -> bool {
        let at_once =
            Arrival::OUT_OF_ORDER | Arrival::DUPLICATE | Arrival::FILLED_HOLE | Arrival::FIN_NOW;
        if a.any(at_once) || self.max_delay == Duration::ZERO {
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
        self.unacked_full = 0;
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_order() -> Arrival {
        Arrival::new(1460, 1460)
    }

    #[test]
    fn every_second_full_segment() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let t = SimTime::ZERO;
        assert!(!d.on_arrival(&in_order(), true, t));
        assert_eq!(d.deadline(), Some(t + Duration::from_millis(200)));
        assert!(d.on_arrival(&in_order(), true, t));
        d.on_ack_sent();
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn small_segment_waits_for_timer() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let small = Arrival::new(300, 300);
        assert!(!d.on_arrival(&small, false, SimTime::ZERO));
        assert!(!d.on_arrival(&small, false, SimTime::ZERO));
        assert_eq!(
            d.deadline(),
            Some(SimTime::ZERO + Duration::from_millis(200))
        );
    }

    #[test]
    fn out_of_order_and_hole_fill_are_immediate() {
        let mut d = DelayedAck::new(Duration::from_millis(200), 2);
        let ooo = in_order().with(Arrival::OUT_OF_ORDER);
        assert!(d.on_arrival(&ooo, true, SimTime::ZERO));
        let fill = in_order().with(Arrival::FILLED_HOLE);
        assert!(d.on_arrival(&fill, true, SimTime::ZERO));
    }

    #[test]
    fn disabled_acks_everything() {
        let mut d = DelayedAck::disabled();
        assert!(d.on_arrival(&in_order(), true, SimTime::ZERO));
    }
}
