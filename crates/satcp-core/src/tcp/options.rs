//! RFC 7323 options of one endpoint: window scaling (Sec. 2) and
//! timestamps (Sec. 3-4), negotiated in the handshake. Each is used only
//! when both SYNs carry it; the thesis defaults (neither offered, 65,535
//! bytes) leave every header as it was.

use super::config::TcpConfig;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{flags, TcpHeader, Timestamps};

/// The smallest shift that lets `buffer` be advertised in 16 bits
/// (RFC 7323 Sec. 2.3 allows at most 14).
pub fn window_shift(buffer: u32) -> u8 {
    let mut shift = 0;
    while shift < 14 && (buffer >> shift) > 65_535 {
        shift += 1;
    }
    shift
}

/// The timestamp clock: one tick per millisecond, starting at 1 so that a
/// TSecr of 0 always means "nothing to echo".
pub fn ts_clock(now: SimTime) -> u32 {
    (now.0 / 1_000_000) as u32 + 1
}

#[derive(Clone, Debug)]
pub struct TcpOptions {
    /// The shift we announce in our SYN, if we offer scaling.
    offer_shift: Option<u8>,
    offer_ts: bool,
    /// Shift applied to the windows we advertise / the peer advertises.
    pub rcv_shift: u8,
    pub snd_shift: u8,
    /// Both SYNs carried the timestamps option.
    pub ts_on: bool,
    /// TS.Recent and Last.ACK.sent (RFC 7323 Sec. 4.3).
    ts_recent: u32,
    last_ack_sent: u64,
    /// The window we advertise, bytes: the receive buffer as the
    /// negotiated shift can express it (at most 65,535 without scaling).
    pub adv_window: u32,
    /// The largest window we may advertise: `adv_window` with an empty
    /// buffer (it is less only while an application leaves bytes unread).
    window_limit: u32,
    rcv_buffer: u32,
}

impl TcpOptions {
    pub fn new(cfg: &TcpConfig) -> TcpOptions {
        let offer_shift = cfg.window_scaling.then(|| window_shift(cfg.rcv_buffer));
        TcpOptions {
            offer_shift,
            offer_ts: cfg.timestamps,
            rcv_shift: 0,
            snd_shift: 0,
            ts_on: false,
            ts_recent: 0,
            last_ack_sent: 0,
            adv_window: cfg.rcv_buffer.min(65_535),
            window_limit: cfg.rcv_buffer.min(65_535),
            rcv_buffer: cfg.rcv_buffer,
        }
    }

    /// The peer's SYN (or SYN-ACK) arrived: agree on what both offered.
    pub fn on_peer_syn(&mut self, h: &TcpHeader) {
        if let (Some(ours), Some(theirs)) = (self.offer_shift, h.wscale) {
            self.rcv_shift = ours;
            self.snd_shift = theirs.min(14);
            self.adv_window = (self.rcv_buffer >> ours) << ours;
            self.window_limit = self.adv_window;
        } else {
            self.offer_shift = None;
        }
        self.ts_on = self.offer_ts && h.ts.is_some();
        self.offer_ts = self.ts_on;
        if let Some(ts) = h.ts {
            self.ts_recent = ts.val;
        }
    }

    /// Options of our SYN or SYN-ACK (on a SYN-ACK only what the peer
    /// offered, since `on_peer_syn` came first).
    pub fn syn_options(&self, h: &mut TcpHeader) {
        h.wscale = self.offer_shift;
    }

    /// The window field of an outgoing segment (never scaled on a SYN).
    pub fn window_field(&self, syn: bool) -> u32 {
        if syn {
            self.rcv_buffer.min(65_535)
        } else {
            self.adv_window >> self.rcv_shift
        }
    }

    /// `unread` bytes wait in the receive buffer for the application: the
    /// window advertised is the room left, as the shift can express it.
    /// The right edge stays where it was as in-order data is delivered
    /// (rcv_nxt and `unread` grow together), so the window never shrinks.
    pub fn set_unread(&mut self, unread: u64) {
        let room = (self.window_limit as u64).saturating_sub(unread) as u32;
        self.adv_window = (room >> self.rcv_shift) << self.rcv_shift;
    }

    /// The window advertised with an empty buffer.
    pub fn window_limit(&self) -> u32 {
        self.window_limit
    }

    /// The peer's window in bytes.
    pub fn peer_window(&self, h: &TcpHeader) -> u64 {
        if h.has(flags::SYN) {
            h.window as u64
        } else {
            (h.window as u64) << self.snd_shift
        }
    }

    /// The timestamps option of an outgoing segment, if used; `ack` is the
    /// ACK field it carries (Last.ACK.sent).
    pub fn stamp(&mut self, h: &mut TcpHeader, now: SimTime) {
        if !(self.ts_on || (self.offer_ts && h.has(flags::SYN))) {
            return;
        }
        let echo = h.has(flags::ACK);
        h.ts = Some(Timestamps {
            val: ts_clock(now),
            ecr: if echo { self.ts_recent } else { 0 },
        });
        if echo {
            self.last_ack_sent = h.ack;
        }
    }

    /// An arriving segment: update TS.Recent (Sec. 4.3: from a segment
    /// that covers Last.ACK.sent, i.e. the one the next ACK answers).
    pub fn on_arrival(&mut self, h: &TcpHeader) {
        if let (true, Some(ts)) = (self.ts_on, h.ts) {
            if h.seq <= self.last_ack_sent && ts.val >= self.ts_recent {
                self.ts_recent = ts.val;
            }
        }
    }

    /// RTT from the timestamp echo of an ACK of new data (Sec. 4.1), if used.
    pub fn rtt_from_echo(&self, h: &TcpHeader, now: SimTime) -> Option<Duration> {
        let ts = h.ts.filter(|_| self.ts_on)?;
        if ts.ecr == 0 {
            return None;
        }
        let ticks = ts_clock(now).checked_sub(ts.ecr)?;
        Some(Duration::from_millis(ticks as u64))
    }

    /// Bytes the timestamps option takes from each segment's payload.
    pub fn payload_overhead(&self) -> u32 {
        if self.ts_on {
            crate::net::packet::TIMESTAMPS_OPTION_BYTES
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts() {
        assert_eq!(window_shift(65_535), 0);
        assert_eq!(window_shift(65_536), 1);
        assert_eq!(window_shift(1 << 20), 5);
        assert_eq!(window_shift(64 << 20), 11);
        assert_eq!(window_shift(u32::MAX), 14);
    }

    fn cfg(ws: bool, ts: bool, buf: u32) -> TcpConfig {
        TcpConfig {
            window_scaling: ws,
            timestamps: ts,
            rcv_buffer: buf,
            ..TcpConfig::default()
        }
    }

    #[test]
    fn scaling_needs_both_syns() {
        let mut a = TcpOptions::new(&cfg(true, false, 1 << 24));
        let mut syn = TcpHeader {
            flags: flags::SYN,
            ..Default::default()
        };
        a.syn_options(&mut syn);
        assert_eq!(syn.wscale, Some(9));
        assert_eq!(a.window_field(true), 65_535);
        // A peer that does not scale: no scaling, 65,535 at most.
        let mut b = a.clone();
        b.on_peer_syn(&TcpHeader::default());
        assert_eq!((b.rcv_shift, b.adv_window), (0, 65_535));
        // A peer that announces shift 3.
        let peer = TcpHeader {
            flags: flags::SYN | flags::ACK,
            wscale: Some(3),
            window: 65_535,
            ..Default::default()
        };
        a.on_peer_syn(&peer);
        assert_eq!((a.rcv_shift, a.snd_shift), (9, 3));
        assert_eq!(a.window_field(false), (1 << 24) >> 9);
        let ack = TcpHeader {
            flags: flags::ACK,
            window: 1000,
            ..Default::default()
        };
        assert_eq!(a.peer_window(&ack), 8000);
        assert_eq!(
            a.peer_window(&peer),
            65_535,
            "a SYN's window is never scaled"
        );
    }

    #[test]
    fn timestamps_echo_and_rtt() {
        let mut a = TcpOptions::new(&cfg(false, true, 65_535));
        let mut syn = TcpHeader {
            flags: flags::SYN,
            ..Default::default()
        };
        a.stamp(&mut syn, SimTime::ZERO);
        assert_eq!(syn.ts, Some(Timestamps { val: 1, ecr: 0 }));
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK,
            ts: Some(Timestamps { val: 77, ecr: 1 }),
            ..Default::default()
        };
        a.on_peer_syn(&synack);
        assert!(a.ts_on);
        let now = SimTime::from_secs_f64(0.6);
        assert_eq!(
            a.rtt_from_echo(&synack, now),
            Some(Duration::from_millis(600))
        );
        let mut ack = TcpHeader {
            flags: flags::ACK,
            ack: 1,
            ..Default::default()
        };
        a.stamp(&mut ack, now);
        assert_eq!(ack.ts, Some(Timestamps { val: 601, ecr: 77 }));
    }
}
