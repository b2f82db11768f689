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

use super::reno::reno_ca_increase;
use super::{Settings, Showcase, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{bad, non_negative, positive, range, ScenarioError, MAX_SETTING};
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::{
    LossRecovery, NewRenoRecovery, RecoveryAck, RecoveryRules, SackRecovery,
};
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

/// TCP-ADaLR over NewReno (`adalr-newreno`) or SACK (`adalr-sack`).
pub const VARIANT: Variant = Variant::new::<AdalrConfig>(
    "adalr",
    "TCP-ADaLR (thesis Ch. 5): delay-scaled cwnd and rwnd increase, loss recovery tweaks",
    &[Recovery::NewReno, Recovery::Sack],
    &[
        ("adalr-newreno", Recovery::NewReno),
        ("adalr-sack", Recovery::Sack),
    ],
)
.compared_as(&[Showcase {
    label: "TCP-ADaLR",
    tcp: r#"{"variant": "adalr-sack"}"#,
}]);

impl Settings for AdalrConfig {
    fn check(&mut self, input: &VariantInput) -> Result<(), ScenarioError> {
        self.validate()?;
        self.deviation_gain = input.tcp.deviation_gain;
        Ok(())
    }
}

impl VariantFactory for AdalrConfig {
    fn endpoint(&self, recovery: Recovery) -> EndpointParts {
        let cfg = self.clone();
        let module: Box<dyn LossRecovery> = match recovery {
            Recovery::NewReno => Box::new(AdalrRecovery::new(NewRenoRecovery, cfg.clone())),
            Recovery::Sack => Box::new(AdalrRecovery::new(SackRecovery, cfg.clone())),
        };
        EndpointParts::new(
            Box::new(Adalr::new(cfg, self.deviation_gain)),
            module,
            recovery == Recovery::Sack,
        )
    }
}

/// Parameters of TCP-ADaLR (defaults: thesis Ch. 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AdalrConfig {
    /// rho at and above which the adaptive increments apply (rho = 15 is a
    /// sample RTT of 250 ms, Table 5.1).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub breakpoint: f64,
    /// Upper bound of rho (the minimum recommended maximum RTO, 60 s / 1 s).
    #[schemars(range(min = 1.0, max = crate::error::MAX_SETTING))]
    pub rho_max: f64,
    /// "per_ack": the usable window is the advertised window plus this
    /// ACK's increment; "cumulative": increments add up over ACKs.
    #[schemars(extend("enum" = RWND_MODES))]
    pub rwnd_mode: String,
    /// Added to the timer restarted after a timeout, seconds.
    #[schemars(range(min = 0.0, max = crate::error::MAX_SETTING), extend("x-unit" = "s"))]
    pub rto_margin: f64,
    /// Retransmissions per transmission round while recovering from a timeout.
    #[schemars(range(min = 1))]
    pub rto_retransmit_limit: u32,
    /// The RTO estimator's deviation gain (`tcp.deviation_gain`).
    #[serde(skip)]
    pub deviation_gain: f64,
}

/// The values of `rwnd_mode`.
pub const RWND_MODES: [&str; 2] = ["per_ack", "cumulative"];

impl AdalrConfig {
    fn validate(&self) -> Result<(), ScenarioError> {
        positive("breakpoint", self.breakpoint)?;
        // rho is clamped to [1, rho_max].
        range("rho_max", self.rho_max, 1.0, MAX_SETTING)?;
        non_negative("rto_margin", self.rto_margin)?;
        if !RWND_MODES.contains(&self.rwnd_mode.as_str()) {
            return Err(bad(
                "rwnd_mode",
                format!("{:?}", self.rwnd_mode),
                "is not a mode (per_ack, cumulative)",
            ));
        }
        if self.rto_retransmit_limit == 0 {
            return Err(bad("rto_retransmit_limit", 0, "must be at least 1"));
        }
        Ok(())
    }
}

impl Default for AdalrConfig {
    fn default() -> Self {
        AdalrConfig {
            breakpoint: 15.0,
            rho_max: 60.0,
            rwnd_mode: "per_ack".into(),
            rto_margin: 0.2,
            rto_retransmit_limit: 3,
            deviation_gain: crate::tcp::TcpConfig::default().deviation_gain,
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
    /// the sender go, in bytes. Reading (as in `on_ack`): cwnd == ssthresh
    /// is congestion avoidance; the literal "else do nothing" would take the
    /// increase away for the round in which NewReno's recovery ends at
    /// cwnd = ssthresh, while cwnd itself grows as in congestion avoidance.
    fn rwnd_increment(&self, s: &SendState) -> u64 {
        if !self.adaptive() || s.flight_size() > s.rwnd() {
            return 0;
        }
        let mss = s.mss() as u64;
        if s.recover() == 0 {
            (self.dev_gain * self.rho * mss as f64) as u64
        } else if s.snd_una() <= s.recover() {
            mss
        } else {
            0
        }
    }

    /// Algorithm 5.2, slow start.
    fn slow_start_increase(&mut self, s: &SendState, acked: u64) -> u64 {
        let mss = s.mss() as u64;
        self.last_phase = sub_phase(s.cwnd, s.ssthresh, s.flight_size(), s.rwnd());
        if self.last_phase.is_some() && s.recover() == 0 && self.adaptive() {
            (factor(self.rho, 4.0) * mss as f64) as u64
        } else {
            // "exponentially as in TCP Reno": RFC 5681 Eq. 2.
            acked.min(mss)
        }
    }

    /// Algorithm 5.2, congestion avoidance.
    fn congestion_avoidance_increase(&mut self, s: &SendState) -> u64 {
        let flight = s.flight_size();
        let losses = s.recover() != 0;
        let in_recovery_window = s.snd_una() <= s.recover() && self.adaptive() && losses;
        // Reading: the second branch's "flightsize < rwnd/2" holds whenever
        // the first branch's "flightsize >= rwnd/2" fails, so the scaled
        // increase applies exactly when the first branch does not.
        if in_recovery_window || flight >= s.rwnd() / 2 {
            reno_ca_increase(s, &mut self.ca_carry)
        } else {
            let mss = s.mss() as f64;
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
            // Partial ACKs of fast recovery go to the recovery module and
            // add nothing here (docs/adalr.md, reading 4).
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

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.halved_window()
    }

    fn on_event(&mut self, _s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        if let CcEvent::RttSample(rtt) = ev {
            self.rho = (rtt.as_secs_f64() / 1.0 * 60.0).clamp(1.0, self.cfg.rho_max);
        }
        Reply::Default
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
        self.rwnd_extra = 0;
    }

    fn send_window_limit(&self, s: &SendState) -> u64 {
        if self.cfg.rwnd_mode == "cumulative" {
            // Algorithm 5.3 applied to a window that keeps its increases:
            // after a recovery window "do nothing" leaves it as it is, and
            // only a timeout resets it (docs/adalr.md, reading 4). Dropping
            // to the advertised window after a recovery without clearing
            // the sum would bring the old sum back in the next recovery
            // window.
            s.rwnd() + self.rwnd_extra
        } else {
            s.rwnd() + self.rwnd_increment(s)
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
    let mss = s.mss() as u64;
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

impl<R: LossRecovery> AdalrRecovery<R> {
    /// The rules of the base module with TCP-ADaLR's timeout margin and
    /// retransmission limit.
    fn adalr_rules(&self) -> RecoveryRules {
        RecoveryRules {
            rto_restart_margin: Duration::from_secs_f64(self.cfg.rto_margin),
            timeout_retransmit_limit: Some(self.cfg.rto_retransmit_limit),
            // Algorithm 5.4's deflation is ADaLR's own (PRR leaves it alone).
            standard_cwnd: false,
            ..self.base.rules()
        }
    }
}

impl LossRecovery for AdalrRecovery<NewRenoRecovery> {
    fn name(&self) -> &'static str {
        "adalr-newreno"
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        self.base.enter(s, reduced)
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        match ack {
            RecoveryAck::Partial { acked } => {
                two_segment_deflation(s, acked);
                s.retransmit_first_now();
            }
            RecoveryAck::Duplicate => self.base.on_ack(s, ack),
        }
    }

    fn exit(&mut self, s: &mut SendState) {
        self.base.exit(s)
    }

    fn rules(&self) -> RecoveryRules {
        self.adalr_rules()
    }
}

impl LossRecovery for AdalrRecovery<SackRecovery> {
    fn name(&self) -> &'static str {
        "adalr-sack"
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        self.base.loss_detected(s)
    }

    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        self.base.enter(s, reduced)
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        self.base.on_ack(s, ack);
        if let RecoveryAck::Partial { .. } = ack {
            // Reading: SACK recovery counts pipe instead of deflating cwnd,
            // so "two back-to-back segments per partial ACK" becomes: leave
            // room for two full segments above the pipe.
            s.cwnd = s.cwnd.max(s.pipe() + 2 * s.mss() as u64);
        }
    }

    fn exit(&mut self, s: &mut SendState) {
        // What the partial ACKs added is given back: recovery ends at ssthresh.
        self.base.exit(s);
        s.cwnd = s.cwnd.min(s.ssthresh);
    }

    fn rules(&self) -> RecoveryRules {
        self.adalr_rules()
    }
}

#[cfg(test)]
mod tests {
    //! Each rule of docs/adalr.md pinned on a hand-built sender state: state
    //! in, cwnd or window limit out. SMSS is 1460 bytes, ssthresh and rwnd
    //! 65,535 unless a test says otherwise, so ssthresh/4 = rwnd/4 = 16,383
    //! and ssthresh/2 = rwnd/2 = 32,767.

    use super::*;
    use crate::net::packet::SeqRange;
    use crate::protocols::reno::Reno;
    use crate::tcp::CongState;
    use crate::tcp::{TcpConfig, TcpEndpoint};

    const MSS: u64 = 1460;
    const RWND: u64 = 65_535;

    /// A sender state with `flight` bytes outstanding (the sent queue stays
    /// empty: the congestion module reads only the
    /// sequence variables).
    fn state(cwnd: u64, ssthresh: u64, flight: u64) -> SendState {
        let cfg = TcpConfig::default();
        let ep = TcpEndpoint::new(
            &cfg,
            false,
            Box::new(Reno::new()),
            Box::new(NewRenoRecovery),
        );
        let mut s = ep.tx;
        assert_eq!((s.mss() as u64, s.rwnd()), (MSS, RWND));
        // Far from 0, so that snd_recover = snd_una - 1 is a real loss.
        s.set_snd_una(100_001);
        s.set_snd_max(s.snd_una() + flight);
        s.cwnd = cwnd;
        s.ssthresh = ssthresh;
        s
    }

    /// The same, with `segs` full segments really in the sent queue (for
    /// what reads pipe or the scoreboard).
    fn state_with_segments(cwnd: u64, ssthresh: u64, segs: u64) -> SendState {
        let mut s = state(cwnd, ssthresh, 0);
        s.set_snd_una(1);
        s.set_snd_max(1);
        for i in 0..segs {
            s.send_new(MSS, SimTime(i));
        }
        s
    }

    fn adalr_with_rtt(rtt_s: f64) -> Adalr {
        adalr_cfg_with_rtt(AdalrConfig::default(), rtt_s)
    }

    fn adalr_cfg_with_rtt(cfg: AdalrConfig, rtt_s: f64) -> Adalr {
        let mut cc = Adalr::new(cfg, 0.25);
        let mut s = state(2 * MSS, RWND, 0);
        cc.on_event(
            &mut s,
            CcEvent::RttSample(Duration::from_secs_f64(rtt_s)),
            SimTime::ZERO,
        );
        cc
    }

    /// cwnd added by one ACK of `acked` bytes.
    fn grow(cc: &mut Adalr, s: &mut SendState, acked: u64) -> u64 {
        let before = s.cwnd;
        cc.on_ack(s, acked, SimTime::ZERO);
        s.cwnd - before
    }

    // ----- Eq. 5.1 -----

    #[test]
    fn rho_is_sample_rtt_times_60_bounded_to_1_and_60() {
        let cc = Adalr::new(AdalrConfig::default(), 0.25);
        assert_eq!(cc.rho(), 1.0, "before the first sample");
        for (rtt, rho) in [
            (0.52, 31.2),
            (0.25, 15.0),
            (1.0, 60.0),
            (2.0, 60.0),
            (0.005, 1.0),
            (0.01, 1.0),
            (0.1, 6.0),
        ] {
            let got = adalr_with_rtt(rtt).rho();
            assert!(
                (got - rho).abs() < 1e-9,
                "rtt {rtt} s: rho {got}, want {rho}"
            );
        }
        // Every sample replaces the last one (no smoothing).
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(2 * MSS, RWND, 0);
        cc.on_event(
            &mut s,
            CcEvent::RttSample(Duration::from_millis(300)),
            SimTime::ZERO,
        );
        assert!((cc.rho() - 18.0).abs() < 1e-9);
    }

    // ----- Algorithms 5.1-5.2, slow start -----

    #[test]
    fn sub_phases_of_algorithm_5_1() {
        let ss = RWND;
        // (cwnd, flight) -> sub-phase
        for (cwnd, flight, want) in [
            (5840, 2920, Some(SubPhase::One)),
            (16_383, 16_382, Some(SubPhase::One)),
            (16_384, 16_382, Some(SubPhase::Two)),
            (32_767, 8000, Some(SubPhase::Two)),
            (20_000, 16_383, Some(SubPhase::Three)),
            (32_767, 32_766, Some(SubPhase::Three)),
            // cwnd > ssthresh/2: sub-phase 4, which also meets 3's test.
            (32_768, 20_000, Some(SubPhase::Four)),
            (60_000, 32_766, Some(SubPhase::Four)),
            // No sub-phase: flight at least rwnd/2 ...
            (20_000, 32_767, None),
            (60_000, 40_000, None),
            // ... a small cwnd with a flight of at least rwnd/4 ...
            (10_000, 20_000, None),
            // ... or a large cwnd with a small flight.
            (40_000, 8000, None),
        ] {
            assert_eq!(
                sub_phase(cwnd, ss, flight, RWND),
                want,
                "cwnd {cwnd}, flight {flight}"
            );
        }
    }

    /// rho = 31.2 (sample RTT 0.52 s): sqrt(31.2)/4 = 1.3964, so every ACK in
    /// a sub-phase adds 2038 bytes, whatever it acknowledged.
    #[test]
    fn slow_start_sub_phases_add_sqrt_rho_over_4_smss() {
        for (cwnd, flight, phase) in [
            (5840, 2920, 1),
            (20_000, 8000, 2),
            (20_000, 20_000, 3),
            (40_000, 20_000, 4),
        ] {
            for acked in [500, MSS, 2 * MSS] {
                let mut cc = adalr_with_rtt(0.52);
                let mut s = state(cwnd, RWND, flight);
                assert_eq!(grow(&mut cc, &mut s, acked), 2038, "sub-phase {phase}");
                assert_eq!(cc.trace_phase(), phase);
                assert_eq!(cc.last_sub_phase().map(|p| p as i32), Some(phase));
            }
        }
        // rho at its bound 60: sqrt(60)/4 = 1.9365 -> 2827 bytes.
        let mut cc = adalr_with_rtt(2.0);
        let mut s = state(5840, RWND, 2920);
        assert_eq!(grow(&mut cc, &mut s, MSS), 2827);
    }

    /// Outside the sub-phases slow start is RFC 5681's min(acked, SMSS).
    #[test]
    fn slow_start_outside_sub_phases_is_standard() {
        for (cwnd, flight) in [(20_000, 40_000), (10_000, 20_000), (40_000, 8000)] {
            for (acked, want) in [(500, 500), (MSS, MSS), (2 * MSS, MSS)] {
                let mut cc = adalr_with_rtt(0.52);
                let mut s = state(cwnd, RWND, flight);
                assert_eq!(grow(&mut cc, &mut s, acked), want);
                assert_eq!(cc.trace_phase(), 0);
            }
        }
    }

    /// Once a loss has occurred (snd_recover != 0) every sub-phase falls
    /// back to the standard increase, in or after the recovery window.
    #[test]
    fn slow_start_after_a_loss_is_standard() {
        for (cwnd, flight, phase) in [
            (5840, 2920, 1),
            (20_000, 8000, 2),
            (20_000, 20_000, 3),
            (40_000, 20_000, 4),
        ] {
            for recover in [100_001 + flight, 100_000] {
                for (acked, want) in [(500, 500), (2 * MSS, MSS)] {
                    let mut cc = adalr_with_rtt(0.52);
                    let mut s = state(cwnd, RWND, flight);
                    s.set_recover(recover);
                    assert_eq!(grow(&mut cc, &mut s, acked), want, "sub-phase {phase}");
                    // The label still says where slow start is.
                    assert_eq!(cc.trace_phase(), phase);
                }
            }
        }
    }

    /// Below the breakpoint (rho < 15) slow start is standard; before the
    /// first sample rho = 1.
    #[test]
    fn slow_start_below_the_breakpoint_is_standard() {
        for cc in [
            adalr_with_rtt(0.2),
            adalr_with_rtt(0.2499),
            Adalr::new(AdalrConfig::default(), 0.25),
        ] {
            let mut cc = cc;
            let mut s = state(5840, RWND, 2920);
            assert_eq!(grow(&mut cc, &mut s, 2 * MSS), MSS);
            assert_eq!(grow(&mut cc, &mut s, 500), 500);
        }
    }

    /// At the breakpoint rho = 15, sqrt(15)/4 = 0.968 is rounded up to one:
    /// one SMSS per ACK even when the ACK covers less than one SMSS.
    #[test]
    fn slow_start_factor_below_one_rounds_up_to_one_smss() {
        let mut cc = adalr_with_rtt(0.25);
        assert_eq!(cc.rho(), 15.0);
        let mut s = state(5840, RWND, 2920);
        assert_eq!(grow(&mut cc, &mut s, 500), MSS);
        assert_eq!(grow(&mut cc, &mut s, 2 * MSS), MSS);
    }

    // ----- Algorithm 5.2, congestion avoidance -----

    /// Runs `acks` ACKs on ADaLR and on standard Reno from the same state;
    /// returns the bytes each added.
    fn ca_vs_reno(cc: &mut Adalr, s: &SendState, acks: u32) -> (u64, u64) {
        let mut a = state(s.cwnd, s.ssthresh, s.flight_size());
        a.set_recover(s.recover());
        a.set_snd_una(s.snd_una());
        a.set_snd_max(s.snd_max());
        let mut r = state(s.cwnd, s.ssthresh, s.flight_size());
        let mut reno = Reno::new();
        for _ in 0..acks {
            cc.on_ack(&mut a, MSS, SimTime::ZERO);
            reno.on_ack(&mut r, MSS, SimTime::ZERO);
            assert_eq!(cc.trace_phase(), 0, "congestion avoidance has no sub-phase");
        }
        (a.cwnd - s.cwnd, r.cwnd - s.cwnd)
    }

    /// Flight at least rwnd/2: the standard SMSS^2/cwnd, byte for byte.
    #[test]
    fn congestion_avoidance_with_large_flight_is_standard() {
        let mut cc = adalr_with_rtt(0.52);
        let s = state(40_000, 30_000, 40_000);
        let (a, r) = ca_vs_reno(&mut cc, &s, 30);
        assert_eq!(a, r);
        // 30 ACKs of 53.29 bytes each (cwnd grows along the way).
        // 30 ACKs of 53.29 bytes at first, 51.3 at the end (cwnd grows).
        assert!((1550..=1599).contains(&a), "{a}");
    }

    /// Inside a recovery window (losses seen, snd_una <= snd_recover, rho
    /// >= 15): standard, even with a small flight.
    #[test]
    fn congestion_avoidance_in_a_recovery_window_is_standard() {
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(40_000, 30_000, 10_000);
        s.set_recover(s.snd_max());
        let (a, r) = ca_vs_reno(&mut cc, &s, 30);
        assert_eq!(a, r);
    }

    /// Otherwise sqrt(rho)/2 x SMSS^2/cwnd, the fractions of a byte carried
    /// from ACK to ACK: with cwnd held at 40,000 and rho = 31.2 every ACK is
    /// worth 2.7928 x 53.29 = 148.83 bytes, so ten ACKs add 1488, not
    /// 10 x 148.
    #[test]
    fn congestion_avoidance_scaled_increase_carries_fractions() {
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(40_000, 30_000, 10_000);
        let mut steps = Vec::new();
        for _ in 0..10 {
            s.cwnd = 40_000;
            steps.push(grow(&mut cc, &mut s, MSS));
        }
        assert_eq!(steps.iter().sum::<u64>(), 1488, "{steps:?}");
        assert!(steps.iter().all(|&x| x == 148 || x == 149), "{steps:?}");
        // The same after a loss, once the recovery window is over.
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(40_000, 30_000, 10_000);
        s.set_recover(s.snd_una() - 1);
        let mut total = 0;
        for _ in 0..10 {
            s.cwnd = 40_000;
            total += grow(&mut cc, &mut s, MSS);
        }
        assert_eq!(total, 1488);
    }

    /// Reading 7: below the breakpoint branch 2 still runs: rho = 12 gives
    /// sqrt(12)/2 = 1.732 times the standard step; rho = 1 rounds up to the
    /// standard step.
    #[test]
    fn congestion_avoidance_below_the_breakpoint() {
        let mut cc = adalr_with_rtt(0.2);
        let mut s = state(40_000, 30_000, 10_000);
        let mut total = 0;
        for _ in 0..10 {
            s.cwnd = 40_000;
            total += grow(&mut cc, &mut s, MSS);
        }
        assert_eq!(total, 923); // 10 x 1.7321 x 53.29 = 923.01
        let mut cc = Adalr::new(AdalrConfig::default(), 0.25);
        let mut s = state(40_000, 30_000, 10_000);
        let mut total = 0;
        for _ in 0..10 {
            s.cwnd = 40_000;
            total += grow(&mut cc, &mut s, MSS);
        }
        assert_eq!(total, 532); // 10 x 53.29
    }

    /// Reading 6: cwnd == ssthresh is congestion avoidance (cwnd does not
    /// freeze there).
    #[test]
    fn cwnd_equal_to_ssthresh_is_congestion_avoidance() {
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(40_000, 40_000, 10_000);
        assert_eq!(grow(&mut cc, &mut s, MSS), 148);
        assert_eq!(cc.trace_phase(), 0);
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(40_000, 40_000, 40_000);
        assert_eq!(grow(&mut cc, &mut s, MSS), 53);
    }

    // ----- Algorithm 5.3 -----

    /// 0.25 x 31.2 x 1460 = 11,388 bytes.
    const EXTRA: u64 = 11_388;

    #[test]
    fn adaptive_rwnd_per_ack() {
        let cc = adalr_with_rtt(0.52);
        // No loss: slow start, congestion avoidance, cwnd == ssthresh.
        for (cwnd, ssthresh) in [(20_000, RWND), (70_000, 40_000), (40_000, 40_000)] {
            let s = state(cwnd, ssthresh, 30_000);
            assert_eq!(cc.send_window_limit(&s), RWND + EXTRA, "cwnd {cwnd}");
        }
        // The flight may reach rwnd, not exceed it.
        let s = state(70_000, 40_000, RWND);
        assert_eq!(cc.send_window_limit(&s), RWND + EXTRA);
        let s = state(70_000, 40_000, RWND + 1);
        assert_eq!(cc.send_window_limit(&s), RWND);
        // Losses seen: one SMSS inside the recovery window (snd_una <=
        // snd_recover), nothing after it.
        for (cwnd, ssthresh) in [(20_000, RWND), (70_000, 40_000)] {
            let mut s = state(cwnd, ssthresh, 30_000);
            s.set_recover(s.snd_max());
            assert_eq!(cc.send_window_limit(&s), RWND + MSS);
            s.set_recover(s.snd_una());
            assert_eq!(cc.send_window_limit(&s), RWND + MSS);
            s.set_recover(s.snd_una() - 1);
            assert_eq!(cc.send_window_limit(&s), RWND);
        }
        // Below the breakpoint: the advertised window.
        for cc in [
            adalr_with_rtt(0.2),
            Adalr::new(AdalrConfig::default(), 0.25),
        ] {
            let mut s = state(20_000, RWND, 30_000);
            assert_eq!(cc.send_window_limit(&s), RWND);
            s.set_recover(s.snd_max());
            assert_eq!(cc.send_window_limit(&s), RWND);
        }
        // rho = 60: 0.25 x 60 x 1460 = 21,900.
        let s = state(20_000, RWND, 30_000);
        assert_eq!(adalr_with_rtt(2.0).send_window_limit(&s), RWND + 21_900);
        // Per ACK, nothing accumulates.
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(20_000, RWND, 30_000);
        for _ in 0..5 {
            cc.on_ack(&mut s, MSS, SimTime::ZERO);
        }
        assert_eq!(cc.send_window_limit(&s), RWND + EXTRA);
    }

    #[test]
    fn adaptive_rwnd_cumulative() {
        let cfg = AdalrConfig {
            rwnd_mode: "cumulative".into(),
            ..AdalrConfig::default()
        };
        let mut cc = adalr_cfg_with_rtt(cfg, 0.52);
        let mut s = state(20_000, RWND, 30_000);
        assert_eq!(cc.send_window_limit(&s), RWND, "nothing acknowledged yet");
        for n in 1..=3 {
            cc.on_ack(&mut s, MSS, SimTime::ZERO);
            assert_eq!(cc.send_window_limit(&s), RWND + n * EXTRA);
        }
        // An ACK whose flight exceeds rwnd adds nothing, and takes nothing.
        let mut big = state(s.cwnd, RWND, RWND + 1);
        cc.on_ack(&mut big, MSS, SimTime::ZERO);
        assert_eq!(cc.send_window_limit(&s), RWND + 3 * EXTRA);
        // After a loss, ACKs in the recovery window add one SMSS each and
        // ACKs after it nothing; what was added stays.
        s.set_recover(s.snd_max());
        cc.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(cc.send_window_limit(&s), RWND + 3 * EXTRA + MSS);
        s.set_recover(s.snd_una() - 1);
        cc.on_ack(&mut s, MSS, SimTime::ZERO);
        assert_eq!(cc.send_window_limit(&s), RWND + 3 * EXTRA + MSS);
        // A timeout resets it.
        cc.on_timeout(&mut s);
        assert_eq!(cc.send_window_limit(&s), RWND);
    }

    #[test]
    fn timeout_halves_the_flight_and_restarts_from_one_segment() {
        let mut cc = adalr_with_rtt(0.52);
        let mut s = state(50_000, RWND, 40_000);
        cc.on_timeout(&mut s);
        assert_eq!((s.cwnd, s.ssthresh), (MSS, 20_000));
    }

    // ----- Algorithm 5.4 and Sec. 5.2.3 -----

    #[test]
    fn two_segment_deflation_of_algorithm_5_4() {
        for (cwnd, acked, want) in [
            (5840, 8000, 2 * MSS),
            (5840, 5840, 2 * MSS),
            (5840, 5839, 1 + 2 * MSS),
            (20_000, 4380, 20_000 - 4380 + 2 * MSS),
            (20_000, 500, 20_000 - 500 + 2 * MSS),
        ] {
            let mut s = state(cwnd, 10_000, 30_000);
            two_segment_deflation(&mut s, acked);
            assert_eq!(s.cwnd, want, "cwnd {cwnd}, acked {acked}");
        }
    }

    #[test]
    fn newreno_partial_ack_deflates_to_two_segments_and_resends_the_hole() {
        for (cwnd, acked, adalr, newreno) in [
            (20_000, 4380, 18_540, 17_080),
            (5840, 8760, 2 * MSS, 2 * MSS),
            (20_000, 500, 22_420, 19_500),
        ] {
            let mut s = state_with_segments(cwnd, 10_000, 10);
            s.set_state(CongState::Recovery);
            s.set_recover(s.snd_max());
            let mut rec = AdalrRecovery::new(NewRenoRecovery, AdalrConfig::default());
            assert_eq!(rec.name(), "adalr-newreno");
            rec.on_ack(&mut s, RecoveryAck::Partial { acked });
            assert_eq!(s.cwnd, adalr);
            assert!(s.retransmit_now());
            assert_eq!(s.scoreboard().next_lost(), Some(0));
            assert!(s.scoreboard().get(0).lost);
            // Plain NewReno adds one SMSS back (and only for a full SMSS).
            let mut s = state_with_segments(cwnd, 10_000, 10);
            NewRenoRecovery.on_ack(&mut s, RecoveryAck::Partial { acked });
            assert_eq!(s.cwnd, newreno);
        }
        // Entering, duplicate ACKs and exit are NewReno's.
        let mut rec = AdalrRecovery::new(NewRenoRecovery, AdalrConfig::default());
        let mut s = state_with_segments(30_000, 10_000, 10);
        rec.enter(&mut s, true);
        assert_eq!(s.cwnd, 10_000 + 3 * MSS);
        assert!(s.retransmit_now() && s.scoreboard().next_lost() == Some(0));
        rec.on_ack(&mut s, RecoveryAck::Duplicate);
        assert_eq!(s.cwnd, 10_000 + 4 * MSS);
        rec.exit(&mut s);
        assert_eq!(s.cwnd, 10_000);
    }

    #[test]
    fn sack_partial_ack_leaves_room_for_two_segments_above_pipe() {
        let mut rec = AdalrRecovery::new(SackRecovery, AdalrConfig::default());
        assert_eq!(rec.name(), "adalr-sack");
        // Ten segments, none SACKed: pipe = 10 SMSS, cwnd = ssthresh = 5.
        let mut s = state_with_segments(5 * MSS, 5 * MSS, 10);
        s.set_sack(true);
        s.set_state(CongState::Recovery);
        s.set_recover(s.snd_max());
        assert_eq!(s.pipe(), 10 * MSS);
        rec.on_ack(&mut s, RecoveryAck::Partial { acked: MSS });
        assert_eq!(s.cwnd, 12 * MSS);
        // SACKed segments leave pipe; cwnd never shrinks here.
        s.scoreboard_mut()
            .apply_sack(&[SeqRange::new(1 + 5 * MSS, 1 + 10 * MSS)], SimTime::ZERO);
        assert_eq!(s.pipe(), 5 * MSS);
        rec.on_ack(&mut s, RecoveryAck::Partial { acked: MSS });
        // The scoreboard now presumes the five unSACKed segments lost.
        assert_eq!(s.pipe(), 0);
        assert_eq!(s.cwnd, 12 * MSS);
        // With a small pipe cwnd stays; the exit gives back to ssthresh.
        let mut t = state_with_segments(8 * MSS, 8 * MSS, 3);
        rec.on_ack(&mut t, RecoveryAck::Partial { acked: MSS });
        assert_eq!(t.cwnd, 8 * MSS);
        rec.exit(&mut s);
        assert_eq!(s.cwnd, 5 * MSS);
        let mut u = state_with_segments(3 * MSS, 5 * MSS, 3);
        rec.exit(&mut u);
        assert_eq!(u.cwnd, 3 * MSS);
        // Entering is SACK's: cwnd = ssthresh.
        let mut v = state_with_segments(20 * MSS, 6 * MSS, 10);
        rec.enter(&mut v, true);
        assert_eq!(v.cwnd, 6 * MSS);
    }

    #[test]
    fn timer_margin_and_retransmission_limit() {
        let cfg = AdalrConfig::default();
        let nr = AdalrRecovery::new(NewRenoRecovery, cfg.clone());
        let sk = AdalrRecovery::new(SackRecovery, cfg);
        for r in [&nr as &dyn LossRecovery, &sk] {
            assert_eq!(r.rules().rto_restart_margin, Duration::from_millis(200));
            assert_eq!(r.rules().timeout_retransmit_limit, Some(3));
        }
        for r in [&NewRenoRecovery as &dyn LossRecovery, &SackRecovery] {
            assert_eq!(r.rules().rto_restart_margin, Duration::ZERO);
            assert_eq!(r.rules().timeout_retransmit_limit, None);
        }
    }
}
