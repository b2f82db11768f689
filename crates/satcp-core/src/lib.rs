//! satcp-core: a packet-level discrete-event simulator for TCP over
//! satellite links. See docs/architecture.md for the layers and hooks.
//!
//! - `engine`: time, events, random streams
//! - `net`: packets, links, queues, error models, routing, router hooks
//! - `tcp`: the shared connection machinery and the variant hooks
//! - `protocols`: the variants (congestion control, loss recovery, ...)
//! - `apps`: FTP, HTTP/1.1, bulk transfer
//! - `metrics`: counters and time series
//! - `pep`: performance-enhancing proxies (split connections)
//! - `scenario`: scenario format, validation, building, results
//! - `sim`: the event loop that wires them together
//! - `huge_page_alloc`: the allocator satcp's programs declare global

pub mod apps;
pub mod engine;
pub mod error;
pub mod huge_page_alloc;
pub mod metrics;
pub mod net;
pub mod pep;
pub mod pgo_training;
pub mod protocols;
pub mod scenario;
pub mod sim;
pub mod tcp;

#[cfg(test)]
mod tests;

pub use huge_page_alloc::HugePageAlloc;
pub use scenario::{
    parse, run, run_checked, run_json, run_json_summary, CheckedRun, RunResult, Scenario,
    ScenarioError,
};
