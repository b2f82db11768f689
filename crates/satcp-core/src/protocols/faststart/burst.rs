//! The fast-start burst: the data a sender sends on cached state before it
//! has any feedback from the path. It is planned when the connection starts
//! from a cache entry and fixed at the first data segment, when the peer's
//! window is known: the first min(cached cwnd, rwnd) bytes of data, in whole
//! segments. Its segments go at low priority and, by default, are paced at
//! the cached rate (the cached window per cached smoothed RTT).

use crate::net::packet::IP_TCP_HEADER_BYTES;
use crate::tcp::path_cache::CachedPath;
use crate::tcp::send_state::SendState;

#[derive(Clone, Debug, Default)]
pub struct Burst {
    /// The cache entry the burst is planned from; None: the connection
    /// had none (or too old a one) and starts in plain slow start.
    cached: Option<CachedPath>,
    /// Pace the burst at the cached rate (`tcp.faststart.pacing`).
    pacing: bool,
    /// Sequence number after the burst's last byte, once fixed.
    end: Option<u64>,
    /// Pacing rate, wire bytes per second, once fixed (None: back to back).
    rate: Option<f64>,
}

impl Burst {
    /// No burst: the connection starts without cached state.
    pub fn none() -> Burst {
        Burst::default()
    }

    pub fn planned(cached: CachedPath, pacing: bool) -> Burst {
        Burst {
            cached: Some(cached),
            pacing,
            end: None,
            rate: None,
        }
    }

    /// Whether the connection started from a cache entry.
    pub fn planned_from_cache(&self) -> bool {
        self.cached.is_some()
    }

    /// A data segment was just sent (`s.snd_max` covers it). Reading (5):
    /// at the first one the burst is fixed: it starts at snd_una, where the data begins,
    /// and holds as many whole segments as cwnd (the cached window) and the
    /// peer's window admit, the window the sender can fill before any ACK.
    pub fn on_data_sent(&mut self, s: &SendState) {
        let Some(cached) = self.cached else { return };
        if self.end.is_some() {
            return;
        }
        let mss = s.mss() as u64;
        let segments = s.cwnd.min(s.rwnd()) / mss;
        self.end = Some(s.snd_una() + segments * mss);
        // Reading (6): the cached rate, the cached window per cached RTT,
        // so the burst spreads over one RTT as the window did. Without a
        // cached RTT the handshake's sample stands in; without either the
        // burst goes as the window allows.
        let srtt = cached.srtt.or_else(|| s.rtt().srtt());
        self.rate = match srtt {
            Some(rtt) if self.pacing && segments > 0 && rtt.0 > 0 => {
                let wire = segments * (mss + IP_TCP_HEADER_BYTES as u64);
                Some(wire as f64 / rtt.as_secs_f64())
            }
            _ => None,
        };
    }

    /// Sequence number after the burst, once fixed.
    pub fn end(&self) -> Option<u64> {
        self.end
    }

    /// Whether the data segment starting at `seq` belongs to the burst.
    pub fn contains(&self, seq: u64) -> bool {
        self.end.is_some_and(|e| seq < e)
    }

    /// Some burst data sent is not yet cumulatively acknowledged. (A
    /// transfer shorter than the cached window never fills the burst: only
    /// what was sent of it counts.)
    pub fn outstanding(&self, s: &SendState) -> bool {
        self.end.is_some_and(|e| s.snd_una() < e.min(s.snd_max()))
    }

    /// The pacing rate while part of the burst is still to be sent.
    pub fn pacing_rate(&self, s: &SendState) -> Option<f64> {
        match self.end {
            Some(e) if s.snd_max() < e => self.rate,
            _ => None,
        }
    }
}
