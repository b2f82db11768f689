//! What the controller (`satcp emulate`, python/satcp/emulate.py) tells
//! the relay, as one JSON file: the scenario, the hosts and the relay's
//! interface to each, the captures to write and where the summary goes.

use crate::relay::Host;
use serde::Deserialize;
use std::net::Ipv4Addr;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayConfig {
    /// The scenario, as the core's parser takes it.
    pub scenario: serde_json::Value,
    pub hosts: Vec<HostConfig>,
    #[serde(default)]
    pub pcap: Vec<PcapConfig>,
    /// Where the summary (JSON) is written when the relay ends.
    pub summary: String,
    /// The relay ends by itself after this many seconds.
    pub max_seconds: f64,
    /// Interval of the link time series, seconds (0: none).
    #[serde(default)]
    pub sample_interval_s: f64,
    /// Run under SCHED_FIFO (`os::realtime_priority`).
    #[serde(default = "yes")]
    pub realtime: bool,
    /// The last stretch before a deadline waited for by polling rather
    /// than sleeping, microseconds (`run::Emulation::run`).
    #[serde(default = "default_spin_us")]
    pub spin_us: u64,
    /// The packet sockets' buffers, bytes each way.
    #[serde(default = "default_buffer")]
    pub socket_buffer_bytes: usize,
}

fn yes() -> bool {
    true
}

fn default_spin_us() -> u64 {
    30
}

fn default_buffer() -> usize {
    8 << 20
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub node: String,
    pub ip: Ipv4Addr,
    /// The relay's end of the host's veth pair.
    pub ifname: String,
}

impl HostConfig {
    pub fn host(&self) -> Host {
        Host {
            node: self.node.clone(),
            ip: self.ip.octets(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapConfig {
    pub link: String,
    pub dir: String,
    pub path: String,
}
