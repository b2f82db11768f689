//! The simulation: the event loop that ties the engine, the network, the TCP
//! endpoints and the applications together. It dispatches events and moves
//! packets; all protocol decisions live in the modules it calls.

use crate::apps::{AppAction, AppCtx, AppId, Application, ConnId, Side};
use crate::engine::{Duration, EventQueue, SimTime};
use crate::metrics::timeseries::{FlowSeries, LinkSeries};
use crate::metrics::trace::{Trace, TraceRecorder};
use crate::metrics::EndpointRecord;
use crate::net::link::{Link, Outcome};
use crate::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use crate::net::packet::{Ecn, EndpointId, LinkId, NodeId, Packet, PacketId, PacketPool};
use crate::net::router::{DropCause, QueueDecision, RouterFunction};
use crate::net::topology::{Node, RoutingTable};
use crate::pep::{relay, Leg, LegAction, Relay, RelayPlan};
use crate::tcp::{ConnState, Notice, PathCache, TcpConfig, TcpEndpoint, TcpOutput, VariantChoice};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The last bit of the packet in service left the link's transmitter.
    TxDone(LinkId),
    /// A packet reached the far end of a link (one delayed for reordering;
    /// the others travel in the link's propagation FIFO).
    Arrive(LinkId, PacketId),
    /// The first packet in link `l`'s propagation FIFO reached its far end.
    Propagated(LinkId),
    /// A corrupted packet reached the far end of a link whose corrupted
    /// packets travel on (`errors.corrupted_reach_next_node`).
    ArriveCorrupted(LinkId, PacketId),
    /// The NAK of the oldest frame awaiting one on link `l` is back at the
    /// transmitter (link-level ARQ): the frame waits to be sent again.
    ArqNak(LinkId),
    /// Link `l`, idle, looks for a packet to send again (a DVB-RCS2
    /// carrier's next superframe starts while packets wait).
    LinkWake(LinkId),
    TcpTimer(EndpointId),
    AppTimer(AppId, u64),
    Sample,
}

/// An application with the hosts it runs on and its TCP settings.
pub struct AppSlot {
    pub app: Box<dyn Application>,
    pub name: String,
    pub client: NodeId,
    pub server: NodeId,
    pub tcp: TcpConfig,
    /// Makes the parts of each endpoint of the application's connections.
    pub variant: VariantChoice,
    /// The proxies on the route from client to server, in that order:
    /// each splits every connection of the application (`pep`).
    pub relays: Vec<RelayPlan>,
}

/// An endpoint while its connection can still change, or what is kept of
/// it once the connection is over for good (`Simulation::retire`).
pub enum Endpoint {
    Live(Box<TcpEndpoint>),
    Retired(Box<EndpointRecord>),
}

impl Endpoint {
    /// The live endpoint: a retired one never gets a segment, a timer or an
    /// application call (that is the condition for retiring it).
    #[inline]
    pub fn live(&mut self) -> &mut TcpEndpoint {
        match self {
            Endpoint::Live(ep) => ep,
            Endpoint::Retired(_) => unreachable!("a retired endpoint was called"),
        }
    }

    /// What the results and time series read (computed for a live endpoint).
    pub fn record(&self) -> std::borrow::Cow<'_, EndpointRecord> {
        match self {
            Endpoint::Live(ep) => std::borrow::Cow::Owned(EndpointRecord::of(ep)),
            Endpoint::Retired(r) => std::borrow::Cow::Borrowed(r),
        }
    }
}

pub struct EndpointSlot {
    pub ep: Endpoint,
    /// Where the endpoint runs: its packets start there and are delivered
    /// there. (A proxy's leg speaks with another address: `Simulation::addr`.)
    pub node: NodeId,
    pub peer_node: NodeId,
    pub peer: EndpointId,
    pub conn: ConnId,
    pub side: Side,
    /// Time of the earliest timer event queued for this endpoint.
    timer_at: Option<SimTime>,
    /// Timer events queued for this endpoint, including those left behind
    /// when an earlier deadline replaced theirs.
    timers_queued: u32,
    /// When the peer's FIN arrived in order.
    pub peer_closed_at: Option<SimTime>,
}

/// A connection: endpoints 2c (client) and 2c+1 (server).
pub struct ConnInfo {
    pub app: AppId,
    pub opened: SimTime,
    /// Packets of this connection (either direction) in the network: made
    /// and not yet delivered or discarded.
    in_network: u32,
}

pub struct Simulation {
    pub now: SimTime,
    events: EventQueue<Event>,
    pool: PacketPool,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    routes: RoutingTable,
    /// Router functions per node.
    routers: Vec<Vec<Box<dyn RouterFunction>>>,
    observers: Vec<Box<dyn PacketObserver>>,
    /// Someone looks at every packet event: an observer, or a trace of the
    /// queues. Without, an idle link sends a packet at once and the events
    /// cost one test of this flag.
    watched: bool,
    /// The per-event trace, if the scenario asks for one.
    trace: Option<Box<TraceRecorder>>,
    pub endpoints: Vec<EndpointSlot>,
    pub conns: Vec<ConnInfo>,
    pub apps: Vec<AppSlot>,
    /// The split connections of the proxies.
    pub relays: Vec<Relay>,
    /// Per connection, when some are split (`intercepting`; empty
    /// otherwise, so that a run without proxies carries nothing per
    /// connection for them): its index in `relays` if it is a proxy's
    /// split connection.
    conn_relay: Vec<Option<u32>>,
    /// Some application's connections are split: a packet forwarded at a
    /// node may be addressed to a proxy's leg there.
    intercepting: bool,
    /// What finished connections left for later ones between the same
    /// hosts; it lives as long as the run, not as a connection.
    pub path_cache: PathCache,
    next_conn: ConnId,
    sample_interval: Option<Duration>,
    pub flow_series: FlowSeries,
    pub link_series: LinkSeries,
    last_link_rx: Vec<u64>,
    stop_at: SimTime,
    stop_when_apps_done: bool,
    apps_done: bool,
    /// Per application, whether it said it is done when last called back
    /// (its state changes only then), and how many are not: checking all
    /// of them after every callback would cost O(apps) per event.
    app_done: Vec<bool>,
    apps_not_done: usize,
    // Scratch buffers reused across events. A call into an endpoint can,
    // through its application, call into another endpoint (or the app
    // again) before its own output is handled, so each nesting level takes
    // a buffer from a stack of spares and gives it back: no allocation per
    // event once the stacks are as deep as the nesting. The outputs are
    // boxed so that taking and giving back one moves a pointer: moving the
    // 48 bytes of a `TcpOutput` back reloaded its vectors' lengths as wide
    // words right after they were cleared (a store-forwarding stall).
    #[allow(clippy::vec_box)] // the boxing is the point (above)
    spare_outs: Vec<Box<TcpOutput>>,
    spare_actions: Vec<Vec<AppAction>>,
    dropped: Vec<(PacketId, DropCause)>,
    /// Per link, the packets in propagation with their arrival time and
    /// event rank, in arrival order: a constant delay keeps them FIFO, so
    /// only the head needs a place in the event heap, which then holds
    /// O(links) entries instead of one per packet in flight (hundreds of
    /// thousands on a long fat path).
    propagating: Vec<VecDeque<(SimTime, u64, PacketId)>>,
    /// Connections that may have just ended for good, checked (and their
    /// endpoints retired) when the current event is over.
    may_retire: Vec<ConnId>,
    /// Check every endpoint's transport invariants after each of its events
    /// (`check_invariants`); off in normal runs, where it costs one branch.
    checking: bool,
    /// Something reads every endpoint after each call into it: the
    /// invariant checks (`checking`) or a trace of a connection kind. One
    /// test of this flag per call when neither.
    inspecting: bool,
    violations: Vec<String>,
    /// Set (only while checking) when the run cannot go on: an endpoint
    /// asked to be woken again at the instant it was just woken, which
    /// would repeat without end.
    halted: bool,
    /// Something needs looking at between events: a connection in
    /// `may_retire`, the applications all done, or `halted`. The event
    /// loop tests this one flag after each event instead of the three.
    attention: bool,
    /// Set by another thread to stop the run (Ctrl-C): read every
    /// `STOP_POLL_EVENTS` events.
    stop_flag: Option<Arc<AtomicBool>>,
    /// The run ended because `stop_flag` was set: its results are partial.
    interrupted: bool,
}

/// Events between two reads of the stop flag: a run stops within some
/// milliseconds of the request (a few hundred nanoseconds per event), and
/// the read of one shared byte per 4096 events costs nothing measurable.
const STOP_POLL_EVENTS: u32 = 4096;

/// At most this many invariant violations are kept (the first ones matter).
const MAX_VIOLATIONS: usize = 16;

impl Simulation {
    /// `routes` are the links' (`RoutingTable::shortest_paths`).
    pub fn new(
        nodes: Vec<Node>,
        links: Vec<Link>,
        apps: Vec<AppSlot>,
        routes: RoutingTable,
    ) -> Simulation {
        let n_nodes = nodes.len();
        let n_links = links.len();
        let n_apps = apps.len();
        Simulation {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            pool: PacketPool::default(),
            nodes,
            links,
            routes,
            routers: (0..n_nodes).map(|_| Vec::new()).collect(),
            observers: Vec::new(),
            watched: false,
            trace: None,
            endpoints: Vec::new(),
            conns: Vec::new(),
            intercepting: apps.iter().any(|a| !a.relays.is_empty()),
            apps,
            relays: Vec::new(),
            conn_relay: Vec::new(),
            path_cache: PathCache::default(),
            next_conn: 0,
            sample_interval: None,
            flow_series: FlowSeries::default(),
            link_series: LinkSeries::default(),
            last_link_rx: vec![0; n_links],
            stop_at: SimTime::NEVER,
            stop_when_apps_done: true,
            apps_done: false,
            app_done: vec![false; n_apps],
            apps_not_done: n_apps,
            spare_outs: Vec::new(),
            spare_actions: Vec::new(),
            dropped: Vec::new(),
            propagating: (0..n_links).map(|_| VecDeque::new()).collect(),
            may_retire: Vec::new(),
            checking: false,
            inspecting: false,
            halted: false,
            attention: false,
            stop_flag: None,
            interrupted: false,
            violations: Vec::new(),
        }
    }

    /// Adds a router function at `node` (after those already there).
    pub fn add_router_function(&mut self, node: NodeId, f: Box<dyn RouterFunction>) {
        self.routers[node as usize].push(f);
    }

    /// Adds a packet observer: it sees every enqueue, drop, transmission and
    /// arrival on every link direction.
    pub fn add_observer(&mut self, o: Box<dyn PacketObserver>) {
        self.observers.push(o);
        self.watched = true;
    }

    /// Records a per-event trace as `recorder` asks (`metrics::trace`).
    pub fn set_trace(&mut self, recorder: TraceRecorder) {
        self.watched |= recorder.reads_queues();
        self.inspecting |= recorder.reads_endpoints();
        self.trace = Some(Box::new(recorder));
    }

    /// The trace recorded so far, taken out (None without a trace).
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.as_mut().map(|t| t.take())
    }

    /// The observers, to read what they collected after the run.
    pub fn observers(&self) -> &[Box<dyn PacketObserver>] {
        &self.observers
    }

    #[inline]
    fn observe(&mut self, link: LinkId, kind: PacketEventKind, p: PacketId) {
        if self.watched {
            self.observed(link, kind, p);
        }
    }

    /// A packet event someone looks at: the queue trace reads the link
    /// direction's queue after it, the observers see it.
    #[inline(never)]
    fn observed(&mut self, link: LinkId, kind: PacketEventKind, p: PacketId) {
        if let Some(t) = self.trace.as_deref_mut() {
            if t.reads_queues() {
                let l = &self.links[link as usize];
                t.queue(link, self.now, l.queue_packets() as u64, l.queue_bytes());
            }
        }
        if self.observers.is_empty() {
            return;
        }
        let packet = self.pool.get(p);
        let to = packet.endpoint;
        let ends = (
            self.shown_as(self.endpoints[to as usize].peer),
            self.shown_as(to),
        );
        let ev = PacketEvent {
            time: self.now,
            link,
            kind,
            packet,
            ends,
        };
        for o in &mut self.observers {
            o.on_packet(&ev);
        }
    }

    /// The split connection `c` is, if it is one of a proxy's.
    pub fn relay_of(&self, c: ConnId) -> Option<u32> {
        if self.intercepting {
            self.conn_relay[c as usize]
        } else {
            None
        }
    }

    /// The endpoint `e` appears as in captures (ports): itself, or for a
    /// proxy's leg the application's endpoint it speaks for (the
    /// client-side leg for the server, the server-side leg for the client).
    fn shown_as(&self, e: EndpointId) -> EndpointId {
        match self.relay_of(e / 2) {
            None => e,
            Some(r) => 2 * self.relays[r as usize].conn + 1 - e % 2,
        }
    }

    /// The source address of endpoint `e`'s packets: its node, or for a
    /// proxy's leg the address of the end host it speaks for.
    fn addr(&self, e: EndpointId) -> NodeId {
        let slot = &self.endpoints[e as usize];
        match self.relay_of(slot.conn) {
            None => slot.node,
            Some(_) => {
                let app = &self.apps[self.conns[slot.conn as usize].app as usize];
                if e.is_multiple_of(2) {
                    app.server
                } else {
                    app.client
                }
            }
        }
    }

    /// Checks the transport invariants (`tcp::invariants`) of an endpoint
    /// after every event it handles, in release builds too; what breaks is
    /// collected in `violations`. For tests: it costs O(window) per event.
    pub fn check_invariants(&mut self, on: bool) {
        self.checking = on;
        self.inspecting = on || self.trace.as_ref().is_some_and(|t| t.reads_endpoints());
    }

    /// The invariant violations seen (the first few, with time and endpoint).
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Nothing is left to happen: no event is queued.
    pub fn idle(&self) -> bool {
        self.events.is_empty()
    }

    pub fn set_sampling(&mut self, interval: Option<Duration>) {
        self.sample_interval = interval.filter(|d| d.0 > 0);
    }

    /// Runs until `stop_at`, or earlier when every application is done and
    /// `stop_when_apps_done` is set, or when nothing is left to happen.
    pub fn run(&mut self, stop_at: SimTime, stop_when_apps_done: bool) {
        self.stop_at = stop_at;
        self.stop_when_apps_done = stop_when_apps_done;
        for a in 0..self.apps.len() {
            self.with_app(a as AppId, |app, ctx| app.start(ctx));
        }
        if self.sample_interval.is_some() {
            self.events.schedule_timer(SimTime::ZERO, Event::Sample);
        }
        // As if everything had changed: the first event is followed by a
        // full look (a run called again after one that ended).
        self.attention = true;
        // `halted` is set only with `attention`, so the loop tests the one
        // flag per event. (Testing `halted` too, its neighbour, measured
        // about 10 % slower on a single flow in the PGO build, with fewer
        // instructions: most likely the two bytes read as one word right
        // after one of them was written, a store that cannot be forwarded.)
        let mut running = !self.halted;
        // A countdown in a register, not a field: the loop's one added cost.
        let mut until_poll = STOP_POLL_EVENTS;
        while running {
            let Some((t, ev)) = self.events.pop_until(self.stop_at) else {
                break;
            };
            until_poll -= 1;
            if until_poll == 0 {
                until_poll = STOP_POLL_EVENTS;
                if self.stop_requested() {
                    self.interrupted = true;
                    // The event popped is not handled: the run ends at the
                    // time it was reached (its results are not used).
                    break;
                }
            }
            self.now = t;
            match ev {
                Event::TxDone(l) => self.on_tx_done(l),
                Event::Arrive(l, p) => self.on_arrive(l, p),
                Event::Propagated(l) => {
                    let fifo = &mut self.propagating[l as usize];
                    let (_, _, p) = fifo.pop_front().expect("a packet in propagation");
                    if let Some(&(t, rank, next)) = fifo.front() {
                        self.events.schedule_ranked(t, rank, Event::Propagated(l));
                        // It arrives a transmission time from now.
                        self.pool.prefetch(next);
                    }
                    self.on_arrive(l, p);
                }
                Event::ArriveCorrupted(l, p) => {
                    let to = self.links[l as usize].to();
                    self.drop_packet(to, l, p, DropCause::Corruption);
                }
                Event::ArqNak(l) => {
                    self.links[l as usize].on_arq_nak();
                    self.start_link(l);
                }
                Event::LinkWake(l) => self.start_link(l),
                Event::TcpTimer(e) => self.on_tcp_timer(e),
                Event::AppTimer(a, tok) => self.with_app(a, |app, ctx| app.on_timer(tok, ctx)),
                Event::Sample => self.on_sample(),
            }
            if self.attention {
                running = !self.attend();
            }
        }
        // A run that was not ended by its applications lasted until stop_at.
        if !(self.apps_done && self.stop_when_apps_done) && self.stop_at != SimTime::NEVER {
            self.now = self.stop_at;
        }
    }

    /// Another thread may stop the run by setting `flag` (checked every
    /// `STOP_POLL_EVENTS` events); `interrupted` then tells.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop_flag = Some(flag);
    }

    #[cold]
    fn stop_requested(&self) -> bool {
        self.stop_flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The last run was stopped by its stop flag before its end.
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Connection `c` may be over for good: looked at between events.
    fn may_have_ended(&mut self, c: ConnId) {
        self.may_retire.push(c);
        self.attention = true;
    }

    /// Between events: retires what may have ended; whether the run stops
    /// (halted, or every application done when that ends it).
    fn attend(&mut self) -> bool {
        self.attention = false;
        if !self.may_retire.is_empty() {
            self.retire_ended();
        }
        self.halted || (self.apps_done && self.stop_when_apps_done)
    }

    /// Whether every application has finished its work.
    pub fn apps_done(&self) -> bool {
        self.apps_done
    }

    pub fn events_processed(&self) -> u64 {
        self.events.events_popped()
    }

    // ----- network -----

    /// The link decides what becomes of the packet it has sent; this
    /// schedules it.
    fn on_tx_done(&mut self, l: LinkId) {
        let now = self.now;
        let (p, outcome) = self.links[l as usize].end_transmission(&self.pool, now);
        match outcome {
            Outcome::Deliver {
                at,
                extra_delay,
                duplicate,
            } => {
                if duplicate {
                    let copy = self.pool.get(p).clone();
                    let c = self.alloc_packet(copy);
                    self.propagate(l, at, c);
                }
                if extra_delay > Duration::ZERO {
                    self.events.schedule(at + extra_delay, Event::Arrive(l, p));
                } else {
                    self.propagate(l, at, p);
                }
            }
            Outcome::DeliverCorrupted { at } => {
                self.events.schedule(at, Event::ArriveCorrupted(l, p));
            }
            Outcome::Drop(cause) => {
                let to = self.links[l as usize].to();
                self.drop_packet(to, l, p, cause);
            }
            Outcome::Resend { nak_at } => self.events.schedule(nak_at, Event::ArqNak(l)),
        }
        self.start_link(l);
    }

    /// Puts a packet on link `l`'s wire, to arrive at `at`.
    fn propagate(&mut self, l: LinkId, at: SimTime, p: PacketId) {
        let fifo = &mut self.propagating[l as usize];
        if fifo.back().is_some_and(|&(t, _, _)| t > at) {
            // The delay just fell (a time-varying link): this packet
            // overtakes those in flight, outside the FIFO.
            self.events.schedule(at, Event::Arrive(l, p));
            return;
        }
        let rank = self.events.reserve();
        if fifo.is_empty() {
            self.events.schedule_ranked(at, rank, Event::Propagated(l));
        }
        fifo.push_back((at, rank, p));
    }

    /// Puts a new packet (a segment or a link's duplicate) into the pool.
    fn alloc_packet(&mut self, pkt: Packet) -> PacketId {
        self.conns[(pkt.endpoint / 2) as usize].in_network += 1;
        self.pool.alloc(pkt)
    }

    /// A pool slot for a new packet addressed to `endpoint`, counted in its
    /// connection's packets in the network; the caller fills every field.
    fn new_packet_slot(&mut self, endpoint: EndpointId) -> (PacketId, &mut Packet) {
        self.conns[(endpoint / 2) as usize].in_network += 1;
        self.pool.alloc_slot()
    }

    /// The packet was delivered or discarded.
    fn release_packet(&mut self, p: PacketId) {
        let c = self.pool.get(p).endpoint / 2;
        let info = &mut self.conns[c as usize];
        debug_assert!(info.in_network > 0, "conn {c}: a packet released twice");
        info.in_network -= 1;
        if info.in_network == 0 {
            self.may_have_ended(c);
        }
        self.pool.release(p);
    }

    fn start_link(&mut self, l: LinkId) {
        let now = self.now;
        let next = self.links[l as usize].start_next(&mut self.pool, now, &mut self.dropped);
        if !self.dropped.is_empty() {
            self.dropped_at_head(l);
        }
        if let Some(done) = next {
            self.events.schedule(done, Event::TxDone(l));
            if let Some(p) = self.links[l as usize].in_service() {
                self.observe(l, PacketEventKind::Transmit, p);
            }
        } else if let Some(at) = self.links[l as usize].take_wake() {
            self.events.schedule(at, Event::LinkWake(l));
        }
    }

    /// Packets link `l`'s queue dropped at its head as it chose the next
    /// one to send (CoDel): reported and released as the drops of an
    /// arrival are (`at_node`), before the packet sent is reported.
    #[cold]
    #[inline(never)]
    fn dropped_at_head(&mut self, l: LinkId) {
        let now = self.now;
        let node = self.links[l as usize].from();
        let mut dropped = std::mem::take(&mut self.dropped);
        for (d, cause) in dropped.drain(..) {
            self.observe(l, PacketEventKind::Drop(cause), d);
            if !self.routers[node as usize].is_empty() && self.pool.get(d).src != node {
                let pkt = self.pool.get(d);
                for f in &mut self.routers[node as usize] {
                    f.on_queue(pkt, l, QueueDecision::Dropped(cause), now);
                }
            }
            self.release_packet(d);
        }
        self.dropped = dropped;
    }

    fn on_arrive(&mut self, l: LinkId, p: PacketId) {
        self.observe(l, PacketEventKind::Arrive, p);
        let node = self.links[l as usize].arrived(self.pool.get(p));
        self.at_node(node, p, Some(l));
    }

    /// A packet is at `node`, having come over link `from` (None: the node
    /// sends it): deliver it there or forward it.
    fn at_node(&mut self, node: NodeId, p: PacketId, from: Option<LinkId>) {
        let dst = self.pool.get(p).dst;
        if dst == node || (self.intercepting && self.intercepted(node, p)) {
            self.deliver(p);
            return;
        }
        let Some(l) = self.routes.next_hop(node, dst) else {
            self.release_packet(p);
            return;
        };
        let now = self.now;
        let routed = !self.routers[node as usize].is_empty();
        if let (true, Some(from)) = (routed, from) {
            let pkt = self.pool.get_mut(p);
            for f in &mut self.routers[node as usize] {
                f.on_forward(pkt, from, l, now);
            }
            pkt.resize();
        }
        if !routed && !self.watched {
            // No one to tell: an idle link sends the packet at once.
            if let Some(done) = self.links[l as usize].offer_to_idle(p, &self.pool, now) {
                self.events.schedule(done, Event::TxDone(l));
                return;
            }
        }
        self.links[l as usize].offer(p, &mut self.pool, now, &mut self.dropped);
        if self.dropped.is_empty() && !routed && !self.watched {
            // Nothing dropped and no one to tell: the common case.
            self.start_link(l);
            return;
        }
        let mut dropped = std::mem::take(&mut self.dropped);
        let enqueued = !dropped.iter().any(|&(d, _)| d == p);
        if enqueued {
            self.observe(l, PacketEventKind::Enqueue, p);
            if routed && from.is_some() {
                let pkt = self.pool.get(p);
                for f in &mut self.routers[node as usize] {
                    f.on_queue(pkt, l, QueueDecision::Enqueued, now);
                }
            }
        }
        for (d, cause) in dropped.drain(..) {
            self.observe(l, PacketEventKind::Drop(cause), d);
            if routed && self.pool.get(d).src != node {
                let pkt = self.pool.get(d);
                for f in &mut self.routers[node as usize] {
                    f.on_queue(pkt, l, QueueDecision::Dropped(cause), now);
                }
            }
            self.release_packet(d);
        }
        self.dropped = dropped;
        self.start_link(l);
    }

    /// The packet is addressed to a proxy's leg at `node` (which speaks with
    /// the address of the host beyond): the proxy takes it.
    #[inline(never)]
    fn intercepted(&self, node: NodeId, p: PacketId) -> bool {
        self.endpoints[self.pool.get(p).endpoint as usize].node == node
    }

    /// `node` discards a packet that came over link `from` (lost or
    /// corrupted on it).
    fn drop_packet(&mut self, node: NodeId, from: LinkId, p: PacketId, cause: DropCause) {
        self.observe(from, PacketEventKind::Drop(cause), p);
        let now = self.now;
        let pkt = self.pool.get(p);
        for f in &mut self.routers[node as usize] {
            f.on_discard(pkt, from, cause, now);
        }
        self.release_packet(p);
    }

    // ----- TCP -----

    /// Hands packet `p` to the endpoint it is addressed to and releases it.
    /// The endpoint reads the header where it lies in the pool (copying
    /// its 120 bytes out first cost about 3 instructions per event); the
    /// release, which only the simulation sees, comes before anything the
    /// endpoint sent is put into the pool, as when the header was copied
    /// out first.
    fn deliver(&mut self, p: PacketId) {
        let mut out = self.spare_outs.pop().unwrap_or_default();
        let pkt = self.pool.get(p);
        let e = pkt.endpoint;
        self.endpoints[e as usize]
            .ep
            .live()
            .on_segment_ecn(&pkt.tcp, pkt.ecn, self.now, &mut out);
        self.release_packet(p);
        self.after_tcp(e, &mut out);
        self.spare_outs.push(out);
    }

    fn on_tcp_timer(&mut self, e: EndpointId) {
        let slot = &mut self.endpoints[e as usize];
        if slot.timer_at == Some(self.now) {
            slot.timer_at = None;
        }
        slot.timers_queued -= 1;
        let mut out = self.spare_outs.pop().unwrap_or_default();
        let ep = slot.ep.live();
        ep.on_timer(self.now, &mut out);
        if ep.state == ConnState::Finished {
            self.may_have_ended(e / 2);
        }
        if self.checking {
            self.check_timer_progress(e, !out.segments.is_empty());
        }
        self.after_tcp(e, &mut out);
        self.spare_outs.push(out);
    }

    /// A timer event must move the endpoint on: it sent something, or its
    /// next deadline lies in the future. (A timer may be due again at the
    /// same instant while it sends: TCP-Peach spaces its dummies by
    /// RTT / rwnd, which a zero RTT makes zero.) If neither, the event
    /// would be scheduled again at the same instant for ever (a livelock
    /// in zero simulated time, which no time bound catches), so the
    /// violation is recorded and the run halted.
    fn check_timer_progress(&mut self, e: EndpointId, sent: bool) {
        let next = self.endpoints[e as usize].ep.live().next_deadline();
        if let Some(d) = next.filter(|&d| !sent && d <= self.now) {
            if self.violations.len() < MAX_VIOLATIONS {
                self.violations.push(format!(
                    "t = {} s, endpoint {e}: its timer fired, sent nothing and left the next deadline ({} s) no later; run halted",
                    self.now.as_secs_f64(),
                    d.as_secs_f64()
                ));
            }
            self.halted = true;
            self.attention = true;
        }
    }

    /// Sends what the endpoint emitted, passes its notices to the app and
    /// makes sure a timer event is queued for its next deadline.
    fn after_tcp(&mut self, e: EndpointId, out: &mut TcpOutput) {
        let now = self.now;
        if self.inspecting {
            self.inspect(e);
        }
        let (node, peer_node, peer) = {
            let s = &self.endpoints[e as usize];
            (s.node, s.peer_node, s.peer)
        };
        let addr = if self.intercepting {
            self.addr(e)
        } else {
            node
        };
        for (hdr, prio) in &out.segments {
            // Built in place in the pool (see `PacketPool::alloc_slot`); the
            // pattern names every field, so none can be left stale.
            let (p, slot) = self.new_packet_slot(peer);
            let Packet {
                src,
                dst,
                endpoint,
                size,
                priority,
                ecn,
                tcp,
                created,
            } = slot;
            *src = addr;
            *dst = peer_node;
            *endpoint = peer;
            *size = hdr.wire_bytes();
            *priority = *prio;
            *ecn = if hdr.ect { Ecn::Ect } else { Ecn::NotEct };
            *tcp = *hdr;
            *created = now;
            self.at_node(node, p, None);
        }
        out.segments.clear();
        self.ensure_timer(e);
        if self.intercepting {
            if let Some(r) = self.relay_of(self.endpoints[e as usize].conn) {
                self.after_relay_leg(r, e, out);
                return;
            }
        }
        if !out.notices.is_empty() {
            let (conn, side) = {
                let s = &self.endpoints[e as usize];
                (s.conn, s.side)
            };
            let app = self.conns[conn as usize].app;
            // Taken out (not copied) while the application runs; the
            // buffer goes back, empty, to `out`, which nothing else uses
            // meanwhile.
            let mut notices = std::mem::take(&mut out.notices);
            if notices.contains(&Notice::PeerClosed) {
                self.endpoints[e as usize].peer_closed_at = Some(now);
            }
            // Before the application hears of it: an application that opens
            // its next connection right away must find the entry.
            if notices.contains(&Notice::Finished) {
                if let Some(entry) = self.endpoints[e as usize].ep.live().cache_entry(now) {
                    self.path_cache.store(node, peer_node, entry);
                }
                self.may_have_ended(conn);
            }
            for &n in &notices {
                self.with_app(app, |a, ctx| a.on_notice(conn, side, n, ctx));
            }
            notices.clear();
            out.notices = notices;
        }
    }

    /// After a call into a proxy's leg `e` (its segments sent): its notices
    /// move the other leg (`pep::relay`), and both directions' buffers are
    /// brought up to date, which may send window updates.
    fn after_relay_leg(&mut self, r: u32, e: EndpointId, out: &mut TcpOutput) {
        let conn = self.endpoints[e as usize].conn;
        let now = self.now;
        let leg_of = |x: EndpointId| {
            if x.is_multiple_of(2) {
                Leg::ClientSide
            } else {
                Leg::ServerSide
            }
        };
        let ep_of = |l: Leg| 2 * conn + l.index() as EndpointId;
        let mut notices = std::mem::take(&mut out.notices);
        if notices.contains(&Notice::Finished) {
            self.may_have_ended(conn);
        }
        for &n in &notices {
            let Some(act) = relay::on_notice(leg_of(e), n) else {
                continue;
            };
            let mut o = self.spare_outs.pop().unwrap_or_default();
            let target = match act {
                LegAction::Connect(l) => {
                    self.endpoints[ep_of(l) as usize]
                        .ep
                        .live()
                        .connect(now, &mut o);
                    l
                }
                LegAction::Write(l, bytes) => {
                    self.endpoints[ep_of(l) as usize]
                        .ep
                        .live()
                        .write(bytes, now, &mut o);
                    l
                }
                LegAction::Close(l) => {
                    if matches!(self.endpoints[ep_of(l) as usize].ep, Endpoint::Retired(_)) {
                        continue;
                    }
                    self.endpoints[ep_of(l) as usize]
                        .ep
                        .live()
                        .close(now, &mut o);
                    l
                }
            };
            self.after_tcp(ep_of(target), &mut o);
            self.spare_outs.push(o);
        }
        notices.clear();
        out.notices = notices;
        for receiving in [Leg::ClientSide, Leg::ServerSide] {
            let (rx, onward) = (ep_of(receiving) as usize, ep_of(receiving.other()) as usize);
            let (Endpoint::Live(_), Endpoint::Live(_)) =
                (&self.endpoints[rx].ep, &self.endpoints[onward].ep)
            else {
                continue;
            };
            let mut o = self.spare_outs.pop().unwrap_or_default();
            let (a, b) = if rx < onward {
                let (lo, hi) = self.endpoints.split_at_mut(onward);
                (&mut lo[rx], &hi[0])
            } else {
                let (lo, hi) = self.endpoints.split_at_mut(rx);
                (&mut hi[0], &lo[onward])
            };
            let (Endpoint::Live(rx_ep), Endpoint::Live(on_ep)) = (&mut a.ep, &b.ep) else {
                unreachable!()
            };
            self.relays[r as usize].sync(receiving, rx_ep, on_ep, now, &mut o);
            if !o.segments.is_empty() {
                self.after_tcp(ep_of(receiving), &mut o);
            }
            self.spare_outs.push(o);
        }
    }

    /// After a call into endpoint `e`: its invariants checked, its trace
    /// recorded (whichever is on). A retired endpoint is never called, so
    /// `e` is live here.
    #[inline(never)]
    fn inspect(&mut self, e: EndpointId) {
        let now = self.now;
        let Endpoint::Live(ep) = &self.endpoints[e as usize].ep else {
            return;
        };
        if self.checking && self.violations.len() < MAX_VIOLATIONS {
            if let Err(v) = ep.check_invariants() {
                self.violations
                    .push(format!("t = {} s, endpoint {e}: {v}", now.as_secs_f64()));
            }
        }
        if let Some(t) = self.trace.as_deref_mut() {
            if t.reads_endpoints() {
                t.endpoint(e, now, ep);
            }
        }
    }

    fn ensure_timer(&mut self, e: EndpointId) {
        let slot = &mut self.endpoints[e as usize];
        if let Some(d) = slot.ep.live().next_deadline() {
            let d = d.max(self.now);
            if slot.timer_at.is_none_or(|t| d < t) {
                slot.timer_at = Some(d);
                slot.timers_queued += 1;
                self.events.schedule_timer(d, Event::TcpTimer(e));
            }
        }
    }

    // ----- applications -----

    fn with_app<F: FnOnce(&mut dyn Application, &mut AppCtx)>(&mut self, a: AppId, f: F) {
        let mut actions = self.spare_actions.pop().unwrap_or_default();
        {
            let ids = 1 + self.apps[a as usize].relays.len() as ConnId;
            let mut ctx =
                AppCtx::new(self.now, &mut actions, &mut self.next_conn).with_ids_per_open(ids);
            f(self.apps[a as usize].app.as_mut(), &mut ctx);
        }
        // Actions may trigger nested app callbacks, which use a fresh buffer.
        for act in actions.drain(..) {
            self.do_action(a, act);
        }
        self.spare_actions.push(actions);
        let done = self.apps[a as usize].app.is_done();
        let was = std::mem::replace(&mut self.app_done[a as usize], done);
        match (was, done) {
            (false, true) => {
                self.apps_not_done -= 1;
                // The last one is done: the loop looks whether that ends
                // the run (once, not after every later call).
                self.attention |= self.apps_not_done == 0;
            }
            (true, false) => self.apps_not_done += 1,
            _ => {}
        }
        self.apps_done = self.apps_not_done == 0;
    }

    fn do_action(&mut self, a: AppId, act: AppAction) {
        let now = self.now;
        match act {
            AppAction::Open(conn) => {
                self.open_connection(a, conn);
                let e = 2 * conn;
                let mut out = self.spare_outs.pop().unwrap_or_default();
                self.endpoints[e as usize].ep.live().connect(now, &mut out);
                self.after_tcp(e, &mut out);
                self.spare_outs.push(out);
            }
            AppAction::Write(conn, side, bytes) => {
                let e = Self::endpoint_of(conn, side);
                let mut out = self.spare_outs.pop().unwrap_or_default();
                self.endpoints[e as usize]
                    .ep
                    .live()
                    .write(bytes, now, &mut out);
                self.after_tcp(e, &mut out);
                self.spare_outs.push(out);
            }
            AppAction::Close(conn, side) => {
                let e = Self::endpoint_of(conn, side);
                if matches!(self.endpoints[e as usize].ep, Endpoint::Retired(_)) {
                    // Its FIN is sent and acknowledged: closing again would
                    // do nothing.
                    return;
                }
                let mut out = self.spare_outs.pop().unwrap_or_default();
                self.endpoints[e as usize].ep.live().close(now, &mut out);
                self.after_tcp(e, &mut out);
                self.spare_outs.push(out);
            }
            AppAction::Timer(at, tok) => self.events.schedule_timer(at, Event::AppTimer(a, tok)),
        }
    }

    fn endpoint_of(conn: ConnId, side: Side) -> EndpointId {
        match side {
            Side::Client => 2 * conn,
            Side::Server => 2 * conn + 1,
        }
    }

    fn open_connection(&mut self, a: AppId, conn: ConnId) {
        assert_eq!(conn as usize, self.conns.len());
        let slot = &self.apps[a as usize];
        let (client, server) = (slot.client, slot.server);
        let make = || Box::new(TcpEndpoint::from_parts(&slot.tcp, slot.variant.endpoint()));
        let mut c_ep = make();
        let mut s_ep = make();
        c_ep.start_from_cache(self.path_cache.get(client, server), self.now);
        s_ep.start_from_cache(self.path_cache.get(server, client), self.now);
        s_ep.listen();
        let ce = 2 * conn;
        let relays = slot.relays.len() as EndpointId;
        // With proxies on the route, the client talks to the first one's
        // client-side leg and the server to the last one's server-side leg.
        let (client_peer, server_peer) = if relays == 0 {
            (ce + 1, ce)
        } else {
            (ce + 2, ce + 2 * relays + 1)
        };
        self.endpoints.push(EndpointSlot {
            ep: Endpoint::Live(c_ep),
            node: client,
            peer_node: server,
            peer: client_peer,
            conn,
            side: Side::Client,
            timer_at: None,
            timers_queued: 0,
            peer_closed_at: None,
        });
        self.endpoints.push(EndpointSlot {
            ep: Endpoint::Live(s_ep),
            node: server,
            peer_node: client,
            peer: server_peer,
            conn,
            side: Side::Server,
            timer_at: None,
            timers_queued: 0,
            peer_closed_at: None,
        });
        self.conns.push(ConnInfo {
            app: a,
            opened: self.now,
            in_network: 0,
        });
        if self.intercepting {
            self.conn_relay.push(None);
        }
        if relays > 0 {
            self.split(a, conn);
        }
    }

    /// Connection `conn` of application `a` crosses proxies: each gets a
    /// split connection (the ids after `conn`) whose client-side leg
    /// speaks for the server and server-side leg for the client.
    fn split(&mut self, a: AppId, conn: ConnId) {
        let slot = &self.apps[a as usize];
        let (client, server) = (slot.client, slot.server);
        let hops = slot.relays.len() as u32;
        for hop in 0..hops {
            let plan = &self.apps[a as usize].relays[hop as usize];
            let (node, near, far) = (
                plan.node,
                plan.endpoint(Leg::ClientSide),
                plan.endpoint(Leg::ServerSide),
            );
            let c = conn + 1 + hop;
            assert_eq!(c as usize, self.conns.len());
            // Toward the client: the previous hop's server side, or the client.
            let prev = if hop == 0 { 2 * conn } else { 2 * c - 1 };
            let next = if hop + 1 == hops {
                2 * conn + 1
            } else {
                2 * c + 2
            };
            let leg = |ep: Box<TcpEndpoint>, peer_node, peer, side| EndpointSlot {
                ep: Endpoint::Live(ep),
                node,
                peer_node,
                peer,
                conn: c,
                side,
                timer_at: None,
                timers_queued: 0,
                peer_closed_at: None,
            };
            let near = leg(Box::new(near), client, prev, Side::Server);
            let far = leg(Box::new(far), server, next, Side::Client);
            self.endpoints.push(near);
            self.endpoints.push(far);
            self.conns.push(ConnInfo {
                app: a,
                opened: self.now,
                in_network: 0,
            });
            self.conn_relay.push(Some(self.relays.len() as u32));
            self.relays.push(Relay::new(conn, hop as u16));
        }
    }

    /// Retires the endpoints of the connections in `may_retire` that are
    /// over for good (`retirable`). Nothing can call into them again, so
    /// what the results and time series read is all that must stay. A
    /// connection retired may free the connections of its endpoints' peers
    /// (a proxy's legs wait for the client and the server, and they for
    /// the legs), which are looked at in turn. Runs between events, never
    /// while an endpoint is being called. Kept out of the event loop: it
    /// runs about once per connection, and inlined there it cost a single
    /// flow some 25-30 % per event in the PGO build (the loop's registers).
    #[cold]
    #[inline(never)]
    fn retire_ended(&mut self) {
        let mut cands = std::mem::take(&mut self.may_retire);
        let mut i = 0;
        while i < cands.len() {
            let c = cands[i] as usize;
            i += 1;
            if !self.retirable(c) {
                continue;
            }
            for e in [2 * c, 2 * c + 1] {
                let slot = &mut self.endpoints[e];
                let record = Box::new(EndpointRecord::of(slot.ep.live()));
                slot.ep = Endpoint::Retired(record);
                let peer_conn = slot.peer / 2;
                if peer_conn as usize != c {
                    cands.push(peer_conn);
                }
            }
        }
        cands.clear();
        self.may_retire = cands;
    }

    /// Connection `c` is over for good: both endpoints finished (both FINs
    /// sent and acknowledged, so the applications can only close them
    /// again, which does nothing), with no timer event queued or deadline
    /// set (none can wake them), and no packet addressed to them in the
    /// network; and so is each endpoint's peer, when it is in another
    /// connection (a proxy's leg: the client, the server or the next
    /// leg), or it is retired. Else the peer may still send to it: a
    /// client whose FIN's acknowledgement was lost sends the FIN again.
    fn retirable(&self, c: usize) -> bool {
        let ended = |e: usize| {
            let s = &self.endpoints[e];
            match &s.ep {
                Endpoint::Live(ep) => {
                    ep.state == ConnState::Finished
                        && s.timers_queued == 0
                        && ep.next_deadline().is_none()
                }
                Endpoint::Retired(_) => false,
            }
        };
        let quiet = |conn: usize| self.conns[conn].in_network == 0;
        if !quiet(c) || !ended(2 * c) || !ended(2 * c + 1) {
            return false;
        }
        [2 * c, 2 * c + 1].iter().all(|&e| {
            let peer = self.endpoints[e].peer as usize;
            peer / 2 == c
                || matches!(self.endpoints[peer].ep, Endpoint::Retired(_))
                || (ended(peer) && quiet(peer / 2))
        })
    }

    // ----- sampling -----

    fn on_sample(&mut self) {
        let t = self.now.as_secs_f64();
        for c in 0..self.conns.len() {
            if self.relay_of(c as ConnId).is_some() {
                continue;
            }
            let srv = self.endpoints[2 * c + 1].ep.record();
            let cli = self.endpoints[2 * c].ep.record();
            let fs = &mut self.flow_series;
            fs.time_s.push(t);
            fs.conn.push(c as u32);
            fs.cwnd.push(srv.cwnd);
            fs.cc_phase.push(srv.cc_phase);
            fs.ssthresh.push(srv.ssthresh);
            fs.flight_size.push(srv.flight_size);
            fs.pipe.push(srv.pipe);
            fs.srtt_s
                .push(srv.srtt.map_or(f64::NAN, |d| d.as_secs_f64()));
            fs.rto_s.push(srv.rto.as_secs_f64());
            fs.snd_una.push(srv.snd_una);
            fs.snd_max.push(srv.snd_max);
            fs.retransmitted_segments
                .push(srv.stats.retransmitted_segments);
            fs.rcv_nxt.push(cli.rcv_nxt_or_zero);
            fs.bytes_delivered.push(cli.stats.bytes_delivered);
            fs.payload_bytes_received
                .push(cli.stats.payload_bytes_received);
        }
        let dt = self.sample_interval.map_or(1.0, |d| d.as_secs_f64());
        self.link_series
            .sample(t, dt, &self.links, &mut self.last_link_rx);
        if let Some(d) = self.sample_interval {
            self.events.schedule_timer(self.now + d, Event::Sample);
        }
    }
}
