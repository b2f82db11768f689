//! A sweep's local runs on Rust threads (`RowPool`): scenario texts in,
//! rows out. The threads never take the GIL. With Python threads, each
//! short run had to take the GIL back before its next one could start,
//! and waited while Python's thread kept it (importing pandas, writing
//! the cache): a sweep of thousands of one-second runs spent more time
//! waiting than simulating (issue 33).
//!
//! Both ways go in batches. `submit` queues a list of texts under one
//! lock and wakes the threads once; the rows wait in one list that `take`
//! empties, and a thread that finishes a run wakes the caller only once
//! `take`'s count is there (or its last run is done). A wake-up per run
//! each way, for runs of some 30 us, cost half as much again as the runs.

use crate::{row_and_rest, StopFlag};
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use satcp_core::scenario::result_fields::FieldSet;
use satcp_core::scenario::validate::DEFAULT_MAX_MEMORY_BYTES;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What became of a run: its row and the fields asked for (as
/// `run_json_row` returns them; or its whole results, as `run_json`) with
/// the seconds it took, the scenario's error, or a panic's message. A run
/// stopped by the flag has no outcome.
enum Outcome {
    Row(String, String, f64),
    Failed(String),
    Panicked(String),
}

/// A run of `take`'s list: (id, row, rest, error, seconds).
type Taken = (u64, Option<String>, Option<String>, Option<String>, f64);

/// What every thread of a pool shares.
struct Settings {
    fields: FieldSet,
    whole: bool,
    /// Each run's whole results, time series included, instead of its row.
    results: bool,
    stop: Option<Arc<AtomicBool>>,
    max_memory: f64,
}

/// Threads that run the scenario texts submitted, in order of
/// submission, and keep each run's row until Python takes it. The caller
/// bounds how many texts wait (it holds them until their rows are taken).
#[pyclass]
pub struct RowPool {
    jobs: Arc<Jobs>,
    finished: Arc<Finished>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// The texts submitted and not yet started: (id, text), in order.
#[derive(Default)]
struct Jobs {
    state: Mutex<JobsState>,
    /// Notified when texts are queued, or the pool is closed.
    queued: Condvar,
}

#[derive(Default)]
struct JobsState {
    queue: VecDeque<(u64, String)>,
    closed: bool,
}

impl Jobs {
    /// The next text; None once the pool is closed and nothing is queued.
    fn next(&self) -> Option<(u64, String)> {
        let mut st = self.state.lock().expect("not poisoned");
        loop {
            if let Some(job) = st.queue.pop_front() {
                return Some(job);
            }
            if st.closed {
                return None;
            }
            st = self.queued.wait(st).expect("not poisoned");
        }
    }
}

/// The runs finished and not yet taken, and what `take` waits for.
#[derive(Default)]
struct Finished {
    state: Mutex<FinishedState>,
    /// Notified when `wanted` outcomes wait, or the last thread ends.
    ready: Condvar,
}

#[derive(Default)]
struct FinishedState {
    outcomes: Vec<(u64, Outcome)>,
    /// How many outcomes the caller of `take` waits for (0: none waits).
    wanted: usize,
    /// Threads not yet ended.
    running: usize,
}

impl Finished {
    fn push(&self, id: u64, outcome: Outcome) {
        let mut st = self.state.lock().expect("not poisoned");
        st.outcomes.push((id, outcome));
        if st.wanted > 0 && st.outcomes.len() >= st.wanted {
            st.wanted = 0;
            self.ready.notify_one();
        }
    }

    fn thread_ended(&self) {
        let mut st = self.state.lock().expect("not poisoned");
        st.running -= 1;
        if st.running == 0 {
            self.ready.notify_one();
        }
    }

    /// Every outcome waiting, once `want` of them do, every thread has
    /// ended, or `timeout` has passed.
    fn take(&self, want: usize, timeout: Duration) -> Vec<(u64, Outcome)> {
        let deadline = Instant::now() + timeout;
        let mut st = self.state.lock().expect("not poisoned");
        while st.outcomes.len() < want && st.running > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            st.wanted = want;
            st = self.ready.wait_timeout(st, left).expect("not poisoned").0;
        }
        st.wanted = 0;
        std::mem::take(&mut st.outcomes)
    }
}

/// The stack of each thread: what Python's threads get on Linux, so that
/// a run needs no less than it did on one.
const STACK_BYTES: usize = 8 << 20;

#[pymethods]
impl RowPool {
    /// `workers` threads; each run's row and `fields` (or with `whole`
    /// the results without time series), as `run_json_row`, or with
    /// `results` its whole results as `run_json` returns them (given no
    /// trace buffer);
    /// `stop` stops the runs going on and skips the rest; `max_memory` as
    /// `run_json`'s.
    #[new]
    #[pyo3(signature = (workers, fields, whole=false, stop=None, max_memory=None, results=false))]
    fn new(
        workers: usize,
        fields: Vec<String>,
        whole: bool,
        stop: Option<&StopFlag>,
        max_memory: Option<f64>,
        results: bool,
    ) -> PyResult<Self> {
        let settings = Arc::new(Settings {
            fields: FieldSet::new(&fields),
            whole,
            results,
            stop: stop.map(|f| f.flag.clone()),
            max_memory: max_memory.unwrap_or(DEFAULT_MAX_MEMORY_BYTES),
        });
        let jobs = Arc::new(Jobs::default());
        let finished = Arc::new(Finished::default());
        let mut threads = Vec::new();
        for i in 0..workers.max(1) {
            let (queue, done, settings) = (jobs.clone(), finished.clone(), settings.clone());
            finished.state.lock().expect("not poisoned").running += 1;
            let spawned = std::thread::Builder::new()
                .name(format!("satcp-sweep-{i}"))
                .stack_size(STACK_BYTES)
                .spawn(move || {
                    work(&queue, &done, &settings);
                    done.thread_ended();
                });
            match spawned {
                Ok(t) => threads.push(t),
                Err(e) => {
                    finished.state.lock().expect("not poisoned").running -= 1;
                    return Err(e.into());
                }
            }
        }
        Ok(Self {
            jobs,
            finished,
            threads: Mutex::new(threads),
        })
    }

    /// Queues runs `[(id, text)]`, each a scenario as JSON.
    fn submit(&self, runs: Vec<(u64, String)>) -> PyResult<()> {
        let mut st = self.jobs.state.lock().expect("not poisoned");
        if st.closed {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the pool is closed",
            ));
        }
        let one = runs.len() == 1;
        st.queue.extend(runs);
        drop(st);
        if one {
            self.jobs.queued.notify_one();
        } else {
            self.jobs.queued.notify_all();
        }
        Ok(())
    }

    /// The runs finished since the last call, once `want` of them have
    /// (or `timeout_s` has passed; the GIL released meanwhile): [(id,
    /// row, rest, None)] or, for a run whose scenario was refused, (id,
    /// None, None, error). Taking many at a time spares a wake-up per
    /// short run. A run that panicked raises PanicException.
    #[pyo3(signature = (timeout_s, want=1))]
    fn take(&self, py: Python<'_>, timeout_s: f64, want: usize) -> PyResult<Vec<Taken>> {
        let timeout = Duration::from_secs_f64(timeout_s.max(0.0));
        let outcomes = py.allow_threads(|| self.finished.take(want.max(1), timeout));
        let mut taken = Vec::with_capacity(outcomes.len());
        for (id, outcome) in outcomes {
            taken.push(match outcome {
                Outcome::Row(row, rest, s) => (id, Some(row), Some(rest), None, s),
                Outcome::Failed(e) => (id, None, None, Some(e), 0.0),
                Outcome::Panicked(msg) => return Err(PanicException::new_err(msg)),
            });
        }
        Ok(taken)
    }

    /// No more runs: waits (the GIL released) for the threads to finish
    /// the runs queued, or to skip them once the flag is set; `take`
    /// then returns the rest.
    fn close(&self, py: Python<'_>) {
        self.jobs.state.lock().expect("not poisoned").closed = true;
        self.jobs.queued.notify_all();
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
fn work(queue: &Jobs, done: &Finished, s: &Settings) {
    while let Some((id, text)) = queue.next() {
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
            done.push(id, o);
        }
    }
}

/// One run; None if the flag stopped it.
fn run(text: &str, s: &Settings) -> Option<Outcome> {
    let start = Instant::now();
    let scenario = match satcp_core::scenario::parse_within(text, s.max_memory) {
        Ok(sc) => sc,
        Err(e) => return Some(Outcome::Failed(e.to_string())),
    };
    let watch = satcp_core::scenario::Watch {
        observers: Vec::new(),
        stop: s.stop.clone(),
    };
    let mut r = satcp_core::scenario::run_watched(&scenario, watch).ok()?;
    let (row, rest) = if s.results {
        let whole = serde_json::to_string(&r).expect("results serialize");
        (whole, String::new())
    } else {
        row_and_rest(&mut r, &s.fields, s.whole)
    };
    Some(Outcome::Row(row, rest, start.elapsed().as_secs_f64()))
}
