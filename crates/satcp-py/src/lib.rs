//! The thin Python binding: scenarios in as JSON text, results out as JSON
//! text. Everything else (overrides, data frames, files) is Python's, but
//! for reading TOML (`toml_doc`) and writing tables of numbers as CSV
//! (`csv_text`), which are here for the command line's time.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use satcp_core::metrics::trace::{Trace, TraceKind};
use satcp_core::net::observer::{PacketEvent, PacketObserver};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod csv_text;
mod row_pool;
mod toml_doc;

create_exception!(_core, ScenarioError, PyValueError);

/// The Rust side's allocations, the simulator's buffers among them, go
/// through satcp's allocator (`satcp_core::huge_page_alloc`); Python's own
/// are not affected.
#[global_allocator]
static ALLOC: satcp_core::HugePageAlloc = satcp_core::HugePageAlloc;

/// A flag that stops the runs given it (Ctrl-C): set from any thread, read
/// by the core every few thousand events. A run stopped so raises
/// KeyboardInterrupt and has no results.
#[pyclass]
#[derive(Default)]
struct StopFlag {
    flag: Arc<AtomicBool>,
}

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Stops every run given this flag, at its next poll.
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

/// Where a run leaves its per-event trace (the scenario's `[trace]`), for
/// Python to take as arrays: the results' JSON does not carry it, as a
/// trace may have millions of rows.
#[pyclass]
#[derive(Default)]
struct TraceBuffer {
    trace: Mutex<Option<Trace>>,
}

#[pymethods]
impl TraceBuffer {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// The trace's columns, taken out (None if the run recorded none):
    /// `time_s` and `value` as little-endian float64 bytes, `subject` as
    /// little-endian uint32 bytes, `kind` as one byte per row (an index
    /// into `kinds`), `kinds` the kind names, `truncated_at_s` the time
    /// the trace stopped at `max_rows` (None if it did not).
    fn take<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(t) = self.trace.lock().expect("not poisoned").take() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        let bytes = |v: Vec<u8>| PyBytes::new(py, &v);
        d.set_item(
            "time_s",
            bytes(t.time_s.iter().flat_map(|x| x.to_le_bytes()).collect()),
        )?;
        d.set_item(
            "value",
            bytes(t.value.iter().flat_map(|x| x.to_le_bytes()).collect()),
        )?;
        d.set_item(
            "subject",
            bytes(t.subject.iter().flat_map(|x| x.to_le_bytes()).collect()),
        )?;
        d.set_item("kind", bytes(t.kind.iter().map(|&k| k as u8).collect()))?;
        d.set_item("kinds", trace_kinds())?;
        d.set_item("truncated_at_s", t.truncated_at.map(|s| s.as_secs_f64()))?;
        Ok(Some(d))
    }
}

impl TraceBuffer {
    fn keep(&self, r: &mut satcp_core::RunResult) {
        *self.trace.lock().expect("not poisoned") = r.trace.take();
    }
}

/// The trace kinds, in the order of their codes (`TraceBuffer.take`'s
/// `kind` column).
#[pyfunction]
fn trace_kinds() -> Vec<&'static str> {
    TraceKind::ALL.iter().map(|k| k.name()).collect()
}

fn interrupted() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")
}

/// Parses and runs a scenario given as JSON with observers and an optional
/// stop flag, the GIL released for both (a sweep's threads parse in
/// parallel too).
fn run_stoppable(
    py: Python<'_>,
    scenario: &str,
    observers: Vec<Box<dyn PacketObserver + Send>>,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
) -> PyResult<satcp_core::RunResult> {
    let stop = stop.map(|f| f.flag.clone());
    py.allow_threads(move || {
        let s = parsed(scenario, max_memory)?;
        let watch = satcp_core::scenario::Watch {
            observers: observers
                .into_iter()
                .map(|o| o as Box<dyn PacketObserver>)
                .collect(),
            stop,
        };
        satcp_core::scenario::run_watched(&s, watch).map_err(|_| interrupted())
    })
}

/// Parses a scenario given as JSON, refusing a run estimated to need more
/// memory than `max_memory` bytes (None: the default limit, 2 GB).
fn parsed(scenario: &str, max_memory: Option<f64>) -> PyResult<satcp_core::Scenario> {
    let limit = max_memory.unwrap_or(DEFAULT_MAX_MEMORY_BYTES);
    satcp_core::scenario::parse_within(scenario, limit)
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

use satcp_core::scenario::validate::DEFAULT_MAX_MEMORY_BYTES;

/// Runs a scenario given as JSON; returns the results as JSON. The GIL is
/// released while the simulation runs, so Python threads can run several.
/// A run's per-event trace, if any, goes into `trace` (else it is dropped).
#[pyfunction]
#[pyo3(signature = (scenario, stop=None, max_memory=None, trace=None))]
fn run_json(
    py: Python<'_>,
    scenario: &str,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
    trace: Option<&TraceBuffer>,
) -> PyResult<String> {
    let mut r = run_stoppable(py, scenario, Vec::new(), stop, max_memory)?;
    if let Some(t) = trace {
        t.keep(&mut r);
    }
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// `run_json` without the time series (empty `flow_series` and
/// `link_series`): the same run, for a caller that reads only the summary.
#[pyfunction]
#[pyo3(signature = (scenario, stop=None, max_memory=None))]
fn run_json_summary(
    py: Python<'_>,
    scenario: &str,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
) -> PyResult<String> {
    let mut r = run_stoppable(py, scenario, Vec::new(), stop, max_memory)?;
    r.flow_series = Default::default();
    r.link_series = Default::default();
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// A run as a sweep's row (`scenario::run_row::RunRow`, as JSON) and, as
/// JSON too, its results cut down to `fields` (dotted paths: "events",
/// "links.stats.queue_drops": `scenario::result_fields`), or with `whole`
/// the results without their time series. A sweep keeps a dozen numbers
/// of each run; parsing each run's whole results in Python (with the GIL
/// held) cost more than a short run.
#[pyfunction]
#[pyo3(signature = (scenario, fields, whole=false, stop=None, max_memory=None))]
fn run_json_row(
    py: Python<'_>,
    scenario: &str,
    fields: Vec<String>,
    whole: bool,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
) -> PyResult<(String, String)> {
    let mut r = run_stoppable(py, scenario, Vec::new(), stop, max_memory)?;
    let fields = satcp_core::scenario::result_fields::FieldSet::new(&fields);
    Ok(py.allow_threads(|| row_and_rest(&mut r, &fields, whole)))
}

/// A run's results cut down to `fields` (dotted paths, as `run_json_row`
/// takes them), as JSON: what a reproduction's experiment reads of a run
/// (`satcp.results.picked_fields`), without the sweep's row that
/// `run_json_row` builds beside it.
#[pyfunction]
#[pyo3(signature = (scenario, fields, stop=None, max_memory=None))]
fn run_json_fields(
    py: Python<'_>,
    scenario: &str,
    fields: Vec<String>,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
) -> PyResult<String> {
    let r = run_stoppable(py, scenario, Vec::new(), stop, max_memory)?;
    let fields = satcp_core::scenario::result_fields::FieldSet::new(&fields);
    Ok(py.allow_threads(|| fields.project_results(&r)))
}

/// A finished run's row and `fields` of its results (with `whole`, the
/// results without their time series), as `run_json_row` returns them.
fn row_and_rest(
    r: &mut satcp_core::RunResult,
    fields: &satcp_core::scenario::result_fields::FieldSet,
    whole: bool,
) -> (String, String) {
    r.flow_series = Default::default();
    r.link_series = Default::default();
    let row = serde_json::to_string(&satcp_core::scenario::run_row::RunRow::of(r))
        .expect("row serializes");
    let rest = if whole {
        serde_json::to_string(&r).expect("results serialize")
    } else {
        fields.project_results(r)
    };
    (row, rest)
}

/// One row of each results table with every field its row type always
/// has, as JSON (`scenario::result_fields::row_templates`).
#[pyfunction]
fn result_row_templates() -> String {
    satcp_core::scenario::result_fields::row_templates()
}

/// Runs a scenario given as JSON while writing pcap files of link
/// directions `(direction id, path)`; returns the results as JSON and the
/// packets written per file; the trace, if any, into `trace`.
#[pyfunction]
#[pyo3(signature = (scenario, captures, stop=None, max_memory=None, trace=None))]
fn run_json_capture(
    py: Python<'_>,
    scenario: &str,
    captures: Vec<(u32, String)>,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
    trace: Option<&TraceBuffer>,
) -> PyResult<(String, Vec<u64>)> {
    let s = parsed(scenario, max_memory)?;
    let caps: Vec<(u32, std::path::PathBuf)> =
        captures.into_iter().map(|(l, p)| (l, p.into())).collect();
    let flag = stop.map(|f| f.flag.clone());
    let (mut r, counts) = py
        .allow_threads(move || satcp_core::scenario::run_with_captures_stoppable(&s, &caps, flag))
        .map_err(|e| {
            if e == satcp_core::scenario::Interrupted.to_string() {
                interrupted()
            } else {
                pyo3::exceptions::PyOSError::new_err(e)
            }
        })?;
    if let Some(t) = trace {
        t.keep(&mut r);
    }
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
/// goes (for `satcp run`'s progress bar); the trace, if any, into `trace`.
#[pyfunction]
#[pyo3(signature = (scenario, clock, stop=None, max_memory=None, trace=None))]
fn run_json_clocked(
    py: Python<'_>,
    scenario: &str,
    clock: &SimClock,
    stop: Option<&StopFlag>,
    max_memory: Option<f64>,
    trace: Option<&TraceBuffer>,
) -> PyResult<String> {
    let observer: Box<dyn PacketObserver + Send> = Box::new(ClockObserver(clock.ns.clone()));
    let mut r = run_stoppable(py, scenario, vec![observer], stop, max_memory)?;
    if let Some(t) = trace {
        t.keep(&mut r);
    }
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// Validates a scenario given as JSON without running it, its memory
/// estimate against `max_memory` bytes (None: 2 GB) included.
#[pyfunction]
#[pyo3(signature = (scenario, max_memory=None))]
fn validate_json(scenario: &str, max_memory: Option<f64>) -> PyResult<()> {
    parsed(scenario, max_memory).map(|_| ())
}

/// An estimate's parts: (fields, bytes, in words).
type EstimateParts = Vec<(String, f64, String)>;

/// What a run of a scenario given as JSON is estimated to allocate, bytes,
/// and its parts: [(fields, bytes, in words)]. The scenario is validated
/// first; the memory limit is not applied.
#[pyfunction]
fn estimate_memory(scenario: &str) -> PyResult<(f64, EstimateParts)> {
    let s = parsed(scenario, Some(f64::INFINITY))?;
    let e = satcp_core::scenario::validate::estimate_memory(&s);
    Ok((e.bytes(), e.parts))
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

/// The JSON Schema of a scenario (`satcp_core::scenario::schema`), as
/// JSON text.
#[pyfunction]
fn scenario_schema() -> String {
    serde_json::to_string(&satcp_core::scenario::schema::json_schema())
        .expect("a schema serializes")
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
    m.add_function(wrap_pyfunction!(run_json_row, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_fields, m)?)?;
    m.add_function(wrap_pyfunction!(result_row_templates, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_capture, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_clocked, m)?)?;
    m.add_class::<SimClock>()?;
    m.add_class::<StopFlag>()?;
    m.add_class::<row_pool::RowPool>()?;
    m.add_class::<TraceBuffer>()?;
    m.add_function(wrap_pyfunction!(trace_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    m.add("DEFAULT_MAX_MEMORY", DEFAULT_MAX_MEMORY_BYTES)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(variant_families, m)?)?;
    m.add_function(wrap_pyfunction!(compared_variants, m)?)?;
    m.add_function(wrap_pyfunction!(router_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(_pgo_training, m)?)?;
    m.add_function(wrap_pyfunction!(toml_doc::parse_toml, m)?)?;
    m.add_function(wrap_pyfunction!(csv_text::csv_of_numbers, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
