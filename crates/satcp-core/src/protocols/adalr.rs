//! TCP-ADaLR: TCP with adaptive delay and loss response (the TCP-ADaLR
//! thesis, Ch. 5; the OPNET paper, Algorithms 1-2). A sender-only change:
//!
//! 1. scaling component rho = sampleRTT / 1 s x 60, bounded to [1, 60]
//!    (Eq. 5.1), from every Karn-valid RTT sample;
//! 2. adaptive cwnd increase: slow start split into four sub-phases
//!    (Algorithm 5.1) growing by sqrt(rho)/4 SMSS per ACK while no loss has
//!    occurred and rho >= 15, and congestion avoidance growing by
//!    sqrt(rho)/2 SMSS^2/cwnd when the flight is below rwnd/2 (Algorithm 5.2);
//! 3. adaptive rwnd increase: the sender lets itself send beyond the
//!    advertised window (Algorithm 5.3);
//! 4. loss recovery (Algorithm 5.4 and Sec. 5.2.3): partial ACKs leave room
//!    for two back-to-back segments, the timer restarted after an expiry
//!    gets 200 ms more, and at most three segments are retransmitted per
//!    transmission round while recovering from a timeout.
//!
//! Every reading of the pseudo-code that had to be chosen is marked
//! "Reading:" and listed in docs/adalr.md.

use super::newreno::NewRenoRecovery;
use super::reno::reno_ca_increase;
use super::sack::SackRecovery;
use crate::engine::{Duration, SimTime};
use crate::tcp::congestion::CongestionControl;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::send_state::SendState;
use serde::{Deserialize, Serialize};

/// Parameters of TCP-ADaLR (defaults: thesis Ch. 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdalrConfig {
    /// rho at and above which the adaptive increments apply (rho = 15 is a
    /// sample RTT of 250 ms, Table 5.1).
    pub breakpoint: f64,
    /// Upper bound of rho (the minimum recommended maximum RTO, 60 s / 1 s).
    pub rho_max: f64,
    /// "per_ack": the usable window is the advertised window plus this
    /// ACK's increment; "cumulative": increments add up over ACKs.
    pub rwnd_mode: String,
    /// Added to the timer restarted after a timeout, seconds.
    pub rto_margin: f64,
    /// Retransmissions per transmission round while recovering from a timeout.
    pub rto_retransmit_limit: u32,
}

impl Default for AdalrConfig {
    fn default() -> Self {
        AdalrConfig {
            breakpoint: 15.0,
            rho_max: 60.0,
            rwnd_mode: "per_ack".into(),
            rto_margin: 0.2,
            rto_retransmit_limit: 3,
        }
    }
}

/// The slow-start sub-phase of Algorithm 5.1 an ACK fell in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubPhase {
    One = 1,
    Two = 2,
    Three = 3,
    Four = 4,
}

/// Which sub-phase the state is in, if any. Reading: the thesis chains the
/// tests with else-if, and sub-phase 4 (cwnd > ssthresh/2) is a special case
/// of sub-phase 3 (cwnd > ssthresh/4), so in that order it could never be
/// reached. All four give the same increment, so the order cannot change
/// cwnd; we test 4 before 3 so the label says what the thesis meant.
/// `rwnd` is the advertised window (Reading: Algorithms 5.1-5.2 run in
/// tcp_cwnd_update, apart from the send-size functions that Algorithm 5.3
/// changes).
pub fn sub_phase(cwnd: u64, ssthresh: u64, flight: u64, rwnd: u64) -> Option<SubPhase> {
    let (q_ss, h_ss) = (ssthresh / 4, ssthresh / 2);
    let (q_rw, h_rw) = (rwnd / 4, rwnd / 2);
    if cwnd <= q_ss && flight < q_rw {
        Some(SubPhase::One)
    } else if cwnd > q_ss && cwnd <= h_ss && flight < q_rw {
        Some(SubPhase::Two)
    } else if cwnd > h_ss && flight >= q_rw && flight < h_rw {
        Some(SubPhase::Four)
    } else if cwnd > q_ss && flight >= q_rw && flight < h_rw {
        Some(SubPhase::Three)
    } else {
        None
    }
}

/// sqrt(rho)/k, rounded up to one when smaller (Sec. 5.2.1).
fn factor(rho: f64, k: f64) -> f64 {
    (rho.sqrt() / k).max(1.0)
}

pub struct Adalr {
    cfg: AdalrConfig,
    /// The deviation gain of Table 7.4 (0.25): Algorithm 5.3's rtt_dev_gain.
    dev_gain: f64,
    rho: f64,
    /// Fractions of a byte left over by the congestion-avoidance increments.
    ca_carry: u64,
    ca_frac: f64,
    /// Sender-side window increase accumulated in "cumulative" mode.
    rwnd_extra: u64,
    last_phase: Option<SubPhase>,
}

impl Adalr {
    pub fn new(cfg: AdalrConfig, dev_gain: f64) -> Adalr {
        Adalr {
            cfg,
            dev_gain,
            // Reading: before the first sample rho takes its lower bound, so
            // the standard algorithm runs.
            rho: 1.0,
            ca_carry: 0,
            ca_frac: 0.0,
            rwnd_extra: 0,
            last_phase: None,
        }
    }

    pub fn rho(&self) -> f64 {
        self.rho
    }

    pub fn last_sub_phase(&self) -> Option<SubPhase> {
        self.last_phase
    }

    fn adaptive(&self) -> bool {
        self.rho >= self.cfg.breakpoint
    }

    /// Algorithm 5.3: how far beyond the advertised window this ACK lets
    /// the sender go, in bytes.
    fn rwnd_increment(&self, s: &SendState) -> u64 {
        if !self.adaptive() || s.flight_size() > s.rwnd || s.cwnd == s.ssthresh {
            return 0;
        }
        let mss = s.mss as u64;
        if s.recover == 0 {
            (self.dev_gain * self.rho * mss as f64) as u64
        } else if s.snd_una <= s.recover {
            mss
        } else {
            0
        }
    }

    /// Algorithm 5.2, slow start.
    fn slow_start_increase(&mut self, s: &SendState, acked: u64) -> u64 {
        let mss = s.mss as u64;
        self.last_phase = sub_phase(s.cwnd, s.ssthresh, s.flight_size(), s.rwnd);
        if self.last_phase.is_some() && s.recover == 0 && self.adaptive() {
            (factor(self.rho, 4.0) * mss as f64) as u64
        } else {
            // "exponentially as in TCP Reno": RFC 5681 Eq. 2.
            acked.min(mss)
        }
    }

    /// Algorithm 5.2, congestion avoidance.
    fn congestion_avoidance_increase(&mut self, s: &SendState) -> u64 {
        let flight = s.flight_size();
        let losses = s.recover != 0;
        let in_recovery_window = s.snd_una <= s.recover && self.adaptive() && losses;
        // Reading: the second branch's "flightsize < rwnd/2" holds whenever
        // the first branch's "flightsize >= rwnd/2" fails, so the scaled
        // increase applies exactly when the first branch does not.
        if in_recovery_window || flight >= s.rwnd / 2 {
            reno_ca_increase(s, &mut self.ca_carry)
        } else {
            let mss = s.mss as f64;
            self.ca_frac += factor(self.rho, 2.0) * mss * mss / s.cwnd.max(1) as f64;
            let whole = self.ca_frac.floor();
            self.ca_frac -= whole;
            whole as u64
        }
    }
}

impl CongestionControl for Adalr {
    fn name(&self) -> &'static str {
        "adalr"
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, _now: SimTime) {
        if self.cfg.rwnd_mode == "cumulative" {
            self.rwnd_extra += self.rwnd_increment(s);
        }
        // Reading: cwnd == ssthresh counts as congestion avoidance; taken
        // literally (neither branch) cwnd would freeze at ssthresh, which is
        // where NewReno leaves it after every recovery.
        if s.cwnd < s.ssthresh {
            s.cwnd += self.slow_start_increase(s, acked);
        } else {
            self.last_phase = None;
            s.cwnd += self.congestion_avoidance_increase(s);
        }
    }

    fn on_rtt_sample(&mut self, _s: &mut SendState, rtt: Duration) {
        self.rho = (rtt.as_secs_f64() / 1.0 * 60.0).clamp(1.0, self.cfg.rho_max);
    }

    fn on_rto(&mut self, s: &mut SendState) {
        s.ssthresh = s.half_flight();
        s.cwnd = s.mss as u64;
        self.rwnd_extra = 0;
    }

    fn send_window_limit(&self, s: &SendState) -> u64 {
        if self.cfg.rwnd_mode == "cumulative" {
            if s.recover != 0 && s.snd_una > s.recover {
                return s.rwnd;
            }
            s.rwnd + self.rwnd_extra
        } else {
            s.rwnd + self.rwnd_increment(s)
        }
    }

    fn trace_phase(&self) -> i32 {
        self.last_phase.map_or(0, |p| p as i32)
    }
}

/// Algorithm 5.4 on a NewReno partial ACK: deflate by the bytes
/// acknowledged and add two SMSS, never below two SMSS. Reading: the
/// pseudo-code's test "snd_una > snd_recover" would mean recovery is over;
/// the text says the rule acts "during the fast recovery phase" and replaces
/// NewReno's "deflate and add one SMSS", so it applies to partial ACKs.
pub fn two_segment_deflation(s: &mut SendState, acked: u64) {
    let mss = s.mss as u64;
    s.cwnd = if s.cwnd <= acked {
        2 * mss
    } else {
        s.cwnd - acked + 2 * mss
    };
}

/// The loss-recovery side of TCP-ADaLR on top of NewReno or SACK.
pub struct AdalrRecovery<R> {
    base: R,
    cfg: AdalrConfig,
}

impl<R> AdalrRecovery<R> {
    pub fn new(base: R, cfg: AdalrConfig) -> Self {
        AdalrRecovery { base, cfg }
    }
}

macro_rules! delegate_recovery_common {
    () => {
        fn loss_detected(&self, s: &SendState) -> bool {
            self.base.loss_detected(s)
        }
        fn enter(&mut self, s: &mut SendState) {
            self.base.enter(s)
        }
        fn on_dupack(&mut self, s: &mut SendState) {
            self.base.on_dupack(s)
        }
        fn rto_restart_margin(&self) -> Duration {
            Duration::from_secs_f64(self.cfg.rto_margin)
        }
        fn timeout_retransmit_limit(&self) -> Option<u32> {
            Some(self.cfg.rto_retransmit_limit)
        }
    };
}

impl LossRecovery for AdalrRecovery<NewRenoRecovery> {
    fn name(&self) -> &'static str {
        "adalr-newreno"
    }
    delegate_recovery_common!();

    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64) {
        two_segment_deflation(s, acked);
        NewRenoRecovery::retransmit_first_hole(s);
    }

    fn exit(&mut self, s: &mut SendState) {
        self.base.exit(s)
    }
}

impl LossRecovery for AdalrRecovery<SackRecovery> {
    fn name(&self) -> &'static str {
        "adalr-sack"
    }
    delegate_recovery_common!();

    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64) {
        self.base.on_partial_ack(s, acked);
        // Reading: SACK recovery counts pipe instead of deflating cwnd, so
        // "two back-to-back segments per partial ACK" becomes: leave room for
        // two full segments above the pipe.
        s.cwnd = s.cwnd.max(s.pipe() + 2 * s.mss as u64);
    }

    fn exit(&mut self, s: &mut SendState) {
        // What the partial ACKs added is given back: recovery ends at ssthresh.
        self.base.exit(s);
        s.cwnd = s.cwnd.min(s.ssthresh);
    }
}
