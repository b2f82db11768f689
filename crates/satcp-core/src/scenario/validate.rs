//! Checks that go beyond types: ranges, names that must exist, variants
//! that must be known. Each error names the field and the bad value.

use super::config::{AppConfig, Scenario};
use super::ScenarioError;
use crate::error::{bad, count, non_negative, number, positive, seconds};
use crate::net::packet::TIMESTAMPS_OPTION_BYTES;
use crate::tcp::config::{MAX_MSS, MAX_SCALED_WINDOW};
use crate::tcp::TcpConfig;

/// The most samples, pages or files a scenario may plan (each is memory
/// allocated before or during the run): 10^7.
pub const MAX_EVENTS_PLANNED: f64 = 1e7;
/// The same, as a count.
pub const MAX_EVENTS_PLANNED_U32: u32 = MAX_EVENTS_PLANNED as u32;

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
    if s.nodes.is_empty() {
        return Err(ScenarioError::new("nodes", "at least one node is needed"));
    }
    for (i, n) in s.nodes.iter().enumerate() {
        safe_name(&format!("nodes[{i}]"), n)?;
        if s.nodes[..i].contains(n) {
            return Err(bad(format!("nodes[{i}]"), n, "is listed twice"));
        }
    }
    let node = |field: String, name: &str| -> Result<(), ScenarioError> {
        if s.nodes.iter().any(|n| n == name) {
            Ok(())
        } else {
            Err(bad(field, name, "is not a node"))
        }
    };
    for (i, l) in s.links.iter().enumerate() {
        if let Some(n) = &l.name {
            safe_name(&format!("links[{i}].name"), n)?;
        }
        node(format!("links[{i}].a"), &l.a)?;
        node(format!("links[{i}].b"), &l.b)?;
        if l.a == l.b {
            return Err(bad(format!("links[{i}].b"), &l.b, "must differ from a"));
        }
        // Routing takes one shortest path: a second link between the same
        // two nodes would never carry a packet.
        if let Some(j) = s.links[..i]
            .iter()
            .position(|o| (o.a == l.a && o.b == l.b) || (o.a == l.b && o.b == l.a))
        {
            return Err(ScenarioError::new(
                format!("links[{i}]"),
                format!(
                    "{} - {} are already joined by links[{j}] (one link per pair of nodes)",
                    l.a, l.b
                ),
            ));
        }
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
        if !connected(s, c, sv) {
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
            }
            AppConfig::Bulk(_) => {}
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

/// Whether the links join nodes `a` and `b`.
fn connected(s: &Scenario, a: &str, b: &str) -> bool {
    let mut reached = vec![a];
    let mut i = 0;
    while i < reached.len() {
        let n = reached[i];
        for l in &s.links {
            for (x, y) in [(&l.a, &l.b), (&l.b, &l.a)] {
                if x == n && !reached.contains(&y.as_str()) {
                    reached.push(y);
                }
            }
        }
        i += 1;
    }
    reached.contains(&b)
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
