//! What a variant gives the connection machinery: the modules of one
//! endpoint, made by the variant's factory for every new connection. The
//! registry that maps names to factories is `protocols/mod.rs`; the
//! machinery only knows these traits.

use super::congestion::CongestionControl;
use super::receiver_part::ReceiverPart;
use super::recovery::LossRecovery;

/// The modules one endpoint of a connection runs.
pub struct EndpointParts {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: Box<dyn LossRecovery>,
    /// Whether the endpoint offers the SACK option.
    pub sack: bool,
    /// Receiver logic beyond standard TCP (None: none).
    pub receiver: Option<Box<dyn ReceiverPart>>,
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
        }
    }

    pub fn with_receiver(mut self, receiver: Box<dyn ReceiverPart>) -> EndpointParts {
        self.receiver = Some(receiver);
        self
    }
}

/// Makes the parts of each endpoint of an application's connections. Built
/// once per application from its TCP settings and the variant's own
/// (validated) settings.
pub trait VariantFactory {
    /// The parts of one endpoint of a new connection. Both ends of a
    /// connection run the same variant: the sender's modules act on the data
    /// it sends, the receiver part on the data it receives.
    fn endpoint(&self) -> EndpointParts;
}
