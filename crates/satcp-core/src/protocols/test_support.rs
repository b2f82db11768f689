//! Helpers of the variants' unit tests.

use super::reno::Reno;
use super::sack::SackRecovery;
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
