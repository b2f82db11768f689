//! The network layer: packets, links, queues, error models and routing.
//! It moves packets between nodes and knows nothing of TCP's state.

pub mod access;
pub mod congestion_loss;
pub mod dvbrcs2;
pub mod dvbs2;
pub mod error_model;
pub mod gilbert_elliott;
pub mod link;
pub mod link_arq;
pub mod link_config;
pub mod observer;
pub mod packet;
pub mod queue;
pub mod reorder;
pub mod router;
pub mod schedule;
pub mod scheduled_loss;
pub mod topology;
