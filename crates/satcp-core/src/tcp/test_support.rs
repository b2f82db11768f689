//! Helpers for unit tests that drive a single endpoint by hand, playing
//! its peer with hand-written segments.

use super::congestion::CongestionControl;
use super::recovery::SackRecovery;
use super::send_state::SendState;
use super::{EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};
use crate::engine::SimTime;
use crate::net::packet::{flags, SeqRange, TcpHeader};

/// A congestion control that never changes the window: the machinery's
/// own tests drive `SendState` without any variant (tcp/ knows none).
struct FixedWindow;

impl CongestionControl for FixedWindow {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.ssthresh
    }
    fn on_ack(&mut self, _s: &mut SendState, _acked: u64, _now: SimTime) {}
    fn on_timeout(&mut self, _s: &mut SendState) {}
}

/// A fresh sender state with segments of `mss` bytes (the endpoint's
/// defaults otherwise), for driving a congestion or recovery module by
/// hand.
pub fn send_state(mss: u32) -> SendState {
    let cfg = TcpConfig {
        mss,
        ..TcpConfig::default()
    };
    TcpEndpoint::new(&cfg, true, Box::new(FixedWindow), Box::new(SackRecovery)).tx
}

/// A data segment of `len` bytes at `seq` carrying an ACK (the ACK number
/// left 0).
pub fn data_segment(seq: u64, len: u32) -> TcpHeader {
    TcpHeader {
        seq,
        len,
        flags: flags::ACK,
        ..Default::default()
    }
}

/// The peer's pure ACK of everything below `ack`, advertising `window`.
pub fn peer_ack(ack: u64, window: u32) -> TcpHeader {
    TcpHeader {
        seq: 1,
        ack,
        flags: flags::ACK,
        window,
        ..Default::default()
    }
}

/// Takes a listening endpoint through a passive open: the peer's SYN at
/// time zero, its ACK of our SYN at `rtt`. What the endpoint sent on the
/// way (the SYN-ACK) is cleared from `out`.
pub fn accept(
    ep: &mut TcpEndpoint,
    mss: u32,
    window: u32,
    sack_permitted: bool,
    rtt: SimTime,
    out: &mut TcpOutput,
) {
    let syn = TcpHeader {
        flags: flags::SYN,
        window,
        syn_mss: mss,
        sack_permitted,
        ..Default::default()
    };
    ep.on_segment(&syn, SimTime::ZERO, out);
    ep.on_segment(&peer_ack(1, window), rtt, out);
    out.segments.clear();
}

/// A server (passive open, handshake RTT 0.5 s) that has sent `n` segments
/// of `cfg.mss` bytes, the whole of what it has to send, with cwnd = `n`
/// segments: the start of the hand-driven recovery tests. Its output is
/// cleared.
pub fn server_with_segments_out(cfg: &TcpConfig, parts: EndpointParts, n: u64) -> TcpEndpoint {
    let mss = cfg.mss as u64;
    let mut srv = TcpEndpoint::from_parts(cfg, parts);
    srv.listen();
    let mut out = TcpOutput::default();
    let now = SimTime::from_secs_f64(0.5);
    accept(&mut srv, cfg.mss, 65_535, true, now, &mut out);
    srv.tx.cwnd = n * mss;
    srv.write(n * mss, now, &mut out);
    assert_eq!(out.segments.len() as u64, n, "all {n} segments sent");
    srv
}

/// `server_with_segments_out` with as many segments again written and
/// waiting: cwnd is full, so none of them goes.
pub fn server_with_window_full(cfg: &TcpConfig, parts: EndpointParts, n: u64) -> TcpEndpoint {
    let mut srv = server_with_segments_out(cfg, parts, n);
    let mut out = TcpOutput::default();
    srv.write(n * cfg.mss as u64, SimTime::from_secs_f64(0.5), &mut out);
    assert!(out.segments.is_empty(), "cwnd is full");
    srv
}

/// The segment size of the hand-driven connection tests.
pub const MSS: u64 = 1000;

/// Segment k (1-based) of the stream after the SYN, `MSS` bytes each.
pub fn seg(k: u64) -> SeqRange {
    SeqRange::new(1 + (k - 1) * MSS, 1 + k * MSS)
}

/// The first sequence numbers of the data segments in `out`.
pub fn data_seqs(out: &TcpOutput) -> Vec<u64> {
    out.segments
        .iter()
        .filter(|(h, _)| h.len > 0)
        .map(|(h, _)| h.seq)
        .collect()
}

/// Feeds `srv` the peer's ACK of `ack` with SACK `blocks` at `t`; returns
/// the first sequence numbers of the data segments sent in answer.
pub fn feed_ack(srv: &mut TcpEndpoint, ack: u64, blocks: &[SeqRange], t: SimTime) -> Vec<u64> {
    let mut out = TcpOutput::default();
    let mut h = peer_ack(ack, 65_535);
    if !blocks.is_empty() {
        h.set_sack(blocks);
    }
    srv.on_segment(&h, t, &mut out);
    data_seqs(&out)
}
