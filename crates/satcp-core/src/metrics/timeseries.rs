//! Time series sampled at a fixed interval, stored column-wise so they turn
//! into data frames without copying row by row.
//!
//! Flow rows follow the data direction of the shipped applications
//! (server -> client): sender variables come from the server endpoint,
//! receiver variables from the client endpoint.

use crate::net::link::Link;
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSeries {
    pub time_s: Vec<f64>,
    pub conn: Vec<u32>,
    pub cwnd: Vec<u64>,
    /// The variant's phase label (`CongestionControl::trace_phase`).
    pub cc_phase: Vec<i32>,
    pub ssthresh: Vec<u64>,
    pub flight_size: Vec<u64>,
    pub pipe: Vec<u64>,
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    pub snd_una: Vec<u64>,
    /// Highest sequence number sent plus one.
    pub snd_max: Vec<u64>,
    /// Segments the server has retransmitted so far (sequence plots mark
    /// the samples where it grows).
    pub retransmitted_segments: Vec<u64>,
    /// Next sequence number the client expects: the "received segment
    /// sequence number" of the thesis's goodput figures.
    pub rcv_nxt: Vec<u64>,
    pub bytes_delivered: Vec<u64>,
    pub payload_bytes_received: Vec<u64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSeries {
    pub time_s: Vec<f64>,
    pub link: Vec<u32>,
    /// Cumulative bytes correctly received at the far end.
    pub rx_bytes: Vec<u64>,
    /// Over the last interval, bits per second.
    pub throughput_bps: Vec<f64>,
    pub utilization: Vec<f64>,
    pub queue_packets: Vec<u64>,
}

impl LinkSeries {
    /// One sample of every link direction at `t` seconds: the bytes
    /// received since the last sample (`last_rx`, updated) over `dt`
    /// seconds. The simulator and the emulation relay sample alike.
    pub fn sample(&mut self, t: f64, dt: f64, links: &[Link], last_rx: &mut [u64]) {
        for (i, l) in links.iter().enumerate() {
            let rx = l.stats().rx_bytes;
            let bps = (rx - last_rx[i]) as f64 * 8.0 / dt;
            last_rx[i] = rx;
            self.time_s.push(t);
            self.link.push(i as u32);
            self.rx_bytes.push(rx);
            self.throughput_bps.push(bps);
            self.utilization.push(bps / l.rate_bps() as f64);
            self.queue_packets.push(l.queue_packets() as u64);
        }
    }
}
