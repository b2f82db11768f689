//! Link-level ARQ (TCP-R paper Sec. 1 and 3, scenarios 1 and 2): a frame
//! whose transmission is corrupted is sent again by the link once the
//! receiver's NAK is back, one link round trip after its last bit left,
//! with priority over the frames waiting in the output queue. The link
//! does not restore order, so the frames sent meanwhile overtake it.
//!
//! A frame gets at most `attempts` transmissions. One whose last
//! transmission is corrupted too is lost (cause `Corruption`, scenario 1)
//! or, with `recover_all` (scenario 2), delivered anyway: the link
//! recovers every frame in the end.
//!
//! Each transmission draws its fate afresh from the direction's error
//! model (PER from the frame's size, then loss, duplication, reordering),
//! so attempts fail independently. The NAK itself is not modelled as a
//! packet: it takes the propagation delay back and costs no capacity.
//!
//! The frames waiting for their NAK and those waiting to be resent live
//! here, outside the IP queue: link-layer retransmissions are not offered
//! to the queue again (no overflow or RED decision, no second `Enqueue`).

use super::packet::PacketId;
use crate::error::{bad, ScenarioError};
use serde::Deserialize;
use std::collections::VecDeque;

/// `arq = { attempts, recover_all }`: the ARQ settings of one link
/// direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct ArqConfig {
    /// Most transmissions of one frame, the first included; 0: no ARQ.
    #[schemars(range(max = MAX_ATTEMPTS))]
    pub attempts: u32,
    /// A frame whose last allowed transmission fails is delivered anyway
    /// (every frame is recovered, TCP-R paper scenario 2).
    pub recover_all: bool,
}

/// Most transmissions of one frame a link-level ARQ may make (a sanity
/// bound: real ARQs give up after a handful).
const MAX_ATTEMPTS: u32 = 1000;

impl ArqConfig {
    /// Paths in errors are relative to the table (`attempts`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.attempts > MAX_ATTEMPTS {
            return Err(bad(
                "attempts",
                self.attempts,
                &format!("must be at most {MAX_ATTEMPTS} (0: no ARQ)"),
            ));
        }
        if self.recover_all && self.attempts == 0 {
            return Err(ScenarioError::new(
                "recover_all",
                "needs link-level ARQ: set arq.attempts to at least 1 (it is 0)",
            ));
        }
        Ok(())
    }

    /// None when the link has no ARQ.
    pub fn build(&self) -> Option<Box<LinkArq>> {
        (self.attempts > 0).then(|| Box::new(LinkArq::new(*self)))
    }
}

/// What the link does with a frame whose transmission was corrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArqVerdict {
    /// Send it again when the NAK is back (one link round trip).
    Resend,
    /// No attempt left: the frame is lost for corruption.
    GiveUp,
    /// No attempt left, but the link recovers it (`recover_all`): it is
    /// delivered as if this transmission had passed.
    Recover,
}

/// The ARQ state of one link direction.
#[derive(Clone, Debug)]
pub struct LinkArq {
    pub config: ArqConfig,
    /// Transmissions of the frame in service so far, this one included.
    in_service_tx: u32,
    /// Frames whose NAK is on its way back, oldest first, with their
    /// transmissions so far. A constant round trip keeps them in order,
    /// so the NAK events can pop the front.
    awaiting_nak: VecDeque<(PacketId, u32)>,
    /// Frames whose NAK is back, waiting for the transmitter.
    resend: VecDeque<(PacketId, u32)>,
}

impl LinkArq {
    pub fn new(config: ArqConfig) -> LinkArq {
        debug_assert!(config.attempts >= 1);
        LinkArq {
            config,
            in_service_tx: 0,
            awaiting_nak: VecDeque::new(),
            resend: VecDeque::new(),
        }
    }

    /// The next frame to resend, if one waits; it becomes the frame in
    /// service. Resends go before the queue.
    pub fn next_resend(&mut self) -> Option<PacketId> {
        let (p, n) = self.resend.pop_front()?;
        self.in_service_tx = n + 1;
        Some(p)
    }

    /// A frame from the queue starts its first transmission.
    pub fn start_first(&mut self) {
        self.in_service_tx = 1;
    }

    /// The frame in service, `p`, was corrupted: resend it, give up, or
    /// recover it. On `Resend` it waits for its NAK (`on_nak`).
    pub fn on_corrupted(&mut self, p: PacketId) -> ArqVerdict {
        let n = self.in_service_tx;
        if n < self.config.attempts {
            self.awaiting_nak.push_back((p, n));
            ArqVerdict::Resend
        } else if self.config.recover_all {
            ArqVerdict::Recover
        } else {
            ArqVerdict::GiveUp
        }
    }

    /// The oldest outstanding NAK is back: its frame waits for the
    /// transmitter.
    pub fn on_nak(&mut self) {
        let f = self
            .awaiting_nak
            .pop_front()
            .expect("a frame awaiting a NAK");
        self.resend.push_back(f);
    }

    /// Frames awaiting a NAK or a resend.
    pub fn pending(&self) -> usize {
        self.awaiting_nak.len() + self.resend.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_are_checked_and_built() {
        let parse = |v| -> Result<ArqConfig, ScenarioError> {
            let c: ArqConfig = crate::error::typed(&v)?;
            c.validate()?;
            Ok(c)
        };
        assert!(parse(json!({})).unwrap().build().is_none());
        let on = parse(json!({"attempts": 3, "recover_all": true})).unwrap();
        assert_eq!(on.build().unwrap().config, on);
        for (v, field) in [
            (json!({"attempts": 5000}), "attempts"),
            (json!({"attempts": -1}), "attempts"),
            (json!({"attempts": 2.5}), "attempts"),
            (json!({"recover_all": true}), "recover_all"),
            (json!({"attempts": 0, "recover_all": true}), "recover_all"),
            (json!({"recover_all": "yes"}), "recover_all"),
        ] {
            assert_eq!(parse(v.clone()).unwrap_err().field, field, "{v}");
        }
    }

    fn arq(attempts: u32, recover_all: bool) -> LinkArq {
        LinkArq::new(ArqConfig {
            attempts,
            recover_all,
        })
    }

    #[test]
    fn a_frame_is_resent_until_its_attempts_are_used_up() {
        let mut a = arq(3, false);
        a.start_first();
        assert_eq!(a.on_corrupted(7), ArqVerdict::Resend);
        assert_eq!(a.next_resend(), None, "not before the NAK is back");
        a.on_nak();
        assert_eq!(a.next_resend(), Some(7));
        assert_eq!(a.on_corrupted(7), ArqVerdict::Resend);
        a.on_nak();
        assert_eq!(a.next_resend(), Some(7));
        assert_eq!(a.on_corrupted(7), ArqVerdict::GiveUp, "third failure");
        assert_eq!(a.pending(), 0);
    }

    #[test]
    fn recover_all_delivers_the_last_attempt() {
        let mut a = arq(2, true);
        a.start_first();
        assert_eq!(a.on_corrupted(1), ArqVerdict::Resend);
        a.on_nak();
        assert_eq!(a.next_resend(), Some(1));
        assert_eq!(a.on_corrupted(1), ArqVerdict::Recover);
        // One attempt: nothing is resent, every frame is recovered.
        let mut one = arq(1, true);
        one.start_first();
        assert_eq!(one.on_corrupted(2), ArqVerdict::Recover);
        let mut lossy = arq(1, false);
        lossy.start_first();
        assert_eq!(lossy.on_corrupted(2), ArqVerdict::GiveUp);
    }

    #[test]
    fn frames_keep_their_own_attempt_counts_and_order() {
        let mut a = arq(2, false);
        a.start_first();
        assert_eq!(a.on_corrupted(1), ArqVerdict::Resend);
        a.start_first();
        assert_eq!(a.on_corrupted(2), ArqVerdict::Resend);
        a.on_nak();
        a.on_nak();
        assert_eq!(a.pending(), 2);
        // Frame 1 first, on its second (last) attempt.
        assert_eq!(a.next_resend(), Some(1));
        assert_eq!(a.on_corrupted(1), ArqVerdict::GiveUp);
        // A new frame from the queue starts over at one transmission.
        a.start_first();
        assert_eq!(a.on_corrupted(3), ArqVerdict::Resend);
        assert_eq!(a.next_resend(), Some(2));
        assert_eq!(a.on_corrupted(2), ArqVerdict::GiveUp);
        a.on_nak();
        assert_eq!(a.next_resend(), Some(3));
    }
}
