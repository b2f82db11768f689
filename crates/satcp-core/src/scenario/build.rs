//! Turns a validated scenario into a ready-to-run simulation.

use super::config::{AppConfig, DirectionConfig, Scenario};
use crate::apps::bulk::{Bulk, BulkParams};
use crate::apps::ftp::{Ftp, FtpParams};
use crate::apps::http::{Http, HttpParams};
use crate::apps::web::{ThinkTime, Web, WebParams};
use crate::apps::Application;
use crate::engine::{Duration, RngStream};
use crate::net::error_model::{DelayDist, ErrorModel};
use crate::net::gilbert_elliott::{GilbertElliott, GilbertElliottConfig};
use crate::net::link::{CongestionLoss, ExtraLoss, Link, LinkStats, ScheduledLoss};
use crate::net::link_arq::{ArqConfig, LinkArq};
use crate::net::packet::NodeId;
use crate::net::queue::{DropTail, Queue, QueueLimit, Red, RedParams, StrictPriority};
use crate::net::schedule::Schedule;
use crate::net::topology::Node;
use crate::sim::{AppSlot, Simulation};

fn node_id(s: &Scenario, name: &str) -> NodeId {
    s.nodes.iter().position(|n| n == name).expect("validated") as NodeId
}

/// The direction's queue; `rng` is the queue's own random stream.
fn queue(d: &DirectionConfig, rate_bps: u64, rng: RngStream) -> Box<dyn Queue> {
    let limit = match (d.queue_packets, d.queue_bytes) {
        (Some(p), _) => QueueLimit::Packets(p as usize),
        (None, Some(b)) => QueueLimit::Bytes(b),
        (None, None) => QueueLimit::Unlimited,
    };
    match d.queue.as_deref() {
        Some("priority") => Box::new(StrictPriority::new(
            limit,
            d.priority_push_out.unwrap_or(true),
        )),
        Some("red") => {
            let def = RedParams::default();
            let params = RedParams {
                min_th: d.red_min_th.unwrap_or(def.min_th),
                max_th: d.red_max_th.unwrap_or(def.max_th),
                max_p: d.red_max_p.unwrap_or(def.max_p),
                w_q: d.red_wq.unwrap_or(def.w_q),
                gentle: d.red_gentle.unwrap_or(def.gentle),
                ecn: d.ecn_marking.unwrap_or(def.ecn),
            };
            Box::new(Red::new(params, limit, rate_bps, rng))
        }
        _ => Box::new(DropTail::new(limit)),
    }
}

fn errors(d: &DirectionConfig) -> ErrorModel {
    let mean = Duration::from_secs_f64(d.reorder_delay_mean_s.unwrap_or(0.0));
    let reorder_delay = match d.reorder_delay.as_deref() {
        Some("uniform") => Some(DelayDist::Uniform {
            lo: Duration::ZERO,
            hi: Duration(2 * mean.0),
        }),
        Some("normal") => Some(DelayDist::TruncNormal {
            mean,
            sd: Duration::from_secs_f64(d.reorder_delay_sd_s.unwrap_or(0.0)),
        }),
        _ => Some(DelayDist::Fixed(mean)),
    };
    ErrorModel {
        ber: d.ber.unwrap_or(0.0),
        loss_prob: d.loss.unwrap_or(0.0),
        duplicate_prob: d.duplicate.unwrap_or(0.0),
        reorder_prob: d.reorder.unwrap_or(0.0),
        reorder_delay,
    }
}

pub fn link_name(s: &Scenario, i: usize) -> String {
    let l = &s.links[i];
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

pub fn build(s: &Scenario) -> Simulation {
    let nodes: Vec<Node> = s
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| Node {
            id: i as NodeId,
            name: n.clone(),
        })
        .collect();
    let mut links = Vec::new();
    for (i, l) in s.links.iter().enumerate() {
        let common = l.common();
        let base = link_name(s, i);
        for (dir, d, from, to) in [("ab", &l.ab, &l.a, &l.b), ("ba", &l.ba, &l.b, &l.a)] {
            let d = d.over(&common);
            let name = format!("{base}:{from}->{to}");
            let rate_bps = d.rate_bps.expect("validated").round() as u64;
            // The queue draws from its own stream, so that its decisions do
            // not shift the error model's draws.
            let queue_rng = RngStream::new(s.seed, &format!("queue/{base}/{dir}"));
            links.push(Link {
                id: links.len() as u32,
                rng: RngStream::new(s.seed, &format!("link/{base}/{dir}")),
                name,
                from: node_id(s, from),
                to: node_id(s, to),
                rate_bps,
                delay: Duration::from_secs_f64(d.delay_s.unwrap_or(0.0)),
                queue: queue(&d, rate_bps, queue_rng),
                // A model that draws nothing is left out.
                errors: Some(Box::new(errors(&d))).filter(|m| !m.is_ideal()),
                errors_data_only: d.errors_data_only.unwrap_or(false),
                drop_seqs: d.drop_seqs.clone().unwrap_or_default(),
                corrupted_reach_next_node: d.corrupted_reach_next_node.unwrap_or(false),
                delay_schedule: d.delay_schedule.as_deref().map(Schedule::new),
                rate_schedule: d.rate_schedule.as_deref().map(Schedule::new),
                arq: match d.arq_attempts.unwrap_or(0) {
                    0 => None,
                    attempts => Some(Box::new(LinkArq::new(ArqConfig {
                        attempts,
                        recover_all: d.arq_recover_all.unwrap_or(false),
                    }))),
                },
                // Its own stream, so that turning it on leaves the error
                // model's draws alone.
                congestion_loss: d.congestion_loss.filter(|&p| p > 0.0).map(|prob| {
                    Box::new(CongestionLoss {
                        prob,
                        rng: RngStream::new(s.seed, &format!("congestion/{base}/{dir}")),
                    })
                }),
                extra_loss: extra_loss(s.seed, &base, dir, &d),
                in_service: None,
                // No packet is 0 bytes long: the first one computes.
                last_tx: (0, 0, Duration::ZERO),
                stats: LinkStats::default(),
            });
        }
    }
    let apps = s
        .apps
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (c, sv) = a.hosts();
            let name = a
                .name()
                .map_or_else(|| format!("{}{}", a.kind(), i), str::to_string);
            AppSlot {
                app: make_app(a, s.seed, &name),
                name,
                client: node_id(s, c),
                server: node_id(s, sv),
                tcp: a.tcp().clone(),
                variant: a.tcp().variant_choice.clone().expect("resolved by parse"),
            }
        })
        .collect();
    let mut sim = Simulation::new(nodes, links, apps);
    for r in &s.routers {
        let f = crate::protocols::router(&r.kind, &r.settings).expect("validated router");
        sim.add_router_function(node_id(s, &r.node), f);
    }
    if s.sample_interval_s > 0.0 {
        sim.set_sampling(Some(Duration::from_secs_f64(s.sample_interval_s)));
    }
    sim
}

/// The application of `a`; `seed` and `name` name its random stream
/// (`app/<name>`), so adding an app leaves the others' draws alone.
fn make_app(a: &AppConfig, seed: u64, name: &str) -> Box<dyn Application> {
    let secs = Duration::from_secs_f64;
    match a {
        AppConfig::Ftp(f) => Box::new(Ftp::new(FtpParams {
            file_bytes: f.file_bytes,
            request_bytes: f.request_bytes,
            start: secs(f.start_s),
            files: f.files,
            inter_request: secs(f.inter_request_s),
        })),
        AppConfig::Http(h) => Box::new(Http::new(HttpParams {
            main_object_bytes: h.main_object_bytes,
            embedded_objects: h.embedded_objects,
            embedded_object_bytes: h.embedded_object_bytes,
            request_bytes: h.request_bytes,
            page_interval: secs(h.page_interval_s),
            start: secs(h.start_s),
            pages: h.pages,
            pipelining: h.pipelining,
        })),
        AppConfig::Bulk(b) => Box::new(Bulk::new(BulkParams {
            bytes: b.bytes,
            start: secs(b.start_s),
        })),
        AppConfig::Web(w) => {
            let think = secs(w.think_time_s);
            Box::new(Web::new(WebParams {
                transfer_bytes: w.segments as u64 * w.tcp.mss as u64,
                think_time: match w.think_time.as_str() {
                    "fixed" => ThinkTime::Fixed(think),
                    _ => ThinkTime::Exponential(think),
                },
                start: secs(w.start_s),
                transfers: w.transfers,
                rng: RngStream::new(seed, &format!("app/{name}")),
            }))
        }
    }
}

/// Burst errors (`gilbert_elliott`) and loss following a schedule
/// (`loss_schedule`) of one direction, each from its own stream so that
/// turning it on leaves every other draw alone; None when both are off.
fn extra_loss(seed: u64, base: &str, dir: &str, d: &DirectionConfig) -> Option<Box<ExtraLoss>> {
    if d.gilbert_elliott.is_none() && d.loss_schedule.is_none() {
        return None;
    }
    Some(Box::new(ExtraLoss {
        burst: d.gilbert_elliott.map(|g| {
            GilbertElliott::new(
                GilbertElliottConfig {
                    p: g.p,
                    r: g.r,
                    loss_good: g.loss_good,
                    loss_bad: g.loss_bad,
                    ber_good: g.ber_good,
                    ber_bad: g.ber_bad,
                },
                RngStream::new(seed, &format!("burst/{base}/{dir}")),
            )
        }),
        schedule: d.loss_schedule.as_deref().map(|points| ScheduledLoss {
            schedule: Schedule::new(points),
            rng: RngStream::new(seed, &format!("loss-schedule/{base}/{dir}")),
        }),
    }))
}
