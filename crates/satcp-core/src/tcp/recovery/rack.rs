//! RACK loss detection (RFC 8985 Sec. 6, `tcp.rack_tlp`), as Linux runs
//! it (`tcp_recovery.c`) for SACK connections: a segment is presumed lost
//! once a segment sent after it has been delivered and a reordering window
//! has passed beyond the round trip the latest delivery took, whatever the
//! count of duplicate ACKs. It replaces RFC 6675's DupThresh and IsLost
//! (Linux's `tcp_time_to_recover`: with RACK, recovery starts when RACK has
//! presumed a segment lost; the duplicate-ACK count and IsLost are not
//! used), and unlike them it finds a lost retransmission.
//!
//! The endpoint feeds it every ACK (what the ACK delivered, the RTT
//! sample, a DSACK), asks it to mark losses in the scoreboard
//! (`detect_loss`), and keeps its reorder timer among its deadlines.
//!
//! - Step 1: RACK.min_RTT, the minimum RTT sample (the RFC's windowed
//!   minimum: Linux keeps five minutes; a run here keeps the whole run).
//! - Step 2: RACK.xmit_ts / RACK.end_seq: the most recently sent segment
//!   delivered; RACK.rtt its round trip; a resent segment counts only if
//!   its RTT is at least RACK.min_RTT (the delivery may be the original's).
//! - Step 3: reordering seen when a segment sent once is delivered below
//!   RACK.fack, the highest sequence delivered before.
//! - Step 4: RACK.reo_wnd = min(reo_wnd_mult x min_RTT / 4, SRTT), 0 while
//!   no reordering was seen and the sender is in recovery or DupThresh
//!   segments are SACKed; a DSACK grows reo_wnd_mult by one per round trip
//!   (RACK.dsack_round), and 16 recoveries without one bring it back to 1.
//! - Step 5: every segment sent before RACK.xmit_ts and not delivered
//!   RACK.rtt + RACK.reo_wnd after it was sent is presumed lost; the others
//!   sent before it arm the reorder timer for when theirs would run out
//!   (`SentQueue::mark_lost_by_time`).

use crate::engine::{Duration, SimTime};
use crate::tcp::sent_queue::{DeliveredNow, SentQueue};

/// Recoveries without a DSACK after which the reordering window shrinks
/// back (RFC 8985 Sec. 6.2 step 4: 16).
const REO_WND_PERSIST: u32 = 16;

#[derive(Clone, Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment
    /// delivered so far.
    latest: Option<(SimTime, u64)>,
    /// RACK.rtt.
    rtt: Duration,
    /// RACK.min_RTT.
    min_rtt: Option<Duration>,
    /// RACK.fack: the highest sequence number delivered.
    fack: u64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// RACK.dsack_round: snd_max when the window last grew for a DSACK.
    dsack_round: Option<u64>,
    /// The reorder timer.
    deadline: Option<SimTime>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            latest: None,
            rtt: Duration::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            deadline: None,
        }
    }
}

impl Rack {
    /// Step 1: an RTT sample.
    pub fn on_rtt_sample(&mut self, rtt: Duration) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// Steps 2 and 3: what an ACK newly delivered, at `now`.
    pub fn on_delivered(&mut self, d: &DeliveredNow, now: SimTime) {
        let mut newest = d.newest_original;
        if let Some((sent, end)) = d.newest_resent {
            // Ambiguous: the original may be what arrived. Linux's and the
            // RFC's test: a round trip shorter than the minimum cannot be
            // the retransmission's.
            let plausible = self.min_rtt.is_none_or(|m| now - sent >= m);
            if plausible && newest.is_none_or(|n| (sent, end) > n) {
                newest = Some((sent, end));
            }
        }
        if let Some((sent, end)) = newest {
            self.rtt = now - sent;
            if self.latest.is_none_or(|l| (sent, end) > l) {
                self.latest = Some((sent, end));
            }
        }
        if let Some(low) = d.lowest_original_end {
            if low < self.fack {
                self.reordering_seen = true;
            }
        }
        let high = [d.newest_original, d.newest_resent]
            .iter()
            .flatten()
            .map(|&(_, end)| end)
            .max();
        if let Some(h) = high {
            self.fack = self.fack.max(h);
        }
    }

    /// Step 4, DSACK part: a DSACK arrived; `snd_una`, `snd_max` now.
    pub fn on_dsack(&mut self, snd_una: u64, snd_max: u64) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_max);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// Step 4: a fast or timeout recovery ended.
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Step 4: RACK.reo_wnd.
    pub fn reo_wnd(
        &self,
        recovering: bool,
        dupthresh_sacked: bool,
        srtt: Option<Duration>,
    ) -> Duration {
        if !self.reordering_seen && (recovering || dupthresh_sacked) {
            return Duration::ZERO;
        }
        let Some(min_rtt) = self.min_rtt else {
            return Duration::ZERO;
        };
        let w = Duration(min_rtt.0 / 4 * self.reo_wnd_mult as u64);
        srtt.map_or(w, |s| w.min(s))
    }

    /// Step 5: presumes lost in `sent` what RACK says is, arms or clears
    /// the reorder timer. `reo_wnd` from `reo_wnd`. Returns how many
    /// segments were newly presumed lost.
    pub fn detect_loss(&mut self, sent: &mut SentQueue, reo_wnd: Duration, now: SimTime) -> usize {
        let Some(latest) = self.latest else {
            self.deadline = None;
            return 0;
        };
        let (marked, wait) = sent.mark_lost_by_time(latest, self.rtt + reo_wnd, now);
        self.deadline = wait.map(|w| now + w);
        marked
    }

    /// A segment was last sent at `sent`: whether RACK would still wait for
    /// it at `now` (Sec. 6.3: a timeout presumes lost only the first
    /// segment and those whose RACK.rtt + reo_wnd has passed).
    pub fn spare_after(&self, reo_wnd: Duration, now: SimTime) -> Option<SimTime> {
        self.latest?;
        let window = self.rtt + reo_wnd;
        Some(SimTime(now.0.saturating_sub(window.0)))
    }

    /// The reorder timer.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SeqRange;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn at(v: u64) -> SimTime {
        SimTime(ms(v).0)
    }

    /// Ten 100-byte segments sent 1 ms apart from t = 0.
    fn queue() -> SentQueue {
        let mut q = SentQueue::default();
        q.track_delivered();
        for i in 0..10u64 {
            q.push_new(
                SeqRange::new(1 + i * 100, 101 + i * 100),
                false,
                false,
                at(i),
            );
        }
        q
    }

    /// Step 1: RACK.min_RTT is the smallest sample.
    #[test]
    fn step1_min_rtt_is_the_smallest_sample() {
        let mut r = Rack::default();
        for v in [100, 80, 120] {
            r.on_rtt_sample(ms(v));
        }
        assert_eq!(r.min_rtt, Some(ms(80)));
    }

    /// Step 2: RACK.xmit_ts follows the most recently sent delivered
    /// segment; a resent one whose round trip would be shorter than
    /// min_RTT is not taken (the original may have arrived).
    #[test]
    fn step2_latest_is_the_most_recently_sent_delivery_not_an_ambiguous_one() {
        let mut r = Rack::default();
        r.on_rtt_sample(ms(100));
        let d = DeliveredNow {
            newest_original: Some((at(5), 601)),
            newest_resent: Some((at(150), 101)),
            lowest_original_end: Some(601),
        };
        r.on_delivered(&d, at(200));
        assert_eq!(r.latest, Some((at(5), 601)), "50 ms < min_RTT: ambiguous");
        assert_eq!(r.rtt, ms(195));
        let d = DeliveredNow {
            newest_resent: Some((at(90), 101)),
            ..DeliveredNow::default()
        };
        r.on_delivered(&d, at(200));
        assert_eq!(r.latest, Some((at(90), 101)), "110 ms >= min_RTT");
    }

    /// Step 3: a segment sent once, delivered below RACK.fack: reordering.
    #[test]
    fn step3_delivery_below_fack_is_reordering() {
        let mut r = Rack::default();
        let d = |end| DeliveredNow {
            newest_original: Some((at(1), end)),
            lowest_original_end: Some(end),
            ..DeliveredNow::default()
        };
        r.on_delivered(&d(501), at(100));
        assert!(!r.reordering_seen);
        r.on_delivered(&d(201), at(101));
        assert!(r.reordering_seen);
    }

    /// Step 4: reo_wnd = min_RTT / 4 (x reo_wnd_mult, at most SRTT), zero
    /// without reordering seen once in recovery or DupThresh SACKed; a
    /// DSACK grows the multiplier once per round, 16 recoveries without
    /// one bring it back.
    #[test]
    fn step4_reordering_window() {
        let mut r = Rack::default();
        r.on_rtt_sample(ms(100));
        assert_eq!(r.reo_wnd(false, false, None), ms(25));
        assert_eq!(r.reo_wnd(true, false, None), Duration::ZERO);
        assert_eq!(r.reo_wnd(false, true, None), Duration::ZERO);
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, true, None), ms(25));
        r.on_dsack(1, 1000);
        r.on_dsack(500, 1000);
        assert_eq!(r.reo_wnd(false, false, None), ms(50), "one step per round");
        r.on_dsack(1000, 2000);
        assert_eq!(
            r.reo_wnd(false, false, Some(ms(60))),
            ms(60),
            "at most SRTT"
        );
        for _ in 0..REO_WND_PERSIST {
            r.on_recovery_end();
        }
        assert_eq!(r.reo_wnd(false, false, None), ms(25));
    }

    /// Step 5: segments sent before the latest delivered one are lost once
    /// RACK.rtt + reo_wnd has passed since they were sent; those still
    /// within arm the timer for the latest of them to run out.
    #[test]
    fn step5_segments_sent_before_the_latest_delivery_expire_by_time() {
        let mut q = queue();
        q.apply_sack(&[SeqRange::new(501, 601)], at(104));
        let mut r = Rack::default();
        r.on_rtt_sample(ms(100));
        r.on_delivered(&q.take_delivered(), at(104));
        assert_eq!(r.latest, Some((at(5), 601)));
        assert_eq!(r.rtt, ms(99));
        // reo_wnd 25 ms: 0-4 (sent at 0-4 ms) run out at 124-128 ms.
        let w = r.reo_wnd(false, false, None);
        assert_eq!(r.detect_loss(&mut q, w, at(104)), 0);
        assert_eq!(r.deadline(), Some(at(128)), "the latest of them");
        assert_eq!(r.detect_loss(&mut q, w, at(126)), 3, "0, 1, 2");
        assert_eq!(r.detect_loss(&mut q, w, at(128)), 2);
        assert_eq!(r.deadline(), None);
        assert_eq!(q.awaiting_retransmission(), 5);
        // 6-9 were sent after the latest delivery: not presumed lost.
        assert!((6..10).all(|i| !q.get(i).lost));
    }

    /// Step 5 finds a lost retransmission: a resent segment sent before
    /// the latest delivery runs out like any other, and waits again.
    #[test]
    fn step5_a_lost_retransmission_is_presumed_lost_again() {
        let mut q = queue();
        q.mark_first_lost();
        q.on_retransmit(0, at(20));
        q.take_delivered();
        // A segment sent at 30 ms, after the retransmission of 0 (20 ms),
        // is SACKed at 130 ms (RACK.rtt 100 ms): 0's retransmission and
        // 1-9 ran out.
        q.push_new(SeqRange::new(1001, 1101), false, false, at(30));
        q.apply_sack(&[SeqRange::new(1001, 1101)], at(130));
        let mut r = Rack::default();
        r.on_rtt_sample(ms(100));
        r.on_delivered(&q.take_delivered(), at(130));
        assert_eq!(r.detect_loss(&mut q, Duration::ZERO, at(130)), 10);
        assert!(q.get(0).lost && !q.get(0).rtx_after_loss, "resent again");
    }
}
