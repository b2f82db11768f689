//! The scenario file format (TOML on disk, JSON across the Python binding).
//! Every field has a default; unknown fields are errors. Units are in the
//! field names: `_bps` bits per second, `_s` seconds, `_bytes` bytes.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Longest simulated time, seconds.
    #[serde(default = "default_duration")]
    pub duration_s: f64,
    /// End the run as soon as every application has finished.
    #[serde(default = "yes")]
    pub stop_when_done: bool,
    /// Interval of the time series, seconds (0: none).
    #[serde(default)]
    pub sample_interval_s: f64,
    pub nodes: Vec<String>,
    pub links: Vec<LinkConfig>,
    /// Parsed one by one in `scenario::parse`, so that errors keep their path.
    #[serde(skip_deserializing)]
    pub apps: Vec<AppConfig>,
    /// Router functions (`[[routers]]`), parsed in `scenario::parse`.
    #[serde(skip_deserializing)]
    pub routers: Vec<RouterConfig>,
}

/// A router function at a node: `kind` names it in the registry
/// (`protocols::ROUTERS`); the entry's other fields are its settings.
#[derive(Clone, Debug, Serialize)]
pub struct RouterConfig {
    pub node: String,
    pub kind: String,
    #[serde(flatten)]
    pub settings: serde_json::Value,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}
fn default_duration() -> f64 {
    18_000.0
}
fn yes() -> bool {
    true
}

/// Settings of one link direction; any left out are taken from the link.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    pub rate_bps: Option<f64>,
    pub delay_s: Option<f64>,
    /// "drop_tail", "priority" (two-class strict priority) or "red".
    pub queue: Option<String>,
    pub queue_packets: Option<u64>,
    pub queue_bytes: Option<u64>,
    /// With "priority": a high-priority arrival may push out low-priority packets.
    pub priority_push_out: Option<bool>,
    /// With "red": thresholds on the average queue (packets), the early
    /// drop probability at red_max_th, the averaging weight, the "gentle"
    /// variant, and CE marking of ECN-capable packets instead of early drops.
    pub red_min_th: Option<f64>,
    pub red_max_th: Option<f64>,
    pub red_max_p: Option<f64>,
    pub red_wq: Option<f64>,
    pub red_gentle: Option<bool>,
    pub ecn_marking: Option<bool>,
    pub ber: Option<f64>,
    pub loss: Option<f64>,
    pub duplicate: Option<f64>,
    pub reorder: Option<f64>,
    /// "fixed", "uniform" (0 to 2 x mean) or "normal" (truncated to [0, 2 x mean]).
    pub reorder_delay: Option<String>,
    pub reorder_delay_mean_s: Option<f64>,
    pub reorder_delay_sd_s: Option<f64>,
    /// Errors hit data packets only.
    pub errors_data_only: Option<bool>,
    /// A corrupted packet travels on to the next node, which discards it
    /// (its router functions see the discard, cause "corruption"), instead
    /// of vanishing when its transmission ends.
    pub corrupted_reach_next_node: Option<bool>,
    /// Deterministic losses for tests and worked examples: the first data
    /// packet that starts at each of these TCP sequence numbers is lost on
    /// the link (copies and retransmissions sent later pass).
    pub drop_seqs: Option<Vec<u64>>,
    /// Time-varying delay: [[time_s, delay_s], ...] in increasing time,
    /// a step function (a trace, or an orbit's geometry per slot); it
    /// replaces delay_s from its first point on (before it, its first
    /// value holds). A packet keeps the delay in force when it was sent.
    pub delay_schedule: Option<Vec<[f64; 2]>>,
    /// Time-varying rate: [[time_s, rate_bps], ...], as delay_schedule.
    pub rate_schedule: Option<Vec<[f64; 2]>>,
    /// Link-level ARQ: most transmissions of one frame (0 or absent: no
    /// ARQ). A corrupted frame is sent again one link round trip later,
    /// ahead of the queue; after this many failed transmissions it is lost.
    pub arq_attempts: Option<u32>,
    /// With ARQ: a frame whose last transmission fails is delivered anyway
    /// (every frame is recovered, TCP-R paper scenario 2).
    pub arq_recover_all: Option<bool>,
    /// Probability that a data packet is dropped at the queue entrance as
    /// a congestion drop (cause "early_drop"), TCP-R paper Sec. 4.5.
    pub congestion_loss: Option<f64>,
    /// Time-varying loss: [[time_s, probability], ...], as delay_schedule;
    /// on top of `loss` (handover outages are 1 for their duration).
    pub loss_schedule: Option<Vec<[f64; 2]>>,
    /// Two-state burst errors (Gilbert-Elliott), on top of the others.
    pub gilbert_elliott: Option<GilbertElliottTable>,
}

/// `gilbert_elliott = { p = .., r = .., loss_bad = .., ... }`: per-packet
/// transition probabilities good -> bad (`p`) and bad -> good (`r`), and
/// per state a loss probability and a bit error rate. Defaults: Gilbert's
/// channel, every packet lost in the bad state, none in the good one.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottTable {
    pub p: f64,
    pub r: f64,
    #[serde(default)]
    pub loss_good: f64,
    #[serde(default = "all_lost")]
    pub loss_bad: f64,
    #[serde(default)]
    pub ber_good: f64,
    #[serde(default)]
    pub ber_bad: f64,
}

fn all_lost() -> f64 {
    1.0
}

/// A full-duplex link between nodes `a` and `b`. The fields at link level
/// apply to both directions; `ab` (a to b) and `ba` override them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate_bps: Option<f64>,
    pub delay_s: Option<f64>,
    pub queue: Option<String>,
    pub queue_packets: Option<u64>,
    pub queue_bytes: Option<u64>,
    pub priority_push_out: Option<bool>,
    pub red_min_th: Option<f64>,
    pub red_max_th: Option<f64>,
    pub red_max_p: Option<f64>,
    pub red_wq: Option<f64>,
    pub red_gentle: Option<bool>,
    pub ecn_marking: Option<bool>,
    pub ber: Option<f64>,
    pub loss: Option<f64>,
    pub duplicate: Option<f64>,
    pub reorder: Option<f64>,
    pub reorder_delay: Option<String>,
    pub reorder_delay_mean_s: Option<f64>,
    pub reorder_delay_sd_s: Option<f64>,
    pub errors_data_only: Option<bool>,
    pub corrupted_reach_next_node: Option<bool>,
    pub drop_seqs: Option<Vec<u64>>,
    pub delay_schedule: Option<Vec<[f64; 2]>>,
    pub rate_schedule: Option<Vec<[f64; 2]>>,
    pub arq_attempts: Option<u32>,
    pub arq_recover_all: Option<bool>,
    pub congestion_loss: Option<f64>,
    pub loss_schedule: Option<Vec<[f64; 2]>>,
    pub gilbert_elliott: Option<GilbertElliottTable>,
    #[serde(default)]
    pub ab: DirectionConfig,
    #[serde(default)]
    pub ba: DirectionConfig,
}

impl LinkConfig {
    /// The link-level settings as a direction config.
    pub fn common(&self) -> DirectionConfig {
        DirectionConfig {
            rate_bps: self.rate_bps,
            delay_s: self.delay_s,
            queue: self.queue.clone(),
            queue_packets: self.queue_packets,
            queue_bytes: self.queue_bytes,
            priority_push_out: self.priority_push_out,
            red_min_th: self.red_min_th,
            red_max_th: self.red_max_th,
            red_max_p: self.red_max_p,
            red_wq: self.red_wq,
            red_gentle: self.red_gentle,
            ecn_marking: self.ecn_marking,
            ber: self.ber,
            loss: self.loss,
            duplicate: self.duplicate,
            reorder: self.reorder,
            reorder_delay: self.reorder_delay.clone(),
            reorder_delay_mean_s: self.reorder_delay_mean_s,
            reorder_delay_sd_s: self.reorder_delay_sd_s,
            errors_data_only: self.errors_data_only,
            corrupted_reach_next_node: self.corrupted_reach_next_node,
            drop_seqs: self.drop_seqs.clone(),
            delay_schedule: self.delay_schedule.clone(),
            rate_schedule: self.rate_schedule.clone(),
            arq_attempts: self.arq_attempts,
            arq_recover_all: self.arq_recover_all,
            congestion_loss: self.congestion_loss,
            loss_schedule: self.loss_schedule.clone(),
            gilbert_elliott: self.gilbert_elliott,
        }
    }
}

impl DirectionConfig {
    /// `self` where set, else `base`.
    pub fn over(&self, base: &DirectionConfig) -> DirectionConfig {
        DirectionConfig {
            rate_bps: self.rate_bps.or(base.rate_bps),
            delay_s: self.delay_s.or(base.delay_s),
            queue: self.queue.clone().or_else(|| base.queue.clone()),
            queue_packets: self.queue_packets.or(base.queue_packets),
            queue_bytes: self.queue_bytes.or(base.queue_bytes),
            priority_push_out: self.priority_push_out.or(base.priority_push_out),
            red_min_th: self.red_min_th.or(base.red_min_th),
            red_max_th: self.red_max_th.or(base.red_max_th),
            red_max_p: self.red_max_p.or(base.red_max_p),
            red_wq: self.red_wq.or(base.red_wq),
            red_gentle: self.red_gentle.or(base.red_gentle),
            ecn_marking: self.ecn_marking.or(base.ecn_marking),
            ber: self.ber.or(base.ber),
            loss: self.loss.or(base.loss),
            duplicate: self.duplicate.or(base.duplicate),
            reorder: self.reorder.or(base.reorder),
            reorder_delay: self
                .reorder_delay
                .clone()
                .or_else(|| base.reorder_delay.clone()),
            reorder_delay_mean_s: self.reorder_delay_mean_s.or(base.reorder_delay_mean_s),
            reorder_delay_sd_s: self.reorder_delay_sd_s.or(base.reorder_delay_sd_s),
            errors_data_only: self.errors_data_only.or(base.errors_data_only),
            corrupted_reach_next_node: self
                .corrupted_reach_next_node
                .or(base.corrupted_reach_next_node),
            drop_seqs: self.drop_seqs.clone().or_else(|| base.drop_seqs.clone()),
            delay_schedule: self
                .delay_schedule
                .clone()
                .or_else(|| base.delay_schedule.clone()),
            rate_schedule: self
                .rate_schedule
                .clone()
                .or_else(|| base.rate_schedule.clone()),
            arq_attempts: self.arq_attempts.or(base.arq_attempts),
            arq_recover_all: self.arq_recover_all.or(base.arq_recover_all),
            congestion_loss: self.congestion_loss.or(base.congestion_loss),
            loss_schedule: self
                .loss_schedule
                .clone()
                .or_else(|| base.loss_schedule.clone()),
            gilbert_elliott: self.gilbert_elliott.or(base.gilbert_elliott),
        }
    }
}

/// An application between a client and a server node, chosen by `kind`.
/// Its `tcp` table is merged over the scenario's `[tcp]` table (see
/// `scenario::parse`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AppConfig {
    Ftp(FtpConfig),
    Http(HttpConfig),
    Bulk(BulkConfig),
    Web(WebConfig),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtpConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub client: String,
    pub server: String,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default = "ftp_file")]
    pub file_bytes: u64,
    #[serde(default = "ftp_request")]
    pub request_bytes: u64,
    #[serde(default = "one")]
    pub files: u32,
    #[serde(default = "ftp_inter_request")]
    pub inter_request_s: f64,
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub client: String,
    pub server: String,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default = "http_main")]
    pub main_object_bytes: u64,
    #[serde(default = "http_embedded_n")]
    pub embedded_objects: u32,
    #[serde(default = "http_embedded")]
    pub embedded_object_bytes: u64,
    #[serde(default = "http_request")]
    pub request_bytes: u64,
    #[serde(default = "http_interval")]
    pub page_interval_s: f64,
    #[serde(default)]
    pub pages: Option<u32>,
    #[serde(default = "yes")]
    pub pipelining: bool,
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub client: String,
    pub server: String,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

/// Repeated transfers of `segments` full segments, each over a new
/// connection, separated by think times (TCP-Peach paper Sec. V-A,
/// Figs. 14-16; `apps/web.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub client: String,
    pub server: String,
    #[serde(default)]
    pub start_s: f64,
    /// Transfer size S in segments of the app's `tcp.mss` (50 in Figs. 14-15).
    #[serde(default = "web_segments")]
    pub segments: u32,
    /// Mean think time between one transfer's last ACK and the next
    /// transfer (Fig. 16's DT); 0: back to back (Figs. 14-15).
    #[serde(default)]
    pub think_time_s: f64,
    /// "exponential" (Fig. 16) or "fixed".
    #[serde(default = "web_think_time")]
    pub think_time: String,
    /// Number of transfers (none: until the run ends).
    #[serde(default)]
    pub transfers: Option<u32>,
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

fn web_segments() -> u32 {
    50
}
fn web_think_time() -> String {
    "exponential".into()
}

/// 50 MB, counted in SI units like the link rates (docs/model.md).
fn ftp_file() -> u64 {
    50_000_000
}
fn ftp_request() -> u64 {
    100
}
fn one() -> u32 {
    1
}
fn ftp_inter_request() -> f64 {
    18_000.0
}
fn http_main() -> u64 {
    10_710
}
fn http_embedded_n() -> u32 {
    15
}
fn http_embedded() -> u64 {
    7_758
}
fn http_request() -> u64 {
    350
}
fn http_interval() -> f64 {
    30.0
}

/// The fields every application has.
macro_rules! common {
    ($self:ident, $field:ident) => {
        common!($self, $field, &)
    };
    ($self:ident, $field:ident, $($r:tt)+) => {
        match $self {
            AppConfig::Ftp(a) => $($r)+ a.$field,
            AppConfig::Http(a) => $($r)+ a.$field,
            AppConfig::Bulk(a) => $($r)+ a.$field,
            AppConfig::Web(a) => $($r)+ a.$field,
        }
    };
}

impl AppConfig {
    pub fn name(&self) -> Option<&str> {
        common!(self, name).as_deref()
    }
    pub fn kind(&self) -> &'static str {
        match self {
            AppConfig::Ftp(_) => "ftp",
            AppConfig::Http(_) => "http",
            AppConfig::Bulk(_) => "bulk",
            AppConfig::Web(_) => "web",
        }
    }
    pub fn hosts(&self) -> (&str, &str) {
        (common!(self, client), common!(self, server))
    }
    pub fn tcp(&self) -> &crate::tcp::TcpConfig {
        common!(self, tcp)
    }
    pub fn tcp_mut(&mut self) -> &mut crate::tcp::TcpConfig {
        common!(self, tcp, &mut)
    }
    pub fn start_s(&self) -> f64 {
        *common!(self, start_s)
    }
}
