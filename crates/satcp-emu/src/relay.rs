//! The relay's model: the scenario's link directions, built by the same
//! code as the simulator's (`Link::new`), driven by a clock the caller
//! passes in instead of the simulator's event list. Real frames enter at
//! a host's port (`receive`), cross the links of the route to the
//! destination host (queues, rates, delays and their schedules, losses,
//! ARQ) and leave as frames due at a port (`advance`).
//!
//! Events run at the times the models gave them, whatever the real time
//! when the caller gets to them: a relay that wakes up late hands packets
//! over late (`Lateness` measures it) but does not shift the model's
//! timeline, so a link's rate and delays hold exactly on average. Nothing
//! here reads a clock or touches the OS: a test drives it with made-up
//! times.

use crate::frame::{self, FrameInfo};
use crate::lateness::Lateness;
use satcp_core::engine::{Duration, SimTime};
use satcp_core::metrics::timeseries::LinkSeries;
use satcp_core::net::link::{Link, LinkStats, Outcome};
use satcp_core::net::link_config::Streams;
use satcp_core::net::packet::{Ecn, LinkId, NodeId, Packet, PacketId, PacketPool, TcpHeader};
use satcp_core::net::router::DropCause;
use satcp_core::net::topology::RoutingTable;
use satcp_core::Scenario;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An end host attached to the relay: its node in the scenario and the
/// IPv4 address it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub node: String,
    pub ip: [u8; 4],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Link `l`'s transmission ends.
    TxDone(LinkId),
    /// Packet `p` reaches the far end of link `l`.
    Arrive(LinkId, PacketId),
    /// Link `l`'s link-level ARQ NAK is back.
    ArqNak(LinkId),
    /// Time for the link time series' next sample.
    Sample,
}

/// Frames the relay did not carry through the links, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RelayCounts {
    /// Frames read from the hosts.
    pub frames_in: u64,
    /// Frames handed to the hosts.
    pub frames_out: u64,
    /// Not IPv4 (the hosts' neighbours are static; IPv6 is off).
    pub not_ipv4: u64,
    /// To an address no host of this emulation has.
    pub unroutable: u64,
}

/// A frame due at a host: its port (index in the hosts list) and bytes.
pub struct Departure {
    pub port: usize,
    pub frame: Vec<u8>,
}

/// One link direction's copy of what it sent, for a capture: the frame
/// and when its first bit left.
pub struct Transmission {
    pub link: LinkId,
    pub at: SimTime,
    pub frame: Vec<u8>,
}

pub struct Relay {
    links: Vec<Link>,
    link_names: Vec<(String, &'static str)>,
    routes: RoutingTable,
    pool: PacketPool,
    /// The frame of each packet in the pool, by its id (empty when free).
    frames: Vec<Vec<u8>>,
    events: BinaryHeap<Reverse<(SimTime, u64, Event)>>,
    next_rank: u64,
    dropped: Vec<(PacketId, DropCause)>,
    hosts: Vec<Host>,
    host_nodes: Vec<NodeId>,
    /// The time of the last event run or frame received: the model's now.
    now: SimTime,
    counts: RelayCounts,
    lateness: Lateness,
    /// Link directions whose transmissions are copied into `transmissions`.
    tapped: Vec<bool>,
    pub transmissions: Vec<Transmission>,
    /// The link time series, sampled every `sample_interval` (as the
    /// simulator's), and each direction's bytes received at the last sample.
    sample_interval: Option<Duration>,
    link_series: LinkSeries,
    last_rx: Vec<u64>,
}

impl Relay {
    /// The relay for `scenario`'s links, with `hosts` at their nodes (each
    /// a node of the scenario, checked by the caller).
    pub fn new(scenario: &Scenario, hosts: Vec<Host>) -> Relay {
        let node_id = |name: &str| {
            scenario
                .nodes
                .iter()
                .position(|n| n == name)
                .unwrap_or_else(|| panic!("host {name} is no node of the scenario"))
                as NodeId
        };
        let mut links = Vec::new();
        let mut link_names = Vec::new();
        for (i, l) in scenario.links.iter().enumerate() {
            let base = satcp_core::scenario::build::link_name(scenario, i);
            for (dir, d, from, to) in [("ab", &l.ab, &l.a, &l.b), ("ba", &l.ba, &l.b, &l.a)] {
                let streams = Streams {
                    seed: scenario.seed,
                    link: &base,
                    dir,
                };
                let id = links.len() as LinkId;
                links.push(Link::new(id, node_id(from), node_id(to), d, &streams));
                link_names.push((base.clone(), dir));
            }
        }
        let ends: Vec<(NodeId, NodeId)> = links.iter().map(|l| (l.from(), l.to())).collect();
        let routes = RoutingTable::shortest_paths(scenario.nodes.len(), &ends);
        let host_nodes = hosts.iter().map(|h| node_id(&h.node)).collect();
        let tapped = vec![false; links.len()];
        Relay {
            links,
            link_names,
            routes,
            pool: PacketPool::default(),
            frames: Vec::new(),
            events: BinaryHeap::new(),
            next_rank: 0,
            dropped: Vec::new(),
            hosts,
            host_nodes,
            now: SimTime::ZERO,
            counts: RelayCounts::default(),
            lateness: Lateness::default(),
            last_rx: vec![0; tapped.len()],
            tapped,
            transmissions: Vec::new(),
            sample_interval: None,
            link_series: LinkSeries::default(),
        }
    }

    /// Samples the link time series every `interval` from now on.
    pub fn set_sampling(&mut self, interval: Duration) {
        self.sample_interval = Some(interval);
        self.schedule(self.now + interval, Event::Sample);
    }

    pub fn link_series(&self) -> &LinkSeries {
        &self.link_series
    }

    /// One sample of every link direction, as the simulator's `on_sample`.
    fn sample(&mut self) {
        let interval = self.sample_interval.expect("sampling set");
        let dt = interval.as_secs_f64();
        let t = self.now.as_secs_f64();
        self.link_series
            .sample(t, dt, &self.links, &mut self.last_rx);
        self.schedule(self.now + interval, Event::Sample);
    }

    /// The link direction named `link` and `dir` ("ab" or "ba").
    pub fn link_id(&self, link: &str, dir: &str) -> Option<LinkId> {
        self.link_names
            .iter()
            .position(|(n, d)| n == link && *d == dir)
            .map(|i| i as LinkId)
    }

    /// Copies what link direction `l` sends into `transmissions`.
    pub fn tap(&mut self, l: LinkId) {
        self.tapped[l as usize] = true;
    }

    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// When the next event is due; None when nothing is in flight.
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.events.peek().map(|Reverse((t, _, _))| *t)
    }

    /// A frame that came from the host at `port` at time `now`: after the
    /// events due by then, it enters the first link of its route. A time
    /// before the model's now (the kernel's receive time of a frame read
    /// after the relay ran later events) counts as the model's now.
    pub fn receive(&mut self, port: usize, frame: Vec<u8>, now: SimTime, out: &mut Vec<Departure>) {
        self.advance(now, out);
        self.counts.frames_in += 1;
        let Some(info) = frame::parse(&frame) else {
            self.counts.not_ipv4 += 1;
            return;
        };
        let Some(to) = self.hosts.iter().position(|h| h.ip == info.dst_ip) else {
            self.counts.unroutable += 1;
            return;
        };
        if to == port {
            self.counts.unroutable += 1;
            return;
        }
        let p = self.pool.alloc(packet(
            &info,
            self.host_nodes[port],
            self.host_nodes[to],
            self.now,
        ));
        self.store_frame(p, frame);
        let src = self.host_nodes[port];
        self.at_node(src, p, out);
    }

    /// Runs every event due by `now`, each at its own time; the frames
    /// that reach a host go into `out`, and how late they are (`now`
    /// against the time they were due) into the lateness statistics.
    pub fn advance(&mut self, now: SimTime, out: &mut Vec<Departure>) {
        while let Some(&Reverse((t, _, ev))) = self.events.peek() {
            if t > now {
                break;
            }
            self.events.pop();
            self.now = t;
            let before = out.len();
            match ev {
                Event::TxDone(l) => self.on_tx_done(l),
                Event::Arrive(l, p) => {
                    let node = self.links[l as usize].arrived(self.pool.get(p));
                    self.at_node(node, p, out);
                }
                Event::ArqNak(l) => {
                    self.links[l as usize].on_arq_nak();
                    self.start_link(l);
                }
                Event::Sample => self.sample(),
            }
            for _ in before..out.len() {
                self.lateness.record(Duration(now.0 - t.0));
            }
        }
        self.now = self.now.max(now);
    }

    fn schedule(&mut self, at: SimTime, ev: Event) {
        self.next_rank += 1;
        self.events.push(Reverse((at, self.next_rank, ev)));
    }

    fn store_frame(&mut self, p: PacketId, frame: Vec<u8>) {
        let i = p as usize;
        if self.frames.len() <= i {
            self.frames.resize_with(i + 1, Vec::new);
        }
        self.frames[i] = frame;
    }

    fn release(&mut self, p: PacketId) {
        self.frames[p as usize] = Vec::new();
        self.pool.release(p);
    }

    /// Packet `p` is at `node`: handed to its host there, or sent on
    /// the next link of its route.
    fn at_node(&mut self, node: NodeId, p: PacketId, out: &mut Vec<Departure>) {
        let dst = self.pool.get(p).dst;
        if node == dst {
            let port = self
                .host_nodes
                .iter()
                .position(|&n| n == dst)
                .expect("a host");
            let mut frame = std::mem::take(&mut self.frames[p as usize]);
            if self.pool.get(p).ecn == Ecn::Ce
                && frame::parse(&frame).is_some_and(|i| i.ecn != Ecn::Ce)
            {
                frame::mark_ce(&mut frame);
            }
            self.pool.release(p);
            self.counts.frames_out += 1;
            out.push(Departure { port, frame });
            return;
        }
        let Some(l) = self.routes.next_hop(node, dst) else {
            self.counts.unroutable += 1;
            self.release(p);
            return;
        };
        let now = self.now;
        if let Some(done) = self.links[l as usize].offer_to_idle(p, &self.pool, now) {
            self.began(l, p);
            self.schedule(done, Event::TxDone(l));
            return;
        }
        self.links[l as usize].offer(p, &mut self.pool, now, &mut self.dropped);
        self.release_dropped();
        self.start_link(l);
    }

    fn release_dropped(&mut self) {
        while let Some((d, _)) = self.dropped.pop() {
            self.release(d);
        }
    }

    fn start_link(&mut self, l: LinkId) {
        let now = self.now;
        let next = self.links[l as usize].start_next(&mut self.pool, now, &mut self.dropped);
        self.release_dropped();
        if let Some(done) = next {
            let p = self.links[l as usize]
                .in_service()
                .expect("a packet in service");
            self.began(l, p);
            self.schedule(done, Event::TxDone(l));
        }
    }

    /// Packet `p`'s first bit leaves on link `l` now.
    fn began(&mut self, l: LinkId, p: PacketId) {
        if self.tapped[l as usize] {
            self.transmissions.push(Transmission {
                link: l,
                at: self.now,
                frame: self.frames[p as usize].clone(),
            });
        }
    }

    /// The link decides what becomes of the packet it has sent; this
    /// schedules it, as the simulator's `on_tx_done` does.
    fn on_tx_done(&mut self, l: LinkId) {
        let now = self.now;
        let (p, outcome) = self.links[l as usize].end_transmission(&self.pool, now);
        match outcome {
            Outcome::Deliver {
                at,
                extra_delay,
                duplicate,
            } => {
                if duplicate {
                    let copy = self.pool.alloc(self.pool.get(p).clone());
                    let frame = self.frames[p as usize].clone();
                    self.store_frame(copy, frame);
                    self.schedule(at, Event::Arrive(l, copy));
                }
                self.schedule(at + extra_delay, Event::Arrive(l, p));
            }
            // The next node would discard it on arrival: nothing of it
            // reaches a host.
            Outcome::DeliverCorrupted { .. } | Outcome::Drop(_) => self.release(p),
            Outcome::Resend { nak_at } => self.schedule(nak_at, Event::ArqNak(l)),
        }
        self.start_link(l);
    }

    /// Each link direction: its name, direction, statistics and queue now.
    pub fn link_stats(&self) -> Vec<(String, &'static str, LinkStats)> {
        self.links
            .iter()
            .zip(&self.link_names)
            .map(|(l, (n, d))| (n.clone(), *d, l.stats()))
            .collect()
    }

    pub fn counts(&self) -> RelayCounts {
        self.counts
    }

    pub fn lateness(&self) -> &Lateness {
        &self.lateness
    }
}

/// The packet the models see for a frame from node `src` to node `dst`.
fn packet(info: &FrameInfo, src: NodeId, dst: NodeId, now: SimTime) -> Packet {
    Packet {
        src,
        dst,
        endpoint: 0,
        size: info.ip_len,
        ecn: info.ecn,
        tcp: TcpHeader {
            seq: info.tcp_seq as u64,
            len: info.tcp_payload,
            flags: info.tcp_flags,
            ..Default::default()
        },
        created: now,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::tests::tcp_frame;
    use serde_json::json;

    const CLIENT: [u8; 4] = [198, 18, 0, 1];
    const SERVER: [u8; 4] = [198, 18, 0, 2];
    const MS: u64 = 1_000_000;

    /// A relay for the scenario with `links` between nodes client, gw and
    /// server; hosts client (port 0) and server (port 1).
    fn relay(links: serde_json::Value) -> Relay {
        let s = json!({"nodes": ["client", "gw", "server"], "links": links,
            "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": 1}]});
        let scenario = satcp_core::parse(&s.to_string()).unwrap();
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
        Relay::new(&scenario, hosts)
    }

    /// One link client-server of 12 Mb/s (1 ms per 1,500-byte packet) and
    /// 100 ms, with `extra` settings.
    fn one_link(extra: serde_json::Value) -> Relay {
        let mut l = json!({"a": "client", "b": "server", "rate_bps": 12e6, "delay_s": 0.1});
        l.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        relay(json!([l]))
    }

    fn segment(seq: u32) -> Vec<u8> {
        tcp_frame(CLIENT, SERVER, seq, 1448, 0)
    }

    /// The frames out of `r` at each of `times` (ms), as (time, seq).
    fn departures(r: &mut Relay, times: impl IntoIterator<Item = u64>) -> Vec<(u64, u32)> {
        let mut got = Vec::new();
        for t in times {
            let mut out = Vec::new();
            r.advance(SimTime(t * MS), &mut out);
            for d in out {
                assert_eq!(d.port, 1);
                got.push((t, frame::parse(&d.frame).unwrap().tcp_seq));
            }
        }
        got
    }

    #[test]
    fn a_packet_takes_its_transmission_and_propagation_time() {
        let mut r = one_link(json!({}));
        let mut out = Vec::new();
        r.receive(0, segment(7), SimTime(0), &mut out);
        assert!(out.is_empty());
        assert_eq!(
            r.next_deadline(),
            Some(SimTime(MS)),
            "the transmission ends"
        );
        assert_eq!(departures(&mut r, [1, 100]), vec![]);
        assert_eq!(r.next_deadline(), Some(SimTime(101 * MS)));
        assert_eq!(departures(&mut r, [101]), vec![(101, 7)]);
        assert_eq!(r.lateness().quantile(1.0), Duration::ZERO);
        assert_eq!(r.next_deadline(), None);
        let (name, dir, stats) = &r.link_stats()[0];
        assert_eq!((name.as_str(), *dir), ("client-server", "ab"));
        assert_eq!(
            (stats.tx_packets, stats.rx_packets, stats.tx_bytes),
            (1, 1, 1500)
        );
    }

    #[test]
    fn a_burst_leaves_at_the_link_rate() {
        let mut r = one_link(json!({}));
        let mut out = Vec::new();
        for seq in 0..5 {
            r.receive(0, segment(seq), SimTime(0), &mut out);
        }
        let got = departures(&mut r, 100..110);
        assert_eq!(got, vec![(101, 0), (102, 1), (103, 2), (104, 3), (105, 4)]);
    }

    #[test]
    fn a_late_wake_up_is_lateness_not_a_shifted_timeline() {
        let mut r = one_link(json!({}));
        let mut out = Vec::new();
        for seq in 0..3 {
            r.receive(0, segment(seq), SimTime(0), &mut out);
        }
        // Nothing runs until 1 s: every packet leaves then, each late by
        // the time since it was due.
        let got = departures(&mut r, [1000]);
        assert_eq!(got, vec![(1000, 0), (1000, 1), (1000, 2)]);
        assert_eq!(r.lateness().count(), 3);
        assert_eq!(r.lateness().max(), Duration(899 * MS));
        // A packet received now starts on an idle link now.
        r.receive(0, segment(9), SimTime(1000 * MS), &mut out);
        assert_eq!(r.next_deadline(), Some(SimTime(1001 * MS)));
    }

    #[test]
    fn the_delay_follows_its_schedule() {
        let mut r = one_link(json!({"delay_schedule": [[0.0, 0.1], [1.0, 0.2]]}));
        let mut out = Vec::new();
        r.receive(0, segment(1), SimTime(500 * MS), &mut out);
        assert_eq!(departures(&mut r, [600, 601]), vec![(601, 1)]);
        r.receive(0, segment(2), SimTime(1500 * MS), &mut out);
        assert_eq!(departures(&mut r, [1700, 1701]), vec![(1701, 2)]);
    }

    #[test]
    fn a_route_crosses_every_link_and_the_reply_comes_back() {
        let mut r = relay(json!([
            {"a": "client", "b": "gw", "rate_bps": 12e6, "delay_s": 0.01},
            {"a": "gw", "b": "server", "rate_bps": 1.2e6, "delay_s": 0.25},
        ]));
        let mut out = Vec::new();
        r.receive(0, segment(1), SimTime(0), &mut out);
        // 1 ms + 10 ms to the gateway, 10 ms + 250 ms to the server.
        let got = departures(&mut r, [270, 271]);
        assert_eq!(got, vec![(271, 1)]);
        r.receive(
            1,
            tcp_frame(SERVER, CLIENT, 5, 0, 0),
            SimTime(300 * MS),
            &mut out,
        );
        let mut back = Vec::new();
        r.advance(SimTime(1000 * MS), &mut back);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].port, 0);
        let stats = r.link_stats();
        assert_eq!(stats.iter().map(|s| s.2.rx_packets).sum::<u64>(), 4);
    }

    #[test]
    fn losses_queue_overflow_and_strangers_are_counted() {
        let mut r = one_link(json!({"queue_packets": 2, "ab": {"errors": {"loss": 1.0}}}));
        let mut out = Vec::new();
        for seq in 0..5 {
            r.receive(0, segment(seq), SimTime(0), &mut out);
        }
        r.receive(
            0,
            tcp_frame(CLIENT, [10, 0, 0, 1], 0, 10, 0),
            SimTime(0),
            &mut out,
        );
        let mut arp = segment(0);
        arp[12] = 0x08;
        arp[13] = 0x06;
        r.receive(0, arp, SimTime(0), &mut out);
        assert_eq!(departures(&mut r, [1000]), vec![]);
        let ab = r.link_stats()[0].2;
        // One on the wire, two in the queue, two dropped; all three sent lost.
        assert_eq!((ab.queue_drops, ab.lost, ab.tx_packets), (2, 3, 3));
        let c = r.counts();
        assert_eq!(
            (c.frames_in, c.unroutable, c.not_ipv4, c.frames_out),
            (7, 1, 1, 0)
        );
    }

    #[test]
    fn a_gilbert_elliott_link_loses_in_bursts() {
        // Always bad once bad: every packet after the first loss is lost.
        let mut r = one_link(json!({"queue_packets": 1000,
            "errors": {"gilbert_elliott": {"p": 0.05, "r": 0.0}}}));
        let mut out = Vec::new();
        for seq in 0..200 {
            r.receive(0, segment(seq), SimTime(0), &mut out);
        }
        let got = departures(&mut r, [1000]);
        let ab = r.link_stats()[0].2;
        assert!(ab.lost > 0 && !got.is_empty());
        let seqs: Vec<u32> = got.iter().map(|g| g.1).collect();
        assert_eq!(
            seqs,
            (0..got.len() as u32).collect::<Vec<_>>(),
            "one burst to the end"
        );
    }

    #[test]
    fn the_link_series_is_sampled_as_the_simulators() {
        let mut r = one_link(json!({}));
        r.set_sampling(Duration(10 * MS));
        let mut out = Vec::new();
        for seq in 0..20 {
            r.receive(0, segment(seq), SimTime(0), &mut out);
        }
        r.advance(SimTime(200 * MS), &mut out);
        let ls = r.link_series();
        // Two directions per sample, at 10, 20, ... 200 ms.
        assert_eq!(ls.time_s.len(), 40);
        assert_eq!(ls.time_s[0], 0.01);
        // Ten packets arrived between 100 and 110 ms: 12 Mb/s, all the link.
        let at_110 = ls
            .time_s
            .iter()
            .position(|&t| (t - 0.11).abs() < 1e-9)
            .unwrap();
        assert_eq!(ls.utilization[at_110], 1.0);
        // At 10 ms (before the tenth transmission ends): one in service, ten waiting.
        assert_eq!(ls.queue_packets[0], 10);
        let last_ab = ls.rx_bytes.len() - 2;
        assert_eq!(ls.rx_bytes[last_ab], 20 * 1500);
    }

    #[test]
    fn ce_marks_reach_the_frame() {
        let mut r = one_link(json!({"queue": "red", "queue_packets": 100,
            "red": {"min_th": 1, "max_th": 50, "max_p": 1.0, "wq": 1.0, "ecn_marking": true}}));
        let mut out = Vec::new();
        for seq in 0..40 {
            r.receive(
                0,
                tcp_frame(CLIENT, SERVER, seq, 1448, 2),
                SimTime(0),
                &mut out,
            );
        }
        let mut got = Vec::new();
        r.advance(SimTime(1000 * MS), &mut got);
        let marked = got
            .iter()
            .filter(|d| frame::parse(&d.frame).unwrap().ecn == Ecn::Ce)
            .count();
        assert!(marked > 0, "RED marked some");
    }
}
