//! Checks that go beyond types: ranges, names that must exist, variants
//! that must be known. Each error names the field and the bad value.

use super::config::{AppConfig, DirectionConfig, Scenario};
use super::ScenarioError;
use crate::error::{bad, non_negative, number, positive, probability, seconds};
use crate::net::packet::TIMESTAMPS_OPTION_BYTES;
use crate::tcp::config::MAX_SCALED_WINDOW;
use crate::tcp::TcpConfig;

pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    positive("duration_s", s.duration_s)?;
    seconds("duration_s", s.duration_s)?;
    seconds("sample_interval_s", s.sample_interval_s)?;
    if s.nodes.is_empty() {
        return Err(ScenarioError::new("nodes", "at least one node is needed"));
    }
    for (i, n) in s.nodes.iter().enumerate() {
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
        // Each table is checked where it was written, so the error names
        // `links[i].ab.ber` or `links[i].ber` as the user wrote it.
        let common = l.common();
        direction_fields(&format!("links[{i}]"), &common)?;
        for (dir, d) in [("ab", &l.ab), ("ba", &l.ba)] {
            direction_fields(&format!("links[{i}].{dir}"), d)?;
            red_direction(&format!("links[{i}]"), dir, &d.over(&common))?;
            arq_direction(&format!("links[{i}]"), dir, d, &d.over(&common))?;
            if d.over(&common).rate_bps.is_none() {
                return Err(ScenarioError::new(
                    format!("links[{i}].rate_bps"),
                    format!("missing (needed for direction {dir}: set it on the link or in {dir})"),
                ));
            }
        }
    }
    for (i, a) in s.apps.iter().enumerate() {
        let f = format!("apps[{i}]");
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
                if ftp.files == 0 {
                    return Err(bad(format!("{f}.files"), 0, "must be at least 1"));
                }
                if ftp.file_bytes == 0 {
                    return Err(bad(format!("{f}.file_bytes"), 0, "must be at least 1"));
                }
                non_negative(&format!("{f}.inter_request_s"), ftp.inter_request_s)?;
            }
            AppConfig::Http(h) => {
                positive(&format!("{f}.page_interval_s"), h.page_interval_s)?;
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
                if !matches!(w.think_time.as_str(), "exponential" | "fixed") {
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

/// The fastest link satcp accepts: 1 Tb/s (rates are whole bits per
/// second; anything above is a typo, and 1e300 would overflow).
const MAX_RATE_BPS: f64 = 1e12;

/// Checks the fields set in one table (a link's, or one direction's).
fn direction_fields(table: &str, d: &DirectionConfig) -> Result<(), ScenarioError> {
    let f = |name: &str| format!("{table}.{name}");
    if let Some(rate) = d.rate_bps {
        positive(&f("rate_bps"), rate)?;
        if rate > MAX_RATE_BPS {
            return Err(bad(
                f("rate_bps"),
                number(rate),
                "must be at most 1e12 (1 Tb/s)",
            ));
        }
    }
    seconds(&f("delay_s"), d.delay_s.unwrap_or(0.0))?;
    for (name, sched) in [
        ("delay_schedule", &d.delay_schedule),
        ("rate_schedule", &d.rate_schedule),
        ("loss_schedule", &d.loss_schedule),
    ] {
        let Some(points) = sched else { continue };
        if points.is_empty() {
            return Err(ScenarioError::new(
                f(name),
                "must have at least one [time_s, value] point",
            ));
        }
        for (i, p) in points.iter().enumerate() {
            let at = |k: usize| format!("{}[{i}][{k}]", f(name));
            non_negative(&at(0), p[0])?;
            if i > 0 && p[0] <= points[i - 1][0] {
                return Err(bad(at(0), p[0], "must be later than the point before"));
            }
            if name == "delay_schedule" {
                non_negative(&at(1), p[1])?;
            } else if name == "loss_schedule" {
                probability(&at(1), p[1])?;
            } else {
                positive(&at(1), p[1])?;
                if p[1] > MAX_RATE_BPS {
                    return Err(bad(at(1), p[1], "must be at most 1e12 (1 Tb/s)"));
                }
            }
        }
    }
    if let Some(q) = &d.queue {
        if !matches!(q.as_str(), "drop_tail" | "priority" | "red") {
            return Err(bad(
                f("queue"),
                q,
                "is not a queue (drop_tail, priority, red)",
            ));
        }
    }
    if d.queue_packets == Some(0) {
        return Err(bad(f("queue_packets"), 0, "must be at least 1"));
    }
    if d.queue_packets.is_some() && d.queue_bytes.is_some() {
        return Err(ScenarioError::new(
            f("queue_bytes"),
            "give queue_packets or queue_bytes, not both",
        ));
    }
    if let Some(v) = d.red_min_th {
        non_negative(&f("red_min_th"), v)?;
    }
    if let Some(v) = d.red_max_th {
        positive(&f("red_max_th"), v)?;
    }
    for (name, v) in [("red_max_p", d.red_max_p), ("red_wq", d.red_wq)] {
        if let Some(v) = v {
            if !(v > 0.0 && v <= 1.0) {
                return Err(bad(f(name), v, "must be in (0, 1]"));
            }
        }
    }
    probability(&f("ber"), d.ber.unwrap_or(0.0))?;
    probability(&f("loss"), d.loss.unwrap_or(0.0))?;
    probability(&f("duplicate"), d.duplicate.unwrap_or(0.0))?;
    probability(&f("reorder"), d.reorder.unwrap_or(0.0))?;
    if let Some(k) = &d.reorder_delay {
        if !matches!(k.as_str(), "fixed" | "uniform" | "normal") {
            return Err(bad(
                f("reorder_delay"),
                k,
                "is not a distribution (fixed, uniform, normal)",
            ));
        }
    }
    non_negative(
        &f("reorder_delay_mean_s"),
        d.reorder_delay_mean_s.unwrap_or(0.0),
    )?;
    non_negative(
        &f("reorder_delay_sd_s"),
        d.reorder_delay_sd_s.unwrap_or(0.0),
    )?;
    probability(&f("congestion_loss"), d.congestion_loss.unwrap_or(0.0))?;
    if let Some(g) = &d.gilbert_elliott {
        let f = |name: &str| format!("{table}.gilbert_elliott.{name}");
        for (name, v) in [
            ("p", g.p),
            ("r", g.r),
            ("loss_good", g.loss_good),
            ("loss_bad", g.loss_bad),
            ("ber_good", g.ber_good),
            ("ber_bad", g.ber_bad),
        ] {
            probability(&f(name), v)?;
        }
    }
    if let Some(n) = d.arq_attempts {
        if n > MAX_ARQ_ATTEMPTS {
            return Err(bad(
                f("arq_attempts"),
                n,
                &format!("must be at most {MAX_ARQ_ATTEMPTS} (0: no ARQ)"),
            ));
        }
    }
    Ok(())
}

/// Most transmissions of one frame a link-level ARQ may make (a sanity
/// bound: real ARQs give up after a handful).
const MAX_ARQ_ATTEMPTS: u32 = 1000;

/// Checks the ARQ settings as they apply to one direction: `arq_recover_all`
/// needs ARQ (`arq_attempts` at least 1). The error names the table where
/// `arq_recover_all` was written.
fn arq_direction(
    link: &str,
    dir: &str,
    own: &DirectionConfig,
    d: &DirectionConfig,
) -> Result<(), ScenarioError> {
    if d.arq_recover_all == Some(true) && d.arq_attempts.unwrap_or(0) == 0 {
        let table = if own.arq_recover_all.is_some() {
            format!("{link}.{dir}")
        } else {
            link.to_string()
        };
        return Err(ScenarioError::new(
            format!("{table}.arq_recover_all"),
            format!(
                "needs link-level ARQ: set arq_attempts to at least 1 (direction {dir} has {})",
                d.arq_attempts.unwrap_or(0)
            ),
        ));
    }
    Ok(())
}

/// Checks the RED settings as they apply to one direction (link-level and
/// direction tables merged): they need `queue = "red"`, and the thresholds
/// must be ordered.
fn red_direction(link: &str, dir: &str, d: &DirectionConfig) -> Result<(), ScenarioError> {
    let is_red = d.queue.as_deref() == Some("red");
    let given = [
        ("red_min_th", d.red_min_th.is_some()),
        ("red_max_th", d.red_max_th.is_some()),
        ("red_max_p", d.red_max_p.is_some()),
        ("red_wq", d.red_wq.is_some()),
        ("red_gentle", d.red_gentle.is_some()),
        ("ecn_marking", d.ecn_marking.is_some()),
    ];
    if !is_red {
        if let Some((name, _)) = given.iter().find(|(_, set)| *set) {
            return Err(ScenarioError::new(
                format!("{link}.{name}"),
                format!("applies only to queue = \"red\" (direction {dir} has another queue)"),
            ));
        }
        return Ok(());
    }
    let def = crate::net::queue::RedParams::default();
    let (min_th, max_th) = (
        d.red_min_th.unwrap_or(def.min_th),
        d.red_max_th.unwrap_or(def.max_th),
    );
    if max_th <= min_th {
        return Err(bad(
            format!("{link}.red_max_th"),
            max_th,
            &format!("must be above red_min_th ({min_th}) in direction {dir}"),
        ));
    }
    Ok(())
}

/// The machinery's TCP fields.
pub fn tcp_fields(f: &str, t: &TcpConfig) -> Result<(), ScenarioError> {
    let g = |name: &str| format!("{f}.{name}");
    if t.mss == 0 || t.mss > 65_495 {
        return Err(bad(g("mss"), t.mss, "must be between 1 and 65495"));
    }
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
    non_negative(&g("timer_granularity"), t.timer_granularity)?;
    non_negative(&g("persist_timeout"), t.persist_timeout)?;
    non_negative(&g("max_ack_delay"), t.max_ack_delay)?;
    if t.max_ack_segments == 0 {
        return Err(bad(g("max_ack_segments"), 0, "must be at least 1"));
    }
    if t.dupack_threshold == 0 {
        return Err(bad(g("dupack_threshold"), 0, "must be at least 1"));
    }
    positive(&g("initial_rto"), t.initial_rto)?;
    positive(&g("min_rto"), t.min_rto)?;
    positive(&g("max_rto"), t.max_rto)?;
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
