//! A DVB-RCS2 return carrier on a link direction: superframe after
//! superframe, each terminal sends in the dedicated slots the gateway
//! granted it and, where the plan has them, in random-access slots; the
//! packets whose last byte is in a burst leave when it ends (a packet
//! in random access when its bursts are resolved: the end of its slot
//! with slotted ALOHA, the end of the superframe with CRDSA, whose
//! receiver cancels interference over the whole frame), or are lost with
//! a collision.
//!
//! Each terminal has a drop-tail queue of the direction's
//! `queue_packets`. Everything a terminal does in a superframe is decided
//! as it starts, from its queue then: it fills its granted slots in order
//! with the head of its queue (packets fragmented over slots, several
//! small ones in one slot), then sends up to `ra_max_packets` whole
//! packets in random access (each in as many bursts as it needs slots,
//! each burst in one slot, or `replicas` for CRDSA, at random among the
//! frame's random-access slots), then sends its requests for what is
//! left. A packet that arrives during a superframe waits for the next.
//!
//! The carrier works lazily: it catches up with the superframes that have
//! started (`advance`) whenever a packet arrives or the link asks for the
//! next packet; when packets wait and none is due, it asks to be woken at
//! the next superframe's start (`take_wake`).

use super::dama::{Grant, Request, Requester, Scheduler};
use super::random_access::{self, Scratch};
use super::slot_plan::SlotPlan;
use super::{Dvbrcs2Config, RandomAccess};
use crate::engine::{Duration, RngStream, SimTime};
use crate::net::packet::{NodeId, PacketId};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// What the carrier did, in the results (`links[].dvbrcs2`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReturnStats {
    /// Superframes the carrier ran through (up to its last packet).
    pub superframes: u64,
    /// Dedicated slots granted, and of them those that carried bytes.
    pub slots_granted: u64,
    pub slots_used: u64,
    /// Capacity requests sent, by category.
    pub rbdc_requests: u64,
    pub vbdc_requests: u64,
    /// Packets sent in random access, and of them lost in collisions.
    pub ra_packets: u64,
    pub ra_packets_lost: u64,
    /// Random-access bursts (a replica counts once), and of them decoded.
    pub ra_bursts: u64,
    pub ra_bursts_decoded: u64,
    /// Random-access slots offered (those superframes' x slots).
    pub ra_slots: u64,
    /// With several terminals: the same per terminal.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub terminals: BTreeMap<String, TerminalStats>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TerminalStats {
    pub slots_granted: u64,
    pub slots_used: u64,
    pub ra_packets: u64,
    pub ra_packets_lost: u64,
    pub queue_drops: u64,
}

/// A packet that leaves at `at`, or is lost then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Release {
    packet: PacketId,
    size: u32,
    at: SimTime,
    lost: bool,
}

#[derive(Debug)]
struct Terminal {
    node: String,
    queue: VecDeque<(PacketId, u32)>,
    queued_bytes: u64,
    /// Bytes of the head packet already sent in dedicated slots.
    head_sent: u32,
    requester: Requester,
    /// Whether it has any dedicated capacity category.
    has_dama: bool,
    stats: TerminalStats,
}

impl Terminal {
    fn backlog(&self) -> u64 {
        self.queued_bytes - u64::from(self.head_sent)
    }
}

/// A random-access packet of this superframe: its terminal, and its
/// bursts (indices into the frame's bursts).
struct RaPacket {
    terminal: usize,
    packet: PacketId,
    size: u32,
    bursts: std::ops::Range<usize>,
}

#[derive(Debug)]
pub struct ReturnCarrier {
    plan: SlotPlan,
    scheduler: Scheduler,
    /// The near end first, then the listed terminals.
    terminals: Vec<Terminal>,
    /// The terminal of each source node (index into `terminals`); empty:
    /// all the near end's.
    terminal_of: Vec<u16>,
    /// Packets in the terminals' queues, kept as they change: the link
    /// reads it with every packet offered, and a beam has thousands.
    queued: usize,
    queue_limit: usize,
    return_delay: Duration,
    forward_delay: Duration,
    random_access: RandomAccess,
    replicas: usize,
    ra_max_packets: usize,
    /// The next superframe to start.
    next_superframe: u64,
    /// Packets to leave, in time order.
    releases: VecDeque<Release>,
    released_lost: bool,
    /// The wake-up last asked for.
    wake: Option<SimTime>,
    rng: RngStream,
    scratch: Scratch,
    slot_pool: Vec<u16>,
    busy_ns: u64,
    stats: ReturnStats,
}

impl ReturnCarrier {
    /// The carrier `c` describes; requests take `return_delay` to the
    /// gateway, grants `forward_delay` back; each terminal's queue holds
    /// `queue_limit` packets; random access draws from `rng`.
    pub fn new(
        c: &Dvbrcs2Config,
        return_delay: Duration,
        forward_delay: Duration,
        queue_limit: usize,
        rng: RngStream,
    ) -> ReturnCarrier {
        let plan = c.plan();
        let mut rules = c.rules();
        if plan.dama_slots() == 0 {
            // Nothing to ask for: no request is sent.
            for r in &mut rules {
                (r.rbdc_max_bps, r.vbdc) = (0.0, false);
            }
        }
        let names =
            std::iter::once(String::new()).chain(c.terminals.iter().map(|t| t.node.clone()));
        let terminals = names
            .zip(&rules)
            .map(|(node, r)| Terminal {
                node,
                queue: VecDeque::new(),
                queued_bytes: 0,
                head_sent: 0,
                requester: Requester::new(*r),
                has_dama: plan.dama_slots() > 0
                    && (r.cra_bps > 0.0 || r.rbdc_max_bps > 0.0 || r.vbdc),
                stats: TerminalStats::default(),
            })
            .collect();
        let superframe = Duration(plan.superframe_ns);
        ReturnCarrier {
            scheduler: Scheduler::new(&rules, plan.dama_slots(), plan.slot_bytes, superframe),
            plan,
            terminals,
            terminal_of: Vec::new(),
            queued: 0,
            queue_limit,
            return_delay,
            forward_delay,
            random_access: c.random_access,
            replicas: match c.random_access {
                RandomAccess::SlottedAloha => 1,
                RandomAccess::Crdsa => c.replicas as usize,
            },
            ra_max_packets: c.ra_max_packets as usize,
            next_superframe: 0,
            releases: VecDeque::new(),
            released_lost: false,
            wake: None,
            rng,
            scratch: Scratch::default(),
            slot_pool: Vec::new(),
            busy_ns: 0,
            stats: ReturnStats::default(),
        }
    }

    /// The nodes of the listed terminals, in order (the near end's not
    /// included).
    pub fn shared_nodes(&self) -> impl Iterator<Item = &str> {
        self.terminals[1..].iter().map(|t| t.node.as_str())
    }

    /// Places the carrier: the near end's node name, and the terminal of
    /// each source node (0: the near end, i: `shared_nodes`' i-th).
    pub fn place(&mut self, near_end: &str, terminal_of: Vec<u16>) {
        self.terminals[0].node = near_end.to_string();
        self.terminal_of = terminal_of;
    }

    /// A packet from `src` arrives at `now`: into its terminal's queue;
    /// false if the queue is full (the packet is dropped).
    pub fn enqueue(&mut self, now: SimTime, p: PacketId, size: u32, src: NodeId) -> bool {
        self.advance(now);
        let k = self.terminal_of.get(src as usize).copied().unwrap_or(0) as usize;
        let t = &mut self.terminals[k];
        if t.queue.len() >= self.queue_limit {
            t.stats.queue_drops += 1;
            return false;
        }
        t.queue.push_back((p, size));
        t.queued_bytes += u64::from(size);
        t.requester.arrived_bytes += u64::from(size);
        self.queued += 1;
        true
    }

    /// Packets waiting in the terminals' queues.
    pub fn queued(&self) -> usize {
        self.queued
    }

    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }

    /// Whether the packet last released was lost in a collision.
    pub fn released_lost(&self) -> bool {
        self.released_lost
    }

    pub fn stats(&self) -> ReturnStats {
        let mut s = self.stats.clone();
        if self.terminals.len() > 1 {
            s.terminals = self
                .terminals
                .iter()
                .map(|t| (t.node.clone(), t.stats))
                .collect();
        }
        s
    }

    /// The link is free at `now`: the next packet to leave and when, or
    /// None (then, if packets wait, `take_wake` says when to ask again).
    pub fn next(&mut self, now: SimTime) -> Option<(PacketId, u32, SimTime)> {
        self.advance(now);
        let r = self.releases.pop_front()?;
        debug_assert!(r.at >= now, "a burst decided late");
        self.released_lost = r.lost;
        Some((r.packet, r.size, r.at))
    }

    /// When the link should ask for the next packet again, if it has not
    /// asked for that time already: the next superframe's start while
    /// packets wait.
    pub fn take_wake(&mut self) -> Option<SimTime> {
        if self.queued == 0 {
            return None;
        }
        let at = self.plan.start(self.next_superframe);
        if self.wake == Some(at) {
            return None;
        }
        self.wake = Some(at);
        Some(at)
    }

    /// Runs the superframes that have started by `now`.
    fn advance(&mut self, now: SimTime) {
        while self.plan.start(self.next_superframe) <= now {
            let k = self.next_superframe;
            self.next_superframe += 1;
            self.superframe(k);
        }
    }

    /// Superframe `k` starts: the gateway's plan for it, the terminals'
    /// bursts, their requests.
    fn superframe(&mut self, k: u64) {
        let start = self.plan.start(k);
        self.stats.superframes += 1;
        self.stats.ra_slots += u64::from(self.plan.random_access_slots);
        // The plan left the gateway one forward delay ago, with the
        // requests that had arrived by then (the first superframes' plans,
        // made before the run, have the constant rates only).
        let planned_at = SimTime(start.0.saturating_sub(self.forward_delay.0));
        let n = self.terminals.len();
        let grants = self.scheduler.allocate(planned_at, (k % n as u64) as usize);
        let first = self.releases.len();
        self.dedicated(k, &grants);
        if self.plan.random_access_slots > 0 {
            self.random_access(k);
        }
        // This superframe's packets leave in time order (stable: a
        // terminal's in its queue's order).
        self.releases
            .make_contiguous()
            .get_mut(first..)
            .expect("in range")
            .sort_by_key(|r| r.at);
        let superframe = Duration(self.plan.superframe_ns);
        let arrives = start + self.return_delay;
        for (i, t) in self.terminals.iter_mut().enumerate() {
            let backlog = t.backlog();
            let (scheduler, stats) = (&mut self.scheduler, &mut self.stats);
            t.requester.requests(start, superframe, backlog, |kind| {
                match kind {
                    super::dama::RequestKind::Rbdc { .. } => stats.rbdc_requests += 1,
                    super::dama::RequestKind::Vbdc { .. } => stats.vbdc_requests += 1,
                }
                scheduler.send(Request {
                    terminal: i,
                    arrives,
                    kind,
                });
            });
        }
    }

    /// Each terminal fills its granted slots (the dedicated slots in order,
    /// terminal after terminal) with its queue's head.
    fn dedicated(&mut self, k: u64, grants: &[Grant]) {
        let mut slot = 0u32;
        for (t, g) in self.terminals.iter_mut().zip(grants) {
            t.requester.granted(*g, self.plan.slot_bytes);
            t.stats.slots_granted += u64::from(g.slots());
            self.stats.slots_granted += u64::from(g.slots());
            for s in slot..slot + g.slots() {
                let mut room = self.plan.slot_bytes;
                let mut used = false;
                while room > 0 {
                    let Some(&(p, size)) = t.queue.front() else {
                        break;
                    };
                    let take = room.min(size - t.head_sent);
                    t.head_sent += take;
                    room -= take;
                    used = true;
                    if t.head_sent == size {
                        t.queue.pop_front();
                        self.queued -= 1;
                        t.queued_bytes -= u64::from(size);
                        t.head_sent = 0;
                        self.releases.push_back(Release {
                            packet: p,
                            size,
                            at: self.plan.slot_end(k, s),
                            lost: false,
                        });
                    }
                }
                if used {
                    t.stats.slots_used += 1;
                    self.stats.slots_used += 1;
                    self.busy_ns += self.plan.slot_share_ns();
                }
            }
            slot += g.slots();
        }
    }

    /// Each terminal sends whole packets from its queue's head in the
    /// random-access slots; the frame's collisions are resolved.
    fn random_access(&mut self, k: u64) {
        let ra_slots = self.plan.random_access_slots as usize;
        let first_ra = self.plan.dama_slots();
        let slot_bytes = self.plan.slot_bytes;
        let mut packets: Vec<RaPacket> = Vec::new();
        let mut bursts: Vec<Vec<u16>> = Vec::new();
        for (i, t) in self.terminals.iter_mut().enumerate() {
            // A terminal sends in one slot at most once per frame.
            let mut free = ra_slots;
            let mut mine: Vec<(PacketId, u32, usize)> = Vec::new();
            while mine.len() < self.ra_max_packets && t.head_sent == 0 {
                let Some(&(p, size)) = t.queue.front() else {
                    break;
                };
                let needs = size.div_ceil(slot_bytes) as usize;
                if needs * self.replicas > free {
                    if needs * self.replicas > ra_slots && !t.has_dama {
                        // It can never go: lost (counted as a collision).
                        t.queue.pop_front();
                        self.queued -= 1;
                        t.queued_bytes -= u64::from(size);
                        t.stats.ra_packets += 1;
                        t.stats.ra_packets_lost += 1;
                        self.stats.ra_packets += 1;
                        self.stats.ra_packets_lost += 1;
                        self.releases.push_back(Release {
                            packet: p,
                            size,
                            at: self.plan.slot_end(k, self.plan.slots - 1),
                            lost: true,
                        });
                        continue;
                    }
                    break;
                }
                free -= needs * self.replicas;
                t.queue.pop_front();
                self.queued -= 1;
                t.queued_bytes -= u64::from(size);
                mine.push((p, size, needs));
            }
            if mine.is_empty() {
                continue;
            }
            let total: usize = mine.iter().map(|m| m.2).sum();
            let slots = random_access::draw_slots(
                &mut self.rng,
                ra_slots,
                total * self.replicas,
                &mut self.slot_pool,
            );
            let mut chunks = slots.chunks(self.replicas);
            for (p, size, needs) in mine {
                let from = bursts.len();
                for _ in 0..needs {
                    bursts.push(chunks.next().expect("drawn").to_vec());
                }
                packets.push(RaPacket {
                    terminal: i,
                    packet: p,
                    size,
                    bursts: from..bursts.len(),
                });
            }
        }
        if packets.is_empty() {
            return;
        }
        let decoded = random_access::resolve(ra_slots, &bursts, &mut self.scratch);
        self.stats.ra_bursts += bursts.len() as u64;
        self.stats.ra_bursts_decoded += decoded.iter().filter(|&&d| d).count() as u64;
        self.busy_ns += (bursts.len() * self.replicas) as u64 * self.plan.slot_share_ns();
        let frame_end = self.plan.slot_end(k, self.plan.slots - 1);
        for p in packets {
            let ok = p.bursts.clone().all(|b| decoded[b]);
            let at = match self.random_access {
                // Each burst is decoded as its slot ends.
                RandomAccess::SlottedAloha => p
                    .bursts
                    .clone()
                    .map(|b| self.plan.slot_end(k, first_ra + u32::from(bursts[b][0])))
                    .max()
                    .expect("a burst"),
                RandomAccess::Crdsa => frame_end,
            };
            let t = &mut self.terminals[p.terminal];
            t.stats.ra_packets += 1;
            t.stats.ra_packets_lost += u64::from(!ok);
            self.stats.ra_packets += 1;
            self.stats.ra_packets_lost += u64::from(!ok);
            self.releases.push_back(Release {
                packet: p.packet,
                size: p.size,
                at,
                lost: !ok,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbrcs2::tests::parse;
    use serde_json::{json, Value};

    const MS: u64 = 1_000_000;

    /// A carrier of superframes of 100 ms with 10 slots of 100 bytes,
    /// 250 ms each way, with the settings `v`.
    fn carrier(v: Value) -> ReturnCarrier {
        let c = parse(v).unwrap();
        let d = Duration(250 * MS);
        ReturnCarrier::new(&c, d, d, 1000, RngStream::new(1, "test"))
    }

    /// Runs the carrier as the link and the event loop would: packets
    /// arrive at their times (ms, id, size, source node), each packet
    /// released holds the link until it leaves, the link asks again then
    /// or at the wake-up asked for; returns (packet, ms, lost) of each.
    fn run(
        c: &mut ReturnCarrier,
        arrivals: &[(u64, PacketId, u32, NodeId)],
    ) -> Vec<(PacketId, u64, bool)> {
        let mut arrivals: VecDeque<_> = arrivals.iter().copied().collect();
        let (mut out, mut busy_until, mut wake) = (Vec::new(), None, None);
        loop {
            let arrival = arrivals.front().map(|a| SimTime(a.0 * MS));
            let Some(now) = [arrival, busy_until, wake].into_iter().flatten().min() else {
                break;
            };
            if busy_until == Some(now) {
                busy_until = None;
            }
            if wake == Some(now) {
                wake = None;
            }
            if arrival == Some(now) {
                let (_, p, size, src) = arrivals.pop_front().unwrap();
                assert!(c.enqueue(now, p, size, src));
            }
            if busy_until.is_none() {
                if let Some((p, _, at)) = c.next(now) {
                    out.push((p, at.0 / MS, c.released_lost()));
                    busy_until = Some(at);
                } else if let Some(w) = c.take_wake() {
                    wake = Some(w);
                }
            }
        }
        out
    }

    /// One packet of 1,000 bytes arrives at 10 ms. The terminal asks for
    /// it (VBDC) as superframe 1 starts at 100 ms; the request reaches
    /// the gateway at 350 ms; the plan of superframe k leaves the gateway
    /// at 100k - 250 ms: the first with the request is k = 6 (350 ms).
    /// Its 10 slots (1,000 bytes) end at 700 ms: 690 ms after the packet
    /// arrived, none of it set by hand.
    #[test]
    fn a_grant_follows_its_request_one_round_trip_and_a_superframe_later() {
        let mut c = carrier(json!({}));
        assert_eq!(run(&mut c, &[(10, 1, 1000, 0)]), [(1, 700, false)]);
        let s = c.stats();
        assert_eq!(
            (s.vbdc_requests, s.slots_granted, s.slots_used),
            (1, 10, 10)
        );
    }

    /// CRA of 16 kb/s: 2 slots of 100 bytes every superframe from the
    /// first, no request: a stream of 200 bytes a superframe is carried
    /// at its rate, each packet in the superframe after it arrived.
    #[test]
    fn cra_carries_its_rate_at_once() {
        let mut c = carrier(json!({"cra_bps": 16e3, "vbdc": false}));
        let arrivals: Vec<_> = (0..20u32)
            .map(|k| (100 * u64::from(k) + 50, k, 200, 0))
            .collect();
        let out = run(&mut c, &arrivals);
        // Packet k arrives at 100k + 50 ms, leaves in superframe k + 1's
        // second slot (ending at 100(k + 1) + 20 ms).
        let expected: Vec<_> = (0..20u32)
            .map(|k| (k, 100 * (u64::from(k) + 1) + 20, false))
            .collect();
        assert_eq!(out, expected);
        assert_eq!(c.stats().slots_used, 40);
        assert_eq!(c.stats().vbdc_requests + c.stats().rbdc_requests, 0);
    }

    /// 5,000 bytes asked for as VBDC with only 4 dedicated slots: served
    /// 400 bytes per superframe, all of it, then no more grants.
    #[test]
    fn vbdc_serves_the_volume_then_stops() {
        let mut c = carrier(json!({"random_access_slots": 6}));
        let arrivals: Vec<_> = (0..5u32).map(|p| (10, p, 1000, 0)).collect();
        // No random access for them: 1,000 bytes need 10 slots, the frame
        // has 6, and the terminal has VBDC: they wait for grants.
        let out = run(&mut c, &arrivals);
        assert_eq!(out.len(), 5);
        assert!(out.iter().all(|o| !o.2));
        // 5,000 bytes = 50 slots: the first grant in superframe 6, 4 a
        // superframe: 48 in superframes 6 to 17, the last 2 in 18 (its
        // second slot ends at 1,820 ms).
        assert_eq!(out.last().unwrap().1, 1_820);
        let s = c.stats();
        assert_eq!((s.slots_granted, s.slots_used), (50, 50));
    }

    /// Random access: a packet that fits a slot leaves in the superframe
    /// after it arrived, with no request: the round trip DAMA needs is
    /// gone.
    #[test]
    fn random_access_sends_without_a_request() {
        let mut c = carrier(json!({"random_access_slots": 10, "vbdc": false}));
        let out = run(&mut c, &[(10, 7, 100, 0)]);
        assert_eq!(out.len(), 1);
        let (p, at, lost) = out[0];
        assert_eq!((p, lost), (7, false));
        assert!((110..=200).contains(&at), "{at}");
        assert_eq!(c.stats().ra_packets, 1);
    }

    /// RBDC: a terminal receiving 400 bytes a superframe asks for 32 kb/s;
    /// once granted (one round trip on), 4 slots a superframe carry the
    /// stream; when it stops, the rate 0 is asked and the grants stop one
    /// round trip later.
    #[test]
    fn rbdc_follows_the_arrival_rate() {
        // A timeout long enough that the rate is not repeated.
        let mut c = carrier(json!({"rbdc_max_bps": 1e6, "vbdc": false, "rbdc_timeout_s": 10.0}));
        let arrivals: Vec<_> = (0..30u32)
            .map(|k| (100 * u64::from(k) + 50, k, 400, 0))
            .collect();
        assert_eq!(run(&mut c, &arrivals).len(), 30);
        let s = c.stats();
        assert_eq!(s.rbdc_requests, 2, "32 kb/s, then 0");
        // Granted 4 a superframe from superframe 6 (the request of
        // superframe 1) to 35 (the 0 of superframe 30 arrives at
        // 3,250 ms, for superframe 36): 30 superframes.
        assert_eq!(s.slots_granted, 4 * 30);
        assert_eq!(s.slots_used, 4 * 30);
        assert_eq!(c.queued(), 0);
    }

    /// Two terminals' single-slot packets in slotted ALOHA with one RA
    /// slot: they always collide, and both are lost.
    #[test]
    fn terminals_sharing_a_slot_collide() {
        let c = parse(json!({
            "random_access_slots": 1, "vbdc": false,
            "terminals": [{"node": "t1"}]
        }))
        .unwrap();
        let d = Duration(250 * MS);
        let mut c = ReturnCarrier::new(&c, d, d, 10, RngStream::new(1, "test"));
        c.place("beam", vec![0, 1]);
        let out = run(&mut c, &[(10, 1, 100, 0), (10, 2, 100, 1)]);
        assert_eq!(out, [(1, 200, true), (2, 200, true)]);
        assert_eq!(c.stats().terminals["t1"].ra_packets_lost, 1);
    }
}
