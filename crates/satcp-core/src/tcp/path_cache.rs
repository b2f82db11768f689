//! What a sender learned about the path to a host, kept after its
//! connection has ended so that a later connection to the same host may
//! start from it (temporal sharing of RFC 2140; TCP Fast Start caches
//! cwnd, ssthresh and the RTT this way).
//!
//! The simulation owns one `PathCache` for the whole run, keyed by (sending
//! host, receiving host), so it outlives every connection. The connection
//! machinery only carries entries between the cache and the congestion
//! module (`CongestionControl::on_connection_start` / `on_connection_end`);
//! a variant that offers no entry leaves the cache as it is, and one that
//! ignores entries starts as if the cache did not exist.

use crate::engine::{Duration, SimTime};
use crate::net::packet::NodeId;
use std::collections::BTreeMap;

/// The state a sender hands to the cache when its connection ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CachedPath {
    /// Congestion window at the end of the connection, bytes.
    pub cwnd: u64,
    /// Slow-start threshold at the end of the connection, bytes.
    pub ssthresh: u64,
    /// Smoothed RTT at the end of the connection, if it had a sample.
    pub srtt: Option<Duration>,
    /// When the entry was written, so that a reader can judge its age.
    pub stored_at: SimTime,
}

/// Entries by (sending host, receiving host). One entry per direction: the
/// two endpoints of a connection send over different paths.
#[derive(Default)]
pub struct PathCache {
    // A BTreeMap, not a HashMap: nothing iterates it today, but if anything
    // ever does, the order must not depend on a hasher's seed.
    entries: BTreeMap<(NodeId, NodeId), CachedPath>,
}

impl PathCache {
    /// The latest entry for data sent from `from` to `to`.
    pub fn get(&self, from: NodeId, to: NodeId) -> Option<&CachedPath> {
        self.entries.get(&(from, to))
    }

    /// Replaces the entry for `from` -> `to`: the most recent connection
    /// knows the path best.
    pub fn store(&mut self, from: NodeId, to: NodeId, entry: CachedPath) {
        self.entries.insert((from, to), entry);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(cwnd: u64, at: u64) -> CachedPath {
        CachedPath {
            cwnd,
            ssthresh: 65_535,
            srtt: Some(Duration::from_millis(550)),
            stored_at: SimTime(at),
        }
    }

    /// Each direction has its own entry, and a later connection's entry
    /// replaces an earlier one.
    #[test]
    fn entries_are_per_direction_and_the_latest_wins() {
        let mut c = PathCache::default();
        assert!(c.get(0, 2).is_none());
        c.store(0, 2, entry(10_000, 1));
        c.store(2, 0, entry(2_000, 1));
        assert_eq!(c.get(0, 2).unwrap().cwnd, 10_000);
        assert_eq!(c.get(2, 0).unwrap().cwnd, 2_000);
        c.store(0, 2, entry(30_000, 5));
        assert_eq!(c.get(0, 2), Some(&entry(30_000, 5)));
        assert_eq!(c.len(), 2);
        assert!(c.get(0, 1).is_none());
    }
}
