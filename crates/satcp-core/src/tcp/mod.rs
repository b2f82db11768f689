//! Byte-accurate TCP: the connection machinery and the hooks variants use.

pub mod ack_info;
pub mod config;
pub mod congestion;
pub mod cwnd_validation;
pub mod delayed_ack;
pub mod delivery_rate;
pub mod ecn;
pub mod endpoint;
pub mod flow_stats;
pub mod hystart;
pub mod invariants;
pub mod linux_rto;
pub mod loss_reduction;
pub mod nagle;
pub mod options;
pub mod path_cache;
pub mod profile;
pub mod quick_ack;
pub mod receiver;
pub mod receiver_part;
pub mod recovery;
pub mod rtt_estimator;
pub mod send_state;
pub mod sent_queue;
pub mod slow_start;
pub mod stall_record;
pub mod variant;

pub use ack_info::AckInfo;
pub use config::{Profile, Recovery, TcpConfig};
pub use congestion::{CcEvent, CongestionControl, Reply};
pub use endpoint::{ConnState, Notice, TcpEndpoint, TcpOutput};
pub use flow_stats::FlowStats;
pub use path_cache::{CachedPath, PathCache};
pub use recovery::{LossRecovery, RecoveryAck, RecoveryRules};
pub use send_state::{CongState, SendState};
pub use stall_record::StallRecord;
pub use variant::{EndpointParts, VariantChoice, VariantFactory};

#[cfg(test)]
pub(crate) mod test_support;
