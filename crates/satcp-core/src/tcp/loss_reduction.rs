//! The window a loss reduction scales (`ssthresh_from`). After a loss or a
//! timeout a variant that reduces multiplicatively sets ssthresh to beta x
//! a window, at least two segments; the stacks differ in which window:
//!
//! - `flight_size` (the default; RFC 5681 Eq. 4, RFC 6582, RFC 9438 Sec.
//!   4.6 for CUBIC, ns-3's `TcpNewReno`): the data outstanding, in bytes.
//! - `cwnd` (Linux): cwnd in whole segments. `tcp_reno_ssthresh` returns
//!   max(cwnd >> 1, 2), `bictcp_recalc_ssthresh` max(cwnd x beta / 1024,
//!   2) with beta = 717 (net/ipv4/tcp_cong.c, tcp_cubic.c); Hybla takes
//!   Reno's. Linux keeps cwnd in segments, so the remainder of a partial
//!   segment is dropped before the reduction, and beta is applied in
//!   Linux's fixed point (1024ths, `BICTCP_BETA_SCALE`).
//!
//! The two differ when cwnd and the flight size part: in recovery after
//! an application- or receiver-limited period, and when cwnd has grown
//! past what was sent (a Gilbert-Elliott burst after a long quiet spell,
//! docs/validation-linux.md).

use super::send_state::SendState;
use serde::{Deserialize, Serialize};

/// Which window a multiplicative decrease after a loss scales.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// The data outstanding, bytes (RFC 5681 Eq. 4).
    #[default]
    FlightSize,
    /// cwnd in whole segments (Linux's `tcp_reno_ssthresh`,
    /// `bictcp_recalc_ssthresh`).
    Cwnd,
}

impl SendState {
    /// ssthresh after a loss for a decrease to `beta` of the window
    /// `ssthresh_from` names, at least two segments.
    pub fn reduced_window(&self, beta: f64) -> u64 {
        let mss = self.mss() as u64;
        match self.ssthresh_from {
            SsthreshFrom::FlightSize => ((self.flight_size() as f64 * beta) as u64).max(2 * mss),
            SsthreshFrom::Cwnd => {
                let beta_1024 = (beta * 1024.0).round() as u64;
                (self.cwnd / mss * beta_1024 / 1024).max(2) * mss
            }
        }
    }

    /// ssthresh after a loss for the Reno family: half the window.
    pub fn halved_window(&self) -> u64 {
        self.reduced_window(0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::test_support::send_state;

    fn state(from: SsthreshFrom, cwnd: u64, flight: u64) -> SendState {
        let mut s = send_state(1000);
        s.ssthresh_from = from;
        s.cwnd = cwnd;
        s.snd_una = 5_000;
        s.snd_max = 5_000 + flight;
        s
    }

    #[test]
    fn flight_size_halves_the_data_outstanding_in_bytes() {
        // RFC 5681 Eq. 4: FlightSize / 2, whatever cwnd is.
        let s = state(SsthreshFrom::FlightSize, 40_000, 25_001);
        assert_eq!(s.halved_window(), 12_500);
    }

    #[test]
    fn cwnd_halves_whole_segments() {
        // tcp_reno_ssthresh: cwnd >> 1 in segments; 25.5 segments count
        // as 25, half of which is 12; the flight size plays no part.
        let s = state(SsthreshFrom::Cwnd, 25_500, 40_000);
        assert_eq!(s.halved_window(), 12_000);
    }

    #[test]
    fn cwnd_applies_beta_in_1024ths() {
        // bictcp_recalc_ssthresh: 100 x 717 / 1024 = 70.02 -> 70; 0.7 in
        // 1024ths is 717.
        let s = state(SsthreshFrom::Cwnd, 100_000, 1_000);
        assert_eq!(s.reduced_window(0.7), 70_000);
        // 1,000 segments: 700.2 -> 700; 10,000: 7,001.95 -> 7,001, where
        // 0.7 x 10,000 would give 7,000.
        let s = state(SsthreshFrom::Cwnd, 10_000_000, 1_000);
        assert_eq!(s.reduced_window(0.7), 7_001_000);
    }

    #[test]
    fn flight_size_applies_beta_to_bytes() {
        // RFC 9438 Sec. 4.6: flight_size x beta_cubic.
        let s = state(SsthreshFrom::FlightSize, 1_000, 100_001);
        assert_eq!(s.reduced_window(0.7), 70_000);
    }

    #[test]
    fn both_keep_two_segments_at_least() {
        for from in [SsthreshFrom::FlightSize, SsthreshFrom::Cwnd] {
            let s = state(from, 2_500, 2_500);
            assert_eq!(s.halved_window(), 2_000, "{from:?}");
            assert_eq!(s.reduced_window(0.7), 2_000, "{from:?}");
        }
    }
}
