//! `scenario::run_watched` with a stop flag (Ctrl-C in the Python front):
//! a run stops within a moment of the flag being set, from another thread,
//! and says so; an unset flag changes nothing.

use satcp_core::scenario::{run_watched, Interrupted, Watch};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A bulk transfer that would go on for a simulated day (minutes of wall
/// time): only the flag ends it within the test.
fn endless() -> satcp_core::Scenario {
    satcp_core::parse(
        &json!({
            "nodes": ["server", "client"],
            "links": [{"a": "server", "b": "client", "rate_bps": 1e8, "delay_s": 0.01}],
            "apps": [{"kind": "ftp", "client": "client", "server": "server",
                      "file_bytes": 1_000_000_000_000u64}],
            "duration_s": 86400.0,
        })
        .to_string(),
    )
    .unwrap()
}

fn watch(flag: &Arc<AtomicBool>) -> Watch {
    Watch {
        observers: Vec::new(),
        stop: Some(flag.clone()),
    }
}

#[test]
fn a_run_stops_soon_after_the_flag_is_set_from_another_thread() {
    let s = endless();
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let r = run_watched(&s, watch(&flag));
    let stopped = Instant::now();
    let set_at = setter.join().unwrap();
    assert_eq!(r.err(), Some(Interrupted));
    // Generous for a loaded machine: the flag is read every 4096 events,
    // some milliseconds.
    let lag = stopped.saturating_duration_since(set_at);
    assert!(
        lag < Duration::from_secs(1),
        "stopped {lag:?} after the flag"
    );
}

#[test]
fn a_flag_set_before_the_run_stops_it_at_the_first_poll() {
    let flag = Arc::new(AtomicBool::new(true));
    assert_eq!(
        run_watched(&endless(), watch(&flag)).err(),
        Some(Interrupted)
    );
}

#[test]
fn an_unset_flag_changes_nothing() {
    let s = satcp_core::parse(
        &json!({
            "nodes": ["server", "client"],
            "links": [{"a": "server", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                       "errors": {"ber": 1e-6}}],
            "apps": [{"kind": "ftp", "client": "client", "server": "server",
                      "file_bytes": 2_000_000}],
            "seed": 7,
        })
        .to_string(),
    )
    .unwrap();
    let plain = serde_json::to_string(&satcp_core::run(&s)).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let watched = run_watched(&s, watch(&flag)).expect("not interrupted");
    assert_eq!(serde_json::to_string(&watched).unwrap(), plain);
    assert!(watched.events > 4096, "the flag was polled");
}
