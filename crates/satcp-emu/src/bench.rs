//! `satcp-emu --bench-model`: the relay's model alone (no sockets, no
//! sleeping), full-size frames through one 10 Gb/s link of 20 ms as fast
//! as it takes them: its cost per packet, the ceiling of the relay's
//! forwarding rate on one core (`make bench-emu` measures the rest:
//! the sockets and the real clock).

use crate::relay::{Host, Relay};
use satcp_core::engine::SimTime;
use std::time::Instant;

const PACKETS: u64 = 1_000_000;
const CLIENT: [u8; 4] = [198, 18, 0, 1];
const SERVER: [u8; 4] = [198, 18, 0, 2];

/// A 1,514-byte Ethernet frame: 1,500 bytes of IPv4 (UDP) to the server.
fn frame() -> Vec<u8> {
    let mut f = vec![0u8; 1514];
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip = &mut f[14..];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&1500u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&CLIENT);
    ip[16..20].copy_from_slice(&SERVER);
    f
}

pub fn main() -> i32 {
    let s = serde_json::json!({
        "nodes": ["client", "server"],
        "links": [{"a": "client", "b": "server", "rate_bps": 10e9, "delay_s": 0.02,
                   "queue_packets": 100_000}],
        "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": 1}],
    });
    let scenario = satcp_core::parse(&s.to_string()).expect("a valid scenario");
    let hosts = vec![
        Host {
            node: "client".into(),
            ip: CLIENT,
        },
        Host {
            node: "server".into(),
            ip: SERVER,
        },
    ];
    let mut relay = Relay::new(&scenario, hosts);
    let template = frame();
    let mut out = Vec::new();
    let mut delivered = 0u64;
    let start = Instant::now();
    for i in 0..PACKETS {
        // One every 1.2 us: the link's pace, so that its queue stays short.
        let now = SimTime(i * 1_200);
        relay.receive(0, template.clone(), now, &mut out);
        delivered += out.len() as u64;
        out.clear();
    }
    relay.advance(SimTime::NEVER, &mut out);
    delivered += out.len() as u64;
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(delivered, PACKETS);
    println!(
        "{{\"packets\": {PACKETS}, \"ns_per_packet\": {:.1}, \"packets_per_s\": {:.0}}}",
        secs * 1e9 / PACKETS as f64,
        PACKETS as f64 / secs
    );
    0
}
