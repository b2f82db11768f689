//! A DVB-S2/S2X forward link (the `dvbs2` table of a link direction): a
//! carrier of a given symbol rate whose frames carry the direction's
//! packets to one terminal (the far end) in GSE, each frame with the
//! MODCOD that adaptive coding and modulation chose from the terminal's
//! Es/N0 as reported one loop delay earlier; a frame is lost whole when
//! the Es/N0 as it is sent is below its MODCOD's threshold.
//! docs/satellite-access.md has the models, their sources and readings.
//!
//! - `modcod.rs`: the MODCOD table (data);
//! - `framing.rs`: BBFRAME, PLFRAME and GSE;
//! - `acm.rs`: the choice of MODCOD, and the frame error rule;
//! - `esn0.rs`, `rain_fade.rs`: the terminal's Es/N0 over time;
//! - `carrier.rs`: the frames on the link direction.

pub mod acm;
pub mod carrier;
pub mod esn0;
pub mod framing;
pub mod modcod;
pub mod rain_fade;

use crate::engine::Duration;
use crate::error::{bad, delay, range, ScenarioError, MAX_DELAY_S};
use carrier::Carrier;
use esn0::EsN0;
use framing::FrameSize;
use modcod::{Modcod, Standard};
use rain_fade::{RainConfig, RainFade};
use serde::Deserialize;

/// The lowest and highest symbol rates accepted, baud.
pub const MIN_SYMBOL_RATE: f64 = 1e3;
pub const MAX_SYMBOL_RATE: f64 = 1e10;
/// The range of Es/N0 values and margins accepted, dB.
pub const MIN_ESN0_DB: f64 = -50.0;
pub const MAX_ESN0_DB: f64 = 60.0;
pub const MAX_MARGIN_DB: f64 = 30.0;

/// `dvbs2 = { symbol_rate_baud, esn0_db, ... }` (a forward direction).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dvbs2Config {
    /// The carrier's symbol rate, baud; the direction's rate then follows
    /// the MODCOD of each frame (`rate_bps`, if not given, is set to the
    /// carrier's highest rate: the queue's and the report's nominal rate).
    #[schemars(range(min = MIN_SYMBOL_RATE, max = MAX_SYMBOL_RATE))]
    pub symbol_rate_baud: f64,
    /// FECFRAME length: "normal" (64,800 bits) or "short" (16,200).
    #[serde(default)]
    pub frame: FrameSize,
    /// Pilot blocks in the PLFRAMEs (36 symbols every 16 slots).
    #[serde(default = "yes")]
    pub pilots: bool,
    /// The MODCODs ACM may use: "s2" (EN 302 307-1) or "s2x" (with
    /// EN 302 307-2's, normal frames only).
    #[serde(default)]
    pub standard: Standard,
    /// Only these MODCODs of the standard, by name ("QPSK 1/2",
    /// "16APSK 3/5-L"); default all.
    #[serde(default)]
    pub modcods: Option<Vec<String>>,
    /// ACM's margin, dB: the MODCOD chosen needs at most the reported
    /// Es/N0 less this.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_MARGIN_DB))]
    pub margin_db: f64,
    /// How old the Es/N0 is that a frame's MODCOD is chosen from, seconds:
    /// the terminal's report over the return path and the frame's trip
    /// down. Default: twice the direction's delay_s.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_DELAY_S))]
    pub loop_delay_s: Option<f64>,
    /// Bytes of the GSE label: 6 (a MAC address), 3, or 0 (broadcast).
    #[serde(default = "six")]
    #[schemars(range(min = 0, max = 6))]
    pub gse_label_bytes: u32,
    /// The terminal's clear-sky Es/N0, dB (needed unless esn0_schedule
    /// gives the Es/N0).
    #[schemars(range(min = MIN_ESN0_DB, max = MAX_ESN0_DB))]
    pub esn0_db: Option<f64>,
    /// The terminal's Es/N0 over time: [[time_s, esn0_db], ...], a step
    /// function (or a CSV file of time_s,esn0_db rows); replaces esn0_db.
    // default: not required (schema_with hides the Option from schemars)
    #[serde(default)]
    #[schemars(schema_with = "esn0_points", extend("x-unit" = "[s, dB]"))]
    pub esn0_schedule: Option<Vec<[f64; 2]>>,
    /// A synthetic rain fade on esn0_db (Maseng-Bakken, as ITU-R P.1853):
    /// `rain = { median_db, sigma, beta_per_s, probability, step_s }`.
    pub rain: Option<RainConfig>,
    /// Terminals that share the carrier, each reached through the far end
    /// (a beam node): `[{ node, esn0_db, esn0_schedule, rain }, ...]`.
    /// A packet is the first listed terminal's on its way from the far end
    /// to its destination, else the far end's (the Es/N0 above). Each
    /// terminal has its own queue of `queue_packets` (drop-tail) and its
    /// own MODCOD; frames go to the terminals with packets in turn.
    #[serde(default)]
    pub terminals: Vec<TerminalConfig>,
}

/// The schema of an Es/N0 schedule's points (`schedule::points_schema`).
fn esn0_points(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    crate::net::schedule::points_schema(MIN_ESN0_DB, MAX_ESN0_DB)
}

/// One terminal of a shared carrier (`dvbs2.terminals`).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalConfig {
    /// The terminal's node.
    pub node: String,
    /// Its clear-sky Es/N0, dB (needed unless esn0_schedule is given).
    #[schemars(range(min = MIN_ESN0_DB, max = MAX_ESN0_DB))]
    pub esn0_db: Option<f64>,
    /// Its Es/N0 over time, [[time_s, esn0_db], ...] (inline only).
    // default: not required (schema_with hides the Option from schemars)
    #[serde(default)]
    #[schemars(schema_with = "esn0_points", extend("x-unit" = "[s, dB]"))]
    pub esn0_schedule: Option<Vec<[f64; 2]>>,
    /// A rain fade on esn0_db, as the carrier's `rain`; drawn from the
    /// stream `rain/<node>/<link>/<dir>`.
    pub rain: Option<RainConfig>,
}

/// Checks one terminal's Es/N0 settings (paths relative to their table).
fn check_esn0(
    esn0_db: Option<f64>,
    schedule: &Option<Vec<[f64; 2]>>,
    rain: &Option<RainConfig>,
) -> Result<(), ScenarioError> {
    let esn0 = |field: &str, v: f64| range(field, v, MIN_ESN0_DB, MAX_ESN0_DB);
    match (esn0_db, schedule, rain) {
        (_, Some(_), Some(_)) => {
            return Err(ScenarioError::new(
                "rain",
                "not with esn0_schedule (the schedule is the Es/N0)",
            ))
        }
        (None, None, _) => {
            return Err(ScenarioError::new(
                "esn0_db",
                "missing: the terminal's clear-sky Es/N0 (or esn0_schedule)",
            ))
        }
        (Some(v), _, _) => esn0("esn0_db", v)?,
        (None, Some(_), None) => {}
    }
    if let Some(points) = schedule {
        crate::net::schedule::check(points, esn0).map_err(|e| e.under("esn0_schedule"))?;
    }
    if let Some(r) = rain {
        r.validate().map_err(|e| e.under("rain"))?;
    }
    Ok(())
}

/// One terminal's Es/N0 process.
fn build_esn0(
    esn0_db: Option<f64>,
    schedule: &Option<Vec<[f64; 2]>>,
    rain: &Option<RainConfig>,
    rng: crate::engine::RngStream,
) -> EsN0 {
    match (schedule, rain) {
        (Some(points), _) => EsN0::series(points),
        (None, Some(rain)) => EsN0::Rain {
            clear_sky_db: esn0_db.expect("validated"),
            fade: RainFade::new(rain, rng),
        },
        (None, None) => EsN0::Constant(esn0_db.expect("validated")),
    }
}

fn yes() -> bool {
    true
}
fn six() -> u32 {
    6
}

impl Dvbs2Config {
    /// Paths in errors are relative to the table (`margin_db`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        range(
            "symbol_rate_baud",
            self.symbol_rate_baud,
            MIN_SYMBOL_RATE,
            MAX_SYMBOL_RATE,
        )?;
        range("margin_db", self.margin_db, 0.0, MAX_MARGIN_DB)?;
        if let Some(d) = self.loop_delay_s {
            delay("loop_delay_s", d)?;
        }
        if ![0, 3, 6].contains(&self.gse_label_bytes) {
            return Err(bad(
                "gse_label_bytes",
                self.gse_label_bytes,
                "must be 0, 3 or 6",
            ));
        }
        check_esn0(self.esn0_db, &self.esn0_schedule, &self.rain)?;
        let mut listed = std::collections::HashSet::with_capacity(self.terminals.len());
        for (i, t) in self.terminals.iter().enumerate() {
            let at = format!("terminals[{i}]");
            check_esn0(t.esn0_db, &t.esn0_schedule, &t.rain).map_err(|e| e.under(&at))?;
            if !listed.insert(t.node.as_str()) {
                return Err(bad(format!("{at}.node"), &t.node, "is listed twice"));
            }
        }
        self.modcod_set()?;
        Ok(())
    }

    /// The MODCODs the carrier may use; an error names a MODCOD that is
    /// not in the standard chosen or has no frame of the size chosen.
    pub fn modcod_set(&self) -> Result<Vec<&'static Modcod>, ScenarioError> {
        let allowed = |m: &Modcod| self.standard == Standard::S2x || m.standard == Standard::S2;
        let fits = |m: &Modcod| self.frame.kbch(m).is_some();
        let Some(names) = &self.modcods else {
            let set: Vec<_> = modcod::TABLE
                .iter()
                .filter(|m| allowed(m) && fits(m))
                .collect();
            if set.is_empty() {
                return Err(ScenarioError::new(
                    "frame",
                    "no MODCOD of the standard has frames of this size",
                ));
            }
            return Ok(set);
        };
        if names.is_empty() {
            return Err(ScenarioError::new(
                "modcods",
                "must name at least one MODCOD",
            ));
        }
        let mut set = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let field = format!("modcods[{i}]");
            let Some(m) = modcod::by_name(name) else {
                return Err(bad(
                    field,
                    format!("{name:?}"),
                    "is not a MODCOD of the table (docs/satellite-access.md), \
                     e.g. \"QPSK 1/2\" or \"16APSK 3/5-L\"",
                ));
            };
            if !allowed(m) {
                return Err(bad(
                    field,
                    format!("{name:?}"),
                    "is DVB-S2X's: set standard = \"s2x\"",
                ));
            }
            if !fits(m) {
                return Err(bad(
                    field,
                    format!("{name:?}"),
                    "has no short frame: set frame = \"normal\"",
                ));
            }
            if set.contains(&m) {
                return Err(bad(field, format!("{name:?}"), "is listed twice"));
            }
            set.push(m);
        }
        Ok(set)
    }

    /// The carrier's highest information rate, bits per second: its most
    /// efficient MODCOD's data field per PLFRAME.
    pub fn peak_rate_bps(&self) -> f64 {
        let set = self.modcod_set().expect("validated");
        set.iter()
            .map(|m| {
                let bits = self.frame.kbch(m).expect("validated") - framing::BBHEADER_BITS;
                bits as f64 / self.frame.symbols(m.modulation, self.pilots) as f64
            })
            .fold(0.0, f64::max)
            * self.symbol_rate_baud
    }

    /// The loop delay, given the direction's delay.
    pub fn loop_delay_s(&self, delay_s: f64) -> f64 {
        self.loop_delay_s.unwrap_or(2.0 * delay_s)
    }

    /// The carrier of a direction of delay `delay_s` whose queue limit
    /// is `queue_packets` (each terminal's, when several share it); its
    /// rain drawn from `streams` (`rain/<link>/<dir>`, and per terminal
    /// `rain/<node>/<link>/<dir>`).
    pub fn build(
        &self,
        delay_s: f64,
        queue_packets: usize,
        streams: &crate::net::link_config::Streams,
    ) -> Carrier {
        let far_end = build_esn0(
            self.esn0_db,
            &self.esn0_schedule,
            &self.rain,
            streams.rng("rain"),
        );
        let shared = self
            .terminals
            .iter()
            .map(|t| {
                let rng = streams.rng(&format!("rain/{}", t.node));
                (
                    t.node.clone(),
                    build_esn0(t.esn0_db, &t.esn0_schedule, &t.rain, rng),
                )
            })
            .collect();
        let loop_delay = Duration::from_secs_f64(self.loop_delay_s(delay_s));
        Carrier::new(self, loop_delay, far_end, shared, queue_packets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parse(v: Value) -> Result<Dvbs2Config, ScenarioError> {
        let mut base = json!({"symbol_rate_baud": 1e6, "esn0_db": 10.0});
        base.as_object_mut()
            .unwrap()
            .extend(v.as_object().unwrap().clone());
        let c: Dvbs2Config = crate::error::typed::<Option<Dvbs2Config>>(&base)?.unwrap();
        c.validate()?;
        Ok(c)
    }

    #[test]
    fn bad_settings_are_named_with_their_value() {
        for (v, field, words) in [
            (
                json!({"margin_db": -1.0}),
                "margin_db",
                "-1 must be between 0 and 30",
            ),
            (
                json!({"modcods": ["QPSK 7/8"]}),
                "modcods[0]",
                "\"QPSK 7/8\" is not a MODCOD",
            ),
            (
                json!({"modcods": ["QPSK 13/45"]}),
                "modcods[0]",
                "is DVB-S2X's",
            ),
            (
                json!({"frame": "short", "modcods": ["QPSK 9/10"]}),
                "modcods[0]",
                "has no short frame",
            ),
            (json!({"modcods": []}), "modcods", "at least one"),
            (
                json!({"gse_label_bytes": 4}),
                "gse_label_bytes",
                "4 must be 0, 3 or 6",
            ),
            (
                json!({"symbol_rate_baud": 0.0}),
                "symbol_rate_baud",
                "must be between",
            ),
            (
                json!({"esn0_schedule": [[0.0, 5.0]], "rain": {"median_db": 1.0, "sigma": 1.0}}),
                "rain",
                "not with esn0_schedule",
            ),
            (
                json!({"esn0_schedule": [[1.0, 5.0], [0.5, 3.0]]}),
                "esn0_schedule[1][0]",
                "later",
            ),
            (
                json!({"rain": {"median_db": 1.0, "sigma": -1.0}}),
                "rain.sigma",
                "positive",
            ),
            (json!({"rain": {"median_db": 1.0}}), "rain", "sigma"),
            (
                json!({"terminals": [{"node": "t1"}]}),
                "terminals[0].esn0_db",
                "missing",
            ),
            (
                json!({"terminals": [{"node": "t1", "esn0_db": 3}, {"node": "t1", "esn0_db": 4}]}),
                "terminals[1].node",
                "t1 is listed twice",
            ),
        ] {
            let e = parse(v.clone()).unwrap_err();
            assert_eq!(e.field, field, "{v}");
            assert!(e.message.contains(words), "{v}: {}", e.message);
        }
    }

    #[test]
    fn the_standard_and_frame_size_choose_the_set() {
        assert_eq!(parse(json!({})).unwrap().modcod_set().unwrap().len(), 28);
        let short = parse(json!({"frame": "short"})).unwrap();
        assert_eq!(short.modcod_set().unwrap().len(), 24);
        let s2x = parse(json!({"standard": "s2x"})).unwrap();
        assert_eq!(s2x.modcod_set().unwrap().len(), 28 + 38);
    }

    /// 32APSK 9/10, normal frames with pilots: (58,192 - 80) bits over
    /// 90 + 144 x 90 + 8 x 36 = 13,338 symbols: 4.3569 bit/symbol; at
    /// 10 Mbaud, 43.569 Mb/s.
    #[test]
    fn the_peak_rate_is_the_best_modcods() {
        let c = parse(json!({"symbol_rate_baud": 1e7})).unwrap();
        let expected = (58_192.0 - 80.0) / 13_338.0 * 1e7;
        assert!((c.peak_rate_bps() - expected).abs() < 1e-3);
    }
}
