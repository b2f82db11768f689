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
use crate::tcp::send_state::{CongState, SendState};
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
    tcp: r#"{"variant": "bbr", "profile": "linux"}"#,
}]);

/// 2 / ln 2: the smallest gain that doubles the sending rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
/// The ProbeBW pacing gains, one phase per RTprop.
pub const PROBE_BW_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const PROBE_RTT_TIME: Duration = Duration(200_000_000);
/// bbr_cwnd_min_target.
const MIN_CWND_SEGMENTS: u64 = 4;
/// TCP_INIT_CWND: the BDP before any RTT sample, and the packets delivered
/// below which Startup grows cwnd whatever its target.
const INIT_CWND_SEGMENTS: u64 = 10;
/// bbr_pacing_margin_percent: pace 1 % below gain x BtlBw.
const PACING_MARGIN: f64 = 0.01;
/// bbr_min_tso_rate (1.2 Mb/s), bytes/s: below it one segment per TSO
/// burst, else at least two (`bbr_min_tso_segs`).
const MIN_TSO_RATE: f64 = 1.2e6 / 8.0;
/// A TSO burst holds the pacing rate's 2^-10 s (`sk_pacing_shift`, about
/// 1 ms), at most GSO_MAX_SIZE - 1 - MAX_TCP_HEADER bytes (x86-64: 320
/// bytes of headers), at most 127 segments (`bbr_tso_segs_goal`).
const PACING_SHIFT: i32 = 10;
const MAX_TSO_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
const MAX_TSO_SEGS: u64 = 127;

/// BBR has no settings of its own: `[tcp.bbr]` must be empty.
#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
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

/// Loss recovery or timeout recovery (Linux: `icsk_ca_state >=
/// TCP_CA_Recovery`).
fn recovering(state: CongState) -> bool {
    matches!(state, CongState::Recovery | CongState::Loss)
}

pub struct Bbr {
    pub mode: Mode,
    pub model: PathModel,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Startup: BtlBw at the last check and rounds without 25 % growth.
    full_bw: f64,
    full_bw_cnt: u32,
    pub filled_pipe: bool,
    /// ProbeBW phase and when it began.
    cycle_index: usize,
    cycle_start: SimTime,
    /// ProbeRTT: when it may end (and whether a round has passed).
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// cwnd before recovery, a timeout or ProbeRTT, restored after.
    prior_cwnd: u64,
    /// The congestion state at the last ACK that delivered data (Linux's
    /// `prev_ca_state`).
    prev_state: CongState,
    /// The first round of recovery: packet conservation.
    packet_conservation: bool,
    /// Bytes per second (0: not set yet). Until the pipe is full it only
    /// rises, so that early, small samples (the handshake's) cannot throttle
    /// startup (Linux's bbr_set_pacing_rate).
    pacing: f64,
    /// The scoreboard's count of bytes presumed lost when the ACK arrived:
    /// what the machinery presumes lost while it processes the ACK is the
    /// ACK's `rs->losses`.
    lost_at_ack: u64,
    /// ProbeBW entries (each draws its starting phase).
    probe_bw_entries: u64,
    /// ProbeRTT entries (a counter).
    probe_rtts: u64,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr {
            mode: Mode::Startup,
            model: PathModel::default(),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: 0.0,
            full_bw_cnt: 0,
            filled_pipe: false,
            cycle_index: 0,
            cycle_start: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            prev_state: CongState::Open,
            packet_conservation: false,
            pacing: 0.0,
            lost_at_ack: 0,
            probe_bw_entries: 0,
            probe_rtts: 0,
        }
    }
}

/// splitmix64: ProbeBW's starting phase, drawn deterministically.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Bbr {
    /// Segments a TSO burst would hold at the current pacing rate
    /// (`bbr_tso_segs_goal`).
    fn tso_segs_goal(&self, mss: u64) -> u64 {
        let bytes = (self.pacing * 2f64.powi(-PACING_SHIFT)).min(MAX_TSO_BYTES);
        let min = if self.pacing < MIN_TSO_RATE { 1 } else { 2 };
        ((bytes / mss as f64) as u64).max(min).min(MAX_TSO_SEGS)
    }

    /// gain x BtlBw x RTprop, segments rounded up (`bbr_bdp`); the initial
    /// window before any RTT sample.
    fn bdp_segments(&self, bw: f64, gain: f64, mss: u64) -> u64 {
        match self.model.rtprop() {
            Some(rtprop) => (bw * rtprop.as_secs_f64() * gain / mss as f64).ceil() as u64,
            None => INIT_CWND_SEGMENTS,
        }
    }

    /// What may be in flight for a gain, bytes (`bbr_inflight`): the BDP
    /// plus three TSO bursts, rounded up to an even number of segments, two
    /// more in ProbeBW's probing phase (`bbr_quantization_budget`).
    fn inflight(&self, bw: f64, gain: f64, mss: u64) -> u64 {
        let mut segs = self.bdp_segments(bw, gain, mss) + 3 * self.tso_segs_goal(mss);
        segs = (segs + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            segs += 2;
        }
        segs * mss
    }

    /// Notes cwnd to restore after recovery or ProbeRTT (`bbr_save_cwnd`):
    /// cwnd itself, unless recovery or ProbeRTT have already cut it.
    fn save_cwnd(&mut self, s: &SendState) {
        if !recovering(self.prev_state) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = s.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(s.cwnd);
        }
    }

    /// ProbeBW at a phase other than the draining one (Linux draws it at
    /// random from the seven others, `bbr_reset_probe_bw_mode`; satcp from
    /// a hash of the time and the entry count, so that runs repeat and
    /// flows entering ProbeBW at different times start at different
    /// phases).
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.probe_bw_entries += 1;
        let r = (mix(now.0 ^ mix(self.probe_bw_entries)) % 7) as usize;
        self.cycle_index = (PROBE_BW_GAINS.len() - r) % PROBE_BW_GAINS.len();
        self.cycle_start = now;
    }

    /// After ProbeRTT: back to Startup unless the pipe was found full
    /// (`bbr_reset_mode`).
    fn reset_mode(&mut self, now: SimTime) {
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`.
    fn check_full_pipe(&mut self, round_start: bool, app_limited: bool) {
        if self.filled_pipe || !round_start || app_limited {
            return;
        }
        let bw = self.model.btl_bw();
        if bw >= self.full_bw * 1.25 {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.filled_pipe = self.full_bw_cnt >= 3;
    }

    /// `bbr_check_drain`: Startup hands over to Drain once the pipe is
    /// full (ssthresh, unused by BBR, set to the BDP as Linux reports it),
    /// Drain to ProbeBW once what is in flight fits the BDP.
    fn check_drain(&mut self, s: &mut SendState, now: SimTime) {
        let (mss, bw) = (s.mss() as u64, self.model.btl_bw());
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            s.ssthresh = self.inflight(bw, 1.0, mss);
        }
        if self.mode == Mode::Drain && s.pipe() <= self.inflight(bw, 1.0, mss) {
            self.enter_probe_bw(now);
        }
    }

    /// `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`: a phase lasts
    /// RTprop; the probing one until what was in flight (before the ACK,
    /// with the next TSO burst) reaches its gain's inflight or a loss, the
    /// draining one ends early once it is down to the BDP's.
    fn update_cycle(&mut self, s: &SendState, ack: &AckInfo, losses: u64, now: SimTime) {
        let Some(rtprop) = self.model.rtprop() else {
            return;
        };
        let mss = s.mss() as u64;
        let full_length = now.since(self.cycle_start) > rtprop;
        let gain = self.pacing_gain;
        let bw = self.model.btl_bw();
        let advance = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            let in_net = ack.prior_in_flight + self.tso_segs_goal(mss) * mss;
            full_length && (losses > 0 || in_net >= self.inflight(bw, gain, mss))
        } else {
            full_length || ack.prior_in_flight <= self.inflight(bw, 1.0, mss)
        };
        if advance {
            self.cycle_index = (self.cycle_index + 1) % PROBE_BW_GAINS.len();
            self.cycle_start = now;
        }
    }

    /// ProbeRTT (the rest of `bbr_update_min_rtt`): entered when RTprop is
    /// 10 s old; cwnd 4 segments until 200 ms and a round trip have passed
    /// with at most 4 segments in flight.
    fn update_probe_rtt(
        &mut self,
        s: &mut SendState,
        expired: bool,
        round_start: bool,
        now: SimTime,
    ) {
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.probe_rtts += 1;
            self.save_cwnd(s);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        let mss = s.mss() as u64;
        match self.probe_rtt_done {
            None if s.pipe() <= MIN_CWND_SEGMENTS * mss => {
                self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.model.mark_round_start(s);
            }
            None => {}
            Some(done) => {
                if round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.model.refresh_rtprop(now);
                    s.cwnd = s.cwnd.max(self.prior_cwnd);
                    self.reset_mode(now);
                }
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (1.0 / HIGH_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (PROBE_BW_GAINS[self.cycle_index], 2.0),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// gain x BtlBw less the 1 % margin, bytes/s (`bbr_bw_to_pacing_rate`).
    fn pacing_rate(bw: f64, gain: f64) -> f64 {
        gain * bw * (1.0 - PACING_MARGIN)
    }

    /// `bbr_set_pacing_rate`: from the first RTT sample on, at first the
    /// initial window per SRTT at the high gain
    /// (`bbr_init_pacing_rate_from_rtt`); rising only, until the pipe is
    /// full.
    fn update_pacing(&mut self, s: &SendState) {
        if self.pacing == 0.0 {
            match s.rtt().srtt() {
                Some(srtt) => {
                    let bw = s.cwnd as f64 / srtt.as_secs_f64().max(1e-6);
                    self.pacing = Self::pacing_rate(bw, HIGH_GAIN);
                }
                None => return,
            }
        }
        let bw = self.model.btl_bw();
        let rate = Self::pacing_rate(bw, self.pacing_gain);
        if bw > 0.0 && (self.filled_pipe || rate > self.pacing) {
            self.pacing = rate;
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: cwnd less what this ACK
    /// presumed lost; at the start of recovery what is in flight plus what
    /// the ACK delivered, packet conservation for a round trip; at the end
    /// of recovery or a timeout the cwnd saved before. Returns cwnd and
    /// whether packet conservation holds.
    fn recover_or_restore(&mut self, s: &mut SendState, acked: u64, losses: u64) -> (u64, bool) {
        let mss = s.mss() as u64;
        let (prev, state) = (self.prev_state, s.state());
        let mut cwnd = s.cwnd;
        if losses > 0 {
            cwnd = cwnd.saturating_sub(losses).max(mss);
        }
        if state == CongState::Recovery && prev != CongState::Recovery {
            self.packet_conservation = true;
            self.model.mark_round_start(s);
            // Linux counts packets, so this is one at least (the ACK
            // delivered one); in bytes a short segment delivered with
            // nothing left in flight would make it less than one segment.
            cwnd = (s.pipe() + acked).max(mss);
        } else if recovering(prev) && !recovering(state) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            return (cwnd.max(s.pipe() + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: towards the target (gain x BDP plus the quantization
    /// budget), by what was delivered; down to it at once once the pipe
    /// is full; at least 4 segments; 4 at most in ProbeRTT. An ACK that
    /// delivered nothing changes nothing but the ProbeRTT cap.
    fn update_cwnd(&mut self, s: &mut SendState, acked: u64, losses: u64) {
        let mss = s.mss() as u64;
        let mut cwnd = s.cwnd;
        if acked > 0 {
            let conserving;
            (cwnd, conserving) = self.recover_or_restore(s, acked, losses);
            if !conserving {
                let target = self.inflight(self.model.btl_bw(), self.cwnd_gain, mss);
                if self.filled_pipe {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.model.delivered() < INIT_CWND_SEGMENTS * mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND_SEGMENTS * mss);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_CWND_SEGMENTS * mss);
        }
        s.cwnd = cwnd;
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR's cwnd moves in its ACK event (`CcEvent::AckProcessed`).
    fn on_ack(&mut self, _s: &mut SendState, _acked: u64, _now: SimTime) {}

    /// Loss recovery starts (or a tail loss probe repaired a loss): save
    /// cwnd for its end; ssthresh stays (Linux's `bbr_ssthresh`). cwnd is
    /// BBR's own (`owns_cwnd`): packet conservation in the ACK event.
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.save_cwnd(s);
        s.ssthresh
    }

    /// `tcp_enter_loss` with `bbr_ssthresh` and `bbr_set_state`: cwnd
    /// saved, one segment (everything outstanding presumed lost), the
    /// full-pipe estimate restarted; restored when the timeout's recovery
    /// ends.
    fn on_timeout(&mut self, s: &mut SendState) {
        self.save_cwnd(s);
        s.cwnd = s.mss() as u64;
        self.prev_state = CongState::Loss;
        self.full_bw = 0.0;
    }

    /// `bbr_undo_cwnd`: cwnd stays (the end of recovery restores it), the
    /// full-pipe estimate restarts; ssthresh back as the machinery's undo.
    fn undo(&mut self, s: &mut SendState) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        s.ssthresh = s.ssthresh.max(s.undo_state().prior_ssthresh);
    }

    fn owns_cwnd(&self) -> bool {
        true
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(_) => self.lost_at_ack = s.scoreboard().lost_bytes(),
            CcEvent::AckProcessed(ack) => self.on_ack_processed(s, ack, now),
            // BBR v1 does not answer ECN.
            CcEvent::EcnEcho => return Reply::Handled,
            // Nor does it let an unused cwnd shrink (Linux exempts its
            // cong_control from tcp_cwnd_restart and
            // tcp_cwnd_application_limited).
            CcEvent::UnusedCwnd => return Reply::Handled,
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
            ("probe_rtts", self.probe_rtts),
        ]
    }

    /// 1 Startup, 2 Drain, 3 ProbeBW, 4 ProbeRTT.
    fn trace_phase(&self) -> i32 {
        match self.mode {
            Mode::Startup => 1,
            Mode::Drain => 2,
            Mode::ProbeBw => 3,
            Mode::ProbeRtt => 4,
        }
    }
}

impl Bbr {
    /// Every ACK once the machinery has acted on it (`bbr_main`): the
    /// model and the state machine (`bbr_update_model`), then the pacing
    /// rate and cwnd.
    fn on_ack_processed(&mut self, s: &mut SendState, ack: &AckInfo, now: SimTime) {
        let acked = ack.newly_delivered;
        let losses = s.scoreboard().lost_bytes() - self.lost_at_ack;
        let app_limited = ack.rate.is_some_and(|r| r.is_app_limited);
        let round_start = self.model.update_bw(ack);
        if round_start {
            self.packet_conservation = false;
        }
        if self.mode == Mode::ProbeBw {
            self.update_cycle(s, ack, losses, now);
        }
        self.check_full_pipe(round_start, app_limited);
        self.check_drain(s, now);
        let expired = self.model.update_min_rtt(ack, now);
        self.update_probe_rtt(s, expired, round_start, now);
        self.update_gains();
        self.update_pacing(s);
        self.update_cwnd(s, acked, losses);
    }
}

#[cfg(test)]
mod tests;
