//! `run_json_summary`: the results JSON without the time series, for a
//! caller that reads only the summary (a sweep).

use serde_json::json;

/// `run_json_summary` is `run_json` with the time series left out: the
/// same run (its samples are events, so the counts agree) and every other
/// field the same.
#[test]
fn a_summary_is_the_run_without_its_series() {
    let scenario = json!({
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e7, "delay_s": 0.01},
                  {"a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                   "ab": {"ber": 1e-6}}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": 300000}],
        "tcp": {"variant": "sack"},
        "sample_interval_s": 0.5,
        "seed": 3,
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
