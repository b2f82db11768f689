//! The standard slow start, which every variant without a slow start of
//! its own uses (the Reno family: NewReno, SACK, Westwood+, DSACK-R,
//! RR-TCP, RN-TCP, TCP-R; CUBIC; Scalable), and the two rules a stack may
//! add to it:
//!
//! - RFC 5681 Sec. 3.1 (the default): cwnd += min(N, SMSS) per ACK of N
//!   new bytes. With a receiver that acknowledges every second segment,
//!   cwnd grows about 1.5x per round trip.
//! - `byte_counting` (appropriate byte counting, RFC 3465, as Linux's
//!   `tcp_slow_start` in net/ipv4/tcp_cong.c): cwnd += N, but not beyond
//!   ssthresh; what is left of N once cwnd reaches ssthresh goes to
//!   congestion avoidance (Linux's `tcp_reno_cong_avoid` and
//!   `cubictcp_cong_avoid` pass it on). cwnd doubles per round trip
//!   whatever the ACK ratio. Linux counts acknowledged segments (packets,
//!   including the SACKed ones of the ACK); satcp counts the bytes
//!   cumulatively acknowledged, the same for full segments and no loss.
//!   RFC 3465's limit L (at most 2 SMSS per ACK) is not applied: Linux
//!   has none (its `tcp_abc` sysctl, which had one, went in Linux 3.9).
//! - `hystart` (HyStart++, RFC 9406, `tcp/hystart.rs`): at most L = 8 SMSS
//!   per ACK, a quarter of the increase in Conservative Slow Start, and
//!   ssthresh = cwnd when CSS ends.
//!
//! `byte_counting` also makes Reno's congestion avoidance count bytes
//! (`protocols::reno::ca_increase`: SMSS x N / cwnd per ACK, Linux's
//! `tcp_cong_avoid_ai`). Variants with a slow start of their own keep it,
//! and these rules do not touch it: Hybla, TCP-ADaLR, TCP-Peach's Sudden
//! Start, Fast Start, the modified slow-start functions (`slowstart`),
//! BBR's Startup.

use super::config::TcpConfig;
use super::hystart::HyStart;
use super::send_state::{CongState, SendState};
use crate::engine::Duration;

/// The standard slow start's rules for one sender.
#[derive(Clone, Debug, Default)]
pub struct SlowStartRules {
    byte_counting: bool,
    hystart: Option<Box<HyStart>>,
}

impl SlowStartRules {
    pub fn new(cfg: &TcpConfig) -> SlowStartRules {
        SlowStartRules {
            byte_counting: cfg.byte_counting,
            hystart: cfg.hystart.then(Box::default),
        }
    }
}

impl SendState {
    /// Standard slow start for an ACK of `acked` new bytes, in slow start
    /// (cwnd < ssthresh): grows cwnd and returns what is left of `acked`
    /// for congestion avoidance (0 unless byte counting reached ssthresh
    /// or HyStart++ ended slow start).
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        let mss = self.mss as u64;
        if let Some(h) = self.slow_start.hystart.as_mut() {
            if h.take_css_end() {
                // RFC 9406 Sec. 4.2: CSS_ROUNDS are over, "enter congestion
                // avoidance by setting the ssthresh to the current cwnd".
                self.ssthresh = self.cwnd;
                return acked;
            }
        }
        let (counted, left) = if self.slow_start.byte_counting {
            let counted = acked.min(self.ssthresh.saturating_sub(self.cwnd));
            (counted, acked - counted)
        } else {
            (acked.min(mss), 0)
        };
        let inc = match self.slow_start.hystart.as_mut() {
            Some(h) => h.scale(counted, mss),
            None => counted,
        };
        self.cwnd += inc;
        left
    }

    /// Whether slow start and Reno's congestion avoidance count the bytes
    /// an ACK acknowledges (`byte_counting`).
    pub fn byte_counting(&self) -> bool {
        self.slow_start.byte_counting
    }

    /// In HyStart++'s Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.slow_start.hystart.as_ref().is_some_and(|h| h.in_css())
    }

    /// Every ACK of new data, before the congestion control grows cwnd:
    /// HyStart++ counts its rounds and RTT samples.
    pub(in crate::tcp) fn observe_slow_start(&mut self, rtt: Option<Duration>) {
        if self.slow_start.hystart.is_none() {
            return;
        }
        let slow_start = self.in_slow_start() && self.state == CongState::Open;
        let (ack, snd_max) = (self.snd_una, self.snd_max);
        if let Some(h) = self.slow_start.hystart.as_mut() {
            h.on_ack(ack, snd_max, rtt, slow_start);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::test_support::send_state;

    const MSS: u64 = 1000;

    /// RFC 5681 Eq. 2: at most one SMSS per ACK, and nothing left over
    /// (cwnd may pass ssthresh by less than an SMSS).
    #[test]
    fn rfc5681_adds_at_most_one_smss_per_ack() {
        let mut s = send_state(MSS as u32);
        s.cwnd = 10 * MSS;
        s.ssthresh = 100 * MSS;
        assert_eq!(s.slow_start(2 * MSS), 0);
        assert_eq!(s.cwnd, 11 * MSS);
        s.ssthresh = 11 * MSS + 1;
        assert_eq!(s.slow_start(2 * MSS), 0);
        assert_eq!(s.cwnd, 12 * MSS);
    }

    /// tcp_slow_start: cwnd += acked, capped at ssthresh, the rest returned
    /// for congestion avoidance.
    #[test]
    fn byte_counting_adds_what_was_acknowledged_up_to_ssthresh() {
        let mut s = send_state(MSS as u32);
        s.slow_start.byte_counting = true;
        s.cwnd = 10 * MSS;
        s.ssthresh = 100 * MSS;
        assert_eq!(s.slow_start(2 * MSS), 0);
        assert_eq!(s.cwnd, 12 * MSS);
        // A stretch ACK of 8 segments: no L limit (Linux has none).
        assert_eq!(s.slow_start(8 * MSS), 0);
        assert_eq!(s.cwnd, 20 * MSS);
        s.ssthresh = 21 * MSS;
        assert_eq!(s.slow_start(3 * MSS), 2 * MSS);
        assert_eq!(s.cwnd, 21 * MSS);
    }

    /// With delayed ACKs (one ACK per two segments) a window's ACKs double
    /// cwnd with byte counting, and add half of it without.
    #[test]
    fn byte_counting_doubles_cwnd_per_window_of_delayed_acks() {
        for (bc, after) in [(false, 15 * MSS), (true, 20 * MSS)] {
            let mut s = send_state(MSS as u32);
            s.slow_start.byte_counting = bc;
            s.cwnd = 10 * MSS;
            s.ssthresh = u64::MAX;
            for _ in 0..5 {
                s.slow_start(2 * MSS);
            }
            assert_eq!(s.cwnd, after, "byte counting {bc}");
        }
    }

    /// HyStart++ on top: L = 8 SMSS per ACK.
    #[test]
    fn hystart_caps_an_ack_at_l_segments() {
        let mut s = send_state(MSS as u32);
        s.slow_start.byte_counting = true;
        s.slow_start.hystart = Some(Default::default());
        s.cwnd = 10 * MSS;
        s.ssthresh = u64::MAX;
        s.slow_start(20 * MSS);
        assert_eq!(s.cwnd, 18 * MSS);
    }
}
