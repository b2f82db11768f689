//! The scenario file format (TOML on disk, JSON across the Python binding).
//! Every field has a default; unknown fields are errors. Units are in the
//! field names: `_bps` bits per second, `_s` seconds, `_bytes` bytes.

use crate::error::{MAX_SETTING, MAX_SIM_SECONDS};
use crate::net::link_config::DirectionConfig;
use crate::scenario::validate::{MAX_CONNECTION_BYTES, MAX_EVENTS_PLANNED_U32, MAX_NAME_CHARS};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The scenario's name, shown in summaries and result folders.
    #[serde(default = "default_name")]
    pub name: String,
    /// Seed of every random stream of the run (same seed, same run).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Longest simulated time, seconds.
    #[serde(default = "default_duration")]
    #[schemars(range(max = MAX_SIM_SECONDS), extend("exclusiveMinimum" = 0.0))]
    pub duration_s: f64,
    /// End the run as soon as every application has finished.
    #[serde(default = "yes")]
    pub stop_when_done: bool,
    /// Interval of the time series, seconds (0: none); at most 1e7 samples.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub sample_interval_s: f64,
    /// A per-event trace: what to record at every change (`[trace]`,
    /// docs/traces.md).
    #[serde(default)]
    pub trace: crate::metrics::trace::TraceSettings,
    /// The hosts and commands of `satcp emulate` (`[emulate]`,
    /// docs/emulation.md); a simulation ignores them.
    #[serde(default)]
    pub emulate: crate::scenario::emulate::EmulateSettings,
    /// The node names (hosts and routers), each once; links and
    /// applications refer to them.
    #[schemars(length(min = 1))]
    pub nodes: Vec<String>,
    /// Parsed one by one in `scenario::links`, so that each direction's
    /// settings are merged before they are typed.
    #[serde(skip_deserializing)]
    #[schemars(skip)]
    pub links: Vec<LinkConfig>,
    /// Parsed one by one in `scenario::parse`, so that errors keep their path.
    #[serde(skip_deserializing)]
    #[schemars(skip)]
    pub apps: Vec<AppConfig>,
    /// Router functions (`[[routers]]`), parsed in `scenario::parse`.
    #[serde(skip_deserializing)]
    #[schemars(skip)]
    pub routers: Vec<RouterConfig>,
    /// Split-connection proxies (`[[pep]]`, docs/satellite-access.md).
    #[serde(default)]
    pub pep: Vec<crate::pep::PepConfig>,
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

/// A full-duplex link between nodes `a` and `b` (`scenario/links.rs`
/// reads it): each direction's settings are the link-level ones
/// deep-merged with its own table, `ab` (a to b) or `ba`.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub ab: DirectionConfig,
    pub ba: DirectionConfig,
}

/// An application between a client and a server node, chosen by `kind`.
/// Its `tcp` table is merged over the scenario's `[tcp]` table (see
/// `scenario::parse`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AppConfig {
    /// File transfers: the client requests `files` files of `file_bytes`,
    /// one after another (thesis Sec. 7.3).
    Ftp(FtpConfig),
    /// Web pages: a main object and embedded objects per page, one page
    /// every `page_interval_s` (thesis Sec. 7.3).
    Http(HttpConfig),
    /// One transfer from server to client on one connection: `bytes`, or
    /// unbounded until the run ends.
    Bulk(BulkConfig),
    /// Short transfers of `segments` segments over new connections,
    /// separated by think times (TCP-Peach paper Sec. V-A).
    Web(WebConfig),
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FtpConfig {
    /// The application's name (results, `--set apps[NAME]`); default
    /// `<kind><index>`.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: Option<String>,
    /// The node that opens the connection and receives the data.
    pub client: String,
    /// The node that sends the data.
    pub server: String,
    /// When the application starts, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub start_s: f64,
    /// Size of each file, bytes (SI: 50 MB = 50,000,000).
    #[serde(default = "ftp_file")]
    #[schemars(range(min = 1, max = MAX_CONNECTION_BYTES))]
    pub file_bytes: u64,
    /// Size of the request the client sends for each file, bytes.
    #[serde(default = "ftp_request")]
    #[schemars(range(max = MAX_CONNECTION_BYTES))]
    pub request_bytes: u64,
    /// Number of files, fetched one after another.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = MAX_EVENTS_PLANNED_U32))]
    pub files: u32,
    /// Time between one file's completion and the next request, seconds.
    #[serde(default = "ftp_inter_request")]
    #[schemars(range(min = 0.0, max = MAX_SETTING))]
    pub inter_request_s: f64,
    /// This application's TCP settings, merged over the scenario's `[tcp]`
    /// table field by field.
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// The application's name (results, `--set apps[NAME]`); default
    /// `<kind><index>`.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: Option<String>,
    /// The node that opens the connection and receives the data.
    pub client: String,
    /// The node that sends the data.
    pub server: String,
    /// When the application starts, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub start_s: f64,
    /// Size of each page's main (HTML) object, bytes (a page, the main
    /// object and the embedded ones, at most 1e15 bytes).
    #[serde(default = "http_main")]
    #[schemars(range(max = MAX_CONNECTION_BYTES))]
    pub main_object_bytes: u64,
    /// Embedded objects per page, requested once the main object is in.
    #[serde(default = "http_embedded_n")]
    pub embedded_objects: u32,
    /// Size of each embedded object, bytes.
    #[serde(default = "http_embedded")]
    #[schemars(range(max = MAX_CONNECTION_BYTES))]
    pub embedded_object_bytes: u64,
    /// Size of each request, bytes.
    #[serde(default = "http_request")]
    #[schemars(range(min = 1, max = MAX_CONNECTION_BYTES))]
    pub request_bytes: u64,
    /// Time from one page's request to the next page's, seconds (at most
    /// 1e7 pages over the run).
    #[serde(default = "http_interval")]
    #[schemars(range(max = MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub page_interval_s: f64,
    /// Number of pages (none: until the run ends).
    #[serde(default)]
    pub pages: Option<u32>,
    /// Embedded objects are requested back to back on one connection
    /// (HTTP/1.1 pipelining) rather than one at a time.
    #[serde(default = "yes")]
    pub pipelining: bool,
    /// This application's TCP settings, merged over the scenario's `[tcp]`
    /// table field by field.
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

impl HttpConfig {
    /// Objects a page asks for: the main one and the embedded ones.
    pub fn objects(&self) -> f64 {
        1.0 + self.embedded_objects as f64
    }

    /// Bytes of the embedded objects of a page (in f64: validation and the
    /// memory estimate read it before any bound on it is checked).
    pub fn embedded_bytes(&self) -> f64 {
        self.embedded_objects as f64 * self.embedded_object_bytes as f64
    }

    /// Bytes of a page: its main object and the embedded ones.
    pub fn page_bytes(&self) -> f64 {
        self.main_object_bytes as f64 + self.embedded_bytes()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkConfig {
    /// The application's name (results, `--set apps[NAME]`); default
    /// `<kind><index>`.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: Option<String>,
    /// The node that opens the connection and receives the data.
    pub client: String,
    /// The node that sends the data.
    pub server: String,
    /// When the application starts, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub start_s: f64,
    /// Bytes to send (none: unbounded, until the run ends; at most 1e15).
    #[serde(default)]
    #[schemars(range(max = MAX_CONNECTION_BYTES), extend("x-unit" = "bytes"))]
    pub bytes: Option<u64>,
    /// This application's TCP settings, merged over the scenario's `[tcp]`
    /// table field by field.
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

/// Repeated transfers of `segments` full segments, each over a new
/// connection, separated by think times (TCP-Peach paper Sec. V-A,
/// Figs. 14-16; `apps/web.rs`).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// The application's name (results, `--set apps[NAME]`); default
    /// `<kind><index>`.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: Option<String>,
    /// The node that opens the connection and receives the data.
    pub client: String,
    /// The node that sends the data.
    pub server: String,
    /// When the application starts, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS))]
    pub start_s: f64,
    /// Transfer size S in segments of the app's `tcp.mss` (50 in Figs. 14-15).
    #[serde(default = "web_segments")]
    #[schemars(range(min = 1), extend("x-unit" = "segments"))]
    pub segments: u32,
    /// Mean think time between one transfer's last ACK and the next
    /// transfer (Fig. 16's DT); 0: back to back (Figs. 14-15).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_SETTING))]
    pub think_time_s: f64,
    /// The think time's distribution: "exponential" (Fig. 16) or "fixed".
    #[serde(default = "web_think_time")]
    #[schemars(extend("enum" = THINK_TIMES))]
    pub think_time: String,
    /// Number of transfers (none: until the run ends).
    #[serde(default)]
    pub transfers: Option<u32>,
    /// This application's TCP settings, merged over the scenario's `[tcp]`
    /// table field by field.
    #[serde(default)]
    pub tcp: crate::tcp::TcpConfig,
}

/// The think-time distributions of a web application.
pub const THINK_TIMES: [&str; 2] = ["exponential", "fixed"];

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
