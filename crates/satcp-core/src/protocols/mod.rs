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
pub mod newreno;
pub mod peach;
pub mod reno;
pub mod rn_receiver;
pub mod rntcp;
pub mod rr_tcp;
pub mod sack;
pub mod slowstart;
pub mod tcpr;
#[cfg(test)]
pub(crate) mod test_support;
pub mod westwood;

use crate::error::{bad, ScenarioError};
use crate::net::router::RouterFunction;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::{Recovery, TcpConfig, TcpEndpoint, VariantFactory};
use serde_json::Value;

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
    /// Builds the family's factory, checking its settings. Errors name the
    /// field relative to the family's table.
    pub build: fn(&VariantInput) -> Result<Box<dyn VariantFactory>, ScenarioError>,
    /// Listed by `satcp variants` (false for the worked example).
    pub listed: bool,
}

/// What a variant's factory is built from.
pub struct VariantInput<'a> {
    pub tcp: &'a TcpConfig,
    pub recovery: Recovery,
    /// The family's settings table, or null.
    pub settings: &'a Value,
}

/// A router function kind in the registry (`[[routers]] kind = ...`).
pub struct RouterKind {
    pub kind: &'static str,
    pub about: &'static str,
    /// Builds one instance from its settings (the entry's other fields);
    /// errors name the field relative to the entry.
    pub build: fn(&Value) -> Result<Box<dyn RouterFunction>, ScenarioError>,
}

/// Every variant family.
pub const VARIANTS: &[&Variant] = &[
    &reno::VARIANT,
    &adalr::VARIANT,
    &peach::VARIANT,
    &faststart::VARIANT,
    &slowstart::VARIANT,
    &rntcp::VARIANT,
    &tcpr::VARIANT,
    &cubic::VARIANT,
    &hybla::VARIANT,
    &westwood::VARIANT,
    &bbr::VARIANT,
    &dsack_r::VARIANT,
    &rr_tcp::VARIANT,
    &example::VARIANT,
];

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

/// The factory of the variant `tcp` selects, its settings checked. Errors
/// name the field relative to the `[tcp]` table.
pub fn factory(tcp: &TcpConfig) -> Result<Box<dyn VariantFactory>, ScenarioError> {
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
        (i, r) => r.or(i).unwrap_or(v.recoveries[0]),
    };
    if !v.recoveries.contains(&recovery) {
        return Err(bad(
            "recovery",
            format!("{:?}", recovery.name()),
            &format!("is not a loss recovery of variant {:?}", v.name),
        ));
    }
    let settings = tcp.variant_settings.as_ref().unwrap_or(&Value::Null);
    (v.build)(&VariantInput {
        tcp,
        recovery,
        settings,
    })
    .map_err(|e| e.under(v.name))
}

/// An endpoint of the variant `tcp` selects, for tests and tools that
/// drive endpoints by hand.
pub fn endpoint(tcp: &TcpConfig) -> Result<TcpEndpoint, ScenarioError> {
    Ok(TcpEndpoint::from_parts(tcp, factory(tcp)?.endpoint()))
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

/// Loss recovery as NewReno or SACK, for the families that run one of
/// them unchanged or wrap it.
pub fn plain_recovery(r: Recovery) -> Box<dyn LossRecovery> {
    match r {
        Recovery::NewReno => Box::new(newreno::NewRenoRecovery),
        Recovery::Sack => Box::new(sack::SackRecovery),
    }
}
