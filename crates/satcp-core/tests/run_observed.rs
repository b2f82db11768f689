//! `scenario::run_observed`: observers attached to a run (the Python
//! binding's progress clock) see its packets and change nothing.

use satcp_core::net::observer::{PacketEvent, PacketObserver};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Keeps the time of the latest packet event and counts the events.
struct Clock(Arc<AtomicU64>, Arc<AtomicU64>);

impl PacketObserver for Clock {
    fn on_packet(&mut self, ev: &PacketEvent) {
        assert!(
            ev.time.0 >= self.0.load(Ordering::Relaxed),
            "time goes forward"
        );
        self.0.store(ev.time.0, Ordering::Relaxed);
        self.1.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn an_observed_run_is_the_same_run() {
    let s = satcp_core::parse(
        &json!({
            "nodes": ["server", "gw", "client"],
            "links": [{"a": "server", "b": "gw", "rate_bps": 1e7, "delay_s": 0.01},
                      {"a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25,
                       "ab": {"errors": {"ber": 1e-6}}}],
            "apps": [{"kind": "ftp", "client": "client", "server": "server",
                      "file_bytes": 300000}],
            "tcp": {"variant": "sack"},
            "seed": 3,
        })
        .to_string(),
    )
    .unwrap();
    let plain = serde_json::to_string(&satcp_core::run(&s)).unwrap();
    let (now, events) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let observed =
        satcp_core::scenario::run_observed(&s, vec![Box::new(Clock(now.clone(), events.clone()))]);
    assert_eq!(serde_json::to_string(&observed).unwrap(), plain);
    assert!(events.load(Ordering::Relaxed) > 1000);
    let end_ns = (observed.end_time_s * 1e9).round() as u64;
    let last = now.load(Ordering::Relaxed);
    assert!(last > 0 && last <= end_ns, "{last} {end_ns}");
}
