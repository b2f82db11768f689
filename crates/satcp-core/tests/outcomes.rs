//! What became of each transfer (`TransferRow::outcome`) and how each
//! connection stalled (`RunResult::stalls`): given up after the
//! retransmission limit, still under way at the duration, or open-ended.

use satcp_core::scenario::results::Outcome;
use satcp_core::RunResult;
use serde_json::{json, Value};

/// One FTP download over a 2 Mb/s hop with 250 ms one-way delay; `errors`
/// go on the data direction.
fn ftp(file_bytes: u64, duration_s: f64, errors: Value, tcp: Value) -> Value {
    json!({
        "name": "outcomes", "duration_s": duration_s, "seed": 3,
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                   "ab": {"errors": errors}}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": file_bytes}],
        "tcp": tcp,
    })
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

#[test]
fn a_finished_download_is_done_and_never_stalled() {
    let r = run(&ftp(100_000, 100.0, json!({}), json!({})));
    assert_eq!(r.transfers[0].outcome, Outcome::Done);
    let st = &r.stalls[0];
    assert_eq!(
        (st.aborted_s, st.aborted_side, st.abort_timeouts),
        (None, None, None)
    );
    assert_eq!(st.max_backed_off_rto_s, 0.0);
    // Samples come every round trip or so (0.5 s plus transmission).
    assert!(
        st.longest_rtt_sample_gap_s > 0.4 && st.longest_rtt_sample_gap_s < 2.0,
        "{st:?}"
    );
}

#[test]
fn a_download_cut_off_for_good_is_aborted_after_the_retransmission_limit() {
    // Every data packet lost from 5 s on: the server times out, backs off
    // and gives up after max_retransmissions retries.
    let errors = json!({"loss_schedule": [[0.0, 0.0], [5.0, 1.0]]});
    let tcp = json!({"max_retransmissions": 4, "max_rto": 64.0});
    let r = run(&ftp(10_000_000, 2000.0, errors, tcp));
    assert_eq!(r.transfers[0].outcome, Outcome::Aborted);
    assert!(r.transfers[0].response_time_s.is_none());
    let st = &r.stalls[0];
    assert_eq!(st.aborted_side, Some("server"));
    assert_eq!(st.abort_timeouts, Some(5));
    let at = st.aborted_s.unwrap();
    // Back-offs of about 1, 2, 4, 8 and 16 s (RTO from a ~0.6 s path): the
    // fifth timeout comes some 31 s after the outage.
    assert!(at > 20.0 && at < 80.0, "aborted at {at}");
    assert!(st.max_backed_off_rto_s >= 8.0, "{st:?}");
    // Nothing sampled from the outage to the abort.
    assert!(st.longest_rtt_sample_gap_s > at - 10.0, "{st:?}");
    // The run goes on to its duration (the FTP application waits for its
    // download), as before.
    assert_eq!(r.end_time_s, 2000.0);
    assert!(!r.apps_done);
}

#[test]
fn a_download_still_running_at_the_duration_is_unfinished() {
    let r = run(&ftp(50_000_000, 20.0, json!({}), json!({})));
    assert_eq!(r.transfers[0].outcome, Outcome::Unfinished);
    assert_eq!(r.stalls[0].aborted_s, None);
}

#[test]
fn an_unbounded_bulk_transfer_is_ongoing_not_unfinished() {
    let mut v = ftp(0, 20.0, json!({}), json!({}));
    v["apps"] = json!([{"kind": "bulk", "client": "client", "server": "server"}]);
    let r = run(&v);
    assert_eq!(r.transfers[0].outcome, Outcome::Ongoing);
    v["apps"] = json!([{"kind": "bulk", "client": "client", "server": "server",
                        "bytes": 100_000_000}]);
    assert_eq!(run(&v).transfers[0].outcome, Outcome::Unfinished);
}

#[test]
fn outcomes_serialize_as_words_after_the_other_fields() {
    let s = satcp_core::run_json(&ftp(100_000, 100.0, json!({}), json!({})).to_string()).unwrap();
    // After `bytes`, the last of the older fields: a new last column in
    // the transfers table.
    let row = &s[s.find("\"transfers\"").unwrap()..];
    assert!(row.find("\"bytes\"").unwrap() < row.find("\"outcome\"").unwrap());
    let v: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["transfers"][0]["outcome"], "done");
    assert_eq!(v["stalls"][0]["aborted_side"], Value::Null);
}
