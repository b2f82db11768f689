//! `RunRow` (a run as a sweep's row) and `FieldSet` (the results cut down
//! to named fields) against the whole results of the same runs.

use satcp_core::scenario::result_fields::FieldSet;
use satcp_core::scenario::run_row::RunRow;
use satcp_core::RunResult;
use serde_json::json;

/// Two FTP downloads over one 2 Mb/s, 250 ms hop with `loss` on the data
/// direction (the second starts later), cut off at `duration_s`.
fn run(loss: f64, duration_s: f64) -> RunResult {
    let v = json!({
        "name": "rows", "duration_s": duration_s, "seed": 3,
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                   "ab": {"errors": {"loss": loss, "data_only": true}}}],
        "apps": [
            {"kind": "ftp", "client": "client", "server": "server", "file_bytes": 100_000},
            {"kind": "ftp", "client": "client", "server": "server", "file_bytes": 200_000,
             "start_s": 1.0},
        ],
        "tcp": {"max_retransmissions": 2},
    });
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

#[test]
fn finished_downloads_give_the_mean_response_time_and_the_sums() {
    let r = run(0.0, 100.0);
    let row = RunRow::of(&r);
    let times: Vec<f64> = r
        .transfers
        .iter()
        .map(|t| t.response_time_s.unwrap())
        .collect();
    assert_eq!(row.response_time_s, Some((times[0] + times[1]) / 2.0));
    assert_eq!(
        (
            row.transfers_done,
            row.transfers_aborted,
            row.transfers_unfinished
        ),
        (2, 0, 0)
    );
    assert_eq!(
        row.goodput_bps,
        r.flows[0].goodput_bps + r.flows[1].goodput_bps
    );
    assert_eq!((row.events, row.end_time_s), (r.events, r.end_time_s));
    assert_eq!(row.first_abort, None);
}

#[test]
fn cut_off_and_aborted_runs_are_counted_and_the_first_abort_named() {
    let cut = RunRow::of(&run(0.0, 1.5));
    assert_eq!((cut.transfers_done, cut.transfers_unfinished), (0, 2));
    assert_eq!(cut.response_time_s, None);
    let dead = run(1.0, 1000.0);
    let row = RunRow::of(&dead);
    assert_eq!(row.transfers_aborted, 2);
    let first = row.first_abort.expect("an abort");
    let earliest = dead
        .stalls
        .iter()
        .filter_map(|s| s.aborted_s)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(first.at_s, earliest);
    assert_eq!((first.side, first.timeouts), ("server", 3));
    let server = |f: fn(&satcp_core::tcp::FlowStats) -> u64| -> u64 {
        dead.flows.iter().map(|fl| f(&fl.server)).sum()
    };
    assert_eq!(row.timeouts, server(|s| s.timeouts));
    assert_eq!(
        row.retransmitted_segments,
        server(|s| s.retransmitted_segments)
    );
    assert!(row.timeouts >= 3);
}

#[test]
fn a_projection_equals_the_same_fields_of_the_whole_results() {
    let r = run(0.01, 100.0);
    let whole = serde_json::to_value(&r).unwrap();
    let paths = [
        "events",
        "flows.server.timeouts",
        "links.stats",
        "transfers.outcome",
        "nope",
    ];
    let f = FieldSet::new(&paths);
    // Both sides parsed from JSON text (serde_json parses a float to within
    // an ulp only, the same text to the same value): the projection keeps
    // the results' order, the reference sorts the keys.
    let parsed = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    let projected = parsed(&f.project_results(&r));
    assert_eq!(projected, parsed(&f.project(&whole).to_string()));
    assert!(projected["flows"][0]["server"]["timeouts"].is_u64());
    assert!(projected["links"][0]["stats"].as_object().unwrap().len() > 5);
    // every top-level field of the results can be asked for
    let keys: Vec<String> = whole.as_object().unwrap().keys().cloned().collect();
    let all = FieldSet::new(&keys).project_results(&r);
    assert_eq!(all, serde_json::to_string(&r).unwrap());
    assert_eq!(parsed(&all), parsed(&whole.to_string()));
}
