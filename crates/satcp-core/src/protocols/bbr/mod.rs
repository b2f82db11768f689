//! BBR version 1 (N. Cardwell, Y. Cheng, C. S. Gunn, S. H. Yeganeh, V.
//! Jacobson, "BBR: Congestion-Based Congestion Control", ACM Queue 14(5),
//! 2016; draft-cardwell-iccrg-bbr-congestion-control-00, 2017; Linux
//! tcp_bbr.c). The sender models the path by its bottleneck bandwidth
//! (BtlBw: the largest delivery rate of the last 10 round trips) and its
//! round-trip propagation time (RTprop: the smallest RTT of the last 10 s),
//! paces at pacing_gain x BtlBw and keeps at most cwnd_gain x BtlBw x
//! RTprop in flight. Losses do not reduce the model; recovery only
//! conserves packets (draft Sec. 4.2.3.4). The state machine (`model.rs`
//! for the estimates, this file for the states):
//!
//! ```text
//! Startup  gains 2/ln 2 until BtlBw stops growing by 25 % in 3 rounds
//! Drain    pacing gain ln 2/2 until in flight <= BDP
//! ProbeBW  pacing gain cycling 1.25, 0.75, 1 x 6, one phase per RTprop
//! ProbeRTT cwnd 4 segments for 200 ms and a round, when RTprop is 10 s old
//! ```

pub mod model;

use super::{CongestionSettings, Showcase, Variant};
use crate::engine::{Duration, SimTime};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::send_state::SendState;
use crate::tcp::Recovery;
use model::PathModel;

pub const VARIANT: Variant = Variant::congestion_only::<BbrSettings>(
    "bbr",
    "BBR v1 (Cardwell et al. 2016): bottleneck bandwidth and RTprop model, pacing, probing states",
    &[Recovery::Sack],
    &[],
)
.compared_as(&[Showcase {
    label: "BBR",
    tcp: r#"{"variant": "bbr"}"#,
}]);

/// 2 / ln 2: the smallest gain that doubles the sending rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
/// The ProbeBW pacing gains, one phase per RTprop.
pub const PROBE_BW_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const PROBE_RTT_TIME: Duration = Duration(200_000_000);
const MIN_CWND_SEGMENTS: u64 = 4;

/// BBR has no settings of its own: `[tcp.bbr]` must be empty.
#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrSettings {}

impl CongestionSettings for BbrSettings {
    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Bbr::default())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    pub mode: Mode,
    pub model: PathModel,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Startup: BtlBw at the last check and rounds without 25 % growth.
    full_bw: f64,
    full_bw_rounds: u32,
    pub filled_pipe: bool,
    /// ProbeBW phase and when it began.
    cycle_index: usize,
    cycle_start: SimTime,
    /// ProbeRTT: when it may end (and whether a round has passed).
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// cwnd before recovery or ProbeRTT, restored after.
    prior_cwnd: u64,
    was_in_recovery: bool,
    /// The round in which recovery started (packet conservation for one round).
    recovery_round: Option<u64>,
    /// Bytes per second (0: not set yet). Until the pipe is full it only
    /// rises, so that early, small samples (the handshake's) cannot throttle
    /// startup (Linux's bbr_set_pacing_rate).
    pacing: f64,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr {
            mode: Mode::Startup,
            model: PathModel::default(),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: 0.0,
            full_bw_rounds: 0,
            filled_pipe: false,
            cycle_index: 0,
            cycle_start: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            was_in_recovery: false,
            recovery_round: None,
            pacing: 0.0,
        }
    }
}

impl Bbr {
    /// cwnd_gain x BDP plus three segments for ACK aggregation and pacing
    /// quanta (draft Sec. 4.2.3.2), at least 4 segments.
    fn target_cwnd(&self, s: &SendState, gain: f64) -> u64 {
        let mss = s.mss() as u64;
        match self.model.bdp() {
            Some(bdp) => ((gain * bdp) as u64 + 3 * mss).max(MIN_CWND_SEGMENTS * mss),
            None => s.cwnd,
        }
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = 2.0;
        // The draft starts at a random phase other than 0.75; satcp starts
        // at the first cruise phase, so runs stay deterministic without
        // drawing from a stream.
        self.cycle_index = 2;
        self.cycle_start = now;
        self.pacing_gain = PROBE_BW_GAINS[self.cycle_index];
    }

    fn check_full_pipe(&mut self, round_start: bool, app_limited: bool) {
        if self.filled_pipe || !round_start || app_limited {
            return;
        }
        let bw = self.model.btl_bw();
        if bw >= self.full_bw * 1.25 {
            self.full_bw = bw;
            self.full_bw_rounds = 0;
            return;
        }
        self.full_bw_rounds += 1;
        if self.full_bw_rounds >= 3 {
            self.filled_pipe = true;
        }
    }

    fn update_cycle(&mut self, s: &SendState, ack: &AckInfo, now: SimTime) {
        let Some(rtprop) = self.model.rtprop() else {
            return;
        };
        let elapsed = now.since(self.cycle_start) > rtprop;
        let inflight = s.pipe();
        let bdp = self.model.bdp().unwrap_or(0.0);
        let gain = self.pacing_gain;
        // draft Sec. 4.3.4.4: the probing phase lasts until in flight
        // reaches 1.25 BDP (or a loss), the draining one ends early once in
        // flight is down to the BDP.
        let advance = if gain > 1.0 {
            elapsed && (ack.newly_sacked > 0 && ack.duplicate || inflight as f64 >= gain * bdp)
        } else if gain < 1.0 {
            elapsed || inflight as f64 <= bdp
        } else {
            elapsed
        };
        if advance {
            self.cycle_index = (self.cycle_index + 1) % PROBE_BW_GAINS.len();
            self.cycle_start = now;
            self.pacing_gain = PROBE_BW_GAINS[self.cycle_index];
        }
    }

    fn update_pacing(&mut self, s: &SendState) {
        if self.pacing == 0.0 {
            // The first RTT sample: the initial window per SRTT at the high
            // gain (Linux's bbr_init_pacing_rate_from_rtt).
            match s.rtt().srtt() {
                Some(srtt) => {
                    self.pacing = HIGH_GAIN * s.cwnd as f64 / srtt.as_secs_f64().max(1e-3)
                }
                None => return,
            }
        }
        let bw = self.model.btl_bw();
        let rate = self.pacing_gain * bw;
        if bw > 0.0 && (self.filled_pipe || rate > self.pacing) {
            self.pacing = rate;
        }
    }

    fn update_cwnd(&mut self, s: &mut SendState, delivered: u64) {
        let mss = s.mss() as u64;
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(MIN_CWND_SEGMENTS * mss);
            return;
        }
        let target = self.target_cwnd(s, self.cwnd_gain);
        if s.in_recovery() {
            // Packet conservation in the first round of recovery, then
            // growth up to the target (draft Sec. 4.2.3.4).
            let conserving = self.recovery_round == Some(self.model.round());
            let floor = s.pipe() + delivered;
            s.cwnd = if conserving {
                s.cwnd.max(floor)
            } else {
                (s.cwnd + delivered).min(target.max(floor))
            };
        } else if self.filled_pipe {
            s.cwnd = (s.cwnd + delivered).min(target);
        } else if s.cwnd < target || self.model.delivered() < 10 * mss {
            s.cwnd += delivered;
        }
        s.cwnd = s.cwnd.max(MIN_CWND_SEGMENTS * mss);
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR's cwnd moves in `on_ack_info`, on every ACK.
    fn on_ack(&mut self, _s: &mut SendState, _acked: u64, _now: SimTime) {}

    /// Entering recovery: remember cwnd and keep what is in flight
    /// (packet conservation); the model is not reduced.
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.prior_cwnd = s.cwnd;
        s.pipe().max(MIN_CWND_SEGMENTS * s.mss() as u64)
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        self.prior_cwnd = s.cwnd;
        s.cwnd = s.mss() as u64;
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(ack) => self.on_ack_info(s, ack, now),
            // BBR v1 does not answer ECN.
            CcEvent::EcnEcho => return Reply::Handled,
            _ => {}
        }
        Reply::Default
    }

    fn pacing_rate(&self, _s: &SendState) -> Option<f64> {
        (self.pacing > 0.0).then_some(self.pacing)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("btl_bw_bps", (self.model.btl_bw() * 8.0) as u64),
            ("rtprop_us", self.model.rtprop().map_or(0, |d| d.0 / 1000)),
        ]
    }
}

impl Bbr {
    /// Every ACK: the model, the state machine, cwnd and the pacing rate.
    fn on_ack_info(&mut self, s: &mut SendState, ack: &AckInfo, now: SimTime) {
        let delivered = ack.newly_acked + ack.newly_sacked;
        let (round_start, rtprop_expired) = self.model.on_ack(ack, now);
        let app_limited = ack.rate.is_some_and(|r| r.is_app_limited);
        // Recovery: entered (the machinery set cwnd to ssthresh = what was
        // in flight) or left (restore what it was before).
        if s.in_recovery() && !self.was_in_recovery {
            self.recovery_round = Some(self.model.round());
        } else if !s.in_recovery() && self.was_in_recovery {
            s.cwnd = s.cwnd.max(self.prior_cwnd);
            self.recovery_round = None;
        }
        self.was_in_recovery = s.in_recovery();

        self.check_full_pipe(round_start, app_limited);
        match self.mode {
            Mode::Startup if self.filled_pipe => {
                self.mode = Mode::Drain;
                self.pacing_gain = 1.0 / HIGH_GAIN;
                self.cwnd_gain = HIGH_GAIN;
            }
            _ => {}
        }
        if self.mode == Mode::Drain {
            if let Some(bdp) = self.model.bdp() {
                if s.pipe() as f64 <= bdp {
                    self.enter_probe_bw(now);
                }
            }
        }
        if self.mode == Mode::ProbeBw {
            self.update_cycle(s, ack, now);
        }
        // ProbeRTT (draft Sec. 4.3.5): RTprop not refreshed for 10 s.
        if self.mode != Mode::ProbeRtt && rtprop_expired {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.prior_cwnd = self.prior_cwnd.max(s.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            let mss = s.mss() as u64;
            if self.probe_rtt_done.is_none() && s.pipe() <= MIN_CWND_SEGMENTS * mss {
                self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.model.mark_round_start(s);
            } else if let Some(done) = self.probe_rtt_done {
                if round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now >= done {
                    self.model.refresh_rtprop(now);
                    s.cwnd = s.cwnd.max(self.prior_cwnd);
                    self.prior_cwnd = 0;
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
        }
        self.update_cwnd(s, delivered);
        self.update_pacing(s);
    }
}

#[cfg(test)]
mod tests;
