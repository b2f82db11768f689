//! CUBIC, TCP Hybla and TCP Westwood+ end to end, each against what its
//! source says it does (unit tests of the formulas live with each module).

use satcp_core::RunResult;
use serde_json::{json, Value};

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
                   "queue_packets": 3000, "ab": {"errors": {"loss": loss, "data_only": true}}}],
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
