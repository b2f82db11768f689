//! RR-TCP (Zhang, Karp, Floyd, Peterson, ICNP 2003 / ICSI TR-02-006), as
//! the TCP-R paper compares it: DSACK-FA, DSACK-TA and DSACK-TAES. SACK TCP
//! with the DSACK-R undo (`dsack_r::DsackUndo`) that also learns how far
//! the path reorders and raises dupthresh to avoid a fraction FA of false
//! fast retransmissions (FFR):
//!
//! - reordering-length samples L (segments above a segment already SACKed
//!   when it arrived [I]): from a hole filled without retransmission that
//!   sat below SACKed data, and from a DSACK revealing an FFR;
//! - dupthresh = max(3, 1 + FA-quantile of the last `samples` samples),
//!   through `SendState::dupthresh` (duplicate-ACK count and RFC 6675
//!   IsLost alike);
//! - DSACK-TA adapts FA: +step on an FFR, -step*C_TO/C_FFR on a timeout,
//!   -step*C_LT/C_FFR on a limited-transmit idle spell, clamped; DSACK-FA
//!   keeps FA fixed;
//! - extended limited transmit: below dupthresh each duplicate ACK that
//!   SACKs a segment releases one new segment, cwnd unchanged. The
//!   machinery already does this for every SACK sender (pipe leaves out
//!   SACKed segments, RFC 6675), so nothing is added (test
//!   `extended_limited_transmit_one_new_segment_per_dupack`);
//! - `es`: enhanced RTT sampling (`enhanced_rtt.rs`), DSACK-TAES.
//!
//! Settings `[tcp.rrtcp]`: `mode = "fa" | "ta"`, `fa`, `step`, `samples`,
//! `es`, `fa_min`, `fa_max`, `max_dupthresh`, `late_dsack_srtts`.
//! Shorthands: `dsack-fa` (mode fa), `dsack-ta` (mode ta), `dsack-taes`
//! (mode ta, es). Readings: docs/tcpr.md, "DSACK-R and RR-TCP".

pub mod reordering;

use super::dsack_r::{DsackRConfig, DsackUndo};
use super::enhanced_rtt::{self, EnhancedRtt};
use super::reno::Reno;
use super::{Settings, Showcase, Variant, VariantInput};
use crate::engine::SimTime;
use crate::error::{bad, positive, probability, ScenarioError};
use crate::net::packet::SeqRange;
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::{CongState, SendState};
use crate::tcp::sent_queue::SentSegment;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use reordering::Reordering;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[cfg(test)]
mod tests;

pub const VARIANT: Variant = Variant::new::<RrTcpSettings>(
    "rrtcp",
    "RR-TCP: DSACK-R undo plus dupthresh from the FA-quantile of reordering lengths, FA fixed (DSACK-FA) or adapted (DSACK-TA), optional enhanced RTT sampling (DSACK-TAES)",
    &[Recovery::Sack],
    &[
        ("dsack-fa", Recovery::Sack),
        ("dsack-ta", Recovery::Sack),
        ("dsack-taes", Recovery::Sack),
    ],
)
.compared_as(&[Showcase {
    label: "DSACK-TA",
    tcp: r#"{"variant": "dsack-ta", "dsack": true}"#,
}]);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// DSACK-FA: FA fixed.
    Fa,
    /// DSACK-TA: FA adapted by the cost functions.
    Ta,
}

/// `[tcp.rrtcp]`. `mode` and `es` are options so that a shorthand's
/// implied value can be told from a contradicting one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RrTcpSettings {
    /// "fa" (DSACK-FA, FA fixed) or "ta" (DSACK-TA, FA adapted); none:
    /// as the variant name implies.
    pub mode: Option<Mode>,
    /// FA ratio (the starting value under DSACK-TA) [I: 0.9].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fa: f64,
    /// DSACK-TA step S [S: 0.01].
    #[schemars(range(min = 0.0))]
    pub step: f64,
    /// Reordering-length samples kept [I: 100].
    #[schemars(range(min = 1))]
    pub samples: u32,
    /// Enhanced RTT sampling.
    pub es: Option<bool>,
    /// Lower bound of FA under DSACK-TA [I: 0.5].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fa_min: f64,
    /// Upper bound of FA under DSACK-TA [I: 0.99].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fa_max: f64,
    /// Upper bound of dupthresh [I].
    #[schemars(range(min = 3))]
    pub max_dupthresh: u32,
    /// As `[tcp.dsackr]`.
    #[schemars(range(min = 0.0))]
    pub late_dsack_srtts: f64,
    /// The settings checked and completed (`Settings::check`).
    #[serde(skip)]
    pub checked: Option<RrTcpConfig>,
}

impl Default for RrTcpSettings {
    fn default() -> Self {
        RrTcpSettings {
            mode: None,
            fa: 0.9,
            step: 0.01,
            samples: 100,
            es: None,
            fa_min: 0.5,
            fa_max: 0.99,
            max_dupthresh: 1000,
            late_dsack_srtts: 1.0,
            checked: None,
        }
    }
}

/// The checked settings an endpoint runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct RrTcpConfig {
    pub mode: Mode,
    pub fa: f64,
    pub step: f64,
    pub samples: u32,
    pub es: bool,
    pub fa_min: f64,
    pub fa_max: f64,
    pub max_dupthresh: u32,
    pub base_dupthresh: u32,
    pub undo: DsackRConfig,
}

impl RrTcpSettings {
    /// `name` is the variant name the scenario gave (a shorthand implies
    /// mode and es).
    pub fn check(&self, name: &str, base_dupthresh: u32) -> Result<RrTcpConfig, ScenarioError> {
        let implied = match name {
            "dsack-fa" => Some((Mode::Fa, false)),
            "dsack-ta" => Some((Mode::Ta, false)),
            "dsack-taes" => Some((Mode::Ta, true)),
            _ => None,
        };
        let (mode, es) = match implied {
            Some((m, e)) => {
                if self.mode.is_some_and(|x| x != m) {
                    return Err(bad(
                        "mode",
                        format!("{:?}", self.mode.unwrap()),
                        &format!("conflicts with variant {name:?}"),
                    ));
                }
                if self.es.is_some_and(|x| x != e) {
                    return Err(bad(
                        "es",
                        self.es.unwrap(),
                        &format!("conflicts with variant {name:?}"),
                    ));
                }
                (m, e)
            }
            None => (self.mode.unwrap_or(Mode::Ta), self.es.unwrap_or(false)),
        };
        probability("fa", self.fa)?;
        probability("fa_min", self.fa_min)?;
        probability("fa_max", self.fa_max)?;
        if self.fa_min > self.fa_max {
            return Err(bad("fa_min", self.fa_min, "must not exceed fa_max"));
        }
        if self.step < 0.0 || !self.step.is_finite() {
            return Err(bad("step", self.step, "must be a finite number >= 0"));
        }
        positive("samples", self.samples as f64)?;
        if self.max_dupthresh < 3 {
            return Err(bad(
                "max_dupthresh",
                self.max_dupthresh,
                "must be at least 3",
            ));
        }
        let undo = DsackRConfig {
            late_dsack_srtts: self.late_dsack_srtts,
        };
        undo.check()?;
        Ok(RrTcpConfig {
            mode,
            fa: self.fa,
            step: self.step,
            samples: self.samples,
            es,
            fa_min: self.fa_min,
            fa_max: self.fa_max,
            max_dupthresh: self.max_dupthresh,
            base_dupthresh: base_dupthresh.max(1),
            undo,
        })
    }
}

impl Settings for RrTcpSettings {
    fn check(&mut self, input: &VariantInput) -> Result<(), ScenarioError> {
        self.checked = Some(RrTcpSettings::check(
            self,
            input.name,
            input.tcp.dupack_threshold,
        )?);
        Ok(())
    }
}

impl VariantFactory for RrTcpSettings {
    fn endpoint(&self, _recovery: Recovery) -> EndpointParts {
        let cfg = self.checked.as_ref().expect("checked");
        EndpointParts::new(Box::new(RrTcp::new(cfg)), Box::new(SackRecovery), true)
            .undoing_on_dsack()
    }
}

/// A segment this sender retransmitted.
#[derive(Clone, Copy, Debug)]
struct Resent {
    end: u64,
    /// By fast retransmission or during SACK recovery (not by a timeout).
    fast: bool,
    /// Its reordering length when it was first reported arrived.
    length: Option<u32>,
    /// dupthresh when it was resent (the length if none was seen).
    dupthresh: u32,
}

const MAX_RESENT: usize = 4096;

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    ffr: u64,
    samples: u64,
    rto_decreases: u64,
    lt_decreases: u64,
    dupthresh_max: u64,
}

pub struct RrTcp {
    reno: Reno,
    undo: DsackUndo,
    cfg: RrTcpConfig,
    pub reordering: Reordering,
    es: Option<EnhancedRtt>,
    resent: BTreeMap<u64, Resent>,
    /// SACKed bytes after the previous ACK.
    prev_sacked: u64,
    /// The highest SACKed sequence number after the previous ACK.
    prev_high_sacked: u64,
    /// dupthresh must be recomputed (FA changed where `s` was read-only).
    stale: bool,
    counters: Counters,
}

impl RrTcp {
    pub fn new(cfg: &RrTcpConfig) -> RrTcp {
        RrTcp {
            reno: Reno::new(),
            undo: DsackUndo::new(&cfg.undo),
            reordering: Reordering::new(
                cfg.fa,
                cfg.samples as usize,
                cfg.base_dupthresh,
                cfg.max_dupthresh,
            ),
            es: cfg.es.then(EnhancedRtt::new),
            cfg: cfg.clone(),
            resent: BTreeMap::new(),
            prev_sacked: 0,
            prev_high_sacked: 0,
            stale: false,
            counters: Counters::default(),
        }
    }

    pub fn fa(&self) -> f64 {
        self.reordering.fa()
    }

    fn apply(&mut self, s: &mut SendState) {
        s.set_dupthresh(self.reordering.dupthresh());
        self.counters.dupthresh_max = self.counters.dupthresh_max.max(s.dupthresh() as u64);
        self.stale = false;
    }

    fn sample(&mut self, s: &mut SendState, length: u32) {
        self.counters.samples += 1;
        self.reordering.add_sample(length);
        self.apply(s);
    }

    /// DSACK-TA: FA -= step * ratio (a cost relative to C_FFR).
    fn decrease(&mut self, ratio: f64) {
        if self.cfg.mode == Mode::Ta {
            let fa = self.reordering.fa() - self.cfg.step * ratio;
            self.reordering
                .set_fa(fa.clamp(self.cfg.fa_min, self.cfg.fa_max));
            self.stale = true;
        }
    }

    /// A reordering-length sample for each hole this ACK shows filled
    /// without a retransmission; the length of retransmitted segments is
    /// kept until a DSACK shows whether their retransmission was false.
    fn learn(&mut self, s: &mut SendState, ack: &AckInfo) {
        let mss = s.mss().max(1) as u64;
        // The hole at snd_una filled: every SACKed segment lay above it.
        if ack.ack() > s.snd_una() && self.prev_sacked > 0 && s.state() != CongState::Loss {
            let length = self.prev_sacked.div_ceil(mss) as u32;
            self.arrived(s, SeqRange::new(s.snd_una(), ack.ack()), length, true);
        }
        // A hole above snd_una filled: the first SACK block holds the
        // segment that arrived last (RFC 2018); if the block does not reach
        // above what was SACKed before, that segment arrived below SACKed
        // data. L counts the SACKed segments from the block's start on,
        // less the new ones [I: exact when the segment filled the bottom of
        // a run; a segment joining two runs also counts the lower run].
        if let Some(b) = ack.sack_blocks().first().copied() {
            if ack.newly_sacked > 0
                && b.end <= self.prev_high_sacked
                && s.state() != CongState::Loss
            {
                let sent = s.scoreboard();
                let from_block: u64 = (0..sent.len())
                    .rev()
                    .map(|i| sent.get(i))
                    .take_while(|x| x.range.start >= b.start)
                    .filter(|x| x.sacked)
                    .map(|x| x.len())
                    .sum();
                let above = from_block.saturating_sub(ack.newly_sacked);
                if above > 0 {
                    self.arrived(s, b, above.div_ceil(mss) as u32, false);
                }
            }
        }
        self.prev_high_sacked = s.scoreboard().high_sacked;
        self.prev_sacked = s.scoreboard().sacked_bytes();
    }

    /// Data in `r` was reported arrived with `length` segments above it
    /// already SACKed. `cumulative`: only the first segment of `r` was the
    /// hole (the rest were SACKed before).
    fn arrived(&mut self, s: &mut SendState, r: SeqRange, length: u32, cumulative: bool) {
        let end = if cumulative { r.start + 1 } else { r.end };
        let resent: Vec<u64> = self.resent.range(r.start..end).map(|(&k, _)| k).collect();
        if resent.is_empty() {
            self.sample(s, length);
            return;
        }
        for k in resent {
            let e = self.resent.get_mut(&k).unwrap();
            if e.end <= r.end && e.length.is_none() {
                e.length = Some(length);
            }
        }
    }
}

impl CongestionControl for RrTcp {
    fn name(&self) -> &'static str {
        match (self.cfg.mode, self.cfg.es) {
            (Mode::Fa, false) => "dsack-fa",
            (Mode::Fa, true) => "dsack-faes",
            (Mode::Ta, false) => "dsack-ta",
            (Mode::Ta, true) => "dsack-taes",
        }
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(ack) => self.on_ack_info(s, ack, now),
            CcEvent::Retransmitted(seg) => self.on_retransmit(s, seg, now),
            CcEvent::SpuriousRetransmission(r) => self.on_spurious_retransmission(s, r),
            _ => {}
        }
        Reply::Default
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.undo.on_loss();
        // Extended limited transmit sent one segment per duplicate ACK
        // beyond RFC 3042's two; with cwnd cut they now hold transmission
        // back for as many ACKs (the idle spell, C_LT [I]).
        let c_lt = s.dupacks().saturating_sub(3) as f64;
        if c_lt > 0.0 {
            self.counters.lt_decreases += 1;
            self.decrease(c_lt / c_ffr(s));
        }
        s.halved_window()
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        // C_TO / C_FFR = (cwnd * RTO / SRTT) / (cwnd / 2) [I].
        let rto = s.rtt().rto().as_secs_f64();
        let ratio = match s.rtt().srtt() {
            Some(srtt) if srtt.0 > 0 => 2.0 * rto / srtt.as_secs_f64(),
            _ => 2.0,
        };
        self.counters.rto_decreases += 1;
        self.decrease(ratio);
        s.restart_after_timeout(s.halved_window());
        self.undo.on_timeout(s);
        self.prev_sacked = 0;
        self.prev_high_sacked = 0;
        self.apply(s);
    }

    fn undo(&mut self, s: &mut SendState) {
        self.undo.undo(s);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = self.counters;
        let mut v = vec![
            ("undos", self.undo.undos),
            ("false_fast_retransmits", c.ffr),
            ("reordering_samples", c.samples),
            ("dupthresh", self.reordering.dupthresh() as u64),
            ("dupthresh_max", c.dupthresh_max),
            (
                "fa_permille",
                (self.reordering.fa() * 1000.0).round() as u64,
            ),
            ("rto_decreases", c.rto_decreases),
            ("lt_decreases", c.lt_decreases),
        ];
        if let Some(es) = &self.es {
            v.push(("es_samples", es.samples()));
        }
        v
    }
}

impl RrTcp {
    fn on_ack_info(&mut self, s: &mut SendState, ack: &AckInfo, now: SimTime) {
        self.reno.on_ack_info(s, ack);
        self.undo.on_ack_info(s, ack, now);
        if let Some(d) = self.es.as_mut().and_then(|es| es.on_ack_info(ack, now)) {
            enhanced_rtt::feed(s, d);
        }
        self.learn(s, ack);
        if self.stale || s.dupthresh() != self.reordering.dupthresh() {
            self.apply(s);
        }
        // Forget what no DSACK can concern any more.
        while self.resent.len() > MAX_RESENT {
            self.resent.pop_first();
        }
    }

    fn on_retransmit(&mut self, s: &SendState, seg: &SentSegment, now: SimTime) {
        if let Some(es) = self.es.as_mut() {
            es.on_retransmit(seg, now);
        }
        self.resent.insert(
            seg.range.start,
            Resent {
                end: seg.range.end,
                fast: s.state() == CongState::Recovery,
                length: None,
                dupthresh: s.dupthresh(),
            },
        );
    }

    fn on_spurious_retransmission(&mut self, s: &mut SendState, r: SeqRange) {
        let Some(e) = self.resent.remove(&r.start) else {
            return;
        };
        if !e.fast {
            return;
        }
        // A false fast retransmission.
        self.counters.ffr += 1;
        if self.cfg.mode == Mode::Ta {
            let fa = self.reordering.fa() + self.cfg.step;
            self.reordering
                .set_fa(fa.clamp(self.cfg.fa_min, self.cfg.fa_max));
        }
        self.sample(s, e.length.unwrap_or(e.dupthresh));
    }
}

/// C_FFR = cwnd before the cut / 2, in segments [I].
fn c_ffr(s: &SendState) -> f64 {
    (s.cwnd as f64 / s.mss().max(1) as f64 / 2.0).max(1.0)
}
