//! TCP-ADaLR (docs/adalr.md) in the thesis set-up (scenarios/thesis_ftp.toml,
//! thesis Fig. 7.2): the slow-start sub-phases seen in the time series, and
//! the thesis's claims on the ideal 50 MB FTP download.

use crate::common::*;
use satcp_core::RunResult;
use serde_json::{json, Value};

fn thesis_ftp() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/thesis_ftp.toml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn thesis_run(variant: &str, delayed_ack: bool, duration_s: f64, sample_s: f64) -> RunResult {
    let mut s = thesis_ftp();
    s["tcp"]["variant"] = json!(variant);
    s["tcp"]["delayed_ack"] = json!(delayed_ack);
    s["duration_s"] = json!(duration_s);
    s["sample_interval_s"] = json!(sample_s);
    run(&s)
}

/// First sample time at which cwnd reached `bytes`.
fn time_to_cwnd(r: &RunResult, bytes: u64) -> f64 {
    let fs = &r.flow_series;
    let i = (0..fs.time_s.len())
        .find(|&i| fs.cwnd[i] >= bytes)
        .unwrap_or_else(|| panic!("cwnd never reached {bytes} B"));
    fs.time_s[i]
}

/// Algorithm 5.1 in the trace: the first 8 s of the download (slow start
/// ends after about 4.6 s), sampled every 10 ms. Slow start goes through
/// the sub-phases in order, 3 and 4 only once the flight has reached
/// rwnd/4, and congestion avoidance has none (label 0); cwnd reaches every
/// size sooner than with standard slow start.
#[test]
fn slow_start_goes_through_the_sub_phases_in_order() {
    let rwnd = 65_535u64;
    let a = thesis_run("adalr-sack", true, 8.0, 0.01);
    let fs = &a.flow_series;
    let n = fs.time_s.len();
    let mut labels: Vec<i32> = Vec::new();
    for i in 0..n {
        let (ph, cwnd, ssthresh, flight) = (
            fs.cc_phase[i],
            fs.cwnd[i],
            fs.ssthresh[i],
            fs.flight_size[i],
        );
        if ph != 0 {
            assert!(
                cwnd < ssthresh,
                "sub-phase {ph} outside slow start at {} s",
                fs.time_s[i]
            );
            // The label is from the last ACK; the flight has only grown
            // since, by what that ACK let the sender send.
            if ph >= 3 {
                assert!(
                    flight >= rwnd / 4,
                    "sub-phase {ph} with flight {flight} at {} s",
                    fs.time_s[i]
                );
            }
            if labels.last() != Some(&ph) {
                labels.push(ph);
            }
        }
        if cwnd >= ssthresh {
            assert_eq!(
                ph, 0,
                "congestion avoidance labelled {ph} at {} s",
                fs.time_s[i]
            );
        }
    }
    let first_ca = (0..n)
        .find(|&i| fs.cwnd[i] >= fs.ssthresh[i])
        .expect("slow start ends");
    let last_sub = (0..n).rfind(|&i| fs.cc_phase[i] != 0).expect("a sub-phase");
    let first_of = |p: i32| (0..n).find(|&i| fs.cc_phase[i] == p).map(|i| fs.time_s[i]);
    println!(
        "sub-phases {labels:?}, first seen at {:?}; congestion avoidance from {:.2} s",
        [1, 2, 3, 4].map(first_of),
        fs.time_s[first_ca]
    );
    assert!(
        labels.windows(2).all(|w| w[0] < w[1]),
        "out of order: {labels:?}"
    );
    assert_eq!(&labels[..2], &[1, 2], "{labels:?}");
    assert!(labels.contains(&3) || labels.contains(&4), "{labels:?}");
    assert!(last_sub < first_ca);
    // Algorithm 5.3 at work: more than rwnd in flight, all of it accepted.
    let max_flight = *fs.flight_size.iter().max().unwrap();
    assert!(max_flight > rwnd, "max flight {max_flight}");
    assert_eq!(a.flows[0].server.retransmitted_segments, 0);

    let s = thesis_run("sack", true, 8.0, 0.01);
    assert!(s.flow_series.cc_phase.iter().all(|&p| p == 0));
    assert!(*s.flow_series.flight_size.iter().max().unwrap() <= rwnd);
    // Same handshake, same first data: cwnd starts growing at the same RTT.
    let t0 = time_to_cwnd(&s, 2921);
    assert!((time_to_cwnd(&a, 2921) - t0).abs() < 0.02);
    let srtt = s.flows[0].srtt_s.expect("RTT measured");
    for kb in [8u64, 16, 32, 64] {
        let (ta, ts) = (time_to_cwnd(&a, kb * 1024), time_to_cwnd(&s, kb * 1024));
        println!(
            "cwnd >= {kb:2} kB after {:.2} RTTs with adalr-sack, {:.2} with sack",
            (ta - t0) / srtt,
            (ts - t0) / srtt
        );
        assert!(ta < ts, "{kb} kB: adalr-sack at {ta} s, sack at {ts} s");
    }
    assert!(time_to_cwnd(&a, 64 * 1024) - t0 < 0.9 * (time_to_cwnd(&s, 64 * 1024) - t0));
}

/// Thesis claims on the ideal 50 MB FTP download (no loss): TCP-ADaLR
/// finishes sooner than SACK and NewReno, with delayed ACK and without, and
/// sooner without delayed ACK than with it.
#[test]
fn ideal_ftp_download_is_faster_with_adalr() {
    let mut t = std::collections::HashMap::new();
    for delayed_ack in [true, false] {
        for v in ["adalr-sack", "adalr-newreno", "sack", "newreno"] {
            let r = thesis_run(v, delayed_ack, 18_000.0, 0.0);
            let f = &r.flows[0];
            let rt = r.transfers[0].response_time_s.expect("download finished");
            println!(
                "{v:13} delayed_ack={delayed_ack:5}: response {rt:.3} s, goodput {:.0} b/s",
                f.goodput_bps
            );
            assert_eq!(f.client.bytes_delivered, 50_000_000);
            assert_eq!(f.server.retransmitted_segments, 0, "{v}: ideal link");
            t.insert((v, delayed_ack), rt);
        }
    }
    for da in [true, false] {
        for a in ["adalr-sack", "adalr-newreno"] {
            for b in ["sack", "newreno"] {
                assert!(
                    t[&(a, da)] < t[&(b, da)],
                    "delayed_ack={da}: {a} {:.3} s, {b} {:.3} s",
                    t[&(a, da)],
                    t[&(b, da)]
                );
            }
            assert!(
                t[&(a, false)] < t[&(a, true)],
                "{a}: without delayed ACK {:.3} s, with {:.3} s",
                t[&(a, false)],
                t[&(a, true)]
            );
        }
    }
}
