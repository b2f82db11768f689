//! Delivery-rate estimation as BBR defines it (Cheng, Cardwell, Yeganeh,
//! Jacobson, "Delivery Rate Estimation", draft-cheng-iccrg-delivery-rate-
//! estimation, Sec. 3): every segment remembers, when it is (re)sent, how
//! much had been delivered by then and when; when it is delivered
//! (cumulatively acknowledged or SACKed) the rate over the interval since
//! is a sample. The interval is the longer of the send and the ACK
//! intervals, so that neither ACK compression nor a burst inflates it.

use crate::engine::{Duration, SimTime};

/// What a segment records at each transmission.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxSnapshot {
    /// Connection's `delivered` when the segment was sent.
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    /// The sender was application-limited when it was sent.
    pub app_limited: bool,
}

/// One rate sample, given to the sender's modules with the ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval`.
    pub delivered: u64,
    pub interval: Duration,
    /// The newest segment delivered was sent while the sender had no data
    /// to fill the window: the rate may understate the path.
    pub is_app_limited: bool,
    /// The connection's `delivered` when that segment was sent, and now:
    /// BBR counts round trips with them (a round ends when data sent after
    /// its start is delivered).
    pub prior_delivered: u64,
    pub total_delivered: u64,
}

impl RateSample {
    /// Bytes per second. Computed when asked (BBR asks; the other
    /// variants do not, and the division would cost every ACK).
    pub fn delivery_rate(&self) -> f64 {
        self.delivered as f64 / self.interval.as_secs_f64()
    }
}

/// The connection's side of the estimator.
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    /// Payload and sequence bytes delivered so far (SACKed or cumulatively
    /// acknowledged, each once).
    pub delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Nonzero while app-limited: the `delivered` value that ends it.
    app_limited_until: u64,
    // The sample being built for the current ACK.
    prior_delivered: u64,
    prior_time: Option<SimTime>,
    send_elapsed: Duration,
    sample_app_limited: bool,
}

impl DeliveryRate {
    /// A segment is (re)sent; `pipe_empty`: nothing else is in flight.
    pub fn snapshot(&mut self, now: SimTime, pipe_empty: bool) -> TxSnapshot {
        if pipe_empty {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// A segment of `len` bytes last sent at `sent` with snapshot `tx` was
    /// delivered now.
    pub fn on_delivered(&mut self, len: u64, sent: SimTime, tx: &TxSnapshot, now: SimTime) {
        self.delivered += len;
        self.delivered_time = now;
        if self.prior_time.is_none() || tx.delivered >= self.prior_delivered {
            self.prior_delivered = tx.delivered;
            self.prior_time = Some(tx.delivered_time);
            self.sample_app_limited = tx.app_limited;
            self.send_elapsed = sent.since(tx.first_sent_time);
            self.first_sent_time = sent;
        }
    }

    /// The sender has no data to send and room in the window (draft
    /// Sec. 3.4): samples until what is in flight now is delivered are
    /// marked app-limited.
    pub fn mark_app_limited(&mut self, pipe: u64) {
        self.app_limited_until = (self.delivered + pipe).max(1);
    }

    /// The sample of the ACK just processed (None if it delivered nothing
    /// or the interval is zero); resets the builder for the next ACK.
    pub fn take_sample(&mut self) -> Option<RateSample> {
        let prior = self.prior_time.take()?;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let ack_elapsed = self.delivered_time.since(prior);
        let interval = ack_elapsed.max(self.send_elapsed);
        let delivered = self.delivered - self.prior_delivered;
        if interval == Duration::ZERO {
            return None;
        }
        Some(RateSample {
            delivered,
            interval,
            is_app_limited: self.sample_app_limited,
            prior_delivered: self.prior_delivered,
            total_delivered: self.delivered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    /// A steady flow of one 1000-byte segment per ms, each acknowledged one
    /// 100 ms round trip later, is measured at 1000 bytes per ms.
    #[test]
    fn steady_flow_rate() {
        let mut r = DeliveryRate::default();
        let mut sent = vec![];
        let mut last = None;
        for t in 0..300u64 {
            let snap = r.snapshot(ms(t), sent.is_empty());
            sent.push((ms(t), snap));
            if t >= 100 {
                let (at, snap) = sent.remove(0);
                r.on_delivered(1000, at, &snap, ms(t));
                last = r.take_sample();
            }
        }
        let s = last.unwrap();
        assert!((s.delivery_rate() - 1e6).abs() / 1e6 < 0.02, "{s:?}");
        assert!(!s.is_app_limited);
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut r = DeliveryRate::default();
        let a = r.snapshot(ms(0), true);
        r.mark_app_limited(1000);
        let b = r.snapshot(ms(1), false);
        r.on_delivered(1000, ms(0), &a, ms(100));
        assert!(!r.take_sample().unwrap().is_app_limited);
        r.on_delivered(1000, ms(1), &b, ms(101));
        let s = r.take_sample().unwrap();
        assert!(s.is_app_limited);
        let c = r.snapshot(ms(102), true);
        assert!(!c.app_limited, "delivered passed the mark");
    }
}
