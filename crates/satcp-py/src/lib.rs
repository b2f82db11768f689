//! The thin Python binding: scenarios in as JSON text, results out as JSON
//! text. Everything else (TOML, overrides, data frames, files) is Python's.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use satcp_core::net::observer::{PacketEvent, PacketObserver};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

create_exception!(_core, ScenarioError, PyValueError);

/// The Rust side's allocations, the simulator's buffers among them, go
/// through satcp's allocator (`satcp_core::huge_page_alloc`); Python's own
/// are not affected.
#[global_allocator]
static ALLOC: satcp_core::HugePageAlloc = satcp_core::HugePageAlloc;

/// Runs a scenario given as JSON; returns the results as JSON. The GIL is
/// released while the simulation runs, so Python threads can run several.
#[pyfunction]
fn run_json(py: Python<'_>, scenario: &str) -> PyResult<String> {
    let owned = scenario.to_string();
    py.allow_threads(move || satcp_core::run_json(&owned))
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// `run_json` without the time series (empty `flow_series` and
/// `link_series`): the same run, for a caller that reads only the summary.
#[pyfunction]
fn run_json_summary(py: Python<'_>, scenario: &str) -> PyResult<String> {
    let owned = scenario.to_string();
    py.allow_threads(move || satcp_core::run_json_summary(&owned))
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Runs a scenario given as JSON while writing pcap files of link
/// directions `(direction id, path)`; returns the results as JSON and the
/// packets written per file.
#[pyfunction]
fn run_json_capture(
    py: Python<'_>,
    scenario: &str,
    captures: Vec<(u32, String)>,
) -> PyResult<(String, Vec<u64>)> {
    let owned = scenario.to_string();
    let s = satcp_core::parse(&owned).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let caps: Vec<(u32, std::path::PathBuf)> =
        captures.into_iter().map(|(l, p)| (l, p.into())).collect();
    let (r, counts) = py
        .allow_threads(move || satcp_core::scenario::run_with_captures(&s, &caps))
        .map_err(pyo3::exceptions::PyOSError::new_err)?;
    Ok((
        serde_json::to_string(&r).expect("results serialize"),
        counts,
    ))
}

/// The simulated time a running simulation has reached, for a progress
/// bar: written by the run's packet observer (the time of the latest packet
/// event), read by Python from another thread while the run holds no GIL.
#[pyclass]
struct SimClock {
    ns: Arc<AtomicU64>,
}

#[pymethods]
impl SimClock {
    #[new]
    fn new() -> Self {
        SimClock {
            ns: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Simulated seconds reached so far.
    fn now_s(&self) -> f64 {
        self.ns.load(Ordering::Relaxed) as f64 * 1e-9
    }
}

/// The observer behind [`SimClock`].
struct ClockObserver(Arc<AtomicU64>);

impl PacketObserver for ClockObserver {
    fn on_packet(&mut self, ev: &PacketEvent) {
        self.0.store(ev.time.0, Ordering::Relaxed);
    }
}

/// Runs a scenario given as JSON like `run_json`, advancing `clock` as it
/// goes (for `satcp run`'s progress bar).
#[pyfunction]
fn run_json_clocked(py: Python<'_>, scenario: &str, clock: &SimClock) -> PyResult<String> {
    let s = satcp_core::parse(scenario).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let ns = clock.ns.clone();
    let r = py.allow_threads(move || {
        satcp_core::scenario::run_observed(&s, vec![Box::new(ClockObserver(ns))])
    });
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// Validates a scenario given as JSON without running it.
#[pyfunction]
fn validate_json(scenario: &str) -> PyResult<()> {
    satcp_core::parse(scenario)
        .map(|_| ())
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Names a scenario may give as `tcp.variant`: the variant families and
/// their shorthands.
#[pyfunction]
fn variants() -> Vec<&'static str> {
    satcp_core::protocols::variant_names()
}

/// The variant families: (name, description, loss recoveries, shorthands).
#[pyfunction]
fn variant_families() -> Vec<(
    &'static str,
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
)> {
    satcp_core::protocols::VARIANTS
        .iter()
        .filter(|v| v.listed)
        .map(|v| {
            (
                v.name,
                v.about,
                v.recoveries.iter().map(|r| r.name()).collect(),
                v.shorthands.iter().map(|(s, _)| *s).collect(),
            )
        })
        .collect()
}

/// The configurations `satcp compare` runs, in registry order: (label,
/// the `[tcp]` table as JSON).
#[pyfunction]
fn compared_variants() -> Vec<(&'static str, &'static str)> {
    satcp_core::protocols::showcases()
        .map(|s| (s.label, s.tcp))
        .collect()
}

/// The router function kinds: (kind, description).
#[pyfunction]
fn router_kinds() -> Vec<(&'static str, &'static str)> {
    satcp_core::protocols::ROUTERS
        .iter()
        .map(|k| (k.kind, k.about))
        .collect()
}

/// Runs the training workload of the profile-guided optimisation
/// (`tools/pgo.sh`) in this build; returns the events simulated.
#[pyfunction]
fn _pgo_training(py: Python<'_>) -> u64 {
    py.allow_threads(satcp_core::pgo_training::run_all)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_summary, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_capture, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_clocked, m)?)?;
    m.add_class::<SimClock>()?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(variant_families, m)?)?;
    m.add_function(wrap_pyfunction!(compared_variants, m)?)?;
    m.add_function(wrap_pyfunction!(router_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(_pgo_training, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
