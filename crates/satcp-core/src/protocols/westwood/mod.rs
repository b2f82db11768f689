//! TCP Westwood+ (S. Mascolo, C. Casetti, M. Gerla, M. Y. Sanadidi, R. Wang,
//! "TCP Westwood: bandwidth estimation for enhanced transport over
//! wireless links", MobiCom 2001; L. A. Grieco, S. Mascolo, "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP
//! congestion control", ACM CCR 34(2), 2004): the sender estimates the
//! bandwidth its ACKs report, sampled once per RTT (the "+": Westwood
//! sampled per ACK, which ACK compression fools) and low-pass filtered;
//! after a loss ssthresh = BWE x RTTmin, the window that fills the pipe
//! without queueing, instead of half the window. A random loss then costs
//! little. Growth is Reno's. The filter is Linux's tcp_westwood: two
//! cascaded 7/8 exponential filters, a sample per max(RTT, 50 ms).

use super::reno::Reno;
use super::{CongestionSettings, Showcase, Variant};
use crate::engine::{Duration, SimTime};
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
    tcp: r#"{"variant": "westwood"}"#,
}]);

/// Westwood+ has no settings of its own: `[tcp.westwood]` must be empty.
#[derive(Default, serde::Deserialize)]
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
    /// Bytes delivered (acknowledged or SACKed) since the sample started.
    bytes: u64,
    sample_start: Option<SimTime>,
    /// The filtered estimate and the first filter's state, bytes/s.
    bw_est: f64,
    bw_ns_est: f64,
    rtt_min: Option<Duration>,
}

impl Westwood {
    /// The bandwidth estimate, bytes per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw_est
    }

    fn filter(&mut self, sample: f64) {
        if self.bw_est == 0.0 && self.bw_ns_est == 0.0 {
            // The first sample initialises both (as Linux does).
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// BWE x RTTmin, at least two segments (Linux: tcp_westwood_bw_rttmin).
    fn bw_rtt_min(&self, s: &SendState) -> u64 {
        let w = match self.rtt_min {
            Some(r) => (self.bw_est * r.as_secs_f64()) as u64,
            None => 0,
        };
        w.max(2 * s.mss() as u64)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        let CcEvent::Ack(ack) = ev else {
            return Reply::Default;
        };
        if let Some(r) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        self.bytes += ack.newly_acked + ack.newly_sacked;
        let start = *self.sample_start.get_or_insert(now);
        let rtt = s.rtt().srtt().unwrap_or(MIN_SAMPLE).max(MIN_SAMPLE);
        let elapsed = now.since(start);
        if elapsed >= rtt {
            let sample = self.bytes as f64 / elapsed.as_secs_f64();
            self.filter(sample);
            self.bytes = 0;
            self.sample_start = Some(now);
        }
        Reply::Default
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.bw_rtt_min(s)
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(self.bw_rtt_min(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_is_two_cascaded_seven_eighths() {
        let mut w = Westwood::default();
        w.filter(800.0);
        assert_eq!(w.bandwidth(), 800.0);
        w.filter(0.0);
        assert_eq!(w.bw_ns_est, 700.0);
        assert_eq!(w.bandwidth(), (7.0 * 800.0 + 700.0) / 8.0);
    }
}
