//! HyStart++ (RFC 9406, `tcp.hystart`): leaving slow start before the
//! first loss, when the RTT grows.
//!
//! The machinery feeds it every ACK of new data (`on_ack`): rounds are
//! measured by sequence number (a round ends when windowEnd, the SND.NXT
//! of the round's start, is acknowledged: a cumulative ACK beyond it), and
//! each round keeps its minimum RTT sample. Once a round has N_RTT_SAMPLE samples and its
//! minimum RTT exceeds the last round's by RttThresh = clamp(last / 8,
//! 4 ms, 16 ms), slow start hands over to Conservative Slow Start (CSS),
//! which grows cwnd by a quarter of what slow start would
//! (CSS_GROWTH_DIVISOR); if a CSS round's minimum RTT falls below the one
//! that started CSS, the exit was spurious and slow start resumes; after
//! CSS_ROUNDS rounds in CSS, ssthresh = cwnd (congestion avoidance).
//!
//! The increase itself is the standard slow start's (`tcp/slow_start.rs`),
//! which asks this module for the CSS divisor and for the end of CSS, so
//! HyStart++ acts on every variant that uses standard slow start and on
//! no other (a variant with its own slow start never asks).
//!
//! Readings: (1) HyStart++ runs in the initial slow start only: once a
//! loss, an ECN echo or a timeout has set ssthresh, or slow start has
//! ended, it is done (RFC 9406 Sec. 4.2 leaves later slow starts, which
//! ssthresh already bounds, to standard slow start). (2) The RTT sample
//! is the one congestion control gets (`AckInfo::rtt`: the newest segment
//! acknowledged, or the timestamp echo). (3) A round that ends is counted
//! before the ACK's sample goes into the new round; the round in which
//! CSS starts counts as the first of the CSS_ROUNDS. (4) satcp's standard
//! senders do not pace, so L = 8 SMSS (RFC 9406 Sec. 4.3, non-paced) caps
//! what one ACK may add. (5) "windowEnd is ACKed" is a cumulative ACK
//! beyond windowEnd, as Linux's HyStart ends its round (`after(ack,
//! ca->end_seq)` in `cubictcp_cong_avoid`): the first ACK of the next
//! flight. Ending the round at an ACK equal to windowEnd (the ACK of the
//! round's last segment) sets the next windowEnd short of the flight
//! under way by what that ACK releases; in an unpaced slow start the
//! offset doubles with the flight, so every round would open with the
//! RTT samples of the previous flight's tail, the most queued ones, and
//! enter CSS while the queue still drains between flights (the issue's
//! GEO path: 1.74x per round trip instead of 2, `tests/linux_stack.rs`).
//!
//! Linux's CUBIC does not run HyStart++ but its own HyStart
//! (`hystart_update` in net/ipv4/tcp_cubic.c: the ACK-train and the
//! delay-increase heuristics, leaving slow start at once); the issue asks
//! for HyStart++, which satcp's `linux` profile runs for CUBIC too.

use crate::engine::Duration;

/// RFC 9406 Sec. 4.3.
pub const MIN_RTT_THRESH: Duration = Duration(4_000_000);
pub const MAX_RTT_THRESH: Duration = Duration(16_000_000);
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;
/// Segments one ACK may add without pacing.
pub const L_NON_PACED: u64 = 8;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// The initial slow start is over: HyStart++ no longer applies.
    done: bool,
    /// windowEnd: the round ends when the cumulative ACK reaches it.
    window_end: u64,
    /// lastRoundMinRTT and currentRoundMinRTT (None: infinity).
    last_round_min: Option<Duration>,
    current_round_min: Option<Duration>,
    /// rttSampleCount.
    samples: u32,
    /// cssBaselineMinRtt; Some while in CSS.
    css_baseline: Option<Duration>,
    /// Rounds ended in CSS.
    css_rounds: u32,
    /// CSS_ROUNDS are over: the slow start rule sets ssthresh = cwnd.
    css_done: bool,
    /// CSS growth not yet added, in quarters of a byte.
    css_carry: u64,
    /// Times slow start went to CSS (counter).
    pub css_entries: u32,
}

impl HyStart {
    /// An ACK of new data at cumulative ACK `ack` with `snd_max` sent, its
    /// RTT sample `rtt`; `slow_start`: cwnd < ssthresh and no loss
    /// recovery or timeout recovery under way.
    pub fn on_ack(&mut self, ack: u64, snd_max: u64, rtt: Option<Duration>, slow_start: bool) {
        if self.done {
            return;
        }
        if !slow_start {
            self.done = true;
            return;
        }
        if ack > self.window_end {
            if self.css_baseline.is_some() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.css_done = true;
                }
            }
            self.last_round_min = self.current_round_min.take();
            self.samples = 0;
            self.window_end = snd_max;
        }
        let Some(rtt) = rtt else { return };
        self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        let current = self.current_round_min.expect("a sample was taken");
        match (self.css_baseline, self.last_round_min) {
            (None, Some(last)) => {
                let thresh =
                    Duration(last.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if current.0 >= last.0 + thresh.0 {
                    self.css_baseline = Some(current);
                    self.css_rounds = 0;
                    self.css_entries += 1;
                }
            }
            (Some(baseline), _) if current < baseline => {
                // The RTT fell again: the exit was spurious.
                self.css_baseline = None;
                self.css_rounds = 0;
            }
            _ => {}
        }
    }

    /// In Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        !self.done && self.css_baseline.is_some()
    }

    /// What slow start adds for an increase of `inc` bytes: at most L
    /// segments of `mss`, a quarter of it in CSS (the remainder carried).
    pub fn scale(&mut self, inc: u64, mss: u64) -> u64 {
        if self.done {
            return inc;
        }
        let inc = inc.min(L_NON_PACED * mss);
        if !self.in_css() {
            return inc;
        }
        let quarters = inc + self.css_carry;
        self.css_carry = quarters % CSS_GROWTH_DIVISOR;
        quarters / CSS_GROWTH_DIVISOR
    }

    /// CSS_ROUNDS rounds of CSS are over: taken once, the slow start rule
    /// then sets ssthresh = cwnd.
    pub fn take_css_end(&mut self) -> bool {
        if self.done || !self.css_done {
            return false;
        }
        self.done = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Option<Duration> {
        Some(Duration::from_millis(v))
    }

    /// Rounds of `n` ACKs each with RTT `rtt_ms`, one round per call: the
    /// first ACK of a round acknowledges windowEnd (snd_max grows by `n`
    /// MSS).
    struct Driver {
        h: HyStart,
        ack: u64,
    }

    impl Driver {
        fn new() -> Driver {
            Driver {
                h: HyStart::default(),
                ack: 1,
            }
        }
        fn round(&mut self, n: u32, rtt_ms: u64) {
            let end = self.ack + n as u64 * MSS;
            for _ in 0..n {
                // The first ACK of the round goes beyond the previous
                // windowEnd (the round's start), the last one reaches the
                // round's own.
                self.ack += MSS;
                self.h.on_ack(self.ack, end, ms(rtt_ms), true);
            }
        }
    }

    /// RFC 9406 Sec. 4.2: an RTT rise of RttThresh = clamp(lastRoundMinRTT /
    /// MIN_RTT_DIVISOR, 4 ms, 16 ms) over N_RTT_SAMPLE samples enters CSS.
    #[test]
    fn a_delay_increase_of_rtt_thresh_enters_css() {
        // 600 ms: 600 / 8 = 75 ms, clamped to MAX_RTT_THRESH = 16 ms.
        let mut d = Driver::new();
        d.round(10, 600);
        d.round(20, 615);
        assert!(!d.h.in_css(), "15 ms < 16 ms");
        d.round(20, 631);
        assert!(d.h.in_css(), "631 >= 615 + 16");
        // 20 ms: 20 / 8 = 2.5 ms, clamped to MIN_RTT_THRESH = 4 ms.
        let mut d = Driver::new();
        d.round(10, 20);
        d.round(10, 23);
        assert!(!d.h.in_css());
        d.round(10, 27);
        assert!(d.h.in_css());
        // 80 ms: 80 / 8 = 10 ms, inside the clamp.
        let mut d = Driver::new();
        d.round(10, 80);
        d.round(10, 90);
        assert!(d.h.in_css());
    }

    /// RFC 9406 Sec. 4.2: the round ends "when windowEnd is ACKed", i.e. an
    /// ACK beyond windowEnd (Linux: `after(ack, ca->end_seq)`); the ACK that
    /// reaches it exactly still belongs to the round.
    #[test]
    fn a_round_ends_when_an_ack_goes_beyond_window_end() {
        let mut h = HyStart::default();
        h.on_ack(1 + MSS, 1 + 10 * MSS, ms(100), true);
        assert_eq!(h.window_end, 1 + 10 * MSS);
        h.on_ack(1 + 10 * MSS, 1 + 20 * MSS, ms(90), true);
        assert_eq!(h.window_end, 1 + 10 * MSS, "windowEnd reached, not passed");
        assert_eq!(h.current_round_min, ms(90));
        h.on_ack(1 + 11 * MSS, 1 + 21 * MSS, ms(95), true);
        assert_eq!(h.window_end, 1 + 21 * MSS, "a new round");
        assert_eq!((h.last_round_min, h.current_round_min), (ms(90), ms(95)));
    }

    /// N_RTT_SAMPLE: fewer than 8 samples in a round decide nothing.
    #[test]
    fn fewer_than_n_rtt_sample_samples_decide_nothing() {
        let mut d = Driver::new();
        d.round(10, 100);
        d.round(7, 200);
        assert!(!d.h.in_css(), "a 100 ms rise, but seven samples");
        d.round(8, 300);
        assert!(d.h.in_css());
    }

    /// CSS_GROWTH_DIVISOR: in CSS slow start adds a quarter (the remainder
    /// carried to the next ACK); L = 8 SMSS caps one ACK's increase.
    #[test]
    fn css_grows_by_a_quarter_and_l_caps_an_ack() {
        let mut d = Driver::new();
        assert_eq!(d.h.scale(20 * MSS, MSS), 8 * MSS, "L = 8 SMSS");
        d.round(10, 100);
        d.round(10, 120);
        assert!(d.h.in_css());
        assert_eq!(d.h.scale(1001, MSS), 250);
        assert_eq!(d.h.scale(1001, MSS), 250);
        assert_eq!(d.h.scale(1002, MSS), 251, "the two carried quarters");
    }

    /// A CSS round whose minimum RTT is below cssBaselineMinRtt resumes
    /// slow start (the exit was spurious).
    #[test]
    fn a_falling_rtt_in_css_resumes_slow_start() {
        let mut d = Driver::new();
        d.round(10, 100);
        d.round(10, 120);
        assert!(d.h.in_css());
        d.round(10, 119);
        assert!(!d.h.in_css());
        assert!(!d.h.take_css_end());
    }

    /// CSS_ROUNDS rounds in CSS end slow start: the rule then sets ssthresh
    /// = cwnd, once; HyStart++ is then done.
    #[test]
    fn css_rounds_in_css_end_slow_start() {
        let mut d = Driver::new();
        d.round(10, 100);
        d.round(10, 120); // CSS entered in this round (its first)
        for r in 0..CSS_ROUNDS - 1 {
            d.round(10, 125);
            assert!(!d.h.take_css_end(), "round {r}");
        }
        // The first ACK of the next round ends the fifth CSS round.
        d.h.on_ack(d.ack + MSS, d.ack + 10 * MSS, ms(125), true);
        assert!(d.h.take_css_end());
        assert!(!d.h.take_css_end());
        assert!(!d.h.in_css());
        assert_eq!(d.h.scale(4 * MSS, MSS), 4 * MSS, "done: no divisor");
    }

    /// HyStart++ runs in the initial slow start only: leaving it (cwnd at
    /// ssthresh, a loss, a timeout) ends it for good.
    #[test]
    fn hystart_is_for_the_initial_slow_start_only() {
        let mut d = Driver::new();
        d.round(10, 100);
        d.h.on_ack(d.ack, d.ack, ms(100), false);
        d.round(10, 200);
        assert!(!d.h.in_css());
    }
}
