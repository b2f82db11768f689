//! TCP variants. A variant is a congestion-control module plus a
//! loss-recovery module (plus, later, receiver and router parts); the
//! registry below is the only place that maps names to modules.

pub mod adalr;
pub mod faststart;
pub mod newreno;
pub mod peach;
pub mod reno;
pub mod sack;

use crate::tcp::congestion::CongestionControl;
use crate::tcp::marked::{IgnoreMarks, MarkedSegmentPolicy};
use crate::tcp::recovery::LossRecovery;
use crate::tcp::TcpConfig;

/// The modules one endpoint of a variant runs.
pub struct VariantParts {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: Box<dyn LossRecovery>,
    /// Whether the endpoint offers the SACK option.
    pub sack: bool,
}

/// Every variant name satcp knows, for help texts and error messages.
pub const VARIANTS: &[&str] = &[
    "newreno",
    "sack",
    "adalr-newreno",
    "adalr-sack",
    "peach",
    "peach-sack",
    "faststart",
    "faststart-sack",
];

/// The modules of the variant `cfg.variant`, or None if it is unknown.
pub fn build_variant(cfg: &TcpConfig) -> Option<VariantParts> {
    let adalr = || Box::new(adalr::Adalr::new(cfg.adalr.clone(), cfg.deviation_gain));
    let parts = match cfg.variant.as_str() {
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
        "adalr-newreno" => VariantParts {
            cc: adalr(),
            recovery: Box::new(adalr::AdalrRecovery::new(
                newreno::NewRenoRecovery,
                cfg.adalr.clone(),
            )),
            sack: false,
        },
        "adalr-sack" => VariantParts {
            cc: adalr(),
            recovery: Box::new(adalr::AdalrRecovery::new(
                sack::SackRecovery,
                cfg.adalr.clone(),
            )),
            sack: true,
        },
        "peach" => peach::parts(false),
        "peach-sack" => peach::parts(true),
        "faststart" => faststart::parts(&cfg.faststart, false),
        "faststart-sack" => faststart::parts(&cfg.faststart, true),
        _ => return None,
    };
    Some(parts)
}

/// How an endpoint answers marked segments: a receiver setting, not a
/// variant's, so that a TCP-Peach sender may meet a receiver without
/// Peach support (`tcp.peach.receiver_support = false`).
pub fn marked_policy(cfg: &TcpConfig) -> Box<dyn MarkedSegmentPolicy> {
    if cfg.peach.receiver_support {
        Box::new(peach::receiver::PeachReceiver)
    } else {
        Box::new(IgnoreMarks)
    }
}
