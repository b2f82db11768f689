//! Links whose delay and rate follow a schedule (a trace, or an orbit's
//! geometry per reconfiguration slot): a trace-driven link reproduces the
//! trace's delay and rate; a fall in delay lets later packets overtake
//! earlier ones, as a handover to a closer satellite does.

use satcp_core::RunResult;
use serde_json::{json, Value};

fn scenario(sat: Value, tcp: Value, secs: f64) -> Value {
    let mut link = json!({"name": "sat", "a": "gw", "b": "client", "rate_bps": 10e6,
        "delay_s": 0.3, "queue_packets": 1000});
    for (k, v) in sat.as_object().unwrap() {
        link[k] = v.clone();
    }
    let mut t = json!({"variant": "sack", "delayed_ack": false});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "name": "tv", "duration_s": secs, "stop_when_done": false, "sample_interval_s": 0.5,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e9, "delay_s": 0.0005}, link],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": t,
    })
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

fn srtt_at(r: &RunResult, t: f64) -> f64 {
    let fs = &r.flow_series;
    let i = (0..fs.time_s.len()).find(|&i| fs.time_s[i] >= t).unwrap();
    fs.srtt_s[i]
}

#[test]
fn the_round_trip_follows_the_delay_schedule() {
    // A small window keeps the queue empty: the RTT is the propagation.
    let r = run(&scenario(
        json!({"delay_schedule": [[0.0, 0.3], [10.0, 0.1], [20.0, 0.2]]}),
        json!({"rcv_buffer": 20_000}),
        30.0,
    ));
    for (t, one_way) in [(9.5, 0.3), (19.5, 0.1), (29.5, 0.2)] {
        let rtt = 2.0 * (one_way + 0.0005);
        let srtt = srtt_at(&r, t);
        println!("t = {t}: srtt {srtt:.4} s, path RTT {rtt:.4} s");
        assert!((srtt - rtt).abs() / rtt < 0.05, "t = {t}: {srtt} vs {rtt}");
    }
    assert_eq!(r.flows[0].server.retransmitted_segments, 0);
}

#[test]
fn a_falling_delay_reorders_packets_in_flight() {
    let r = run(&scenario(
        json!({"ab": {"delay_schedule": [[0.0, 0.3], [8.0, 0.05]]}}),
        // A full pipe: packets are in flight when the delay falls.
        json!({"window_scaling": true, "rcv_buffer": 1_000_000, "initial_ssthresh": 1_000_000}),
        12.0,
    ));
    let c = &r.flows[0].client;
    println!("out of order at the receiver: {}", c.out_of_order_segments);
    assert!(c.out_of_order_segments > 0);
    let sat = r.links.iter().find(|l| l.name == "sat:ab").unwrap();
    assert_eq!(sat.stats.lost + sat.stats.queue_drops, 0, "nothing lost");
}

#[test]
fn a_rate_trace_is_reproduced() {
    let trace = json!([[0.0, 10e6], [10.0, 2e6], [20.0, 5e6]]);
    let r = run(&scenario(
        json!({"ab": {"rate_schedule": trace}}),
        // A window of 1.2 BDP at the highest rate: the link is always
        // busy and the 1,000-packet queue never overflows.
        json!({"window_scaling": true, "rcv_buffer": 900_000, "initial_ssthresh": 900_000}),
        30.0,
    ));
    let ls = &r.link_series;
    let sat_ab = r.links.iter().find(|l| l.name == "sat:ab").unwrap().link;
    for (t0, t1, rate) in [(7.0, 10.0, 10e6), (12.0, 20.0, 2e6), (22.0, 30.0, 5e6)] {
        let v: Vec<f64> = (0..ls.time_s.len())
            .filter(|&i| ls.link[i] == sat_ab && ls.time_s[i] > t0 && ls.time_s[i] <= t1)
            .map(|i| ls.throughput_bps[i])
            .collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        println!("{t0}-{t1} s: {mean:.0} b/s on a {rate:.0} b/s trace");
        assert!((mean - rate).abs() / rate < 0.03, "{mean} vs {rate}");
    }
}

#[test]
fn schedules_are_validated() {
    for (sched, field) in [
        (json!({"delay_schedule": []}), "links[1].delay_schedule"),
        (
            json!({"delay_schedule": [[1.0, 0.1], [0.5, 0.2]]}),
            "links[1].delay_schedule[1][0]",
        ),
        (
            json!({"delay_schedule": [[0.0, -0.1]]}),
            "links[1].delay_schedule[0][1]",
        ),
        (
            json!({"ab": {"rate_schedule": [[0.0, 0.0]]}}),
            "links[1].ab.rate_schedule[0][1]",
        ),
    ] {
        let v = scenario(sched, json!({}), 1.0);
        let e = satcp_core::parse(&v.to_string()).unwrap_err();
        assert!(e.field.starts_with(field), "{e}");
    }
}
