//! The `[[pep]]` table: where a split-connection proxy sits and what its
//! satellite leg runs.

use serde::{Deserialize, Serialize};

/// Which side of the proxy's node the satellite lies on: the leg toward
/// it is the satellite leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SatelliteSide {
    /// Toward the connection's client (a proxy at the gateway, for
    /// terminals that download).
    Client,
    /// Toward the connection's server (a proxy at the terminal).
    Server,
}

/// A split-connection proxy at `node`: every connection whose route from
/// client to server crosses the node (and does not end there) is split.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PepConfig {
    /// The node the proxy runs on (e.g. the gateway).
    pub node: String,
    /// The variant of the satellite leg (any name `tcp.variant` takes, with
    /// its family's default settings); default: the application's.
    #[serde(default)]
    pub satellite_variant: Option<String>,
    /// Which side of the node the satellite lies on.
    #[serde(default = "client_side")]
    pub satellite_side: SatelliteSide,
    /// The proxy's buffer per connection and direction, bytes: what it has
    /// received and not yet seen acknowledged on the other leg. The
    /// receiving leg advertises the room left. Default: the application's
    /// `tcp.rcv_buffer`.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub buffer_bytes: Option<u32>,
}

fn client_side() -> SatelliteSide {
    SatelliteSide::Client
}
