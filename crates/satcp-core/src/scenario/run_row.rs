//! A run as one row of numbers: what a sweep's runs table keeps of each
//! run (`python/satcp/sweep.py`), computed from the results here so that a
//! sweep of thousands of short runs does not turn each run's whole results
//! into Python objects to add up a dozen numbers (issue 33).

use super::results::{Outcome, RunResult};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    /// The mean response time of the transfers that finished, in their
    /// order; None if none did.
    pub response_time_s: Option<f64>,
    pub transfers_done: u32,
    /// Summed over the flows, in their order.
    pub goodput_bps: f64,
    /// The data senders' counters, summed over the flows.
    pub retransmitted_segments: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub events: u64,
    pub end_time_s: f64,
    pub transfers_aborted: u32,
    pub transfers_unfinished: u32,
    pub transfers_ongoing: u32,
    /// The connection that gave up first (the earliest; the first listed of
    /// equals), if one did: the caller says why in words.
    pub first_abort: Option<FirstAbort>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstAbort {
    pub conn: u32,
    pub side: &'static str,
    pub at_s: f64,
    pub timeouts: u32,
}

/// Sums in order from +0.0, as Python's `sum` does (Rust's `Sum` for
/// floats starts from -0.0), so that the row is the same number for number.
fn sum_in_order(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |acc, v| acc + v)
}

impl RunRow {
    pub fn of(r: &RunResult) -> RunRow {
        let count = |o: Outcome| r.transfers.iter().filter(|t| t.outcome == o).count() as u32;
        let times: Vec<f64> = r
            .transfers
            .iter()
            .filter(|t| t.outcome == Outcome::Done)
            .filter_map(|t| t.response_time_s)
            .collect();
        let mut first_abort: Option<FirstAbort> = None;
        for s in &r.stalls {
            if let Some(at_s) = s.aborted_s {
                if first_abort.as_ref().is_none_or(|f| at_s < f.at_s) {
                    first_abort = Some(FirstAbort {
                        conn: s.conn,
                        side: s.aborted_side.unwrap_or("?"),
                        at_s,
                        timeouts: s.abort_timeouts.unwrap_or(0),
                    });
                }
            }
        }
        RunRow {
            response_time_s: (!times.is_empty())
                .then(|| sum_in_order(times.iter().copied()) / times.len() as f64),
            transfers_done: count(Outcome::Done),
            goodput_bps: sum_in_order(r.flows.iter().map(|f| f.goodput_bps)),
            retransmitted_segments: r
                .flows
                .iter()
                .map(|f| f.server.retransmitted_segments)
                .sum(),
            fast_retransmits: r.flows.iter().map(|f| f.server.fast_retransmits).sum(),
            timeouts: r.flows.iter().map(|f| f.server.timeouts).sum(),
            events: r.events,
            end_time_s: r.end_time_s,
            transfers_aborted: count(Outcome::Aborted),
            transfers_unfinished: count(Outcome::Unfinished),
            transfers_ongoing: count(Outcome::Ongoing),
            first_abort,
        }
    }
}
