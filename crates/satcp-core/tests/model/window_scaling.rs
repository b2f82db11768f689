//! RFC 7323 window scaling and timestamps against the window/RTT law:
//! with windows of 1 MB and 16 MB (far above 65,535 bytes) on a path whose
//! capacity exceeds window/RTT, goodput is the advertised window, as the
//! negotiated shift can express it and rounded down to whole segments,
//! over the round-trip time.

use crate::common::*;
use serde_json::json;

/// The window the receiver advertises for `buffer` with scaling on: the
/// buffer rounded down to the granularity of the smallest shift that
/// fits it in 16 bits (RFC 7323 Sec. 2.3).
fn scaled_window(buffer: u64) -> u64 {
    let mut shift = 0;
    while buffer >> shift > 65_535 {
        shift += 1;
    }
    (buffer >> shift) << shift
}

fn window_limited(buffer: u64, timestamps: bool) -> (f64, f64) {
    let (rate, d, mss) = (1e9, 0.25, 1460u64);
    // Timestamps take 12 bytes of every segment's payload.
    let payload = if timestamps { mss - 12 } else { mss };
    let w = scaled_window(buffer) / payload * payload;
    let rtt = 2.0 * d + tx(payload + 40 + (mss - payload), rate) + tx(40 + (mss - payload), rate);
    let expected = w as f64 * 8.0 / rtt;
    let s = one_link(
        link("server", "client", rate, d),
        vec![bulk(None)],
        json!({"variant": "sack", "delayed_ack": false, "mss": mss, "rcv_buffer": buffer,
               "window_scaling": true, "timestamps": timestamps,
               // The thesis default (65,535) would end slow start early.
               "initial_ssthresh": buffer}),
    );
    let s = with(s, json!({"duration_s": 41.0, "sample_interval_s": rtt}));
    let r = run(&s);
    assert_eq!(r.flows[0].server.retransmitted_segments, 0);
    // Slow start reaches 16 MB in about 14 round trips (7 s).
    let g = goodput_between(&r, 0, 20.0, 40.0);
    println!(
        "buffer {buffer} B, timestamps {timestamps}: goodput {g:.0} b/s, window/RTT \
         {expected:.0} b/s (W = {w} B, RTT = {rtt:.6} s), deviation {:.4} %",
        100.0 * rel(g, expected)
    );
    (g, expected)
}

#[test]
fn scaled_windows_follow_the_window_over_rtt_law() {
    for buffer in [1u64 << 20, 16 << 20] {
        let (g, expected) = window_limited(buffer, false);
        assert!(rel(g, expected) < 0.02, "{buffer}: {g:.0} vs {expected:.0}");
        // Far above what 65,535 bytes allow.
        assert!(g > 10.0 * 65_535.0 * 8.0 / 0.5);
    }
}

#[test]
fn timestamps_cost_twelve_bytes_per_segment_and_keep_the_law() {
    let (g, expected) = window_limited(1 << 20, true);
    assert!(rel(g, expected) < 0.02, "{g:.0} vs {expected:.0}");
}

#[test]
fn without_scaling_the_window_stays_at_65535_bytes() {
    // The same path with the thesis defaults: 65,535 bytes at most.
    let s = one_link(
        link("server", "client", 1e9, 0.25),
        vec![bulk(None)],
        json!({"variant": "sack", "delayed_ack": false}),
    );
    let s = with(s, json!({"duration_s": 21.0, "sample_interval_s": 0.5}));
    let r = run(&s);
    let g = goodput_between(&r, 0, 10.0, 20.0);
    let expected = (65_535 / 1460 * 1460) as f64 * 8.0 / 0.5;
    assert!(rel(g, expected) < 0.02, "{g:.0} vs {expected:.0}");
}
