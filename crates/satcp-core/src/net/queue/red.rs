//! Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993), optionally
//! "gentle" (Floyd 2000), with ECN marking (RFC 3168 Sec. 5).
//!
//! On every arrival the average queue `avg` (in packets) is updated:
//! `avg <- (1 - w_q) avg + w_q q`, or, if the queue was empty, decayed as if
//! `m` small packets had been sent during the idle time (`avg <- (1 -
//! w_q)^m avg`, the paper's Sec. 4 correction). Then:
//! - `avg < min_th`: enqueue;
//! - `min_th <= avg < max_th`: `p_b = max_p (avg - min_th) / (max_th -
//!   min_th)`, `p_a = p_b / (1 - count p_b)` (count = arrivals since the
//!   last early drop/mark), and the packet is marked (ECT with `ecn`) or
//!   dropped with probability `p_a`;
//! - `avg >= max_th`: dropped, or with `gentle` until `2 max_th` `p_b` rises
//!   linearly from `max_p` to 1 (and marking still applies);
//! - a full buffer (`limit`) drops regardless.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{math, Duration, RngStream, SimTime};
use crate::error::{bad, non_negative, positive, ScenarioError};
use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = "red"` with `red = { min_th, max_th, max_p, wq, gentle,
/// ecn_marking }`.
pub const KIND: QueueKind = QueueKind {
    name: "red",
    settings: super::read::<RedConfig>,
    schema: super::schema_of::<RedConfig>,
};

/// The RED parameters of one queue.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct RedConfig {
    /// Lower threshold on the average queue, packets.
    #[schemars(range(min = 0.0, max = crate::error::MAX_SETTING), extend("x-unit" = "packets"))]
    pub min_th: f64,
    /// Upper threshold on the average queue, packets (above `min_th`).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0), extend("x-unit" = "packets"))]
    pub max_th: f64,
    /// Early drop/mark probability reached at `max_th`.
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub max_p: f64,
    /// Weight of the current queue in the average.
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub wq: f64,
    /// p_b rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// Mark ECN-capable packets CE instead of dropping them early.
    pub ecn_marking: bool,
}

impl Default for RedConfig {
    /// The values Floyd recommends (min_th 5, max_th 15 = 3 min_th, max_p
    /// 0.1, w_q 0.002); plain RED, dropping.
    fn default() -> RedConfig {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.002,
            gentle: false,
            ecn_marking: false,
        }
    }
}

impl QueueSettings for RedConfig {
    fn validate(&self) -> Result<(), ScenarioError> {
        non_negative("min_th", self.min_th)?;
        positive("max_th", self.max_th)?;
        for (name, v) in [("max_p", self.max_p), ("wq", self.wq)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(bad(name, v, "must be in (0, 1]"));
            }
        }
        if self.max_th <= self.min_th {
            return Err(bad(
                "max_th",
                self.max_th,
                &format!("must be above min_th ({})", self.min_th),
            ));
        }
        Ok(())
    }

    fn build(&self, limit: QueueLimit, rate_bps: u64, rng: RngStream) -> Box<dyn Queue> {
        Box::new(Red::new(*self, limit, rate_bps, rng))
    }
}

/// The idle-time correction counts the packets the link could have sent
/// while the queue sat empty; a full-size 1500-byte datagram stands for
/// them (ns-2's `mean_pktsize` plays this role).
const IDLE_PACKET_BYTES: u32 = 1500;

pub struct Red {
    params: RedConfig,
    limit: QueueLimit,
    q: VecDeque<PacketId>,
    bytes: u64,
    avg: f64,
    /// Arrivals since the last early drop or mark; -1 while below min_th.
    count: i64,
    /// When the queue last became empty (None while it holds packets).
    idle_since: Option<SimTime>,
    /// Time one idle packet takes on the link.
    idle_packet_time: Duration,
    /// Decay factors `(1 - wq)^m` of the idle times seen (`IdleDecays`).
    decays: IdleDecays,
    rng: RngStream,
    ce_marks: u64,
}

/// The idle-time decay factors already computed, by idle time (ns). Arrivals
/// at an empty queue are mostly spaced by a few recurring gaps (a sender's
/// pace, the bottleneck's, multiples of them): in TCP-R's runs 57 % of the
/// idle times were one value and 85 % had come before at the same queue,
/// but one remembered value missed every other time as the gaps alternate,
/// and the division and `powf` of a miss were a tenth of the run. So they
/// are kept in a small direct-mapped table; the same idle time gives the
/// same factor, bit for bit, whether it is computed or found.
struct IdleDecays {
    slots: Box<[(u64, f64); IDLE_DECAY_SLOTS]>,
}

/// Slots of `IdleDecays` (4 KiB): enough for the gaps that recur.
const IDLE_DECAY_SLOTS: usize = 256;

impl IdleDecays {
    fn new() -> IdleDecays {
        // No idle time is u64::MAX ns long before the end of time.
        IdleDecays {
            slots: Box::new([(u64::MAX, 1.0); IDLE_DECAY_SLOTS]),
        }
    }

    /// The factor of `idle`, computed by `compute` if not found.
    #[inline]
    fn factor(&mut self, idle: u64, compute: impl FnOnce(u64) -> f64) -> f64 {
        // Fibonacci hashing: idle times are multiples of small units, so
        // their low bits alone would crowd a few slots.
        let slot = (idle.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        let entry = &mut self.slots[slot];
        if entry.0 != idle {
            *entry = (idle, compute(idle));
        }
        entry.1
    }
}

impl Red {
    /// `rate_bps` is the link's rate (for the idle-time correction); `rng`
    /// is the queue's own stream, so its draws leave the link's error model
    /// alone.
    pub fn new(params: RedConfig, limit: QueueLimit, rate_bps: u64, rng: RngStream) -> Red {
        Red {
            params,
            limit,
            q: VecDeque::new(),
            bytes: 0,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            idle_packet_time: Duration::serialization(IDLE_PACKET_BYTES, rate_bps.max(1)),
            decays: IdleDecays::new(),
            rng,
            ce_marks: 0,
        }
    }

    /// The average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    fn update_avg(&mut self, now: SimTime) {
        let w = self.params.wq;
        match self.idle_since {
            // A zero average stays zero whatever the factor (it lies in
            // [0, 1]): a queue whose arrivals never wait (an ACK path, a
            // fast access link) has nothing to decay. In TCP-R's runs two
            // idle arrivals in three, and two of the factor's misses in
            // three, were such.
            Some(_) if self.q.is_empty() && self.avg == 0.0 => {}
            Some(t) if self.q.is_empty() => {
                let idle = now.0.saturating_sub(t.0);
                let packet_time = self.idle_packet_time.0.max(1);
                // The conversions and the division only on a miss.
                self.avg *= self.decays.factor(idle, |idle| {
                    math::powf(1.0 - w, idle as f64 / packet_time as f64)
                });
            }
            _ => self.avg = (1.0 - w) * self.avg + w * self.q.len() as f64,
        }
    }

    /// p_b for the current average: None below min_th, Some(1.0) where
    /// every arrival is dropped.
    fn base_probability(&self) -> Option<f64> {
        let RedConfig {
            min_th,
            max_th,
            max_p,
            gentle,
            ..
        } = self.params;
        let a = self.avg;
        if a < min_th {
            None
        } else if a < max_th {
            Some(max_p * (a - min_th) / (max_th - min_th))
        } else if gentle && a < 2.0 * max_th {
            Some(max_p + (1.0 - max_p) * (a - max_th) / max_th)
        } else {
            Some(1.0)
        }
    }

    /// Whether the arrival is chosen for an early drop or mark.
    fn early_congestion(&mut self) -> bool {
        let Some(p_b) = self.base_probability() else {
            self.count = -1;
            return false;
        };
        if p_b >= 1.0 {
            self.count = 0;
            return true;
        }
        self.count += 1;
        // Uniform spacing of marks: p_a grows with the arrivals since the
        // last one (the paper's count method).
        let denom = 1.0 - self.count as f64 * p_b;
        let p_a = if denom <= 0.0 { 1.0 } else { p_b / denom };
        if self.rng.uniform() < p_a {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl Queue for Red {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.update_avg(now);
        let size = pool.get(pkt).size;
        if !self.limit.admits(self.q.len(), self.bytes, size) {
            dropped.push((pkt, DropCause::Overflow));
            return;
        }
        if self.early_congestion() {
            // Above max_th without gentle the router is past warning: the
            // forced drop stays a drop even for ECN-capable packets.
            let forced = self.avg >= self.params.max_th && !self.params.gentle;
            let p = pool.get_mut(pkt);
            if self.params.ecn_marking && !forced && p.ecn != Ecn::NotEct {
                if p.ecn == Ecn::Ect {
                    p.ecn = Ecn::Ce;
                    self.ce_marks += 1;
                }
            } else {
                dropped.push((pkt, DropCause::EarlyDrop));
                return;
            }
        }
        self.idle_since = None;
        self.bytes += size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        _dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let p = self.q.pop_front()?;
        self.bytes -= pool.get(p).size as u64;
        if self.q.is_empty() {
            self.idle_since = Some(now);
        }
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::test_packet;

    fn params(ecn_marking: bool) -> RedConfig {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.002,
            gentle: false,
            ecn_marking,
        }
    }

    fn red(p: RedConfig, limit: usize) -> Red {
        Red::new(
            p,
            QueueLimit::Packets(limit),
            1_000_000,
            RngStream::new(7, "queue/test/ab"),
        )
    }

    fn pkt(pool: &mut PacketPool, ecn: Ecn) -> PacketId {
        test_packet(pool, 0, 1000, ecn)
    }

    #[test]
    fn settings_default_to_floyds_and_are_checked() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        read(serde_json::json!({"min_th": 10, "max_th": 30, "gentle": true})).unwrap();
        for (v, field) in [
            (serde_json::json!({"min_th": -1}), "min_th"),
            (serde_json::json!({"max_th": 0}), "max_th"),
            (serde_json::json!({"max_p": 0}), "max_p"),
            (serde_json::json!({"wq": 1.5}), "wq"),
            (serde_json::json!({"min_th": 20}), "max_th"),
            (serde_json::json!({"ecn_marking": 1}), "ecn_marking"),
            (serde_json::json!({"w_q": 0.1}), "w_q"),
        ] {
            assert_eq!(read(v.clone()).unwrap_err().field, field, "{v}");
        }
        let e = read(serde_json::json!({"max_th": 4})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid scenario: max_th: 4 must be above min_th (5)"
        );
    }

    #[test]
    fn average_follows_the_ewma_and_decays_when_idle() {
        let mut pool = PacketPool::default();
        let mut q = red(params(false), 1000);
        let mut dropped = vec![];
        let t = SimTime::ZERO;
        // First arrival to an empty queue at time 0: no idle time yet.
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        assert_eq!(q.avg(), 0.0);
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        assert!((q.avg() - 0.002).abs() < 1e-12);
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        let expect = 0.998 * 0.002 + 0.002 * 2.0;
        assert!((q.avg() - expect).abs() < 1e-12);
        // Empty it, stay idle for 100 packet times (12 ms each at 1 Mb/s).
        while q.dequeue(&mut pool, t, &mut vec![]).is_some() {}
        let later = t + Duration(100 * 12_000_000);
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, later, &mut dropped);
        let decayed = expect * math::powf(0.998, 100.0);
        assert!((q.avg() - decayed).abs() < 1e-12);
        assert!(dropped.is_empty());
    }

    #[test]
    fn idle_decays_alike_and_unlike_are_each_exact() {
        // Idle times of 100, 100 and 37 packet times (12 ms each at 1 Mb/s),
        // alternating, then 600 different ones (more than the table holds,
        // so slots are taken over and taken back): each average is
        // powf's, to the bit, whether the factor was found or computed.
        let mut pool = PacketPool::default();
        let mut q = red(params(false), 1000);
        let mut dropped = vec![];
        let mut t = SimTime::ZERO;
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        let idle_times = [100u64, 100, 37, 100, 37, 37].into_iter().chain(1..=600);
        for idle_packets in idle_times.chain([100, 37]) {
            while q.dequeue(&mut pool, t, &mut vec![]).is_some() {}
            let before = q.avg();
            assert!(before > 0.0);
            t += Duration(idle_packets * 12_000_000);
            q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
            assert_eq!(q.avg(), before * math::powf(0.998, idle_packets as f64));
            // A second packet while the first waits: the average rises again.
            q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        }
        assert!(dropped.is_empty());
    }

    #[test]
    fn arrivals_that_never_wait_keep_a_zero_average_and_compute_no_decay() {
        // Each packet leaves before the next arrives (an ACK path): the
        // average stays 0 and no decay factor is computed or kept; the
        // first arrival that finds one waiting starts the average.
        let mut pool = PacketPool::default();
        let mut q = red(params(false), 1000);
        let mut dropped = vec![];
        let mut t = SimTime::ZERO;
        for gap_ms in [3u64, 7, 3, 11, 5000] {
            t += Duration(gap_ms * 1_000_000);
            q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
            assert_eq!(q.avg(), 0.0);
            q.dequeue(&mut pool, t, &mut vec![]).unwrap();
        }
        assert!(q.decays.slots.iter().all(|&(idle, _)| idle == u64::MAX));
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        q.enqueue(pkt(&mut pool, Ecn::NotEct), &mut pool, t, &mut dropped);
        assert_eq!(q.avg(), 0.002);
        assert!(dropped.is_empty());
    }

    #[test]
    fn base_probability_regions() {
        let mut q = red(params(false), 1000);
        q.avg = 4.9;
        assert_eq!(q.base_probability(), None);
        q.avg = 10.0;
        assert!((q.base_probability().unwrap() - 0.05).abs() < 1e-12);
        q.avg = 15.0;
        assert_eq!(q.base_probability(), Some(1.0));
        q.params.gentle = true;
        assert!((q.base_probability().unwrap() - 0.1).abs() < 1e-12);
        q.avg = 22.5;
        assert!((q.base_probability().unwrap() - 0.55).abs() < 1e-12);
        q.avg = 30.0;
        assert_eq!(q.base_probability(), Some(1.0));
    }

    /// Holds the average at `avg` by hand and offers `n` packets.
    fn offer_at(q: &mut Red, avg: f64, n: usize, ecn: Ecn) -> (usize, usize) {
        let mut pool = PacketPool::default();
        q.params.wq = 0.0;
        q.idle_since = None;
        q.avg = avg;
        let (mut drops, mut marks) = (0, 0);
        for _ in 0..n {
            let mut dropped = vec![];
            let p = pkt(&mut pool, ecn);
            q.enqueue(p, &mut pool, SimTime::ZERO, &mut dropped);
            drops += dropped.len();
            if dropped.is_empty() {
                if pool.get(p).ecn == Ecn::Ce {
                    marks += 1;
                }
                q.dequeue(&mut pool, SimTime::ZERO, &mut vec![]);
                q.idle_since = None;
            }
        }
        (drops, marks)
    }

    #[test]
    fn early_region_drops_at_about_p_a() {
        // p_b = 0.05 at avg 10; the count method makes the gaps uniform on
        // 1..1/p_b, so about 2 p_b / (1 + p_b) ~ 9.5 % of arrivals go.
        let mut q = red(params(false), 1000);
        let (drops, marks) = offer_at(&mut q, 10.0, 10_000, Ecn::Ect);
        assert_eq!(marks, 0);
        assert!((850..1050).contains(&drops), "{drops}");
        let mut q = red(params(false), 1000);
        assert_eq!(offer_at(&mut q, 4.0, 1000, Ecn::Ect), (0, 0));
    }

    #[test]
    fn ecn_marks_ect_packets_and_drops_the_others() {
        let mut q = red(params(true), 1000);
        let (drops, marks) = offer_at(&mut q, 10.0, 10_000, Ecn::Ect);
        assert_eq!(drops, 0);
        assert!((850..1050).contains(&marks), "{marks}");
        assert_eq!(q.ce_marks(), marks as u64);
        let mut q = red(params(true), 1000);
        let (drops, marks) = offer_at(&mut q, 10.0, 10_000, Ecn::NotEct);
        assert_eq!(marks, 0);
        assert!((850..1050).contains(&drops), "{drops}");
    }

    #[test]
    fn above_max_th_drops_unless_gentle() {
        let mut q = red(params(true), 1000);
        assert_eq!(offer_at(&mut q, 16.0, 100, Ecn::Ect), (100, 0));
        let mut p = params(true);
        p.gentle = true;
        let mut q = red(p, 1000);
        let (drops, marks) = offer_at(&mut q, 16.0, 1000, Ecn::Ect);
        assert_eq!(drops, 0);
        assert!(marks > 100, "{marks}");
    }

    #[test]
    fn full_buffer_drops_even_below_min_th() {
        let mut pool = PacketPool::default();
        let mut q = red(params(true), 2);
        let mut dropped = vec![];
        for _ in 0..3 {
            let p = pkt(&mut pool, Ecn::Ect);
            q.enqueue(p, &mut pool, SimTime::ZERO, &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!(q.len_packets(), 2);
    }
}
