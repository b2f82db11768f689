//! Results of a run, as plain serializable tables. Wall-clock time is not
//! part of them, so the same scenario and seed give byte-identical output.

use super::build::link_name;
use super::config::Scenario;
use super::diagnosis::{self, AppRow, Warning};
use crate::metrics::timeseries::{FlowSeries, LinkSeries};
use crate::metrics::trace::Trace;
use crate::net::link::LinkStats;
use crate::pep::Leg;
use crate::sim::Simulation;
use crate::tcp::FlowStats;
use serde::Serialize;
use std::collections::BTreeMap;

// Default: the row templates (`result_fields::row_templates`) only.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TransferRow {
    pub app: u32,
    pub app_name: String,
    pub kind: String,
    pub index: u32,
    pub conn: u32,
    pub start_s: f64,
    pub end_s: Option<f64>,
    /// FTP download / HTTP page response time; None if unfinished.
    pub response_time_s: Option<f64>,
    pub bytes: u64,
    /// What became of it by the end of the run.
    pub outcome: Outcome,
}

/// What became of a transfer by the end of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[default]
    Done,
    /// Its connection was given up (the retransmission limit) first.
    Aborted,
    /// Still under way when the run reached its duration, in an
    /// application with a set amount of work: the run ended too early, or
    /// the transfer was stuck.
    Unfinished,
    /// Still under way when the run ended, in an application with no set
    /// amount of work (bulk without `bytes`, http without `pages`, web
    /// without `transfers`): no failure.
    Ongoing,
}

/// One row per connection: how it stalled (`tcp::StallRecord` of both
/// endpoints).
#[derive(Clone, Debug, Serialize)]
pub struct StallRow {
    pub conn: u32,
    pub app: u32,
    /// When the first of its endpoints gave up (more timeouts in a row
    /// than `max_retransmissions`); None if neither did.
    pub aborted_s: Option<f64>,
    /// Which endpoint gave up: "server" (the data sender) or "client".
    pub aborted_side: Option<&'static str>,
    /// The timeouts in a row that made it give up.
    pub abort_timeouts: Option<u32>,
    /// The largest RTO a timeout backed off to, of either endpoint (0
    /// without a timeout).
    pub max_backed_off_rto_s: f64,
    /// The longest stretch during which either endpoint had data
    /// outstanding and took no RTT sample, up to the end of the run.
    pub longest_rtt_sample_gap_s: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowRow {
    pub conn: u32,
    pub app: u32,
    pub app_name: String,
    pub variant: String,
    pub opened_s: f64,
    /// From the SYN to the server's FIN reaching the client (or the end of
    /// the run).
    pub duration_s: f64,
    /// Original bytes delivered in order to the client, per second (bits).
    pub goodput_bps: f64,
    /// All payload bytes the client received, per second (bits).
    pub throughput_bps: f64,
    pub final_cwnd: u64,
    pub final_ssthresh: u64,
    pub srtt_s: Option<f64>,
    pub state: String,
    /// Counters of the server endpoint (the data sender).
    pub server: FlowStats,
    /// Counters of the client endpoint (the data receiver).
    pub client: FlowStats,
    /// The server's variant's own counters (`CongestionControl::counters`);
    /// left out for variants that keep none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub variant_counters: BTreeMap<String, u64>,
    /// The server's loss-recovery counters of the mechanisms switched on
    /// beyond the RFC defaults (F-RTO, RACK-TLP, the scoreboard kept across
    /// timeouts: `tcp::recovery::RecoveryCounters`); left out when none is.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub recovery_counters: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkRow {
    pub link: u32,
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Bits correctly received at the far end per second of the run.
    pub throughput_bps: f64,
    pub utilization: f64,
    pub stats: LinkStats,
    /// The DVB-S2 carrier's frames, for a direction with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dvbs2: Option<crate::net::dvbs2::carrier::CarrierStats>,
    /// The DVB-RCS2 carrier's slots and collisions, for a direction with
    /// one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dvbrcs2: Option<crate::net::dvbrcs2::carrier::ReturnStats>,
}

/// One leg of a proxy's split connection (`pep::Relay`): the segment of
/// the application connection `conn` between the proxy and the host on
/// `side`. A leg's data are what it received (`bytes_received`, to be
/// relayed) and sent (`bytes_sent`, relayed from the other leg).
#[derive(Clone, Debug, Serialize)]
pub struct PepLegRow {
    pub conn: u32,
    pub app: u32,
    pub node: String,
    /// Which host the leg faces: "client-side" or "server-side".
    pub leg: &'static str,
    /// The leg crosses the satellite.
    pub satellite: bool,
    pub variant: String,
    /// Bytes it received in order (and relayed to the other leg).
    pub bytes_received: u64,
    /// Bytes it sent, first transmissions (relayed from the other leg).
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub timeouts: u64,
    pub final_cwnd: u64,
    pub srtt_s: Option<f64>,
    /// The most bytes the proxy held for this leg's received data (not yet
    /// acknowledged on the other leg).
    pub max_buffered_bytes: u64,
    /// How often that buffer filled (the leg advertised a zero window).
    pub buffer_full: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    pub end_time_s: f64,
    pub events: u64,
    pub apps_done: bool,
    pub transfers: Vec<TransferRow>,
    pub flows: Vec<FlowRow>,
    pub links: Vec<LinkRow>,
    pub flow_series: FlowSeries,
    pub link_series: LinkSeries,
    pub stalls: Vec<StallRow>,
    /// Per application, what became of its transfers and why it did not
    /// finish (`diagnosis.rs`).
    pub apps: Vec<AppRow>,
    /// Pathologies worth a look: RTOs backed off beyond 30 s, data
    /// outstanding for 100 RTTs without an RTT sample, queues that
    /// dropped more than 10 % of their packets.
    pub warnings: Vec<Warning>,
    /// Per split connection of a proxy (`[[pep]]`), one row per leg.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pep: Vec<PepLegRow>,
    /// The per-event trace, if the scenario asked for one. Not part of the
    /// JSON: the Python binding hands its columns over as arrays.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

/// The results of a finished run, its trace taken out of the simulation.
pub fn finish(s: &Scenario, sim: &mut Simulation) -> RunResult {
    let trace = sim.take_trace();
    RunResult {
        trace,
        ..collect(s, sim)
    }
}

pub fn collect(s: &Scenario, sim: &Simulation) -> RunResult {
    let end = sim.now;
    let end_s = end.as_secs_f64();
    // Every connection's, indexed by connection id; the proxies' split
    // connections are left out of the table below.
    let stalls = stall_rows(sim);
    let mut transfers = Vec::new();
    for (a, slot) in sim.apps.iter().enumerate() {
        let unended = if slot.app.is_open_ended() {
            Outcome::Ongoing
        } else {
            Outcome::Unfinished
        };
        for t in slot.app.transfers() {
            let outcome = match t.end {
                Some(_) => Outcome::Done,
                None if stalls[t.conn as usize].aborted_s.is_some() => Outcome::Aborted,
                None => unended,
            };
            transfers.push(TransferRow {
                app: a as u32,
                app_name: slot.name.clone(),
                kind: slot.app.kind().to_string(),
                index: t.index,
                conn: t.conn,
                start_s: t.start.as_secs_f64(),
                end_s: t.end.map(|e| e.as_secs_f64()),
                response_time_s: t.end.map(|e| (e - t.start).as_secs_f64()),
                bytes: t.bytes,
                outcome,
            });
        }
    }
    let flows: Vec<FlowRow> = sim
        .conns
        .iter()
        .enumerate()
        .filter(|&(c, _)| sim.relay_of(c as u32).is_none())
        .map(|(c, info)| {
            let cli = &sim.endpoints[2 * c];
            let srv = &sim.endpoints[2 * c + 1];
            let (cli_ep, srv_ep) = (cli.ep.record(), srv.ep.record());
            let closed = cli.peer_closed_at.unwrap_or(end);
            let dur = (closed - info.opened).as_secs_f64();
            let per_s = |bytes: u64| {
                if dur > 0.0 {
                    bytes as f64 * 8.0 / dur
                } else {
                    0.0
                }
            };
            let slot = &sim.apps[info.app as usize];
            FlowRow {
                conn: c as u32,
                app: info.app,
                app_name: slot.name.clone(),
                variant: slot.tcp.variant.clone(),
                opened_s: info.opened.as_secs_f64(),
                duration_s: dur,
                goodput_bps: per_s(cli_ep.stats.bytes_delivered),
                throughput_bps: per_s(cli_ep.stats.payload_bytes_received),
                final_cwnd: srv_ep.cwnd,
                final_ssthresh: srv_ep.ssthresh,
                srtt_s: srv_ep.srtt.map(|d| d.as_secs_f64()),
                state: format!("{:?}", srv_ep.state),
                server: srv_ep.stats,
                client: cli_ep.stats,
                variant_counters: srv_ep
                    .cc_counters
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v))
                    .collect(),
                recovery_counters: srv_ep
                    .recovery_counters
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v))
                    .collect(),
            }
        })
        .collect();
    let links: Vec<LinkRow> = sim
        .links
        .iter()
        .map(|l| {
            let base = link_name(s, l.id() as usize / 2);
            let thr = if end_s > 0.0 {
                l.stats().rx_bytes as f64 * 8.0 / end_s
            } else {
                0.0
            };
            LinkRow {
                link: l.id(),
                name: format!("{base}:{}", if l.id() % 2 == 0 { "ab" } else { "ba" }),
                from: sim.nodes[l.from() as usize].name.clone(),
                to: sim.nodes[l.to() as usize].name.clone(),
                rate_bps: l.rate_bps(),
                delay_s: l.delay().as_secs_f64(),
                throughput_bps: thr,
                utilization: thr / l.rate_bps() as f64,
                stats: l.stats(),
                dvbs2: l.dvbs2_stats(),
                dvbrcs2: l.dvbrcs2_stats(),
            }
        })
        .collect();
    let apps = diagnosis::app_rows(sim, &transfers, &stalls, end_s);
    let stalls: Vec<StallRow> = if sim.relays.is_empty() {
        stalls
    } else {
        stalls
            .into_iter()
            .filter(|r| sim.relay_of(r.conn).is_none())
            .collect()
    };
    let warnings = diagnosis::warnings(&flows, &links, &stalls);
    RunResult {
        name: s.name.clone(),
        seed: s.seed,
        end_time_s: end_s,
        events: sim.events_processed(),
        apps_done: sim.apps_done(),
        transfers,
        flows,
        links,
        flow_series: sim.flow_series.clone(),
        link_series: sim.link_series.clone(),
        stalls,
        apps,
        warnings,
        pep: pep_rows(sim),
        trace: None,
    }
}

fn pep_rows(sim: &Simulation) -> Vec<PepLegRow> {
    let mut rows = Vec::new();
    for (c, info) in sim.conns.iter().enumerate() {
        let Some(r) = sim.relay_of(c as u32) else {
            continue;
        };
        let relay = &sim.relays[r as usize];
        let slot = &sim.apps[info.app as usize];
        let plan = &slot.relays[relay.hop as usize];
        for leg in [Leg::ClientSide, Leg::ServerSide] {
            let ep = &sim.endpoints[2 * c + leg.index()];
            let rec = ep.ep.record();
            let (cfg, _) = &plan.legs[leg.index()];
            rows.push(PepLegRow {
                conn: relay.conn,
                app: info.app,
                node: sim.nodes[ep.node as usize].name.clone(),
                leg: leg.name(),
                satellite: plan.satellite == leg,
                variant: cfg.variant.clone(),
                bytes_received: rec.stats.bytes_delivered,
                bytes_sent: rec.stats.payload_bytes_sent - rec.stats.retransmitted_bytes,
                retransmitted_segments: rec.stats.retransmitted_segments,
                timeouts: rec.stats.timeouts,
                final_cwnd: rec.cwnd,
                srtt_s: rec.srtt.map(|d| d.as_secs_f64()),
                max_buffered_bytes: relay.max_buffered[leg.index()],
                buffer_full: relay.buffer_full[leg.index()],
            });
        }
    }
    rows
}

fn stall_rows(sim: &Simulation) -> Vec<StallRow> {
    sim.conns
        .iter()
        .enumerate()
        .map(|(c, info)| {
            let cli = sim.endpoints[2 * c].ep.record().stalls;
            let srv = sim.endpoints[2 * c + 1].ep.record().stalls;
            // The first to give up (the server on a tie: it holds the data).
            let gave_up = [(srv, "server"), (cli, "client")]
                .into_iter()
                .filter_map(|(r, side)| r.aborted_at.map(|t| (t, side, r.abort_timeouts)))
                .min_by_key(|&(t, _, _)| t);
            StallRow {
                conn: c as u32,
                app: info.app,
                aborted_s: gave_up.map(|(t, _, _)| t.as_secs_f64()),
                aborted_side: gave_up.map(|(_, side, _)| side),
                abort_timeouts: gave_up.map(|(_, _, n)| n),
                max_backed_off_rto_s: cli
                    .max_backed_off_rto
                    .max(srv.max_backed_off_rto)
                    .as_secs_f64(),
                longest_rtt_sample_gap_s: cli
                    .longest_gap(sim.now)
                    .max(srv.longest_gap(sim.now))
                    .as_secs_f64(),
            }
        })
        .collect()
}
