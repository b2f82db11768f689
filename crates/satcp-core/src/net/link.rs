//! One direction of a point-to-point link: an output queue, a transmitter of
//! fixed rate, a propagation delay and an error model. A full-duplex link is
//! two of these; satellite asymmetry is just different parameters per
//! direction. The link decides each packet's fate at the end of its
//! transmission (`end_transmission`); the simulation schedules it.

use super::access::Access;
use super::congestion_loss::CongestionLoss;
use super::dvbrcs2::carrier::{ReturnCarrier, ReturnStats};
use super::dvbs2::carrier::{Carrier, CarrierStats};
use super::error_model::{ErrorModel, Fate};
use super::link_arq::{ArqVerdict, LinkArq};
use super::link_config::{DirectionConfig, Streams};
use super::packet::{LinkId, NodeId, Packet, PacketId, PacketPool};
use super::queue::{Queue, QueueLimit};
use super::router::DropCause;
use super::schedule::Schedule;
use crate::engine::{Duration, SimTime};

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkStats {
    /// Packets and bytes that entered the queue.
    pub enqueued_packets: u64,
    /// Packets dropped by the queue (overflow or active queue management;
    /// not the ACKs an ACK filter removed, `acks_filtered`).
    pub queue_drops: u64,
    /// Packets the queue marked CE instead of dropping them (RED with ECN).
    pub ce_marks: u64,
    /// Packets and bytes put on the wire.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Packets and bytes correctly received at the far end.
    pub rx_packets: u64,
    pub rx_bytes: u64,
    /// Of the received bytes, those that were TCP payload.
    pub rx_payload_bytes: u64,
    pub corrupted: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub reordered: u64,
    /// Time the transmitter was busy, ns.
    pub busy_ns: u64,
    pub max_queue_packets: u64,
    /// Link-level ARQ: transmissions that were corrupted and sent again
    /// (`arq.attempts`; the frames the ARQ gave up on count in `corrupted`).
    pub arq_retransmissions: u64,
    /// Data packets dropped at the queue entrance by `congestion_loss`
    /// (also counted in `queue_drops`).
    pub congestion_drops: u64,
    /// Queued pure ACKs an ACK filter (`queue = "ack_filter"`) removed as
    /// redundant; left out of the results when none was.
    #[serde(skip_serializing_if = "is_zero")]
    pub acks_filtered: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What becomes of a packet whose transmission has ended
/// (`Link::end_transmission`): the simulation schedules it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It arrives intact at the far end at `at`, or `extra_delay` later
    /// when held back for reordering (later packets then overtake it);
    /// with `duplicate`, a copy arrives at `at` too.
    Deliver {
        at: SimTime,
        extra_delay: Duration,
        duplicate: bool,
    },
    /// It was corrupted and travels on: the next node discards it when it
    /// arrives at `at` (`errors.corrupted_reach_next_node`).
    DeliverCorrupted { at: SimTime },
    /// The next node discards it now, as its transmission ends.
    Drop(DropCause),
    /// Link-level ARQ sends it again: the NAK is back at the transmitter
    /// at `nak_at` (`Link::on_arq_nak`), then the frame waits for it.
    Resend { nak_at: SimTime },
}

/// The packet a link is sending, with what the end of its transmission
/// needs to know of it (read when it started, so that the end does not
/// go back to the packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct InService {
    packet: PacketId,
    size: u32,
    is_data: bool,
}

pub struct Link {
    id: LinkId,
    from: NodeId,
    to: NodeId,
    rate_bps: u64,
    delay: Duration,
    queue: Box<dyn Queue>,
    /// The error model; None for a perfect link (most links), which then
    /// costs one pointer test per packet.
    errors: Option<Box<ErrorModel>>,
    /// Time-varying delay and rate (they replace `delay` and `rate_bps`
    /// from their first point on). A packet keeps the delay in force when
    /// its transmission ends, and the rate in force when it starts.
    delay_schedule: Option<Schedule>,
    rate_schedule: Option<Schedule>,
    /// Link-level ARQ (`arq.attempts`), None when off.
    arq: Option<Box<LinkArq>>,
    /// Random drops at the queue entrance (`congestion_loss`), None when off.
    congestion_loss: Option<Box<CongestionLoss>>,
    /// A DVB-S2 or DVB-RCS2 carrier (`dvbs2`, `dvbrcs2`): it sends the
    /// packets in frames or slots, None for a link that sends packet after
    /// packet.
    carrier: Option<Box<Access>>,
    /// Packet being serialized, if any.
    in_service: Option<InService>,
    /// The size, rate and transmission time of the last packet sent: most
    /// packets on a link direction have the size of the one before (full
    /// segments one way, ACKs the other), so the division is mostly
    /// skipped (`transmission_time`).
    last_tx: (u32, u64, Duration),
    stats: LinkStats,
}

impl Link {
    /// Link direction `id` from node `from` to node `to`, each of its
    /// models built from its settings; `streams` names its random streams.
    pub fn new(
        id: LinkId,
        from: NodeId,
        to: NodeId,
        config: &DirectionConfig,
        streams: &Streams,
    ) -> Link {
        let rate_bps = config.rate_bps.expect("validated").round() as u64;
        Link {
            id,
            from,
            to,
            rate_bps,
            delay: Duration::from_secs_f64(config.delay_s),
            queue: config.queue.build(rate_bps, streams.rng("queue")),
            errors: config.errors.build(&config.reorder, streams),
            delay_schedule: config.delay_schedule.as_deref().map(Schedule::new),
            rate_schedule: config.rate_schedule.as_deref().map(Schedule::new),
            arq: config.arq.build(),
            congestion_loss: CongestionLoss::new(config.congestion_loss, streams.rng("congestion")),
            carrier: Self::carrier(config, streams),
            in_service: None,
            // No packet is 0 bytes long: the first one computes.
            last_tx: (0, 0, Duration::ZERO),
            stats: LinkStats::default(),
        }
    }

    /// The access scheme of a direction that has one.
    fn carrier(config: &DirectionConfig, streams: &Streams) -> Option<Box<Access>> {
        let queue_limit = match config.queue.limit() {
            QueueLimit::Packets(n) => n,
            _ => usize::MAX,
        };
        let (delay_s, streams) = (config.delay_s, streams);
        if let Some(c) = &config.dvbs2 {
            return Some(Box::new(Access::Dvbs2(c.build(
                delay_s,
                queue_limit,
                streams,
            ))));
        }
        let c = config.dvbrcs2.as_ref()?;
        Some(Box::new(Access::Dvbrcs2(c.build(
            delay_s,
            queue_limit,
            streams,
        ))))
    }

    pub fn id(&self) -> LinkId {
        self.id
    }
    pub fn from(&self) -> NodeId {
        self.from
    }
    pub fn to(&self) -> NodeId {
        self.to
    }
    /// The rate in force (the last a transmission started with).
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }
    /// The propagation delay in force (the last a packet was given).
    pub fn delay(&self) -> Duration {
        self.delay
    }
    /// The link's statistics; the CE marks are the queue's count (a queue
    /// may mark as packets arrive or as they leave), and so are the ACKs
    /// it filtered, which `offer` counted with its drops.
    pub fn stats(&self) -> LinkStats {
        let acks_filtered = self.queue.acks_filtered();
        LinkStats {
            ce_marks: self.queue.ce_marks(),
            queue_drops: self.stats.queue_drops - acks_filtered,
            acks_filtered,
            busy_ns: self.stats.busy_ns + self.carrier.as_deref().map_or(0, Access::busy_ns),
            ..self.stats
        }
    }
    /// The DVB-S2 carrier's statistics, if the direction has one.
    pub fn dvbs2_stats(&self) -> Option<CarrierStats> {
        match self.carrier.as_deref()? {
            Access::Dvbs2(c) => Some(c.stats()),
            Access::Dvbrcs2(_) => None,
        }
    }
    /// The DVB-RCS2 carrier's statistics, if the direction has one.
    pub fn dvbrcs2_stats(&self) -> Option<ReturnStats> {
        match self.carrier.as_deref()? {
            Access::Dvbrcs2(c) => Some(c.stats()),
            Access::Dvbs2(_) => None,
        }
    }
    /// Packets waiting in the queue (and in the queues of the terminals
    /// that share a DVB-S2 carrier).
    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets() + self.carrier.as_deref().map_or(0, Access::queued)
    }
    /// The DVB-S2 carrier, if the direction has one (to place it).
    pub fn dvbs2_mut(&mut self) -> Option<&mut Carrier> {
        match self.carrier.as_deref_mut()? {
            Access::Dvbs2(c) => Some(c),
            Access::Dvbrcs2(_) => None,
        }
    }
    /// The DVB-RCS2 carrier, if the direction has one (to place it).
    pub fn dvbrcs2_mut(&mut self) -> Option<&mut ReturnCarrier> {
        match self.carrier.as_deref_mut()? {
            Access::Dvbrcs2(c) => Some(c),
            Access::Dvbs2(_) => None,
        }
    }
    /// When the link, idle, should look for a packet to send again (a
    /// return carrier's next superframe while packets wait), once per
    /// such time.
    pub fn take_wake(&mut self) -> Option<SimTime> {
        self.carrier.as_deref_mut()?.take_wake()
    }
    /// Bytes waiting in the queue.
    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }
    /// The packet being serialized, if any.
    pub fn in_service(&self) -> Option<PacketId> {
        self.in_service.map(|s| s.packet)
    }

    /// `pkt` reached the far end intact: counted; returns the node there.
    #[inline]
    pub fn arrived(&mut self, pkt: &Packet) -> NodeId {
        self.stats.rx_packets += 1;
        self.stats.rx_bytes += pkt.size as u64;
        self.stats.rx_payload_bytes += pkt.tcp.len as u64;
        self.to
    }

    /// The oldest outstanding NAK of link-level ARQ is back: its frame
    /// waits for the transmitter (`start_next` sends it first).
    pub fn on_arq_nak(&mut self) {
        self.arq.as_deref_mut().expect("a link with ARQ").on_nak();
    }

    /// The transmission in service ends now: the packet, and what becomes
    /// of it (its errors, a listed loss, ARQ), counted in the statistics.
    #[inline]
    pub fn end_transmission(&mut self, pool: &PacketPool, now: SimTime) -> (PacketId, Outcome) {
        let InService {
            packet,
            size,
            is_data,
        } = self
            .in_service
            .take()
            .expect("a transmission ends without a packet");
        if self.carrier.as_deref().is_some_and(Access::released_lost) {
            return (packet, self.lost_on_carrier());
        }
        let Some(errors) = self.errors.as_deref_mut() else {
            // A perfect link: one branch.
            return (packet, self.delivered(Duration::ZERO, false, now));
        };
        let fate = errors.fate(packet, size, is_data, pool, now, self.arq.is_some());
        let outcome = match fate {
            Fate::Delivered {
                extra_delay,
                duplicate,
            } => self.delivered(extra_delay, duplicate, now),
            Fate::Lost => {
                self.stats.lost += 1;
                Outcome::Drop(DropCause::Loss)
            }
            Fate::Corrupted => self.corrupted(packet, now),
        };
        (packet, outcome)
    }

    #[inline]
    fn delivered(&mut self, extra_delay: Duration, duplicate: bool, now: SimTime) -> Outcome {
        if extra_delay > Duration::ZERO {
            self.stats.reordered += 1;
        }
        if duplicate {
            self.stats.duplicated += 1;
        }
        Outcome::Deliver {
            at: now + self.delay_at(now),
            extra_delay,
            duplicate,
        }
    }

    /// Frame `p`, just sent, was corrupted: ARQ may send it again (the
    /// NAK is back one link round trip after its last bit left) or, with
    /// `recover_all`, deliver its last attempt; else it is lost for
    /// corruption, at the end of its transmission or at the next node.
    #[cold]
    #[inline(never)]
    fn corrupted(&mut self, p: PacketId, now: SimTime) -> Outcome {
        if let Some(arq) = self.arq.as_deref_mut() {
            match arq.on_corrupted(p) {
                ArqVerdict::Resend => {
                    self.stats.arq_retransmissions += 1;
                    return Outcome::Resend {
                        nak_at: now + Duration(self.delay.0.saturating_mul(2)),
                    };
                }
                ArqVerdict::Recover => return self.delivered(Duration::ZERO, false, now),
                ArqVerdict::GiveUp => {}
            }
        }
        self.stats.corrupted += 1;
        let travels_on = self
            .errors
            .as_deref()
            .is_some_and(ErrorModel::corrupted_reach_next_node);
        if travels_on {
            Outcome::DeliverCorrupted {
                at: now + self.delay_at(now),
            }
        } else {
            Outcome::Drop(DropCause::Corruption)
        }
    }

    /// The packet just released by the carrier was lost: a BBFrame not
    /// decoded (corrupted), a random-access collision (lost).
    #[cold]
    #[inline(never)]
    fn lost_on_carrier(&mut self) -> Outcome {
        match self.carrier.as_deref() {
            Some(Access::Dvbs2(_)) => {
                self.stats.corrupted += 1;
                Outcome::Drop(DropCause::Corruption)
            }
            _ => {
                self.stats.lost += 1;
                Outcome::Drop(DropCause::Loss)
            }
        }
    }

    /// `congestion_loss`: drops a data packet at the queue entrance with
    /// its probability. Kept out of line so that `offer` stays small.
    #[cold]
    #[inline(never)]
    fn congestion_drop(
        &mut self,
        pkt: PacketId,
        pool: &PacketPool,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> bool {
        let Some(c) = self.congestion_loss.as_deref_mut() else {
            return false;
        };
        if !c.drops(pool.get(pkt).is_data()) {
            return false;
        }
        dropped.push((pkt, DropCause::EarlyDrop));
        self.stats.queue_drops += 1;
        self.stats.congestion_drops += 1;
        true
    }

    /// `offer` on a carrier with its own queues (a DVB-S2 carrier that
    /// terminals share, a DVB-RCS2 carrier): into the queue of the
    /// packet's terminal, or dropped if it is full.
    #[cold]
    #[inline(never)]
    fn offer_to_terminal(
        &mut self,
        pkt: PacketId,
        pool: &PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let p = pool.get(pkt);
        let carrier = self.carrier.as_deref_mut().expect("a carrier");
        if !carrier.enqueue(now, pkt, p.size, p.src, p.dst) {
            dropped.push((pkt, DropCause::Overflow));
            self.stats.queue_drops += 1;
        }
        let q = carrier.queued() as u64;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(q);
    }

    /// The next frame to send with ARQ on: a resend if one waits, else
    /// the queue's next packet. Out of line, like `congestion_drop`.
    #[cold]
    #[inline(never)]
    fn next_with_arq(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let arq = self.arq.as_deref_mut()?;
        if let Some(p) = arq.next_resend() {
            return Some(p);
        }
        let p = self.queue.dequeue(pool, now, dropped)?;
        arq.start_first();
        Some(p)
    }

    /// Offers a packet to the output queue; drops go into `dropped`.
    #[inline]
    pub fn offer(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.stats.enqueued_packets += 1;
        if self.congestion_loss.is_some() && self.congestion_drop(pkt, pool, dropped) {
            return;
        }
        if self.carrier.as_deref().is_some_and(Access::owns_queues) {
            self.offer_to_terminal(pkt, pool, now, dropped);
            return;
        }
        let before = dropped.len();
        self.queue.enqueue(pkt, pool, now, dropped);
        self.stats.queue_drops += (dropped.len() - before) as u64;
        let q = self.queue.len_packets() as u64;
        if q > self.stats.max_queue_packets {
            self.stats.max_queue_packets = q;
        }
    }

    /// Offers a packet to a link whose transmitter is idle and whose queue
    /// would hand it straight back (`Queue::passes_straight`): it goes on
    /// the wire at once; returns when its last bit leaves. None (nothing
    /// done) otherwise: the packet then takes `offer` and `start_next`.
    /// The outcome and the statistics are those of that way (the packet
    /// counts as entering the queue, which held it for an instant); it
    /// only skips putting it into the queue and taking it out again.
    #[inline]
    pub fn offer_to_idle(
        &mut self,
        pkt: PacketId,
        pool: &PacketPool,
        now: SimTime,
    ) -> Option<SimTime> {
        if self.in_service.is_some()
            || self.arq.is_some()
            || self.congestion_loss.is_some()
            || self.carrier.is_some()
        {
            return None;
        }
        let packet = pool.get(pkt);
        if !self.queue.passes_straight(packet.size) {
            return None;
        }
        self.stats.enqueued_packets += 1;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(1);
        Some(self.begin_transmission(pkt, packet.size, packet.is_data(), now))
    }

    /// The propagation delay of a packet whose transmission ends now.
    #[inline]
    fn delay_at(&mut self, now: SimTime) -> Duration {
        match self.delay_schedule.as_mut() {
            Some(d) => {
                self.delay = Duration::from_secs_f64(d.at(now));
                self.delay
            }
            None => self.delay,
        }
    }

    /// `Duration::serialization` of `size` bytes at the current rate,
    /// remembered for the next packet of the same size and rate.
    #[inline]
    fn transmission_time(&mut self, size: u32) -> Duration {
        let (last_size, last_rate, last) = self.last_tx;
        if size == last_size && self.rate_bps == last_rate {
            return last;
        }
        let tx = Duration::serialization(size, self.rate_bps);
        self.last_tx = (size, self.rate_bps, tx);
        tx
    }

    /// If the transmitter is idle and a packet waits, starts sending it and
    /// returns when its last bit leaves. Packets the queue drops at its
    /// head on the way (CoDel) go into `dropped`, as in `offer`.
    #[inline]
    pub fn start_next(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<SimTime> {
        if self.in_service.is_some() {
            return None;
        }
        if self.carrier.is_some() {
            return self.start_next_on_carrier(pool, now, dropped);
        }
        let before = dropped.len();
        let p = if self.arq.is_none() {
            self.queue.dequeue(pool, now, dropped)
        } else {
            // Frames sent again by the ARQ go first.
            self.next_with_arq(pool, now, dropped)
        };
        self.stats.queue_drops += (dropped.len() - before) as u64;
        let p = p?;
        let packet = pool.get(p);
        Some(self.begin_transmission(p, packet.size, packet.is_data(), now))
    }

    /// `start_next` on a carrier: the next packet of the frame or
    /// superframe sent last, or of new ones filled from the queues; it
    /// leaves when its frame or burst ends.
    #[cold]
    #[inline(never)]
    fn start_next_on_carrier(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<SimTime> {
        let before = dropped.len();
        let Link {
            carrier,
            queue,
            stats,
            ..
        } = self;
        let carrier = carrier.as_deref_mut().expect("a carrier");
        let next = carrier.next(now, || {
            let p = queue.dequeue(pool, now, dropped)?;
            Some((p, pool.get(p).size))
        });
        stats.queue_drops += (dropped.len() - before) as u64;
        let (p, size, leaves) = next?;
        self.in_service = Some(InService {
            packet: p,
            size,
            is_data: pool.get(p).is_data(),
        });
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size as u64;
        Some(leaves)
    }

    /// Puts packet `p` of `size` bytes in service; returns when its last
    /// bit leaves.
    #[inline]
    fn begin_transmission(
        &mut self,
        p: PacketId,
        size: u32,
        is_data: bool,
        now: SimTime,
    ) -> SimTime {
        if let Some(r) = self.rate_schedule.as_mut() {
            self.rate_bps = r.at(now).round() as u64;
        }
        let tx = self.transmission_time(size);
        self.in_service = Some(InService {
            packet: p,
            size,
            is_data,
        });
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size as u64;
        self.stats.busy_ns += tx.0;
        now + tx
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, TcpHeader};
    use crate::net::queue::{DropTail, QueueLimit};
    use serde_json::{json, Value};

    /// A link direction of 1 Mb/s and 250 ms with the settings `v` (JSON,
    /// merged over those).
    fn link(v: Value) -> Link {
        let mut table = json!({"rate_bps": 1e6, "delay_s": 0.25});
        table
            .as_object_mut()
            .unwrap()
            .extend(v.as_object().unwrap().clone());
        let Value::Object(table) = table else {
            unreachable!()
        };
        let config = DirectionConfig::parse(table).unwrap();
        let streams = Streams {
            seed: 1,
            link: "test",
            dir: "ab",
        };
        Link::new(0, 0, 1, &config, &streams)
    }

    fn packet(pool: &mut PacketPool, size: u32) -> PacketId {
        pool.alloc(Packet {
            size,
            ..Default::default()
        })
    }

    fn data(pool: &mut PacketPool, seq: u64) -> PacketId {
        pool.alloc(Packet {
            size: 1500,
            tcp: TcpHeader {
                seq,
                len: 1460,
                ..Default::default()
            },
            ..Default::default()
        })
    }

    /// The way a packet takes without the shortcut: into the queue, then
    /// out of it onto the wire.
    fn offer_then_start(
        l: &mut Link,
        p: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
    ) -> Option<SimTime> {
        let mut dropped = Vec::new();
        l.offer(p, pool, now, &mut dropped);
        assert!(dropped.is_empty());
        l.start_next(pool, now, &mut Vec::new())
    }

    /// Sends `p` over an idle link `l` from `now`: its outcome when its
    /// transmission ends.
    fn send(l: &mut Link, p: PacketId, pool: &mut PacketPool, now: SimTime) -> (SimTime, Outcome) {
        let end = offer_then_start(l, p, pool, now).expect("an idle link");
        let (sent, outcome) = l.end_transmission(pool, end);
        assert_eq!(sent, p);
        (end, outcome)
    }

    const DELAY: Duration = Duration(250_000_000);

    fn on_time(end: SimTime) -> Outcome {
        Outcome::Deliver {
            at: end + DELAY,
            extra_delay: Duration::ZERO,
            duplicate: false,
        }
    }

    #[test]
    fn an_idle_link_sends_at_once_with_the_statistics_of_the_queue_way() {
        let mut pool = PacketPool::default();
        let (mut fast, mut slow) = (
            link(json!({"queue_packets": 5})),
            link(json!({"queue_packets": 5})),
        );
        let now = SimTime(1_000);
        let (p, q) = (packet(&mut pool, 1500), packet(&mut pool, 1500));
        let done = fast.offer_to_idle(p, &pool, now);
        assert_eq!(done, offer_then_start(&mut slow, q, &mut pool, now));
        assert_eq!(done, Some(now + Duration::serialization(1500, 1_000_000)));
        assert_eq!(fast.stats, slow.stats);
        assert_eq!(fast.in_service(), Some(p));
        assert_eq!(fast.queue_packets(), 0);
        // Busy now: the next packet must queue.
        let r = packet(&mut pool, 1500);
        assert_eq!(fast.offer_to_idle(r, &pool, now), None);
        assert_eq!(fast.stats, slow.stats, "a refused shortcut changes nothing");
    }

    #[test]
    fn no_shortcut_past_a_waiting_packet_or_a_queue_that_would_refuse() {
        let mut pool = PacketPool::default();
        let p = packet(&mut pool, 1500);
        // A queue with no room drops even at an idle link.
        assert!(!DropTail::new(QueueLimit::Packets(0)).passes_straight(1500));
        assert!(!DropTail::new(QueueLimit::Bytes(1000)).passes_straight(1500));
        assert!(DropTail::new(QueueLimit::Bytes(1500)).passes_straight(1500));
        // A packet waits (the transmitter idle, as between a drop of the
        // packet in service and the next start): it goes first.
        let mut q = DropTail::new(QueueLimit::Unlimited);
        q.enqueue(p, &mut pool, SimTime::ZERO, &mut Vec::new());
        assert!(!q.passes_straight(1500));
        // RED updates its average on every arrival: never a shortcut.
        let mut l = link(json!({"queue": "red", "queue_packets": 50}));
        assert!(!l.queue.passes_straight(1500));
        assert_eq!(l.offer_to_idle(p, &pool, SimTime::ZERO), None);
        assert_eq!(l.stats, LinkStats::default());
        // Random drops at the queue entrance draw for every packet.
        let mut l = link(json!({"congestion_loss": 0.5}));
        assert_eq!(l.offer_to_idle(p, &pool, SimTime::ZERO), None);
        assert_eq!(l.stats, LinkStats::default());
    }

    #[test]
    fn a_perfect_link_delivers_after_its_delay() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({}));
        assert!(l.errors.is_none());
        let p = data(&mut pool, 1);
        let (end, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, on_time(end));
    }

    #[test]
    fn a_listed_sequence_number_is_lost_once() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({"errors": {"drop_seqs": [1461]}}));
        let (a, b, c) = (
            data(&mut pool, 1),
            data(&mut pool, 1461),
            data(&mut pool, 1461),
        );
        let (end, outcome) = send(&mut l, a, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, on_time(end));
        let (_, outcome) = send(&mut l, b, &mut pool, end);
        assert_eq!(outcome, Outcome::Drop(DropCause::Loss));
        let (end, outcome) = send(&mut l, c, &mut pool, end);
        assert_eq!(outcome, on_time(end), "the retransmission passes");
        assert_eq!(l.stats.lost, 1);
    }

    #[test]
    fn data_only_errors_spare_pure_acks() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({"errors": {"ber": 1.0, "data_only": true}}));
        let ack = packet(&mut pool, 40);
        let (end, outcome) = send(&mut l, ack, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, on_time(end));
        let p = data(&mut pool, 1);
        let (_, outcome) = send(&mut l, p, &mut pool, end);
        assert_eq!(outcome, Outcome::Drop(DropCause::Corruption));
        assert_eq!(l.stats.corrupted, 1);
    }

    #[test]
    fn a_corrupted_packet_may_travel_on_to_the_next_node() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({"errors": {"ber": 1.0, "corrupted_reach_next_node": true}}));
        let p = data(&mut pool, 1);
        let (end, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, Outcome::DeliverCorrupted { at: end + DELAY });
        assert_eq!(l.stats.corrupted, 1);
    }

    #[test]
    fn duplicated_and_reordered_packets_are_counted() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({
            "errors": {"duplicate": 1.0},
            "reorder": {"prob": 1.0, "mean_s": 0.1}
        }));
        let p = data(&mut pool, 1);
        let (end, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
        assert_eq!(
            outcome,
            Outcome::Deliver {
                at: end + DELAY,
                extra_delay: Duration::from_millis(100),
                duplicate: true
            }
        );
        assert_eq!((l.stats.duplicated, l.stats.reordered), (1, 1));
    }

    /// A corrupted frame is resent after its NAK, a round trip later, ahead
    /// of the queue; its last attempt is lost, or recovered.
    #[test]
    fn arq_resends_a_corrupted_frame_then_gives_up_or_recovers_it() {
        for (settings, recovers) in [
            (json!({"attempts": 2}), false),
            (json!({"attempts": 2, "recover_all": true}), true),
        ] {
            let mut pool = PacketPool::default();
            let mut l = link(json!({"errors": {"ber": 1.0}, "arq": settings}));
            let (p, q) = (data(&mut pool, 1), data(&mut pool, 1461));
            let (end, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
            assert_eq!(
                outcome,
                Outcome::Resend {
                    nak_at: end + Duration(2 * DELAY.0)
                }
            );
            let mut dropped = Vec::new();
            l.offer(q, &mut pool, end, &mut dropped);
            l.on_arq_nak();
            let again = l.start_next(&mut pool, end, &mut Vec::new()).unwrap();
            assert_eq!(l.in_service(), Some(p), "the resend goes first");
            let (sent, outcome) = l.end_transmission(&pool, again);
            assert_eq!(sent, p);
            if recovers {
                assert_eq!(outcome, on_time(again));
            } else {
                assert_eq!(outcome, Outcome::Drop(DropCause::Corruption));
            }
            assert_eq!(l.stats.arq_retransmissions, 1);
            assert_eq!(l.stats.corrupted, u64::from(!recovers));
            assert_eq!(l.stats.tx_packets, 2);
        }
        // A frame ARQ gives up on may still travel on to the next node.
        let mut pool = PacketPool::default();
        let mut l = link(json!({
            "errors": {"ber": 1.0, "corrupted_reach_next_node": true},
            "arq": {"attempts": 1}
        }));
        let p = data(&mut pool, 1);
        let (end, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, Outcome::DeliverCorrupted { at: end + DELAY });
    }

    #[test]
    fn with_arq_a_listed_corrupted_frame_is_lost_not_resent() {
        let mut pool = PacketPool::default();
        let mut l = link(json!({"errors": {"ber": 1.0, "drop_seqs": [1]}, "arq": {"attempts": 3}}));
        let p = data(&mut pool, 1);
        let (_, outcome) = send(&mut l, p, &mut pool, SimTime::ZERO);
        assert_eq!(outcome, Outcome::Drop(DropCause::Loss));
        assert_eq!((l.stats.lost, l.stats.arq_retransmissions), (1, 0));
    }
}
