//! TCP-R (TCP-R paper Secs. 2.2 and 2.2.1; readings in docs/tcpr.md):
//! SACK that does not reduce its window for a hole the receiver presumes
//! reordered. With the RN-TCP receiver part (`protocols/rn_receiver.rs`)
//! and EPDN gateways (`protocols/epdn/`):
//!
//! - on the third duplicate ACK, if all three carried DN = 1 and no ECE
//!   arrived recently (none on these duplicate ACKs and none within the
//!   last `ece_memory_srtt` x SRTT), the segment is retransmitted at once
//!   with ssthresh and cwnd unchanged, and SACK recovery runs at that cwnd
//!   until the recovery point is acknowledged (the bypass). Such a segment
//!   is resent this way at most once per `resend_interval_srtt` x SRTT;
//! - otherwise (DN = 0 on any of them, an ECE, a resend too soon) the
//!   standard SACK fast retransmission with halving.
//!
//! ECE, RTO and new ACKs are standard; DSACK is not used. The congestion
//! control records the DN bits and ECEs of each ACK (`CcEvent::Ack`) and
//! answers `CcEvent::LossDetected` with `Handled` for a bypass (the
//! machinery then leaves ssthresh and cwnd alone and counts no fast
//! retransmit); the bypasses are the variant counter
//! `reorder_retransmits`. Loss recovery is SACK's.

use super::header_bits::DROP_NEGATIVE;
use super::reno::Reno;
use super::rn_receiver::RnReceiver;
use super::{Settings, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{positive, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::new::<TcpRConfig>(
    "tcpr",
    "TCP-R (TCP-R paper): SACK that resends a hole the receiver marks drop-negative \
     on three duplicate ACKs without reducing its window",
    &[Recovery::Sack],
    &[],
);

/// `[tcp.tcpr]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpRConfig {
    /// An ECE within this many SRTTs before the third duplicate ACK rules
    /// the bypass out ("no ECE recently", notes [I]: one SRTT).
    pub ece_memory_srtt: f64,
    /// A segment is resent by the bypass at most once per this many SRTTs
    /// ("once per RTT", notes [I]: one SRTT).
    pub resend_interval_srtt: f64,
}

impl Default for TcpRConfig {
    fn default() -> Self {
        TcpRConfig {
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
}

impl TcpR {
    pub fn new(cfg: TcpRConfig) -> TcpR {
        TcpR {
            reno: Reno::new(),
            cfg,
            st: Signals::default(),
            last_resent: None,
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
        }
    }

    /// Whether the loss just detected is a bypass: all duplicate ACKs of
    /// the run with DN = 1, no ECE recently, and this segment not resent
    /// by a bypass within the resend interval.
    fn bypass(&mut self, s: &SendState, now: SimTime) -> bool {
        let ece_memory = Self::srtts(s, self.cfg.ece_memory_srtt);
        let interval = Self::srtts(s, self.cfg.resend_interval_srtt);
        let st = &mut self.st;
        let all_dn = st.dn_clear == 0 && st.dn_set > 0;
        let ece = st.ece_in_run || st.last_ece.is_some_and(|t| now.since(t) <= ece_memory);
        let too_soon = self
            .last_resent
            .is_some_and(|(seq, t)| seq == s.snd_una() && now.since(t) < interval);
        let bypass = all_dn && !ece && !too_soon;
        if bypass {
            st.bypasses += 1;
            self.last_resent = Some((s.snd_una(), now));
        } else if !all_dn {
            st.refused_dn += 1;
        } else if ece {
            st.refused_ece += 1;
        } else {
            st.refused_limit += 1;
        }
        bypass
    }
}

impl CongestionControl for TcpR {
    fn name(&self) -> &'static str {
        "tcpr"
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.half_flight()
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.half_flight());
        self.st.dn_set = 0;
        self.st.dn_clear = 0;
        self.st.ece_in_run = false;
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(ack) => {
                self.reno.on_ack_info(s, ack);
                self.on_ack_info(s, ack, now);
            }
            CcEvent::LossDetected if self.bypass(s, now) => return Reply::Handled,
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
