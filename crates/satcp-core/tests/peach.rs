//! TCP-Peach end to end, on the paper's Sec. V network (one flow): a
//! sender, Earth station A with a priority queue of K = 50 segments, a GEO
//! channel of c = 1,300 segments/s, RTT 550 ms, rwnd 64 segments of 1,000
//! bytes. As in the paper's Sec. II-A, ACKs are not delayed, and the Reno
//! baselines start from one segment, as the paper's Reno does (the RFC 3390
//! initial window is a separate baseline).
//!
//! - Sudden Start reaches rwnd about 2 RTT after the first data segment
//!   (Sec. III-B, Fig. 3);
//! - a link-error loss at cwnd = 30: Peach is back at 30 within 3 RTT,
//!   NewReno stays near 15 (Sec. IV-A, Fig. 7);
//! - a congestion loss: the dummies are dropped at the bottleneck and
//!   Peach ends where NewReno does (Sec. IV-B, Fig. 9);
//! - a receiver without Peach support: plain NewReno / SACK results
//!   (Sec. III-A).

use satcp_core::RunResult;
use serde_json::{json, Value};

const MSS: u64 = 1000;
const RTT: f64 = 0.55;
/// Time series step, seconds.
const STEP: f64 = 0.01;

struct Net {
    /// Bottleneck capacity c, segments per second.
    c: f64,
    /// Buffer of the bottleneck queue, segments.
    k: u64,
    rwnd: u64,
    variant: &'static str,
    /// Fields added to the tcp table.
    tcp: Value,
    /// Fields added to the satellite link (a = gw, b = client).
    sat: Value,
    bytes: u64,
    duration_s: f64,
}

impl Net {
    fn paper(variant: &'static str) -> Net {
        Net {
            c: 1300.0,
            k: 50,
            rwnd: 64,
            variant,
            tcp: json!({}),
            sat: json!({}),
            bytes: 2_000_000,
            duration_s: 60.0,
        }
    }

    fn scenario(&self) -> Value {
        // c segments of MSS + 40 header bytes per second.
        let rate = self.c * (MSS + 40) as f64 * 8.0;
        let mut sat = json!({"name": "satellite", "a": "gw", "b": "client", "rate_bps": rate,
            "delay_s": RTT / 2.0 - 0.001, "queue": "priority", "queue_packets": self.k});
        merge(&mut sat, &self.sat);
        let mut tcp = json!({"variant": self.variant, "mss": MSS, "rcv_buffer": self.rwnd * MSS,
            "delayed_ack": false, "initial_window": 1});
        merge(&mut tcp, &self.tcp);
        json!({
            "name": "peach", "seed": 1, "duration_s": self.duration_s, "sample_interval_s": STEP,
            "nodes": ["server", "gw", "client"],
            "links": [
                {"name": "access", "a": "server", "b": "gw", "rate_bps": 100e6, "delay_s": 0.001},
                sat,
            ],
            "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": self.bytes}],
            "tcp": tcp,
        })
    }

    fn run(&self) -> RunResult {
        let text = self.scenario().to_string();
        let s = satcp_core::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        satcp_core::run(&s)
    }
}

fn merge(v: &mut Value, extra: &Value) {
    for (k, x) in extra.as_object().expect("object") {
        v[k] = x.clone();
    }
}

/// The flow's samples: (time, cwnd in segments, ssthresh in bytes).
fn samples(r: &RunResult) -> Vec<(f64, f64, u64)> {
    let fs = &r.flow_series;
    (0..fs.time_s.len())
        .map(|i| (fs.time_s[i], fs.cwnd[i] as f64 / MSS as f64, fs.ssthresh[i]))
        .collect()
}

/// cwnd (segments) at the first sample at or after `t`.
fn cwnd_at(r: &RunResult, t: f64) -> f64 {
    samples(r)
        .into_iter()
        .find(|s| s.0 >= t - 1e-9)
        .unwrap_or_else(|| panic!("no sample at {t}"))
        .1
}

/// The first loss detection (ssthresh leaves its initial value): its
/// time and cwnd just before, in segments.
fn first_loss(r: &RunResult) -> (f64, f64) {
    let s = samples(r);
    let i = s
        .iter()
        .position(|x| x.2 != s[0].2)
        .expect("a loss was detected");
    (s[i].0, s[i - 1].1)
}

fn response_time(r: &RunResult) -> f64 {
    r.transfers[0].response_time_s.expect("transfer completed")
}

/// The initial window of RFC 3390 Sec. 1 (the paper's IIW, RFC 2414), in
/// bytes: min(4 MSS, max(2 MSS, 4380)).
fn rfc3390_iw(mss: u64) -> u64 {
    (4 * mss).min((2 * mss).max(4380))
}

#[test]
fn sudden_start_reaches_rwnd_in_about_two_rtts() {
    let peach = Net::paper("peach").run();
    let s = samples(&peach);
    let fs = &peach.flow_series;
    // The first sample with a data segment out (the SYN-ACK is one octet).
    let first = fs.flight_size.iter().position(|&f| f >= MSS).unwrap();
    let first_data = fs.time_s[first] - STEP;
    let at_rwnd = s.iter().find(|x| x.1 >= 64.0).unwrap().0;
    let took = (at_rwnd - first_data) / RTT;
    println!("first data {first_data:.3} s, cwnd = rwnd at {at_rwnd:.3} s: {took:.2} RTT");
    assert!((1.8..=2.15).contains(&took), "{took:.2} RTT");
    let srv = &peach.flows[0].server;
    assert_eq!(srv.extra_segments_sent, 63, "rwnd - 1 dummies");
    assert_eq!(
        srv.marked_acks_received, 63,
        "no loss, every dummy answered"
    );
    assert_eq!(peach.flows[0].client.marked_acks_sent, 63);
    // Slow start from 1 segment, and from RFC 3390's 4, is far behind.
    assert_eq!(rfc3390_iw(MSS), 4 * MSS);
    // Over 2 MB the head start is worth rounds of slow start.
    for (iw, most, behind) in [(1, 4.0, 3.5), (4, 16.0, 1.5)] {
        let mut n = Net::paper("newreno");
        n.tcp = json!({"initial_window": iw});
        let r = n.run();
        let c = cwnd_at(&r, at_rwnd);
        let lag = (response_time(&r) - response_time(&peach)) / RTT;
        println!("newreno IW {iw}: cwnd {c} at {at_rwnd:.3} s, done {lag:.2} RTT later");
        assert!(c <= most, "IW {iw}: {c}");
        assert!(lag > behind, "IW {iw}: {lag:.2} RTT");
    }
}

/// Sec. IV-A, Fig. 7: segment 200 is lost on the satellite link while
/// cwnd = rwnd = 30. Rapid Recovery halves cwnd like Fast Recovery, but
/// the ACKs of its 30 dummies bring cwnd back to 30 within 3 RTT, where
/// NewReno has about 15 (16 after its congestion-avoidance growth).
#[test]
fn link_error_loss_peach_recovers_its_window_newreno_halves_it() {
    let lost = 1 + 199 * MSS;
    let run = |variant: &'static str| {
        let mut n = Net::paper(variant);
        n.rwnd = 30;
        n.sat = json!({"ab": {"errors": {"drop_seqs": [lost]}}});
        let r = n.run();
        let (t, cwnd0) = first_loss(&r);
        let after = cwnd_at(&r, t + 3.0 * RTT);
        println!("{variant}: loss seen at {t:.2} s, cwnd {cwnd0} -> {after} 3 RTT later");
        let srv = &r.flows[0].server;
        assert_eq!(srv.retransmitted_segments, 1, "{variant}");
        assert_eq!((srv.fast_retransmits, srv.timeouts), (1, 0), "{variant}");
        assert_eq!(r.links.iter().map(|l| l.stats.lost).sum::<u64>(), 1);
        (cwnd0, after, r)
    };
    for v in ["peach", "peach-sack"] {
        let (cwnd0, after, r) = run(v);
        assert_eq!(cwnd0, 30.0, "{v}");
        assert!(after >= 29.0, "{v}: {after}");
        let srv = &r.flows[0].server;
        assert_eq!(srv.extra_segments_sent, 29 + 30, "{v}: Sudden Start + adsn");
    }
    for v in ["newreno", "sack"] {
        let (_, after, _) = run(v);
        assert!((15.0..=17.0).contains(&after), "{v}: {after}");
    }
}

/// Sec. IV-B, Fig. 9: the bottleneck (c = 40 segments/s, K = 8) carries
/// about 30 segments per RTT; congestion avoidance overflows it. During
/// Rapid Recovery the dummies compete with data for a full queue and most
/// are dropped, wdsn absorbs the ACKs of those that pass, and cwnd ends
/// near half its value before the loss, as NewReno's does.
#[test]
fn congestion_loss_peach_halves_like_newreno() {
    let run = |variant: &'static str| {
        let mut n = Net::paper(variant);
        n.c = 40.0;
        n.k = 8;
        // NewReno reaches congestion avoidance without a slow-start
        // overshoot (Peach has no slow start).
        n.tcp = json!({"initial_ssthresh": 20 * MSS});
        n.bytes = 1_000_000;
        let r = n.run();
        let (t, cwnd0) = first_loss(&r);
        let after = cwnd_at(&r, t + 3.0 * RTT);
        println!("{variant}: loss seen at {t:.2} s, cwnd {cwnd0} -> {after} 3 RTT later");
        assert_eq!(r.flows[0].server.timeouts, 0, "{variant}");
        (cwnd0, after, r)
    };
    let (p0, p, peach) = run("peach");
    let (n0, n, _) = run("newreno");
    for (c0, c) in [(p0, p), (n0, n)] {
        assert!((28.0..=36.0).contains(&c0), "cwnd before the loss {c0}");
        assert!(c <= c0 / 2.0 + 2.5, "{c} after {c0}");
    }
    assert!((p - n).abs() <= 2.5, "peach {p}, newreno {n}");
    // Dummies were lost, at the bottleneck queue (there are no link errors).
    let srv = &peach.flows[0].server;
    let unanswered = srv.extra_segments_sent - srv.marked_acks_received;
    let drops: u64 = peach.links.iter().map(|l| l.stats.queue_drops).sum();
    println!(
        "peach: {} dummies, {unanswered} unanswered, {drops} queue drops",
        srv.extra_segments_sent
    );
    assert!(unanswered >= 20 && unanswered <= drops);
}

/// Sec. III-A: a receiver without Peach support answers the dummies with
/// duplicate ACKs; the sender stops sending dummies, does not take those
/// ACKs for a loss, and behaves as NewReno (SACK) from then on.
#[test]
fn receiver_without_support_gives_plain_newreno_results() {
    for (peach, plain) in [("peach", "newreno"), ("peach-sack", "sack")] {
        for delayed_ack in [false, true] {
            let mut n = Net::paper(peach);
            n.tcp = json!({"delayed_ack": delayed_ack, "peach": {"receiver_support": false}});
            let fell_back = n.run();
            let mut n = Net::paper(plain);
            n.tcp = json!({"delayed_ack": delayed_ack});
            let reference = n.run();
            let (a, b) = (response_time(&fell_back), response_time(&reference));
            println!("{peach} delayed_ack={delayed_ack}: {a:.4} s, {plain}: {b:.4} s");
            // With delayed ACK the first dummy, a duplicate, makes the
            // receiver acknowledge the first data segment at once rather
            // than after the delay: at most max_ack_delay earlier.
            let tolerance = if delayed_ack { 0.2 } else { 1e-6 };
            assert!(a <= b + 1e-6 && b - a <= tolerance, "{a} vs {b}");
            let srv = &fell_back.flows[0].server;
            assert_eq!(srv.marked_acks_received, 0);
            assert_eq!(srv.fast_retransmits + srv.timeouts, 0);
            assert_eq!(srv.dupacks_claimed, srv.dupacks_received);
            assert!(srv.extra_segments_sent <= 63);
            assert_eq!(fell_back.flows[0].client.marked_acks_sent, 0);
        }
    }
}

/// RFC 3390 (the increased-initial-window baseline) is `tcp.initial_window`
/// in segments: with 1,000-byte segments its formula gives exactly 4.
/// Four segments then take one round trip instead of three.
#[test]
fn increased_initial_window_is_the_initial_window_setting() {
    assert_eq!(rfc3390_iw(1000), 4000);
    assert_eq!(rfc3390_iw(1460), 4380); // 3 segments
    let time = |iw: u64| {
        let mut n = Net::paper("newreno");
        n.bytes = rfc3390_iw(MSS);
        n.tcp = json!({"initial_window": iw});
        response_time(&n.run())
    };
    let d = time(1) - time(rfc3390_iw(MSS) / MSS);
    assert!((d - 2.0 * RTT).abs() < 0.01, "{d}");
}

/// `errors.drop_seqs` loses the first data packet starting at each listed
/// sequence number, once; the retransmissions pass.
#[test]
fn drop_seqs_loses_listed_segments_once() {
    let mut n = Net::paper("sack");
    n.bytes = 100 * MSS;
    n.sat = json!({"ab": {"errors": {"drop_seqs": [1 + 10 * MSS, 1 + 40 * MSS, 7]}}});
    let r = n.run();
    let sat = r.links.iter().find(|l| l.name == "satellite:ab").unwrap();
    assert_eq!(sat.stats.lost, 2);
    assert_eq!(r.flows[0].server.retransmitted_segments, 2);
    assert_eq!(r.flows[0].client.bytes_delivered, 100 * MSS);
}

/// Every transfer completes, with every byte delivered once, whatever the
/// link does to data, dummies and (marked) ACKs: corruption, loss,
/// duplication, reordering, in both directions, with and without Peach
/// support at the receiver, through a small bottleneck buffer.
#[test]
fn transfers_complete_under_errors_duplication_and_reordering() {
    let mut worst: f64 = 0.0;
    for seed in 1..=6u64 {
        for variant in ["peach", "peach-sack"] {
            for support in [true, false] {
                let mut n = Net::paper(variant);
                n.bytes = 300 * MSS;
                n.k = 10;
                n.duration_s = 3000.0;
                n.tcp = json!({"delayed_ack": seed % 2 == 0, "peach": {"receiver_support": support},
                    "max_retransmissions": 30});
                n.sat = json!({"errors": {"ber": 2e-6 * seed as f64, "duplicate": 0.01},
                    "reorder": {"prob": 0.02, "delay": "uniform", "mean_s": 0.02}});
                let mut v = n.scenario();
                v["seed"] = json!(seed);
                let s = satcp_core::parse(&v.to_string()).unwrap();
                let r = satcp_core::run(&s);
                let label = format!("seed {seed} {variant} support {support}");
                assert!(r.apps_done, "{label}");
                assert_eq!(r.flows[0].client.bytes_delivered, 300 * MSS, "{label}");
                worst = worst.max(response_time(&r));
            }
        }
    }
    println!("slowest transfer {worst:.1} s");
}
