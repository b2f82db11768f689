//! TCP variants and router functions. Each variant family lives in its own
//! module or folder, owns its settings (`[tcp.<family>]`) and builds its
//! sender, receiver and router parts; the two registries below, one line
//! per entry, are the only places that map names to them. `tcp/` and
//! `net/` import nothing from here.
//!
//! Adding a variant: docs/architecture.md, "Adding a variant".

pub mod adalr;
pub mod bbr;
pub mod cubic;
pub mod dsack_r;
pub mod enhanced_rtt;
pub mod epdn;
pub mod example;
pub mod faststart;
pub mod header_bits;
pub mod hybla;
pub mod peach;
pub mod reno;
pub mod rn_receiver;
pub mod rntcp;
pub mod rr_tcp;
pub mod scalable;
pub mod slowstart;
pub mod tcpr;
#[cfg(test)]
pub(crate) mod test_support;
pub mod westwood;

use crate::error::{bad, typed, ScenarioError};
use crate::net::router::RouterFunction;
use crate::tcp::{
    CongestionControl, EndpointParts, Profile, Recovery, TcpConfig, TcpEndpoint, VariantChoice,
    VariantFactory,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

/// A variant family in the registry.
pub struct Variant {
    /// The family's name, which is also the name of its settings table.
    pub name: &'static str,
    /// One line for `satcp variants`.
    pub about: &'static str,
    /// Loss recoveries it can run; the first is the default.
    pub recoveries: &'static [Recovery],
    /// Other names and the loss recovery each implies ("sack" = reno with
    /// SACK recovery).
    pub shorthands: &'static [(&'static str, Recovery)],
    /// Parses and checks the family's settings table into its factory.
    /// Errors name the field relative to the family's table.
    pub parse: fn(&VariantInput) -> Result<Arc<dyn VariantFactory>, ScenarioError>,
    /// The JSON Schema of the family's settings table (`scenario/schema.rs`):
    /// derived from the type `parse` reads, so the two cannot disagree.
    pub schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    /// Listed by `satcp variants` (false for the worked example).
    pub listed: bool,
    /// How `satcp compare` runs the family (none: it is not compared).
    pub compared_as: &'static [Showcase],
}

/// A configuration `satcp compare` runs: the label its rankings show and
/// the `[tcp]` table (JSON) that selects it.
pub struct Showcase {
    pub label: &'static str,
    pub tcp: &'static str,
}

/// What a family's settings are parsed and checked with.
pub struct VariantInput<'a> {
    pub tcp: &'a TcpConfig,
    /// The name the scenario gave (a family or one of its shorthands).
    pub name: &'a str,
    pub recovery: Recovery,
    /// The family's settings table, or null.
    pub settings: &'a Value,
}

/// A family's settings table (`[tcp.<family>]`) as a typed value: serde
/// reads it (unknown fields are errors, missing ones take the defaults),
/// `check` validates it and completes it from the TCP settings, and the
/// value is the family's factory.
pub trait Settings:
    VariantFactory + DeserializeOwned + schemars::JsonSchema + Default + 'static
{
    /// Checks the values; errors name the field relative to the table.
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        Ok(())
    }
}

/// The settings of a family that changes congestion control only: it runs
/// NewReno or SACK recovery unchanged.
pub trait CongestionSettings:
    DeserializeOwned + schemars::JsonSchema + Default + Send + Sync + 'static
{
    /// Checks the values; errors name the field relative to the table.
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// The congestion control of one endpoint.
    fn congestion_control(&self) -> Box<dyn CongestionControl>;
}

/// A congestion-only family's factory: its settings with the standard
/// loss recovery.
struct WithStandardRecovery<S>(S);

impl<S: CongestionSettings> VariantFactory for WithStandardRecovery<S> {
    fn endpoint(&self, recovery: Recovery) -> EndpointParts {
        EndpointParts::with_standard_recovery(self.0.congestion_control(), recovery)
    }
}

fn parse_settings<S: Settings>(
    input: &VariantInput,
) -> Result<Arc<dyn VariantFactory>, ScenarioError> {
    let mut s: S = typed(input.settings)?;
    s.check(input)?;
    Ok(Arc::new(s))
}

fn parse_congestion_settings<S: CongestionSettings>(
    input: &VariantInput,
) -> Result<Arc<dyn VariantFactory>, ScenarioError> {
    let mut s: S = typed(input.settings)?;
    s.check(input)?;
    Ok(Arc::new(WithStandardRecovery(s)))
}

impl Variant {
    /// A family whose settings `S` build all its parts.
    pub const fn new<S: Settings>(
        name: &'static str,
        about: &'static str,
        recoveries: &'static [Recovery],
        shorthands: &'static [(&'static str, Recovery)],
    ) -> Variant {
        let parse = parse_settings::<S>;
        Variant::parsed_by(name, about, recoveries, shorthands, parse, schema_of::<S>)
    }

    /// A family that changes congestion control only (settings `S`) and
    /// runs the standard loss recoveries it lists.
    pub const fn congestion_only<S: CongestionSettings>(
        name: &'static str,
        about: &'static str,
        recoveries: &'static [Recovery],
        shorthands: &'static [(&'static str, Recovery)],
    ) -> Variant {
        let parse = parse_congestion_settings::<S>;
        Variant::parsed_by(name, about, recoveries, shorthands, parse, schema_of::<S>)
    }

    const fn parsed_by(
        name: &'static str,
        about: &'static str,
        recoveries: &'static [Recovery],
        shorthands: &'static [(&'static str, Recovery)],
        parse: fn(&VariantInput) -> Result<Arc<dyn VariantFactory>, ScenarioError>,
        schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    ) -> Variant {
        Variant {
            name,
            about,
            recoveries,
            shorthands,
            parse,
            schema,
            listed: true,
            compared_as: &[],
        }
    }

    /// The same family, compared by `satcp compare` as these
    /// configurations.
    pub const fn compared_as(self, showcases: &'static [Showcase]) -> Variant {
        Variant {
            compared_as: showcases,
            ..self
        }
    }

    /// The same family, not listed by `satcp variants`.
    pub const fn unlisted(self) -> Variant {
        Variant {
            listed: false,
            ..self
        }
    }
}

/// A family without settings of its own: its table must be empty.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoSettings {}

/// A router function kind in the registry (`[[routers]] kind = ...`).
pub struct RouterKind {
    pub kind: &'static str,
    pub about: &'static str,
    /// Builds one instance from its settings (the entry's other fields);
    /// errors name the field relative to the entry.
    pub build: fn(&Value) -> Result<Box<dyn RouterFunction>, ScenarioError>,
    /// The JSON Schema of the entry's settings: derived from the type
    /// `build` reads (`scenario/schema.rs`).
    pub schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
}

/// The schema of the settings type `T`, for a registry entry.
pub fn schema_of<T: schemars::JsonSchema>(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<T>()
}

/// Every variant family, in the order `satcp variants` lists them and
/// `satcp compare` runs them.
pub const VARIANTS: &[&Variant] = &[
    &reno::VARIANT,
    &adalr::VARIANT,
    &peach::VARIANT,
    &faststart::VARIANT,
    &slowstart::VARIANT,
    &rntcp::VARIANT,
    &tcpr::VARIANT,
    &dsack_r::VARIANT,
    &rr_tcp::VARIANT,
    &cubic::VARIANT,
    &hybla::VARIANT,
    &westwood::VARIANT,
    &bbr::VARIANT,
    &scalable::VARIANT,
    &example::VARIANT,
];

/// Every configuration `satcp compare` runs, in registry order.
pub fn showcases() -> impl Iterator<Item = &'static Showcase> {
    VARIANTS.iter().flat_map(|v| v.compared_as.iter())
}

/// Every router function kind.
pub const ROUTERS: &[&RouterKind] = &[&example::DROP_RECORDER, &epdn::EPDN_V2, &epdn::EPDN_V3];

/// The family a variant name denotes and the loss recovery the name
/// implies, if any.
pub fn find(name: &str) -> Option<(&'static Variant, Option<Recovery>)> {
    VARIANTS.iter().find_map(|v| {
        if v.name == name {
            Some((*v, None))
        } else {
            v.shorthands
                .iter()
                .find(|(s, _)| *s == name)
                .map(|(_, r)| (*v, Some(*r)))
        }
    })
}

/// Every name a user may give as `tcp.variant` (listed families and their
/// shorthands), for help texts and error messages.
pub fn variant_names() -> Vec<&'static str> {
    let mut names = Vec::new();
    for v in VARIANTS.iter().filter(|v| v.listed) {
        names.push(v.name);
        names.extend(v.shorthands.iter().map(|(s, _)| *s));
    }
    names
}

/// The loss recovery a family runs when neither `recovery` nor the variant
/// name chooses one: its first, except that the `linux` profile runs SACK's
/// wherever the family offers it (net.ipv4.tcp_sack = 1: every Linux
/// congestion control repairs losses from the SACK scoreboard).
fn default_recovery(v: &Variant, profile: Profile) -> Recovery {
    match profile {
        Profile::Linux if v.recoveries.contains(&Recovery::Sack) => Recovery::Sack,
        _ => v.recoveries[0],
    }
}

/// Resolves the variant `tcp` names: its family, the loss recovery, and
/// its settings table `settings` (null: the defaults) parsed and checked.
/// Errors name the field relative to the `[tcp]` table.
pub fn resolve(tcp: &TcpConfig, settings: &Value) -> Result<VariantChoice, ScenarioError> {
    let Some((v, implied)) = find(&tcp.variant) else {
        return Err(bad(
            "variant",
            format!("{:?}", tcp.variant),
            &format!("is not a known variant ({})", variant_names().join(", ")),
        ));
    };
    let recovery = match (implied, tcp.recovery) {
        (Some(i), Some(r)) if i != r => {
            return Err(ScenarioError::new(
                "recovery",
                format!(
                    "{:?} conflicts with variant {:?}, which implies {:?} (use variant = {:?})",
                    r.name(),
                    tcp.variant,
                    i.name(),
                    v.name
                ),
            ))
        }
        (i, r) => r.or(i).unwrap_or_else(|| default_recovery(v, tcp.profile)),
    };
    if !v.recoveries.contains(&recovery) {
        return Err(bad(
            "recovery",
            format!("{:?}", recovery.name()),
            &format!("is not a loss recovery of variant {:?}", v.name),
        ));
    }
    let factory = (v.parse)(&VariantInput {
        tcp,
        name: &tcp.variant,
        recovery,
        settings,
    })
    .map_err(|e| e.under(v.name))?;
    Ok(VariantChoice {
        family: v.name,
        recovery,
        factory,
    })
}

/// The variant of `tcp` as the scenario parser resolved it, or resolved
/// now with the family's default settings.
pub fn choice(tcp: &TcpConfig) -> Result<VariantChoice, ScenarioError> {
    match &tcp.variant_choice {
        Some(c) => Ok(c.clone()),
        None => resolve(tcp, &Value::Null),
    }
}

/// An endpoint of the variant `tcp` selects, for tests and tools that
/// drive endpoints by hand.
pub fn endpoint(tcp: &TcpConfig) -> Result<TcpEndpoint, ScenarioError> {
    Ok(TcpEndpoint::from_parts(tcp, choice(tcp)?.endpoint()))
}

/// The same with the family's settings table `settings`.
pub fn endpoint_with(tcp: &TcpConfig, settings: &Value) -> Result<TcpEndpoint, ScenarioError> {
    Ok(TcpEndpoint::from_parts(
        tcp,
        resolve(tcp, settings)?.endpoint(),
    ))
}

/// A router function of kind `kind` with `settings`; errors name the field
/// relative to the entry.
pub fn router(kind: &str, settings: &Value) -> Result<Box<dyn RouterFunction>, ScenarioError> {
    let Some(k) = ROUTERS.iter().find(|k| k.kind == kind) else {
        let kinds: Vec<_> = ROUTERS.iter().map(|k| k.kind).collect();
        return Err(bad(
            "kind",
            format!("{kind:?}"),
            &format!("is not a router function ({})", kinds.join(", ")),
        ));
    };
    (k.build)(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// Linux repairs losses from the SACK scoreboard whatever its congestion
    /// control: the linux profile runs SACK recovery where the family
    /// offers it, unless the scenario or the variant's name says otherwise;
    /// rfc keeps each family's first recovery.
    #[test]
    fn linux_recovers_with_sack_where_the_family_offers_it() {
        let recovery = |profile: Profile, variant: &str, recovery: Option<&str>| {
            let mut m = Map::new();
            m.insert("profile".into(), serde_json::to_value(profile).unwrap());
            m.insert("variant".into(), json!(variant));
            if let Some(r) = recovery {
                m.insert("recovery".into(), json!(r));
            }
            crate::tcp::profile::apply(&mut m);
            let tcp: TcpConfig = serde_json::from_value(Value::Object(m)).unwrap();
            resolve(&tcp, &Value::Null).unwrap().recovery
        };
        assert_eq!(recovery(Profile::Linux, "westwood", None), Recovery::Sack);
        assert_eq!(recovery(Profile::Linux, "reno", None), Recovery::Sack);
        assert_eq!(recovery(Profile::Rfc, "westwood", None), Recovery::NewReno);
        assert_eq!(
            recovery(Profile::Linux, "westwood", Some("newreno")),
            Recovery::NewReno
        );
        assert_eq!(recovery(Profile::Linux, "newreno", None), Recovery::NewReno);
    }
}
