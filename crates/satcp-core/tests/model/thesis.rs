//! Sanity checks of the thesis set-up (scenarios/thesis_ftp.toml, thesis
//! Fig. 7.2 and Tables 7.2-7.4) against what the model must give.

use crate::common::*;
use serde_json::{json, Value};

fn thesis_ftp() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/thesis_ftp.toml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const DOWN: [Hop; 2] = [
    Hop {
        rate_bps: 10e6,
        delay_s: 0.010,
    },
    Hop {
        rate_bps: 2.048e6,
        delay_s: 0.250,
    },
];
const UP: [Hop; 2] = [
    Hop {
        rate_bps: 256e3,
        delay_s: 0.250,
    },
    Hop {
        rate_bps: 10e6,
        delay_s: 0.010,
    },
];

/// The 50 MB download is window limited: the bandwidth-delay product of the
/// GEO path (2,048 kb/s x 0.53 s = 137 kB) exceeds the 65,535-byte window.
/// In steady state the 44-segment window circulates as 22 pairs (delayed
/// ACK), each pair taking one ACK-clock period P: both segments through the
/// Ethernet and satellite hops, their ACK back. The response time is then
/// the time until the request reaches the server plus file / (W / P); slow
/// start and the last segment's trip add a few RTTs, about 1 %.
#[test]
fn thesis_ftp_response_time_matches_window_limited_prediction() {
    let s = thesis_ftp();
    // The file states what the prediction assumes.
    assert_eq!(s["tcp"]["variant"], "sack");
    assert_eq!(s["tcp"]["delayed_ack"], true);
    assert_eq!(s["links"][1]["ab"]["rate_bps"].as_f64(), Some(2.048e6));
    let file = s["apps"][0]["file_bytes"].as_u64().unwrap();
    assert_eq!(file, 50_000_000);

    let last = |v: Vec<f64>| *v.last().unwrap();
    let w = (65_535 / 1460 * 1460) as f64;
    let pair = last(burst_arrivals(0.0, &[1500, 1500], &DOWN));
    let period = last(burst_arrivals(pair, &[HDR], &UP));
    let bdp = 2.048e6 / 8.0 * period;
    assert!(bdp > w, "premise: BDP {bdp:.0} B vs window {w} B");
    // SYN (with SACK-permitted) up, SYN-ACK down, ACK + request up.
    let t_syn = last(burst_arrivals(0.0, &[48], &UP));
    let t_synack = last(burst_arrivals(t_syn, &[48], &DOWN));
    let t_req = last(burst_arrivals(t_synack, &[HDR, HDR + 100], &UP));
    let predicted = t_req + file as f64 / (w / period);

    let r = run(&s);
    let got = r.transfers[0].response_time_s.expect("download finished");
    println!(
        "response {got:.3} s, predicted {predicted:.3} s (ACK-clock period {period:.6} s, \
         W/P = {:.0} b/s), deviation {:.3} %",
        w * 8.0 / period,
        100.0 * rel(got, predicted)
    );
    assert_eq!(r.flows[0].server.retransmitted_segments, 0);
    assert!(
        rel(got, predicted) < 0.02,
        "response {got:.3} s vs window-limited prediction {predicted:.3} s"
    );
}

/// HTTP/1.1 pages (Table 7.3 defaults) over the same path with SACK: the
/// page response time is shorter without delayed ACK, which holds back the
/// ACK of an odd last segment of every object burst for up to 200 ms and
/// slows slow start.
#[test]
fn http_pages_load_faster_without_delayed_ack() {
    let mut mean = Vec::new();
    for delayed_ack in [true, false] {
        let mut s = thesis_ftp();
        s["name"] = json!("thesis-http");
        s["sample_interval_s"] = json!(0.0);
        s["tcp"]["delayed_ack"] = json!(delayed_ack);
        s["apps"] = json!([{"kind": "http", "client": "client", "server": "server",
                             "page_interval_s": 30.0, "pages": 3}]);
        let r = run(&s);
        assert!(r.apps_done);
        let times: Vec<f64> = r
            .transfers
            .iter()
            .map(|t| t.response_time_s.expect("page finished"))
            .collect();
        let m = times.iter().sum::<f64>() / times.len() as f64;
        println!("SACK, delayed_ack={delayed_ack}: mean page response {m:.3} s {times:.3?}");
        mean.push(m);
    }
    assert!(
        mean[1] < mean[0],
        "without delayed ACK {:.3} s, with {:.3} s",
        mean[1],
        mean[0]
    );
}
