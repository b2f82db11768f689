//! The worked example of docs/architecture.md ("Adding a variant") end to
//! end: a router part at the gateway records data the gateway had to
//! discard and writes it into the flow's next data packet (a header
//! extension), the receiver part echoes it in an ACK, the sender part
//! presumes those ranges lost and resends them at once. Together the tests
//! prove every extension point: router functions (`on_forward`,
//! `on_queue`, `on_discard`, per-flow state), header extensions (bytes on
//! the wire), receiver parts (`on_arrival`, `on_ack_out`), the sender's
//! ACK information (`on_ack_info`, counters) and the packet observer.

use satcp_core::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use satcp_core::net::router::DropCause;
use satcp_core::RunResult;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

const MSS: u64 = 1000;

/// server -- access (10 Mb/s, 5 ms) -- gw -- satellite (2 Mb/s, 250 ms) --
/// client, an FTP download of 100 kB, initial window 4 segments.
fn scenario(tcp: Value, access: Value, routers: Value) -> Value {
    let mut access_link = json!({"name": "access", "a": "server", "b": "gw",
        "rate_bps": 10e6, "delay_s": 0.005});
    for (k, v) in access.as_object().unwrap() {
        access_link[k] = v.clone();
    }
    let mut t = json!({"mss": MSS, "initial_window": 4});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "name": "example", "seed": 7, "duration_s": 600.0,
        "nodes": ["server", "gw", "client"],
        "links": [access_link,
            {"name": "satellite", "a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 100_000}],
        "tcp": t,
        "routers": routers,
    })
}

fn recorder(settings: Value) -> Value {
    let mut entry = json!({"node": "gw", "kind": "example-drop-recorder"});
    for (k, v) in settings.as_object().unwrap() {
        entry[k] = v.clone();
    }
    json!([entry])
}

fn run(v: &Value) -> RunResult {
    let text = v.to_string();
    let s = satcp_core::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    satcp_core::run(&s)
}

fn counter(r: &RunResult, name: &str) -> u64 {
    r.flows[0].variant_counters.get(name).copied().unwrap_or(0)
}

/// The second data segment (data starts at sequence number 1, after the
/// SYN) is lost on the access link, before the gateway.
fn second_segment_lost() -> Value {
    json!({"ab": {"errors": {"drop_seqs": [1 + MSS]}}})
}

#[test]
fn an_echoed_drop_record_is_resent_without_duplicate_acks_or_timeout() {
    let r = run(&scenario(
        json!({"variant": "example"}),
        second_segment_lost(),
        recorder(json!({})),
    ));
    let srv = &r.flows[0].server;
    assert!(r.apps_done);
    assert_eq!(counter(&r, "drop_echoes"), 1, "{:?}", r.flows[0]);
    assert_eq!(counter(&r, "presumed_lost_by_echo"), 1);
    assert_eq!(srv.retransmitted_segments, 1);
    assert_eq!(srv.fast_retransmits, 0);
    assert_eq!(srv.timeouts, 0);
    assert_eq!(r.flows[0].client.bytes_delivered, 100_000);
    // The record (one range) rode one data packet and one ACK: 4 + 8
    // option bytes each on the satellite link, on top of the plain run.
    let plain = run(&scenario(
        json!({"variant": "example"}),
        second_segment_lost(),
        json!([]),
    ));
    assert_eq!(counter(&plain, "drop_echoes"), 0);
    let sat = |r: &RunResult| -> u64 {
        r.links
            .iter()
            .filter(|l| l.name.starts_with("satellite:"))
            .map(|l| l.stats.tx_bytes)
            .sum()
    };
    println!(
        "satellite bytes: with records {}, without {}",
        sat(&r),
        sat(&plain)
    );
    // The echo made the transfer faster than recovery by duplicate ACKs
    // or timeout.
    let t = |r: &RunResult| r.transfers[0].response_time_s.unwrap();
    assert!(t(&r) < t(&plain), "{} vs {}", t(&r), t(&plain));
}

#[test]
fn a_sender_that_ignores_the_echo_recovers_the_ordinary_way() {
    let r = run(&scenario(
        json!({"variant": "example", "example": {"ignore_echoes": true}}),
        second_segment_lost(),
        recorder(json!({})),
    ));
    let srv = &r.flows[0].server;
    assert_eq!(counter(&r, "drop_echoes"), 1);
    assert_eq!(counter(&r, "presumed_lost_by_echo"), 0);
    assert!(srv.fast_retransmits + srv.timeouts >= 1, "{srv:?}");
}

#[test]
fn congestion_only_recorders_ignore_link_losses() {
    let r = run(&scenario(
        json!({"variant": "example", "recovery": "sack"}),
        second_segment_lost(),
        recorder(json!({"congestion_only": true})),
    ));
    assert_eq!(counter(&r, "drop_echoes"), 0);
    assert!(r.flows[0].server.fast_retransmits + r.flows[0].server.timeouts >= 1);
}

#[test]
fn queue_overflow_at_the_gateway_is_recorded_with_congestion_only() {
    // A 3-packet queue on the satellite link overflows when the window
    // grows past it: those drops are congestion drops.
    let v = scenario(
        json!({"variant": "example", "rcv_buffer": 30_000}),
        json!({}),
        recorder(json!({"congestion_only": true})),
    );
    let mut v = v;
    v["links"][1]["queue_packets"] = json!(3);
    let r = run(&v);
    let drops = r.links.iter().map(|l| l.stats.queue_drops).sum::<u64>();
    assert!(drops > 0);
    assert!(counter(&r, "drop_echoes") > 0, "{:?}", r.flows[0]);
    assert!(counter(&r, "presumed_lost_by_echo") > 0);
    assert_eq!(r.flows[0].client.bytes_delivered, 100_000);
}

/// Corruption on the access link is seen by the gateway's router function
/// either when the packet's transmission ends or, with
/// `errors.corrupted_reach_next_node`, when it arrives there one delay later.
#[test]
fn corrupted_packets_can_reach_the_next_node_and_be_recorded() {
    for reach in [false, true] {
        let r = run(&scenario(
            json!({"variant": "example", "recovery": "sack"}),
            json!({"ab": {"errors": {"ber": 1e-5, "corrupted_reach_next_node": reach}}}),
            recorder(json!({})),
        ));
        let access = r.links.iter().find(|l| l.name == "access:ab").unwrap();
        assert!(access.stats.corrupted > 0, "reach {reach}");
        assert!(counter(&r, "presumed_lost_by_echo") > 0, "reach {reach}");
        assert_eq!(r.flows[0].client.bytes_delivered, 100_000);
    }
    // Recorded as corruption, not congestion: a congestion-only recorder
    // writes nothing.
    let r = run(&scenario(
        json!({"variant": "example", "recovery": "sack"}),
        json!({"ab": {"errors": {"ber": 1e-5, "corrupted_reach_next_node": true}}}),
        recorder(json!({"congestion_only": true})),
    ));
    assert_eq!(counter(&r, "drop_echoes"), 0);
}

#[derive(Default)]
struct Tally {
    /// (link, kind) -> count
    counts: BTreeMap<(u32, String), u64>,
    last_time: u64,
    monotonic: bool,
}

struct Shared(Rc<RefCell<Tally>>);

impl PacketObserver for Shared {
    fn on_packet(&mut self, ev: &PacketEvent) {
        let mut t = self.0.borrow_mut();
        let kind = match ev.kind {
            PacketEventKind::Enqueue => "enqueue".to_string(),
            PacketEventKind::Transmit => "transmit".to_string(),
            PacketEventKind::Arrive => "arrive".to_string(),
            PacketEventKind::Drop(c) => format!("drop-{}", c.name()),
        };
        *t.counts.entry((ev.link, kind)).or_default() += 1;
        let ns = ev.time.0;
        if ns < t.last_time {
            t.monotonic = false;
        }
        t.last_time = ns;
    }
}

#[test]
fn the_packet_observer_sees_every_event_the_link_counts() {
    let mut v = scenario(
        json!({"variant": "newreno", "rcv_buffer": 30_000}),
        json!({"ab": {"errors": {"loss": 0.02}}}),
        json!([]),
    );
    v["links"][1]["queue_packets"] = json!(3);
    v["apps"][0]["file_bytes"] = json!(400_000);
    let s = satcp_core::parse(&v.to_string()).unwrap();
    let tally = Rc::new(RefCell::new(Tally {
        monotonic: true,
        ..Tally::default()
    }));
    let mut sim = satcp_core::scenario::build::build(&s);
    sim.add_observer(Box::new(Shared(tally.clone())));
    sim.run(
        satcp_core::engine::SimTime::from_secs_f64(s.duration_s),
        true,
    );
    let r = satcp_core::scenario::results::collect(&s, &sim);
    let t = tally.borrow();
    assert!(t.monotonic);
    let get = |l: u32, k: &str| t.counts.get(&(l, k.to_string())).copied().unwrap_or(0);
    let mut losses = 0;
    let mut overflows = 0;
    for (i, l) in r.links.iter().enumerate() {
        let i = i as u32;
        // The link counts every packet offered to its queue.
        let offered = get(i, "enqueue") + get(i, "drop-overflow");
        assert_eq!(offered, l.stats.enqueued_packets, "link {i}");
        assert_eq!(get(i, "transmit"), l.stats.tx_packets, "link {i}");
        assert_eq!(get(i, "arrive"), l.stats.rx_packets, "link {i}");
        assert_eq!(get(i, "drop-overflow"), l.stats.queue_drops, "link {i}");
        assert_eq!(get(i, "drop-loss"), l.stats.lost, "link {i}");
        losses += l.stats.lost;
        overflows += l.stats.queue_drops;
    }
    assert!(
        losses > 0 && overflows > 0,
        "both kinds: {losses} {overflows}"
    );
    // Observing changes nothing.
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&satcp_core::run(&s)).unwrap()
    );
    let _ = DropCause::Overflow;
}

/// With `tcp.dsack`, a receiver that SACK was agreed with reports
/// duplicates (RFC 2883) and the sender sees them: a reordered segment
/// makes SACK resend it needlessly, and the resend is DSACKed.
#[test]
fn dsack_reaches_the_sender_when_asked_for() {
    let run_with = |dsack: bool| {
        let mut v = scenario(
            json!({"variant": "sack", "dsack": dsack}),
            json!({"ab": {"reorder": {"prob": 0.05, "delay": "fixed", "mean_s": 0.2}}}),
            json!([]),
        );
        v["apps"][0]["file_bytes"] = json!(400_000);
        run(&v)
    };
    let on = run_with(true);
    let off = run_with(false);
    println!(
        "dsacks: on {} (spurious {}), off {}",
        on.flows[0].server.dsacks_received,
        on.flows[0].server.spurious_retransmissions,
        off.flows[0].server.dsacks_received
    );
    assert!(on.flows[0].server.dsacks_received > 0);
    assert_eq!(off.flows[0].server.dsacks_received, 0);
}
