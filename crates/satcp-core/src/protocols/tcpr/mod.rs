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
//! ECE, RTO and new ACKs are standard; DSACK is not used. The bypass goes
//! through `LossRecovery::reduces_window` (false: the machinery leaves
//! ssthresh alone and does not count a fast retransmit); the bypasses are
//! the variant counter `reorder_retransmits`.
//!
//! The ACK information with the clock reaches the congestion module only
//! (`CongestionControl::on_ack_info`), so the congestion module (`TcpR`,
//! Reno otherwise) records the DN bits, ECEs and the time in a state it
//! shares with the loss recovery (`TcpRRecovery`, SACK otherwise).

use super::header_bits::DROP_NEGATIVE;
use super::reno::Reno;
use super::rn_receiver::RnReceiver;
use super::sack::SackRecovery;
use super::{Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{positive, typed, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::CongestionControl;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

pub const VARIANT: Variant = Variant {
    name: "tcpr",
    about: "TCP-R (TCP-R paper): SACK that resends a hole the receiver marks drop-negative \
            on three duplicate ACKs without reducing its window",
    recoveries: &[Recovery::Sack],
    shorthands: &[],
    build: factory,
    listed: true,
};

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

struct TcpRFactory {
    cfg: TcpRConfig,
}

fn factory(input: &VariantInput) -> Result<Box<dyn VariantFactory>, ScenarioError> {
    let cfg: TcpRConfig = typed(input.settings)?;
    positive("ece_memory_srtt", cfg.ece_memory_srtt)?;
    positive("resend_interval_srtt", cfg.resend_interval_srtt)?;
    Ok(Box::new(TcpRFactory { cfg }))
}

impl VariantFactory for TcpRFactory {
    fn endpoint(&self) -> EndpointParts {
        let st: Shared = Rc::new(RefCell::new(Signals::default()));
        EndpointParts::new(
            Box::new(TcpR {
                reno: Reno::new(),
                st: st.clone(),
            }),
            Box::new(TcpRRecovery::new(self.cfg.clone(), st)),
            true,
        )
        .with_receiver(Box::new(RnReceiver::default()))
    }
}

/// What the ACKs told, shared by the congestion module (which sees the
/// clock) and the loss recovery (which decides).
#[derive(Debug, Default)]
pub struct Signals {
    /// Time of the last ACK.
    pub now: SimTime,
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

pub type Shared = Rc<RefCell<Signals>>;

/// Reno that records the signals TCP-R decides on.
pub struct TcpR {
    reno: Reno,
    st: Shared,
}

impl CongestionControl for TcpR {
    fn name(&self) -> &'static str {
        "tcpr"
    }

    fn on_ack_info(&mut self, s: &mut SendState, ack: &AckInfo, now: SimTime) {
        self.reno.on_ack_info(s, ack, now);
        let mut st = self.st.borrow_mut();
        st.now = now;
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
        } else if ack.ack() > s.snd_una {
            st.dn_set = 0;
            st.dn_clear = 0;
            st.ece_in_run = false;
        }
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_rto(&mut self, s: &mut SendState) {
        self.reno.on_rto(s);
        let mut st = self.st.borrow_mut();
        st.dn_set = 0;
        st.dn_clear = 0;
        st.ece_in_run = false;
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let st = self.st.borrow();
        vec![
            ("reorder_retransmits", st.bypasses),
            ("bypass_refused_dn", st.refused_dn),
            ("bypass_refused_ece", st.refused_ece),
            ("bypass_refused_limit", st.refused_limit),
        ]
    }
}

/// SACK recovery with TCP-R's bypass.
pub struct TcpRRecovery {
    sack: SackRecovery,
    cfg: TcpRConfig,
    st: Shared,
    /// The episode being entered is a bypass.
    bypass: bool,
    /// The last segment resent by a bypass, and when.
    last_resent: Option<(u64, SimTime)>,
}

impl TcpRRecovery {
    pub fn new(cfg: TcpRConfig, st: Shared) -> TcpRRecovery {
        TcpRRecovery {
            sack: SackRecovery,
            cfg,
            st,
            bypass: false,
            last_resent: None,
        }
    }

    /// `factor` x SRTT (the RTO before the first sample).
    fn srtts(s: &SendState, factor: f64) -> Duration {
        let srtt = s.rtt.srtt().unwrap_or_else(|| s.rtt.rto());
        Duration::from_secs_f64(srtt.as_secs_f64() * factor)
    }
}

impl LossRecovery for TcpRRecovery {
    fn name(&self) -> &'static str {
        "tcpr-sack"
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        self.sack.loss_detected(s)
    }

    fn reduces_window(&mut self, s: &SendState) -> bool {
        let mut st = self.st.borrow_mut();
        let now = st.now;
        let ece_memory = Self::srtts(s, self.cfg.ece_memory_srtt);
        let interval = Self::srtts(s, self.cfg.resend_interval_srtt);
        let all_dn = st.dn_clear == 0 && st.dn_set > 0;
        let ece = st.ece_in_run || st.last_ece.is_some_and(|t| now.since(t) <= ece_memory);
        let too_soon = self
            .last_resent
            .is_some_and(|(seq, t)| seq == s.snd_una && now.since(t) < interval);
        self.bypass = all_dn && !ece && !too_soon;
        if self.bypass {
            st.bypasses += 1;
            self.last_resent = Some((s.snd_una, now));
        } else if !all_dn {
            st.refused_dn += 1;
        } else if ece {
            st.refused_ece += 1;
        } else {
            st.refused_limit += 1;
        }
        !self.bypass
    }

    fn enter(&mut self, s: &mut SendState) {
        if self.bypass {
            // SACK's entry at the current cwnd.
            s.sent.mark_first_lost();
            s.sent.mark_lost_by_sack(s.dupthresh, s.mss);
            s.retransmit_now = true;
        } else {
            self.sack.enter(s);
        }
    }

    fn on_dupack(&mut self, s: &mut SendState) {
        self.sack.on_dupack(s);
    }

    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64) {
        self.sack.on_partial_ack(s, acked);
    }

    fn exit(&mut self, s: &mut SendState) {
        self.bypass = false;
        self.sack.exit(s);
    }

    /// A bypass episode is SACK's too, at the unreduced window.
    fn nextseg_rules_3_and_4(&self) -> bool {
        self.sack.nextseg_rules_3_and_4()
    }
}

#[cfg(test)]
mod tests;
