//! The link behaviours of the TCP-R paper's experiments (docs/tcpr.md,
//! "Link models"): the extra-delay distributions of Secs. 4.1-4.5 as a link
//! actually produces them, link-level ARQ (scenarios 1 and 2) and the
//! random congestion drops of Sec. 4.5.

use satcp_core::engine::{Duration, SimTime};
use satcp_core::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use satcp_core::net::packet::{LinkId, Packet};
use satcp_core::net::router::{DropCause, QueueDecision, RouterFunction};
use satcp_core::RunResult;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The paper's bottleneck (Sec. 3): 1.5 Mb/s, one-way delay `p_s`, 1500-byte
/// packets; here one link server -> client with `ab` on the data direction.
/// A SACK bulk transfer with a window far above the BDP runs for
/// `duration_s`.
fn bottleneck(p_s: f64, ab: Value, duration_s: f64) -> Value {
    json!({
        "name": "tcpr-links", "seed": 3, "duration_s": duration_s,
        "stop_when_done": false,
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 1.5e6, "delay_s": p_s,
                   "ab": ab}],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": {"variant": "sack", "window_scaling": true, "rcv_buffer": 1_000_000,
                "initial_ssthresh": 1_000_000, "max_retransmissions": 30},
    })
}

/// Identity of one packet (every packet here is created once: no
/// duplication).
type Key = (u64, u32, u64, u32);

fn key(p: &Packet) -> Key {
    (p.created.0, p.endpoint, p.tcp.seq, p.tcp.len)
}

#[derive(Default)]
struct Trace {
    /// (time, link, kind, key, size, is_data)
    events: Vec<(u64, LinkId, PacketEventKind, Key, u32, bool)>,
}

struct Recorder(Rc<RefCell<Trace>>);

impl PacketObserver for Recorder {
    fn on_packet(&mut self, ev: &PacketEvent) {
        self.0.borrow_mut().events.push((
            ev.time.0,
            ev.link,
            ev.kind,
            key(ev.packet),
            ev.packet.size,
            ev.packet.is_data(),
        ));
    }
}

/// What a router function saw: (queue decisions, discards) as
/// (cause, is_data).
#[derive(Default)]
struct Seen {
    queue_drops: Vec<(DropCause, bool)>,
    discards: Vec<(DropCause, bool)>,
}

struct Watcher(Rc<RefCell<Seen>>);

impl RouterFunction for Watcher {
    fn name(&self) -> &'static str {
        "watcher"
    }
    fn on_queue(&mut self, pkt: &Packet, _to: LinkId, d: QueueDecision, _now: SimTime) {
        if let QueueDecision::Dropped(c) = d {
            self.0.borrow_mut().queue_drops.push((c, pkt.is_data()));
        }
    }
    fn on_discard(&mut self, pkt: &Packet, _from: LinkId, c: DropCause, _now: SimTime) {
        self.0.borrow_mut().discards.push((c, pkt.is_data()));
    }
}

/// Runs a scenario with a packet observer and, optionally, a watching
/// router function at node `watch_at`.
fn run_traced(v: &Value, watch_at: Option<u32>) -> (RunResult, Trace, Seen) {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}\n{v}"));
    let mut sim = satcp_core::scenario::build::build(&s);
    let trace = Rc::new(RefCell::new(Trace::default()));
    let seen = Rc::new(RefCell::new(Seen::default()));
    sim.add_observer(Box::new(Recorder(trace.clone())));
    if let Some(n) = watch_at {
        sim.add_router_function(n, Box::new(Watcher(seen.clone())));
    }
    sim.run(SimTime::from_secs_f64(s.duration_s), s.stop_when_done);
    let r = satcp_core::scenario::results::collect(&s, &sim);
    drop(sim);
    let t = Rc::try_unwrap(trace).ok().unwrap().into_inner();
    let w = Rc::try_unwrap(seen).ok().unwrap().into_inner();
    (r, t, w)
}

/// Extra delay (s) of every packet that crossed link `l` (rate, delay):
/// arrival - (start of its transmission + serialization + propagation),
/// in transmission order; and the number of packets that arrived before
/// one sent earlier (overtakers).
fn extra_delays(t: &Trace, l: LinkId, rate_bps: u64, delay_s: f64) -> (Vec<f64>, usize) {
    let prop = Duration::from_secs_f64(delay_s).0;
    let mut sent: HashMap<Key, (usize, u64, u32)> = HashMap::new();
    let mut order = 0;
    let mut out = Vec::new();
    let mut arrivals = Vec::new();
    for &(time, link, kind, k, size, _) in &t.events {
        if link != l {
            continue;
        }
        match kind {
            PacketEventKind::Transmit => {
                assert!(sent.insert(k, (order, time, size)).is_none());
                order += 1;
            }
            PacketEventKind::Arrive => {
                let (i, t0, size) = sent[&k];
                let base = t0 + Duration::serialization(size, rate_bps).0 + prop;
                assert!(time >= base, "arrived before its time");
                out.push((i, (time - base) as f64 * 1e-9));
                arrivals.push(i);
            }
            _ => {}
        }
    }
    out.sort_by_key(|&(i, _)| i);
    let mut max_seen = None;
    let mut overtakers = 0;
    for &i in &arrivals {
        if max_seen.is_some_and(|m| i < m) {
            overtakers += 1;
        }
        max_seen = max_seen.max(Some(i));
    }
    (out.into_iter().map(|(_, d)| d).collect(), overtakers)
}

struct DelayStats {
    n: usize,
    fraction: f64,
    mean: f64,
    sd: f64,
    min: f64,
    max: f64,
}

fn delay_stats(d: &[f64]) -> DelayStats {
    let delayed: Vec<f64> = d.iter().copied().filter(|&x| x > 0.0).collect();
    let k = delayed.len() as f64;
    let mean = delayed.iter().sum::<f64>() / k;
    let var = delayed.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    DelayStats {
        n: d.len(),
        fraction: k / d.len() as f64,
        mean,
        sd: var.sqrt(),
        min: delayed.iter().copied().fold(f64::INFINITY, f64::min),
        max: delayed.iter().copied().fold(0.0, f64::max),
    }
}

/// Checks the delay distribution produced on the bottleneck: the fraction
/// of delayed packets (5 binomial sigmas), the mean (5 standard errors),
/// the spread (15%) and the bounds.
#[allow(clippy::too_many_arguments)]
fn check_link_delays(
    p_s: f64,
    ab: Value,
    fraction: f64,
    mean: f64,
    sd: f64,
    lo: f64,
    hi: f64,
) -> DelayStats {
    let v = bottleneck(p_s, ab, 4000.0);
    let (r, t, _) = run_traced(&v, None);
    let (d, overtakers) = extra_delays(&t, 0, 1_500_000, p_s);
    let s = delay_stats(&d);
    println!(
        "P {p_s}: {} packets, {:.4} delayed, mean {:.4} s, sd {:.4} s, [{:.4}, {:.4}], \
         {overtakers} overtakers",
        s.n, s.fraction, s.mean, s.sd, s.min, s.max
    );
    assert!(s.n > 20_000, "too few packets: {}", s.n);
    // The link's count includes the delayed packets still on the wire when
    // the run ends.
    let delayed = d.iter().filter(|&&x| x > 0.0).count() as u64;
    let reordered = r.links[0].stats.reordered;
    assert!(
        reordered >= delayed && reordered <= delayed + 20,
        "{reordered} {delayed}"
    );
    let f_tol = 5.0 * (fraction * (1.0 - fraction) / s.n as f64).sqrt();
    assert!(
        (s.fraction - fraction).abs() < f_tol,
        "fraction {}",
        s.fraction
    );
    let k = s.fraction * s.n as f64;
    let m_tol = 5.0 * sd / k.sqrt() + 1e-9;
    assert!((s.mean - mean).abs() < m_tol, "mean {} vs {mean}", s.mean);
    assert!((s.sd - sd).abs() <= 0.15 * sd + 1e-9, "sd {} vs {sd}", s.sd);
    assert!(
        s.min >= lo - 1e-9 && s.max <= hi + 1e-9,
        "bounds {} {}",
        s.min,
        s.max
    );
    assert!(overtakers > 0, "no packet was overtaken");
    s
}

/// Sec. 4.1 (Figs. 2-3): 4% of the packets, N(yP, yP/3) truncated to
/// [0, 2yP]; here P = 300 ms, y = 2.
#[test]
fn sec_4_1_normal_delay_of_a_multiple_of_p() {
    let (p, y) = (0.3, 2.0);
    let s = check_link_delays(
        p,
        json!({"reorder": {"prob": 0.04, "delay": "normal",
                           "mean_s": y * p, "sd_s": y * p / 3.0}}),
        0.04,
        y * p,
        y * p / 3.0,
        0.0,
        2.0 * y * p,
    );
    // The truncation at three sigmas is barely reached.
    assert!(s.max > 1.5 * y * p && s.min < 0.5 * y * p);
}

/// Sec. 4.2 (Figs. 4-5, LEO multipath): 50% of the data packets take the
/// longer path, a fixed extra delay (the notes' reading), here 0.4 s at
/// P = 400 ms.
#[test]
fn sec_4_2_half_the_packets_on_a_longer_path() {
    check_link_delays(
        0.4,
        json!({"reorder": {"prob": 0.5, "delay": "fixed", "mean_s": 0.4},
               "errors": {"data_only": true}}),
        0.5,
        0.4,
        0.0,
        0.4,
        0.4,
    );
}

/// Sec. 4.3 (Fig. 6): 7% of the packets, U[0, 4P] (the uniform delay runs
/// from 0 to twice its mean, so the mean is 2P); here P = 100 ms.
#[test]
fn sec_4_3_uniform_delay_up_to_four_p() {
    let p: f64 = 0.1;
    check_link_delays(
        p,
        json!({"reorder": {"prob": 0.07, "delay": "uniform", "mean_s": 2.0 * p}}),
        0.07,
        2.0 * p,
        4.0 * p / 12f64.sqrt(),
        0.0,
        4.0 * p,
    );
}

/// Secs. 4.4-4.5 (Figs. 7-8): 5% (4.4) or 4% (4.5) of the packets,
/// N(0.6 s, 0.2 s) truncated to [0, 1.2 s], at P = 300 ms.
#[test]
fn sec_4_4_and_4_5_normal_delay_of_0_6_s() {
    for fraction in [0.05, 0.04] {
        check_link_delays(
            0.3,
            json!({"reorder": {"prob": fraction, "delay": "normal",
                               "mean_s": 0.6, "sd_s": 0.2}}),
            fraction,
            0.6,
            0.2,
            0.0,
            1.2,
        );
    }
}

// ----- link-level ARQ -----

/// server -- access (10 Mb/s, 1 ms) -- r1 -- bottleneck (1.5 Mb/s, P) -- r2
/// -- client; `bn` applies to the bottleneck's data direction (r1 -> r2).
/// Link directions: access 0/1, bottleneck 2/3, tail 4/5. Node r2 is 2.
fn paper_net(p_s: f64, bn: Value, app: Value, tcp: Value, duration_s: f64) -> Value {
    json!({
        "name": "tcpr-net", "seed": 11, "duration_s": duration_s,
        "nodes": ["server", "r1", "r2", "client"],
        "links": [
            {"name": "access", "a": "server", "b": "r1", "rate_bps": 10e6, "delay_s": 0.001},
            {"name": "bottleneck", "a": "r1", "b": "r2", "rate_bps": 1.5e6, "delay_s": p_s,
             "ab": bn},
            {"name": "tail", "a": "r2", "b": "client", "rate_bps": 10e6, "delay_s": 0.001}
        ],
        "apps": [app],
        "tcp": tcp,
    })
}

fn sack_ftp(bytes: u64) -> (Value, Value) {
    (
        json!({"kind": "ftp", "client": "client", "server": "server", "file_bytes": bytes}),
        json!({"variant": "sack", "dsack": true, "window_scaling": true,
               "rcv_buffer": 120_000, "initial_ssthresh": 120_000,
               "max_retransmissions": 30}),
    )
}

/// Every frame's first transmission fails (BER 1); the second is the last
/// allowed and is recovered. Each crosses the link twice: the resend leaves
/// when the NAK is back, one round trip (2 P) after the first transmission
/// ended, or later if the transmitter is busy, and arrives P after its end.
#[test]
fn a_corrupted_frame_is_resent_after_one_link_round_trip() {
    let p = 0.3;
    let (app, tcp) = sack_ftp(20_000);
    let v = paper_net(
        p,
        json!({"errors": {"ber": 1.0}, "arq": {"attempts": 2, "recover_all": true}}),
        app,
        tcp,
        600.0,
    );
    let (r, t, _) = run_traced(&v, None);
    assert!(r.apps_done, "{:?}", r.flows[0]);
    assert_eq!(r.flows[0].client.bytes_delivered, 20_000);
    let bn = &r.links[2].stats;
    assert_eq!(bn.tx_packets, 2 * bn.rx_packets, "{bn:?}");
    assert_eq!(bn.arq_retransmissions, bn.rx_packets);
    assert_eq!(bn.corrupted, 0);
    // Per packet: its two transmission starts and its arrival.
    let prop = Duration::from_secs_f64(p).0;
    let mut tx: HashMap<Key, Vec<u64>> = HashMap::new();
    let mut exact = 0;
    for &(time, link, kind, k, size, _) in &t.events {
        if link != 2 {
            continue;
        }
        let ser = Duration::serialization(size, 1_500_000).0;
        match kind {
            PacketEventKind::Transmit => tx.entry(k).or_default().push(time),
            PacketEventKind::Arrive => {
                let s = &tx[&k];
                assert_eq!(s.len(), 2);
                let nak_back = s[0] + ser + 2 * prop;
                assert!(s[1] >= nak_back, "resent before the NAK was back");
                exact += usize::from(s[1] == nak_back);
                assert_eq!(time, s[1] + ser + prop);
            }
            _ => {}
        }
    }
    // The SYN-ACK at least found the transmitter idle.
    assert!(exact >= 1);
    // Never enqueued twice: a link-level resend bypasses the IP queue.
    let enq = t
        .events
        .iter()
        .filter(|e| e.1 == 2 && e.2 == PacketEventKind::Enqueue)
        .count() as u64;
    assert_eq!(enq, bn.enqueued_packets);
}

/// Scenario 1: a frame that fails all its attempts is lost for corruption;
/// the next node's router functions and the packet observers see it.
#[test]
fn a_frame_that_fails_every_attempt_is_dropped_for_corruption() {
    let (app, tcp) = sack_ftp(20_000);
    let v = paper_net(
        0.1,
        json!({"errors": {"ber": 1.0, "data_only": true}, "arq": {"attempts": 3}}),
        app,
        tcp,
        30.0,
    );
    let (r, t, seen) = run_traced(&v, Some(2));
    let bn = &r.links[2].stats;
    assert!(!r.apps_done);
    assert_eq!(bn.rx_packets, bn.tx_packets - 3 * bn.corrupted, "{bn:?}");
    assert!(bn.corrupted > 0);
    assert_eq!(bn.arq_retransmissions, 2 * bn.corrupted);
    let drops: Vec<_> = t
        .events
        .iter()
        .filter(|e| e.1 == 2 && matches!(e.2, PacketEventKind::Drop(_)))
        .collect();
    assert_eq!(drops.len() as u64, bn.corrupted);
    assert!(drops
        .iter()
        .all(|e| e.2 == PacketEventKind::Drop(DropCause::Corruption) && e.5));
    assert_eq!(seen.discards.len() as u64, bn.corrupted);
    assert!(seen
        .discards
        .iter()
        .all(|&(c, data)| c == DropCause::Corruption && data));
    // Frames sent three times each.
    let mut n: HashMap<Key, u32> = HashMap::new();
    for e in t.events.iter().filter(|e| e.1 == 2 && e.5) {
        if e.2 == PacketEventKind::Transmit {
            *n.entry(e.3).or_default() += 1;
        }
    }
    assert!(n.values().all(|&c| c == 3), "{n:?}");
}

/// A SACK download over the bottleneck with ARQ (3 attempts) and BER 1e-5
/// (PER 0.113 for a full frame): every byte arrives; ARQ resends arrive out
/// of order; a few frames fail three times and TCP recovers them.
#[test]
fn sack_over_arq_with_ber_1e_5_delivers_every_byte() {
    let bytes = 3_000_000;
    let (app, tcp) = sack_ftp(bytes);
    let v = paper_net(
        0.3,
        json!({"errors": {"ber": 1e-5}, "arq": {"attempts": 3}}),
        app.clone(),
        tcp.clone(),
        3000.0,
    );
    let s = satcp_core::parse(&v.to_string()).unwrap();
    let r = satcp_core::run(&s);
    let (f, bn) = (&r.flows[0], &r.links[2].stats);
    println!("{:?}\n{:?}\n{bn:?}", f.server, f.client);
    assert!(r.apps_done);
    assert_eq!(f.client.bytes_delivered, bytes);
    assert!(bn.arq_retransmissions > 100, "{bn:?}");
    assert!(bn.corrupted > 0, "some frames fail three times: {bn:?}");
    assert!(f.client.out_of_order_segments > 0);
    // Same seed, same result.
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&satcp_core::run(&s)).unwrap()
    );
    // Without errors nothing arrives out of order.
    let clean = satcp_core::run(
        &satcp_core::parse(&paper_net(0.3, json!({}), app, tcp, 3000.0).to_string()).unwrap(),
    );
    assert_eq!(clean.flows[0].client.out_of_order_segments, 0);
}

/// Scenario 2 (`arq.recover_all`): no frame is lost end to end, so every
/// retransmission by TCP was unnecessary (caused by the reordering of
/// the ARQ's resends): all of its bytes arrived twice.
#[test]
fn with_recover_all_no_segment_is_lost_end_to_end() {
    let bytes = 3_000_000;
    let (app, tcp) = sack_ftp(bytes);
    let v = paper_net(
        0.3,
        json!({"errors": {"ber": 1e-5}, "arq": {"attempts": 3, "recover_all": true}}),
        app,
        tcp,
        3000.0,
    );
    let r = satcp_core::run(&satcp_core::parse(&v.to_string()).unwrap());
    let (f, bn) = (&r.flows[0], &r.links[2].stats);
    println!("{:?}\n{:?}\n{bn:?}", f.server, f.client);
    assert!(r.apps_done);
    assert_eq!(f.client.bytes_delivered, bytes);
    assert!(bn.arq_retransmissions > 100);
    assert_eq!(bn.corrupted + bn.lost + bn.queue_drops, 0, "{bn:?}");
    for l in &r.links {
        assert_eq!(l.stats.corrupted + l.stats.lost + l.stats.queue_drops, 0);
    }
    assert!(f.client.out_of_order_segments > 0);
    // Every original arrived, so every byte TCP retransmitted arrived
    // twice: all its retransmissions (fast retransmits and timeouts alike)
    // were caused by the reordering of the ARQ's resends.
    assert_eq!(
        f.client.payload_bytes_received - f.client.bytes_delivered,
        f.server.retransmitted_bytes
    );
    assert_eq!(
        f.client.duplicate_segments_received,
        f.server.retransmitted_segments
    );
    assert!(
        f.server.retransmitted_segments > 0,
        "reordering caused none"
    );
}

// ----- congestion drops (Sec. 4.5) -----

/// `congestion_loss` drops data packets at r1's queue entrance to the
/// bottleneck as early drops: r1's router functions see a queue drop, the
/// observer a Drop(EarlyDrop), and ACKs pass.
#[test]
fn congestion_loss_is_an_early_drop_at_the_queue() {
    let (app, tcp) = sack_ftp(2_000_000);
    let v = paper_net(
        0.3,
        json!({"congestion_loss": 0.01}),
        app.clone(),
        tcp.clone(),
        3000.0,
    );
    let (r, t, seen) = run_traced(&v, Some(1));
    let bn = &r.links[2].stats;
    assert!(r.apps_done);
    assert_eq!(r.flows[0].client.bytes_delivered, 2_000_000);
    assert!(bn.congestion_drops > 5, "{bn:?}");
    assert_eq!(bn.queue_drops, bn.congestion_drops);
    assert_eq!(bn.lost + bn.corrupted, 0);
    assert_eq!(seen.queue_drops.len() as u64, bn.congestion_drops);
    assert!(seen
        .queue_drops
        .iter()
        .all(|&(c, data)| c == DropCause::EarlyDrop && c.is_congestion() && data));
    let drops: Vec<_> = t
        .events
        .iter()
        .filter(|e| matches!(e.2, PacketEventKind::Drop(_)))
        .collect();
    assert_eq!(drops.len() as u64, bn.congestion_drops);
    assert!(drops
        .iter()
        .all(|e| e.1 == 2 && e.2 == PacketEventKind::Drop(DropCause::EarlyDrop)));
    // About 1% of the data packets offered.
    let data_offered = t
        .events
        .iter()
        .filter(|e| e.1 == 2 && e.5 && e.2 == PacketEventKind::Enqueue)
        .count() as f64
        + bn.congestion_drops as f64;
    let f = bn.congestion_drops as f64 / data_offered;
    let tol = 5.0 * (0.01 * 0.99 / data_offered).sqrt();
    assert!((f - 0.01).abs() < tol, "{f} of {data_offered}");
    // `errors.loss` instead: a link loss (cause Loss), seen as a discard.
    let v = paper_net(0.3, json!({"errors": {"loss": 0.01}}), app, tcp, 3000.0);
    let (r, _, seen) = run_traced(&v, Some(2));
    assert!(r.links[2].stats.lost > 0);
    assert_eq!(r.links[2].stats.congestion_drops, 0);
    assert!(seen.discards.iter().all(|&(c, _)| c == DropCause::Loss));
}

/// Congestion drops draw from their own stream: the bottleneck's error
/// pattern (here its reordering draws) is the one without them until the
/// first drop changes what TCP sends.
#[test]
fn congestion_loss_of_zero_changes_nothing() {
    let (app, tcp) = sack_ftp(500_000);
    let ab = json!({"reorder": {"prob": 0.04, "delay": "normal", "mean_s": 0.6, "sd_s": 0.2},
                    "errors": {"ber": 1e-6}});
    let plain = paper_net(0.3, ab.clone(), app.clone(), tcp.clone(), 3000.0);
    let mut zero = ab.clone();
    zero["congestion_loss"] = json!(0.0);
    zero["arq"] = json!({"attempts": 0});
    let zero = paper_net(0.3, zero, app, tcp, 3000.0);
    let run = |v: &Value| {
        serde_json::to_string(&satcp_core::run(
            &satcp_core::parse(&v.to_string()).unwrap(),
        ))
        .unwrap()
    };
    assert_eq!(run(&plain), run(&zero));
}
