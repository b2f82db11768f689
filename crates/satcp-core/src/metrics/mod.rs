//! What a run records besides the counters its parts keep (an endpoint's
//! `tcp::FlowStats`, a link's `LinkStats`): what is kept of an endpoint
//! once its connection is over, sampled time series, per-event traces and
//! packet captures.

pub mod endpoint_record;
pub mod pcap;
pub mod timeseries;
pub mod trace;
pub mod wire;

pub use endpoint_record::EndpointRecord;
