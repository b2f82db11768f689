//! The model against closed-form theory: window-limited throughput,
//! bottleneck saturation, connection set-up latency, delayed-ACK ratio and
//! the square-root law of TCP throughput under random loss.

use crate::common::*;
use serde_json::json;

/// Largest multiple of the MSS that fits in the advertised window.
fn window_bytes(rwnd: u64, mss: u64) -> u64 {
    rwnd / mss * mss
}

// ----- 1. window-limited throughput -----

/// A long-delay link whose capacity (10 Mb/s) far exceeds rwnd/RTT (about
/// 1 Mb/s): in steady state the sender sends its whole window of
/// floor(65535/1460) = 44 segments once per round trip, so goodput is
/// window / RTT exactly. The RTT of the ACK clock is two propagation delays
/// plus the serialization of what one ACK waits for: one data segment
/// without delayed ACK, the pair it acknowledges with delayed ACK (every
/// second segment is acknowledged; the window of 44 is even).
#[test]
fn window_limited_throughput_is_window_over_rtt() {
    let (rate, d) = (10e6, 0.25);
    let w = window_bytes(65_535, 1460);
    for delayed_ack in [false, true] {
        let segs_per_ack = if delayed_ack { 2 } else { 1 };
        let rtt = 2.0 * d + segs_per_ack as f64 * tx(1500, rate) + tx(HDR, rate);
        let expected = w as f64 * 8.0 / rtt;
        let mut s = one_link(
            link("server", "client", rate, d),
            vec![bulk(None)],
            json!({"variant": "newreno", "delayed_ack": delayed_ack}),
        );
        // Sampling once per predicted RTT puts every sample at the same
        // phase of the ACK clock, so the window quantum cancels out.
        s = with(s, json!({"duration_s": 111.0, "sample_interval_s": rtt}));
        let r = run(&s);
        // From t = 10 s (slow start is over after a few seconds) to 110 s.
        let g = goodput_between(&r, 0, 10.0, 110.0);
        let f = &r.flows[0];
        println!(
            "delayed_ack={delayed_ack}: goodput {g:.0} b/s, window/RTT {expected:.0} b/s \
             (W={w} B, RTT={rtt:.6} s), deviation {:.4} %",
            100.0 * rel(g, expected)
        );
        assert_eq!(
            f.server.retransmitted_segments, 0,
            "lossless run retransmitted"
        );
        assert!(
            rel(g, expected) < 0.02,
            "delayed_ack={delayed_ack}: goodput {g:.0} b/s vs window/RTT {expected:.0} b/s"
        );
    }
}

// ----- 2. a window above the bandwidth-delay product fills the bottleneck -----

/// 100 Mb/s access link, then a 2 Mb/s bottleneck with 50 ms delay: the
/// bandwidth-delay product is about 26 kB, below the 64 kB window, and the
/// bottleneck queue (100 packets) holds the excess, so the bottleneck never
/// idles and never drops. Goodput = capacity x payload share 1460/1500.
#[test]
fn window_above_bdp_fills_the_bottleneck() {
    let cap = 2e6;
    let s = scenario(
        &["server", "router", "client"],
        vec![
            link("server", "router", 100e6, 0.001),
            with(
                link("router", "client", cap, 0.050),
                json!({"queue_packets": 100}),
            ),
        ],
        vec![bulk(None)],
        json!({"variant": "sack"}),
    );
    let s = with(s, json!({"duration_s": 81.0, "sample_interval_s": 1.0}));
    let r = run(&s);
    let rtt = 2.0 * (0.001 + 0.050) + tx(1500, 100e6) + tx(1500, cap);
    let bdp = cap / 8.0 * rtt;
    let w = window_bytes(65_535, 1460) as f64;
    assert!(w > 2.0 * bdp, "premise: window {w} vs BDP {bdp}");
    let g = goodput_between(&r, 0, 10.0, 80.0);
    let expected = cap * 1460.0 / 1500.0;
    let bottleneck = &r.links[2]; // router -> client
    println!(
        "goodput {g:.0} b/s, capacity x 1460/1500 = {expected:.0} b/s, deviation {:.3} %, \
         max queue {} packets, BDP {bdp:.0} B",
        100.0 * rel(g, expected),
        bottleneck.stats.max_queue_packets
    );
    assert_eq!(bottleneck.stats.queue_drops, 0);
    assert!(rel(g, expected) < 0.01, "goodput {g:.0} vs {expected:.0}");
}

// ----- 3. connection set-up costs the expected round trips -----

/// Server -- 10 Mb/s, 10 ms -- gateway -- GEO 2,048 kb/s down, 256 kb/s up,
/// 250 ms -- client (thesis Fig. 7.2). A tiny FTP download takes exactly:
/// SYN up, SYN-ACK down, (handshake ACK + request) up, (response + FIN)
/// down, each hop store-and-forward with its serialization times. A
/// 3,000-byte file needs a second round trip: the initial window is two
/// segments, and the third (carrying the FIN) waits for an ACK.
#[test]
fn tiny_ftp_response_time_is_handshake_plus_request_round_trips() {
    let down = [
        Hop {
            rate_bps: 10e6,
            delay_s: 0.010,
        },
        Hop {
            rate_bps: 2.048e6,
            delay_s: 0.250,
        },
    ];
    let up = [
        Hop {
            rate_bps: 256e3,
            delay_s: 0.250,
        },
        Hop {
            rate_bps: 10e6,
            delay_s: 0.010,
        },
    ];
    let last = |v: Vec<f64>| *v.last().unwrap();
    for variant in ["newreno", "sack"] {
        // MSS option (4), plus SACK-permitted (4) when offered.
        let syn = HDR + 4 + if variant == "sack" { 4 } else { 0 };
        for delayed_ack in [false, true] {
            for file in [1000u64, 3000] {
                let req = 100;
                let t_syn = last(burst_arrivals(0.0, &[syn], &up));
                let t_synack = last(burst_arrivals(t_syn, &[syn], &down));
                let t_req = last(burst_arrivals(t_synack, &[HDR, HDR + req], &up));
                // Without delayed ACK the server acknowledges the request at
                // once, before its application writes the response.
                let ack: &[u64] = if delayed_ack { &[] } else { &[HDR] };
                let expected = if file <= 1460 {
                    // All data in one segment, then a bare FIN (the server
                    // closes right after writing).
                    last(burst_arrivals(
                        t_req,
                        &[ack, &[HDR + file, HDR]].concat(),
                        &down,
                    ))
                } else {
                    // The client acknowledges the first segment at once, or
                    // with delayed ACK the second; either ACK opens cwnd.
                    let a = burst_arrivals(t_req, &[ack, &[1500, 1500]].concat(), &down);
                    let acked = a[a.len() - if delayed_ack { 1 } else { 2 }];
                    let t_ack = last(burst_arrivals(acked, &[HDR], &up));
                    last(burst_arrivals(t_ack, &[HDR + file - 2920], &down))
                };
                let s = scenario(
                    &["server", "gateway", "client"],
                    vec![
                        link("server", "gateway", 10e6, 0.010),
                        json!({"a": "gateway", "b": "client", "delay_s": 0.250,
                               "ab": {"rate_bps": 2.048e6}, "ba": {"rate_bps": 256e3}}),
                    ],
                    vec![with(ftp(file), json!({"request_bytes": req}))],
                    json!({"variant": variant, "delayed_ack": delayed_ack}),
                );
                let r = run(&s);
                let got = r.transfers[0].response_time_s.expect("transfer finished");
                println!(
                    "{variant} delayed_ack={delayed_ack} file={file}: response {got:.9} s, \
                     predicted {expected:.9} s"
                );
                assert!(
                    (got - expected).abs() < 1e-6,
                    "{variant} delayed_ack={delayed_ack} file={file}: \
                     response {got:.9} s vs predicted {expected:.9} s"
                );
            }
        }
    }
}

// ----- 4. delayed ACK halves the ACK count -----

/// A lossless 2 MB transfer: the client sends one pure ACK per data segment
/// without delayed ACK and one per two full-size segments with it (RFC 1122:
/// ACK at least every second full-size segment).
#[test]
fn delayed_ack_halves_pure_acks() {
    for (delayed_ack, expected) in [(false, 1.0), (true, 0.5)] {
        let s = one_link(
            link("server", "client", 10e6, 0.05),
            vec![bulk(Some(2_000_000))],
            json!({"variant": "sack", "delayed_ack": delayed_ack}),
        );
        let r = run(&s);
        assert!(r.apps_done);
        let f = &r.flows[0];
        assert_eq!(f.server.retransmitted_segments, 0);
        let ratio = f.client.pure_acks_sent as f64 / f.server.data_segments_sent as f64;
        println!(
            "delayed_ack={delayed_ack}: {} pure ACKs for {} data segments = {ratio:.4} \
             (expected {expected})",
            f.client.pure_acks_sent, f.server.data_segments_sent
        );
        assert!(
            rel(ratio, expected) < 0.05,
            "delayed_ack={delayed_ack}: ACKs per data segment {ratio:.4} vs {expected}"
        );
    }
}

// ----- 5. the square-root law -----

/// NewReno under random loss of data packets follows Mathis et al. (1997):
/// rate = MSS / RTT * C / sqrt(p).
///
/// Setting: delayed ACK off, so every segment is acknowledged and cwnd grows
/// by one MSS per RTT in congestion avoidance. That is the b = 1 case of the
/// derivation, hence C = sqrt(3/2) (with delayed ACK, b = 2 and
/// C = sqrt(3/4)). Loss hits data packets only (errors.data_only), so ACKs
/// are reliable as the model assumes.
///
/// The Mathis window C/sqrt(p) depends on p only (122 segments at p = 1e-4,
/// peaks of sqrt(8/(3p)) = 163), so MSS = 100 bytes keeps the 65,535-byte
/// receive window (655 segments) far above it (cwnd then spans SMSS^2 bytes,
/// which is where per-ACK truncation of SMSS*SMSS/cwnd would bend the
/// growth rate). The 100 Mb/s link adds no
/// queueing, so the RTT is the fixed 0.5 s of a GEO hop, which also keeps
/// the 1 s minimum RTO near 2 RTT, the regime in which Mathis (which ignores
/// timeouts) and PFTK agree within a few percent even at p = 1e-2.
#[test]
fn newreno_follows_the_square_root_law() {
    let (rate, d, mss) = (100e6, 0.25, 100u64);
    let rtt = 2.0 * d + tx(mss + HDR, rate) + tx(HDR, rate);
    let c = (1.5f64).sqrt();
    // (p, duration in s): a few hundred loss events per run.
    for (p, dur) in [(1e-4f64, 10_000.0), (1e-3, 3_000.0), (1e-2, 2_000.0)] {
        let mut rates = Vec::new();
        let mut events = 0;
        for seed in [1u64, 2, 3] {
            let s = one_link(
                with(
                    link("server", "client", rate, d),
                    json!({"ab": {"errors": {"loss": p, "data_only": true}}}),
                ),
                vec![bulk(None)],
                json!({"variant": "newreno", "delayed_ack": false, "mss": mss}),
            );
            let s = with(
                s,
                json!({"seed": seed, "duration_s": dur + 1.0, "sample_interval_s": 10.0}),
            );
            let r = run(&s);
            let f = &r.flows[0];
            events += f.server.fast_retransmits + f.server.timeouts;
            // Skip the initial slow start and its first recovery.
            rates.push(goodput_between(&r, 0, 100.0, dur) / 8.0);
            println!(
                "p={p} seed={seed}: {:.0} B/s, {} fast retransmits, {} timeouts",
                rates.last().unwrap(),
                f.server.fast_retransmits,
                f.server.timeouts
            );
        }
        let measured = rates.iter().sum::<f64>() / rates.len() as f64;
        let mathis = mss as f64 / rtt * c / p.sqrt();
        // PFTK (Padhye et al. 1998) with b = 1, T0 = 1 s, for reference.
        let t0 = 1.0;
        let pftk = mss as f64
            / (rtt * (2.0 * p / 3.0).sqrt()
                + t0 * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p));
        println!(
            "p={p}: measured {measured:.0} B/s, Mathis {mathis:.0} B/s (ratio {:.3}), \
             PFTK {pftk:.0} B/s (ratio {:.3}), {events} loss episodes",
            measured / mathis,
            measured / pftk
        );
        assert!(
            rel(measured, mathis) < 0.25,
            "p={p}: measured {measured:.0} B/s vs Mathis {mathis:.0} B/s"
        );
    }
}
