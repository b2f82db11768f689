//! A DVB-RCS2 return link (the `dvbrcs2` table of a link direction, the
//! terminal-to-gateway one): MF-TDMA superframes of slots, dedicated
//! slots granted by the gateway on the terminals' requests (DAMA: CRA,
//! RBDC, VBDC) and random-access slots (slotted ALOHA or CRDSA) shared by
//! the terminals with collisions. docs/satellite-access.md has the models,
//! their sources and readings.
//!
//! - `slot_plan.rs`: the superframe's slots, their times and payload;
//! - `dama.rs`: the terminals' requests and the gateway's scheduler;
//! - `random_access.rs`: collisions and CRDSA's interference cancellation;
//! - `carrier.rs`: the superframes on the link direction.

pub mod carrier;
pub mod dama;
pub mod random_access;
pub mod slot_plan;

use crate::engine::Duration;
use crate::error::{bad, count, delay, range, ScenarioError, MAX_DELAY_S, MAX_RATE_BPS};
use carrier::ReturnCarrier;
use dama::RequestRules;
use serde::Deserialize;
use slot_plan::SlotPlan;

/// The shortest and longest superframes accepted, seconds.
pub const MIN_SUPERFRAME_S: f64 = 1e-4;
pub const MAX_SUPERFRAME_S: f64 = 10.0;
/// The most slots in a superframe.
pub const MAX_SLOTS: u32 = 65_535;
/// The largest slot payload, bytes.
pub const MAX_SLOT_BYTES: u32 = 1 << 20;

/// Random access: slotted ALOHA, or CRDSA with its replicas.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RandomAccess {
    #[default]
    SlottedAloha,
    Crdsa,
}

/// `dvbrcs2 = { superframe_s, slots, slot_payload_bytes, ... }` (a return
/// direction).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dvbrcs2Config {
    /// The superframe's duration, seconds.
    #[schemars(range(min = MIN_SUPERFRAME_S, max = MAX_SUPERFRAME_S))]
    pub superframe_s: f64,
    /// Slots per superframe, all carriers together.
    #[schemars(range(min = 1, max = MAX_SLOTS))]
    pub slots: u32,
    /// The MF-TDMA carriers the slots are spread over: slot s is on
    /// carrier s mod carriers, in time column s / carriers.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = MAX_SLOTS))]
    pub carriers: u32,
    /// Bytes a slot carries (its burst's payload); or give burst_rate_bps.
    #[schemars(range(min = 1, max = MAX_SLOT_BYTES))]
    pub slot_payload_bytes: Option<u32>,
    /// A burst's information rate, bits per second: the slot payload is
    /// what it carries in a slot's time (floor of rate x slot / 8).
    #[schemars(range(min = 1.0, max = MAX_RATE_BPS))]
    pub burst_rate_bps: Option<f64>,
    /// Slots of each superframe that are random access (the last ones);
    /// the others are dedicated (DAMA).
    #[serde(default)]
    #[schemars(range(min = 0, max = MAX_SLOTS))]
    pub random_access_slots: u32,
    /// The random-access scheme: "slotted_aloha" (the default) or
    /// "crdsa" (replicas with interference cancellation).
    #[serde(default)]
    pub random_access: RandomAccess,
    /// CRDSA's copies of each burst in the frame: 2 or 3.
    #[serde(default = "two")]
    #[schemars(range(min = 2, max = 3))]
    pub replicas: u32,
    /// The most packets a terminal sends in random access per superframe.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = MAX_SLOTS))]
    pub ra_max_packets: u32,
    /// The gateway-to-terminal delay the grants take, seconds (default:
    /// the direction's delay_s).
    #[schemars(range(min = 0.0, max = MAX_DELAY_S))]
    pub forward_delay_s: Option<f64>,
    /// Constant rate assignment of each terminal, bits per second.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_RATE_BPS))]
    pub cra_bps: f64,
    /// Rate-based dynamic capacity: the highest rate a terminal asks for,
    /// bits per second (0: no RBDC requests).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_RATE_BPS))]
    pub rbdc_max_bps: f64,
    /// How long the gateway keeps an RBDC rate after its request arrived,
    /// seconds.
    #[serde(default = "rbdc_timeout")]
    #[schemars(range(min = MIN_SUPERFRAME_S, max = MAX_DELAY_S))]
    pub rbdc_timeout_s: f64,
    /// Volume-based dynamic capacity: terminals ask for their backlog.
    #[serde(default = "yes")]
    pub vbdc: bool,
    /// Terminals that share the carrier, each in front of the near end
    /// (behind a beam node): `[{ node, cra_bps, rbdc_max_bps, vbdc }, ...]`.
    /// A packet is the first listed terminal's on its way from its source
    /// to the near end, else the near end's (the settings above). Each
    /// has its own queue of `queue_packets` (drop-tail).
    #[serde(default)]
    pub terminals: Vec<TerminalConfig>,
}

/// One terminal of a shared return carrier (`dvbrcs2.terminals`); a
/// setting left out is the carrier's.
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalConfig {
    /// The terminal's node.
    pub node: String,
    /// Its constant rate assignment, bits per second.
    #[schemars(range(min = 0.0, max = MAX_RATE_BPS))]
    pub cra_bps: Option<f64>,
    /// The highest RBDC rate it asks for, bits per second.
    #[schemars(range(min = 0.0, max = MAX_RATE_BPS))]
    pub rbdc_max_bps: Option<f64>,
    /// Whether it asks for its backlog (VBDC).
    pub vbdc: Option<bool>,
}

fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}
fn yes() -> bool {
    true
}
fn rbdc_timeout() -> f64 {
    1.0
}

impl Dvbrcs2Config {
    /// Paths in errors are relative to the table (`slots`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        range(
            "superframe_s",
            self.superframe_s,
            MIN_SUPERFRAME_S,
            MAX_SUPERFRAME_S,
        )?;
        count("slots", self.slots.into(), 1, MAX_SLOTS.into())?;
        count("carriers", self.carriers.into(), 1, self.slots.into())?;
        count(
            "random_access_slots",
            self.random_access_slots.into(),
            0,
            self.slots.into(),
        )?;
        count("replicas", self.replicas.into(), 2, 3)?;
        count(
            "ra_max_packets",
            self.ra_max_packets.into(),
            1,
            MAX_SLOTS.into(),
        )?;
        match (self.slot_payload_bytes, self.burst_rate_bps) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    "burst_rate_bps",
                    "not with slot_payload_bytes (one gives the other)",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    "slot_payload_bytes",
                    "missing: the bytes a slot carries (or burst_rate_bps)",
                ))
            }
            (Some(b), None) => count("slot_payload_bytes", b.into(), 1, MAX_SLOT_BYTES.into())?,
            (None, Some(r)) => {
                range("burst_rate_bps", r, 1.0, MAX_RATE_BPS)?;
                let bytes = self.plan().slot_bytes;
                if bytes == 0 {
                    return Err(bad(
                        "burst_rate_bps",
                        crate::error::number(r),
                        "carries no byte in a slot's time",
                    ));
                }
            }
        }
        if let Some(d) = self.forward_delay_s {
            delay("forward_delay_s", d)?;
        }
        range(
            "rbdc_timeout_s",
            self.rbdc_timeout_s,
            MIN_SUPERFRAME_S,
            MAX_DELAY_S,
        )?;
        let rate = |field: &str, v: f64| range(field, v, 0.0, MAX_RATE_BPS);
        rate("cra_bps", self.cra_bps)?;
        rate("rbdc_max_bps", self.rbdc_max_bps)?;
        let mut listed = std::collections::HashSet::with_capacity(self.terminals.len());
        for (i, t) in self.terminals.iter().enumerate() {
            let at = |f: &str| format!("terminals[{i}].{f}");
            if let Some(v) = t.cra_bps {
                rate(&at("cra_bps"), v)?;
            }
            if let Some(v) = t.rbdc_max_bps {
                rate(&at("rbdc_max_bps"), v)?;
            }
            if !listed.insert(t.node.as_str()) {
                return Err(bad(at("node"), &t.node, "is listed twice"));
            }
        }
        // Every terminal needs a way to send.
        let plan = self.plan();
        let stranded = |r: &RequestRules| {
            plan.random_access_slots == 0 && r.cra_bps == 0.0 && r.rbdc_max_bps == 0.0 && !r.vbdc
        };
        if let Some(i) = self.rules().iter().position(stranded) {
            let who = if i == 0 {
                String::new()
            } else {
                format!("terminals[{}].", i - 1)
            };
            return Err(ScenarioError::new(
                format!("{who}vbdc"),
                "false with no cra_bps, rbdc_max_bps or random_access_slots: \
                 the terminal could never send",
            ));
        }
        // The constant rates must fit the dedicated slots.
        let cra_slots: f64 = self
            .rules()
            .iter()
            .map(|r| plan.slots_for_rate(r.cra_bps))
            .sum();
        if cra_slots > plan.dama_slots() as f64 {
            return Err(bad(
                "cra_bps",
                crate::error::number(self.cra_bps),
                &format!(
                    "the terminals' constant rates need {cra_slots:.1} slots per superframe, \
                     more than the {} dedicated ones",
                    plan.dama_slots()
                ),
            ));
        }
        Ok(())
    }

    /// The superframe's slot plan.
    pub fn plan(&self) -> SlotPlan {
        SlotPlan::new(self)
    }

    /// The request rules of the near end, then of each listed terminal.
    pub fn rules(&self) -> Vec<RequestRules> {
        let base = RequestRules {
            cra_bps: self.cra_bps,
            rbdc_max_bps: self.rbdc_max_bps,
            rbdc_timeout: Duration::from_secs_f64(self.rbdc_timeout_s),
            vbdc: self.vbdc,
        };
        std::iter::once(base)
            .chain(self.terminals.iter().map(|t| RequestRules {
                cra_bps: t.cra_bps.unwrap_or(base.cra_bps),
                rbdc_max_bps: t.rbdc_max_bps.unwrap_or(base.rbdc_max_bps),
                vbdc: t.vbdc.unwrap_or(base.vbdc),
                ..base
            }))
            .collect()
    }

    /// The carrier's capacity, bits per second: every slot's payload
    /// (the direction's nominal rate when rate_bps is not given).
    pub fn capacity_bps(&self) -> f64 {
        let plan = self.plan();
        plan.slot_bytes as f64 * 8.0 * self.slots as f64 / self.superframe_s
    }

    /// The carrier of a direction of delay `delay_s` whose queue limit is
    /// `queue_packets` (each terminal's); its random access drawn from
    /// `streams` (`random_access/<link>/<dir>`).
    pub fn build(
        &self,
        delay_s: f64,
        queue_packets: usize,
        streams: &crate::net::link_config::Streams,
    ) -> ReturnCarrier {
        let forward = self.forward_delay_s.unwrap_or(delay_s);
        ReturnCarrier::new(
            self,
            Duration::from_secs_f64(delay_s),
            Duration::from_secs_f64(forward),
            queue_packets,
            streams.rng("random_access"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    pub(crate) fn parse(v: Value) -> Result<Dvbrcs2Config, ScenarioError> {
        let mut base = json!({"superframe_s": 0.1, "slots": 10, "slot_payload_bytes": 100});
        base.as_object_mut()
            .unwrap()
            .extend(v.as_object().unwrap().clone());
        let c: Dvbrcs2Config = crate::error::typed::<Option<Dvbrcs2Config>>(&base)?.unwrap();
        c.validate()?;
        Ok(c)
    }

    #[test]
    fn bad_settings_are_named_with_their_value() {
        for (v, field, words) in [
            (json!({"slots": 0}), "slots", "0 must be between 1"),
            (
                json!({"superframe_s": 0.0}),
                "superframe_s",
                "must be between",
            ),
            (
                json!({"carriers": 11}),
                "carriers",
                "11 must be between 1 and 10",
            ),
            (
                json!({"random_access_slots": 11}),
                "random_access_slots",
                "11 must be",
            ),
            (
                json!({"replicas": 4}),
                "replicas",
                "4 must be between 2 and 3",
            ),
            (
                json!({"burst_rate_bps": 1e6}),
                "burst_rate_bps",
                "not with slot_payload_bytes",
            ),
            (
                json!({"slot_payload_bytes": null}),
                "slot_payload_bytes",
                "missing",
            ),
            (
                json!({"slot_payload_bytes": null, "burst_rate_bps": 10.0}),
                "burst_rate_bps",
                "carries no byte",
            ),
            // 10 slots of 100 bytes per 0.1 s: 80 kb/s in all.
            (json!({"cra_bps": 90e3}), "cra_bps", "need 11.2 slots"),
            (
                json!({"random_access_slots": 5, "cra_bps": 48e3}),
                "cra_bps",
                "more than the 5 dedicated",
            ),
            (
                json!({"terminals": [{"node": "t1"}, {"node": "t1"}]}),
                "terminals[1].node",
                "t1 is listed twice",
            ),
            (
                json!({"terminals": [{"node": "t1", "cra_bps": -1.0}]}),
                "terminals[0].cra_bps",
                "-1 must be between",
            ),
            (
                json!({"rbdc_timeout_s": 0.0}),
                "rbdc_timeout_s",
                "must be between",
            ),
            (
                json!({"random_access": "aloha"}),
                "random_access",
                "unknown variant",
            ),
            (json!({"vbdc": false}), "vbdc", "could never send"),
            (
                json!({"terminals": [{"node": "t1", "vbdc": false}]}),
                "terminals[0].vbdc",
                "could never send",
            ),
        ] {
            let e = parse(v.clone()).unwrap_err();
            assert_eq!(e.field, field, "{v}");
            assert!(e.message.contains(words), "{v}: {}", e.message);
        }
    }

    /// 10 slots of 100 bytes every 0.1 s: 80 kb/s; a burst rate of
    /// 20 kb/s over 2 carriers: 5 columns of 20 ms, 50 bytes a slot.
    #[test]
    fn the_capacity_is_every_slots_payload() {
        let c = parse(json!({})).unwrap();
        assert!((c.capacity_bps() - 80e3).abs() < 1e-9);
        let c = parse(json!({"slot_payload_bytes": null, "burst_rate_bps": 20e3, "carriers": 2}))
            .unwrap();
        assert_eq!(c.plan().slot_bytes, 50);
        assert!((c.capacity_bps() - 40e3).abs() < 1e-9);
    }
}
