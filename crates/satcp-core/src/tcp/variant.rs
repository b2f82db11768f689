//! What a variant gives the connection machinery: the modules of one
//! endpoint, made by the variant's factory for every new connection. The
//! registry that maps names to factories is `protocols/mod.rs`; the
//! machinery only knows these traits.

use super::config::Recovery;
use super::congestion::CongestionControl;
use super::receiver_part::ReceiverPart;
use super::recovery::{self, LossRecovery};
use std::sync::Arc;

/// The modules one endpoint of a connection runs.
pub struct EndpointParts {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: Box<dyn LossRecovery>,
    /// Whether the endpoint offers the SACK option.
    pub sack: bool,
    /// Receiver logic beyond standard TCP (None: none).
    pub receiver: Option<Box<dyn ReceiverPart>>,
    /// A window reduction whose every retransmission a DSACK shows
    /// spurious is undone (`CongestionControl::undo`; RFC 3708 detection,
    /// Linux's undo on DSACK).
    pub undo_on_dsack: bool,
}

impl EndpointParts {
    pub fn new(
        cc: Box<dyn CongestionControl>,
        recovery: Box<dyn LossRecovery>,
        sack: bool,
    ) -> EndpointParts {
        EndpointParts {
            cc,
            recovery,
            sack,
            receiver: None,
            undo_on_dsack: false,
        }
    }

    /// A congestion control with the standard loss recovery `r` (NewReno
    /// or SACK, the SACK option offered with the latter): what a variant
    /// that changes only congestion control runs.
    pub fn with_standard_recovery(cc: Box<dyn CongestionControl>, r: Recovery) -> EndpointParts {
        EndpointParts::new(cc, recovery::standard(r), r == Recovery::Sack)
    }

    pub fn with_receiver(mut self, receiver: Box<dyn ReceiverPart>) -> EndpointParts {
        self.receiver = Some(receiver);
        self
    }

    pub fn undoing_on_dsack(mut self) -> EndpointParts {
        self.undo_on_dsack = true;
        self
    }
}

/// Makes the parts of each endpoint of an application's connections: a
/// variant family's settings, parsed and checked once by the scenario
/// layer (`protocols::Variant`), are its factory.
pub trait VariantFactory: Send + Sync {
    /// The parts of one endpoint of a new connection running loss recovery
    /// `recovery` (the one the scenario chose among the family's). Both
    /// ends of a connection run the same variant: the sender's modules act
    /// on the data it sends, the receiver part on the data it receives.
    fn endpoint(&self, recovery: Recovery) -> EndpointParts;
}

/// A variant as the scenario layer resolved it: the family, the loss
/// recovery chosen, and the family's parsed settings (its factory).
#[derive(Clone)]
pub struct VariantChoice {
    pub family: &'static str,
    pub recovery: Recovery,
    pub factory: Arc<dyn VariantFactory>,
}

impl VariantChoice {
    /// The parts of one endpoint of a new connection.
    pub fn endpoint(&self) -> EndpointParts {
        self.factory.endpoint(self.recovery)
    }
}

impl std::fmt::Debug for VariantChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.family, self.recovery.name())
    }
}

/// Two choices are equal when they are the same parsed settings.
impl PartialEq for VariantChoice {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
            && self.recovery == other.recovery
            && Arc::ptr_eq(&self.factory, &other.factory)
    }
}
