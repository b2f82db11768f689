//! CoDel, Controlled Delay (RFC 8289): a FIFO that watches how long each
//! packet waited (its sojourn time) and drops at the head, as packets
//! leave, once the sojourn has stayed above `target` for a whole
//! `interval`. The rules, each tested below under its name:
//! - Sec. 3.2/5.3 (`dodequeue`): a sojourn below `target`, or a queue
//!   holding at most one MTU after the dequeue, clears `first_above_time`;
//!   the first sojourn above it arms `first_above_time = now + interval`;
//!   a packet leaving at or after that time is "ok to drop";
//! - Sec. 5.4 (entering the dropping state): the first ok-to-drop packet
//!   is dropped, `count` starts at 1, or at `count - lastcount` when the
//!   state is re-entered within 16 intervals of the last drop time and
//!   that difference is above 1 (the drop rate it had reached is reused);
//!   `drop_next = now + interval / sqrt(count)`;
//! - Sec. 5.5 (in the dropping state): a packet that is not ok to drop
//!   leaves the state; otherwise while `now >= drop_next` the head is
//!   dropped, `count` grows by 1 and `drop_next` moves on by
//!   `interval / sqrt(count)` (the control law, Sec. 3.3);
//! - an empty queue leaves the dropping state.
//!
//! With `ecn_marking`, an ECN-capable packet CoDel would drop is marked
//! CE and sent instead (Sec. 5.4's "drop or mark", as Linux's codel does:
//! the mark counts as the drop, and the state machine moves on the same
//! way), the choice RED's `ecn_marking` makes at arrival.
//!
//! The `CodelFifo` here is the per-queue state machine; `queue = "codel"`
//! is one of them with the link's limit (tail drop when full), and
//! FQ-CoDel (`fq_codel.rs`) runs one per flow.

use super::{Queue, QueueKind, QueueLimit, QueueSettings};
use crate::engine::{Duration, RngStream, SimTime};
use crate::error::{range, ScenarioError, MAX_SIM_SECONDS};
use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::net::router::DropCause;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = "codel"` with `codel = { target_s, interval_s, ecn_marking }`.
pub const KIND: QueueKind = QueueKind {
    name: "codel",
    settings: super::read::<CodelConfig>,
    schema: super::schema_of::<CodelConfig>,
};

/// The largest packet: a queue holding no more than this after a dequeue
/// is not "persistently" full (RFC 8289 Sec. 5.3's MAXPACKET, the MTU).
pub const MAX_PACKET_BYTES: u64 = 1500;

/// The re-entry window of Sec. 5.4: the drop rate reached is reused if the
/// dropping state is entered again within this many intervals.
const REENTRY_INTERVALS: u64 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct CodelConfig {
    /// Acceptable standing queue delay, seconds (RFC 8289 Sec. 4.4: 5 ms).
    #[schemars(range(min = crate::net::queue::codel::MIN_TIME_S, max = crate::error::MAX_SIM_SECONDS))]
    pub target_s: f64,
    /// The time a sojourn must stay above target before drops start, and
    /// the base of the control law, seconds (Sec. 4.3: 100 ms, a
    /// worst-case RTT of the terrestrial Internet; a GEO path's RTT is
    /// above 500 ms, so a satellite scenario may want more).
    #[schemars(range(min = crate::net::queue::codel::MIN_TIME_S, max = crate::error::MAX_SIM_SECONDS))]
    pub interval_s: f64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn_marking: bool,
}

impl Default for CodelConfig {
    /// RFC 8289's values: target 5 ms, interval 100 ms; dropping.
    fn default() -> CodelConfig {
        CodelConfig {
            target_s: 0.005,
            interval_s: 0.1,
            ecn_marking: false,
        }
    }
}

/// The shortest `target_s` and `interval_s`: the clock's resolution.
pub const MIN_TIME_S: f64 = 1e-9;

impl CodelConfig {
    /// Both times from the clock's nanosecond (a shorter one would round
    /// to zero) to `MAX_SIM_SECONDS`.
    pub fn check(&self) -> Result<(), ScenarioError> {
        range("target_s", self.target_s, MIN_TIME_S, MAX_SIM_SECONDS)?;
        range("interval_s", self.interval_s, MIN_TIME_S, MAX_SIM_SECONDS)?;
        Ok(())
    }

    pub fn params(&self) -> CodelParams {
        CodelParams {
            target: Duration::from_secs_f64(self.target_s),
            interval: Duration::from_secs_f64(self.interval_s),
            ecn_marking: self.ecn_marking,
        }
    }
}

impl QueueSettings for CodelConfig {
    fn validate(&self) -> Result<(), ScenarioError> {
        self.check()
    }

    fn build(&self, limit: QueueLimit, _rate_bps: u64, _rng: RngStream) -> Box<dyn Queue> {
        Box::new(Codel::new(self.params(), limit))
    }
}

/// The settings in simulation time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: Duration,
    pub interval: Duration,
    pub ecn_marking: bool,
}

/// What `CodelFifo::dequeue` did besides returning a packet.
#[derive(Debug, Default, PartialEq)]
pub struct CodelOutcome {
    pub dropped: u32,
    pub dropped_bytes: u64,
    pub marked: u32,
}

/// A FIFO with CoDel's state (RFC 8289 Sec. 5.2's variables).
#[derive(Default)]
pub struct CodelFifo {
    /// Each packet with the time it entered.
    q: VecDeque<(PacketId, SimTime)>,
    bytes: u64,
    /// When the sojourn time first went above target, plus an interval
    /// (None: it is below target).
    first_above_time: Option<SimTime>,
    /// When the next packet is to be dropped (in the dropping state), or
    /// the last drop time (outside it, for the re-entry rule).
    drop_next: SimTime,
    /// Drops since entering the dropping state.
    count: u64,
    /// `count` when the dropping state was last entered.
    lastcount: u64,
    dropping: bool,
}

impl CodelFifo {
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn push(&mut self, pkt: PacketId, size: u32, now: SimTime) {
        self.bytes += size as u64;
        self.q.push_back((pkt, now));
    }

    /// Takes the head out without CoDel's rules (a drop on overflow).
    pub fn pop_head(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let (p, _) = self.q.pop_front()?;
        self.bytes -= pool.get(p).size as u64;
        Some(p)
    }

    /// RFC 8289's `dodequeue`: the head, and whether it may be dropped.
    fn dodequeue(
        &mut self,
        pool: &PacketPool,
        now: SimTime,
        p: &CodelParams,
    ) -> Option<(PacketId, bool)> {
        let Some((pkt, entered)) = self.q.pop_front() else {
            self.first_above_time = None;
            return None;
        };
        self.bytes -= pool.get(pkt).size as u64;
        let sojourn = now.0.saturating_sub(entered.0);
        let mut ok_to_drop = false;
        if sojourn < p.target.0 || self.bytes <= MAX_PACKET_BYTES {
            // Went below target, or too little is queued to matter: stay
            // (or go back to) not dropping.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        Some((pkt, ok_to_drop))
    }

    /// The control law (Sec. 3.3): the next drop `interval / sqrt(count)`
    /// after `t`.
    fn control_law(t: SimTime, count: u64, p: &CodelParams) -> SimTime {
        let gap = p.interval.0 as f64 / (count.max(1) as f64).sqrt();
        SimTime(t.0 + gap as u64)
    }

    /// Drops `pkt`, or marks it CE and keeps it (returned true) when ECN
    /// marking is on and the packet is ECN-capable.
    fn drop_or_mark(
        pkt: PacketId,
        pool: &mut PacketPool,
        p: &CodelParams,
        dropped: &mut Vec<(PacketId, DropCause)>,
        out: &mut CodelOutcome,
    ) -> bool {
        let packet = pool.get_mut(pkt);
        if p.ecn_marking && packet.ecn != Ecn::NotEct {
            if packet.ecn == Ecn::Ect {
                packet.ecn = Ecn::Ce;
                out.marked += 1;
            }
            return true;
        }
        out.dropped += 1;
        out.dropped_bytes += packet.size as u64;
        // CoDel's drop is an active queue manager's decision, as RED's
        // early drop is, not an overflow.
        dropped.push((pkt, DropCause::EarlyDrop));
        false
    }

    /// RFC 8289 Sec. 5.4-5.5's `dequeue`: the packet to send, after
    /// dropping (or marking) what the state machine says.
    pub fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        p: &CodelParams,
        dropped: &mut Vec<(PacketId, DropCause)>,
        out: &mut CodelOutcome,
    ) -> Option<PacketId> {
        let Some((mut pkt, ok_to_drop)) = self.dodequeue(pool, now, p) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // Sojourn went below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if Self::drop_or_mark(pkt, pool, p, dropped, out) {
                    // Marked: it is sent, and the next mark is scheduled.
                    self.drop_next = Self::control_law(self.drop_next, self.count, p);
                    return Some(pkt);
                }
                match self.dodequeue(pool, now, p) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((next, ok)) => {
                        pkt = next;
                        if !ok {
                            self.dropping = false;
                        } else {
                            self.drop_next = Self::control_law(self.drop_next, self.count, p);
                        }
                    }
                }
            }
        } else if ok_to_drop {
            if !Self::drop_or_mark(pkt, pool, p, dropped, out) {
                // The RFC sends the next packet whatever its sojourn, and
                // enters the dropping state even when there is none (the
                // next dequeue of an empty queue leaves it).
                let next = self.dodequeue(pool, now, p);
                self.enter_dropping(now, p);
                return next.map(|(n, _)| n);
            }
            self.enter_dropping(now, p);
        }
        Some(pkt)
    }

    /// Sec. 5.4: enter the dropping state, reusing the drop rate reached
    /// before if the state was left recently.
    fn enter_dropping(&mut self, now: SimTime, p: &CodelParams) {
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        self.count = 1;
        let recent = now.0.saturating_sub(self.drop_next.0) < REENTRY_INTERVALS * p.interval.0;
        if delta > 1 && recent {
            self.count = delta;
        }
        self.drop_next = Self::control_law(now, self.count, p);
        self.lastcount = self.count;
    }
}

/// `queue = "codel"`: one CoDel FIFO; an arrival to a full buffer (the
/// link's `queue_packets` or `queue_bytes`) is dropped.
pub struct Codel {
    params: CodelParams,
    limit: QueueLimit,
    fifo: CodelFifo,
    ce_marks: u64,
}

impl Codel {
    pub fn new(params: CodelParams, limit: QueueLimit) -> Codel {
        Codel {
            params,
            limit,
            fifo: CodelFifo::default(),
            ce_marks: 0,
        }
    }
}

impl Queue for Codel {
    fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let size = pool.get(pkt).size;
        if !self.limit.admits(self.fifo.len(), self.fifo.bytes(), size) {
            dropped.push((pkt, DropCause::Overflow));
            return;
        }
        self.fifo.push(pkt, size, now);
    }

    fn dequeue(
        &mut self,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let mut out = CodelOutcome::default();
        let p = self
            .fifo
            .dequeue(pool, now, &self.params, dropped, &mut out);
        self.ce_marks += out.marked as u64;
        p
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::queue::test_packet;

    pub fn pkt(pool: &mut PacketPool, endpoint: u32, ecn: Ecn) -> PacketId {
        test_packet(pool, endpoint, 1000, ecn)
    }

    pub fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    fn params(ecn: bool) -> CodelParams {
        CodelConfig {
            ecn_marking: ecn,
            ..CodelConfig::default()
        }
        .params()
    }

    /// A FIFO of `n` packets that entered at time 0.
    fn filled(pool: &mut PacketPool, n: usize, ecn: Ecn) -> CodelFifo {
        let mut f = CodelFifo::default();
        for _ in 0..n {
            let p = pkt(pool, 0, ecn);
            f.push(p, 1000, SimTime::ZERO);
        }
        f
    }

    fn deq(f: &mut CodelFifo, pool: &mut PacketPool, t: SimTime, ecn: bool) -> (bool, usize) {
        let mut dropped = vec![];
        let mut out = CodelOutcome::default();
        let got = f.dequeue(pool, t, &params(ecn), &mut dropped, &mut out);
        (got.is_some(), dropped.len())
    }

    #[test]
    fn settings_default_to_the_rfcs_and_are_checked() {
        let read = |v: serde_json::Value| (KIND.settings)(&v);
        read(serde_json::Value::Null).unwrap();
        let c = CodelConfig::default();
        assert_eq!(
            (c.target_s, c.interval_s, c.ecn_marking),
            (0.005, 0.1, false)
        );
        read(serde_json::json!({"target_s": 0.02, "interval_s": 0.6, "ecn_marking": true}))
            .unwrap();
        for (v, field) in [
            (serde_json::json!({"target_s": 0}), "target_s"),
            (serde_json::json!({"interval_s": -1}), "interval_s"),
            (serde_json::json!({"target": 0.1}), "target"),
        ] {
            assert_eq!(read(v.clone()).unwrap_err().field, field, "{v}");
        }
    }

    #[test]
    fn sec_5_3_a_sojourn_below_target_never_drops() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 50, Ecn::NotEct);
        // Each leaves 4 ms after it entered: below the 5 ms target.
        for i in 0..50 {
            let t = ms(4);
            assert_eq!(deq(&mut f, &mut pool, t, false), (true, 0), "{i}");
        }
        assert_eq!(f.first_above_time, None);
    }

    #[test]
    fn sec_5_3_the_first_sojourn_above_target_arms_first_above_time() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 10, Ecn::NotEct);
        assert_eq!(deq(&mut f, &mut pool, ms(10), false), (true, 0));
        assert_eq!(f.first_above_time, Some(ms(110)));
        // Still above target, but not yet a whole interval: no drop.
        assert_eq!(deq(&mut f, &mut pool, ms(109), false), (true, 0));
        assert!(!f.dropping);
    }

    #[test]
    fn sec_5_3_at_most_one_mtu_queued_is_not_a_standing_queue() {
        let mut pool = PacketPool::default();
        // Two packets: after the first leaves, 1000 bytes remain <= MTU.
        let mut f = filled(&mut pool, 2, Ecn::NotEct);
        f.first_above_time = Some(ms(1));
        assert_eq!(deq(&mut f, &mut pool, ms(500), false), (true, 0));
        assert_eq!(f.first_above_time, None);
    }

    #[test]
    fn sec_5_4_a_whole_interval_above_target_drops_and_enters_dropping() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        deq(&mut f, &mut pool, ms(10), false);
        assert_eq!(deq(&mut f, &mut pool, ms(110), false), (true, 1));
        assert!(f.dropping);
        assert_eq!(f.count, 1);
        assert_eq!(f.drop_next, ms(210));
    }

    #[test]
    fn sec_3_3_the_control_law_spaces_drops_by_interval_over_sqrt_count() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 200, Ecn::NotEct);
        deq(&mut f, &mut pool, ms(10), false);
        deq(&mut f, &mut pool, ms(110), false);
        // Before drop_next: no drop.
        assert_eq!(deq(&mut f, &mut pool, ms(209), false), (true, 0));
        // At drop_next: the second drop, next one 100/sqrt(2) ms later.
        assert_eq!(deq(&mut f, &mut pool, ms(210), false), (true, 1));
        assert_eq!(f.count, 2);
        let gap = f.drop_next.0 - ms(210).0;
        assert_eq!(gap, (100e6 / 2f64.sqrt()) as u64);
        // Far past drop_next: one dequeue drops until drop_next is ahead.
        let (_, n) = deq(&mut f, &mut pool, ms(400), false);
        assert!(n >= 2, "{n}");
        assert!(f.drop_next > ms(400));
    }

    #[test]
    fn sec_5_5_a_sojourn_below_target_leaves_the_dropping_state() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        deq(&mut f, &mut pool, ms(10), false);
        deq(&mut f, &mut pool, ms(110), false);
        assert!(f.dropping);
        // A fresh packet at the head leaves after 1 ms.
        while !f.is_empty() {
            f.pop_head(&pool);
        }
        for _ in 0..5 {
            let p = pkt(&mut pool, 0, Ecn::NotEct);
            f.push(p, 1000, ms(300));
        }
        assert_eq!(deq(&mut f, &mut pool, ms(301), false), (true, 0));
        assert!(!f.dropping);
    }

    #[test]
    fn sec_5_5_an_empty_queue_leaves_the_dropping_state() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        deq(&mut f, &mut pool, ms(10), false);
        deq(&mut f, &mut pool, ms(110), false);
        while !f.is_empty() {
            f.pop_head(&pool);
        }
        assert_eq!(deq(&mut f, &mut pool, ms(120), false), (false, 0));
        assert!(!f.dropping);
        assert_eq!(f.first_above_time, None);
    }

    #[test]
    fn sec_5_4_reentering_soon_reuses_the_count_reached() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        f.count = 10;
        f.lastcount = 4;
        f.drop_next = ms(1000);
        f.first_above_time = Some(ms(1100));
        // Re-entering within 16 intervals of the last drop: count = 6.
        assert_eq!(deq(&mut f, &mut pool, ms(1200), false), (true, 1));
        assert_eq!((f.count, f.lastcount), (6, 6));
        let gap = f.drop_next.0 - ms(1200).0;
        assert_eq!(gap, (100e6 / 6f64.sqrt()) as u64);
        // Long after (more than 16 intervals): count starts again at 1.
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        f.count = 10;
        f.lastcount = 4;
        f.drop_next = ms(1000);
        f.first_above_time = Some(ms(2000));
        deq(&mut f, &mut pool, ms(2700), false);
        assert_eq!(f.count, 1);
    }

    #[test]
    fn sec_5_4_ecn_capable_packets_are_marked_not_dropped() {
        let mut pool = PacketPool::default();
        let mut f = filled(&mut pool, 20, Ecn::Ect);
        deq(&mut f, &mut pool, ms(10), true);
        let mut dropped = vec![];
        let mut out = CodelOutcome::default();
        let p = f
            .dequeue(&mut pool, ms(110), &params(true), &mut dropped, &mut out)
            .unwrap();
        assert!(dropped.is_empty());
        assert_eq!(out.marked, 1);
        assert_eq!(pool.get(p).ecn, Ecn::Ce);
        assert!(f.dropping);
        // Not ECN-capable: dropped even with marking on.
        let mut f = filled(&mut pool, 20, Ecn::NotEct);
        deq(&mut f, &mut pool, ms(10), true);
        assert_eq!(deq(&mut f, &mut pool, ms(110), true), (true, 1));
    }

    #[test]
    fn a_full_codel_buffer_drops_the_arrival() {
        let mut pool = PacketPool::default();
        let mut q = Codel::new(params(false), QueueLimit::Packets(2));
        let mut dropped = vec![];
        for _ in 0..3 {
            let p = pkt(&mut pool, 0, Ecn::NotEct);
            q.enqueue(p, &mut pool, SimTime::ZERO, &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].1, DropCause::Overflow);
        assert_eq!(q.len_packets(), 2);
    }
}
