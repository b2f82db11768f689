//! Tests of the sender hooks: through two endpoints joined by an ideal wire
//! (fixed one-way delay, no loss), pacing and extra segments; through a
//! server driven by hand-made ACKs, TCP-ADaLR's timer margin and its limit
//! on retransmissions after a timeout.

use crate::engine::{Duration, SimTime};
use crate::net::packet::{Priority, TcpHeader};
use crate::protocols::reno::Reno;
use crate::tcp::congestion::CongestionControl;
use crate::tcp::recovery::NewRenoRecovery;
use crate::tcp::send_state::{ExtraSegment, SendState};
use crate::tcp::{Notice, TcpConfig, TcpEndpoint, TcpOutput};

/// Reno that paces at a fixed rate and asks for one low-priority extra
/// segment per ACK: a stand-in for the variants that will use the hooks.
struct TestCc {
    inner: Reno,
    rate: Option<f64>,
    extra_per_ack: bool,
}

impl CongestionControl for TestCc {
    fn name(&self) -> &'static str {
        "test"
    }
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.inner.on_ack(s, acked, now);
        if self.extra_per_ack {
            s.extra_mut().push(ExtraSegment {
                priority: Priority::Low,
                ext_flags: 1,
            });
        }
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.inner.ssthresh(s)
    }
    fn on_timeout(&mut self, s: &mut SendState) {
        self.inner.on_timeout(s);
    }
    fn pacing_rate(&self, _s: &SendState) -> Option<f64> {
        self.rate
    }
}

struct Sent {
    at: SimTime,
    from_server: bool,
    h: TcpHeader,
    prio: Priority,
}

/// An ideal wire of fixed one-way delay between a client and a server
/// endpoint, logging every segment either of them emits.
struct Wire {
    delay: Duration,
    /// (arrival, to_server, header), in order of emission.
    in_flight: Vec<(SimTime, bool, TcpHeader)>,
    log: Vec<Sent>,
    /// The server just got connected: the test writes its data.
    server_connected: bool,
}

impl Wire {
    /// Logs what an endpoint emitted and puts it on the wire.
    fn ship(&mut self, out: &mut TcpOutput, from_server: bool, now: SimTime) {
        for (h, prio) in out.segments.drain(..) {
            self.log.push(Sent {
                at: now,
                from_server,
                h,
                prio,
            });
            self.in_flight.push((now + self.delay, !from_server, h));
        }
        if from_server && out.notices.contains(&Notice::Connected) {
            self.server_connected = true;
        }
        out.notices.clear();
    }
}

/// Runs client <-> server over a wire of one-way `delay` until quiet;
/// the server sends `bytes` once connected. Returns every segment sent.
fn run_pair(cc: TestCc, bytes: u64, delay: Duration) -> (Vec<Sent>, TcpEndpoint) {
    let cfg = TcpConfig {
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut cli = TcpEndpoint::new(
        &cfg,
        false,
        Box::new(Reno::new()),
        Box::new(NewRenoRecovery),
    );
    let mut srv = TcpEndpoint::new(&cfg, false, Box::new(cc), Box::new(NewRenoRecovery));
    srv.listen();
    let mut wire = Wire {
        delay,
        in_flight: Vec::new(),
        log: Vec::new(),
        server_connected: false,
    };
    let mut now = SimTime::ZERO;
    let mut out = TcpOutput::default();
    cli.connect(now, &mut out);
    wire.ship(&mut out, false, now);
    for _ in 0..100_000 {
        if std::mem::take(&mut wire.server_connected) {
            srv.write(bytes, now, &mut out);
            wire.ship(&mut out, true, now);
        }
        // Next event: a wire arrival or a timer.
        wire.in_flight.sort_by_key(|w| w.0);
        let next_wire = wire.in_flight.first().map(|w| w.0);
        let next = [next_wire, cli.next_deadline(), srv.next_deadline()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { break };
        now = t;
        let from_server = if next_wire == Some(t) {
            let (_, to_server, h) = wire.in_flight.remove(0);
            let ep = if to_server { &mut srv } else { &mut cli };
            ep.on_segment(&h, now, &mut out);
            to_server
        } else if cli.next_deadline() == Some(t) {
            cli.on_timer(now, &mut out);
            false
        } else {
            srv.on_timer(now, &mut out);
            true
        };
        wire.ship(&mut out, from_server, now);
        if cli.stats.bytes_delivered >= bytes && wire.in_flight.is_empty() {
            break;
        }
    }
    assert_eq!(cli.stats.bytes_delivered, bytes, "transfer incomplete");
    (wire.log, srv)
}

#[test]
fn pacing_spaces_segments_at_the_rate() {
    let rate = 100_000.0; // bytes per second: a 1,500-byte packet every 15 ms
    let cc = TestCc {
        inner: Reno::new(),
        rate: Some(rate),
        extra_per_ack: false,
    };
    let (log, _) = run_pair(cc, 40 * 1460, Duration::from_millis(50));
    let times: Vec<SimTime> = log
        .iter()
        .filter(|s| s.from_server && s.h.len > 0)
        .map(|s| s.at)
        .collect();
    assert_eq!(times.len(), 40);
    for w in times.windows(2) {
        let gap = (w[1] - w[0]).as_secs_f64();
        assert!(gap >= 0.015 - 1e-9, "gap {gap}");
    }
    // Without pacing the first window of 2 segments leaves back to back.
    let cc = TestCc {
        inner: Reno::new(),
        rate: None,
        extra_per_ack: false,
    };
    let (log, _) = run_pair(cc, 40 * 1460, Duration::from_millis(50));
    let data: Vec<&Sent> = log
        .iter()
        .filter(|s| s.from_server && s.h.len > 0)
        .collect();
    assert_eq!(data[0].at, data[1].at);
}

#[test]
fn extra_segments_copy_the_last_data_segment_outside_the_window() {
    let cc = TestCc {
        inner: Reno::new(),
        rate: None,
        extra_per_ack: true,
    };
    let (log, srv) = run_pair(cc, 10 * 1460, Duration::from_millis(50));
    let extras: Vec<usize> = (0..log.len())
        .filter(|&i| log[i].from_server && log[i].prio == Priority::Low)
        .collect();
    assert!(!extras.is_empty());
    for &i in &extras {
        let e = &log[i];
        assert_eq!(e.h.ext.flags, 1);
        // A copy of the data segment sent last before it.
        let last_data = log[..i]
            .iter()
            .rfind(|s| s.from_server && s.h.len > 0 && s.prio == Priority::High)
            .unwrap();
        assert_eq!((e.h.seq, e.h.len), (last_data.h.seq, last_data.h.len));
    }
    assert_eq!(srv.stats.extra_segments_sent, extras.len() as u64);
    // Extra segments do not enter the retransmission queue or sequence space.
    assert_eq!(srv.tx.snd_max(), 1 + 10 * 1460);
}

// ----- TCP-ADaLR's timer hooks, on a server driven by hand-made ACKs -----

/// A server endpoint of a registered variant, connected by a client whose
/// segments the test writes: the test decides what is acknowledged when.
struct Driven {
    srv: TcpEndpoint,
    now: SimTime,
    out: TcpOutput,
}

const MSS: u64 = 1460;

impl Driven {
    /// Handshake with an RTT sample of `rtt_s`, then `bytes` written.
    fn connect(variant: &str, rtt_s: f64, bytes: u64, cwnd_segs: Option<u64>) -> Driven {
        let cfg = TcpConfig {
            variant: variant.into(),
            delayed_ack: false,
            ..TcpConfig::default()
        };
        let sack = variant.ends_with("sack");
        let mut d = Driven {
            srv: crate::protocols::endpoint(&cfg).expect("registered variant"),
            now: SimTime::ZERO,
            out: TcpOutput::default(),
        };
        d.srv.listen();
        let syn = TcpHeader {
            flags: crate::net::packet::flags::SYN,
            window: 65_535,
            syn_mss: MSS as u32,
            sack_permitted: sack,
            ..Default::default()
        };
        d.deliver(syn);
        d.now = SimTime::from_secs_f64(rtt_s);
        d.ack(1);
        if let Some(n) = cwnd_segs {
            d.srv.tx.cwnd = n * MSS;
        }
        d.srv.write(bytes, d.now, &mut d.out);
        d
    }

    fn deliver(&mut self, h: TcpHeader) {
        self.srv.on_segment(&h, self.now, &mut self.out);
    }

    /// A client ACK (window 65,535, no SACK blocks).
    fn ack(&mut self, ack: u64) {
        self.deliver(TcpHeader {
            seq: 1,
            ack,
            flags: crate::net::packet::flags::ACK,
            window: 65_535,
            ..Default::default()
        });
    }

    /// Fires the server's next timer (asserting it is there).
    fn fire(&mut self) {
        self.now = self.srv.next_deadline().expect("a timer is armed");
        self.srv.on_timer(self.now, &mut self.out);
    }

    /// Data segments sent since the last call: (seq, len).
    fn take(&mut self) -> Vec<(u64, u64)> {
        self.out.notices.clear();
        self.out
            .segments
            .drain(..)
            .filter(|(h, _)| h.len > 0)
            .map(|(h, _)| (h.seq, h.len as u64))
            .collect()
    }

    /// Time to the server's next timer.
    fn timer_in(&self) -> Duration {
        self.srv.next_deadline().expect("a timer is armed") - self.now
    }
}

/// Sec. 5.2.3: the timer restarted by an expiry is set 200 ms later than
/// the backed-off RTO; the timer started or restarted by new data is not.
#[test]
fn adalr_restarts_the_timer_after_a_timeout_200_ms_later() {
    let run = |variant: &str| {
        let mut d = Driven::connect(variant, 0.55, 10 * MSS, None);
        assert_eq!(d.take().len(), 2, "initial window");
        let armed = d.timer_in(); // started by new data
        d.fire();
        assert_eq!(d.take(), vec![(1, MSS)], "first segment resent");
        let after_first = d.timer_in();
        d.fire();
        assert_eq!(d.take(), vec![(1, MSS)], "resent again");
        let after_second = d.timer_in();
        // The resent segment is acknowledged: new data restarts the timer.
        d.now += Duration::from_millis(550);
        d.ack(1 + MSS);
        d.take();
        let after_ack = d.timer_in();
        (
            armed,
            after_first,
            after_second,
            after_ack,
            d.srv.tx.rtt().rto(),
        )
    };
    let (sack, adalr) = (run("sack"), run("adalr-sack"));
    let nr = run("adalr-newreno");
    println!("sack {sack:?}\nadalr-sack {adalr:?}");
    // RTO after one sample of 0.55 s: 0.55 + 4 x 0.275 = 1.65 s.
    assert_eq!(sack.0, Duration::from_millis(1650));
    assert_eq!(sack.1, Duration::from_millis(3300));
    assert_eq!(sack.2, Duration::from_millis(6600));
    let margin = Duration::from_millis(200);
    for v in [adalr, nr] {
        assert_eq!(v.0, sack.0, "timer started by new data");
        assert_eq!(v.1, sack.1 + margin);
        assert_eq!(v.2, sack.2 + margin);
        assert_eq!(v.3, sack.3, "timer restarted by new data");
        assert_eq!(v.3, v.4, "no margin on the backed-off RTO");
    }
}

/// Sec. 5.2.3: while recovering from a timeout at most three presumed-lost
/// segments leave per transmission round. Twenty segments are lost at
/// once; after the timeout every ACK covers all that was resent (a stretch
/// ACK), so slow start lets SACK resend cwnd segments per round, while
/// TCP-ADaLR resends at most three.
#[test]
fn adalr_resends_at_most_three_segments_per_round_after_a_timeout() {
    let run = |variant: &str| {
        let mut d = Driven::connect(variant, 0.55, 40 * MSS, Some(20));
        assert_eq!(d.take().len(), 20);
        let recover = 1 + 20 * MSS;
        d.fire();
        let mut rounds = Vec::new();
        let mut resent = Vec::new();
        let new_after = loop {
            let segs = d.take();
            let rtx: Vec<_> = segs.iter().filter(|s| s.0 < recover).collect();
            if rtx.is_empty() {
                break segs.len();
            }
            rounds.push(rtx.len());
            resent.extend(rtx.iter().map(|s| s.0));
            let end = segs.iter().map(|s| s.0 + s.1).max().unwrap();
            d.now += Duration::from_millis(550);
            d.ack(end);
        };
        let expected: Vec<u64> = (0..20).map(|i| 1 + i * MSS).collect();
        assert_eq!(
            resent, expected,
            "{variant}: each lost segment once, in order"
        );
        (rounds, new_after)
    };
    let (sack, _) = run("sack");
    println!("sack: retransmissions per round {sack:?}");
    assert_eq!(sack, vec![1, 2, 3, 4, 5, 5]);
    for v in ["adalr-sack", "adalr-newreno"] {
        let (rounds, new_after) = run(v);
        println!("{v}: retransmissions per round {rounds:?}, then {new_after} new segments");
        assert_eq!(rounds, vec![1, 2, 3, 3, 3, 3, 3, 2]);
        // The limit ends with the timeout's recovery.
        assert!(new_after > 3, "{new_after}");
    }
}
