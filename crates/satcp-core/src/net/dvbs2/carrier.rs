//! A DVB-S2 forward carrier on a link direction: frame after frame, each
//! with the MODCOD that ACM chose for its terminal, filled with that
//! terminal's packets in GSE, sent in the PLFRAME's time at the symbol
//! rate. The packets whose last byte is in a frame leave when it ends,
//! together (the receiver decodes the whole frame first), or are lost
//! together when it fails.
//!
//! With one terminal (the far end), the frames take the direction's queue's
//! packets in its order. With several (`dvbs2.terminals`), each terminal
//! has its own drop-tail queue of the direction's `queue_packets`, and the
//! frames go to the terminals with packets in turn (round robin, a frame
//! each), each with its own MODCOD.
//!
//! A frame is built when the transmitter is free and a packet waits; it
//! takes what its terminal's queue holds then (later packets wait for the
//! next frame) and is padded if that is not enough: the gateway does not
//! wait to fill frames, and an idle carrier sends nothing (its dummy
//! frames cost no one anything). A frame that completes no packet (a long
//! packet's middle fragment in a small frame) is followed at once by the
//! next.

use super::acm::{self, Acm};
use super::esn0::EsN0;
use super::framing::{data_field_bytes, FrameSize, Packer, Released};
use super::modcod::Modcod;
use super::Dvbs2Config;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{NodeId, PacketId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What the carrier sent, in the results (`links[].dvbs2`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CarrierStats {
    /// BBFrames sent, and of them lost (Es/N0 below the MODCOD's).
    pub frames: u64,
    pub frames_lost: u64,
    /// Bytes of the data fields: IP packets, GSE headers, padding.
    pub payload_bytes: u64,
    pub gse_header_bytes: u64,
    pub padding_bytes: u64,
    /// Frames per MODCOD.
    pub frames_by_modcod: BTreeMap<&'static str, u64>,
    /// With several terminals: frames, frames lost and packets dropped at
    /// their queues, per terminal (the far end by its node's name too).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub terminals: BTreeMap<String, TerminalStats>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TerminalStats {
    pub frames: u64,
    pub frames_lost: u64,
    pub queue_drops: u64,
}

/// A terminal the carrier sends to: its Es/N0, the packet it is carrying
/// in fragments, and (when it shares the carrier) its queue.
#[derive(Debug)]
struct Terminal {
    /// Its node's name; empty for the far end until the link is placed.
    node: String,
    esn0: EsN0,
    packer: Packer,
    queue: VecDeque<(PacketId, u32)>,
    stats: TerminalStats,
}

#[derive(Debug)]
pub struct Carrier {
    symbol_rate_baud: f64,
    frame: FrameSize,
    pilots: bool,
    loop_delay: Duration,
    acm: Acm,
    /// The far end first, then the terminals that share the carrier.
    terminals: Vec<Terminal>,
    /// The terminal of each destination node (index into `terminals`);
    /// empty: all the far end's.
    terminal_of: Vec<u16>,
    /// Packets in the terminals' queues, kept as they change: the link
    /// reads it with every packet offered, and a beam has thousands.
    queued: usize,
    /// The most packets each terminal's queue holds (shared carriers).
    queue_limit: usize,
    /// The terminal that had the last frame.
    turn: usize,
    /// The terminals with a packet waiting, whole or in part (shared
    /// carriers): the turn passes among them without a look at the idle
    /// ones, which in a beam are most of thousands.
    waiting: BTreeSet<usize>,
    /// Packets of the last frame sent, to leave when it ends.
    packed: VecDeque<Released>,
    /// When the last frame sent ends.
    frames_end: SimTime,
    /// Whether the packet last released was in a lost frame.
    released_lost: bool,
    busy_ns: u64,
    stats: CarrierStats,
}

impl Carrier {
    /// The carrier `c` describes, its MODCODs chosen from Es/N0 measured
    /// `loop_delay` earlier: the far end's `far_end`, and each terminal's
    /// that shares it (`shared`: node and Es/N0) with a queue of
    /// `queue_limit` packets.
    pub fn new(
        c: &Dvbs2Config,
        loop_delay: Duration,
        far_end: EsN0,
        shared: Vec<(String, EsN0)>,
        queue_limit: usize,
    ) -> Carrier {
        let (frame, pilots) = (c.frame, c.pilots);
        let efficiency = |m: &Modcod| {
            let bits = frame.kbch(m).expect("validated: the frame size exists") as f64;
            bits / frame.symbols(m.modulation, pilots) as f64
        };
        let modcods = c.modcod_set().expect("validated");
        let set = modcods.iter().map(|&m| (m, efficiency(m))).collect();
        let terminal = |node: String, esn0: EsN0| Terminal {
            node,
            esn0,
            packer: Packer::new(c.gse_label_bytes),
            queue: VecDeque::new(),
            stats: TerminalStats::default(),
        };
        let terminals = std::iter::once(terminal(String::new(), far_end))
            .chain(shared.into_iter().map(|(n, e)| terminal(n, e)))
            .collect();
        Carrier {
            symbol_rate_baud: c.symbol_rate_baud,
            frame,
            pilots,
            loop_delay,
            acm: Acm::new(set, c.margin_db),
            terminals,
            terminal_of: Vec::new(),
            queued: 0,
            queue_limit,
            turn: 0,
            waiting: BTreeSet::new(),
            packed: VecDeque::new(),
            frames_end: SimTime::ZERO,
            released_lost: false,
            busy_ns: 0,
            stats: CarrierStats::default(),
        }
    }

    /// Several terminals share the carrier: packets go to their queues
    /// (`enqueue`), not to the direction's.
    pub fn is_shared(&self) -> bool {
        self.terminals.len() > 1
    }

    /// The nodes of the terminals that share the carrier, in order (the
    /// far end's not included).
    pub fn shared_nodes(&self) -> impl Iterator<Item = &str> {
        self.terminals[1..].iter().map(|t| t.node.as_str())
    }

    /// Places the carrier: the far end's node name, and the terminal of
    /// each destination node (0: the far end, i: `shared_nodes`' i-th).
    pub fn place(&mut self, far_end: &str, terminal_of: Vec<u16>) {
        self.terminals[0].node = far_end.to_string();
        self.terminal_of = terminal_of;
    }

    /// A packet for `dst` arrives (a shared carrier): into its terminal's
    /// queue; false if the queue is full (the packet is dropped).
    pub fn enqueue(&mut self, p: PacketId, size: u32, dst: NodeId) -> bool {
        let k = self.terminal_of.get(dst as usize).copied().unwrap_or(0) as usize;
        let t = &mut self.terminals[k];
        if t.queue.len() >= self.queue_limit {
            t.stats.queue_drops += 1;
            return false;
        }
        t.queue.push_back((p, size));
        self.queued += 1;
        self.waiting.insert(k);
        true
    }

    /// Packets waiting in the terminals' queues.
    pub fn queued(&self) -> usize {
        self.queued
    }

    pub fn stats(&self) -> CarrierStats {
        let mut s = self.stats.clone();
        if self.is_shared() {
            s.terminals = self
                .terminals
                .iter()
                .map(|t| (t.node.clone(), t.stats))
                .collect();
        }
        s
    }

    /// Time spent sending frames, ns.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }

    /// Whether the packet last released was in a lost frame.
    pub fn released_lost(&self) -> bool {
        self.released_lost
    }

    /// The transmitter is free at `now`: the next packet to leave and when
    /// (the end of its frame), sending new frames if none is left of the
    /// last: from `dequeue` (id and size; the direction's queue) with one
    /// terminal, from the terminals' queues when shared. None when nothing
    /// waits.
    pub fn next(
        &mut self,
        now: SimTime,
        mut dequeue: impl FnMut() -> Option<(PacketId, u32)>,
    ) -> Option<(PacketId, u32, SimTime)> {
        if self.packed.is_empty() {
            let mut t = now.max(self.frames_end);
            while self.packed.is_empty() {
                t = self.send_frame(t, &mut dequeue)?;
            }
        }
        let r = self.packed.pop_front().expect("a packet");
        self.released_lost = r.lost;
        Some((r.packet, r.size, self.frames_end))
    }

    /// The terminal whose turn it is: the next after the last served with
    /// a packet waiting (whole or in part); None if none has one.
    fn next_turn(&self) -> Option<usize> {
        let after = self.waiting.range(self.turn + 1..).next();
        after.or_else(|| self.waiting.first()).copied()
    }

    /// Sends a frame from `t`; returns when it ends, None if there was
    /// nothing to send.
    fn send_frame(
        &mut self,
        t: SimTime,
        dequeue: &mut impl FnMut() -> Option<(PacketId, u32)>,
    ) -> Option<SimTime> {
        let k = if self.is_shared() {
            self.next_turn()?
        } else {
            0
        };
        let shared = self.is_shared();
        let Terminal {
            esn0,
            packer,
            queue,
            stats,
            ..
        } = &mut self.terminals[k];
        let measured = esn0.measured(SimTime(t.0.saturating_sub(self.loop_delay.0)));
        let m = self.acm.choose(measured);
        let lost = !acm::received(m, esn0.at(t));
        let kbch = self
            .frame
            .kbch(m)
            .expect("validated: the frame size exists");
        let room = data_field_bytes(kbch);
        let f = if shared {
            let before = queue.len();
            let f = packer.fill(room, lost, || queue.pop_front(), &mut self.packed);
            self.queued -= before - queue.len();
            if !packer.has_partial() && queue.is_empty() {
                self.waiting.remove(&k);
            }
            f
        } else {
            packer.fill(room, lost, &mut *dequeue, &mut self.packed)
        };
        if f.payload_bytes == 0 {
            return None;
        }
        self.turn = k;
        stats.frames += 1;
        stats.frames_lost += u64::from(lost);
        let symbols = self.frame.symbols(m.modulation, self.pilots);
        let duration = Duration::from_secs_f64(symbols as f64 / self.symbol_rate_baud);
        self.frames_end = t + duration;
        self.busy_ns += duration.0;
        let s = &mut self.stats;
        s.frames += 1;
        s.frames_lost += u64::from(lost);
        s.payload_bytes += u64::from(f.payload_bytes);
        s.gse_header_bytes += u64::from(f.gse_header_bytes);
        s.padding_bytes += u64::from(f.padding_bytes);
        *s.frames_by_modcod.entry(m.name).or_default() += 1;
        Some(self.frames_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbs2::modcod::by_name;

    /// A DVB-S2 carrier of 1 Mbaud, normal frames without pilots.
    fn carrier(esn0: EsN0, loop_delay_s: f64, margin_db: f64) -> Carrier {
        let c: Dvbs2Config = serde_json::from_value(serde_json::json!({
            "symbol_rate_baud": 1e6, "pilots": false, "margin_db": margin_db, "esn0_db": 0.0
        }))
        .unwrap();
        Carrier::new(
            &c,
            Duration::from_secs_f64(loop_delay_s),
            esn0,
            Vec::new(),
            0,
        )
    }

    /// Sends one 1,500-byte packet at each second; returns the MODCOD of
    /// each frame and whether it was lost.
    fn send_each_second(c: &mut Carrier, seconds: u64) -> Vec<(String, bool)> {
        (0..seconds)
            .map(|s| {
                let now = SimTime(s * 1_000_000_000);
                let mut one = Some((s as PacketId, 1500));
                let before = c.stats.frames_by_modcod.clone();
                let (_, _, _) = c.next(now, || one.take()).expect("sent");
                let m = c
                    .stats
                    .frames_by_modcod
                    .iter()
                    .find(|(k, v)| before.get(*k) != Some(v))
                    .unwrap()
                    .0
                    .to_string();
                (m, c.released_lost())
            })
            .collect()
    }

    /// Es/N0 drops from 10 dB to 3 dB at 5 s and comes back at 10 s; the
    /// terminal's reports reach the gateway 2 s late: the MODCOD follows
    /// the Es/N0 two seconds later, and the frames sent in between, with
    /// the MODCOD of the clear sky, are lost.
    #[test]
    fn acm_follows_the_esn0_one_loop_delay_later() {
        let series = EsN0::series(&[[0.0, 10.0], [5.0, 3.0], [10.0, 10.0]]);
        let mut c = carrier(series, 2.0, 0.5);
        let sent = send_each_second(&mut c, 14);
        // 10 - 0.5 = 9.5 dB: 16APSK 2/3 (8.97); 3 - 0.5 = 2.5: QPSK 3/5
        // (2.23).
        let clear = ("16APSK 2/3".to_string(), false);
        let faded = ("QPSK 3/5".to_string(), false);
        let caught = ("16APSK 2/3".to_string(), true);
        let too_robust = ("QPSK 3/5".to_string(), false);
        let mut expected = vec![clear.clone(); 5];
        expected.extend([caught.clone(), caught]);
        expected.extend(vec![faded; 3]);
        expected.extend([too_robust.clone(), too_robust]);
        expected.extend(vec![clear; 2]);
        assert_eq!(sent, expected);
        assert_eq!(c.stats.frames_lost, 2);
    }

    /// A frame of QPSK 1/4 (normal, no pilots) is 32,490 symbols: at
    /// 1 Mbaud, 32.49 ms; its packets all leave at its end.
    #[test]
    fn the_packets_of_a_frame_leave_together_at_its_end() {
        let mut c = carrier(EsN0::Constant(-2.0), 0.0, 0.0);
        let mut queue: VecDeque<(PacketId, u32)> = (0..3).map(|i| (i, 100)).collect();
        let ends: Vec<_> = (0..3)
            .map(|_| c.next(SimTime::ZERO, || queue.pop_front()).unwrap().2)
            .collect();
        assert_eq!(ends, [SimTime(32_490_000); 3]);
        assert_eq!(c.stats.frames, 1);
        assert_eq!(c.stats.frames_by_modcod["QPSK 1/4"], 1);
        assert_eq!(by_name("QPSK 1/4").unwrap().esn0_db, -2.35);
        // Nothing waits: no frame.
        assert_eq!(c.next(SimTime(40_000_000), || None), None);
        assert_eq!(c.stats.frames, 1);
    }

    /// Two terminals share the carrier: node 1 at 12 dB (16APSK 3/4 with
    /// 1 dB of margin), node 2 at 3 dB (QPSK 1/2, 1.00 <= 2.0 < QPSK 3/5's
    /// 2.23). Their frames alternate while both have packets, each with its
    /// own MODCOD; the far end (node 0) has none. Queues of 3 packets: the
    /// fourth for node 2 is dropped.
    #[test]
    fn terminals_take_turns_each_with_its_modcod() {
        let c: Dvbs2Config = serde_json::from_value(serde_json::json!({
            "symbol_rate_baud": 1e6, "margin_db": 1.0, "esn0_db": 20.0
        }))
        .unwrap();
        let shared = vec![
            ("t1".to_string(), EsN0::Constant(12.0)),
            ("t2".to_string(), EsN0::Constant(3.0)),
        ];
        let mut c = Carrier::new(&c, Duration::ZERO, EsN0::Constant(20.0), shared, 3);
        c.place("beam", vec![0, 1, 2]);
        assert!(c.is_shared());
        for p in 0..3 {
            assert!(c.enqueue(p, 1500, 1));
            assert!(c.enqueue(10 + p, 1500, 2));
        }
        assert!(!c.enqueue(13, 1500, 2), "t2's queue is full");
        assert_eq!(c.queued(), 6);
        // A 16APSK 3/4 frame holds (48,408 - 80) / 8 = 6,041 bytes: all
        // three of t1's packets (3 x 1,510); a QPSK 1/2 frame 4,016: two of
        // t2's, the third's first fragment; then t1 has nothing, and t2's
        // next frame completes it.
        let mut order = Vec::new();
        let mut now = SimTime::ZERO;
        while let Some((p, _, at)) = c.next(now, || None) {
            order.push(p);
            now = at;
        }
        assert_eq!(order, [0, 1, 2, 10, 11, 12]);
        let s = c.stats();
        assert_eq!(s.frames_by_modcod["16APSK 3/4"], 1);
        assert_eq!(s.frames_by_modcod["QPSK 1/2"], 2);
        assert_eq!(s.terminals["t2"].queue_drops, 1);
        assert_eq!(s.terminals["t2"].frames, 2);
        assert_eq!(s.terminals["beam"].frames, 0);
    }
}
