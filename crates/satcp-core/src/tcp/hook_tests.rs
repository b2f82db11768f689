//! Tests of the sender hooks through two endpoints joined by an ideal wire
//! (fixed one-way delay, no loss): pacing and extra segments.

use super::congestion::CongestionControl;
use super::send_state::{ExtraSegment, SendState};
use super::{Notice, TcpConfig, TcpEndpoint, TcpOutput};
use crate::engine::{Duration, SimTime};
use crate::net::packet::{Priority, TcpHeader};
use crate::protocols::newreno::NewRenoRecovery;
use crate::protocols::reno::Reno;

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
            s.extra.push(ExtraSegment {
                priority: Priority::Low,
                marks: 1,
            });
        }
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

type Wire = Vec<(SimTime, bool, TcpHeader)>; // (arrival, to_server, header)

/// Logs what an endpoint emitted and puts it on the wire; returns whether
/// the server just got connected (so the test writes the data).
fn ship(
    log: &mut Vec<Sent>,
    wire: &mut Wire,
    delay: Duration,
    out: &mut TcpOutput,
    from_server: bool,
    now: SimTime,
    written: &mut bool,
) {
    for (h, prio) in out.segments.drain(..) {
        log.push(Sent {
            at: now,
            from_server,
            h,
            prio,
        });
        wire.push((now + delay, !from_server, h));
    }
    if from_server && out.notices.contains(&Notice::Connected) {
        *written = true;
    }
    out.notices.clear();
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
    let mut log = Vec::new();
    let mut wire: Wire = Vec::new();
    let mut now = SimTime::ZERO;
    let mut out = TcpOutput::default();
    cli.connect(now, &mut out);
    let mut written = false;
    for _ in 0..100_000 {
        ship(
            &mut log,
            &mut wire,
            delay,
            &mut out,
            false,
            now,
            &mut written,
        );
        if written {
            written = false;
            srv.write(bytes, now, &mut out);
            ship(
                &mut log,
                &mut wire,
                delay,
                &mut out,
                true,
                now,
                &mut written,
            );
        }
        // Next event: a wire arrival or a timer.
        wire.sort_by_key(|w| w.0);
        let next_wire = wire.first().map(|w| w.0);
        let next = [next_wire, cli.next_deadline(), srv.next_deadline()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { break };
        now = t;
        if next_wire == Some(t) {
            let (_, to_server, h) = wire.remove(0);
            if to_server {
                srv.on_segment(&h, now, &mut out);
                ship(
                    &mut log,
                    &mut wire,
                    delay,
                    &mut out,
                    true,
                    now,
                    &mut written,
                );
            } else {
                cli.on_segment(&h, now, &mut out);
                ship(
                    &mut log,
                    &mut wire,
                    delay,
                    &mut out,
                    false,
                    now,
                    &mut written,
                );
            }
        } else if cli.next_deadline() == Some(t) {
            cli.on_timer(now, &mut out);
            ship(
                &mut log,
                &mut wire,
                delay,
                &mut out,
                false,
                now,
                &mut written,
            );
        } else {
            srv.on_timer(now, &mut out);
            ship(
                &mut log,
                &mut wire,
                delay,
                &mut out,
                true,
                now,
                &mut written,
            );
        }
        if written {
            written = false;
            srv.write(bytes, now, &mut out);
            ship(
                &mut log,
                &mut wire,
                delay,
                &mut out,
                true,
                now,
                &mut written,
            );
        }
        if cli.stats.bytes_delivered >= bytes && wire.is_empty() {
            break;
        }
    }
    assert_eq!(cli.stats.bytes_delivered, bytes, "transfer incomplete");
    (log, srv)
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
        assert_eq!(e.h.marks, 1);
        // A copy of the data segment sent last before it.
        let last_data = log[..i]
            .iter()
            .rfind(|s| s.from_server && s.h.len > 0 && s.prio == Priority::High)
            .unwrap();
        assert_eq!((e.h.seq, e.h.len), (last_data.h.seq, last_data.h.len));
    }
    assert_eq!(srv.stats.extra_segments_sent, extras.len() as u64);
    // Extra segments do not enter the retransmission queue or sequence space.
    assert_eq!(srv.tx.snd_max, 1 + 10 * 1460);
}
