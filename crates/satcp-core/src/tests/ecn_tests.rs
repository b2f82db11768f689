//! The ECN state machine of RFC 3168 as the endpoint runs it: negotiation
//! in the handshake, ECT on new data, the receiver's ECE echo until CWR, and
//! the sender's one reduction per window through the congestion hook.

use crate::engine::SimTime;
use crate::net::packet::{flags, Ecn, TcpHeader};
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u32 = 1000;

fn endpoint(ecn: bool) -> TcpEndpoint {
    let cfg = TcpConfig {
        variant: "newreno".into(),
        mss: MSS,
        initial_window: 10,
        delayed_ack: false,
        ecn,
        ..Default::default()
    };
    crate::protocols::endpoint(&cfg).unwrap()
}

fn ecn_syn() -> TcpHeader {
    TcpHeader {
        flags: flags::SYN | flags::ECE | flags::CWR,
        window: 65_535,
        syn_mss: MSS,
        ..Default::default()
    }
}

#[test]
fn syn_offers_and_syn_ack_accepts() {
    let mut out = TcpOutput::default();
    let mut c = endpoint(true);
    c.connect(SimTime::ZERO, &mut out);
    let syn = out.segments[0].0;
    assert!(syn.has(flags::ECE) && syn.has(flags::CWR) && !syn.ect);
    out.segments.clear();
    let mut s = endpoint(true);
    s.listen();
    s.on_segment(&syn, SimTime::ZERO, &mut out);
    let syn_ack = out.segments[0].0;
    assert!(syn_ack.has(flags::ECE) && !syn_ack.has(flags::CWR));
    // Without ECN at the server the SYN-ACK says no.
    out.segments.clear();
    let mut plain = endpoint(false);
    plain.listen();
    plain.on_segment(&syn, SimTime::ZERO, &mut out);
    assert!(!out.segments[0].0.has(flags::ECE));
    // The client's SYN-ACK with ECE is negotiation, not congestion.
    out.segments.clear();
    c.on_segment(&syn_ack, SimTime::ZERO, &mut out);
    assert_eq!(c.stats.ecn_reductions, 0);
}

/// A server that accepted an ECN-setup SYN and has `n` segments out.
fn sending_server(n: u64) -> (TcpEndpoint, TcpOutput) {
    let mut out = TcpOutput::default();
    let mut s = endpoint(true);
    s.listen();
    s.on_segment(&ecn_syn(), SimTime::ZERO, &mut out);
    s.on_segment(&peer_ack(1, 65_535), SimTime(100), &mut out);
    out.segments.clear();
    s.write(n * MSS as u64, SimTime(100), &mut out);
    (s, out)
}

#[test]
fn new_data_is_ect_and_retransmissions_are_not() {
    let (mut s, mut out) = sending_server(10);
    assert_eq!(out.segments.len(), 10);
    assert!(out.segments.iter().all(|(h, _)| h.ect));
    // A timeout resends without ECT.
    out.segments.clear();
    s.on_timer(SimTime::from_secs_f64(10.0), &mut out);
    assert!(!out.segments.is_empty());
    assert!(out.segments.iter().all(|(h, _)| !h.ect));
    // Without ECN nothing is ECT.
    let mut plain = endpoint(false);
    let mut out = TcpOutput::default();
    plain.listen();
    accept(&mut plain, MSS, 65_535, false, SimTime(100), &mut out);
    plain.write(5 * MSS as u64, SimTime(100), &mut out);
    assert!(out.segments.iter().all(|(h, _)| !h.ect));
}

#[test]
fn echo_reduces_once_per_window_and_sets_cwr() {
    let (mut s, mut out) = sending_server(10);
    let cwnd = s.tx.cwnd;
    let mut ece = peer_ack(1 + MSS as u64, 65_535);
    ece.flags |= flags::ECE;
    out.segments.clear();
    s.on_segment(&ece, SimTime(200), &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert!(s.tx.cwnd < cwnd);
    assert_eq!(s.tx.cwnd, s.tx.ssthresh);
    // More echoes for the same window change nothing.
    let after = (s.tx.cwnd, s.tx.ssthresh);
    for k in 2..5 {
        ece.ack = 1 + k * MSS as u64;
        s.on_segment(&ece, SimTime(300), &mut out);
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    assert!(s.tx.ssthresh == after.1);
    // The first new data segment after the reduction carries CWR, once.
    out.segments.clear();
    s.write(5 * MSS as u64, SimTime(300), &mut out);
    s.on_segment(
        &peer_ack(1 + 8 * MSS as u64, 65_535),
        SimTime(400),
        &mut out,
    );
    let cwr: Vec<_> = out
        .segments
        .iter()
        .filter(|(h, _)| h.has(flags::CWR))
        .collect();
    assert_eq!(cwr.len(), 1);
    assert!(cwr[0].0.len > 0);
    // An echo after the window in flight at the reduction is acknowledged
    // is a new signal.
    let mut ece = peer_ack(1 + 11 * MSS as u64, 65_535);
    ece.flags |= flags::ECE;
    s.on_segment(&ece, SimTime(500), &mut out);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn receiver_echoes_ce_until_cwr() {
    let mut out = TcpOutput::default();
    let mut r = endpoint(true);
    r.connect(SimTime::ZERO, &mut out);
    let syn_ack = TcpHeader {
        flags: flags::SYN | flags::ACK | flags::ECE,
        ack: 1,
        window: 65_535,
        syn_mss: MSS,
        ..Default::default()
    };
    r.on_segment(&syn_ack, SimTime(100), &mut out);
    out.segments.clear();
    let data = |seq: u64, f: u8| TcpHeader {
        seq,
        len: MSS,
        ack: 1,
        flags: flags::ACK | f,
        window: 65_535,
        ..Default::default()
    };
    r.on_segment_ecn(&data(1, 0), Ecn::Ect, SimTime(200), &mut out);
    assert!(!out.segments.last().unwrap().0.has(flags::ECE));
    r.on_segment_ecn(&data(1001, 0), Ecn::Ce, SimTime(210), &mut out);
    assert!(out.segments.last().unwrap().0.has(flags::ECE));
    assert_eq!(r.stats.ce_marks_received, 1);
    r.on_segment_ecn(&data(2001, 0), Ecn::Ect, SimTime(220), &mut out);
    assert!(out.segments.last().unwrap().0.has(flags::ECE));
    r.on_segment_ecn(&data(3001, flags::CWR), Ecn::Ect, SimTime(230), &mut out);
    assert!(!out.segments.last().unwrap().0.has(flags::ECE));
    // Pure ACKs are never ECT.
    assert!(out.segments.iter().all(|(h, _)| !h.ect));
}

#[test]
fn ce_is_ignored_without_negotiation() {
    let mut out = TcpOutput::default();
    let mut r = endpoint(false);
    r.listen();
    accept(&mut r, MSS, 65_535, false, SimTime(100), &mut out);
    let data = TcpHeader {
        seq: 1,
        len: MSS,
        ack: 1,
        flags: flags::ACK,
        window: 65_535,
        ..Default::default()
    };
    r.on_segment_ecn(&data, Ecn::Ce, SimTime(200), &mut out);
    assert_eq!(r.stats.ce_marks_received, 0);
    assert!(out.segments.iter().all(|(h, _)| !h.has(flags::ECE)));
}
