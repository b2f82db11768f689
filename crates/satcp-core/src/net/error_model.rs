//! The error model of a link direction (the `errors` table): everything
//! that decides whether a packet arrives intact. Memoryless corruption (bit
//! errors turned into packet errors), loss, duplication and reordering
//! (`reorder` table, `net/reorder.rs`), burst errors
//! (`net/gilbert_elliott.rs`), loss following a schedule
//! (`net/scheduled_loss.rs`) and losses listed by sequence number.
//!
//! Bit errors follow thesis Sec. 7.1: uncorrelated (AWGN) errors, so a
//! packet of N bits survives with probability (1-BER)^N and is discarded by
//! the receiver otherwise (PER = 1-(1-BER)^N). N counts the whole IP datagram.

use super::gilbert_elliott::{GilbertElliott, GilbertElliottConfig};
use super::link_config::Streams;
use super::packet::{PacketId, PacketPool};
use super::reorder::{Reorder, ReorderConfig};
use super::scheduled_loss::ScheduledLoss;
use crate::engine::{math, Duration, RngStream, SimTime};
use crate::error::{probability, ScenarioError};
use serde::Deserialize;

/// `errors = { ber, loss, duplicate, data_only, corrupted_reach_next_node,
/// drop_seqs, loss_schedule, gilbert_elliott }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct ErrorsConfig {
    /// Bit error rate in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ber: f64,
    /// Probability that a packet is lost regardless of its size.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss: f64,
    /// Probability that a packet is delivered twice.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub duplicate: f64,
    /// The errors (all of them, reordering included) hit data packets
    /// only; pure ACKs pass.
    pub data_only: bool,
    /// A corrupted packet travels on to the next node, which discards it
    /// (its router functions see the discard, cause "corruption"), instead
    /// of vanishing when its transmission ends.
    pub corrupted_reach_next_node: bool,
    /// Deterministic losses for tests and worked examples: the first data
    /// packet that starts at each of these TCP sequence numbers is lost
    /// (copies and retransmissions sent later pass).
    pub drop_seqs: Vec<u64>,
    /// Time-varying loss: [[time_s, probability], ...], a step function as
    /// `delay_schedule`; on top of `loss` (handover outages are 1 for
    /// their duration).
    #[schemars(schema_with = "crate::net::schedule::probability_points", extend("x-unit" = "[s, probability]"))]
    pub loss_schedule: Option<Vec<[f64; 2]>>,
    /// Two-state burst errors, on top of the others.
    pub gilbert_elliott: Option<GilbertElliottConfig>,
}

impl ErrorsConfig {
    /// Paths in errors are relative to the table (`ber`,
    /// `gilbert_elliott.p`, `loss_schedule[1][0]`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        probability("ber", self.ber)?;
        probability("loss", self.loss)?;
        probability("duplicate", self.duplicate)?;
        if let Some(points) = &self.loss_schedule {
            ScheduledLoss::validate(points).map_err(|e| e.under("loss_schedule"))?;
        }
        if let Some(g) = &self.gilbert_elliott {
            g.validate().map_err(|e| e.under("gilbert_elliott"))?;
        }
        Ok(())
    }

    /// The direction's error model with the `reorder` table's settings;
    /// None when nothing can befall a packet (a perfect link). Each
    /// mechanism draws from its own stream, so that turning one on leaves
    /// the others' draws alone.
    pub fn build(&self, reorder: &ReorderConfig, streams: &Streams) -> Option<Box<ErrorModel>> {
        let memoryless = Memoryless {
            ber: self.ber,
            loss: self.loss,
            duplicate: self.duplicate,
            reorder: reorder.build(),
        };
        let m = ErrorModel {
            memoryless: Some(memoryless).filter(|m| !m.is_ideal()),
            error_rates: RecentErrorRates::EMPTY,
            rng: streams.rng("link"),
            burst: self
                .gilbert_elliott
                .map(|g| GilbertElliott::new(g, streams.rng("burst"))),
            schedule: self
                .loss_schedule
                .as_deref()
                .map(|points| ScheduledLoss::new(points, streams.rng("loss-schedule"))),
            drop_seqs: self.drop_seqs.clone(),
            data_only: self.data_only,
            corrupted_reach_next_node: self.corrupted_reach_next_node,
        };
        let perfect = m.memoryless.is_none()
            && m.burst.is_none()
            && m.schedule.is_none()
            && m.drop_seqs.is_empty();
        (!perfect).then(|| Box::new(m))
    }
}

/// Packet error rate of a packet of `bytes` bytes under uncorrelated bit
/// errors: 1-(1-BER)^(8 bytes).
pub fn packet_error_rate(ber: f64, bytes: u32) -> f64 {
    if ber <= 0.0 {
        return 0.0;
    }
    if ber >= 1.0 {
        return 1.0;
    }
    let bits = 8.0 * bytes as f64;
    // ln1p/exp_m1 keep precision for BER down to 1e-13.
    -math::exp_m1(bits * math::ln_1p(-ber))
}

/// The fate of one packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Corrupted,
    Lost,
    Delivered {
        extra_delay: Duration,
        duplicate: bool,
    },
}

impl Fate {
    /// Delivered on time, once: what a perfect link does.
    pub const DELIVERED: Fate = Fate::Delivered {
        extra_delay: Duration::ZERO,
        duplicate: false,
    };
}

/// Corruption, loss, duplication and reordering, each independent per
/// packet and drawn in that order.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Memoryless {
    pub ber: f64,
    pub loss: f64,
    pub duplicate: f64,
    pub reorder: Option<Reorder>,
}

impl Memoryless {
    /// Draws nothing (so it is left out).
    pub fn is_ideal(&self) -> bool {
        self.ber == 0.0 && self.loss == 0.0 && self.duplicate == 0.0 && self.reorder.is_none()
    }

    /// Packet error rate for a packet of `bytes` bytes: 1-(1-BER)^(8 bytes).
    pub fn per(&self, bytes: u32) -> f64 {
        packet_error_rate(self.ber, bytes)
    }

    /// Draws the fate of one packet. Each mechanism draws only when enabled,
    /// so turning one on does not shift another's random sequence.
    pub fn fate(&self, bytes: u32, rng: &mut RngStream) -> Fate {
        self.fate_with_per(self.per(bytes), rng)
    }

    /// `fate` given the packet's error rate (`per`).
    fn fate_with_per(&self, per: f64, rng: &mut RngStream) -> Fate {
        if rng.bernoulli(per) {
            return Fate::Corrupted;
        }
        if rng.bernoulli(self.loss) {
            return Fate::Lost;
        }
        let duplicate = rng.bernoulli(self.duplicate);
        let extra_delay = match &self.reorder {
            Some(r) => r.draw(rng),
            None => Duration::ZERO,
        };
        Fate::Delivered {
            extra_delay,
            duplicate,
        }
    }
}

/// The packet error rates of the last two packet sizes. A direction
/// carries mostly two sizes (full segments and pure ACKs), and its rate,
/// `ln_1p` and `exp_m1` per packet, was 3 % of a TCP-R run. A rate found
/// here is the one computed for that size, bit for bit.
#[derive(Clone, Copy)]
struct RecentErrorRates {
    /// (bytes, rate), the latest first; u32::MAX: no size yet.
    sizes: [(u32, f64); 2],
}

impl RecentErrorRates {
    const EMPTY: RecentErrorRates = RecentErrorRates {
        sizes: [(u32::MAX, 0.0); 2],
    };

    #[inline]
    fn rate(&mut self, bytes: u32, compute: impl FnOnce(u32) -> f64) -> f64 {
        let [latest, other] = &mut self.sizes;
        if latest.0 != bytes {
            std::mem::swap(latest, other);
            if latest.0 != bytes {
                *latest = (bytes, compute(bytes));
            }
        }
        latest.1
    }
}

/// What the `errors` and `reorder` tables do to the packets of one link
/// direction. A perfect link holds none (`Link::errors`) and is not asked.
pub struct ErrorModel {
    /// None when it would draw nothing.
    memoryless: Option<Memoryless>,
    /// The memoryless model's error rates by size.
    error_rates: RecentErrorRates,
    /// The memoryless model's stream (`link/<link>/<dir>`).
    rng: RngStream,
    burst: Option<GilbertElliott>,
    schedule: Option<ScheduledLoss>,
    /// Sequence numbers of data packets still to be lost on purpose (each
    /// entry is used up by the first packet that matches it).
    drop_seqs: Vec<u64>,
    data_only: bool,
    corrupted_reach_next_node: bool,
}

impl ErrorModel {
    /// A corrupted packet travels on to the next node (which discards it)
    /// instead of vanishing at the end of its transmission.
    pub fn corrupted_reach_next_node(&self) -> bool {
        self.corrupted_reach_next_node
    }

    /// The fate of packet `p` (`size` bytes) whose transmission ends
    /// `now`. `arq`: the link resends corrupted frames, so a listed packet
    /// must be lost, not corrupted, to stay lost.
    pub fn fate(
        &mut self,
        p: PacketId,
        size: u32,
        is_data: bool,
        pool: &PacketPool,
        now: SimTime,
        arq: bool,
    ) -> Fate {
        if !is_data && self.data_only {
            return Fate::DELIVERED;
        }
        let mut fate = match &self.memoryless {
            Some(m) => {
                let per = self.error_rates.rate(size, |b| m.per(b));
                m.fate_with_per(per, &mut self.rng)
            }
            None => Fate::DELIVERED,
        };
        if self.burst.is_some() || self.schedule.is_some() {
            fate = self.burst_and_schedule(fate, size, now);
        }
        // A listed sequence number is lost after the draws, so that the
        // random errors of every other packet stay as they were.
        if is_data && !self.drop_seqs.is_empty() {
            let seq = pool.get(p).tcp.seq;
            if let Some(i) = self.drop_seqs.iter().position(|&s| s == seq) {
                self.drop_seqs.swap_remove(i);
                // With ARQ a corrupted frame would be resent: the listed
                // packet is lost all the same.
                if fate != Fate::Corrupted || arq {
                    fate = Fate::Lost;
                }
            }
        }
        fate
    }

    /// The burst-error chain's and the loss schedule's say on a packet the
    /// memoryless model gave `fate`. Each draws for every packet it applies
    /// to, whatever the draws before decided, so that turning one on leaves
    /// the others' patterns alone; the first that strikes decides.
    #[cold]
    #[inline(never)]
    fn burst_and_schedule(&mut self, fate: Fate, bytes: u32, now: SimTime) -> Fate {
        let burst = self.burst.as_mut().and_then(|g| g.next(bytes));
        let scheduled = self.schedule.as_mut().is_some_and(|s| s.lost(now));
        match (fate, burst) {
            (Fate::Delivered { .. }, Some(f)) => f,
            (Fate::Delivered { .. }, None) if scheduled => Fate::Lost,
            _ => fate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, TcpHeader};
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<ErrorsConfig, ScenarioError> {
        let c: ErrorsConfig = crate::error::typed(&v)?;
        c.validate()?;
        Ok(c)
    }

    fn streams() -> Streams<'static> {
        Streams {
            seed: 1,
            link: "test",
            dir: "ab",
        }
    }

    fn model(v: serde_json::Value) -> Option<Box<ErrorModel>> {
        parse(v)
            .unwrap()
            .build(&ReorderConfig::default(), &streams())
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

    #[test]
    fn recent_error_rates_are_the_computed_ones() {
        // Sizes alternating, repeating and new: each rate is the one
        // computed for its size, and only a size not among the last two
        // is computed again.
        let mut rates = RecentErrorRates::EMPTY;
        let mut computed = vec![];
        for bytes in [1500, 40, 40, 1500, 40, 576, 1500, 576, 40] {
            let got = rates.rate(bytes, |b| {
                computed.push(b);
                packet_error_rate(1e-5, b)
            });
            assert_eq!(got, packet_error_rate(1e-5, bytes));
        }
        assert_eq!(computed, [1500, 40, 576, 1500, 40]);
    }

    #[test]
    fn per_matches_thesis_table_7_1() {
        // Table 7.1: 1,500-byte packets; BER 1e-9 .. 1e-6 give about 1.2 x 10^k.
        let m = |ber| Memoryless {
            ber,
            ..Default::default()
        };
        for (ber, per) in [
            (1e-9, 1.2e-5),
            (1e-8, 1.2e-4),
            (1e-7, 1.2e-3),
            (1e-6, 1.2e-2),
        ] {
            let got = m(ber).per(1500);
            assert!((got - per).abs() / per < 0.01, "ber {ber}: {got}");
        }
        // 1e-5 gives 0.113 exactly (the table rounds it to 1.2e-1).
        assert!((m(1e-5).per(1500) - 0.1131).abs() < 1e-3);
        assert_eq!(m(0.0).per(1500), 0.0);
        assert_eq!(m(1.0).per(1500), 1.0);
    }

    #[test]
    fn loss_frequency_matches_probability() {
        let m = Memoryless {
            loss: 0.1,
            ..Default::default()
        };
        let mut rng = RngStream::new(5, "x");
        let n = 50_000;
        let lost = (0..n)
            .filter(|_| m.fate(1500, &mut rng) == Fate::Lost)
            .count();
        let f = lost as f64 / n as f64;
        assert!((f - 0.1).abs() < 0.006, "{f}");
    }

    #[test]
    fn settings_are_checked_where_they_are_written() {
        for (v, field) in [
            (json!({"ber": 2.0}), "ber"),
            (json!({"loss": -0.1}), "loss"),
            (json!({"duplicate": 1.5}), "duplicate"),
            (
                json!({"loss_schedule": [[0.0, 0.0], [1.0, 1.5]]}),
                "loss_schedule[1][1]",
            ),
            (
                json!({"loss_schedule": [[1.0, 0.0], [0.5, 1.0]]}),
                "loss_schedule[1][0]",
            ),
            (json!({"loss_schedule": []}), "loss_schedule"),
            (
                json!({"gilbert_elliott": {"p": 0.1, "r": 2.0}}),
                "gilbert_elliott.r",
            ),
            (json!({"gilbert_elliott": {"p": 0.1}}), "gilbert_elliott"),
            (
                json!({"gilbert_elliott": {"p": 0.1, "r": 0.1, "q": 1}}),
                "gilbert_elliott.q",
            ),
            (json!({"data_only": "yes"}), "data_only"),
            (json!({"drop_seqs": [-1]}), "drop_seqs[0]"),
            (json!({"bit_errors": 1e-6}), "bit_errors"),
        ] {
            let e = parse(v.clone()).unwrap_err();
            assert_eq!(e.field, field, "{v}: {e}");
        }
    }

    #[test]
    fn a_link_without_errors_has_no_model() {
        assert!(model(json!({})).is_none());
        // Settings that only qualify errors make none.
        assert!(model(json!({"data_only": true, "corrupted_reach_next_node": true})).is_none());
        for v in [
            json!({"ber": 1e-6}),
            json!({"loss": 0.01}),
            json!({"duplicate": 0.01}),
            json!({"drop_seqs": [1]}),
            json!({"loss_schedule": [[0.0, 0.0]]}),
            json!({"gilbert_elliott": {"p": 0.0, "r": 1.0}}),
        ] {
            assert!(model(v.clone()).is_some(), "{v}");
        }
        let reorder = ReorderConfig {
            prob: 0.1,
            ..Default::default()
        };
        let with_reorder = parse(json!({})).unwrap().build(&reorder, &streams());
        assert!(with_reorder.is_some());
    }

    #[test]
    fn drop_seqs_lose_the_first_data_packet_at_each_number() {
        let mut pool = PacketPool::default();
        let mut m = model(json!({"drop_seqs": [1461]})).unwrap();
        let (a, b, c) = (
            data(&mut pool, 1),
            data(&mut pool, 1461),
            data(&mut pool, 1461),
        );
        let now = SimTime::ZERO;
        assert_eq!(m.fate(a, 1500, true, &pool, now, false), Fate::DELIVERED);
        assert_eq!(m.fate(b, 1500, true, &pool, now, false), Fate::Lost);
        assert_eq!(m.fate(c, 1500, true, &pool, now, false), Fate::DELIVERED);
        // A pure ACK with the number is no data packet.
        let mut m = model(json!({"drop_seqs": [1]})).unwrap();
        assert_eq!(m.fate(a, 40, false, &pool, now, false), Fate::DELIVERED);
        assert_eq!(m.fate(a, 1500, true, &pool, now, false), Fate::Lost);
    }

    #[test]
    fn a_listed_corrupted_packet_stays_corrupted_unless_arq_would_resend_it() {
        let mut pool = PacketPool::default();
        let p = data(&mut pool, 1);
        let now = SimTime::ZERO;
        let mut m = model(json!({"ber": 1.0, "drop_seqs": [1]})).unwrap();
        assert_eq!(m.fate(p, 1500, true, &pool, now, false), Fate::Corrupted);
        let mut m = model(json!({"ber": 1.0, "drop_seqs": [1]})).unwrap();
        assert_eq!(m.fate(p, 1500, true, &pool, now, true), Fate::Lost);
    }

    #[test]
    fn data_only_spares_pure_acks_from_every_mechanism() {
        let mut pool = PacketPool::default();
        let p = data(&mut pool, 1);
        let now = SimTime::ZERO;
        let mut m = model(json!({
            "loss": 1.0, "data_only": true,
            "loss_schedule": [[0.0, 1.0]],
            "gilbert_elliott": {"p": 1.0, "r": 0.0, "loss_good": 1.0}
        }))
        .unwrap();
        assert_eq!(m.fate(p, 40, false, &pool, now, false), Fate::DELIVERED);
        assert_eq!(m.fate(p, 1500, true, &pool, now, false), Fate::Lost);
        let mut all = model(json!({"loss_schedule": [[0.0, 1.0]]})).unwrap();
        assert_eq!(all.fate(p, 40, false, &pool, now, false), Fate::Lost);
    }
}
