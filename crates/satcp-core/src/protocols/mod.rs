//! TCP variants. A variant is a congestion-control module plus a
//! loss-recovery module (plus, later, receiver and router parts); the
//! registry below is the only place that maps names to modules.

pub mod newreno;
pub mod reno;
pub mod sack;

use crate::tcp::congestion::CongestionControl;
use crate::tcp::recovery::LossRecovery;

/// The modules one endpoint of a variant runs.
pub struct VariantParts {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: Box<dyn LossRecovery>,
    /// Whether the endpoint offers the SACK option.
    pub sack: bool,
}

/// Every variant name satcp knows, for help texts and error messages.
pub const VARIANTS: &[&str] = &["newreno", "sack"];

pub fn build_variant(name: &str) -> Option<VariantParts> {
    let parts = match name {
        "newreno" => VariantParts {
            cc: Box::new(reno::Reno::new()),
            recovery: Box::new(newreno::NewRenoRecovery),
            sack: false,
        },
        "sack" => VariantParts {
            cc: Box::new(reno::Reno::new()),
            recovery: Box::new(sack::SackRecovery),
            sack: true,
        },
        _ => return None,
    };
    Some(parts)
}
