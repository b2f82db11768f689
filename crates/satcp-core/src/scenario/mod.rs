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
    if let Some(Value::Array(apps)) = obj.get_mut("apps") {
        for (i, app) in apps.iter_mut().enumerate() {
            let Some(a) = app.as_object_mut() else {
                return Err(ScenarioError::new(format!("apps[{i}]"), "must be a table"));
            };
            let mut merged = global_tcp.clone();
            match a.remove("tcp") {
                None => {}
                Some(Value::Object(own)) => merged.extend(own),
                Some(_) => {
                    return Err(ScenarioError::new(
                        format!("apps[{i}].tcp"),
                        "must be a table",
                    ))
                }
            }
            a.insert("tcp".into(), Value::Object(merged));
        }
    }
    let s: Scenario = serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        ScenarioError::new(field, e.into_inner().to_string())
    })?;
    validate::validate(&s)?;
    Ok(s)
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
