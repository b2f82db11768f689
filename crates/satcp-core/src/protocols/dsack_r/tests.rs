//! DSACK-R's rules on a server driven by hand-made ACKs (as
//! `tests/undo_tests.rs`): ten segments out with cwnd = 10 segments,
//! segment 1 delayed; three duplicate ACKs SACKing 2-4 trigger a fast
//! retransmission; the ACK of everything ends recovery; a DSACK for
//! segment 1 then shows the retransmission spurious.

use super::*;
use crate::net::packet::SeqRange;
use crate::tcp::test_support::{peer_ack, seg, server_with_segments_out, MSS};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

fn cfg() -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        dsack: true,
        ..TcpConfig::default()
    }
}

/// The server after the fast retransmission of segment 1 and the ACK of
/// all ten segments (at 1.01 s); the handshake's RTT is 0.5 s. Returns it
/// with its (cwnd, ssthresh) just before the cut.
pub(crate) fn after_recovery(parts: EndpointParts) -> (TcpEndpoint, (u64, u64)) {
    let mut srv = server_with_segments_out(&cfg(), parts, 10);
    let mut out = TcpOutput::default();
    let before = (srv.tx.cwnd, srv.tx.ssthresh);
    let now = SimTime::from_secs_f64(1.0);
    for k in 2..=4 {
        let mut h = peer_ack(1, 65_535);
        h.set_sack(&[SeqRange::new(seg(2).start, seg(k).end)]);
        srv.on_segment(&h, now, &mut out);
    }
    assert!(srv.tx.in_recovery(), "fast retransmit");
    srv.on_segment(
        &peer_ack(seg(10).end, 65_535),
        SimTime::from_secs_f64(1.01),
        &mut out,
    );
    assert!(!srv.tx.in_recovery(), "recovery over");
    (srv, before)
}

fn dsack_r() -> EndpointParts {
    let c = DsackRConfig::default();
    c.endpoint(Recovery::Sack)
}

fn dsack_for_segment_1(srv: &mut TcpEndpoint, at: f64) {
    let mut h = peer_ack(seg(10).end, 65_535);
    h.set_sack(&[seg(1)]);
    srv.on_segment(&h, SimTime::from_secs_f64(at), &mut TcpOutput::default());
}

/// The paper's response: ssthresh = cwnd before the cut, cwnd left where
/// recovery put it (slow start regrows it), not Linux's cwnd restore.
#[test]
fn undo_restores_ssthresh_to_the_cwnd_before_the_cut_and_leaves_cwnd() {
    let (mut srv, (cwnd_before, ssthresh_before)) = after_recovery(dsack_r());
    assert_eq!(cwnd_before, 10 * MSS);
    assert_eq!(ssthresh_before, 65_535);
    assert_eq!(srv.tx.ssthresh, 5 * MSS, "halved");
    let cwnd = srv.tx.cwnd;
    assert!(cwnd < 10 * MSS);
    // 0.1 s after recovery ended, well within one SRTT (0.5 s).
    dsack_for_segment_1(&mut srv, 1.11);
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(srv.tx.ssthresh, 10 * MSS, "ssthresh = cwnd before the cut");
    assert_eq!(srv.tx.cwnd, cwnd, "cwnd unchanged");
    assert!(srv.tx.in_slow_start());
    assert_eq!(
        srv.cc_counters(),
        vec![("undos", 1), ("late_window_expired", 0)]
    );
}

/// A DSACK more than `late_dsack_srtts` SRTTs after recovery ended comes
/// too late: the episode can no longer be undone.
#[test]
fn a_dsack_after_the_late_window_does_not_undo() {
    let (mut srv, _) = after_recovery(dsack_r());
    // An ACK 0.6 s after the end of recovery (SRTT 0.5 s) closes it.
    srv.on_segment(
        &peer_ack(seg(10).end, 65_535),
        SimTime::from_secs_f64(1.61),
        &mut TcpOutput::default(),
    );
    dsack_for_segment_1(&mut srv, 1.62);
    assert_eq!(srv.stats.spurious_retransmissions, 1);
    assert_eq!(srv.stats.undos, 0);
    assert_eq!(srv.tx.ssthresh, 5 * MSS);
    assert_eq!(
        srv.cc_counters(),
        vec![("undos", 0), ("late_window_expired", 1)]
    );
}

/// With `late_dsack_srtts` large, the same late DSACK still undoes.
#[test]
fn the_late_window_is_a_setting() {
    let c = DsackRConfig {
        late_dsack_srtts: 4.0,
    };
    let parts = c.endpoint(Recovery::Sack);
    let (mut srv, _) = after_recovery(parts);
    dsack_for_segment_1(&mut srv, 1.62);
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(srv.tx.ssthresh, 10 * MSS);
}

/// Timeouts are not undone, even if every segment they resent is DSACKed.
#[test]
fn a_timeout_is_not_undone() {
    let mut srv = server_with_segments_out(&cfg(), dsack_r(), 2);
    let mut out = TcpOutput::default();
    let deadline = srv.next_deadline().unwrap();
    srv.on_timer(deadline, &mut out);
    assert_eq!(srv.stats.timeouts, 1);
    assert!(!srv.tx.undo_state().armed, "a timeout disarms the undo");
    let ssthresh = srv.tx.ssthresh;
    let t = deadline + Duration::from_secs_f64(0.01);
    let mut h = peer_ack(seg(2).end, 65_535);
    h.set_sack(&[seg(1)]);
    srv.on_segment(&h, t, &mut out);
    assert_eq!(srv.stats.undos, 0);
    assert_eq!(srv.tx.ssthresh, ssthresh);
}

#[test]
fn settings_are_checked() {
    let e = crate::protocols::test_support::settings_error;
    assert_eq!(
        e("dsack-r", serde_json::json!({"late_dsack_srtts": -1.0})),
        Some("dsackr.late_dsack_srtts".into())
    );
}
