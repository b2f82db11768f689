//! The relay's real-time loop: wait for a frame or the next deadline,
//! run the model up to now, write what is due; at the end, the summary.

use crate::capture::FrameCapture;
use crate::config::RelayConfig;
use crate::os::{self, PacketSocket, RealClock};
use crate::relay::{Departure, Relay};
use satcp_core::engine::{Duration, SimTime};
use satcp_core::net::packet::LinkId;
use serde_json::{json, Value};

/// Exit code of a bad configuration, as the rest of satcp's.
const EXIT_BAD_INPUT: i32 = 2;
/// The longest wait without looking at the stop flag.
const MAX_WAIT: Duration = Duration(100_000_000);
/// Frames read from one socket before the others get their turn.
const READ_BATCH: usize = 64;

pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    let [_, path] = &args[..] else {
        eprintln!("usage: satcp-emu CONFIG.json");
        return EXIT_BAD_INPUT;
    };
    match setup(path) {
        Ok(s) => match s.run() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("satcp-emu: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("satcp-emu: {e}");
            EXIT_BAD_INPUT
        }
    }
}

struct Emulation {
    relay: Relay,
    sockets: Vec<PacketSocket>,
    captures: Vec<(LinkId, String, FrameCapture)>,
    config: RelayConfig,
}

fn setup(path: &str) -> Result<Emulation, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let config: RelayConfig = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let scenario = satcp_core::parse(&config.scenario.to_string()).map_err(|e| e.to_string())?;
    for h in &config.hosts {
        if !scenario.nodes.contains(&h.node) {
            return Err(format!("hosts: {} is no node of the scenario", h.node));
        }
    }
    let mut relay = Relay::new(&scenario, config.hosts.iter().map(|h| h.host()).collect());
    os::install_stop_handlers();
    let sockets = config
        .hosts
        .iter()
        .map(|h| PacketSocket::open(&h.ifname, config.socket_buffer_bytes))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if config.sample_interval_s > 0.0 {
        relay.set_sampling(Duration::from_secs_f64(config.sample_interval_s));
    }
    let mut captures = Vec::new();
    for p in &config.pcap {
        let l = relay
            .link_id(&p.link, &p.dir)
            .ok_or_else(|| format!("pcap: no link direction {}:{}", p.link, p.dir))?;
        relay.tap(l);
        let c = FrameCapture::create(&p.path).map_err(|e| format!("{}: {e}", p.path))?;
        captures.push((l, p.path.clone(), c));
    }
    Ok(Emulation {
        relay,
        sockets,
        captures,
        config,
    })
}

impl Emulation {
    fn run(mut self) -> Result<(), String> {
        let fds: Vec<libc::c_int> = self.sockets.iter().map(PacketSocket::fd).collect();
        let end = SimTime::from_secs_f64(self.config.max_seconds);
        let mut out: Vec<Departure> = Vec::new();
        let mut ready = Vec::new();
        let mut buf = vec![0u8; 65_536];
        let mut send_failures = 0u64;
        let mut io_error = None;
        // The last stretch before a deadline is waited for by polling, not
        // sleeping: a sleep's wake-up is late by tens of microseconds. Not
        // longer: at high packet rates deadlines are that close together,
        // and a relay that polls all the time starves the hosts' programs
        // (and, under SCHED_FIFO, meets the kernel's real-time throttling).
        let spin = Duration(self.config.spin_us * 1_000);
        let realtime = self.config.realtime && os::realtime_priority();
        // The clock starts now: a schedule's time zero.
        let clock = RealClock::start();
        for (_, _, c) in &mut self.captures {
            c.wall_origin_ns = clock.wall_origin_ns;
        }
        println!("ready");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        while !os::stop_requested() {
            let now = clock.now();
            if now >= end {
                break;
            }
            self.relay.advance(now, &mut out);
            send_failures += self.send(&mut out);
            self.capture()?;
            let wait = match self.relay.next_deadline() {
                Some(t) if t.0 <= now.0 + spin.0 => Duration::ZERO,
                Some(t) => Duration(t.0 - now.0 - spin.0).min(MAX_WAIT),
                None => MAX_WAIT,
            };
            if let Err(e) = os::wait(&fds, Some(wait), &mut ready) {
                io_error = Some(e.to_string());
                break;
            }
            for &i in &ready {
                for _ in 0..READ_BATCH {
                    match self.sockets[i].recv(&mut buf) {
                        Ok(Some((n, at))) => {
                            let frame = buf[..n.min(buf.len())].to_vec();
                            let now = clock.now();
                            let at = at.map_or(now, |wall| clock.at_wall(wall, now));
                            self.relay.receive(i, frame, at, &mut out);
                        }
                        Ok(None) => break,
                        Err(e) => {
                            io_error = Some(e.to_string());
                            break;
                        }
                    }
                }
            }
            send_failures += self.send(&mut out);
        }
        let elapsed = clock.now();
        self.capture()?;
        let mut pcaps = Vec::new();
        for (_, path, c) in self.captures.drain(..) {
            let packets = c.packets;
            c.finish().map_err(|e| format!("{path}: {e}"))?;
            pcaps.push(json!({"path": path, "packets": packets}));
        }
        let socket_drops: u64 = self.sockets.iter().map(PacketSocket::drops).sum();
        let mut summary = summary(&self.relay, elapsed, socket_drops, send_failures, pcaps);
        summary["relay"]["realtime_priority"] = json!(realtime);
        write_atomically(&self.config.summary, &summary.to_string())?;
        match io_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Writes the frames due; how many the kernel had no room for.
    fn send(&mut self, out: &mut Vec<Departure>) -> u64 {
        let mut failed = 0;
        for d in out.drain(..) {
            if !matches!(self.sockets[d.port].send(&d.frame), Ok(true)) {
                failed += 1;
            }
        }
        failed
    }

    fn capture(&mut self) -> Result<(), String> {
        for t in self.relay.transmissions.drain(..) {
            if let Some((_, path, c)) = self.captures.iter_mut().find(|(l, _, _)| *l == t.link) {
                c.write(t.at, &t.frame)
                    .map_err(|e| format!("{path}: {e}"))?;
            }
        }
        Ok(())
    }
}

/// What the relay did: per link direction the simulator's link
/// statistics, and the relay's own counts and timing.
fn summary(
    relay: &Relay,
    elapsed: SimTime,
    socket_drops: u64,
    send_failures: u64,
    pcaps: Vec<Value>,
) -> Value {
    let links: Vec<Value> = relay
        .link_stats()
        .into_iter()
        .map(|(name, dir, stats)| {
            let mut v = json!({"link": name, "dir": dir});
            if let (Value::Object(m), Value::Object(s)) =
                (&mut v, serde_json::to_value(stats).expect("plain numbers"))
            {
                m.extend(s);
            }
            v
        })
        .collect();
    let late = relay.lateness();
    let mut counts = serde_json::to_value(relay.counts()).expect("plain numbers");
    if let Value::Object(m) = &mut counts {
        m.insert("socket_drops".into(), json!(socket_drops));
        m.insert("send_failures".into(), json!(send_failures));
        m.insert("lateness_samples".into(), json!(late.count()));
        m.insert(
            "lateness_p50_s".into(),
            json!(late.quantile(0.5).as_secs_f64()),
        );
        m.insert(
            "lateness_p99_s".into(),
            json!(late.quantile(0.99).as_secs_f64()),
        );
        m.insert("lateness_max_s".into(), json!(late.max().as_secs_f64()));
    }
    json!({
        "elapsed_s": elapsed.as_secs_f64(),
        "hosts": relay.hosts().iter().map(|h| json!({"node": h.node, "ip": std::net::Ipv4Addr::from(h.ip).to_string()})).collect::<Vec<_>>(),
        "links": links,
        "link_series": relay.link_series(),
        "relay": counts,
        "pcap": pcaps,
    })
}

fn write_atomically(path: &str, text: &str) -> Result<(), String> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("{path}: {e}"))
}
