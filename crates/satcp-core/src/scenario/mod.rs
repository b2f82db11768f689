//! Scenarios: parse and validate a scenario, build the simulation, run it
//! and collect results. This is the core's whole public entry point:
//! `run_json(text)` takes a scenario as JSON and returns results as JSON.

pub mod build;
pub mod config;
pub mod diagnosis;
pub mod emulate;
pub mod links;
pub mod node_graph;
pub mod projection;
pub mod result_fields;
pub mod results;
pub mod run_row;
pub mod schema;
pub mod tables_only;
pub mod validate;

pub use config::Scenario;
pub use results::RunResult;

use serde_json::Value;

pub use crate::error::ScenarioError;

/// Parses a scenario from JSON. The top-level `tcp` table holds defaults
/// for every application; an application's own `tcp` table overrides them.
/// A run estimated to need more than the default memory limit (2 GB,
/// `validate::DEFAULT_MAX_MEMORY_BYTES`) is refused: [`parse_within`]
/// sets another.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    parse_within(json, validate::DEFAULT_MAX_MEMORY_BYTES)
}

/// [`parse`] with a memory limit of `max_memory_bytes` (positive; infinity
/// for none): a run estimated to need more (`validate::estimate_memory`)
/// is refused, naming the fields that make it grow.
pub fn parse_within(json: &str, max_memory_bytes: f64) -> Result<Scenario, ScenarioError> {
    if max_memory_bytes.is_nan() || max_memory_bytes <= 0.0 {
        return Err(crate::error::bad(
            "max_memory",
            crate::error::number(max_memory_bytes),
            "must be a positive number of bytes",
        ));
    }
    let s = parse_unbudgeted(json)?;
    validate::within_budget(&s, max_memory_bytes)?;
    Ok(s)
}

fn parse_unbudgeted(json: &str) -> Result<Scenario, ScenarioError> {
    let mut v: Value = serde_json::from_str(json)
        .map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
    let obj = v
        .as_object_mut()
        .ok_or_else(|| ScenarioError::new("", "the scenario must be a table"))?;
    let global_tcp = match obj.remove("tcp") {
        None => serde_json::Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ScenarioError::new("tcp", "must be a table")),
    };
    // The shared table is checked on its own, so its errors say `tcp.x`.
    check_shared_tcp(&global_tcp)?;
    let apps = match obj.remove("apps") {
        None => return Err(ScenarioError::new("apps", "missing")),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(ScenarioError::new("apps", "must be a list of tables")),
    };
    let routers = match obj.remove("routers") {
        None => Vec::new(),
        Some(Value::Array(r)) => r,
        Some(_) => return Err(ScenarioError::new("routers", "must be a list of tables")),
    };
    let links = match obj.remove("links") {
        None => return Err(ScenarioError::new("links", "missing")),
        Some(Value::Array(l)) => l,
        Some(_) => return Err(ScenarioError::new("links", "must be a list of tables")),
    };
    let mut s: Scenario = typed("", v)?;
    for (i, l) in links.into_iter().enumerate() {
        s.links.push(links::parse(&format!("links[{i}]"), l)?);
    }
    // Per application, the TCP fields it sets itself: an error in any other
    // is reported where the user wrote it, in the shared `[tcp]` table.
    let mut own_tcp_keys = Vec::new();
    for (i, app) in apps.into_iter().enumerate() {
        own_tcp_keys.push(app_tcp_keys(&app));
        let app = parse_app(&format!("apps[{i}]"), app, &global_tcp);
        s.apps
            .push(app.map_err(|e| in_shared_tcp(e, i, &own_tcp_keys[i]))?);
    }
    for (i, r) in routers.into_iter().enumerate() {
        s.routers.push(parse_router(&format!("routers[{i}]"), r)?);
    }
    validate::validate(&s).map_err(|e| match app_index(&e.field) {
        Some(i) if i < own_tcp_keys.len() => in_shared_tcp(e, i, &own_tcp_keys[i]),
        _ => e,
    })?;
    Ok(s)
}

fn app_tcp_keys(app: &Value) -> Vec<String> {
    app.get("tcp")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// `apps[3].tcp.x` -> 3.
fn app_index(field: &str) -> Option<usize> {
    field.strip_prefix("apps[")?.split(']').next()?.parse().ok()
}

/// `apps[i].tcp.<key>...` becomes `tcp.<key>...` when application `i` did
/// not set `<key>` itself (it came from the shared table).
fn in_shared_tcp(e: ScenarioError, i: usize, own: &[String]) -> ScenarioError {
    let prefix = format!("apps[{i}].tcp.");
    let Some(rest) = e.field.strip_prefix(&prefix) else {
        return e;
    };
    let key = rest.split(['.', '[']).next().unwrap_or(rest);
    if own.iter().any(|k| k == key) {
        return e;
    }
    ScenarioError::new(format!("tcp.{rest}"), e.message)
}

/// The shared `[tcp]` table: its own fields, and each variant table in it
/// checked against its variant (which applications may select).
fn check_shared_tcp(global: &serde_json::Map<String, Value>) -> Result<(), ScenarioError> {
    let mut own = global.clone();
    crate::tcp::profile::apply(&mut own);
    let tables = take_variant_tables(&mut own);
    let mut shared: crate::tcp::TcpConfig = typed("tcp", Value::Object(own))?;
    validate::tcp_fields("tcp", &shared)?;
    for (name, table) in tables {
        shared.variant = name.to_string();
        shared.recovery = None;
        crate::protocols::resolve(&shared, &table).map_err(|e| e.under("tcp"))?;
    }
    Ok(())
}

/// Removes the variant settings tables (`[tcp.<family>]`) from a TCP table.
fn take_variant_tables(tcp: &mut serde_json::Map<String, Value>) -> Vec<(&'static str, Value)> {
    crate::protocols::VARIANTS
        .iter()
        .filter_map(|v| tcp.remove(v.name).map(|t| (v.name, t)))
        .collect()
}

/// An application's merged TCP table: the selected variant's settings
/// table is set aside for its factory (returned second); another
/// variant's is an error.
fn app_tcp(
    f: &str,
    mut tcp: serde_json::Map<String, Value>,
) -> Result<(Value, Option<Value>), ScenarioError> {
    let tables = take_variant_tables(&mut tcp);
    let default_variant = crate::tcp::TcpConfig::default().variant;
    let variant = tcp
        .get("variant")
        .and_then(Value::as_str)
        .unwrap_or(&default_variant)
        .to_string();
    let family = crate::protocols::find(&variant).map(|(v, _)| v.name);
    let mut own = None;
    for (name, table) in tables {
        if Some(name) != family {
            return Err(ScenarioError::new(
                format!("{f}.tcp.{name}"),
                format!("settings of variant {name:?}, but the variant is {variant:?}"),
            ));
        }
        own = Some(table);
    }
    Ok((Value::Object(tcp), own))
}

/// One `[[routers]]` entry: `node`, `kind`, and the function's settings.
fn parse_router(f: &str, r: Value) -> Result<config::RouterConfig, ScenarioError> {
    let Value::Object(mut m) = r else {
        return Err(ScenarioError::new(f, "must be a table"));
    };
    let mut take = |key: &str| match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ScenarioError::new(
            format!("{f}.{key}"),
            format!("{other} must be a string"),
        )),
        None => Err(ScenarioError::new(format!("{f}.{key}"), "missing")),
    };
    let node = take("node")?;
    let kind = take("kind")?;
    Ok(config::RouterConfig {
        node,
        kind,
        settings: Value::Object(m),
    })
}

/// Deserializes `v`, naming the failing field with `prefix` and its path.
fn typed<T: serde::de::DeserializeOwned>(prefix: &str, v: Value) -> Result<T, ScenarioError> {
    tables_only::deserialize(&v).map_err(|e| crate::error::path_error(e).under(prefix))
}

/// One application table: `kind` picks the type; its `tcp` table goes over
/// the shared one.
fn parse_app(
    f: &str,
    app: Value,
    global_tcp: &serde_json::Map<String, Value>,
) -> Result<config::AppConfig, ScenarioError> {
    use config::AppConfig;
    let Value::Object(mut a) = app else {
        return Err(ScenarioError::new(f, "must be a table"));
    };
    let mut tcp = global_tcp.clone();
    match a.remove("tcp") {
        None => {}
        Some(Value::Object(own)) => tcp.extend(own),
        Some(_) => return Err(ScenarioError::new(format!("{f}.tcp"), "must be a table")),
    }
    // The profile fills what neither table sets (`tcp/profile.rs`).
    crate::tcp::profile::apply(&mut tcp);
    let (tcp, variant_settings) = app_tcp(f, tcp)?;
    a.insert("tcp".into(), tcp);
    let kind = match a.remove("kind") {
        Some(Value::String(k)) => k,
        Some(other) => other.to_string(),
        None => {
            return Err(ScenarioError::new(
                format!("{f}.kind"),
                "missing (ftp, http, bulk, web)",
            ))
        }
    };
    let v = Value::Object(a);
    let mut app = match kind.as_str() {
        "ftp" => AppConfig::Ftp(typed(f, v)?),
        "http" => AppConfig::Http(typed(f, v)?),
        "bulk" => AppConfig::Bulk(typed(f, v)?),
        "web" => AppConfig::Web(typed(f, v)?),
        other => {
            return Err(ScenarioError::new(
                format!("{f}.kind"),
                format!("{other:?} is not an application kind (ftp, http, bulk, web)"),
            ))
        }
    };
    // The variant is resolved here, once: its settings table parsed into
    // the typed value that builds every endpoint's parts.
    let settings = variant_settings.unwrap_or(Value::Null);
    let choice = crate::protocols::resolve(app.tcp(), &settings)
        .map_err(|e| e.under(&format!("{f}.tcp")))?;
    app.tcp_mut().variant_choice = Some(choice);
    Ok(app)
}

/// Runs a validated scenario.
pub fn run(s: &Scenario) -> RunResult {
    let mut sim = build::build(s);
    let stop = crate::engine::SimTime::from_secs_f64(s.duration_s);
    sim.run(stop, s.stop_when_done);
    results::finish(s, &mut sim)
}

/// Runs a validated scenario with packet observers attached (e.g. the
/// Python binding's progress clock); [`run`] without them pays nothing.
pub fn run_observed(
    s: &Scenario,
    observers: Vec<Box<dyn crate::net::observer::PacketObserver>>,
) -> RunResult {
    let watch = Watch {
        observers,
        stop: None,
    };
    run_watched(s, watch).expect("a run without a stop flag is never interrupted")
}

/// How a caller follows a run from outside: packet observers, and a flag
/// another thread sets to stop it (Ctrl-C).
#[derive(Default)]
pub struct Watch {
    pub observers: Vec<Box<dyn crate::net::observer::PacketObserver>>,
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// A run stopped by its stop flag before its end: it has no results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

/// Runs a validated scenario as `watch` says; `Err(Interrupted)` when its
/// stop flag was set before the run's end.
pub fn run_watched(s: &Scenario, watch: Watch) -> Result<RunResult, Interrupted> {
    let mut sim = build::build(s);
    for o in watch.observers {
        sim.add_observer(o);
    }
    if let Some(flag) = watch.stop {
        sim.set_stop_flag(flag);
    }
    let stop = crate::engine::SimTime::from_secs_f64(s.duration_s);
    sim.run(stop, s.stop_when_done);
    if sim.interrupted() {
        return Err(Interrupted);
    }
    Ok(results::finish(s, &mut sim))
}

/// A run with every endpoint's transport invariants checked after each of
/// its events (`tcp::invariants`), for property tests and fuzzing.
pub struct CheckedRun {
    pub result: RunResult,
    /// The invariant violations seen (empty when all held).
    pub violations: Vec<String>,
    /// The run ended with nothing left to happen (or by its applications),
    /// before the scenario's duration.
    pub ended_early: bool,
    /// Every endpoint's final state, client and server of each connection.
    pub states: Vec<crate::tcp::ConnState>,
}

/// Runs a validated scenario with the transport invariants checked.
pub fn run_checked(s: &Scenario) -> CheckedRun {
    let mut sim = build::build(s);
    sim.check_invariants(true);
    let stop = crate::engine::SimTime::from_secs_f64(s.duration_s);
    sim.run(stop, s.stop_when_done);
    let ended_early = (sim.apps_done() && s.stop_when_done) || sim.idle();
    CheckedRun {
        result: results::finish(s, &mut sim),
        violations: sim.violations().to_vec(),
        ended_early,
        states: sim.endpoints.iter().map(|e| e.ep.record().state).collect(),
    }
}

/// Runs a validated scenario while writing pcap files of link directions
/// (`(direction id, file)`: link i's a-to-b direction is 2i, b-to-a 2i+1).
/// Returns the results and the packets written per file.
pub fn run_with_captures(
    s: &Scenario,
    captures: &[(u32, std::path::PathBuf)],
) -> Result<(RunResult, Vec<u64>), String> {
    run_with_captures_stoppable(s, captures, None)
}

/// [`run_with_captures`] that another thread may stop through `stop`: then
/// `Err("interrupted")` (the [`Interrupted`] text), the files left unfinished
/// for the caller to remove.
pub fn run_with_captures_stoppable(
    s: &Scenario,
    captures: &[(u32, std::path::PathBuf)],
    stop_flag: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Result<(RunResult, Vec<u64>), String> {
    use crate::metrics::pcap::{PcapCapture, SharedCapture};
    use std::cell::RefCell;
    use std::rc::Rc;
    let mut sim = build::build(s);
    let mut handles = Vec::new();
    for (link, path) in captures {
        if *link as usize >= 2 * s.links.len() {
            return Err(format!("link direction {link} does not exist"));
        }
        let c = PcapCapture::create(path, *link)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let c = Rc::new(RefCell::new(c));
        sim.add_observer(Box::new(SharedCapture(c.clone())));
        handles.push((c, path));
    }
    if let Some(flag) = stop_flag {
        sim.set_stop_flag(flag);
    }
    let stop = crate::engine::SimTime::from_secs_f64(s.duration_s);
    sim.run(stop, s.stop_when_done);
    if sim.interrupted() {
        return Err(Interrupted.to_string());
    }
    let result = results::finish(s, &mut sim);
    let mut counts = Vec::new();
    for (c, path) in handles {
        let n = c
            .borrow_mut()
            .finish()
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        counts.push(n);
    }
    Ok((result, counts))
}

/// Parses, runs and serializes: the entry point of the Python binding.
pub fn run_json(json: &str) -> Result<String, ScenarioError> {
    let s = parse(json)?;
    let r = run(&s);
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// `run_json` without the time series: the same run, its samples included
/// (they count as events), with `flow_series` and `link_series` empty in
/// the JSON. It is for callers that read only the summary, such as a
/// sweep. A long run sampled every second carries megabytes of series,
/// and a caller would otherwise serialize and parse them for nothing.
pub fn run_json_summary(json: &str) -> Result<String, ScenarioError> {
    let s = parse(json)?;
    let mut r = run(&s);
    r.flow_series = Default::default();
    r.link_series = Default::default();
    Ok(serde_json::to_string(&r).expect("results serialize"))
}
