//! The settings of one link direction, as a scenario gives them (the
//! link-level table deep-merged with `ab`'s or `ba`'s): the link's own
//! (rate, delay, their schedules, `congestion_loss`) and one table per
//! model the link holds: the queue (`net/queue/config.rs`), `errors`
//! (`net/error_model.rs`), `reorder` (`net/reorder.rs`) and `arq`
//! (`net/link_arq.rs`). Each model reads and checks its own table and
//! builds itself from it (`Link::new`); this file only holds them
//! together.

use super::dvbrcs2::Dvbrcs2Config;
use super::dvbs2::Dvbs2Config;
use super::link_arq::ArqConfig;
use super::queue::QueueConfig;
use super::reorder::ReorderConfig;
use super::schedule;
use crate::engine::RngStream;
use crate::error::{
    delay, probability, rate, ScenarioError, MAX_DELAY_S, MAX_RATE_BPS, MIN_RATE_BPS,
};
use crate::net::error_model::ErrorsConfig;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    /// Transmission rate, bits per second: needed, on the link or in each
    /// direction.
    #[schemars(range(min = MIN_RATE_BPS, max = MAX_RATE_BPS))]
    pub rate_bps: Option<f64>,
    /// Propagation delay, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_DELAY_S))]
    pub delay_s: f64,
    /// Time-varying delay: [[time_s, delay_s], ...] in increasing time,
    /// a step function (a trace, or an orbit's geometry per slot); it
    /// replaces delay_s from its first point on (before it, its first
    /// value holds). A packet keeps the delay in force when it was sent.
    // default: not required (schema_with hides the Option from schemars)
    #[serde(default)]
    #[schemars(schema_with = "schedule::delay_points", extend("x-unit" = "[s, s]"))]
    pub delay_schedule: Option<Vec<[f64; 2]>>,
    /// Time-varying rate: [[time_s, rate_bps], ...], as delay_schedule.
    // default: not required (schema_with hides the Option from schemars)
    #[serde(default)]
    #[schemars(schema_with = "schedule::rate_points", extend("x-unit" = "[s, bit/s]"))]
    pub rate_schedule: Option<Vec<[f64; 2]>>,
    /// Probability that a data packet is dropped at the queue entrance as
    /// a congestion drop (`net/congestion_loss.rs`).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub congestion_loss: f64,
    /// Losses, corruption and duplicates on the wire (`errors = { ... }`).
    #[serde(default)]
    pub errors: ErrorsConfig,
    /// Packets held back so that later ones overtake them
    /// (`reorder = { ... }`).
    #[serde(default)]
    pub reorder: ReorderConfig,
    /// Link-layer retransmission of corrupted frames (`arq = { ... }`).
    #[serde(default)]
    pub arq: ArqConfig,
    /// A DVB-S2/S2X forward carrier (`dvbs2 = { ... }`,
    /// docs/satellite-access.md): frames with adaptive coding and
    /// modulation to the far end; its rate follows the MODCOD.
    #[serde(default)]
    pub dvbs2: Option<Dvbs2Config>,
    /// A DVB-RCS2 return carrier (`dvbrcs2 = { ... }`,
    /// docs/satellite-access.md): MF-TDMA superframes, dedicated slots
    /// granted on request (DAMA) and random-access slots, shared by the
    /// terminals in front of this end.
    #[serde(default)]
    pub dvbrcs2: Option<Dvbrcs2Config>,
    /// `queue`, `queue_packets`, `queue_bytes` and the kind's table, taken
    /// out of the table first (`QueueConfig::take_from`).
    #[serde(skip)]
    pub queue: QueueConfig,
}

impl DirectionConfig {
    /// Reads and checks one direction's (merged) settings table; errors
    /// name paths relative to it (`errors.ber`, `red.max_th`).
    pub fn parse(mut table: Map<String, Value>) -> Result<DirectionConfig, ScenarioError> {
        let queue = QueueConfig::take_from(&mut table)?;
        let mut d: DirectionConfig = crate::error::typed(&Value::Object(table))?;
        d.queue = queue;
        if let Some(c) = &d.dvbs2 {
            c.validate().map_err(|e| e.under("dvbs2"))?;
            d.rate_bps = d.rate_bps.or(Some(c.peak_rate_bps()));
        }
        if let Some(c) = &d.dvbrcs2 {
            c.validate().map_err(|e| e.under("dvbrcs2"))?;
            d.rate_bps = d.rate_bps.or(Some(c.capacity_bps()));
        }
        d.validate()?;
        Ok(d)
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        let Some(rate_bps) = self.rate_bps else {
            return Err(ScenarioError::new(
                "rate_bps",
                "missing: set it on the link or in each direction",
            ));
        };
        rate("rate_bps", rate_bps)?;
        delay("delay_s", self.delay_s)?;
        if let Some(points) = &self.delay_schedule {
            schedule::check(points, delay).map_err(|e| e.under("delay_schedule"))?;
        }
        if let Some(points) = &self.rate_schedule {
            schedule::check(points, rate).map_err(|e| e.under("rate_schedule"))?;
        }
        probability("congestion_loss", self.congestion_loss)?;
        self.errors.validate().map_err(|e| e.under("errors"))?;
        self.reorder.validate().map_err(|e| e.under("reorder"))?;
        self.arq.validate().map_err(|e| e.under("arq"))?;
        if self.dvbs2.as_ref().is_some_and(|c| !c.terminals.is_empty()) {
            // Each terminal has a drop-tail queue of queue_packets.
            let packets = matches!(self.queue.limit(), super::queue::QueueLimit::Packets(_));
            if self.queue.kind() != "drop_tail" || !packets {
                return Err(ScenarioError::new(
                    "dvbs2.terminals",
                    "needs queue = \"drop_tail\" with queue_packets (each terminal's queue)",
                ));
            }
        }
        if self.dvbs2.is_some() {
            // The carrier sets the rate and decides the frames' fate.
            if self.rate_schedule.is_some() {
                return Err(ScenarioError::new(
                    "rate_schedule",
                    "not with dvbs2 (the carrier's rate follows its MODCOD)",
                ));
            }
            if self.arq.attempts > 0 {
                return Err(ScenarioError::new(
                    "arq",
                    "not with dvbs2 (a lost BBFrame is not resent)",
                ));
            }
            if self.dvbrcs2.is_some() {
                return Err(ScenarioError::new(
                    "dvbrcs2",
                    "not with dvbs2 (a direction is a forward or a return carrier)",
                ));
            }
        }
        if self.dvbrcs2.is_some() {
            // Each terminal has a drop-tail queue of queue_packets; the
            // slots set the rate and the collisions the losses.
            let packets = matches!(self.queue.limit(), super::queue::QueueLimit::Packets(_));
            if self.queue.kind() != "drop_tail" || !packets {
                return Err(ScenarioError::new(
                    "dvbrcs2",
                    "needs queue = \"drop_tail\" with queue_packets (each terminal's queue)",
                ));
            }
            if self.rate_schedule.is_some() {
                return Err(ScenarioError::new(
                    "rate_schedule",
                    "not with dvbrcs2 (the slots set the rate)",
                ));
            }
            if self.arq.attempts > 0 {
                return Err(ScenarioError::new(
                    "arq",
                    "not with dvbrcs2 (a burst lost in a collision is not resent)",
                ));
            }
        }
        Ok(())
    }
}

/// The random streams of one link direction, one per mechanism:
/// `<mechanism>/<link>/<dir>` (`link/satellite/ab`, `queue/satellite/ab`),
/// so that turning one mechanism on leaves the others' draws alone.
pub struct Streams<'a> {
    pub seed: u64,
    pub link: &'a str,
    pub dir: &'a str,
}

impl Streams<'_> {
    pub fn rng(&self, mechanism: &str) -> RngStream {
        RngStream::new(
            self.seed,
            &format!("{mechanism}/{}/{}", self.link, self.dir),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<DirectionConfig, ScenarioError> {
        let Value::Object(m) = v else { panic!() };
        DirectionConfig::parse(m)
    }

    #[test]
    fn every_table_is_read_into_its_model() {
        let d = parse(json!({
            "rate_bps": 2e6, "delay_s": 0.25, "queue": "red", "red": {"max_th": 30},
            "congestion_loss": 0.01, "errors": {"ber": 1e-6}, "reorder": {"prob": 0.1},
            "arq": {"attempts": 3}
        }))
        .unwrap();
        assert_eq!(d.queue.kind(), "red");
        assert_eq!(d.errors.ber, 1e-6);
        assert_eq!(d.reorder.prob, 0.1);
        assert_eq!(d.arq.attempts, 3);
    }

    #[test]
    fn errors_name_the_path_in_the_table() {
        for (v, field) in [
            (json!({}), "rate_bps"),
            (json!({"rate_bps": 0}), "rate_bps"),
            (json!({"rate_bps": 1e13}), "rate_bps"),
            (json!({"rate_bps": 1e6, "delay_s": -1}), "delay_s"),
            (
                json!({"rate_bps": 1e6, "delay_schedule": [[0.0, -1.0]]}),
                "delay_schedule[0][1]",
            ),
            (
                json!({"rate_bps": 1e6, "rate_schedule": [[0.0, 2e12]]}),
                "rate_schedule[0][1]",
            ),
            (
                json!({"rate_bps": 1e6, "congestion_loss": 2}),
                "congestion_loss",
            ),
            (json!({"rate_bps": 1e6, "errors": {"ber": 2}}), "errors.ber"),
            (
                json!({"rate_bps": 1e6, "reorder": {"prob": 2}}),
                "reorder.prob",
            ),
            (
                json!({"rate_bps": 1e6, "arq": {"recover_all": true}}),
                "arq.recover_all",
            ),
            (json!({"rate_bps": 1e6, "red": {}}), "red"),
            (json!({"rate_bps": 1e6, "mtu": 1500}), "mtu"),
        ] {
            assert_eq!(parse(v.clone()).unwrap_err().field, field, "{v}");
        }
    }

    #[test]
    fn streams_are_named_by_mechanism_link_and_direction() {
        let s = Streams {
            seed: 3,
            link: "satellite",
            dir: "ba",
        };
        let mut a = s.rng("burst");
        let mut b = RngStream::new(3, "burst/satellite/ba");
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
