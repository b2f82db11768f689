//! Loss beyond the memoryless error model: the two-state Gilbert-Elliott
//! burst-error channel (`errors.gilbert_elliott`) and loss that follows a
//! schedule (`errors.loss_schedule`, e.g. an orbit's handover outages), end
//! to end.

use satcp_core::engine::SimTime;
use satcp_core::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use satcp_core::net::router::DropCause;
use satcp_core::RunResult;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

fn scenario(sat: Value, secs: f64) -> Value {
    let mut link = json!({"name": "sat", "a": "gw", "b": "client", "rate_bps": 10e6,
        "delay_s": 0.05, "queue_packets": 1000});
    for (k, v) in sat.as_object().unwrap() {
        link[k] = v.clone();
    }
    json!({
        "name": "burst", "duration_s": secs, "stop_when_done": false,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e9, "delay_s": 0.0005}, link],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": {"variant": "sack", "window_scaling": true, "rcv_buffer": 1_000_000,
                "initial_ssthresh": 1_000_000},
    })
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

/// (time ns, link, kind) of every packet event.
type Events = Rc<RefCell<Vec<(u64, u32, PacketEventKind)>>>;
struct Recorder(Events);
impl PacketObserver for Recorder {
    fn on_packet(&mut self, ev: &PacketEvent) {
        self.0.borrow_mut().push((ev.time.0, ev.link, ev.kind));
    }
}

fn run_traced(v: &Value) -> (RunResult, Vec<(u64, u32, PacketEventKind)>) {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = satcp_core::scenario::build::build(&s);
    let events: Events = Rc::default();
    sim.add_observer(Box::new(Recorder(events.clone())));
    sim.run(SimTime::from_secs_f64(s.duration_s), s.stop_when_done);
    let r = satcp_core::scenario::results::collect(&s, &sim);
    drop(sim);
    (r, Rc::try_unwrap(events).ok().unwrap().into_inner())
}

fn results_json(r: &RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn channels_that_never_strike_change_nothing() {
    // Own streams: a chain that never leaves the good state and a schedule
    // of zeros leave every other draw, and so the whole run, as it was.
    let base = json!({"errors": {"ber": 1e-6, "loss": 0.001}});
    let plain = results_json(&run(&scenario(base.clone(), 10.0)));
    let mut quiet = base.clone();
    quiet["errors"]["gilbert_elliott"] = json!({"p": 0.0, "r": 0.5});
    quiet["errors"]["loss_schedule"] = json!([[0.0, 0.0], [3.0, 0.0]]);
    assert_eq!(plain, results_json(&run(&scenario(quiet, 10.0))));
}

#[test]
fn gilbert_elliott_loss_rate_on_a_link() {
    // Gilbert's channel, pi_B = 0.002 / (0.002 + 0.25) = 0.79 %, bursts of
    // 4 packets on average. Both directions carry it (ACKs too). The
    // model's own statistics over millions of packets are checked in
    // `net/gilbert_elliott.rs`; here, that the link applies it.
    let ge = json!({"p": 0.002, "r": 0.25});
    let r = run(&scenario(json!({"errors": {"gilbert_elliott": ge}}), 300.0));
    let expect = 0.002 / 0.252;
    for l in &r.links[2..] {
        let s = &l.stats;
        let rate = s.lost as f64 / s.tx_packets as f64;
        println!(
            "{}: {} of {} lost ({rate:.5})",
            l.name, s.lost, s.tx_packets
        );
        assert!(s.tx_packets > 30_000);
        // Over 60 bursts of 4 on average: the loss rate within 25 %.
        assert!((rate - expect).abs() / expect < 0.25, "{rate} vs {expect}");
    }
    // Same seed, same result.
    let again = run(&scenario(json!({"errors": {"gilbert_elliott": ge}}), 300.0));
    assert_eq!(results_json(&r), results_json(&again));
}

#[test]
fn gilbert_elliott_respects_errors_data_only() {
    let r = run(&scenario(
        json!({"errors": {"data_only": true,
               "gilbert_elliott": {"p": 0.01, "r": 0.2, "loss_good": 0.01}}}),
        20.0,
    ));
    assert!(r.links[2].stats.lost > 0, "data direction loses packets");
    assert_eq!(r.links[3].stats.lost, 0, "pure ACKs pass");
}

#[test]
fn a_loss_schedule_drops_every_packet_in_the_outage_and_none_outside() {
    // A 300 ms outage at t = 5 s on the data direction (a handover).
    let (start, end) = (5.0, 5.3);
    let v = scenario(
        json!({"ab": {"errors": {"loss_schedule": [[0.0, 0.0], [start, 1.0], [end, 0.0]]}}}),
        10.0,
    );
    let (r, events) = run_traced(&v);
    let sat_ab = 2; // links: server->gw, gw->server, gw->client, client->gw
    let ns = |s: f64| (s * 1e9).round() as u64;
    let (mut lost, mut passed_in_outage) = (0, 0);
    for &(t, l, k) in &events {
        if l != sat_ab {
            continue;
        }
        match k {
            PacketEventKind::Drop(DropCause::Loss) => {
                assert!(t >= ns(start) && t < ns(end), "loss at {t} ns");
                lost += 1;
            }
            // An arrival 50 ms + serialization after a transmission
            // ending inside the outage would be a packet that passed.
            PacketEventKind::Arrive => {
                let ended = t - ns(0.05);
                if ended >= ns(start) && ended < ns(end) {
                    passed_in_outage += 1;
                }
            }
            _ => {}
        }
    }
    // The link was busy through the outage: 0.3 s of 10 Mb/s is 250
    // full packets.
    println!("lost {lost}, stats {:?}", r.links[sat_ab as usize].stats);
    assert!(lost > 200, "{lost}");
    assert_eq!(passed_in_outage, 0);
    assert_eq!(r.links[sat_ab as usize].stats.lost, lost as u64);
    assert_eq!(
        r.links[3].stats.lost, 0,
        "the ACK direction has no schedule"
    );
    let f = &r.flows[0];
    assert!(f.server.retransmitted_segments >= lost as u64);
}

#[test]
fn a_fractional_loss_schedule_loses_at_its_rate() {
    let (r, events) = run_traced(&scenario(
        json!({"ab": {"errors": {"loss_schedule": [[0.0, 0.0], [10.0, 0.02], [100.0, 0.0]]}}}),
        100.0,
    ));
    let after = 10_000_000_000u64;
    let on_ab = |k: fn(&PacketEventKind) -> bool| {
        events
            .iter()
            .filter(|e| e.1 == 2 && k(&e.2))
            .map(|e| e.0)
            .collect::<Vec<_>>()
    };
    let lost = on_ab(|k| *k == PacketEventKind::Drop(DropCause::Loss));
    let sent = on_ab(|k| *k == PacketEventKind::Transmit);
    assert!(lost.iter().all(|&t| t >= after), "no loss before t = 10 s");
    // Transmissions that end after 10 s (one starting just before it ends
    // within a millisecond: noise here).
    let n = sent.iter().filter(|&&t| t >= after).count() as f64;
    let rate = lost.len() as f64 / n;
    // Binomial: 3 standard deviations.
    let sd = (0.02 * 0.98 / n).sqrt();
    println!("{} of {n} lost ({rate:.4} +- {sd:.4})", lost.len());
    assert!((rate - 0.02).abs() < 3.0 * sd + 1.0 / n, "{rate}");
    assert_eq!(r.links[2].stats.lost, lost.len() as u64);
}
