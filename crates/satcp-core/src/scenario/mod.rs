//! Scenarios: parse and validate a scenario, build the simulation, run it
//! and collect results. This is the core's whole public entry point:
//! `run_json(text)` takes a scenario as JSON and returns results as JSON.

pub mod build;
pub mod config;
pub mod results;
pub mod validate;

pub use config::Scenario;
pub use results::RunResult;

use serde_json::Value;
use std::fmt;

/// A scenario that cannot run: `field` names where (a dotted path such as
/// `links[1].ab.ber`), `message` says what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "invalid scenario: {}", self.message)
        } else {
            write!(f, "invalid scenario: {}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Parses a scenario from JSON. The top-level `tcp` table holds defaults
/// for every application; an application's own `tcp` table overrides them.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
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
    let shared: crate::tcp::TcpConfig = typed("tcp", Value::Object(global_tcp.clone()))?;
    validate::tcp("tcp", &shared)?;
    let apps = match obj.remove("apps") {
        None => return Err(ScenarioError::new("apps", "missing")),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(ScenarioError::new("apps", "must be a list of tables")),
    };
    let mut s: Scenario = typed("", v)?;
    for (i, app) in apps.into_iter().enumerate() {
        s.apps
            .push(parse_app(&format!("apps[{i}]"), app, &global_tcp)?);
    }
    validate::validate(&s)?;
    Ok(s)
}

/// Deserializes `v`, naming the failing field with `prefix` and its path.
fn typed<T: serde::de::DeserializeOwned>(prefix: &str, v: Value) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let field = match (prefix, path.as_str()) {
            (p, ".") => p.to_string(),
            ("", p) => p.to_string(),
            (p, q) if q.starts_with('[') => format!("{p}{q}"),
            (p, q) => format!("{p}.{q}"),
        };
        ScenarioError::new(field, e.into_inner().to_string())
    })
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
    a.insert("tcp".into(), Value::Object(tcp));
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
    Ok(match kind.as_str() {
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
    })
}

/// Runs a validated scenario.
pub fn run(s: &Scenario) -> RunResult {
    let mut sim = build::build(s);
    let stop = crate::engine::SimTime::from_secs_f64(s.duration_s);
    sim.run(stop, s.stop_when_done);
    results::collect(s, &sim)
}

/// Parses, runs and serializes: the entry point of the Python binding.
pub fn run_json(json: &str) -> Result<String, ScenarioError> {
    let s = parse(json)?;
    let r = run(&s);
    Ok(serde_json::to_string(&r).expect("results serialize"))
}
