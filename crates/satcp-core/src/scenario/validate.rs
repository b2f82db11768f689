//! Checks that go beyond types: ranges, names that must exist, variants
//! that must be known. Each error names the field and the bad value.

use super::config::{AppConfig, Scenario};
use super::node_graph::NodeGraph;
use super::ScenarioError;
use crate::error::{bad, count, non_negative, number, positive, seconds, MIN_RATE_BPS};
use crate::net::packet::TIMESTAMPS_OPTION_BYTES;
use crate::tcp::config::{MAX_MSS, MAX_SCALED_WINDOW};
use crate::tcp::TcpConfig;
use std::collections::{HashMap, HashSet};

/// The most samples, pages or files a scenario may plan (each is memory
/// allocated before or during the run): 10^7.
pub const MAX_EVENTS_PLANNED: f64 = 1e7;
/// The same, as a count.
pub const MAX_EVENTS_PLANNED_U32: u32 = MAX_EVENTS_PLANNED as u32;

/// The most bytes one connection of an application may carry each way:
/// 10^15 (a petabyte, 800 s of a 10 Tb/s link). Sequence numbers and the
/// applications' byte counts are 64-bit: sums of larger sizes (a page of
/// 2^63-byte objects) would overflow them.
pub const MAX_CONNECTION_BYTES: u64 = 1_000_000_000_000_000;

/// A byte count of one connection: at most `MAX_CONNECTION_BYTES`. `v` is
/// exact or, for a sum or product of fields, computed in f64 (which
/// cannot overflow); `value` is what the message shows.
fn connection_bytes(
    field: &str,
    v: f64,
    value: impl std::fmt::Display,
    what: &str,
) -> Result<(), ScenarioError> {
    if v <= MAX_CONNECTION_BYTES as f64 {
        return Ok(());
    }
    Err(bad(
        field,
        value,
        &format!("{what}: a connection carries at most 1e15 bytes each way"),
    ))
}

pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    positive("duration_s", s.duration_s)?;
    seconds("duration_s", s.duration_s)?;
    seconds("sample_interval_s", s.sample_interval_s)?;
    if s.sample_interval_s > 0.0 && s.duration_s / s.sample_interval_s > MAX_EVENTS_PLANNED {
        return Err(bad(
            "sample_interval_s",
            number(s.sample_interval_s),
            &format!(
                "gives {} samples over duration_s = {} (at most 1e7: a larger interval, or 0 for none)",
                number((s.duration_s / s.sample_interval_s).ceil()),
                number(s.duration_s)
            ),
        ));
    }
    s.trace.validate()?;
    if s.nodes.is_empty() {
        return Err(ScenarioError::new("nodes", "at least one node is needed"));
    }
    let mut seen = HashSet::with_capacity(s.nodes.len());
    for (i, n) in s.nodes.iter().enumerate() {
        safe_name(&format!("nodes[{i}]"), n)?;
        if !seen.insert(n.as_str()) {
            return Err(bad(format!("nodes[{i}]"), n, "is listed twice"));
        }
    }
    s.emulate.validate(&s.nodes)?;
    let graph = NodeGraph::new(s);
    let node = |field: String, name: &str| -> Result<(), ScenarioError> {
        if graph.has(name) {
            Ok(())
        } else {
            Err(bad(field, name, "is not a node"))
        }
    };
    // The links so far by their (sorted) pair of nodes.
    let mut joined: HashMap<(&String, &String), usize> = HashMap::with_capacity(s.links.len());
    for (i, l) in s.links.iter().enumerate() {
        if let Some(n) = &l.name {
            safe_name(&format!("links[{i}].name"), n)?;
        }
        node(format!("links[{i}].a"), &l.a)?;
        node(format!("links[{i}].b"), &l.b)?;
        for (dir, d) in [("ab", &l.ab), ("ba", &l.ba)] {
            for (j, t) in d.dvbs2.iter().flat_map(|c| c.terminals.iter().enumerate()) {
                node(
                    format!("links[{i}].{dir}.dvbs2.terminals[{j}].node"),
                    &t.node,
                )?;
            }
            for (j, t) in d
                .dvbrcs2
                .iter()
                .flat_map(|c| c.terminals.iter().enumerate())
            {
                node(
                    format!("links[{i}].{dir}.dvbrcs2.terminals[{j}].node"),
                    &t.node,
                )?;
            }
        }
        if l.a == l.b {
            return Err(bad(format!("links[{i}].b"), &l.b, "must differ from a"));
        }
        // Routing takes one shortest path: a second link between the same
        // two nodes would never carry a packet.
        let pair = if l.a < l.b {
            (&l.a, &l.b)
        } else {
            (&l.b, &l.a)
        };
        if let Some(&j) = joined.get(&pair) {
            return Err(ScenarioError::new(
                format!("links[{i}]"),
                format!(
                    "{} - {} are already joined by links[{j}] (one link per pair of nodes)",
                    l.a, l.b
                ),
            ));
        }
        joined.insert(pair, i);
        // Each direction's settings were checked as they were read
        // (`scenario::links`).
    }
    for (i, a) in s.apps.iter().enumerate() {
        let f = format!("apps[{i}]");
        if let Some(n) = a.name() {
            safe_name(&format!("{f}.name"), n)?;
        }
        let (c, sv) = a.hosts();
        node(format!("{f}.client"), c)?;
        node(format!("{f}.server"), sv)?;
        if c == sv {
            return Err(bad(format!("{f}.server"), sv, "must differ from client"));
        }
        if !graph.connected(c, sv) {
            return Err(ScenarioError::new(
                format!("{f}.client"),
                format!("no path between client {c} and server {sv}: check the links"),
            ));
        }
        seconds(&format!("{f}.start_s"), a.start_s())?;
        tcp_fields(&format!("{f}.tcp"), a.tcp())?;
        match a {
            AppConfig::Ftp(ftp) => {
                count(
                    &format!("{f}.files"),
                    ftp.files as u64,
                    1,
                    MAX_EVENTS_PLANNED_U32 as u64,
                )?;
                if ftp.file_bytes == 0 {
                    return Err(bad(format!("{f}.file_bytes"), 0, "must be at least 1"));
                }
                non_negative(&format!("{f}.inter_request_s"), ftp.inter_request_s)?;
                for (name, v) in [
                    ("file_bytes", ftp.file_bytes),
                    ("request_bytes", ftp.request_bytes),
                ] {
                    connection_bytes(&format!("{f}.{name}"), v as f64, v, "is too large")?;
                }
            }
            AppConfig::Http(h) => {
                positive(&format!("{f}.page_interval_s"), h.page_interval_s)?;
                let pages = (s.duration_s - a.start_s()).max(0.0) / h.page_interval_s;
                if pages > MAX_EVENTS_PLANNED {
                    return Err(bad(
                        format!("{f}.page_interval_s"),
                        number(h.page_interval_s),
                        &format!(
                            "requests {} pages over duration_s = {} (at most 1e7)",
                            number(pages.ceil()),
                            number(s.duration_s)
                        ),
                    ));
                }
                if h.request_bytes == 0 {
                    return Err(bad(format!("{f}.request_bytes"), 0, "must be at least 1"));
                }
                // One connection carries a page: its objects one way, their
                // requests the other.
                let objects = h.objects();
                let page = h.page_bytes();
                let (name, v) = if h.embedded_bytes() >= h.main_object_bytes as f64 {
                    ("embedded_object_bytes", h.embedded_object_bytes)
                } else {
                    ("main_object_bytes", h.main_object_bytes)
                };
                let what = format!("makes a page of {} bytes", number(page));
                connection_bytes(&format!("{f}.{name}"), page, v, &what)?;
                let what = format!(
                    "makes {} bytes of requests a page",
                    number(objects * h.request_bytes as f64)
                );
                connection_bytes(
                    &format!("{f}.request_bytes"),
                    objects * h.request_bytes as f64,
                    h.request_bytes,
                    &what,
                )?;
            }
            AppConfig::Bulk(b) => {
                if let Some(n) = b.bytes {
                    connection_bytes(&format!("{f}.bytes"), n as f64, n, "is too large")?;
                }
            }
            AppConfig::Web(w) => {
                if w.segments == 0 {
                    return Err(bad(format!("{f}.segments"), 0, "must be at least 1"));
                }
                non_negative(&format!("{f}.think_time_s"), w.think_time_s)?;
                if !super::config::THINK_TIMES.contains(&w.think_time.as_str()) {
                    return Err(bad(
                        format!("{f}.think_time"),
                        format!("{:?}", w.think_time),
                        "is not a distribution (exponential, fixed)",
                    ));
                }
            }
        }
    }
    for (i, r) in s.routers.iter().enumerate() {
        let f = format!("routers[{i}]");
        node(format!("{f}.node"), &r.node)?;
        crate::protocols::router(&r.kind, &r.settings).map_err(|e| e.under(&f))?;
    }
    for (i, p) in s.pep.iter().enumerate() {
        let f = format!("pep[{i}]");
        node(format!("{f}.node"), &p.node)?;
        if let Some(j) = s.pep[..i].iter().position(|o| o.node == p.node) {
            return Err(bad(
                format!("{f}.node"),
                format!("{:?}", p.node),
                &format!("already has a proxy (pep[{j}])"),
            ));
        }
        if p.buffer_bytes == Some(0) {
            return Err(bad(format!("{f}.buffer_bytes"), 0, "must be at least 1"));
        }
        for a in &s.apps {
            super::build::relay_leg(p, a.tcp()).map_err(|e| {
                let field = if e.field.starts_with("variant") || e.field.is_empty() {
                    "satellite_variant".to_string()
                } else {
                    format!("satellite_variant ({})", e.field)
                };
                ScenarioError::new(format!("{f}.{field}"), e.message)
            })?;
        }
    }
    Ok(())
}

/// The longest node, link, app or scenario name.
pub const MAX_NAME_CHARS: usize = 128;

/// A name that may end up in a file name (a pcap capture is named after
/// its link): not empty, at most `MAX_NAME_CHARS` characters, no path
/// separator, no `..`, no control character (NUL included).
pub fn safe_name(field: &str, n: &str) -> Result<(), ScenarioError> {
    let why = if n.is_empty() {
        "must not be empty"
    } else if n.chars().count() > MAX_NAME_CHARS {
        "must be at most 128 characters"
    } else if n.contains(['/', '\\']) {
        "must not contain a path separator (/ or \\)"
    } else if n.contains("..") {
        "must not contain .."
    } else if n.chars().any(char::is_control) {
        "must not contain control characters"
    } else {
        return Ok(());
    };
    let shown: String = n.chars().take(40).collect();
    let more = if n.chars().count() > 40 { "..." } else { "" };
    Err(bad(field, format!("{:?}", format!("{shown}{more}")), why))
}

/// The machinery's TCP fields.
pub fn tcp_fields(f: &str, t: &TcpConfig) -> Result<(), ScenarioError> {
    let g = |name: &str| format!("{f}.{name}");
    count(&g("mss"), t.mss.into(), 1, MAX_MSS.into())?;
    if t.timestamps && t.mss <= TIMESTAMPS_OPTION_BYTES {
        return Err(bad(
            g("mss"),
            t.mss,
            "must exceed the 12 bytes the timestamps option takes",
        ));
    }
    if t.initial_window == 0 {
        return Err(bad(g("initial_window"), 0, "must be at least 1"));
    }
    if t.rcv_buffer == 0 {
        return Err(bad(g("rcv_buffer"), 0, "must be at least 1"));
    }
    if !t.window_scaling && t.rcv_buffer > 65_535 {
        return Err(bad(
            g("rcv_buffer"),
            t.rcv_buffer,
            "must be at most 65535 without window scaling (set window_scaling = true)",
        ));
    }
    if t.rcv_buffer > MAX_SCALED_WINDOW {
        return Err(bad(
            g("rcv_buffer"),
            t.rcv_buffer,
            &format!("must be at most {MAX_SCALED_WINDOW} (65535 x 2^14, RFC 7323)"),
        ));
    }
    if t.initial_ssthresh == 0 {
        return Err(bad(g("initial_ssthresh"), 0, "must be at least 1"));
    }
    seconds(&g("timer_granularity"), t.timer_granularity)?;
    seconds(&g("persist_timeout"), t.persist_timeout)?;
    seconds(&g("max_ack_delay"), t.max_ack_delay)?;
    if t.max_ack_segments == 0 {
        return Err(bad(g("max_ack_segments"), 0, "must be at least 1"));
    }
    if t.dupack_threshold == 0 {
        return Err(bad(g("dupack_threshold"), 0, "must be at least 1"));
    }
    positive(&g("initial_rto"), t.initial_rto)?;
    seconds(&g("initial_rto"), t.initial_rto)?;
    positive(&g("min_rto"), t.min_rto)?;
    seconds(&g("min_rto"), t.min_rto)?;
    positive(&g("max_rto"), t.max_rto)?;
    seconds(&g("max_rto"), t.max_rto)?;
    if t.max_rto < t.min_rto {
        return Err(bad(g("max_rto"), t.max_rto, "must not be below min_rto"));
    }
    for (name, v) in [
        ("rtt_gain", t.rtt_gain),
        ("deviation_gain", t.deviation_gain),
    ] {
        if !(v > 0.0 && v <= 1.0) {
            return Err(bad(g(name), v, "must be in (0, 1]"));
        }
    }
    non_negative(&g("rtt_deviation_coefficient"), t.rtt_deviation_coefficient)?;
    Ok(())
}

// ----- the memory budget -----

/// The memory a run may be estimated to need unless its caller says
/// otherwise (`--max-memory`, `max_memory=`): 2 GB.
pub const DEFAULT_MAX_MEMORY_BYTES: f64 = 2e9;

/// Bytes per row of a flow's time series: 15 columns of 8 bytes in the
/// core, the row in the results' JSON text, and Python's parsed copy and
/// data frame.
pub const FLOW_SAMPLE_BYTES: f64 = 1000.0;
/// Bytes per row of a link direction's time series (6 columns), counted
/// as a flow's.
pub const LINK_SAMPLE_BYTES: f64 = 400.0;
/// Bytes per connection: its two endpoints while it is open, their
/// records, and its row of the flows table in the core, the JSON and
/// Python.
pub const CONN_BYTES: f64 = 8000.0;
/// Bytes per transfer (a file, a page's object): its row of the transfers
/// table in the core, the JSON and Python.
pub const TRANSFER_BYTES: f64 = 500.0;
/// Bytes per packet in flight: the packet (128 bytes) and its entries in
/// the sender's queue of sent segments and the receiver's reassembly.
pub const PACKET_BYTES: f64 = 256.0;
/// The smallest packet a link carries, bytes (an IPv4 and TCP header):
/// how many packets a link's queue and wire can hold at most.
const MIN_PACKET_BYTES: f64 = 40.0;

/// What a run is estimated to allocate, by the fields that make it
/// grow: an upper bound, reached by a run that keeps all its windows full
/// (`estimate_memory`).
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryEstimate {
    /// (the fields, what they make the run allocate: bytes, and in words).
    pub parts: Vec<(String, f64, String)>,
}

impl MemoryEstimate {
    pub fn bytes(&self) -> f64 {
        self.parts.iter().map(|p| p.1).sum()
    }
}

/// A size in bytes as a message shows it: `2.1 GB`, `350 MB`, `12 kB`.
pub fn bytes_text(b: f64) -> String {
    let (v, unit) = if b >= 1e12 {
        (b / 1e12, "TB")
    } else if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else if b >= 1e3 {
        (b / 1e3, "kB")
    } else {
        (b, "bytes")
    };
    if v >= 1e6 {
        format!("{} {unit}", number(v.round()))
    } else if v >= 10.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// A count as a message shows it: whole below 1e6, else `2.4e7`.
fn how_many(n: f64) -> String {
    if n < 1e6 {
        format!("{}", n.ceil())
    } else {
        format!("{:.1e}", n)
    }
}

/// An upper bound of what a validated scenario's run allocates, part by
/// part: the time series (`sample_interval_s`: samples x connections and
/// x link directions), each application's connections and transfers
/// (FTP files, HTTP pages x objects, web transfers), and the packets
/// that can be in flight at once (each connection's window, at most what
/// it has to send, and no more than the queues and wires of all links can
/// hold when every queue is limited).
pub fn estimate_memory(s: &Scenario) -> MemoryEstimate {
    let mut parts = Vec::new();
    let mut conns_total = 0.0;
    let mut window_packets = 0.0;
    let max_rate = fastest_rate(s);
    let graph = NodeGraph::new(s);
    for (i, a) in s.apps.iter().enumerate() {
        let f = format!("apps[{i}]");
        let t = a.tcp();
        let mss = t.mss.max(1) as f64;
        let span = (s.duration_s - a.start_s()).max(0.0);
        // (connections, transfers, bytes per connection, connections open
        // at once, the fields that set the count)
        let (conns, transfers, per_conn, open, fields) = match a {
            AppConfig::Ftp(ftp) => (
                ftp.files as f64,
                ftp.files as f64,
                ftp.file_bytes as f64,
                ftp.files as f64,
                format!("{f}.files"),
            ),
            AppConfig::Http(h) => {
                let planned = (span / h.page_interval_s).floor() + 1.0;
                let pages = h.pages.map_or(planned, |p| (p as f64).min(planned));
                let objects = h.objects();
                let bytes = h.page_bytes();
                let field = if h.pages.is_some() {
                    format!("{f}.pages, {f}.embedded_objects")
                } else {
                    format!("{f}.page_interval_s, {f}.embedded_objects")
                };
                (pages, pages * objects, bytes, pages, field)
            }
            AppConfig::Bulk(b) => (
                1.0,
                1.0,
                b.bytes.map_or(f64::INFINITY, |n| n as f64),
                1.0,
                format!("{f}.bytes"),
            ),
            AppConfig::Web(w) => {
                // One after another: each takes at least its think time, a
                // round trip of the path and its segments at the fastest
                // rate.
                let bytes = w.segments as f64 * mss;
                let (c, sv) = a.hosts();
                let rtt = 2.0 * graph.shortest_delay(c, sv).unwrap_or(0.0);
                let each = (w.think_time_s + rtt + bytes * 8.0 / max_rate).max(1e-6);
                let planned = (span / each).floor() + 1.0;
                let n = w.transfers.map_or(planned, |k| (k as f64).min(planned));
                let field = if w.transfers.is_some() {
                    format!("{f}.transfers")
                } else {
                    format!("{f}.think_time_s, {f}.segments")
                };
                (n, n, bytes, 1.0, field)
            }
        };
        conns_total += conns;
        let window = (t.rcv_buffer as f64).min(per_conn);
        window_packets += open * (window / mss).ceil();
        let b = conns * CONN_BYTES + transfers * TRANSFER_BYTES;
        parts.push((
            fields,
            b,
            format!(
                "{} connections, {} transfers",
                how_many(conns),
                how_many(transfers)
            ),
        ));
    }
    for (i, l) in s.links.iter().enumerate() {
        for (dir, d) in [("ab", &l.ab), ("ba", &l.ba)] {
            if let Some(c) = &d.dvbs2 {
                // Its Es/N0: a series in two copies (the channel's and the
                // ACM loop's cursors), or the rain samples of one loop
                // delay.
                let points = c.esn0_schedule.as_ref().map_or(0, Vec::len) as f64;
                let rain = c
                    .rain
                    .as_ref()
                    .map_or(0.0, |r| (c.loop_delay_s(d.delay_s) / r.step_s).ceil() + 2.0);
                parts.push((
                    format!("links[{i}].{dir}.dvbs2"),
                    2.0 * points * 16.0 + rain * 8.0,
                    format!("{} Es/N0 points", how_many(2.0 * points + rain)),
                ));
            }
        }
    }
    if s.sample_interval_s > 0.0 {
        let samples = (s.duration_s / s.sample_interval_s).floor() + 1.0;
        let dirs = 2.0 * s.links.len() as f64;
        let b = samples * (conns_total * FLOW_SAMPLE_BYTES + dirs * LINK_SAMPLE_BYTES);
        parts.push((
            "sample_interval_s".to_string(),
            b,
            format!(
                "{} samples x ({} connections + {} link directions)",
                how_many(samples),
                how_many(conns_total),
                dirs
            ),
        ));
    }
    if s.trace.enabled() {
        let rows = s.trace.max_rows as f64;
        parts.push((
            "trace.max_rows".to_string(),
            rows * crate::metrics::trace::TRACE_ROW_BYTES,
            format!("up to {} trace rows", how_many(rows)),
        ));
    }
    let packets = window_packets.min(network_capacity(s));
    parts.push((
        "tcp.rcv_buffer, queue_packets, queue_bytes".to_string(),
        packets * PACKET_BYTES,
        format!("{} packets in flight", how_many(packets)),
    ));
    MemoryEstimate { parts }
}

/// The fastest rate of any link direction, schedules included.
fn fastest_rate(s: &Scenario) -> f64 {
    let mut max_rate: f64 = MIN_RATE_BPS;
    for l in &s.links {
        for d in [&l.ab, &l.ba] {
            let rates = d.rate_schedule.iter().flatten().map(|p| p[1]);
            max_rate = rates.chain(d.rate_bps).fold(max_rate, f64::max);
        }
    }
    max_rate
}

/// The most packets all links can hold at once, in their queues and on
/// their wires (infinite when a queue has no limit).
fn network_capacity(s: &Scenario) -> f64 {
    use crate::net::queue::QueueLimit;
    let mut total = 0.0;
    for l in &s.links {
        for d in [&l.ab, &l.ba] {
            let queue = match d.queue.limit() {
                QueueLimit::Packets(p) => p as f64,
                QueueLimit::Bytes(b) => (b as f64 / MIN_PACKET_BYTES).ceil(),
                QueueLimit::Unlimited => return f64::INFINITY,
            };
            let delays = d.delay_schedule.iter().flatten().map(|p| p[1]);
            let delay = delays.chain([d.delay_s]).fold(0.0, f64::max);
            let rates = d.rate_schedule.iter().flatten().map(|p| p[1]);
            let rate = rates.chain(d.rate_bps).fold(0.0, f64::max);
            total += queue + (rate * delay / 8.0 / MIN_PACKET_BYTES).ceil() + 1.0;
            if let Some(c) = &d.dvbs2 {
                // The packets of the frame on the air, in its largest data
                // field (DVB-S2's 9/10 codes, Kbch 58,192), and the queue
                // of each terminal that shares the carrier.
                total += (58_192.0 / 8.0 / MIN_PACKET_BYTES).ceil();
                total += queue * c.terminals.len() as f64;
            }
            if let Some(c) = &d.dvbrcs2 {
                // The packets of one superframe's slots (several small ones
                // in a slot) and each terminal's queue.
                let plan = c.plan();
                let bytes = f64::from(plan.slot_bytes) * f64::from(plan.slots);
                total += (bytes / MIN_PACKET_BYTES).ceil() + f64::from(plan.slots);
                total += queue * c.terminals.len() as f64;
            }
        }
    }
    total
}

/// Refuses a scenario whose run is estimated to need more than
/// `max_bytes`: the error names the fields of the largest part and
/// gives the estimate.
pub fn within_budget(s: &Scenario, max_bytes: f64) -> Result<(), ScenarioError> {
    let e = estimate_memory(s);
    let total = e.bytes();
    if total <= max_bytes {
        return Ok(());
    }
    let (fields, b, what) = e
        .parts
        .iter()
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .expect("an estimate has parts");
    Err(ScenarioError::new(
        fields.clone(),
        format!(
            "the run would need about {} ({what}: {} of it), above the memory limit of {} \
             (--max-memory, or max_memory=)",
            bytes_text(total),
            bytes_text(*b),
            bytes_text(max_bytes)
        ),
    ))
}
