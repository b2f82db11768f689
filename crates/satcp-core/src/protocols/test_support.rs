//! Helpers of the variants' unit tests.

use super::reno::Reno;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{TcpConfig, TcpEndpoint};

/// A fresh sender state with segments of `mss` bytes (the endpoint's
/// defaults otherwise), for driving a congestion module by hand.
pub fn send_state(mss: u32) -> SendState {
    let cfg = TcpConfig {
        mss,
        ..TcpConfig::default()
    };
    TcpEndpoint::new(&cfg, true, Box::new(Reno::new()), Box::new(SackRecovery)).tx
}

/// The field an error names when variant `variant` is given the settings
/// table `settings` (None: accepted).
pub fn settings_error(variant: &str, settings: serde_json::Value) -> Option<String> {
    let tcp = TcpConfig {
        variant: variant.into(),
        ..TcpConfig::default()
    };
    super::resolve(&tcp, &settings).err().map(|e| e.field)
}

/// `tcp` with its variant resolved with the settings table `settings`
/// (as the scenario parser does).
pub fn with_settings(mut tcp: TcpConfig, settings: serde_json::Value) -> TcpConfig {
    tcp.variant_choice = Some(super::resolve(&tcp, &settings).expect("valid settings"));
    tcp
}
