//! `run_json_summary`: the results JSON without the time series, for a
//! caller that reads only the summary (a sweep).

use serde_json::json;

/// `run_json_summary` is `run_json` with the time series left out: the
/// same run (its samples are events, so the counts agree) and every other
/// field the same.
#[test]
fn a_summary_is_the_run_without_its_series() {
    // A bulk flow for a fixed time over one lossy hop, sampled twice a
    // second.
    let scenario = json!({
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                   "ab": {"errors": {"loss": 0.01}}}],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": {"variant": "newreno"},
        "duration_s": 20.0,
        "sample_interval_s": 0.5,
        "seed": 5,
    })
    .to_string();
    let full: serde_json::Value =
        serde_json::from_str(&satcp_core::run_json(&scenario).unwrap()).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&satcp_core::run_json_summary(&scenario).unwrap()).unwrap();
    assert!(
        full["flow_series"]["time_s"].as_array().unwrap().len() > 10,
        "the full run has series"
    );
    for series in ["flow_series", "link_series"] {
        for (column, values) in summary[series].as_object().unwrap() {
            assert_eq!(values, &json!([]), "{series}.{column} is empty");
        }
        assert_eq!(
            summary[series]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            full[series].as_object().unwrap().keys().collect::<Vec<_>>(),
            "{series} keeps its columns"
        );
    }
    let mut without = full.clone();
    without["flow_series"] = summary["flow_series"].clone();
    without["link_series"] = summary["link_series"].clone();
    assert_eq!(summary, without);
    assert!(satcp_core::run_json_summary("{").is_err());
}
