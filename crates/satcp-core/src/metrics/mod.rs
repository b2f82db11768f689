//! What a run measures: per-flow counters, link counters, application
//! response times and sampled time series.

pub mod endpoint_record;
pub mod flow_stats;
pub mod pcap;
pub mod timeseries;
pub mod wire;

pub use endpoint_record::EndpointRecord;
pub use flow_stats::FlowStats;
