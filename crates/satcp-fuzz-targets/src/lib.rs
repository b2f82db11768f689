//! The bodies of satcp's fuzz targets. cargo-fuzz (`fuzz/`, nightly) calls
//! them with libFuzzer's inputs; the stable tests of this crate
//! (`tests/replay.rs`) call them with every file of `fuzz/corpus/` and a
//! few thousand pseudo-random inputs, so CI runs the same code without
//! nightly. A target fails by panicking. docs/testing.md, "Fuzzing".
//!
//! - `scenario_text`: TOML text -> validated scenario -> built simulation.
//!   Whatever the text, the parser returns a scenario or an error and never
//!   panics, and a scenario it accepts can be built.
//! - `endpoint_segments`: bytes -> a TCP endpoint of any registered variant
//!   configuration, driven by a sequence of operations (arbitrary segments:
//!   flags, seq, ack, window, SACK blocks, timestamps, header-extension
//!   flags and ranges, ECN; timers; application writes and closes; a
//!   well-behaved peer's answers). It never panics, and the transport
//!   invariants (`satcp_core::tcp::invariants`) hold after every operation.

use satcp_core::engine::{Duration, SimTime};
use satcp_core::net::packet::{Ecn, SeqRange, TcpHeader, Timestamps};
use satcp_core::protocols;
use satcp_core::tcp::config::ScoreboardAfterTimeout;
use satcp_core::tcp::{ConnState, Recovery, TcpConfig, TcpEndpoint, TcpOutput};

/// Largest scenario text the target reads (libFuzzer's `-max_len` for it).
pub const MAX_SCENARIO_BYTES: usize = 16_384;

/// TOML text -> JSON -> `satcp_core::parse` (format and validation, as
/// the Python layer hands it over) -> `build`. Must never panic.
pub fn scenario_text(data: &[u8]) {
    if let Some(Ok(s)) = parse_scenario_text(data) {
        // Building allocates per node and link and computes the routes: a
        // scenario the validation accepted must build.
        let _ = satcp_core::scenario::build::build(&s);
    }
}

/// The scenario a TOML text describes, or the core's error; None when the
/// input is no TOML document (or too long).
pub fn parse_scenario_text(
    data: &[u8],
) -> Option<Result<satcp_core::Scenario, satcp_core::ScenarioError>> {
    if data.len() > MAX_SCENARIO_BYTES {
        return None;
    }
    let text = std::str::from_utf8(data).ok()?;
    let table = toml::from_str::<toml::Table>(text).ok()?;
    // TOML has dates and times JSON lacks; they become strings (tomllib's
    // datetime objects would not pass Python's JSON encoder either).
    let json = serde_json::to_value(&table).ok()?;
    Some(satcp_core::parse(&json.to_string()))
}

/// The variant configurations of the registry: every family with each of
/// its loss recoveries, and every shorthand.
pub fn variant_configs() -> Vec<(&'static str, Option<Recovery>)> {
    let mut out = Vec::new();
    for v in protocols::VARIANTS {
        out.extend(v.recoveries.iter().map(|r| (v.name, Some(*r))));
        out.extend(v.shorthands.iter().map(|(s, _)| (*s, None)));
    }
    out
}

/// Reads the input front to back; past its end every read gives 0.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn i16(&mut self) -> i16 {
        self.u16() as i16
    }
}

/// Sequence numbers a peer can send: satcp's sequence space is 64 bits
/// from 0 and never wraps; in a simulation it stays below the bytes a
/// connection carries. Inputs keep below 2^40 (a terabyte), so that
/// `seq + len` never overflows: what the model can meet, not more.
const SEQ_LIMIT: u64 = 1 << 40;

/// A sequence number near `base` (most inputs) or anywhere in the space.
fn seq_near(b: &mut Bytes, base: u64) -> u64 {
    let v = match b.u8() % 4 {
        0 => b.u32() as u64 * 256,
        _ => base.saturating_add_signed(b.i16() as i64),
    };
    v.min(SEQ_LIMIT)
}

/// A segment with arbitrary fields, its numbers mostly near where the
/// endpoint's sequence spaces are.
fn arbitrary_segment(b: &mut Bytes, ep: &TcpEndpoint) -> (TcpHeader, Ecn) {
    let rcv = ep.rx.rcv_nxt.unwrap_or(0);
    let una = ep.tx.snd_una();
    let mut h = TcpHeader {
        flags: b.u8() & 0x1f,
        len: (b.u16() % 3000) as u32,
        window: b.u16() as u32,
        ..Default::default()
    };
    h.seq = seq_near(b, rcv);
    h.ack = seq_near(b, una);
    let opts = b.u8();
    let mut blocks = Vec::new();
    for _ in 0..(opts & 3) + (opts >> 7) {
        let start = seq_near(b, una);
        let end = start.saturating_add(b.u16() as u64).min(SEQ_LIMIT);
        blocks.push(SeqRange::new(start, end));
    }
    h.set_sack(&blocks);
    if opts & 4 != 0 {
        h.ts = Some(Timestamps {
            val: b.u32(),
            ecr: b.u32(),
        });
    }
    if opts & 8 != 0 {
        h.ext.flags = b.u8();
        for _ in 0..b.u8() % 3 {
            let start = seq_near(b, rcv);
            let end = start.saturating_add(b.u16() as u64).min(SEQ_LIMIT);
            h.push_ext_range(SeqRange::new(start, end));
        }
    }
    if opts & 16 != 0 {
        h.syn_mss = b.u16() as u32;
        h.sack_permitted = b.u8() & 1 != 0;
        h.wscale = Some(b.u8());
    }
    let ecn = match (opts >> 5) & 3 {
        0 => Ecn::NotEct,
        1 => Ecn::Ect,
        _ => Ecn::Ce,
    };
    (h, ecn)
}

/// What a well-behaved peer would send next: its SYN, SYN-ACK, or an ACK
/// of everything sent so far with in-order data (lets inputs reach the
/// established state and move data, where the arbitrary segments bite).
fn peer_segment(b: &mut Bytes, ep: &TcpEndpoint) -> TcpHeader {
    let mut h = TcpHeader {
        window: 65_535,
        syn_mss: 1460,
        sack_permitted: true,
        ..Default::default()
    };
    match ep.state {
        ConnState::Listen => h.flags = 0x01,
        ConnState::SynSent => {
            h.flags = 0x01 | 0x02;
            h.ack = 1;
        }
        _ => {
            h.flags = 0x02;
            h.seq = ep.rx.rcv_nxt.unwrap_or(0);
            h.ack = ep.tx.snd_max();
            h.len = (b.u16() % 1461) as u32;
        }
    }
    h
}

/// Settings a family cannot run without (its table has no complete
/// default): the slow-start family needs its function.
fn settings_for(variant: &str) -> serde_json::Value {
    match protocols::find(variant) {
        Some((family, _)) if family.name == "slowstart" => {
            serde_json::json!({"function": "linear", "thr": 30})
        }
        _ => serde_json::Value::Null,
    }
}

/// How far one input got: for the replay tests, which check that the
/// inputs reach the states where the bugs would be.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reached {
    pub established: bool,
    pub data_acked: bool,
    pub retransmitted: bool,
}

/// Bytes -> one endpoint driven by operations; panics if it panics or an
/// invariant breaks.
pub fn endpoint_segments(data: &[u8]) -> Reached {
    let mut b = Bytes { data, at: 0 };
    let configs = variant_configs();
    let (variant, recovery) = configs[b.u8() as usize % configs.len()];
    let o = b.u8();
    let cfg = TcpConfig {
        variant: variant.into(),
        recovery,
        window_scaling: o & 1 != 0,
        rcv_buffer: if o & 1 != 0 { 262_144 } else { 65_535 },
        timestamps: o & 2 != 0,
        delayed_ack: o & 4 != 0,
        // RN-TCP-ES samples from DSACKs and is rejected without them.
        dsack: o & 8 != 0 || variant == "rntcp-es",
        ecn: o & 16 != 0,
        nagle: (o & 32 != 0).into(),
        max_retransmissions: 3,
        // The `linux` profile's loss recovery: RACK-TLP, PRR, F-RTO, undo,
        // the scoreboard kept across timeouts.
        rack_tlp: o & 128 != 0,
        prr: o & 128 != 0,
        frto: o & 128 != 0,
        undo: o & 128 != 0,
        scoreboard_after_timeout: if o & 128 != 0 {
            ScoreboardAfterTimeout::Keep
        } else {
            ScoreboardAfterTimeout::Clear
        },
        ..TcpConfig::default()
    };
    let mut ep = match protocols::endpoint_with(&cfg, &settings_for(variant)) {
        Ok(ep) => ep,
        Err(e) => panic!("{variant} {recovery:?} does not build with its defaults: {e}"),
    };
    let mut now = SimTime::ZERO;
    let mut out = TcpOutput::default();
    if o & 64 != 0 {
        ep.connect(now, &mut out);
    } else {
        ep.listen();
    }
    let mut closed = false;
    let mut reached = Reached::default();
    let check = |ep: &TcpEndpoint, step: usize| {
        if let Err(e) = ep.check_invariants() {
            panic!("{variant} {recovery:?}, step {step}: {e}");
        }
    };
    check(&ep, 0);
    let mut step = 0;
    while !b.done() && step < 4096 {
        step += 1;
        match b.u8() % 8 {
            0..=2 => {
                let (h, ecn) = arbitrary_segment(&mut b, &ep);
                ep.on_segment_ecn(&h, ecn, now, &mut out);
            }
            3 | 4 => {
                let h = peer_segment(&mut b, &ep);
                ep.on_segment(&h, now, &mut out);
            }
            5 => {
                // Time passes: the timers due in the next `dt` fire in order.
                let until = now + Duration(b.u16() as u64 * 1_000_000);
                for _ in 0..64 {
                    match ep.next_deadline() {
                        Some(d) if d <= until => {
                            now = d.max(now);
                            let sent = out.segments.len();
                            ep.on_timer(now, &mut out);
                            // A timer must move the endpoint on (send, or
                            // ask to be woken later), or the simulation would
                            // wake it at this instant for ever
                            // (Simulation::check_timer_progress).
                            let idle = out.segments.len() == sent;
                            if let Some(next) = ep.next_deadline().filter(|&n| idle && n <= now) {
                                panic!(
                                    "{variant} {recovery:?}, step {step}: the timer at {now:?} left the next deadline at {next:?}"
                                );
                            }
                        }
                        _ => break,
                    }
                }
                now = until.max(now);
            }
            6 if !closed => ep.write(b.u16() as u64, now, &mut out),
            _ => {
                closed = true;
                ep.close(now, &mut out);
            }
        }
        check(&ep, step);
        out.segments.clear();
        out.notices.clear();
        reached.established |= ep.state == ConnState::Established;
    }
    reached.data_acked = ep.tx.snd_una() > 1;
    reached.retransmitted = ep.stats.retransmitted_segments > 0;
    reached
}
