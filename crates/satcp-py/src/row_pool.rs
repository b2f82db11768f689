//! A sweep's local runs on Rust threads (`RowPool`): scenario texts in,
//! rows out. The threads never take the GIL. With Python threads, each
//! short run had to take the GIL back before its next one could start,
//! and waited while Python's thread kept it (importing pandas, writing
//! the cache): a sweep of thousands of one-second runs spent more time
//! waiting than simulating (issue 33).

use crate::{row_and_rest, StopFlag};
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use satcp_core::scenario::result_fields::FieldSet;
use satcp_core::scenario::validate::DEFAULT_MAX_MEMORY_BYTES;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What became of a run: its row and the fields asked for (as
/// `run_json_row` returns them), the scenario's error, or a panic's
/// message. A run stopped by the flag has no outcome.
enum Outcome {
    Row(String, String),
    Failed(String),
    Panicked(String),
}

/// A run of `take`'s list: (id, row, rest, error).
type Taken = (u64, Option<String>, Option<String>, Option<String>);

/// What every thread of a pool shares.
struct Settings {
    fields: FieldSet,
    whole: bool,
    stop: Option<Arc<AtomicBool>>,
    max_memory: f64,
}

/// Threads that run the scenario texts submitted, in order of
/// submission, and keep each run's row until Python takes it. The caller
/// bounds how many texts wait (it holds them until their rows are taken).
#[pyclass]
pub struct RowPool {
    jobs: Mutex<Option<Sender<(u64, String)>>>,
    finished: Mutex<Receiver<(u64, Outcome)>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// The stack of each thread: what Python's threads get on Linux, so that
/// a run needs no less than it did on one.
const STACK_BYTES: usize = 8 << 20;

#[pymethods]
impl RowPool {
    /// `workers` threads; each run's row and `fields` (or with `whole`
    /// the results without time series), as `run_json_row`; `stop`
    /// stops the runs going on and skips the rest; `max_memory` as
    /// `run_json`'s.
    #[new]
    #[pyo3(signature = (workers, fields, whole=false, stop=None, max_memory=None))]
    fn new(
        workers: usize,
        fields: Vec<String>,
        whole: bool,
        stop: Option<&StopFlag>,
        max_memory: Option<f64>,
    ) -> PyResult<Self> {
        let settings = Arc::new(Settings {
            fields: FieldSet::new(&fields),
            whole,
            stop: stop.map(|f| f.flag.clone()),
            max_memory: max_memory.unwrap_or(DEFAULT_MAX_MEMORY_BYTES),
        });
        let (jobs, queue) = mpsc::channel::<(u64, String)>();
        let queue = Arc::new(Mutex::new(queue));
        let (done, finished) = mpsc::channel();
        let mut threads = Vec::new();
        for i in 0..workers.max(1) {
            let (queue, done, settings) = (queue.clone(), done.clone(), settings.clone());
            let t = std::thread::Builder::new()
                .name(format!("satcp-sweep-{i}"))
                .stack_size(STACK_BYTES)
                .spawn(move || work(&queue, &done, &settings))?;
            threads.push(t);
        }
        Ok(Self {
            jobs: Mutex::new(Some(jobs)),
            finished: Mutex::new(finished),
            threads: Mutex::new(threads),
        })
    }

    /// Queues run `id` of the scenario `text` (JSON).
    fn submit(&self, id: u64, text: String) -> PyResult<()> {
        let jobs = self.jobs.lock().expect("not poisoned");
        let sent = jobs.as_ref().map(|j| j.send((id, text)));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the pool is closed",
            )),
        }
    }

    /// The runs finished since the last call, once `want` of them have
    /// (or `timeout_s` has passed; the GIL released meanwhile): [(id,
    /// row, rest, None)] or, for a run whose scenario was refused, (id,
    /// None, None, error). Taking many at a time spares a wake-up per
    /// short run. A run that panicked raises PanicException.
    #[pyo3(signature = (timeout_s, want=1))]
    fn take(&self, py: Python<'_>, timeout_s: f64, want: usize) -> PyResult<Vec<Taken>> {
        let outcomes = py.allow_threads(|| {
            let finished = self.finished.lock().expect("not poisoned");
            let deadline = Instant::now() + Duration::from_secs_f64(timeout_s.max(0.0));
            let mut out = Vec::new();
            while out.len() < want.max(1) {
                let left = deadline.saturating_duration_since(Instant::now());
                match finished.recv_timeout(left) {
                    Ok(o) => out.push(o),
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                }
            }
            out.extend(finished.try_iter());
            out
        });
        let mut taken = Vec::with_capacity(outcomes.len());
        for (id, outcome) in outcomes {
            taken.push(match outcome {
                Outcome::Row(row, rest) => (id, Some(row), Some(rest), None),
                Outcome::Failed(e) => (id, None, None, Some(e)),
                Outcome::Panicked(msg) => return Err(PanicException::new_err(msg)),
            });
        }
        Ok(taken)
    }

    /// No more runs: waits (the GIL released) for the threads to finish
    /// the runs queued, or to skip them once the flag is set; `take`
    /// then returns the rest.
    fn close(&self, py: Python<'_>) {
        self.jobs.lock().expect("not poisoned").take();
        let threads = std::mem::take(&mut *self.threads.lock().expect("not poisoned"));
        py.allow_threads(|| {
            for t in threads {
                // A thread ends only through its loop: its runs' panics
                // are caught and reported.
                let _ = t.join();
            }
        });
    }
}

/// A thread's loop: the next queued text, until the queue is closed.
fn work(queue: &Mutex<Receiver<(u64, String)>>, done: &Sender<(u64, Outcome)>, s: &Settings) {
    loop {
        let job = queue.lock().expect("not poisoned").recv();
        let Ok((id, text)) = job else { return };
        let stopped = || s.stop.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        if stopped() {
            continue; // skipped: the caller drops what is queued
        }
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&text, s)))
            .unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|m| m.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a run panicked".to_string());
                Some(Outcome::Panicked(msg))
            });
        if let Some(o) = outcome {
            if done.send((id, o)).is_err() {
                return; // the pool is gone
            }
        }
    }
}

/// One run; None if the flag stopped it.
fn run(text: &str, s: &Settings) -> Option<Outcome> {
    let scenario = match satcp_core::scenario::parse_within(text, s.max_memory) {
        Ok(sc) => sc,
        Err(e) => return Some(Outcome::Failed(e.to_string())),
    };
    let watch = satcp_core::scenario::Watch {
        observers: Vec::new(),
        stop: s.stop.clone(),
    };
    let mut r = satcp_core::scenario::run_watched(&scenario, watch).ok()?;
    let (row, rest) = row_and_rest(&mut r, &s.fields, s.whole);
    Some(Outcome::Row(row, rest))
}
