//! TCP-R (TCP-R paper Secs. 2.2 and 2.2.1; readings in docs/tcpr.md):
//! SACK that does not reduce its window for a hole the receiver presumes
//! reordered or corrupted. With the RN-TCP receiver part
//! (`protocols/rn_receiver.rs`) and EPDN gateways (`protocols/epdn/`).
//!
//! The trigger: the third duplicate ACK of a run (the duplicate ACKs since
//! the last ACK of new data), all the run's duplicate ACKs that report a
//! hole with DN = 1 and no ECE recently (none on these duplicate ACKs and
//! none within the last `ece_memory_srtt` x SRTT). What follows is the
//! setting `response`:
//!
//! - `resend` (default; Sec. 2.2.1 "retransmits the packet immediately"):
//!   the segment at snd_una is resent at once (`retransmit_first_now`), with
//!   no recovery episode: ssthresh, cwnd and `recover` stay, and cwnd keeps
//!   growing on new ACKs as in the open state. The run's later duplicate
//!   ACKs are claimed (`CcEvent::DupAck` answered `Handled`), so the
//!   machinery starts no fast retransmission for the same hole; one of them
//!   resends the segment again only when the run still qualifies and
//!   `resend_interval_srtt` x SRTT has passed since the segment's last
//!   resend (the paper's limit: a packet resent at most once per RTT);
//! - `recovery` (the earlier reading, Sec. 2.2's "modified fast
//!   recovery"): a SACK recovery episode without reduction
//!   (`CcEvent::LossDetected` answered `Handled`), the segment resent at
//!   most once per `resend_interval_srtt` x SRTT, else the standard path.
//!
//! Otherwise (DN = 0 on any of the run's duplicate ACKs, an ECE) the
//! standard SACK fast retransmission with halving. ECE, RTO and new ACKs
//! are standard; DSACK is not used. The resends are the variant counter
//! `reorder_retransmits` (window-reducing fast retransmissions alone count
//! in `fast_retransmits`).

use super::header_bits::DROP_NEGATIVE;
use super::reno::Reno;
use super::rn_receiver::RnReceiver;
use super::{Settings, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{positive, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::CongState;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::new::<TcpRConfig>(
    "tcpr",
    "TCP-R (TCP-R paper): SACK that resends a hole the receiver marks drop-negative \
     on three duplicate ACKs without reducing its window ([tcp.tcpr] response = \
     \"resend\" | \"recovery\")",
    &[Recovery::Sack],
    &[],
);

/// What TCP-R does on its trigger (docs/tcpr.md, "Readings").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Response {
    /// Resend the segment at once, no recovery episode (Sec. 2.2.1).
    #[default]
    Resend,
    /// A SACK recovery episode without reduction (the earlier reading).
    Recovery,
}

/// `[tcp.tcpr]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpRConfig {
    /// What the trigger does: `resend` (default) or `recovery`.
    pub response: Response,
    /// An ECE within this many SRTTs before the third duplicate ACK rules
    /// the bypass out ("no ECE recently", notes [I]: one SRTT).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub ece_memory_srtt: f64,
    /// A segment is resent by the bypass at most once per this many SRTTs
    /// ("once per RTT", notes [I]: one SRTT).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub resend_interval_srtt: f64,
}

impl Default for TcpRConfig {
    fn default() -> Self {
        TcpRConfig {
            response: Response::Resend,
            ece_memory_srtt: 1.0,
            resend_interval_srtt: 1.0,
        }
    }
}

impl Settings for TcpRConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        positive("ece_memory_srtt", self.ece_memory_srtt)?;
        positive("resend_interval_srtt", self.resend_interval_srtt)
    }
}

impl VariantFactory for TcpRConfig {
    fn endpoint(&self, _recovery: Recovery) -> EndpointParts {
        EndpointParts::new(
            Box::new(TcpR::new(self.clone())),
            Box::new(SackRecovery),
            true,
        )
        .with_receiver(Box::new(RnReceiver::default()))
    }
}

/// What the ACKs told.
#[derive(Debug, Default)]
pub struct Signals {
    /// Duplicate ACKs of the current run (since the last ACK of new data)
    /// with DN = 1 and with DN = 0 (those with SACK blocks only).
    pub dn_set: u32,
    pub dn_clear: u32,
    /// One of the run's duplicate ACKs carried ECE.
    pub ece_in_run: bool,
    /// The last ACK with ECE.
    pub last_ece: Option<SimTime>,
    // Counters.
    pub bypasses: u64,
    pub refused_dn: u64,
    pub refused_ece: u64,
    pub refused_limit: u64,
}

/// Reno that keeps its window for a hole the receiver presumes reordered.
pub struct TcpR {
    reno: Reno,
    cfg: TcpRConfig,
    pub st: Signals,
    /// The last segment resent by a bypass, and when.
    last_resent: Option<(u64, SimTime)>,
    /// `resend`: the run whose duplicate ACKs TCP-R claims, by the
    /// cumulative ACK it repeats.
    claimed: Option<u64>,
}

impl TcpR {
    pub fn new(cfg: TcpRConfig) -> TcpR {
        TcpR {
            reno: Reno::new(),
            cfg,
            st: Signals::default(),
            last_resent: None,
            claimed: None,
        }
    }

    /// `factor` x SRTT (the RTO before the first sample).
    fn srtts(s: &SendState, factor: f64) -> Duration {
        let srtt = s.rtt().srtt().unwrap_or_else(|| s.rtt().rto());
        Duration::from_secs_f64(srtt.as_secs_f64() * factor)
    }

    fn on_ack_info(&mut self, s: &SendState, ack: &AckInfo, now: SimTime) {
        let st = &mut self.st;
        if ack.ece() {
            st.last_ece = Some(now);
        }
        if ack.duplicate && !ack.sack_blocks().is_empty() {
            // A duplicate ACK without SACK blocks (the receiver holds no
            // out-of-order data: the answer to a duplicate segment) is
            // about no hole, and its DN bit says nothing.
            if ack.ext().has(DROP_NEGATIVE) {
                st.dn_set += 1;
            } else {
                st.dn_clear += 1;
            }
            st.ece_in_run |= ack.ece();
        } else if ack.ack() > s.snd_una() {
            st.dn_set = 0;
            st.dn_clear = 0;
            st.ece_in_run = false;
            self.claimed = None;
        }
    }

    /// `resend`, on a duplicate ACK outside recovery (before the machinery
    /// counts it): whether TCP-R claims it. It does once the run is its
    /// own, and when this duplicate ACK would start recovery (the third,
    /// or RFC 6675's IsLost for snd_una) and the trigger holds, resending
    /// the segment at once; a trigger that fails leaves the duplicate ACK
    /// to the machinery (the standard fast retransmission).
    fn on_dupack_resend(&mut self, s: &mut SendState, now: SimTime) -> bool {
        if !matches!(s.state(), CongState::Open | CongState::Disorder) {
            return false;
        }
        let una = s.snd_una();
        if self.claimed == Some(una) {
            // A later duplicate ACK of a run already answered: resend
            // again only once the interval has passed and the run still
            // qualifies; never a fast retransmission.
            if self.qualifies(s, now) && !self.too_soon(s, now) {
                self.resend(s, now);
            }
            return true;
        }
        let would_start = s.dupacks() + 1 >= s.dupthresh() || s.first_is_lost_by_sack();
        if !would_start {
            return false;
        }
        if !self.decide(s, now) {
            return false;
        }
        self.claimed = Some(una);
        self.resend(s, now);
        true
    }

    fn resend(&mut self, s: &mut SendState, now: SimTime) {
        s.retransmit_first_now();
        self.st.bypasses += 1;
        self.last_resent = Some((s.snd_una(), now));
    }

    /// All of the run's duplicate ACKs that report a hole with DN = 1, no
    /// ECE on them and none within the ECE memory.
    fn qualifies(&self, s: &SendState, now: SimTime) -> bool {
        self.all_dn() && !self.ece(s, now)
    }

    fn all_dn(&self) -> bool {
        self.st.dn_clear == 0 && self.st.dn_set > 0
    }

    fn ece(&self, s: &SendState, now: SimTime) -> bool {
        let ece_memory = Self::srtts(s, self.cfg.ece_memory_srtt);
        self.st.ece_in_run || self.st.last_ece.is_some_and(|t| now.since(t) <= ece_memory)
    }

    /// The segment at snd_una was resent by TCP-R within the resend
    /// interval.
    fn too_soon(&self, s: &SendState, now: SimTime) -> bool {
        let interval = Self::srtts(s, self.cfg.resend_interval_srtt);
        self.last_resent
            .is_some_and(|(seq, t)| seq == s.snd_una() && now.since(t) < interval)
    }

    /// The trigger, counted: true for a resend (or bypass), false for the
    /// standard path (also for a new run whose segment TCP-R resent within
    /// the interval, which only a timeout between the two runs makes
    /// possible; within a claimed run the interval only delays the next
    /// resend).
    fn decide(&mut self, s: &SendState, now: SimTime) -> bool {
        let all_dn = self.all_dn();
        let ece = self.ece(s, now);
        let too_soon = self.too_soon(s, now);
        if all_dn && !ece && !too_soon {
            return true;
        }
        let st = &mut self.st;
        if !all_dn {
            st.refused_dn += 1;
        } else if ece {
            st.refused_ece += 1;
        } else {
            st.refused_limit += 1;
        }
        false
    }

    /// `recovery`: whether the loss just detected is a bypass.
    fn bypass(&mut self, s: &SendState, now: SimTime) -> bool {
        let bypass = self.decide(s, now);
        if bypass {
            self.st.bypasses += 1;
            self.last_resent = Some((s.snd_una(), now));
        }
        bypass
    }
}

impl CongestionControl for TcpR {
    fn name(&self) -> &'static str {
        "tcpr"
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.halved_window()
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
        self.st.dn_set = 0;
        self.st.dn_clear = 0;
        self.st.ece_in_run = false;
        self.claimed = None;
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(ack) => {
                self.reno.on_ack_info(s, ack);
                self.on_ack_info(s, ack, now);
            }
            CcEvent::DupAck
                if self.cfg.response == Response::Resend && self.on_dupack_resend(s, now) =>
            {
                return Reply::Handled
            }
            CcEvent::LossDetected
                if self.cfg.response == Response::Recovery && self.bypass(s, now) =>
            {
                return Reply::Handled
            }
            _ => {}
        }
        Reply::Default
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let st = &self.st;
        vec![
            ("reorder_retransmits", st.bypasses),
            ("bypass_refused_dn", st.refused_dn),
            ("bypass_refused_ece", st.refused_ece),
            ("bypass_refused_limit", st.refused_limit),
        ]
    }
}

#[cfg(test)]
mod tests;
