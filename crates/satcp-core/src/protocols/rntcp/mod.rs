//! RN-TCP (TCP-R paper Secs. 1 and 4.1.1; readings in docs/tcpr.md):
//! SACK whose fast retransmission waits longer for holes the receiver
//! presumes reordered. The receiver part (`protocols/rn_receiver.rs`) sets
//! the drop-negative bit on duplicate ACKs for holes no EPDN gateway
//! reported dropped; the sender then
//!
//! - on duplicate ACKs with DN = 0 retransmits at DupThresh (3) duplicate
//!   ACKs, as SACK;
//! - on duplicate ACKs with DN = 1 waits for DupThresh + k;
//! - on a DN = 0 duplicate ACK once 3 or more have arrived, acts at once.
//!
//! All of it through the duplicate-ACK threshold (`SendState::set_dupthresh`),
//! set from each ACK's DN bit outside recovery (`CcEvent::Ack`) and back
//! to the standard one when recovery ends; RFC 6675's IsLost uses the same
//! threshold. Window reduction, recovery and RTO are SACK's.
//!
//! `[tcp.rntcp]`: `k = "cwnd"` (the default: max(1, cwnd in segments at the
//! first duplicate ACK of the run) or a number >= 1; `es = true`: RN-TCP-ES
//! (paper Sec. 4.7), the same sender with enhanced RTT sampling
//! (`enhanced_rtt.rs`, shared with RR-TCP's DSACK-TAES). Shorthand
//! `rntcp-es` (implies `es = true`). The samples come from DSACKs, so `es`
//! needs `tcp.dsack = true`: without it the sender would silently be
//! RN-TCP, and the scenario is rejected instead.

use super::enhanced_rtt::{self, EnhancedRtt};
use super::header_bits::DROP_NEGATIVE;
use super::reno::Reno;
use super::rn_receiver::RnReceiver;
use super::{Settings, Variant, VariantInput};
use crate::engine::SimTime;
use crate::error::{bad, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::{CongState, SendState};
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::new::<RnTcpConfig>(
    "rntcp",
    "RN-TCP (TCP-R paper): SACK that waits k more duplicate ACKs when the receiver's \
     drop-negative bit says the hole is not an EPDN-reported drop; es = true \
     (rntcp-es): with enhanced RTT sampling",
    &[Recovery::Sack],
    &[("rntcp-es", Recovery::Sack)],
);

/// `k` of `[tcp.rntcp]`: a number, or "cwnd".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum KSetting {
    Fixed(u32),
    Named(KName),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KName {
    /// max(1, cwnd in segments at the first duplicate ACK).
    Cwnd,
}

impl Default for KSetting {
    fn default() -> Self {
        KSetting::Named(KName::Cwnd)
    }
}

/// `[tcp.rntcp]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RnTcpConfig {
    /// Extra duplicate ACKs to wait for when they carry DN = 1.
    pub k: KSetting,
    /// Enhanced RTT sampling (RN-TCP-ES). None: as the variant name says
    /// (`rntcp-es` true, `rntcp` false); `check` settles it.
    pub es: Option<bool>,
    /// The standard duplicate-ACK threshold (`tcp.dupack_threshold`).
    #[serde(skip)]
    pub base_dupthresh: u32,
}

impl Settings for RnTcpConfig {
    fn check(&mut self, input: &VariantInput) -> Result<(), ScenarioError> {
        if self.k == KSetting::Fixed(0) {
            return Err(bad("k", 0, "must be at least 1 or \"cwnd\""));
        }
        let implied = input.name == "rntcp-es";
        let es = match self.es {
            Some(e) if implied && !e => {
                return Err(bad("es", e, "conflicts with variant \"rntcp-es\""));
            }
            Some(e) => e,
            None => implied,
        };
        if es && !input.tcp.dsack {
            // The samples come from DSACKs; without them RN-TCP-ES would
            // silently run as RN-TCP.
            return Err(bad(
                "es",
                true,
                "needs tcp.dsack = true (enhanced RTT sampling pairs an ACK with a DSACK)",
            ));
        }
        self.es = Some(es);
        self.base_dupthresh = input.tcp.dupack_threshold;
        Ok(())
    }
}

impl VariantFactory for RnTcpConfig {
    fn endpoint(&self, _recovery: Recovery) -> EndpointParts {
        let cc = RnTcpCc::new(self.es == Some(true), self.k, self.base_dupthresh);
        EndpointParts::new(Box::new(cc), Box::new(SackRecovery), true)
            .with_receiver(Box::new(RnReceiver::default()))
    }
}

/// RN-TCP's congestion control: Reno's, the duplicate-ACK threshold that
/// follows the drop-negative bits, and the -ES sampler when `es`.
pub struct RnTcpCc {
    reno: Reno,
    es: Option<EnhancedRtt>,
    k: KSetting,
    /// The standard threshold (3).
    base: u32,
    /// k of the current run of duplicate ACKs.
    k_now: u32,
}

impl RnTcpCc {
    pub fn new(es: bool, k: KSetting, base: u32) -> RnTcpCc {
        RnTcpCc {
            reno: Reno::new(),
            es: es.then(EnhancedRtt::new),
            k,
            base,
            k_now: 1,
        }
    }

    /// Outside recovery, every ACK sets the threshold its DN bit asks for.
    fn set_dupthresh(&mut self, s: &mut SendState, ack: &AckInfo) {
        if s.in_recovery() {
            // The episode runs at the threshold it started with.
            return;
        }
        if !ack.duplicate {
            if ack.newly_acked > 0 {
                s.set_dupthresh(self.base);
            }
            return;
        }
        if s.dupacks() == 0 {
            // The first duplicate ACK of a run fixes k.
            self.k_now = match self.k {
                KSetting::Fixed(k) => k,
                KSetting::Named(KName::Cwnd) => (s.cwnd / s.mss() as u64).max(1) as u32,
            };
        }
        s.set_dupthresh(if ack.ext().has(DROP_NEGATIVE) {
            self.base + self.k_now
        } else {
            self.base
        });
    }
}

impl CongestionControl for RnTcpCc {
    fn name(&self) -> &'static str {
        if self.es.is_some() {
            "rntcp-es"
        } else {
            "reno"
        }
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.halved_window()
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::Ack(ack) => {
                self.set_dupthresh(s, ack);
                self.reno.on_ack_info(s, ack);
                if let Some(d) = self.es.as_mut().and_then(|es| es.on_ack_info(ack, now)) {
                    enhanced_rtt::feed(s, d);
                }
            }
            // Recovery is over (a timeout that ends it keeps the threshold).
            CcEvent::StateChanged {
                from: CongState::Recovery,
                to: CongState::Open | CongState::Disorder,
            } => s.set_dupthresh(self.base),
            CcEvent::Retransmitted(seg) => {
                if let Some(es) = self.es.as_mut() {
                    es.on_retransmit(seg, now);
                }
            }
            _ => {}
        }
        Reply::Default
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        match &self.es {
            Some(es) => vec![("es_samples", es.samples())],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
