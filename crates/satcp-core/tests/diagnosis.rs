//! The results' diagnosis (`scenario/diagnosis.rs`): per application why
//! it did not finish, and the warnings for pathologies.

use satcp_core::RunResult;
use serde_json::{json, Value};

/// One application over a 2 Mb/s hop with 250 ms one-way delay; `ab` is
/// the data direction's settings.
fn scenario(app: Value, duration_s: f64, ab: Value, tcp: Value) -> Value {
    json!({
        "name": "diagnosis", "duration_s": duration_s, "seed": 3,
        "nodes": ["server", "client"],
        "links": [{"name": "sat", "a": "server", "b": "client", "rate_bps": 2e6,
                   "delay_s": 0.25, "ab": ab}],
        "apps": [app],
        "tcp": tcp,
    })
}

fn ftp(file_bytes: u64) -> Value {
    json!({"kind": "ftp", "client": "client", "server": "server", "file_bytes": file_bytes})
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

fn kinds(r: &RunResult) -> Vec<&str> {
    r.warnings.iter().map(|w| w.kind).collect()
}

#[test]
fn a_finished_run_says_nothing() {
    let r = run(&scenario(ftp(100_000), 100.0, json!({}), json!({})));
    let a = &r.apps[0];
    assert!(a.finished && a.why.is_empty(), "{a:?}");
    assert_eq!((a.transfers, a.done, a.aborted, a.unfinished), (1, 1, 0, 0));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn an_aborted_download_says_who_gave_up_when_and_warns_of_its_stall() {
    // Every data packet lost from 5 s on; six retries with RTOs backed off
    // to 64 s, no RTT sample meanwhile.
    let ab = json!({"errors": {"loss_schedule": [[0.0, 0.0], [5.0, 1.0]]}});
    let r = run(&scenario(ftp(10_000_000), 2000.0, ab, json!({})));
    let a = &r.apps[0];
    assert!(!a.finished && a.aborted == 1, "{a:?}");
    let at = r.stalls[0].aborted_s.unwrap();
    assert!(
        a.why
            .starts_with("1 transfer aborted (conn 0: the server gave up at ")
            && a.why
                .contains(&format!("{at:.3} s after 7 timeouts in a row"))
            && a.why.ends_with("max_retransmissions = 6)"),
        "{}",
        a.why
    );
    assert_eq!(kinds(&r), ["rto_backed_off", "no_rtt_sample"]);
    assert_eq!(r.warnings[0].subject, "conn 0 (ftp0)");
    assert!(r.warnings[0].message.contains("backed off to 64.0 s"));
}

#[test]
fn a_run_too_short_says_its_transfer_was_still_under_way() {
    let r = run(&scenario(ftp(50_000_000), 20.0, json!({}), json!({})));
    assert_eq!(
        r.apps[0].why,
        "1 transfer still under way when the run ended at its duration (20 s)"
    );
}

#[test]
fn an_unbounded_bulk_app_is_no_failure() {
    let bulk = json!({"kind": "bulk", "client": "client", "server": "server"});
    let r = run(&scenario(bulk, 20.0, json!({}), json!({})));
    let a = &r.apps[0];
    assert!(!a.finished && a.open_ended && a.ongoing == 1, "{a:?}");
    assert!(
        a.why
            .starts_with("no set amount of work (bulk without bytes)")
            && a.why.ends_with("which is no failure"),
        "{}",
        a.why
    );
}

#[test]
fn a_queue_that_drops_over_a_tenth_of_its_packets_is_a_warning() {
    let bulk = json!({"kind": "bulk", "client": "client", "server": "server"});
    let r = run(&scenario(
        bulk.clone(),
        20.0,
        json!({"congestion_loss": 0.3}),
        json!({}),
    ));
    let w: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.kind == "queue_drops")
        .collect();
    assert_eq!(w.len(), 1, "{:?}", r.warnings);
    assert_eq!(w[0].subject, "link sat:ab");
    assert!(
        w[0].message.starts_with("the queue dropped "),
        "{}",
        w[0].message
    );
    let calm = run(&scenario(
        bulk,
        20.0,
        json!({"congestion_loss": 0.01}),
        json!({}),
    ));
    assert!(!kinds(&calm).contains(&"queue_drops"));
}
