//! satcp-emu: the relay of `satcp emulate` (docs/emulation.md). It runs
//! in the emulation's relay namespace, reads the frames of every end host
//! from its end of the host's veth pair, carries them through the
//! scenario's links in real time (`relay::Relay`, the simulator's link
//! and queue models) and writes them to the destination host's pair.
//!
//!     satcp-emu CONFIG.json
//!     satcp-emu --bench-model     (the model's cost per packet: bench.rs)
//!
//! The controller writes CONFIG.json (`config::RelayConfig`). The relay
//! prints `ready` once its sockets are open (the clock's time zero), runs
//! until SIGTERM, SIGINT, its parent's death or `max_seconds`, then writes
//! the summary file (JSON) and exits 0. A bad configuration: one line on
//! stderr, exit 2.

mod bench;
mod config;
mod frame;
mod lateness;
mod relay;

#[cfg(target_os = "linux")]
mod capture;
#[cfg(target_os = "linux")]
mod os;
#[cfg(target_os = "linux")]
mod run;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--bench-model") {
        std::process::exit(bench::main());
    }
    std::process::exit(emulate());
}

#[cfg(target_os = "linux")]
fn emulate() -> i32 {
    run::main()
}

#[cfg(not(target_os = "linux"))]
fn emulate() -> i32 {
    eprintln!("satcp-emu: emulation needs Linux (network namespaces and packet sockets)");
    2
}
