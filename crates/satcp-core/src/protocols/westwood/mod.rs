//! TCP Westwood+ (S. Mascolo, C. Casetti, M. Gerla, M. Y. Sanadidi, R. Wang,
//! "TCP Westwood: bandwidth estimation for enhanced transport over
//! wireless links", MobiCom 2001; L. A. Grieco, S. Mascolo, "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP
//! congestion control", ACM CCR 34(2), 2004): the sender estimates the
//! bandwidth its ACKs report, sampled once per RTT (the "+": Westwood
//! sampled per ACK, which ACK compression fools) and low-pass filtered;
//! after a loss ssthresh = BWE x RTTmin, the window that fills the pipe
//! without queueing, instead of half the window. A random loss then costs
//! little. Growth is Reno's.
//!
//! The reduction is the papers': at the third duplicate ACK, ssthresh =
//! BWE x RTTmin (at least two segments), and the recovery module sets cwnd
//! to it; after a timeout, the same ssthresh and cwnd = 1 segment. The
//! estimator is Linux's `tcp_westwood.c` (written with the authors: A.
//! Dell'Aera, L. A. Grieco, S. Mascolo, ICC 2004) where the papers leave
//! the details open, function by function (docs/modern-variants.md, "TCP
//! Westwood+"):
//!
//! - `westwood_update_window`: a sample when more than max(RTT, 50 ms) has
//!   passed since the last, RTT the latest RTT sample; none before the
//!   first RTT sample;
//! - `westwood_acked_count`: bytes cumulatively acknowledged, a duplicate
//!   ACK counted as one segment and taken off the cumulative ACK that
//!   covers it;
//! - `westwood_filter`: two cascaded 7/8 filters, the first sample taken
//!   as both;
//! - `update_rtt_min`: the smallest RTT sample, restarted after a timeout
//!   (CA_EVENT_LOSS).
//!
//! Linux departs from the papers in when it sets BWE x RTTmin after
//! duplicate ACKs: it enters recovery with Reno's ssthresh and sets cwnd =
//! ssthresh = BWE x RTTmin when recovery ends (CA_EVENT_COMPLETE_CWR),
//! from the estimate then; satcp sets it when recovery starts, as the
//! papers do.

use super::reno::Reno;
use super::{CongestionSettings, Showcase, Variant};
use crate::engine::{Duration, SimTime};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::send_state::SendState;
use crate::tcp::Recovery;

pub const VARIANT: Variant = Variant::congestion_only::<WestwoodSettings>(
    "westwood",
    "TCP Westwood+ (Mascolo et al. 2001, Grieco and Mascolo 2004): ssthresh = bandwidth estimate x RTTmin after a loss",
    &[Recovery::NewReno, Recovery::Sack],
    &[],
)
.compared_as(&[Showcase {
    label: "Westwood+",
    tcp: r#"{"variant": "westwood", "profile": "linux"}"#,
}]);

/// Westwood+ has no settings of its own: `[tcp.westwood]` must be empty.
#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WestwoodSettings {}

impl CongestionSettings for WestwoodSettings {
    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Westwood::default())
    }
}

/// The shortest sampling interval (Linux: TCP_WESTWOOD_RTT_MIN, 50 ms).
const MIN_SAMPLE: Duration = Duration(50_000_000);

#[derive(Default)]
pub struct Westwood {
    reno: Reno,
    /// Bytes acknowledged since the sample started (Linux's `bk`).
    bytes: u64,
    /// Bytes counted for duplicate ACKs, not yet covered by a cumulative
    /// ACK (Linux's `accounted`).
    accounted: u64,
    /// When the sample started (None: before the first ACK).
    sample_start: Option<SimTime>,
    /// The filtered estimate and the first filter's state, bytes/s.
    bw_est: f64,
    bw_ns_est: f64,
    /// The latest RTT sample (Linux's `w->rtt`).
    rtt: Option<Duration>,
    rtt_min: Option<Duration>,
    /// The next RTT sample restarts rtt_min (after a timeout).
    reset_rtt_min: bool,
}

impl Westwood {
    /// The bandwidth estimate, bytes per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw_est
    }

    pub fn rtt_min(&self) -> Option<Duration> {
        self.rtt_min
    }

    /// `westwood_filter`.
    fn filter(&mut self, sample: f64) {
        if self.bw_est == 0.0 && self.bw_ns_est == 0.0 {
            // The first sample fills both filters.
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// `westwood_acked_count`: what an ACK of `newly_acked` bytes adds to
    /// the sample.
    fn acked_count(&mut self, newly_acked: u64, duplicate: bool, mss: u64) -> u64 {
        if duplicate {
            self.accounted += mss;
            return mss;
        }
        if newly_acked > mss {
            // A cumulative ACK covering segments the duplicate ACKs
            // already counted.
            if self.accounted >= newly_acked {
                self.accounted -= newly_acked;
                return mss;
            }
            let counted = newly_acked - self.accounted;
            self.accounted = 0;
            return counted;
        }
        newly_acked
    }

    /// `tcp_westwood_bw_rttmin`: BWE x RTTmin, at least two segments.
    fn bw_rtt_min(&self, s: &SendState) -> u64 {
        let w = match self.rtt_min {
            Some(r) => (self.bw_est * r.as_secs_f64()) as u64,
            None => 0,
        };
        w.max(2 * s.mss() as u64)
    }

    /// Every ACK (`tcp_westwood_ack`), then its RTT sample
    /// (`tcp_westwood_pkts_acked`, which Linux runs after).
    fn on_ack_info(&mut self, s: &SendState, ack: &AckInfo, now: SimTime) {
        // `westwood_update_window`: the interval is judged with the RTT
        // sample of an earlier ACK; no sample before the first RTT sample.
        let start = *self.sample_start.get_or_insert(now);
        let elapsed = now.since(start);
        if let Some(rtt) = self.rtt {
            if elapsed > rtt.max(MIN_SAMPLE) {
                self.filter(self.bytes as f64 / elapsed.as_secs_f64());
                self.bytes = 0;
                self.sample_start = Some(now);
            }
        }
        self.bytes += self.acked_count(ack.newly_acked, ack.duplicate, s.mss() as u64);
        // `update_rtt_min`.
        if let Some(rtt) = self.rtt {
            self.rtt_min = match self.rtt_min {
                Some(m) if !self.reset_rtt_min => Some(m.min(rtt)),
                _ => Some(rtt),
            };
            self.reset_rtt_min = false;
        }
        if let Some(r) = ack.rtt {
            self.rtt = Some(r);
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        if let CcEvent::Ack(ack) = ev {
            self.on_ack_info(s, ack, now);
        }
        Reply::Default
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    /// After three duplicate ACKs (and on an ECN echo): BWE x RTTmin.
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.bw_rtt_min(s)
    }

    /// CA_EVENT_LOSS: ssthresh = BWE x RTTmin, and the next RTT sample
    /// restarts RTTmin.
    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(self.bw_rtt_min(s));
        self.reset_rtt_min = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::TcpHeader;
    use crate::protocols::test_support::send_state;

    const MSS: u64 = 1000;

    /// An ACK at `t` s of `acked` new bytes (or a duplicate ACK), with an
    /// RTT sample of `rtt` s.
    fn ack(w: &mut Westwood, s: &mut SendState, t: f64, acked: u64, rtt: Option<f64>) {
        let h = TcpHeader::default();
        let info = AckInfo {
            header: &h,
            window: 0,
            dsack: None,
            newly_acked: acked,
            newly_sacked: 0,
            newly_delivered: acked,
            duplicate: acked == 0,
            rtt: rtt.map(Duration::from_secs_f64),
            rate: None,
            prior_in_flight: 0,
        };
        w.on_event(s, CcEvent::Ack(&info), SimTime::from_secs_f64(t));
    }

    #[test]
    fn the_filter_is_two_cascaded_seven_eighths() {
        let mut w = Westwood::default();
        w.filter(800.0);
        assert_eq!(w.bandwidth(), 800.0);
        w.filter(0.0);
        assert_eq!(w.bw_ns_est, 700.0);
        assert_eq!(w.bandwidth(), (7.0 * 800.0 + 700.0) / 8.0);
    }

    /// `westwood_update_window`: a sample once more than the latest RTT
    /// sample (at least 50 ms) has passed, judged before the ACK's own
    /// sample is taken; none before the first RTT sample.
    #[test]
    fn a_sample_per_round_trip_of_the_latest_rtt_sample() {
        let mut s = send_state(MSS as u32);
        let mut w = Westwood::default();
        ack(&mut w, &mut s, 0.0, 0, None); // the handshake's ACK
        ack(&mut w, &mut s, 0.6, 2 * MSS, Some(0.6));
        assert_eq!(w.bandwidth(), 0.0, "no RTT sample before this ACK");
        ack(&mut w, &mut s, 0.6, 2 * MSS, Some(0.6));
        assert_eq!(w.bandwidth(), 0.0, "0.6 s is not more than 0.6 s");
        ack(&mut w, &mut s, 0.61, 2 * MSS, Some(0.6));
        assert!((w.bandwidth() - 4.0 * MSS as f64 / 0.61).abs() < 1e-6);
        // A short path: 50 ms at least.
        ack(&mut w, &mut s, 0.62, MSS, Some(0.01));
        ack(&mut w, &mut s, 0.65, MSS, Some(0.01));
        let before = w.bandwidth();
        ack(&mut w, &mut s, 0.665, MSS, Some(0.01));
        assert_ne!(w.bandwidth(), before, "55 ms after the last sample");
    }

    /// `westwood_acked_count`: a duplicate ACK counts one segment, taken
    /// off the cumulative ACK that later covers it.
    #[test]
    fn duplicate_acks_count_one_segment_each_once() {
        let mut s = send_state(MSS as u32);
        let mut w = Westwood::default();
        for _ in 0..3 {
            ack(&mut w, &mut s, 0.1, 0, None);
        }
        assert_eq!(w.bytes, 3 * MSS);
        ack(&mut w, &mut s, 0.2, 5 * MSS, None);
        assert_eq!(w.bytes, 5 * MSS, "the 5 segments counted once");
        for _ in 0..3 {
            ack(&mut w, &mut s, 0.3, 0, None);
        }
        ack(&mut w, &mut s, 0.4, 2 * MSS, None);
        assert_eq!(w.bytes, 9 * MSS, "covered by the duplicates: one segment");
        ack(&mut w, &mut s, 0.5, 3 * MSS, None);
        assert_eq!(w.bytes, 11 * MSS, "3 segments, one counted before");
        assert_eq!(w.accounted, 0);
    }

    /// At the third duplicate ACK, ssthresh = BWE x RTTmin, at least two
    /// segments.
    #[test]
    fn a_loss_sets_ssthresh_to_the_window_that_fills_the_pipe() {
        let mut s = send_state(MSS as u32);
        let mut w = Westwood::default();
        s.cwnd = 100 * MSS;
        s.set_snd_max(100 * MSS);
        assert_eq!(w.ssthresh(&s), 2 * MSS, "no estimate yet");
        (w.bw_est, w.bw_ns_est) = (100_000.0, 100_000.0);
        w.rtt_min = Some(Duration::from_secs_f64(0.6));
        assert_eq!(w.ssthresh(&s), 60 * MSS);
    }

    /// CA_EVENT_LOSS: ssthresh = BWE x RTTmin, and RTTmin restarts from
    /// the next RTT sample.
    #[test]
    fn a_timeout_sets_ssthresh_and_restarts_rtt_min() {
        let mut s = send_state(MSS as u32);
        let mut w = Westwood::default();
        ack(&mut w, &mut s, 0.0, 0, Some(0.6));
        ack(&mut w, &mut s, 0.1, MSS, Some(0.9));
        ack(&mut w, &mut s, 0.2, MSS, None);
        assert_eq!(w.rtt_min(), Some(Duration::from_secs_f64(0.6)));
        w.bw_est = 10_000.0;
        w.on_timeout(&mut s);
        assert_eq!((s.ssthresh, s.cwnd), (6 * MSS, MSS));
        ack(&mut w, &mut s, 1.0, MSS, Some(0.7));
        ack(&mut w, &mut s, 1.1, MSS, None);
        assert_eq!(w.rtt_min(), Some(Duration::from_secs_f64(0.7)));
    }
}
