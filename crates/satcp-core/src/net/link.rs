//! One direction of a point-to-point link: an output queue, a transmitter of
//! fixed rate, a propagation delay and an error model. A full-duplex link is
//! two of these; satellite asymmetry is just different parameters per
//! direction.

use super::error_model::{ErrorModel, Fate};
use super::gilbert_elliott::GilbertElliott;
use super::link_arq::LinkArq;
use super::packet::{LinkId, NodeId, PacketId, PacketPool};
use super::queue::Queue;
use super::router::DropCause;
use super::schedule::Schedule;
use crate::engine::{Duration, RngStream, SimTime};

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkStats {
    /// Packets and bytes that entered the queue.
    pub enqueued_packets: u64,
    /// Packets dropped by the queue (overflow or active queue management).
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
    /// (`arq_attempts`; the frames the ARQ gave up on count in `corrupted`).
    pub arq_retransmissions: u64,
    /// Data packets dropped at the queue entrance by `congestion_loss`
    /// (also counted in `queue_drops`).
    pub congestion_drops: u64,
}

/// Random "congestion" drops at the queue entrance (TCP-R paper Sec. 4.5):
/// each data packet offered to the queue is dropped with probability
/// `prob`, cause `EarlyDrop`, as if the queue had chosen it. The draws come
/// from their own stream (`congestion/<link>/<dir>`).
pub struct CongestionLoss {
    pub prob: f64,
    pub rng: RngStream,
}

/// Loss that follows a schedule (`loss_schedule`): each packet whose
/// transmission ends at t is lost with the probability in force at t, on
/// top of the memoryless error model. An orbit's handover outages are a
/// schedule of 1s and 0s. Probabilities 0 and 1 draw nothing; the draws
/// come from their own stream (`loss-schedule/<link>/<dir>`).
pub struct ScheduledLoss {
    pub schedule: Schedule,
    pub rng: RngStream,
}

impl ScheduledLoss {
    fn lost(&mut self, now: SimTime) -> bool {
        let p = self.schedule.at(now);
        p >= 1.0 || (p > 0.0 && self.rng.bernoulli(p))
    }
}

/// The loss mechanisms beyond the memoryless error model, kept behind one
/// pointer so that a link without them pays one branch per packet.
#[derive(Default)]
pub struct ExtraLoss {
    /// Burst errors (`gilbert_elliott`).
    pub burst: Option<GilbertElliott>,
    /// Loss following a schedule (`loss_schedule`).
    pub schedule: Option<ScheduledLoss>,
}

impl ExtraLoss {
    fn fate(&mut self, fate: Fate, bytes: u32, now: SimTime) -> Fate {
        let burst = self.burst.as_mut().and_then(|g| g.next(bytes));
        let scheduled = self.schedule.as_mut().is_some_and(|s| s.lost(now));
        match (fate, burst) {
            (Fate::Delivered { .. }, Some(f)) => f,
            (Fate::Delivered { .. }, None) if scheduled => Fate::Lost,
            _ => fate,
        }
    }
}

/// The packet a link is sending, with what the end of its transmission
/// needs to know of it (read when it started, so that the end does not
/// go back to the packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InService {
    pub packet: PacketId,
    pub size: u32,
    pub is_data: bool,
}

pub struct Link {
    pub id: LinkId,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Duration,
    pub queue: Box<dyn Queue>,
    /// The memoryless error model; None for a perfect link (most links),
    /// which then costs one pointer test per packet instead of reading
    /// the model's four probabilities.
    pub errors: Option<Box<ErrorModel>>,
    /// The link's errors (the error model, the burst chain, the loss
    /// schedule) hit data-carrying packets only; pure ACKs pass
    /// (`errors_data_only`).
    pub errors_data_only: bool,
    /// Sequence numbers of data packets still to be lost on purpose (each
    /// entry is used up by the first packet that matches it).
    pub drop_seqs: Vec<u64>,
    /// A corrupted packet travels on and is discarded by the next node,
    /// whose router functions see it (cause `Corruption`), instead of
    /// vanishing at the end of its transmission.
    pub corrupted_reach_next_node: bool,
    /// Time-varying delay and rate (they replace `delay` and `rate_bps`
    /// from their first point on). A packet keeps the delay in force when
    /// its transmission ends, and the rate in force when it starts.
    pub delay_schedule: Option<Schedule>,
    pub rate_schedule: Option<Schedule>,
    pub rng: RngStream,
    /// Link-level ARQ (`arq_attempts`), None when off.
    pub arq: Option<Box<LinkArq>>,
    /// Random drops at the queue entrance (`congestion_loss`), None when off.
    pub congestion_loss: Option<Box<CongestionLoss>>,
    /// Burst errors and loss following a schedule, None when both are off.
    pub extra_loss: Option<Box<ExtraLoss>>,
    /// Packet being serialized, if any.
    pub in_service: Option<InService>,
    /// The size, rate and transmission time of the last packet sent: most
    /// packets on a link direction have the size of the one before (full
    /// segments one way, ACKs the other), so the division is mostly
    /// skipped (`transmission_time`).
    pub last_tx: (u32, u64, Duration),
    pub stats: LinkStats,
}

impl Link {
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
        if !(pool.get(pkt).is_data() && c.rng.bernoulli(c.prob)) {
            return false;
        }
        dropped.push((pkt, DropCause::EarlyDrop));
        self.stats.queue_drops += 1;
        self.stats.congestion_drops += 1;
        true
    }

    /// The burst-error chain's and the loss schedule's say on a packet
    /// whose transmission ends now and which the memoryless error model
    /// gave `fate` (call only with `extra_loss` on). Each draws for every
    /// packet it applies to, whatever the draws before decided, so that
    /// turning one on leaves the others' patterns alone; the first that
    /// strikes decides.
    #[cold]
    #[inline(never)]
    pub fn extra_fate(&mut self, fate: Fate, bytes: u32, is_data: bool, now: SimTime) -> Fate {
        match self.extra_loss.as_deref_mut() {
            Some(x) if is_data || !self.errors_data_only => x.fate(fate, bytes, now),
            _ => fate,
        }
    }

    /// The next frame to send with ARQ on: a resend if one waits, else
    /// the queue's next packet. Out of line, like `congestion_drop`.
    #[cold]
    #[inline(never)]
    fn next_with_arq(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        let arq = self.arq.as_deref_mut()?;
        if let Some(p) = arq.next_resend() {
            return Some(p);
        }
        let p = self.queue.dequeue(pool, now)?;
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
        let before = dropped.len();
        self.queue.enqueue(pkt, pool, now, dropped);
        self.stats.queue_drops += (dropped.len() - before) as u64;
        self.stats.ce_marks = self.queue.ce_marks();
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
        if self.in_service.is_some() || self.arq.is_some() || self.congestion_loss.is_some() {
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
    pub fn delay_at(&mut self, now: SimTime) -> Duration {
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
    /// returns when its last bit leaves.
    #[inline]
    pub fn start_next(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<SimTime> {
        if self.in_service.is_some() {
            return None;
        }
        let p = if self.arq.is_none() {
            self.queue.dequeue(pool, now)?
        } else {
            // Frames sent again by the ARQ go first.
            self.next_with_arq(pool, now)?
        };
        let packet = pool.get(p);
        Some(self.begin_transmission(p, packet.size, packet.is_data(), now))
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
    use crate::net::packet::Packet;
    use crate::net::queue::{DropTail, QueueLimit, Red, RedParams};

    fn link(queue: Box<dyn Queue>) -> Link {
        Link {
            id: 0,
            name: "test".into(),
            from: 0,
            to: 1,
            rate_bps: 1_000_000,
            delay: Duration::from_secs_f64(0.25),
            queue,
            errors: None,
            errors_data_only: false,
            drop_seqs: Vec::new(),
            corrupted_reach_next_node: false,
            delay_schedule: None,
            rate_schedule: None,
            rng: RngStream::new(1, "link/test/ab"),
            arq: None,
            congestion_loss: None,
            extra_loss: None,
            in_service: None,
            last_tx: (0, 0, Duration::ZERO),
            stats: LinkStats::default(),
        }
    }

    fn drop_tail(limit: QueueLimit) -> Box<dyn Queue> {
        Box::new(DropTail::new(limit))
    }

    fn packet(pool: &mut PacketPool, size: u32) -> PacketId {
        pool.alloc(Packet {
            size,
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
        l.start_next(pool, now)
    }

    #[test]
    fn an_idle_link_sends_at_once_with_the_statistics_of_the_queue_way() {
        let mut pool = PacketPool::default();
        let (mut fast, mut slow) = (
            link(drop_tail(QueueLimit::Packets(5))),
            link(drop_tail(QueueLimit::Packets(5))),
        );
        let now = SimTime(1_000);
        let (p, q) = (packet(&mut pool, 1500), packet(&mut pool, 1500));
        let done = fast.offer_to_idle(p, &pool, now);
        assert_eq!(done, offer_then_start(&mut slow, q, &mut pool, now));
        assert_eq!(done, Some(now + Duration::serialization(1500, 1_000_000)));
        assert_eq!(fast.stats, slow.stats);
        assert_eq!(fast.in_service.map(|s| s.packet), Some(p));
        assert_eq!(fast.queue.len_packets(), 0);
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
        let red = Red::new(
            RedParams {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.1,
                w_q: 0.002,
                gentle: false,
                ecn: false,
            },
            QueueLimit::Packets(50),
            1_000_000,
            RngStream::new(7, "queue/test/ab"),
        );
        assert!(!red.passes_straight(1500));
        let mut l = link(Box::new(red));
        assert_eq!(l.offer_to_idle(p, &pool, SimTime::ZERO), None);
        assert_eq!(l.stats, LinkStats::default());
        // Random drops at the queue entrance draw for every packet.
        let mut l = link(drop_tail(QueueLimit::Unlimited));
        l.congestion_loss = Some(Box::new(CongestionLoss {
            prob: 0.5,
            rng: RngStream::new(1, "congestion/test/ab"),
        }));
        assert_eq!(l.offer_to_idle(p, &pool, SimTime::ZERO), None);
        assert_eq!(l.stats, LinkStats::default());
    }
}
