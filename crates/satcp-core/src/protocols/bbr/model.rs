//! BBR's path model: BtlBw, a windowed maximum of delivery-rate samples
//! over the last 10 round trips (app-limited samples only when they raise
//! it), and RTprop, the minimum RTT of the last 10 s; round trips counted
//! as in the draft: a round ends when data sent after its start is
//! delivered (by the rate sample's prior_delivered, so that resent data
//! ends a round too, as after a timeout).

use crate::engine::{Duration, SimTime};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::send_state::SendState;

/// BtlBw filter length, round trips.
const BW_WINDOW_ROUNDS: u64 = 10;
/// RTprop filter length.
const RTPROP_WINDOW: Duration = Duration(10_000_000_000);

#[derive(Default)]
pub struct PathModel {
    /// Per recent round: (round number, largest rate sample), bytes/s.
    bw_samples: Vec<(u64, f64)>,
    rtprop: Option<Duration>,
    rtprop_stamp: SimTime,
    round: u64,
    /// The round ends when data sent with at least this much delivered is
    /// delivered (next_round_delivered).
    round_end: u64,
    delivered: u64,
}

impl PathModel {
    /// The largest delivery rate of the window, bytes/s (0: none yet).
    pub fn btl_bw(&self) -> f64 {
        self.bw_samples.iter().map(|x| x.1).fold(0.0, f64::max)
    }

    pub fn rtprop(&self) -> Option<Duration> {
        self.rtprop
    }

    /// BtlBw x RTprop, bytes.
    pub fn bdp(&self) -> Option<f64> {
        let bw = self.btl_bw();
        (bw > 0.0).then_some(bw * self.rtprop?.as_secs_f64())
    }

    pub fn round(&self) -> u64 {
        self.round
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Takes in one ACK's delivery-rate sample (Linux's `bbr_update_bw`):
    /// counts the round trips and feeds the BtlBw filter. Returns whether
    /// the ACK started a new round trip.
    pub fn update_bw(&mut self, ack: &AckInfo) -> bool {
        self.delivered += ack.newly_delivered;
        let Some(r) = ack.rate else {
            return false;
        };
        let mut round_start = false;
        if r.prior_delivered >= self.round_end {
            self.round += 1;
            self.round_end = r.total_delivered;
            round_start = true;
        }
        let bw = r.delivery_rate();
        if !r.is_app_limited || bw >= self.btl_bw() {
            match self.bw_samples.last_mut() {
                Some((round, max)) if *round == self.round => *max = max.max(bw),
                _ => self.bw_samples.push((self.round, bw)),
            }
        }
        let oldest = self.round.saturating_sub(BW_WINDOW_ROUNDS - 1);
        self.bw_samples.retain(|x| x.0 >= oldest);
        round_start
    }

    /// Takes in one ACK's RTT sample (Linux's `bbr_update_min_rtt`): a
    /// sample strictly below RTprop replaces it, and once RTprop is 10 s
    /// old any sample does. Returns whether RTprop had expired before this
    /// sample (ProbeRTT's trigger). A sample equal to RTprop does not
    /// refresh it (Linux 5.10, commit 1b9e2a8c99a5: with samples from the
    /// 1 ms timestamp clock, equal ones are common and would put ProbeRTT
    /// off for ever).
    pub fn update_min_rtt(&mut self, ack: &AckInfo, now: SimTime) -> bool {
        let expired = self.rtprop_expired(now);
        if let Some(rtt) = ack.rtt {
            if self.rtprop.is_none_or(|m| rtt < m) || expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = now;
            }
        }
        expired
    }

    /// RTprop has not been refreshed for 10 s.
    pub fn rtprop_expired(&self, now: SimTime) -> bool {
        self.rtprop.is_some() && now.since(self.rtprop_stamp) > RTPROP_WINDOW
    }

    /// ProbeRTT ended: the minimum just measured stands for 10 s more.
    pub fn refresh_rtprop(&mut self, now: SimTime) {
        self.rtprop_stamp = now;
    }

    /// Start counting a round from now: it ends when data sent from now on
    /// is delivered.
    pub fn mark_round_start(&mut self, s: &SendState) {
        self.round_end = s.scoreboard().rate.delivered;
    }
}
