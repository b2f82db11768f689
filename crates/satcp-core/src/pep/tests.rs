//! The split-connection proxy, rule by rule, on a GEO path:
//! server --10 Mb/s, 10 ms-- gateway --2 Mb/s down, 250 ms-- client,
//! with the proxy at the gateway. Links: 0 server->gateway, 1
//! gateway->server, 2 gateway->client, 3 client->gateway.

use super::relay::{on_notice, Leg, LegAction};
use crate::engine::SimTime;
use crate::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use crate::net::packet::flags;
use crate::scenario::{self, build};
use crate::sim::{Endpoint, Simulation};
use crate::tcp::Notice;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone, Copy, Debug)]
struct Seen {
    t: f64,
    link: u32,
    kind: PacketEventKind,
    src: u32,
    dst: u32,
    flags: u8,
    seq: u64,
    ack: u64,
    len: u32,
    window: u32,
}

#[derive(Clone, Default)]
struct Recorder(Rc<RefCell<Vec<Seen>>>);

impl PacketObserver for Recorder {
    fn on_packet(&mut self, ev: &PacketEvent) {
        let p = ev.packet;
        self.0.borrow_mut().push(Seen {
            t: ev.time.as_secs_f64(),
            link: ev.link,
            kind: ev.kind,
            src: p.src,
            dst: p.dst,
            flags: p.tcp.flags,
            seq: p.tcp.seq,
            ack: p.tcp.ack,
            len: p.tcp.len,
            window: p.tcp.window,
        });
    }
}

const SERVER: u32 = 0;
const GATEWAY: u32 = 1;
const CLIENT: u32 = 2;
const FILE: u64 = 300_000;

fn scenario(pep: Value, file_bytes: u64) -> Value {
    json!({
        "name": "pep",
        "duration_s": 600.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": false, "window_scaling": true,
                "rcv_buffer": 1_048_576},
        "links": [
            {"name": "ethernet", "a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.01},
            {"name": "satellite", "a": "gateway", "b": "client", "delay_s": 0.25,
             "queue_packets": 200, "ab": {"rate_bps": 2e6}, "ba": {"rate_bps": 256e3}}
        ],
        "pep": pep,
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": file_bytes, "request_bytes": 100}]
    })
}

fn gateway_pep() -> Value {
    json!([{"node": "gateway", "satellite_variant": "hybla"}])
}

fn simulation(v: &Value) -> (Simulation, Recorder) {
    let s = scenario::parse(&v.to_string()).expect("valid scenario");
    let mut sim = build::build(&s);
    let rec = Recorder::default();
    sim.add_observer(Box::new(rec.clone()));
    (sim, rec)
}

fn transmitted(rec: &Recorder, link: u32) -> Vec<Seen> {
    rec.0
        .borrow()
        .iter()
        .filter(|s| s.link == link && s.kind == PacketEventKind::Transmit)
        .copied()
        .collect()
}

#[test]
fn the_proxy_answers_the_syn_and_connects_onward_after_the_handshake() {
    let (mut sim, rec) = simulation(&scenario(gateway_pep(), FILE));
    sim.run(SimTime::from_secs_f64(2.0), true);
    let syn_ack = transmitted(&rec, 2)
        .into_iter()
        .find(|s| s.flags & flags::SYN != 0)
        .expect("a SYN-ACK toward the client");
    assert!(syn_ack.flags & flags::ACK != 0);
    // The client's SYN reached the gateway at 0.25 s (plus its
    // transmission): the answer leaves then, with the server's address.
    assert!(syn_ack.t < 0.26, "SYN-ACK sent at {} s", syn_ack.t);
    assert_eq!((syn_ack.src, syn_ack.dst), (SERVER, CLIENT));
    // Nothing reaches the server before the client's handshake ACK is at
    // the gateway (0.75 s); then the proxy's SYN carries the client's
    // address.
    let ground = transmitted(&rec, 1);
    let first = ground[0];
    assert!(first.flags & flags::SYN != 0 && first.flags & flags::ACK == 0);
    assert!(first.t > 0.75, "proxy SYN at {} s", first.t);
    assert_eq!((first.src, first.dst), (CLIENT, SERVER));
}

#[test]
fn data_is_acknowledged_locally_before_it_reaches_the_client() {
    let (mut sim, rec) = simulation(&scenario(gateway_pep(), FILE));
    sim.run(SimTime::from_secs_f64(5.0), true);
    let first_data = transmitted(&rec, 0)
        .into_iter()
        .find(|s| s.len > 0)
        .expect("data from the server");
    let end = first_data.seq + first_data.len as u64;
    let local_ack = transmitted(&rec, 1)
        .into_iter()
        .find(|s| s.ack >= end)
        .expect("the gateway acknowledges it");
    let at_client = rec
        .0
        .borrow()
        .iter()
        .find(|s| s.link == 2 && s.kind == PacketEventKind::Arrive && s.len > 0)
        .copied()
        .expect("data reaches the client");
    // One ground round trip (about 20 ms plus transmissions), long before
    // the data crosses the satellite (250 ms).
    assert!(local_ack.t - first_data.t < 0.03);
    assert!(local_ack.t < at_client.t - 0.2);
    assert_eq!((local_ack.src, local_ack.dst), (CLIENT, SERVER));
}

#[test]
fn a_full_buffer_closes_the_ground_window_and_reopens_it() {
    // Twenty segments: the room left falls to exactly zero.
    let buffer = 20 * 1460u64;
    let pep = json!([{"node": "gateway", "satellite_variant": "hybla", "buffer_bytes": buffer}]);
    let (mut sim, rec) = simulation(&scenario(pep, FILE));
    sim.run(SimTime::from_secs_f64(600.0), true);
    assert!(sim.apps_done());
    let acks = transmitted(&rec, 1);
    let closed = acks
        .iter()
        .position(|s| s.window == 0 && s.ack > 1)
        .expect("a zero window toward the server");
    assert!(
        acks[closed..].iter().any(|s| s.window > 0),
        "the window reopens"
    );
    // The server never has more in flight than the buffer's room: the
    // proxy never holds more than the buffer.
    let r = &sim.relays[0];
    let server_side = Leg::ServerSide.index();
    assert!(r.buffer_full[server_side] > 0);
    assert!(
        r.max_buffered[server_side] <= buffer,
        "{:?}",
        r.max_buffered
    );
}

#[test]
fn every_byte_is_relayed_once_and_in_order_through_losses() {
    let mut v = scenario(gateway_pep(), FILE);
    v["links"][1]["ab"]["errors"] = json!({"loss": 0.02});
    let s = scenario::parse(&v.to_string()).unwrap();
    // With every endpoint's transport invariants checked after each event.
    let checked = scenario::run_checked(&s);
    assert!(checked.violations.is_empty(), "{:?}", checked.violations);
    let r = checked.result;
    assert!(r.apps_done);
    assert_eq!(r.transfers[0].bytes, FILE);
    assert_eq!(r.flows[0].client.bytes_delivered, FILE, "in order, once");
    let sat = r.pep.iter().find(|p| p.satellite).unwrap();
    let ground = r.pep.iter().find(|p| !p.satellite).unwrap();
    assert_eq!(ground.bytes_received, FILE);
    assert_eq!(sat.bytes_sent, FILE);
    assert!(
        sat.retransmitted_segments > 0,
        "the satellite leg repaired losses"
    );
    assert_eq!(
        r.flows[0].server.retransmitted_segments, 0,
        "the server saw none of them"
    );
}

#[test]
fn the_servers_fin_is_relayed_after_its_data() {
    let (mut sim, rec) = simulation(&scenario(gateway_pep(), FILE));
    sim.run(SimTime::from_secs_f64(600.0), true);
    let fin_in = transmitted(&rec, 0)
        .into_iter()
        .find(|s| s.flags & flags::FIN != 0)
        .expect("the server closes");
    let fin_out = transmitted(&rec, 2)
        .into_iter()
        .find(|s| s.flags & flags::FIN != 0)
        .expect("the proxy closes toward the client");
    assert!(fin_out.t > fin_in.t);
    assert_eq!(
        fin_out.seq + fin_out.len as u64,
        FILE + 1,
        "after the last byte"
    );
    assert!(
        sim.endpoints[0].peer_closed_at.is_some(),
        "the client saw the FIN"
    );
}

#[test]
fn the_satellite_leg_runs_the_proxys_variant_and_the_ground_leg_the_apps() {
    let (mut sim, _) = simulation(&scenario(gateway_pep(), FILE));
    sim.run(SimTime::from_secs_f64(1.5), true);
    let name = |e: usize| match &sim.endpoints[e].ep {
        Endpoint::Live(ep) => ep.cc_name(),
        Endpoint::Retired(_) => unreachable!("still running"),
    };
    // Connection 0 is the application's, 1 the proxy's split of it.
    let (client, server, sat_leg, ground_leg) = (name(0), name(1), name(2), name(3));
    assert_eq!(sat_leg, "hybla");
    assert_eq!(ground_leg, server);
    assert_eq!(client, server);
    assert_ne!(server, "hybla");
    assert_eq!(sim.endpoints[2].node, GATEWAY);
    // The other side: a proxy at the terminal, the satellite toward the
    // server.
    let pep =
        json!([{"node": "gateway", "satellite_variant": "cubic", "satellite_side": "server"}]);
    let (mut sim, _) = simulation(&scenario(pep, FILE));
    sim.run(SimTime::from_secs_f64(1.5), true);
    let Endpoint::Live(far) = &sim.endpoints[3].ep else {
        unreachable!()
    };
    assert_eq!(far.cc_name(), "cubic");
}

#[test]
fn a_split_download_beats_end_to_end_and_reports_as_the_client_sees_it() {
    let split =
        scenario::run(&scenario::parse(&scenario(gateway_pep(), FILE).to_string()).unwrap());
    let direct = scenario::run(&scenario::parse(&scenario(json!([]), FILE).to_string()).unwrap());
    let t = |r: &scenario::RunResult| r.transfers[0].response_time_s.unwrap();
    assert!(t(&split) < t(&direct), "{} vs {}", t(&split), t(&direct));
    // One flow each: the proxy's legs are in the pep table, not the flows.
    assert_eq!((split.flows.len(), direct.flows.len()), (1, 1));
    assert_eq!(split.pep.len(), 2);
    assert!(direct.pep.is_empty());
}

#[test]
fn a_proxy_off_the_route_changes_nothing() {
    let mut v = scenario(
        json!([{"node": "spare", "satellite_variant": "hybla"}]),
        FILE,
    );
    v["nodes"] = json!(["server", "gateway", "client", "spare"]);
    v["links"]
        .as_array_mut()
        .unwrap()
        .push(json!({"a": "spare", "b": "gateway", "rate_bps": 1e6, "delay_s": 0.01}));
    let with = scenario::run(&scenario::parse(&v.to_string()).unwrap());
    v["pep"] = json!([]);
    let without = scenario::run(&scenario::parse(&v.to_string()).unwrap());
    assert_eq!(
        serde_json::to_string(&with).unwrap(),
        serde_json::to_string(&without).unwrap()
    );
}

#[test]
fn bad_settings_name_the_field() {
    let err = |pep: Value| {
        let e = scenario::parse(&scenario(pep, FILE).to_string()).unwrap_err();
        format!("{}: {}", e.field, e.message)
    };
    let e = err(json!([{"node": "moon"}]));
    assert!(e.starts_with("pep[0].node"), "{e}");
    let e = err(json!([{"node": "gateway", "satellite_variant": "warp"}]));
    assert!(e.starts_with("pep[0].satellite_variant"), "{e}");
    assert!(e.contains("warp"), "{e}");
    let e = err(json!([{"node": "gateway", "speed": 3}]));
    assert!(e.contains("pep[0]") && e.contains("speed"), "{e}");
    let e = err(json!([{"node": "gateway"}, {"node": "gateway"}]));
    assert!(e.starts_with("pep[1].node"), "{e}");
    let e = err(json!([{"node": "gateway", "buffer_bytes": 0}]));
    assert!(e.starts_with("pep[0].buffer_bytes"), "{e}");
}

#[test]
fn notices_move_the_other_leg() {
    use LegAction::*;
    let (c, s) = (Leg::ClientSide, Leg::ServerSide);
    assert_eq!(on_notice(c, Notice::Connected), Some(Connect(s)));
    assert_eq!(on_notice(s, Notice::Connected), None);
    assert_eq!(on_notice(s, Notice::Delivered(1460)), Some(Write(c, 1460)));
    assert_eq!(on_notice(c, Notice::Delivered(100)), Some(Write(s, 100)));
    assert_eq!(on_notice(s, Notice::PeerClosed), Some(Close(c)));
    assert_eq!(on_notice(c, Notice::PeerClosed), Some(Close(s)));
    assert_eq!(on_notice(c, Notice::Finished), None);
}

#[test]
fn applications_with_and_without_a_split_keep_their_own_connections() {
    // Two downloads through the gateway (split) and one from the gateway
    // itself (not split: it ends there), started together, so that their
    // connection ids interleave.
    let mut v = scenario(gateway_pep(), FILE);
    v["apps"] = json!([
        {"kind": "ftp", "client": "client", "server": "server", "file_bytes": FILE, "files": 2,
         "inter_request_s": 0.5},
        {"kind": "ftp", "client": "client", "server": "gateway", "file_bytes": FILE},
        {"kind": "ftp", "client": "client", "server": "server", "file_bytes": FILE}
    ]);
    let r = scenario::run(&scenario::parse(&v.to_string()).unwrap());
    assert!(r.apps_done);
    assert_eq!(r.transfers.len(), 4);
    assert!(r.transfers.iter().all(|t| t.end_s.is_some()));
    // One flow and one stall row per application connection, in the same
    // order; two proxy legs per split one.
    assert_eq!(r.flows.len(), 4);
    assert_eq!(r.stalls.len(), 4);
    assert!(r.flows.iter().zip(&r.stalls).all(|(f, s)| f.conn == s.conn));
    assert_eq!(r.pep.len(), 2 * 3);
    let split: Vec<u32> = r.pep.iter().map(|p| p.conn).collect();
    for t in &r.transfers {
        let via_proxy = t.app != 1;
        assert_eq!(split.contains(&t.conn), via_proxy, "{t:?}");
    }
}
