//! CUBIC, TCP Hybla, TCP Westwood+ and BBR end to end, each against what
//! its source says it does (unit tests of the formulas live with each
//! module).

use satcp_core::RunResult;
use serde_json::{json, Value};

/// A link direction's random loss of data packets, probability `p` per
/// packet: the one place that spells the link's error keys.
fn data_loss(p: f64) -> Value {
    json!({"errors": {"loss": p, "data_only": true}})
}

/// server -- 1 Gb/s -- gw -- `rate` Mb/s, `delay` s one way, random loss
/// `loss` on data -- client; a bulk transfer for `secs` seconds.
fn path(variant: &str, rate: f64, delay: f64, loss: f64, secs: f64, tcp: Value) -> Value {
    let mut t = json!({"variant": variant, "window_scaling": true, "rcv_buffer": 16_777_216,
        "initial_ssthresh": 16_777_216u64, "delayed_ack": false});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "name": "modern", "seed": 3, "duration_s": secs, "stop_when_done": false,
        "sample_interval_s": 0.1,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e9, "delay_s": 0.001},
                  {"a": "gw", "b": "client", "rate_bps": rate * 1e6, "delay_s": delay,
                   "queue_packets": 3000, "ab": data_loss(loss)}],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": t,
    })
}

fn run(v: &Value) -> RunResult {
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

fn goodput(r: &RunResult) -> f64 {
    r.flows[0].goodput_bps
}

/// The ssthresh values the sender took after losses (changes of the
/// sampled ssthresh), in bytes.
fn ssthresh_after_losses(r: &RunResult) -> Vec<u64> {
    let fs = &r.flow_series;
    let mut out = Vec::new();
    for i in 1..fs.ssthresh.len() {
        if fs.ssthresh[i] != fs.ssthresh[i - 1] {
            out.push(fs.ssthresh[i]);
        }
    }
    out
}

/// Westwood+ after a random loss sets ssthresh to its bandwidth estimate
/// times the minimum RTT: about the bandwidth-delay product, where NewReno
/// halves its window. 10 Mb/s, 600 ms: BDP = 750 kB.
#[test]
fn westwood_sets_ssthresh_near_the_bandwidth_delay_product() {
    let bdp = 10e6 / 8.0 * 0.6;
    // Start at the BDP so that the losses hit a full, unqueued pipe.
    let tcp = json!({"initial_ssthresh": bdp as u64});
    let r = run(&path("westwood", 10.0, 0.3, 2e-5, 300.0, tcp.clone()));
    let w = ssthresh_after_losses(&r);
    assert!(w.len() >= 3, "losses: {w:?}");
    for s in &w {
        let ratio = *s as f64 / bdp;
        println!("westwood ssthresh after a loss: {s} B = {ratio:.2} BDP");
        assert!((0.75..=1.25).contains(&ratio), "{ratio}");
    }
    let nr = run(&path("newreno", 10.0, 0.3, 2e-5, 300.0, tcp));
    println!(
        "goodput: westwood {:.0}, newreno {:.0} b/s",
        goodput(&r),
        goodput(&nr)
    );
    assert!(goodput(&r) > goodput(&nr));
}

/// CUBIC on a long fat path with rare random losses: faster than Reno's
/// one segment per RTT (RFC 9438 Sec. 1's motivation).
#[test]
fn cubic_outgrows_reno_on_a_long_fat_path() {
    // 1 Gb/s, 100 ms: Reno's square-root law allows about 140 Mb/s at
    // p = 1e-6, CUBIC's response function far more. Both start at the BDP.
    let tcp = json!({"initial_ssthresh": 12_500_000u64});
    let c = run(&path("cubic", 1000.0, 0.05, 1e-6, 60.0, tcp.clone()));
    let n = run(&path("sack", 1000.0, 0.05, 1e-6, 60.0, tcp));
    println!(
        "goodput: cubic {:.0}, sack {:.0} b/s",
        goodput(&c),
        goodput(&n)
    );
    assert!(c.flows[0].server.fast_retransmits >= 1);
    assert!(goodput(&c) > 1.2 * goodput(&n));
}

/// Hybla on a GEO path with random loss 1e-4: with cwnd growing as a
/// 25 ms connection's, it recovers from losses far faster than NewReno,
/// which the square-root law holds near 2.4 Mb/s there.
#[test]
fn hybla_beats_newreno_on_a_geo_path_with_random_loss() {
    // Both start at the BDP (750 kB), so that neither overshoots the queue.
    let tcp = json!({"initial_ssthresh": 750_000});
    let h = run(&path("hybla", 10.0, 0.3, 1e-4, 300.0, tcp.clone()));
    let n = run(&path("newreno", 10.0, 0.3, 1e-4, 300.0, tcp));
    println!(
        "goodput: hybla {:.0}, newreno {:.0} b/s",
        goodput(&h),
        goodput(&n)
    );
    assert!(goodput(&h) > 1.5 * goodput(&n));
}

/// The GEO path of issue 29: server -- 1 Gb/s, 1 ms -- gw -- `rate` Mb/s,
/// 299 ms -- client (a 600 ms round trip), a drop-tail queue of one
/// bandwidth-delay product, random loss `loss` on data; `files` FTP
/// downloads of `bytes` each, started 100 ms apart; window scaling and a
/// 16 MB receive buffer, the other TCP settings RFC defaults unless `tcp`
/// says otherwise.
fn geo(variant: &str, rate: f64, loss: f64, files: u32, bytes: u64, tcp: Value) -> Value {
    let mut t = json!({"variant": variant, "window_scaling": true, "rcv_buffer": 16_777_216u64});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    let apps: Vec<Value> = (0..files)
        .map(|i| {
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": bytes, "start_s": 0.1 * i as f64})
        })
        .collect();
    json!({
        "name": "geo", "seed": 3, "duration_s": 600.0, "stop_when_done": true,
        "sample_interval_s": 0.01,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e9, "delay_s": 0.001},
                  {"a": "gw", "b": "client", "rate_bps": rate * 1e6, "delay_s": 0.299,
                   "queue_packets": geo_bdp_packets(rate), "ab": data_loss(loss)}],
        "apps": apps,
        "tcp": t,
    })
}

/// One bandwidth-delay product of `geo`'s bottleneck, in 1500-byte packets.
fn geo_bdp_packets(rate: f64) -> u64 {
    (rate * 1e6 / 8.0 * 0.6 / 1500.0).round() as u64
}

/// Mean download time of a run's transfers; every one must have finished.
fn mean_download_time(r: &RunResult) -> f64 {
    let times: Vec<f64> = r
        .transfers
        .iter()
        .map(|t| t.response_time_s.expect("every download finishes"))
        .collect();
    times.iter().sum::<f64>() / times.len() as f64
}

fn retransmitted(r: &RunResult) -> u64 {
    r.flows
        .iter()
        .map(|f| f.server.retransmitted_segments)
        .sum()
}

/// Issue 29: three 20 MB downloads over a 20 Mb/s GEO path. Hybla, made
/// for this path, downloads at least as fast as NewReno, without loss and
/// with random loss 1e-5, with the RFC's initial ssthresh (64 kB) and with
/// an unbounded one (Linux's): there the paper's slow start, unbounded,
/// took cwnd past 4 GB and no download finished.
#[test]
fn hybla_downloads_at_least_as_fast_as_newreno_on_a_geo_path() {
    for loss in [0.0, 1e-5] {
        for ssthresh in [65_535u64, 1_000_000_000_000] {
            let tcp = json!({"initial_ssthresh": ssthresh});
            let h = run(&geo("hybla", 20.0, loss, 3, 20_000_000, tcp.clone()));
            let n = run(&geo("newreno", 20.0, loss, 3, 20_000_000, tcp));
            let (th, tn) = (mean_download_time(&h), mean_download_time(&n));
            println!(
                "loss {loss:e}, initial ssthresh {ssthresh}: mean download hybla {th:.1} s \
                 ({} segments resent), newreno {tn:.1} s ({} resent)",
                retransmitted(&h),
                retransmitted(&n)
            );
            assert!(th <= tn, "hybla {th} s, newreno {tn} s");
        }
    }
}

/// What bounds Hybla's window on a path that holds P = BDP + B (the pipe
/// and the bottleneck queue). Slow start stops at ssthresh (Linux's clamp),
/// here the RFC's 64 kB; after it, congestion avoidance adds rho^2
/// segments per round trip (Eq. 7: rho^2 / cwnd per ACK, one per segment here),
/// and the first drop, when cwnd passes P, is reported one round trip
/// later: cwnd never exceeds P by more than rho^2 segments (plus the
/// segment that overflowed). After a loss, ssthresh is half the flight,
/// below P + rho^2, and slow start stops there. 20 Mb/s, 600 ms, one long
/// download, without loss and with random loss 1e-5, with and without
/// growth only while cwnd-limited.
#[test]
fn hybla_cwnd_stays_within_the_path_plus_one_round_of_growth() {
    let (rate, mss) = (20.0, 1460.0);
    let bdp_segments = rate * 1e6 / 8.0 * 0.6 / 1500.0;
    let path_segments = bdp_segments + geo_bdp_packets(rate) as f64;
    let rho: f64 = 0.6 / 0.025;
    let bound = (path_segments + rho * rho + 1.0) * mss;
    for loss in [0.0, 1e-5] {
        for validation in [false, true] {
            let tcp = json!({"delayed_ack": false, "cwnd_validation": validation});
            let r = run(&geo("hybla", rate, loss, 1, 200_000_000, tcp));
            let max = *r.flow_series.cwnd.iter().max().unwrap() as f64;
            println!(
                "loss {loss:e}, cwnd validation {validation}: max cwnd {:.0} segments, \
                 path {path_segments:.0} + rho^2 {:.0}; download {:.1} s",
                max / mss,
                rho * rho,
                mean_download_time(&r)
            );
            assert!(max <= bound, "max cwnd {max} B above {bound} B");
            assert!(max > path_segments * mss, "the path was filled");
        }
    }
}

/// BBR converges to the bottleneck rate with about one bandwidth-delay
/// product in flight, and drains the queue its startup built (Cardwell et
/// al. 2016): 10 Mb/s, 100 ms propagation RTT, a deep buffer.
#[test]
fn bbr_fills_the_pipe_and_drains_its_startup_queue() {
    let r = run(&path("bbr", 10.0, 0.05, 0.0, 30.0, json!({})));
    let bdp = 10e6 / 8.0 * 0.1;
    let fs = &r.flow_series;
    let ls = &r.link_series;
    let g = goodput(&r);
    println!(
        "bbr goodput {g:.0} b/s, counters {:?}",
        r.flows[0].variant_counters
    );
    assert!(g > 0.9 * 10e6, "goodput {g}");
    // In flight between 10 s and 30 s: about one BDP (ProbeBW's 1.25 phase
    // adds a quarter for one RTprop in eight).
    let late: Vec<f64> = (0..fs.time_s.len())
        .filter(|&i| fs.time_s[i] >= 10.0)
        .map(|i| fs.flight_size[i] as f64 / bdp)
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    println!("in flight after 10 s: mean {mean:.2} BDP");
    assert!((0.9..=1.4).contains(&mean), "{mean}");
    // The bottleneck queue (gw -> client is link direction 2): large during
    // startup, small once drained.
    let q = |t0: f64, t1: f64| {
        (0..ls.time_s.len())
            .filter(|&i| ls.link[i] == 2 && ls.time_s[i] >= t0 && ls.time_s[i] < t1)
            .map(|i| ls.queue_packets[i])
            .max()
            .unwrap_or(0)
    };
    let (startup, cruise) = (q(0.0, 2.0), q(10.0, 30.0));
    println!("queue: startup max {startup} packets, after 10 s max {cruise}");
    assert!(startup > 20, "startup builds a queue");
    assert!((cruise as f64) < 0.35 * bdp / 1500.0 + 3.0, "{cruise}");
    // RTprop and BtlBw as the model holds them.
    let c = &r.flows[0].variant_counters;
    let bw = c["btl_bw_bps"] as f64;
    assert!((0.9e7..=1.1e7).contains(&bw), "{bw}");
    let rtprop = c["rtprop_us"] as f64 / 1e6;
    assert!((0.1..0.12).contains(&rtprop), "{rtprop}");
}

/// The ProbeRTT entries of a BBR run (`cc_phase` 4), seconds.
fn probe_rtt_entries(r: &RunResult) -> Vec<f64> {
    let fs = &r.flow_series;
    (1..fs.cc_phase.len())
        .filter(|&i| fs.cc_phase[i] == 4 && fs.cc_phase[i - 1] != 4)
        .map(|i| fs.time_s[i])
        .collect()
}

/// BBR's min-RTT filter (tcp_bbr.c `bbr_update_min_rtt`): only a sample
/// strictly below RTprop refreshes it, so on a steady path it expires
/// every 10 s and BBR enters ProbeRTT, every 10 s plus the ProbeRTT itself
/// (200 ms and a round trip at 4 segments). Issue 29 saw satcp's BBR enter
/// it twice in 25 s and never again on this path: with the linux
/// profile's timestamps the samples come from the 1 ms timestamp clock,
/// equal samples are common, and an equal sample refreshed RTprop (Linux
/// before 5.10, commit 1b9e2a8c99a5). 20 Mb/s, 600 ms, 60 s.
#[test]
fn bbr_probes_rtt_every_ten_seconds() {
    let tcp = json!({"profile": "linux", "delayed_ack": true});
    let r = run(&path("bbr", 20.0, 0.299, 0.0, 60.0, tcp));
    let entries = probe_rtt_entries(&r);
    println!("ProbeRTT entered at {entries:?} s");
    assert!(entries.len() >= 5, "{entries:?}");
    for w in entries.windows(2) {
        assert!((10.0..12.5).contains(&(w[1] - w[0])), "{entries:?}");
    }
}

/// BBR v1 does not take a random loss for congestion: its model keeps
/// BtlBw, recovery conserves packets for a round trip and then restores
/// cwnd (`bbr_set_cwnd_to_recover_or_restore`), and PRR, which Linux
/// does not run for a congestion control with its own `cong_control`,
/// stays out. 1 % random loss on the 20 Mb/s, 600 ms path costs it little.
#[test]
fn bbr_keeps_its_rate_under_random_loss() {
    let tcp = json!({"profile": "linux", "delayed_ack": true});
    let clean = run(&path("bbr", 20.0, 0.299, 0.0, 60.0, tcp.clone()));
    let lossy = run(&path("bbr", 20.0, 0.299, 0.01, 60.0, tcp));
    let (g0, g1) = (goodput(&clean), goodput(&lossy));
    println!(
        "bbr goodput: {g0:.0} b/s without loss, {g1:.0} b/s with 1 % loss ({} resent, {} timeouts)",
        lossy.flows[0].server.retransmitted_segments, lossy.flows[0].server.timeouts
    );
    assert!(g1 > 0.85 * g0, "{g1} vs {g0}");
}
