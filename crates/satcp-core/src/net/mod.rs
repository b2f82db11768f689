//! The network layer: packets, links, queues, error models and routing.
//! It moves packets between nodes and knows nothing of TCP's state.

pub mod error_model;
pub mod gilbert_elliott;
pub mod link;
pub mod link_arq;
pub mod observer;
pub mod packet;
pub mod queue;
pub mod router;
pub mod schedule;
pub mod topology;
