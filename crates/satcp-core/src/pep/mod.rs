//! Performance-enhancing proxies (RFC 3135): a transparent split-connection
//! proxy at a node, as PEPsal (Caini, Firrincieli, Lacamera, VTC 2006).
//! A connection whose path crosses the node is split there: the proxy
//! answers the client's SYN itself (a listening endpoint that speaks with
//! the server's address), opens its own connection onward (with the
//! client's address) once that handshake is done, and relays the bytes;
//! each leg acknowledges locally. One leg crosses the satellite and runs
//! the proxy's variant; the other keeps the application's settings.
//! docs/satellite-access.md, "Performance-enhancing proxies".
//!
//! - `config`: the `[[pep]]` table
//! - `relay`: what a leg's notice makes the proxy do to the other leg, and
//!   the per-connection buffer that backs pressure up through the window

pub mod config;
pub mod relay;

pub use config::{PepConfig, SatelliteSide};
pub use relay::{Leg, LegAction, Relay, RelayPlan};

#[cfg(test)]
mod tests;
