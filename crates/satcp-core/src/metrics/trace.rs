//! Per-event traces (`[trace]`, `satcp run --trace`): every change of a
//! connection's cwnd, ssthresh, RTT estimate, congestion state or
//! retransmission count, every RTT sample, and every change of a link
//! direction's queue, as (time, kind, subject, value) rows stored
//! column-wise (docs/traces.md).
//!
//! `tcp/` knows nothing of traces: the simulation hands the recorder an
//! endpoint after each call into it (`Simulation::after_tcp`) and a link
//! direction after each packet event on it (`Simulation::observe`), and the
//! recorder compares what it reads with what it recorded last. A run
//! without a trace pays no branch for it: the two hooks sit behind the
//! flags that the invariant checks and the packet observers already test.

use crate::engine::{Duration, SimTime};
use crate::error::{bad, count, number, seconds, ScenarioError, MAX_SIM_SECONDS};
use crate::tcp::{CongState, TcpEndpoint};
use serde::Deserialize;

/// What a trace records. A connection's kinds are read from each of its
/// two endpoints (the subject is the endpoint: `2 * conn` the client,
/// `2 * conn + 1` the server), the queue kinds from each link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum TraceKind {
    /// Congestion window, bytes, at each change.
    Cwnd,
    /// Slow-start threshold, bytes, at each change.
    Ssthresh,
    /// Each RTT sample the estimator takes, seconds.
    Rtt,
    /// Smoothed RTT, seconds, at each change.
    Srtt,
    /// Retransmission timeout, back-off included, seconds, at each change.
    Rto,
    /// Congestion state at each change: 0 open, 1 disorder, 2 recovery,
    /// 3 loss (after a timeout), as Linux's `tcp_ca_state`.
    State,
    /// Segments retransmitted so far, at each change.
    Retx,
    /// Packets in a link direction's queue, at each change.
    Queue,
    /// Bytes in a link direction's queue, at each change.
    QueueBytes,
}

impl TraceKind {
    pub const ALL: [TraceKind; 9] = [
        TraceKind::Cwnd,
        TraceKind::Ssthresh,
        TraceKind::Rtt,
        TraceKind::Srtt,
        TraceKind::Rto,
        TraceKind::State,
        TraceKind::Retx,
        TraceKind::Queue,
        TraceKind::QueueBytes,
    ];

    /// The name a scenario and the results use.
    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Cwnd => "cwnd",
            TraceKind::Ssthresh => "ssthresh",
            TraceKind::Rtt => "rtt",
            TraceKind::Srtt => "srtt",
            TraceKind::Rto => "rto",
            TraceKind::State => "state",
            TraceKind::Retx => "retx",
            TraceKind::Queue => "queue",
            TraceKind::QueueBytes => "queue_bytes",
        }
    }

    /// A link direction's kind (else a connection's).
    pub fn of_link(self) -> bool {
        matches!(self, TraceKind::Queue | TraceKind::QueueBytes)
    }

    fn bit(self) -> u16 {
        1 << self as u8
    }
}

/// Rows a trace holds unless `max_rows` says otherwise.
pub const DEFAULT_MAX_ROWS: u64 = 5_000_000;
/// The largest `max_rows` (beyond it, the memory budget says no anyway).
pub const MAX_ROWS_LIMIT: u64 = 1_000_000_000;

/// The scenario's `[trace]` table.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSettings {
    /// What to record at every change (docs/traces.md); empty: no trace.
    pub kinds: Vec<TraceKind>,
    /// Record from this simulated time on, seconds.
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub start_s: f64,
    /// Record until this simulated time, seconds (none: the end of the
    /// run); after `start_s`.
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub end_s: Option<f64>,
    /// Only these connections (their index, as `conn` in the results);
    /// none: every connection. The queue kinds are not filtered.
    pub conns: Option<Vec<u32>>,
    /// At most this many rows; the trace stops there and says when. Each
    /// row counts about 100 bytes in the run's memory estimate.
    #[schemars(range(min = 1, max = MAX_ROWS_LIMIT))]
    pub max_rows: u64,
}

impl Default for TraceSettings {
    fn default() -> Self {
        TraceSettings {
            kinds: Vec::new(),
            start_s: 0.0,
            end_s: None,
            conns: None,
            max_rows: DEFAULT_MAX_ROWS,
        }
    }
}

/// Bytes a trace row is counted in a run's memory estimate: 21 in the
/// core's columns (with room for their growth), the arrays handed to
/// Python, and the data frame made of them.
pub const TRACE_ROW_BYTES: f64 = 100.0;

impl TraceSettings {
    pub fn enabled(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// Checks the ranges; `conns` lists connection indices (any: a
    /// connection that never opens is simply not traced).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        seconds("trace.start_s", self.start_s)?;
        if let Some(end) = self.end_s {
            seconds("trace.end_s", end)?;
            if end <= self.start_s {
                return Err(bad(
                    "trace.end_s",
                    number(end),
                    &format!("must be after trace.start_s = {}", number(self.start_s)),
                ));
            }
        }
        count("trace.max_rows", self.max_rows, 1, MAX_ROWS_LIMIT)
    }
}

/// The rows of a trace, column by column. `subject` is an endpoint id for
/// a connection's kinds and a link direction id for the queue kinds.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub time_s: Vec<f64>,
    pub kind: Vec<TraceKind>,
    pub subject: Vec<u32>,
    pub value: Vec<f64>,
    /// The time of the first row left out because `max_rows` was reached.
    pub truncated_at: Option<SimTime>,
}

impl Trace {
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// What was last recorded of an endpoint.
#[derive(Clone, Copy, Debug)]
struct EndpointSeen {
    cwnd: u64,
    ssthresh: u64,
    rtt_samples: u64,
    srtt: Option<Duration>,
    rto: Duration,
    state: CongState,
    retx: u64,
}

/// Records the changes of what `TraceSettings` asks for.
#[derive(Debug)]
pub struct TraceRecorder {
    kinds: u16,
    /// A connection kind is traced: the endpoints must be read.
    reads_endpoints: bool,
    /// A queue kind is traced: the link directions must be read.
    reads_queues: bool,
    start: SimTime,
    end: SimTime,
    conns: Option<Vec<u32>>,
    max_rows: usize,
    /// Per endpoint id, what was last recorded (None: not seen yet).
    endpoints: Vec<Option<EndpointSeen>>,
    /// Per link direction, the queue last recorded (packets, bytes).
    links: Vec<Option<(u64, u64)>>,
    trace: Trace,
}

impl TraceRecorder {
    pub fn new(s: &TraceSettings) -> TraceRecorder {
        let mut conns = s.conns.clone();
        if let Some(c) = conns.as_mut() {
            c.sort_unstable();
        }
        TraceRecorder {
            kinds: s.kinds.iter().fold(0, |m, k| m | k.bit()),
            reads_endpoints: s.kinds.iter().any(|k| !k.of_link()),
            reads_queues: s.kinds.iter().any(|k| k.of_link()),
            start: SimTime::from_secs_f64(s.start_s),
            end: s.end_s.map_or(SimTime::NEVER, SimTime::from_secs_f64),
            conns,
            max_rows: usize::try_from(s.max_rows).unwrap_or(usize::MAX),
            endpoints: Vec::new(),
            links: Vec::new(),
            trace: Trace::default(),
        }
    }

    fn has(&self, k: TraceKind) -> bool {
        self.kinds & k.bit() != 0
    }

    /// Whether any connection kind is traced (the endpoints must be read).
    pub fn reads_endpoints(&self) -> bool {
        self.reads_endpoints
    }

    /// Whether a queue kind is traced (the link directions must be read).
    pub fn reads_queues(&self) -> bool {
        self.reads_queues
    }

    /// The rows recorded, taken out.
    pub fn take(&mut self) -> Trace {
        std::mem::take(&mut self.trace)
    }

    fn in_window(&self, now: SimTime) -> bool {
        self.start <= now && now < self.end
    }

    fn push(&mut self, now: SimTime, kind: TraceKind, subject: u32, value: f64) {
        let t = &mut self.trace;
        if t.len() >= self.max_rows {
            t.truncated_at.get_or_insert(now);
            return;
        }
        t.time_s.push(now.as_secs_f64());
        t.kind.push(kind);
        t.subject.push(subject);
        t.value.push(value);
    }

    /// Endpoint `e` was just called: records what changed since last.
    pub fn endpoint(&mut self, e: u32, now: SimTime, ep: &TcpEndpoint) {
        if !self.in_window(now) {
            return;
        }
        if let Some(c) = &self.conns {
            if c.binary_search(&(e / 2)).is_err() {
                return;
            }
        }
        let tx = &ep.tx;
        let seen = EndpointSeen {
            cwnd: tx.cwnd,
            ssthresh: tx.ssthresh,
            rtt_samples: ep.stats.rtt_samples,
            srtt: tx.rtt().srtt(),
            rto: tx.rtt().rto(),
            state: tx.state(),
            retx: ep.stats.retransmitted_segments,
        };
        let i = e as usize;
        if self.endpoints.len() <= i {
            self.endpoints.resize(i + 1, None);
        }
        let last = self.endpoints[i].replace(seen);
        // Whether a value differs from the one last recorded (or none was).
        let differs =
            |same: fn(&EndpointSeen, &EndpointSeen) -> bool| last.is_none_or(|l| !same(&l, &seen));
        if self.has(TraceKind::Cwnd) && differs(|a, b| a.cwnd == b.cwnd) {
            self.push(now, TraceKind::Cwnd, e, seen.cwnd as f64);
        }
        if self.has(TraceKind::Ssthresh) && differs(|a, b| a.ssthresh == b.ssthresh) {
            self.push(now, TraceKind::Ssthresh, e, seen.ssthresh as f64);
        }
        // A sample is an event, not a value: one row per sample counted.
        let samples_before = last.map_or(0, |l| l.rtt_samples);
        if self.has(TraceKind::Rtt) && seen.rtt_samples > samples_before {
            if let Some(r) = tx.rtt().last_sample() {
                self.push(now, TraceKind::Rtt, e, r.as_secs_f64());
            }
        }
        if self.has(TraceKind::Srtt) && differs(|a, b| a.srtt == b.srtt) {
            if let Some(s) = seen.srtt {
                self.push(now, TraceKind::Srtt, e, s.as_secs_f64());
            }
        }
        if self.has(TraceKind::Rto) && differs(|a, b| a.rto == b.rto) {
            self.push(now, TraceKind::Rto, e, seen.rto.as_secs_f64());
        }
        if self.has(TraceKind::State) && differs(|a, b| a.state == b.state) {
            self.push(now, TraceKind::State, e, state_code(seen.state));
        }
        // No row for the zero a connection starts with.
        let retx_before = last.map_or(0, |l| l.retx);
        if self.has(TraceKind::Retx) && seen.retx != retx_before {
            self.push(now, TraceKind::Retx, e, seen.retx as f64);
        }
    }

    /// A packet event on link direction `l`, whose queue now holds
    /// `packets` packets of `bytes` bytes: records what changed.
    pub fn queue(&mut self, l: u32, now: SimTime, packets: u64, bytes: u64) {
        if !self.in_window(now) {
            return;
        }
        let i = l as usize;
        if self.links.len() <= i {
            self.links.resize(i + 1, None);
        }
        let last = self.links[i];
        if last == Some((packets, bytes)) {
            return;
        }
        self.links[i] = Some((packets, bytes));
        if self.has(TraceKind::Queue) && last.is_none_or(|(p, _)| p != packets) {
            self.push(now, TraceKind::Queue, l, packets as f64);
        }
        if self.has(TraceKind::QueueBytes) && last.is_none_or(|(_, b)| b != bytes) {
            self.push(now, TraceKind::QueueBytes, l, bytes as f64);
        }
    }
}

/// The number a `state` row holds: Linux's `tcp_ca_state` order.
pub fn state_code(s: CongState) -> f64 {
    match s {
        CongState::Open => 0.0,
        CongState::Disorder => 1.0,
        CongState::Recovery => 2.0,
        CongState::Loss => 3.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{TcpConfig, TcpEndpoint};

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn recorder(kinds: &[TraceKind]) -> TraceRecorder {
        TraceRecorder::new(&TraceSettings {
            kinds: kinds.to_vec(),
            ..TraceSettings::default()
        })
    }

    fn endpoint() -> TcpEndpoint {
        let cfg = TcpConfig::default();
        let variant = crate::protocols::resolve(&cfg, &serde_json::Value::Null).unwrap();
        TcpEndpoint::from_parts(&cfg, variant.endpoint())
    }

    #[test]
    fn a_value_is_recorded_when_first_seen_and_then_only_when_it_changes() {
        let mut r = recorder(&[TraceKind::Cwnd]);
        let mut ep = endpoint();
        r.endpoint(3, at(0.0), &ep);
        r.endpoint(3, at(1.0), &ep); // unchanged: no row
        ep.tx.cwnd += 1000;
        r.endpoint(3, at(2.0), &ep);
        let t = r.take();
        assert_eq!(t.time_s, vec![0.0, 2.0]);
        assert_eq!(t.subject, vec![3, 3]);
        assert_eq!(t.value[1] - t.value[0], 1000.0);
        assert!(t.kind.iter().all(|&k| k == TraceKind::Cwnd));
    }

    #[test]
    fn only_the_kinds_asked_for_are_recorded() {
        let mut r = recorder(&[TraceKind::Ssthresh]);
        let mut ep = endpoint();
        r.endpoint(0, at(0.0), &ep);
        ep.tx.cwnd += 1000; // cwnd is not traced
        r.endpoint(0, at(1.0), &ep);
        let t = r.take();
        assert_eq!(t.kind, vec![TraceKind::Ssthresh]);
    }

    #[test]
    fn without_kinds_nothing_is_read_or_recorded() {
        let r = recorder(&[]);
        assert!(!r.reads_endpoints() && !r.reads_queues());
        let q = recorder(&[TraceKind::Queue]);
        assert!(!q.reads_endpoints() && q.reads_queues());
    }

    #[test]
    fn the_queue_is_recorded_at_each_change_per_direction() {
        let mut r = recorder(&[TraceKind::Queue, TraceKind::QueueBytes]);
        r.queue(1, at(0.0), 1, 1500);
        r.queue(1, at(0.1), 1, 1500); // an arrival elsewhere: no change
        r.queue(0, at(0.2), 1, 40);
        r.queue(1, at(0.3), 0, 0);
        let t = r.take();
        assert_eq!(t.subject, vec![1, 1, 0, 0, 1, 1]);
        assert_eq!(t.value, vec![1.0, 1500.0, 1.0, 40.0, 0.0, 0.0]);
    }

    #[test]
    fn outside_the_window_nothing_is_recorded_and_the_first_call_inside_records_the_values() {
        let mut r = TraceRecorder::new(&TraceSettings {
            kinds: vec![TraceKind::Queue],
            start_s: 1.0,
            end_s: Some(2.0),
            ..TraceSettings::default()
        });
        r.queue(0, at(0.5), 3, 4500);
        r.queue(0, at(1.5), 3, 4500);
        r.queue(0, at(2.0), 0, 0);
        let t = r.take();
        assert_eq!((t.time_s, t.value), (vec![1.5], vec![3.0]));
    }

    #[test]
    fn connections_not_listed_are_left_out() {
        let mut r = TraceRecorder::new(&TraceSettings {
            kinds: vec![TraceKind::Cwnd],
            conns: Some(vec![1]),
            ..TraceSettings::default()
        });
        let ep = endpoint();
        for e in 0..4 {
            r.endpoint(e, at(0.0), &ep);
        }
        assert_eq!(r.take().subject, vec![2, 3]); // conn 1's client and server
    }

    #[test]
    fn the_trace_stops_at_max_rows_and_says_when() {
        let mut r = TraceRecorder::new(&TraceSettings {
            kinds: vec![TraceKind::Queue],
            max_rows: 2,
            ..TraceSettings::default()
        });
        for i in 0..5 {
            r.queue(0, at(i as f64), i, 0);
        }
        let t = r.take();
        assert_eq!(t.len(), 2);
        assert_eq!(t.truncated_at, Some(at(2.0)));
    }
}
