//! The worked example of docs/architecture.md ("Adding a variant"): a
//! variant with a sender, a receiver and a router part that talk through
//! a header extension. It is small on purpose and not one of the papers'
//! protocols (its idea is that of explicit drop notification, which the
//! EPDN gateways of the TCP-R paper refine):
//!
//! - the router part (`router.rs`, kind `example-drop-recorder`) remembers,
//!   per flow, the data a node had to discard and writes those sequence
//!   ranges into the next data packet of the same flow it forwards;
//! - the receiver part (`receiver.rs`) takes the ranges from arriving data
//!   and echoes them in its next ACK, with the flag `EXAMPLE_DROP_ECHO`;
//! - the sender (`DropAware` here) is Reno with NewReno or SACK recovery
//!   that presumes the echoed ranges lost at once, so they are resent
//!   without waiting for duplicate ACKs or a timeout.
//!
//! `tcp.variant = "example"` selects it; it is not listed by `satcp
//! variants`. Its tests prove each hook (`tests/example_variant.rs`).

pub mod receiver;
pub mod router;

use super::header_bits::EXAMPLE_DROP_ECHO;
use super::reno::Reno;
use super::{RouterKind, Settings, Variant};
use crate::engine::SimTime;
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::new::<ExampleConfig>(
    "example",
    "worked example: drop records from routers, echoed by the receiver, resent by the sender",
    &[Recovery::NewReno, Recovery::Sack],
    &[],
)
.unlisted();

pub const DROP_RECORDER: RouterKind = RouterKind {
    kind: "example-drop-recorder",
    about: "records data a node discards, per flow, into the flow's next data packet",
    build: router::build,
    schema: super::schema_of::<router::Settings>,
};

/// `[tcp.example]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ExampleConfig {
    /// The sender ignores echoed drop records (a baseline for tests).
    pub ignore_echoes: bool,
}

impl Settings for ExampleConfig {}

impl VariantFactory for ExampleConfig {
    fn endpoint(&self, recovery: Recovery) -> EndpointParts {
        let cc = DropAware {
            reno: Reno::new(),
            act: !self.ignore_echoes,
            echoes: 0,
            presumed_lost: 0,
        };
        EndpointParts::with_standard_recovery(Box::new(cc), recovery)
            .with_receiver(Box::new(receiver::DropEcho::default()))
    }
}

/// Reno that takes echoed drop records as certain losses.
pub struct DropAware {
    reno: Reno,
    act: bool,
    echoes: u64,
    presumed_lost: u64,
}

impl CongestionControl for DropAware {
    fn name(&self) -> &'static str {
        "example"
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.reno.ssthresh(s)
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        self.reno.on_timeout(s);
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        if let CcEvent::Ack(ack) = ev {
            self.on_echo(s, ack);
        }
        Reply::Default
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("drop_echoes", self.echoes),
            ("presumed_lost_by_echo", self.presumed_lost),
        ]
    }
}

impl DropAware {
    /// An ACK that echoes drop records: the ranges it echoes are presumed
    /// lost and the first is resent at once.
    fn on_echo(&mut self, s: &mut SendState, ack: &AckInfo) {
        if !ack.ext().has(EXAMPLE_DROP_ECHO) {
            return;
        }
        self.echoes += 1;
        if !self.act {
            return;
        }
        for r in ack.ext_ranges() {
            let n = s.presume_lost_in(r);
            if n > 0 {
                self.presumed_lost += n as u64;
                s.retransmit_lost_now();
            }
        }
    }
}
