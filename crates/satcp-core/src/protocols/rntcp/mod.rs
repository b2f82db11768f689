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
//! All of it through `SendState::dupthresh`, set from each ACK's DN bit
//! outside recovery (`LossRecovery::on_ack_info`); RFC 6675's IsLost uses
//! the same threshold. Window reduction, recovery and RTO are SACK's.
//!
//! `[tcp.rntcp]`: `k = "cwnd"` (the default: max(1, cwnd in segments at the
//! first duplicate ACK of the run) or a number >= 1.
//!
//! TODO(es): RN-TCP-ES (enhanced RTT sampling, paper Sec. 4.7) is built on
//! another branch; once it is merged, add `es: bool` to `RnTcpConfig` and
//! switch it on in the factory. No second copy here.

use super::header_bits::DROP_NEGATIVE;
use super::reno::Reno;
use super::rn_receiver::RnReceiver;
use super::sack::SackRecovery;
use super::{Variant, VariantInput};
use crate::error::{bad, typed, ScenarioError};
use crate::tcp::ack_info::AckInfo;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant {
    name: "rntcp",
    about: "RN-TCP (TCP-R paper): SACK that waits k more duplicate ACKs when the receiver's \
            drop-negative bit says the hole is not an EPDN-reported drop",
    recoveries: &[Recovery::Sack],
    shorthands: &[],
    build: factory,
    listed: true,
};

/// `k` of `[tcp.rntcp]`: a number, or "cwnd".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KSetting {
    Fixed(u32),
    Named(KName),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RnTcpConfig {
    /// Extra duplicate ACKs to wait for when they carry DN = 1.
    pub k: KSetting,
}

struct RnTcpFactory {
    k: KSetting,
    dupthresh: u32,
}

fn factory(input: &VariantInput) -> Result<Box<dyn VariantFactory>, ScenarioError> {
    let cfg: RnTcpConfig = typed(input.settings)?;
    if cfg.k == KSetting::Fixed(0) {
        return Err(bad("k", 0, "must be at least 1 or \"cwnd\""));
    }
    Ok(Box::new(RnTcpFactory {
        k: cfg.k,
        dupthresh: input.tcp.dupack_threshold,
    }))
}

impl VariantFactory for RnTcpFactory {
    fn endpoint(&self) -> EndpointParts {
        EndpointParts::new(
            Box::new(Reno::new()),
            Box::new(RnRecovery::new(self.k, self.dupthresh)),
            true,
        )
        .with_receiver(Box::new(RnReceiver::default()))
    }
}

/// SACK recovery whose DupThresh follows the drop-negative bits.
pub struct RnRecovery {
    sack: SackRecovery,
    k: KSetting,
    /// The standard threshold (3).
    base: u32,
    /// k of the current run of duplicate ACKs.
    k_now: u32,
}

impl RnRecovery {
    pub fn new(k: KSetting, base: u32) -> RnRecovery {
        RnRecovery {
            sack: SackRecovery,
            k,
            base,
            k_now: 1,
        }
    }
}

impl LossRecovery for RnRecovery {
    fn name(&self) -> &'static str {
        "rntcp-sack"
    }

    fn on_ack_info(&mut self, s: &mut SendState, ack: &AckInfo) {
        if s.in_recovery {
            // The episode runs at the threshold it started with.
            return;
        }
        if !ack.duplicate {
            if ack.newly_acked > 0 {
                s.dupthresh = self.base;
            }
            return;
        }
        if s.dupacks == 0 {
            // The first duplicate ACK of a run fixes k.
            self.k_now = match self.k {
                KSetting::Fixed(k) => k,
                KSetting::Named(KName::Cwnd) => (s.cwnd / s.mss as u64).max(1) as u32,
            };
        }
        s.dupthresh = if ack.ext().has(DROP_NEGATIVE) {
            self.base + self.k_now
        } else {
            self.base
        };
    }

    fn loss_detected(&self, s: &SendState) -> bool {
        self.sack.loss_detected(s)
    }

    fn enter(&mut self, s: &mut SendState) {
        self.sack.enter(s);
    }

    fn on_dupack(&mut self, s: &mut SendState) {
        self.sack.on_dupack(s);
    }

    fn on_partial_ack(&mut self, s: &mut SendState, acked: u64) {
        self.sack.on_partial_ack(s, acked);
    }

    fn exit(&mut self, s: &mut SendState) {
        self.sack.exit(s);
        s.dupthresh = self.base;
    }

    fn nextseg_rules_3_and_4(&self) -> bool {
        self.sack.nextseg_rules_3_and_4()
    }
}

#[cfg(test)]
mod tests;
