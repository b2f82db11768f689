//! Helpers of the variants' unit tests.

use crate::tcp::TcpConfig;

pub use crate::tcp::test_support::send_state;

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
