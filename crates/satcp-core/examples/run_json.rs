//! Runs a scenario given as a JSON file and prints the results' summary:
//! `cargo run --release --example run_json -- scenario.json`.

use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_json SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let s = match satcp_core::parse(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let r = satcp_core::run(&s);
    let wall = t0.elapsed().as_secs_f64();
    for t in &r.transfers {
        println!(
            "{} #{}: response time {:?} s",
            t.kind, t.index, t.response_time_s
        );
    }
    for f in &r.flows {
        println!(
            "conn {} {}: goodput {:.0} b/s, rtx {} fr {} to {} cwnd {} state {}",
            f.conn,
            f.variant,
            f.goodput_bps,
            f.server.retransmitted_segments,
            f.server.fast_retransmits,
            f.server.timeouts,
            f.final_cwnd,
            f.state
        );
    }
    println!(
        "end {:.3} s, {} events, wall {:.3} s, {:.1} M events/s",
        r.end_time_s,
        r.events,
        wall,
        r.events as f64 / wall / 1e6
    );
}
