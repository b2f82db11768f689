//! One direction of a point-to-point link: an output queue, a transmitter of
//! fixed rate, a propagation delay and an error model. A full-duplex link is
//! two of these; satellite asymmetry is just different parameters per
//! direction.

use super::error_model::ErrorModel;
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
}

pub struct Link {
    pub id: LinkId,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Duration,
    pub queue: Box<dyn Queue>,
    pub errors: ErrorModel,
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
    /// Packet being serialized, if any.
    pub in_service: Option<PacketId>,
    pub stats: LinkStats,
}

impl Link {
    /// Offers a packet to the output queue; drops go into `dropped`.
    pub fn offer(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.stats.enqueued_packets += 1;
        let before = dropped.len();
        self.queue.enqueue(pkt, pool, now, dropped);
        self.stats.queue_drops += (dropped.len() - before) as u64;
        self.stats.ce_marks = self.queue.ce_marks();
        let q = self.queue.len_packets() as u64;
        if q > self.stats.max_queue_packets {
            self.stats.max_queue_packets = q;
        }
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

    /// If the transmitter is idle and a packet waits, starts sending it and
    /// returns when its last bit leaves.
    pub fn start_next(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<SimTime> {
        if self.in_service.is_some() {
            return None;
        }
        let p = self.queue.dequeue(pool, now)?;
        let size = pool.get(p).size;
        if let Some(r) = self.rate_schedule.as_mut() {
            self.rate_bps = r.at(now).round() as u64;
        }
        let tx = Duration::serialization(size, self.rate_bps);
        self.in_service = Some(p);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size as u64;
        self.stats.busy_ns += tx.0;
        Some(now + tx)
    }
}
