//! `make bench`'s table: per scenario (`common/mod.rs`), wall time, simulated
//! events, events per second, ns per event and the peak resident memory of
//! a process that runs only that scenario (each scenario runs in a child
//! process of this one, so that the peaks do not mix; the peak is reset
//! after the scenario is parsed, so it is that of the run, which includes
//! the parsed scenario).
//!
//!   summary                  every scenario, best of `SATCP_BENCH_REPEAT`
//!                            runs (default 3) for the times
//!   summary --one NAME [N]   run NAME N times in this process, print one
//!                            line: name, events, best wall s, peak RSS kB
//!                            of the runs, RSS kB before them (the parsed
//!                            scenario)
//!   summary --json NAME      print NAME's results JSON (to compare outputs)
//!   summary --train          run the profile-guided optimisation's training
//!                            workload (`tools/pgo.sh bench`), not a benchmark

use std::process::Command;
use std::time::Instant;

mod common;

/// What satcp's programs allocate with (`huge_page_alloc.rs`): measured as
/// users run it.
#[global_allocator]
static ALLOC: satcp_core::HugePageAlloc = satcp_core::HugePageAlloc;

/// A field of /proc/self/status in kB (Linux): VmHWM is the peak resident
/// set size, VmRSS the current one.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak resident set size to the current one (Linux >= 4.0), so
/// that the peak measured after a run is that of the run, not of parsing
/// the scenario (the JSON text of 10,000 applications is larger than what
/// the run keeps of it).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The bench scenario `name`; an unknown name ends the process with a
/// one-line error naming the known ones (exit status 2), as the CLI does
/// with bad input.
fn scenario(name: &str) -> satcp_core::Scenario {
    let all = common::with_scale_points();
    let Some((_, make)) = all.iter().find(|(n, _)| *n == name) else {
        let known: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "summary: no bench scenario {name:?} (known: {})",
            known.join(", ")
        );
        std::process::exit(2);
    };
    satcp_core::parse(&make().to_string()).expect("valid bench scenario")
}

fn run_one(name: &str, repeat: usize) {
    let s = scenario(name);
    let parsed_kb = status_kb("VmRSS:").unwrap_or(0);
    reset_peak_rss();
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..repeat.max(1) {
        let t0 = Instant::now();
        let r = satcp_core::run(&s);
        best = best.min(t0.elapsed().as_secs_f64());
        events = r.events;
    }
    println!(
        "{name} {events} {best} {} {parsed_kb}",
        status_kb("VmHWM:").unwrap_or(0)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--one") => {
            let repeat = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
            return run_one(args.get(1).map_or("", String::as_str), repeat);
        }
        Some("--train") => {
            let events = satcp_core::pgo_training::run_all();
            println!("pgo training: {events} events");
            return;
        }
        Some("--json") => {
            let r = satcp_core::run(&scenario(args.get(1).map_or("", String::as_str)));
            println!("{}", serde_json::to_string(&r).expect("serializable"));
            return;
        }
        _ => {}
    }
    let repeat: usize = std::env::var("SATCP_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let exe = std::env::current_exe().expect("own path");
    println!(
        "{:<22} {:>10} {:>12} {:>10} {:>9} {:>10} {:>10}",
        "scenario", "wall ms", "events", "M ev/s", "ns/event", "peak MB", "input MB"
    );
    println!(
        "(best of {repeat} runs; peak MB: resident memory of a process running only \
         that scenario, from after parsing it; input MB: resident before the run)"
    );
    for (name, _) in common::with_scale_points() {
        let out = Command::new(&exe)
            .args(["--one", name, &repeat.to_string()])
            .output()
            .expect("run a scenario in a child process");
        assert!(out.status.success(), "{name} failed");
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<&str> = line.split_whitespace().collect();
        let events: u64 = f[1].parse().expect("events");
        let wall: f64 = f[2].parse().expect("wall");
        let rss_kb: f64 = f[3].parse().expect("rss");
        let input_kb: f64 = f[4].parse().expect("rss before the run");
        println!(
            "{:<22} {:>10.1} {:>12} {:>10.2} {:>9.1} {:>10.1} {:>10.1}",
            name,
            wall * 1e3,
            events,
            events as f64 / wall / 1e6,
            wall * 1e9 / events as f64,
            rss_kb / 1024.0,
            input_kb / 1024.0
        );
    }
}
