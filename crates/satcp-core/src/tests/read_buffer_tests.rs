//! A receive buffer the application empties when it can
//! (`TcpEndpoint::hold_delivered`, as a proxy's leg): the advertised window
//! is the room left, shrinks to zero as the buffer fills, and reopens with
//! a window update when the application takes the bytes.

use crate::engine::SimTime;
use crate::net::packet::{flags, TcpHeader};
use crate::tcp::test_support::{accept, data_segment};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u32 = 1000;
const BUFFER: u32 = 8000;

fn holding_receiver() -> (TcpEndpoint, TcpOutput) {
    let cfg = TcpConfig {
        variant: "newreno".into(),
        mss: MSS,
        rcv_buffer: BUFFER,
        delayed_ack: false,
        ..Default::default()
    };
    let mut ep = crate::protocols::endpoint(&cfg).unwrap();
    ep.hold_delivered();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(
        &mut ep,
        MSS,
        65_535,
        false,
        SimTime::from_secs_f64(0.1),
        &mut out,
    );
    (ep, out)
}

/// The window fields of the pure ACKs in `out`, taken out.
fn acks(out: &mut TcpOutput) -> Vec<u32> {
    let w = out
        .segments
        .iter()
        .filter(|(h, _)| h.has(flags::ACK) && h.len == 0)
        .map(|(h, _)| h.window)
        .collect();
    out.segments.clear();
    w
}

fn data(ep: &mut TcpEndpoint, k: u64, out: &mut TcpOutput) {
    let h: TcpHeader = data_segment(1 + k * MSS as u64, MSS);
    ep.on_segment(&h, SimTime::from_secs_f64(0.2 + k as f64 * 0.001), out);
}

#[test]
fn the_window_shrinks_by_what_is_held_and_closes_when_the_buffer_is_full() {
    let (mut ep, mut out) = holding_receiver();
    let mut windows = Vec::new();
    for k in 0..8 {
        data(&mut ep, k, &mut out);
        windows.extend(acks(&mut out));
    }
    assert_eq!(
        windows,
        vec![7000, 6000, 5000, 4000, 3000, 2000, 1000, 0],
        "each ACK advertises the room left"
    );
    assert_eq!(ep.unread(), 8000);
    assert_eq!(ep.advertised_window(), 0);
}

#[test]
fn taking_bytes_from_a_full_buffer_sends_a_window_update() {
    let (mut ep, mut out) = holding_receiver();
    for k in 0..8 {
        data(&mut ep, k, &mut out);
    }
    out.segments.clear();
    let now = SimTime::from_secs_f64(1.0);
    ep.set_unread(4000, now, &mut out);
    assert_eq!(
        acks(&mut out),
        vec![4000],
        "the zero window reopens at once"
    );
    // From 4000 to 5000 bytes: the window the peer may use was already
    // half the buffer, so no update goes out for it (Linux's rule).
    ep.set_unread(3000, now, &mut out);
    assert_eq!(acks(&mut out), Vec::<u32>::new());
    assert_eq!(ep.advertised_window(), 5000);
    // The next ACK carries it.
    data(&mut ep, 8, &mut out);
    assert_eq!(acks(&mut out), vec![4000]);
}

#[test]
fn an_endpoint_that_reads_at_once_keeps_the_whole_window() {
    let cfg = TcpConfig {
        variant: "newreno".into(),
        mss: MSS,
        rcv_buffer: BUFFER,
        delayed_ack: false,
        ..Default::default()
    };
    let mut ep = crate::protocols::endpoint(&cfg).unwrap();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(
        &mut ep,
        MSS,
        65_535,
        false,
        SimTime::from_secs_f64(0.1),
        &mut out,
    );
    for k in 0..8 {
        data(&mut ep, k, &mut out);
        assert_eq!(acks(&mut out), vec![BUFFER]);
    }
    ep.set_unread(5000, SimTime::from_secs_f64(1.0), &mut out);
    assert_eq!(ep.advertised_window(), BUFFER, "set_unread is ignored");
}
