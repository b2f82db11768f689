//! The `linux` stack's mechanisms end to end (issue 29): slow start with
//! byte counting, congestion window validation, quick ACKs, Linux's RTO,
//! Linux's Nagle, HyStart++. The rules themselves are unit-tested next to
//! each module (`tcp/slow_start.rs`, `tcp/cwnd_validation.rs`, ...).

use satcp_core::RunResult;
use serde_json::{json, Value};

const MSS: f64 = 1448.0;

/// server -- 1 Gb/s -- gw -- `rate` Mb/s, `delay` s one way, a buffer of
/// `queue` packets -- client; a bulk transfer of `bytes` (None: for
/// `secs` seconds), the time series every `sample` s.
fn geo(tcp: Value, rate: f64, delay: f64, queue: u64, bytes: Option<u64>, secs: f64) -> Value {
    let mut app = json!({"kind": "bulk", "client": "client", "server": "server"});
    if let Some(b) = bytes {
        app["bytes"] = json!(b);
    }
    json!({
        "name": "linux-stack", "seed": 1, "duration_s": secs, "stop_when_done": true,
        "sample_interval_s": 0.05,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e9, "delay_s": 0.0005},
                  {"a": "gw", "b": "client", "rate_bps": rate * 1e6, "delay_s": delay,
                   "queue_packets": queue}],
        "apps": [app],
        "tcp": tcp,
    })
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

/// The first sampled time at which cwnd reached `segs` segments.
fn time_to_cwnd(r: &RunResult, segs: f64) -> f64 {
    let fs = &r.flow_series;
    let i = (0..fs.cwnd.len())
        .find(|&i| fs.cwnd[i] as f64 >= segs * MSS)
        .unwrap_or_else(|| panic!("cwnd never reached {segs} segments"));
    fs.time_s[i]
}

/// Growth of cwnd per round trip in slow start, from 20 to 320 segments
/// (well below the BDP): 16^(RTT / time taken).
fn growth_per_rtt(r: &RunResult, rtt: f64) -> f64 {
    let dt = time_to_cwnd(r, 320.0) - time_to_cwnd(r, 20.0);
    satcp_core::engine::math::powf(16.0, rtt / dt)
}

/// The GEO path: 20 Mb/s, 600 ms RTT, a deep buffer (3 BDP).
/// RFC 5681's slow start with delayed ACKs grows cwnd about 1.5x per
/// round trip; counting the bytes acknowledged (RFC 3465 as Linux), 2x.
/// The `linux` profile's slow start doubles per round trip and reaches
/// the BDP (about 1,040 segments) seconds earlier.
#[test]
fn linux_slow_start_doubles_per_rtt_with_delayed_acks_on_a_geo_path() {
    let rtt = 0.602;
    let base = json!({"variant": "sack", "window_scaling": true, "rcv_buffer": 8_000_000,
        "initial_ssthresh": 100_000_000u64, "initial_window": 10, "timestamps": true});
    let run_with = |extra: Value| {
        let mut t = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            t[k] = v.clone();
        }
        run(&geo(t, 20.0, 0.3, 3000, Some(20_000_000), 60.0))
    };
    let rfc = run_with(json!({}));
    let counted = run_with(json!({"byte_counting": true}));
    let linux = run(&geo(
        json!({"profile": "linux", "rcv_buffer": 8_000_000}),
        20.0,
        0.3,
        3000,
        Some(20_000_000),
        60.0,
    ));
    let (g_rfc, g_bc, g_linux) = (
        growth_per_rtt(&rfc, rtt),
        growth_per_rtt(&counted, rtt),
        growth_per_rtt(&linux, rtt),
    );
    let bdp = 20e6 / 8.0 * rtt / MSS;
    println!(
        "growth per RTT: rfc {g_rfc:.2}, rfc + byte counting {g_bc:.2}, linux {g_linux:.2}; \
         time to the BDP ({bdp:.0} segments): rfc {:.2} s, byte counting {:.2} s, linux {:.2} s",
        time_to_cwnd(&rfc, bdp),
        time_to_cwnd(&counted, bdp),
        time_to_cwnd(&linux, bdp)
    );
    assert!((1.4..1.65).contains(&g_rfc), "{g_rfc}");
    assert!((1.85..2.1).contains(&g_bc), "{g_bc}");
    assert!((1.85..2.1).contains(&g_linux), "{g_linux}");
    assert!(time_to_cwnd(&rfc, bdp) > time_to_cwnd(&linux, bdp) + 2.0);
}

/// A receive-window-limited sender (64 kB window on the GEO path, 4 %
/// of the BDP) in slow start: without validation cwnd grows by what each
/// ACK acknowledges for ever, one receive window per round trip (tens of
/// windows unused, released as a burst if the window opened); with
/// `cwnd_validation` it stops at twice the largest flight (Linux's
/// tcp_is_cwnd_limited).
#[test]
fn a_receive_window_limited_sender_keeps_cwnd_bounded() {
    let tcp = |validation: bool| {
        json!({"variant": "cubic", "initial_ssthresh": 100_000_000u64, "rcv_buffer": 65_535,
            "cwnd_validation": validation, "byte_counting": true})
    };
    let max_cwnd = |r: &RunResult| *r.flow_series.cwnd.iter().max().unwrap() as f64;
    let rwnd = 44.0 * 1460.0; // full segments that fit 65,535 bytes
    let free = run(&geo(tcp(false), 20.0, 0.3, 3000, None, 30.0));
    let valid = run(&geo(tcp(true), 20.0, 0.3, 3000, None, 30.0));
    println!(
        "largest cwnd: {:.0} rwnd without validation, {:.2} rwnd with",
        max_cwnd(&free) / rwnd,
        max_cwnd(&valid) / rwnd
    );
    // One window per round trip: the 30 s run is 50 round trips of 602 ms,
    // the first four spent in the handshake and in growing cwnd to the
    // receive window, so about 46 windows. (This said 50 windows, more
    // than 30 s of this growth can give.)
    assert!(max_cwnd(&free) > 40.0 * rwnd);
    assert!(max_cwnd(&valid) <= 2.0 * rwnd + 2.0 * 1460.0);
    // The same goodput: the receiver's window is the limit either way.
    let (a, b) = (free.flows[0].goodput_bps, valid.flows[0].goodput_bps);
    assert!((a - b).abs() / a < 0.01, "{a} {b}");
}

/// Linux's quick-ACK mode: a receiver acknowledges the first 16 segments
/// one by one, then every second one. A transfer of 40 full segments, the
/// FIN on the last one: 16 + 12 ACKs after the handshake's.
#[test]
fn quick_acks_acknowledge_the_first_segments_one_by_one() {
    let acks = |quick: u32| {
        let tcp = json!({"variant": "sack", "initial_window": 10, "quick_acks": quick,
            "max_ack_delay": 0.04, "initial_ssthresh": 100_000_000u64});
        let r = run(&geo(tcp, 20.0, 0.05, 1000, Some(40 * 1460), 10.0));
        r.flows[0].client.pure_acks_sent
    };
    let (without, with) = (acks(0), acks(16));
    println!("pure ACKs from the receiver: {without} without quick ACKs, {with} with 16");
    // The handshake's ACK, then the data's. The FIN travels on the 40th
    // segment and the ACK of the last pair acknowledges it (this counted a
    // separate ACK for the FIN, and expected 30 with quick ACKs). Without
    // quick ACKs (RFC 5681 slow start, one ACK per two segments): IW 10
    // gives 5 ACKs and cwnd 15; 15 segments, 7 ACKs and the 40 ms timer's
    // for the odd one, cwnd 23; the last 15, 7 ACKs and the one at once
    // for the FIN's segment.
    assert_eq!(without, 1 + 5 + (7 + 1) + (7 + 1));
    // With: 10 quick ACKs for IW 10 (cwnd 20), 6 more and 7 for pairs in
    // the next 20 segments, 5 for the last 10 (the FIN's among them).
    assert_eq!(with, 1 + 16 + 12);
}

/// Linux's RTO on a steady path settles at srtt + TCP_RTO_MIN (rounded up
/// to the 1 ms clock): the minimum bounds the deviation term. RFC 6298's,
/// with the same 200 ms minimum and G = 1 ms, at srtt + max(G, 4 RTTVAR),
/// which falls to srtt + G as RTTVAR decays; with RFC 6298's own 1 s
/// minimum (Sec. 2.4, the rfc profile's), at 1 s.
#[test]
fn linux_rto_settles_at_srtt_plus_the_minimum() {
    let last_rto = |algo: &str, min_rto: f64| {
        let tcp = json!({"variant": "sack", "rto_algorithm": algo, "min_rto": min_rto,
            "timer_granularity": 0.001, "rcv_buffer": 65_535});
        let r = run(&geo(tcp, 20.0, 0.3, 1000, None, 30.0));
        let fs = &r.flow_series;
        (
            *fs.rto_s.last().unwrap(),
            *fs.srtt_s.last().unwrap(),
            r.flows[0].server.timeouts,
        )
    };
    let (rto, srtt, timeouts) = last_rto("linux", 0.2);
    println!("linux: srtt {srtt:.4} s, rto {rto:.4} s");
    assert!((rto - (srtt + 0.2)).abs() < 0.0015, "{rto} vs {srtt}");
    assert_eq!(timeouts, 0);
    // This asserted RFC 6298's 1 s minimum for a run that set min_rto =
    // 0.2 s: with that minimum RFC 6298's RTO is srtt + max(G, 4 RTTVAR).
    let (rto, srtt, _) = last_rto("rfc6298", 0.2);
    println!("rfc6298 (G = 1 ms, min 0.2 s): srtt {srtt:.4} s, rto {rto:.4} s");
    assert!(rto >= srtt + 0.001 && rto < srtt + 0.005, "{rto} vs {srtt}");
    let (rto, srtt, _) = last_rto("rfc6298", 1.0);
    println!("rfc6298 (G = 1 ms, min 1 s): srtt {srtt:.4} s, rto {rto:.4} s");
    assert_eq!(rto, 1.0, "RFC 6298's 1 s minimum");
}

/// Nagle: an FTP-like transfer whose last segment is short and carries the
/// FIN. RFC 896 holds it until every earlier segment is acknowledged;
/// Linux sends it at once (the FIN is exempt, and no earlier short segment
/// is outstanding), a round trip earlier.
#[test]
fn linux_nagle_does_not_hold_the_last_short_segment() {
    let time = |nagle: Value| {
        let tcp = json!({"variant": "sack", "nagle": nagle, "initial_window": 10,
            "delayed_ack": false});
        let r = run(&geo(tcp, 20.0, 0.3, 1000, Some(5 * 1460 + 100), 10.0));
        r.transfers[0].response_time_s.expect("done")
    };
    let (off, rfc, linux) = (time(json!(false)), time(json!(true)), time(json!("linux")));
    println!("transfer time: no Nagle {off:.3} s, RFC 896 {rfc:.3} s, linux {linux:.3} s");
    assert!((linux - off).abs() < 1e-6);
    assert!(rfc > off + 0.5, "the short segment waited a round trip");
}

/// HyStart++ leaves standard slow start when the RTT rises: on a path
/// with a buffer of 2 BDP, CUBIC with byte counting is in Conservative
/// Slow Start (cwnd x1.25 per round trip, CSS_GROWTH_DIVISOR = 4) when its
/// first loss comes, where plain slow start still doubles, and it loses
/// far less.
///
/// This asserted that HyStart++ sets ssthresh before the first loss. It
/// cannot on this path: an unpaced sender's RTT samples rise above the
/// round before's only one round after the flight passed the BDP (the
/// first segments of a flight find the queue the flight before left, and
/// a flight below the BDP leaves none), at about 2.5 BDP here, and CSS then
/// grows cwnd for CSS_ROUNDS = 5 rounds, to about 3x, past the BDP plus
/// the buffer (3 BDP) before those rounds are over (RFC 9406 Sec. 4.2).
#[test]
fn hystart_leaves_slow_start_before_the_first_loss() {
    let run_hs = |hystart: bool| {
        let tcp = json!({"variant": "cubic", "window_scaling": true, "rcv_buffer": 8_000_000,
            "initial_ssthresh": 100_000_000u64, "initial_window": 10, "byte_counting": true,
            "hystart": hystart});
        run(&geo(tcp, 20.0, 0.3, 2000, None, 30.0))
    };
    // cwnd's growth over the round trip before the first retransmission,
    // and the largest cwnd before it, in segments.
    let before_loss = |r: &RunResult| {
        let fs = &r.flow_series;
        let loss = (0..fs.cwnd.len())
            .find(|&i| fs.retransmitted_segments[i] > 0)
            .expect("a loss");
        let t0 = fs.time_s[loss] - fs.srtt_s[loss];
        let rtt_before = (0..loss).rev().find(|&i| fs.time_s[i] <= t0).unwrap();
        let growth = fs.cwnd[loss - 1] as f64 / fs.cwnd[rtt_before] as f64;
        let largest = *fs.cwnd[..loss].iter().max().unwrap() as f64 / MSS;
        (fs.time_s[loss], growth, largest)
    };
    let (plain, hs) = (run_hs(false), run_hs(true));
    let (t_p, g_p, w_p) = before_loss(&plain);
    let (t_h, g_h, w_h) = before_loss(&hs);
    println!(
        "first loss: plain slow start at {t_p:.2} s, cwnd x{g_p:.2} in the round trip \
         before, {w_p:.0} segments at most; HyStart++ at {t_h:.2} s, x{g_h:.2}, {w_h:.0}; \
         retransmitted segments over the run: {} with, {} without",
        hs.flows[0].server.retransmitted_segments, plain.flows[0].server.retransmitted_segments
    );
    assert!(g_p > 1.8, "plain slow start doubles: {g_p}");
    assert!(g_h < 1.3, "HyStart++ in CSS: {g_h}");
    assert!(w_h < 0.75 * w_p);
    assert!(
        hs.flows[0].server.retransmitted_segments * 4
            < plain.flows[0].server.retransmitted_segments
    );
}

/// `ssthresh_from`: after a loss, Linux halves cwnd in whole segments
/// (`tcp_reno_ssthresh`), RFC 5681 the flight size. A receive window of
/// 100 segments holds the flight at 100 while congestion window
/// validation lets cwnd reach twice that in slow start; one segment lost
/// then gives ssthresh of about 100 segments from cwnd, about 50 from the
/// flight size.
#[test]
fn ssthresh_comes_from_cwnd_in_whole_segments_or_from_the_flight_size() {
    let ssthresh_after_loss = |from: &str| {
        let tcp = json!({"profile": "linux", "variant": "sack", "rcv_buffer": 100 * 1448,
            "ssthresh_from": from});
        let mut v = geo(tcp, 20.0, 0.3, 3000, Some(3_000_000), 30.0);
        v["links"][1]["ab"] = json!({"errors": {"drop_seqs": [1 + 600 * 1448]}});
        let r = run(&v);
        assert_eq!(
            r.flows[0].server.retransmitted_segments, 1,
            "one loss, one repair"
        );
        let fs = &r.flow_series;
        let i = (0..fs.ssthresh.len())
            .find(|&i| fs.ssthresh[i] < 1_000_000_000)
            .expect("the loss sets ssthresh");
        (fs.ssthresh[i], fs.cwnd[i - 1], fs.flight_size[i - 1])
    };
    let (from_cwnd, cwnd, _) = ssthresh_after_loss("cwnd");
    let (from_flight, _, flight) = ssthresh_after_loss("flight_size");
    println!("ssthresh {from_cwnd} (cwnd {cwnd}), {from_flight} (flight {flight})");
    assert_eq!(from_cwnd % 1448, 0, "whole segments");
    assert!((cwnd as f64 / 2.0 - from_cwnd as f64).abs() <= 2.0 * MSS);
    assert!((flight as f64 / 2.0 - from_flight as f64).abs() <= 2.0 * MSS);
    assert!(from_cwnd as f64 > 1.8 * from_flight as f64);
}
