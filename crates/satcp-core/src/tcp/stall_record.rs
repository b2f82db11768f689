//! What an endpoint records of its stalls, for the results' diagnosis
//! (`scenario/diagnosis.rs`): when it gave up, the largest RTO a timeout
//! backed off to, and the longest stretch with data outstanding and no RTT
//! sample. Each is updated where its event already happens (a timeout, an
//! RTT sample, the retransmission timer started with nothing outstanding
//! or stopped with everything acknowledged), so a run pays nothing per
//! packet for it.

use crate::engine::{Duration, SimTime};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StallRecord {
    /// When the retransmission limit was exceeded and the connection given up.
    pub aborted_at: Option<SimTime>,
    /// Timeouts in a row when it gave up (`max_retransmissions` + 1).
    pub abort_timeouts: u32,
    /// The largest RTO armed after a timeout, back-off included (zero
    /// without a timeout).
    pub max_backed_off_rto: Duration,
    /// The longest stretch with data outstanding and no RTT sample among
    /// those that have ended.
    longest_gap: Duration,
    /// Since when data has been outstanding without an RTT sample (the
    /// last sample, or the first segment sent with nothing outstanding);
    /// None while nothing is outstanding.
    gap_since: Option<SimTime>,
}

impl StallRecord {
    /// The retransmission timer started with nothing outstanding before.
    #[inline]
    pub fn sending(&mut self, now: SimTime) {
        if self.gap_since.is_none() {
            self.gap_since = Some(now);
        }
    }

    /// An RTT sample was taken: the stretch without one ends here.
    #[inline]
    pub fn sampled(&mut self, now: SimTime) {
        self.close_gap(now);
        self.gap_since = Some(now);
    }

    /// Everything sent is acknowledged: no sample is due until the next send.
    #[inline]
    pub fn idle(&mut self, now: SimTime) {
        self.close_gap(now);
        self.gap_since = None;
    }

    /// A timeout backed the RTO off to `rto`.
    #[inline]
    pub fn timed_out(&mut self, rto: Duration) {
        self.max_backed_off_rto = self.max_backed_off_rto.max(rto);
    }

    /// The connection was given up after `timeouts` timeouts in a row.
    pub fn aborted(&mut self, now: SimTime, timeouts: u32) {
        self.idle(now);
        self.aborted_at = Some(now);
        self.abort_timeouts = timeouts;
    }

    /// The longest stretch with data outstanding and no RTT sample, the
    /// one still open at `end` included.
    pub fn longest_gap(&self, end: SimTime) -> Duration {
        let open = self.gap_since.map_or(Duration::ZERO, |t| end - t);
        self.longest_gap.max(open)
    }

    fn close_gap(&mut self, now: SimTime) {
        if let Some(t) = self.gap_since {
            self.longest_gap = self.longest_gap.max(now - t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    #[test]
    fn a_gap_runs_from_the_last_sample_or_send_while_data_is_outstanding() {
        let mut r = StallRecord::default();
        r.sending(at(1.0));
        r.sending(at(2.0)); // more data: the stretch started at 1 s
        r.sampled(at(4.0));
        assert_eq!(r.longest_gap(at(4.0)), Duration::from_secs_f64(3.0));
        r.idle(at(5.0));
        // Idle time is no gap: nothing was waiting for an acknowledgement.
        r.sending(at(100.0));
        r.sampled(at(101.0));
        assert_eq!(r.longest_gap(at(200.0)), Duration::from_secs_f64(99.0));
        r.idle(at(101.5));
        assert_eq!(r.longest_gap(at(200.0)), Duration::from_secs_f64(3.0));
    }

    #[test]
    fn an_abort_ends_the_gap_and_keeps_when() {
        let mut r = StallRecord::default();
        r.sending(at(10.0));
        r.timed_out(Duration::from_secs_f64(6.0));
        r.timed_out(Duration::from_secs_f64(3.0));
        r.aborted(at(70.0), 7);
        assert_eq!(r.aborted_at, Some(at(70.0)));
        assert_eq!(r.abort_timeouts, 7);
        assert_eq!(r.max_backed_off_rto, Duration::from_secs_f64(6.0));
        assert_eq!(r.longest_gap(at(500.0)), Duration::from_secs_f64(60.0));
    }
}
