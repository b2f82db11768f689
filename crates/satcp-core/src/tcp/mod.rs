//! Byte-accurate TCP: the connection machinery and the hooks variants use.

pub mod config;
pub mod congestion;
pub mod delayed_ack;
pub mod ecn;
pub mod endpoint;
pub mod marked;
pub mod path_cache;
pub mod receiver;
pub mod recovery;
pub mod rtt_estimator;
pub mod send_state;
pub mod sent_queue;

pub use config::TcpConfig;
pub use endpoint::{ConnState, Notice, TcpEndpoint, TcpOutput};
pub use path_cache::{CachedPath, PathCache};

#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod hook_tests;

#[cfg(test)]
pub(crate) mod test_support;
