//! What a run measures: per-flow counters, link counters, application
//! response times and sampled time series.

pub mod flow_stats;
pub mod timeseries;

pub use flow_stats::FlowStats;
