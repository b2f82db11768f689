//! Which segment an ACK of several segments times (RFC 6298 with Karn's
//! rule, no timestamps): the RTO estimator takes the effective RTT, from
//! the oldest segment acknowledged, so that the delay of a delayed ACK is in
//! it (RFC 1323 Sec. 3.4 case (A)); congestion control gets the RTT of the
//! newest one, without that delay.

use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::{Duration, SimTime};
use crate::protocols::reno::Reno;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u64 = 1000;

/// Reno that notes the RTT samples congestion control is given.
struct Recording {
    inner: Reno,
    samples: Rc<RefCell<Vec<Duration>>>,
}

impl CongestionControl for Recording {
    fn name(&self) -> &'static str {
        "recording"
    }
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.inner.on_ack(s, acked, now);
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.inner.ssthresh(s)
    }
    fn on_timeout(&mut self, s: &mut SendState) {
        self.inner.on_timeout(s);
    }
    fn on_event(&mut self, _s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        if let CcEvent::RttSample(rtt) = ev {
            self.samples.borrow_mut().push(rtt);
        }
        Reply::Default
    }
}

fn t(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

/// A server connected at 0.5 s (the handshake's sample: 0.5 s) that sends
/// one segment at 1.0 s and one at 1.1 s.
fn two_segments_apart() -> (TcpEndpoint, Rc<RefCell<Vec<Duration>>>) {
    let cfg = TcpConfig {
        mss: MSS as u32,
        ..TcpConfig::default()
    };
    let samples = Rc::new(RefCell::new(Vec::new()));
    let cc = Recording {
        inner: Reno::new(),
        samples: samples.clone(),
    };
    let parts = EndpointParts::new(Box::new(cc), Box::new(SackRecovery), true);
    let mut srv = TcpEndpoint::from_parts(&cfg, parts);
    srv.listen();
    let mut out = TcpOutput::default();
    accept(&mut srv, MSS as u32, 65_535, true, t(0.5), &mut out);
    srv.write(MSS, t(1.0), &mut out);
    srv.write(MSS, t(1.1), &mut out);
    assert_eq!(out.segments.iter().filter(|(h, _)| h.len > 0).count(), 2);
    (srv, samples)
}

#[test]
fn delayed_ack_of_two_segments_times_the_older_for_the_rto() {
    let (mut srv, samples) = two_segments_apart();
    let mut out = TcpOutput::default();
    // One (delayed) ACK of both at 1.7 s: 0.7 s after the first segment
    // left, 0.6 s after the second.
    srv.on_segment(&peer_ack(1 + 2 * MSS, 65_535), t(1.7), &mut out);
    let got = srv.tx.rtt().last_sample().unwrap().as_secs_f64();
    assert!((got - 0.7).abs() < 1e-9, "RTO estimator sample {got}");
    // SRTT = 7/8 x 0.5 + 1/8 x 0.7 (the handshake's 0.5 s came first).
    let srtt = srv.tx.rtt().srtt().unwrap().as_secs_f64();
    assert!((srtt - 0.525).abs() < 1e-9, "SRTT {srtt}");
    let cc: Vec<f64> = samples.borrow().iter().map(|d| d.as_secs_f64()).collect();
    assert_eq!(cc.len(), 2, "{cc:?}"); // the handshake's and this ACK's
    assert!(
        (cc[1] - 0.6).abs() < 1e-9,
        "congestion control's sample {cc:?}"
    );
}

#[test]
fn one_segment_per_ack_gives_the_same_sample_to_both() {
    let (mut srv, samples) = two_segments_apart();
    let mut out = TcpOutput::default();
    srv.on_segment(&peer_ack(1 + MSS, 65_535), t(1.55), &mut out);
    let got = srv.tx.rtt().last_sample().unwrap().as_secs_f64();
    assert!((got - 0.55).abs() < 1e-9, "{got}");
    assert!((samples.borrow()[1].as_secs_f64() - 0.55).abs() < 1e-9);
}
