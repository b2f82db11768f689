//! The scenario format as a JSON Schema (draft 2020-12), derived from the
//! types the parser reads: each settings struct derives `JsonSchema` beside
//! `Deserialize`, so its fields, types and defaults come from the same
//! definition, and its doc comments are the descriptions. Ranges are
//! attributes beside the fields, naming the constants the validators use
//! (`error.rs`, `scenario/validate.rs`); the test at the end of this file
//! checks that the parser rejects every value the schema rules out.
//!
//! The parts the parser assembles by hand are assembled here the same way,
//! from the same registries: a link is its ends plus direction settings
//! (at link level, or in `ab`/`ba`); a direction's queue names a kind from
//! `net::queue::KINDS`, each with its own table; `[tcp]` holds one table
//! per variant family (`protocols::VARIANTS`); `[[routers]]` entries are
//! one of `protocols::ROUTERS`.
//!
//! Every property carries `x-unit` when it has one: given beside the field,
//! or read from the field name's suffix (`_s`, `_bps`, `_bytes`,
//! `_packets`), as the format's convention has it.

use super::config::{AppConfig, Scenario};
use super::links::Ends;
use crate::net::link_config::DirectionConfig;
use crate::net::queue::config::QueueFields;
use crate::net::queue::KINDS;
use crate::protocols::{ROUTERS, VARIANTS};
use crate::tcp::TcpConfig;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{json, Map, Value};

/// The JSON Schema of a scenario as the core reads it (after the Python
/// layer has read the TOML file and any schedule files).
pub fn json_schema() -> Value {
    let mut g = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut root = g.root_schema_for::<Scenario>().to_value();
    root["$id"] = json!("https://satcp.invalid/scenario.schema.json");
    root["title"] = json!("satcp scenario");
    root["description"] = json!(
        "A satcp scenario: nodes, full-duplex links between them, applications \
         that run TCP connections over them, optional router functions; TOML on \
         disk, JSON across the Python binding."
    );
    let tcp = tcp_table(&mut g);
    let props = object(&mut root, "properties");
    let mut shared_tcp = tcp.clone();
    shared_tcp["description"] = json!(
        "TCP settings shared by every application (an application's own `tcp` \
         table is merged over it, field by field)."
    );
    props.insert("tcp".into(), shared_tcp);
    props.insert(
        "links".into(),
        json!({
            "description": "The full-duplex links between nodes (at most one per pair of nodes).",
            "type": "array",
            "items": link(&mut g),
        }),
    );
    props.insert(
        "apps".into(),
        json!({
            "description": "The applications, each running TCP between a client and a server node.",
            "type": "array",
            "items": apps(&mut g, &tcp),
        }),
    );
    props.insert(
        "routers".into(),
        json!({
            "description": "Router functions at nodes (`[[routers]]`), chosen by `kind`.",
            "type": "array",
            "items": routers(&mut g),
        }),
    );
    for required in ["links", "apps"] {
        root["required"]
            .as_array_mut()
            .expect("nodes is required")
            .push(json!(required));
    }
    units(&mut root, None);
    root
}

/// The schema of `T` as a JSON value.
fn schema<T: JsonSchema>(g: &mut SchemaGenerator) -> Value {
    g.subschema_for::<T>().to_value()
}

/// `v[key]` as a table, created if missing.
fn object<'a>(v: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    v.as_object_mut()
        .expect("a schema object")
        .entry(key)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("a table")
}

/// A TCP table: `TcpConfig`'s fields and one settings table per variant
/// family, named as the family.
fn tcp_table(g: &mut SchemaGenerator) -> Value {
    let mut tcp = schema::<TcpConfig>(g);
    let props = object(&mut tcp, "properties");
    // The names `protocols::find` knows: every family and its shorthands.
    let names: Vec<&str> = VARIANTS
        .iter()
        .flat_map(|v| std::iter::once(v.name).chain(v.shorthands.iter().map(|(s, _)| *s)))
        .collect();
    props.get_mut("variant").expect("the variant field")["enum"] = json!(names);
    for (k, v) in crate::tcp::profile::settings(crate::tcp::Profile::Linux) {
        props.get_mut(&k).expect("a TCP field")["x-default-linux"] = v;
    }
    for v in VARIANTS {
        let mut table = (v.schema)(g).to_value();
        table["description"] = json!(format!(
            "Settings of variant family {:?} ({}); only with a variant of this family.",
            v.name, v.about
        ));
        props.insert(v.name.into(), table);
    }
    tcp
}

/// A direction's settings: `DirectionConfig`'s, the queue's fields, and
/// one table per queue kind, named as the kind.
fn direction(g: &mut SchemaGenerator) -> Value {
    let mut d = schema::<DirectionConfig>(g);
    let queue = schema::<QueueFields>(g);
    let props = object(&mut d, "properties");
    for (k, v) in queue["properties"].as_object().expect("fields") {
        props.insert(k.clone(), v.clone());
    }
    for k in KINDS {
        let mut table = (k.schema)(g).to_value();
        table["description"] = json!(format!(
            "Settings of the {:?} queue; only with queue = {:?}.",
            k.name, k.name
        ));
        props.insert(k.name.into(), table);
    }
    d
}

/// A `[[links]]` entry: its ends, the settings of both directions, and
/// each direction's own (`ab`, `ba`), merged over them field by field.
fn link(g: &mut SchemaGenerator) -> Value {
    let mut l = schema::<Ends>(g);
    let d = direction(g);
    let props = object(&mut l, "properties");
    for (k, v) in d["properties"].as_object().expect("fields") {
        props.insert(k.clone(), v.clone());
    }
    for (dir, from, to) in [("ab", "a", "b"), ("ba", "b", "a")] {
        let mut own = d.clone();
        own["description"] = json!(format!(
            "Settings of the direction from {from} to {to} only, merged over the \
             link's field by field (tables merge, other values are replaced)."
        ));
        props.insert(dir.into(), own);
    }
    l["description"] = json!(
        "A full-duplex link between nodes a and b. Settings at link level apply to \
         both directions; `ab` and `ba` hold each direction's own. `rate_bps` is \
         needed, at link level or in each direction."
    );
    l
}

/// An `[[apps]]` entry: one of `AppConfig`'s kinds, with the full TCP
/// table (variant tables included) as its `tcp`.
fn apps(g: &mut SchemaGenerator, tcp: &Value) -> Value {
    let mut a = schema::<AppConfig>(g);
    for kind in a["oneOf"].as_array_mut().expect("one schema per kind") {
        let mut own = tcp.clone();
        own["description"] = kind["properties"]["tcp"]["description"].clone();
        kind["properties"]["tcp"] = own;
        kind["properties"]["kind"]["description"] = json!("The application kind.");
    }
    a
}

/// A `[[routers]]` entry: `node`, `kind`, and the kind's settings.
fn routers(g: &mut SchemaGenerator) -> Value {
    let kinds: Vec<Value> = ROUTERS
        .iter()
        .map(|r| {
            let mut s = (r.schema)(g).to_value();
            s["description"] = json!(r.about);
            let props = object(&mut s, "properties");
            props.insert(
                "node".into(),
                json!({"type": "string", "description": "The node the function runs at."}),
            );
            props.insert(
                "kind".into(),
                json!({"type": "string", "const": r.kind, "description": "The router function."}),
            );
            s["required"] = json!(["node", "kind"]);
            s
        })
        .collect();
    json!({ "oneOf": kinds })
}

/// The table schema of a property that may also be null (an `Option`).
#[cfg(test)]
fn _object(p: &Value) -> Value {
    match p.get("anyOf").and_then(Value::as_array) {
        Some(alts) => alts
            .iter()
            .find(|a| a.get("properties").is_some())
            .cloned()
            .expect("a table"),
        None => p.clone(),
    }
}

/// The unit a field name's suffix states.
fn unit_of(name: &str) -> Option<&'static str> {
    [
        ("_bps", "bit/s"),
        ("_bytes", "bytes"),
        ("_packets", "packets"),
        ("_db", "dB"),
        ("_baud", "baud"),
        ("_per_s", "1/s"),
        ("_s", "s"),
    ]
    .into_iter()
    .find(|(suffix, _)| name.ends_with(suffix))
    .map(|(_, unit)| unit)
}

/// Gives every property whose name states a unit its `x-unit`, keeping
/// those set beside the fields.
fn units(v: &mut Value, name: Option<&str>) {
    match v {
        Value::Object(m) => {
            if let Some(unit) = name.and_then(unit_of) {
                m.entry("x-unit").or_insert_with(|| json!(unit));
            }
            for (k, child) in m.iter_mut() {
                if k == "properties" {
                    for (field, s) in child.as_object_mut().into_iter().flatten() {
                        units(s, Some(field));
                    }
                } else {
                    units(child, None);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| units(i, None)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario that runs: two nodes, one link, one bulk transfer.
    fn base() -> Value {
        json!({
            "nodes": ["x", "y"],
            "links": [{"a": "x", "b": "y", "rate_bps": 1e6}],
            "apps": [{"kind": "bulk", "client": "x", "server": "y", "bytes": 1000}]
        })
    }

    /// Values of property `p` the schema rules out: just beyond each bound,
    /// outside each list of allowed values.
    fn ruled_out(p: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        let int = p["type"] == "integer"
            || p["type"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("integer")));
        let step = |v: f64| if int { 1.0 } else { v.abs().max(1.0) * 1e-3 };
        let num = |v: f64| if int { json!(v as i64) } else { json!(v) };
        if let Some(lo) = p["minimum"].as_f64() {
            out.push(num(lo - step(lo)));
        }
        if let Some(hi) = p["maximum"].as_f64() {
            out.push(num(hi + step(hi)));
        }
        for key in ["exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(v) = p[key].as_f64() {
                out.push(num(v));
            }
        }
        if let Some(n) = p["maxLength"].as_u64() {
            out.push(json!("n".repeat(n as usize + 1)));
        }
        if p["minLength"].as_u64().is_some_and(|n| n > 0) {
            out.push(json!(""));
        }
        if p["enum"].is_array() {
            out.push(json!("no-such-value"));
        }
        // A schedule: one point with one coordinate out of its range.
        if let Some(prefix) = p["items"]["prefixItems"].as_array() {
            let ok: Vec<Value> = prefix
                .iter()
                .map(|q| json!(q["minimum"].as_f64().unwrap_or(0.0)))
                .collect();
            for (k, q) in prefix.iter().enumerate() {
                for bad in ruled_out(q) {
                    let mut point = ok.clone();
                    point[k] = bad;
                    out.push(json!([point]));
                }
            }
        }
        out
    }

    /// Checks every property of table schema `table`, found at `at` in
    /// scenario `scenario` (a JSON pointer), against the parser.
    fn check_table(scenario: &Value, at: &str, table: &Value, checked: &mut usize) {
        for (field, p) in table["properties"].as_object().expect("a table") {
            for bad in ruled_out(p) {
                let mut s = scenario.clone();
                s.pointer_mut(at).expect("the table")[field] = bad.clone();
                let result = crate::scenario::parse(&s.to_string());
                let e = result
                    .err()
                    .unwrap_or_else(|| panic!("{at}/{field} = {bad} was accepted"));
                assert!(
                    e.field.split(['.', '[']).any(|step| step == field),
                    "{at}/{field} = {bad}: the error names another field: {e}"
                );
                *checked += 1;
            }
        }
    }

    /// Every bound and list of values the schema states, the parser
    /// enforces: a value the schema rules out is rejected, with an error
    /// that names the field.
    #[test]
    fn the_parser_rejects_what_the_schema_rules_out() {
        let schema = json_schema();
        let props = &schema["properties"];
        let mut checked = 0;
        let base = base();
        let top = json!({"properties": schema["properties"].as_object().unwrap().iter()
            .filter(|(k, _)| !["tcp", "links", "apps", "routers"].contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone())).collect::<Map<_, _>>()});
        check_table(&base, "", &top, &mut checked);
        let mut s = base.clone();
        s["tcp"] = json!({});
        let tcp = &props["tcp"];
        check_table(&s, "/tcp", tcp, &mut checked);
        for v in VARIANTS {
            let table = &tcp["properties"][v.name];
            if table.get("properties").is_some() {
                let mut s = base.clone();
                s["tcp"] = json!({"variant": v.name, "dsack": true, v.name: {}});
                check_table(&s, &format!("/tcp/{}", v.name), table, &mut checked);
            }
        }
        let link = &props["links"]["items"];
        check_table(&base, "/links/0", link, &mut checked);
        for (sub, extra) in [
            ("errors", json!({})),
            ("reorder", json!({})),
            ("arq", json!({})),
        ] {
            let mut s = base.clone();
            s["links"][0][sub] = extra;
            check_table(
                &s,
                &format!("/links/0/{sub}"),
                &link["properties"][sub],
                &mut checked,
            );
        }
        let mut s = base.clone();
        s["links"][0]["errors"] = json!({"gilbert_elliott": {"p": 0.1, "r": 0.5}});
        let ge = super::_object(&link["properties"]["errors"]["properties"]["gilbert_elliott"]);
        check_table(&s, "/links/0/errors/gilbert_elliott", &ge, &mut checked);
        for k in KINDS {
            let table = &link["properties"][k.name];
            if table.get("properties").is_some() {
                let mut s = base.clone();
                s["links"][0]["queue"] = json!(k.name);
                s["links"][0][k.name] = json!({});
                check_table(&s, &format!("/links/0/{}", k.name), table, &mut checked);
            }
        }
        for app in props["apps"]["items"]["oneOf"].as_array().unwrap() {
            let mut s = base.clone();
            s["apps"][0] =
                json!({"kind": app["properties"]["kind"]["const"], "client": "x", "server": "y"});
            check_table(&s, "/apps/0", app, &mut checked);
        }
        assert!(checked > 150, "{checked} values checked");
    }

    #[test]
    fn every_property_has_a_description_and_a_type() {
        let schema = json_schema();
        let mut missing = Vec::new();
        walk(&schema, "", &mut |path, s| {
            if s.get("description").is_none() {
                missing.push(path.to_string());
            }
        });
        assert!(missing.is_empty(), "no description: {missing:?}");
    }

    /// Calls `f` with every property's path and schema.
    fn walk(s: &Value, path: &str, f: &mut dyn FnMut(&str, &Value)) {
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                let p = format!("{path}.{k}");
                f(&p, v);
                walk(v, &p, f);
            }
        }
        for key in ["items", "anyOf", "oneOf"] {
            match s.get(key) {
                Some(Value::Array(a)) => a.iter().for_each(|i| walk(i, path, f)),
                Some(v @ Value::Object(_)) => walk(v, &format!("{path}[]"), f),
                _ => {}
            }
        }
    }
}
