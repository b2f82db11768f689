//! Turns a validated scenario into a ready-to-run simulation.

use super::config::{AppConfig, Scenario};
use super::node_graph::NodeIndex;
use crate::apps::bulk::{Bulk, BulkParams};
use crate::apps::ftp::{Ftp, FtpParams};
use crate::apps::http::{Http, HttpParams};
use crate::apps::web::{ThinkTime, Web, WebParams};
use crate::apps::Application;
use crate::engine::{Duration, RngStream};
use crate::net::link::Link;
use crate::net::link_config::Streams;
use crate::net::packet::{LinkId, NodeId};
use crate::net::topology::{Node, RoutingTable};
use crate::pep::{Leg, PepConfig, RelayPlan, SatelliteSide};
use crate::scenario::ScenarioError;
use crate::sim::{AppSlot, Simulation};
use crate::tcp::{TcpConfig, VariantChoice};

pub fn link_name(s: &Scenario, i: usize) -> String {
    let l = &s.links[i];
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

pub fn build(s: &Scenario) -> Simulation {
    let ids = NodeIndex::new(s);
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
        let base = link_name(s, i);
        for (dir, d, from, to) in [("ab", &l.ab, &l.a, &l.b), ("ba", &l.ba, &l.b, &l.a)] {
            let streams = Streams {
                seed: s.seed,
                link: &base,
                dir,
            };
            let id = links.len() as LinkId;
            links.push(Link::new(id, ids.of(from), ids.of(to), d, &streams));
        }
    }
    let pairs: Vec<(NodeId, NodeId)> = links.iter().map(|l| (l.from(), l.to())).collect();
    let routes = RoutingTable::shortest_paths(s.nodes.len(), &pairs);
    place_carriers(s, &ids, &routes, &pairs, &mut links);
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
                client: ids.of(c),
                server: ids.of(sv),
                tcp: a.tcp().clone(),
                variant: a.tcp().variant_choice.clone().expect("resolved by parse"),
                relays: relay_plans(s, &ids, &routes, &pairs, ids.of(c), ids.of(sv), a.tcp()),
            }
        })
        .collect();
    let mut sim = Simulation::new(nodes, links, apps, routes);
    for r in &s.routers {
        let f = crate::protocols::router(&r.kind, &r.settings).expect("validated router");
        sim.add_router_function(ids.of(&r.node), f);
    }
    if s.sample_interval_s > 0.0 {
        sim.set_sampling(Some(Duration::from_secs_f64(s.sample_interval_s)));
    }
    if s.trace.enabled() {
        sim.set_trace(crate::metrics::trace::TraceRecorder::new(&s.trace));
    }
    sim
}

/// The proxies on the route from `client` to `server` (the end hosts
/// themselves excluded), in route order, with each leg's settings.
/// `pairs` gives each link direction's (from, to).
fn relay_plans(
    s: &Scenario,
    ids: &NodeIndex,
    routes: &RoutingTable,
    pairs: &[(NodeId, NodeId)],
    client: NodeId,
    server: NodeId,
    tcp: &TcpConfig,
) -> Vec<RelayPlan> {
    if s.pep.is_empty() {
        return Vec::new();
    }
    let mut plans = Vec::new();
    let mut node = client;
    while let Some(l) = routes.next_hop(node, server) {
        node = pairs[l as usize].1;
        if node == server {
            break;
        }
        if let Some(p) = s.pep.iter().find(|p| ids.of(&p.node) == node) {
            let satellite = match p.satellite_side {
                SatelliteSide::Client => Leg::ClientSide,
                SatelliteSide::Server => Leg::ServerSide,
            };
            let sat = relay_leg(p, tcp).expect("validated");
            let mut ground = tcp.clone();
            if let Some(b) = p.buffer_bytes {
                ground.rcv_buffer = b;
            }
            let ground_variant = ground.variant_choice.clone().expect("resolved by parse");
            let mut legs = [sat.clone(), (ground, ground_variant)];
            if satellite == Leg::ServerSide {
                legs.swap(0, 1);
            }
            plans.push(RelayPlan {
                node,
                satellite,
                legs,
            });
        }
    }
    plans
}

/// The settings and variant of a proxy's satellite leg for an application
/// whose TCP settings are `tcp`: those, with the proxy's buffer and
/// variant (its family's default settings).
pub fn relay_leg(
    p: &PepConfig,
    tcp: &TcpConfig,
) -> Result<(TcpConfig, VariantChoice), ScenarioError> {
    let mut cfg = tcp.clone();
    if let Some(b) = p.buffer_bytes {
        cfg.rcv_buffer = b;
    }
    if let Some(v) = &p.satellite_variant {
        cfg.variant = v.clone();
        cfg.recovery = None;
        let choice = crate::protocols::resolve(&cfg, &serde_json::Value::Null)?;
        cfg.variant_choice = Some(choice);
    }
    let choice = cfg.variant_choice.clone().expect("resolved by parse");
    Ok((cfg, choice))
}

/// Tells each DVB-S2 carrier that terminals share which terminal each
/// destination is: the first of its terminals on the route from the far
/// end to it, else the far end (0); and each DVB-RCS2 carrier which
/// terminal each source is.
/// `pairs` gives each link direction's (from, to).
fn place_carriers(
    s: &Scenario,
    ids: &NodeIndex,
    routes: &RoutingTable,
    pairs: &[(NodeId, NodeId)],
    links: &mut [Link],
) {
    for l in links.iter_mut() {
        let far_end = l.to();
        let Some(carrier) = l.dvbs2_mut() else {
            continue;
        };
        let terminal = terminal_index(s, ids, carrier.shared_nodes());
        let terminal_of = (0..s.nodes.len() as NodeId)
            .map(|dst| {
                let mut node = far_end;
                for _ in 0..s.nodes.len() {
                    if let Some(k) = terminal[node as usize] {
                        return k;
                    }
                    let Some(next) = routes.next_hop(node, dst) else {
                        break;
                    };
                    node = pairs[next as usize].1;
                }
                0
            })
            .collect();
        carrier.place(&s.nodes[far_end as usize], terminal_of);
    }
    for l in links.iter_mut() {
        let near_end = l.from();
        let Some(carrier) = l.dvbrcs2_mut() else {
            continue;
        };
        let terminal = terminal_index(s, ids, carrier.shared_nodes());
        // A return carrier's packet is the terminal's in front of which it
        // came: the first of its terminals on the route from its source to
        // the near end.
        let terminal_of = (0..s.nodes.len() as NodeId)
            .map(|src| {
                let mut node = src;
                for _ in 0..s.nodes.len() {
                    if let Some(k) = terminal[node as usize] {
                        return k;
                    }
                    if node == near_end {
                        break;
                    }
                    let Some(next) = routes.next_hop(node, near_end) else {
                        break;
                    };
                    node = pairs[next as usize].1;
                }
                0
            })
            .collect();
        carrier.place(&s.nodes[near_end as usize], terminal_of);
    }
}

/// Each node's terminal number on a carrier (1 for the first of
/// `shared`), None for the nodes that are none of its terminals.
fn terminal_index<'a>(
    s: &Scenario,
    ids: &NodeIndex,
    shared: impl Iterator<Item = &'a str>,
) -> Vec<Option<u16>> {
    let mut terminal = vec![None; s.nodes.len()];
    for (k, n) in shared.enumerate() {
        let t = &mut terminal[ids.of(n) as usize];
        // The first listed wins, as a search in list order found it.
        t.get_or_insert(k as u16 + 1);
    }
    terminal
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
