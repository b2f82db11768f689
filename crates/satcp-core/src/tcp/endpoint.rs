//! One TCP endpoint: the connection machinery shared by every variant.
//!
//! It owns the handshake and teardown, sequence space, the scoreboard, the
//! retransmission timer, the receive side and ACK generation. It asks its
//! `CongestionControl` how cwnd/ssthresh move, its `LossRecovery` when loss
//! recovery starts and what is presumed lost, and its `AckPolicy` when to
//! acknowledge. It never asks which variant it is.
//!
//! Our initial sequence number is 0: the SYN occupies sequence number 0, data
//! starts at 1, and the FIN follows the last data byte.

use super::ack_info::{dsack_block, AckInfo};
use super::config::ScoreboardAfterTimeout;
use super::config::TcpConfig;
use super::congestion::{CcEvent, CongestionControl, Reply};
use super::cwnd_validation::CwndUse;
use super::delayed_ack::{AckPolicy, DelayedAck};
use super::ecn::EcnState;
use super::flow_stats::FlowStats;
use super::invariants;
use super::nagle::NagleState;
use super::options::TcpOptions;
use super::path_cache::CachedPath;
use super::quick_ack::QuickAck;
use super::receiver::ReceiveHalf;
use super::receiver_part::{ExtraAck, ReceiverPart};
use super::recovery::frto::{Frto, FrtoAck, Verdict};
use super::recovery::rack::Rack;
use super::recovery::tlp::{ProbeAnswer, Tlp};
use super::recovery::RecoveryCounters;
use super::recovery::{LossRecovery, RecoveryAck, RecoveryRules};
use super::rtt_estimator::RttEstimator;
use super::send_state::{CongState, SendState, UndoState};
use super::sent_queue::{Acked, DeliveredNow, SentQueue};
use super::slow_start::SlowStartRules;
use super::stall_record::StallRecord;
use super::variant::EndpointParts;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{flags, Ecn, Priority, SeqRange, TcpHeader, MAX_SACK_BLOCKS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    /// Both FINs sent and acknowledged.
    Finished,
    Aborted,
}

/// What the endpoint tells its application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    Connected,
    /// Bytes newly delivered in order.
    Delivered(u64),
    /// The peer's FIN arrived in order: no more data will come.
    PeerClosed,
    /// Both directions are closed and acknowledged.
    Finished,
    /// The retransmission limit was exceeded.
    Aborted,
}

/// What kind of segment `emit` sends: SYN and FIN occupy sequence space;
/// `new_data` is a first transmission (ECN: ECT and CWR go on new data only).
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    syn: bool,
    fin: bool,
    new_data: bool,
}

/// The earlier of two optional deadlines.
fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Segments to put on the wire and notices for the application, collected
/// during one call into the endpoint.
#[derive(Default)]
pub struct TcpOutput {
    pub segments: Vec<(TcpHeader, Priority)>,
    pub notices: Vec<Notice>,
}

pub struct TcpEndpoint {
    pub state: ConnState,
    pub tx: SendState,
    pub rx: ReceiveHalf,
    cc: Box<dyn CongestionControl>,
    recovery: Box<dyn LossRecovery>,
    /// The recovery module's rules, read once.
    rules: RecoveryRules,
    /// Undo reductions a DSACK shows spurious (`EndpointParts`).
    undo_on_dsack: bool,
    ack_policy: Box<dyn AckPolicy>,
    receiver: Option<Box<dyn ReceiverPart>>,
    ecn: EcnState,
    opts: TcpOptions,
    rto_deadline: Option<SimTime>,
    ack_now: bool,
    sack_offered: bool,
    initial_window: u32,
    nagle: NagleState,
    max_retransmissions: u32,
    consecutive_rtos: u32,
    /// try_send stopped because the pacing gate was closed.
    pacing_blocked: bool,
    /// Most recent data segment sent (seq, len), copied by extra segments.
    last_data: Option<(u64, u32)>,
    pub stats: FlowStats,
    /// What a timeout does to the SACK scoreboard.
    scoreboard_after_timeout: ScoreboardAfterTimeout,
    /// What the loss-recovery mechanisms beyond the RFC 6675 / RFC 6582
    /// defaults did (reported only for those switched on).
    recovery_counters: RecoveryCounters,
    /// F-RTO (RFC 5682), when `tcp.frto`.
    frto: Option<Frto>,
    /// RACK and tail loss probes (RFC 8985), when `tcp.rack_tlp` (used on
    /// SACK connections only, as Linux). Boxed, as Linux's RTO and HyStart++
    /// are in `SendState`: a sender without them carries a pointer, not
    /// their state, between the fields every ACK reads.
    rack: Option<Box<Rack>>,
    tlp: Option<Box<Tlp>>,
    /// Aborts, backed-off RTOs and stretches without an RTT sample, for
    /// the results' diagnosis.
    pub stalls: StallRecord,
    /// Bytes delivered in order that the application has not taken yet
    /// (`hold_delivered`); None: it takes them at once (docs/model.md), and
    /// the advertised window is the whole buffer.
    unread: Option<u64>,
}

impl TcpEndpoint {
    /// An endpoint running a congestion module and a loss-recovery module,
    /// with no receiver part.
    pub fn new(
        cfg: &TcpConfig,
        sack: bool,
        cc: Box<dyn CongestionControl>,
        recovery: Box<dyn LossRecovery>,
    ) -> TcpEndpoint {
        TcpEndpoint::from_parts(cfg, EndpointParts::new(cc, recovery, sack))
    }

    /// An endpoint running the parts a variant's factory made.
    pub fn from_parts(cfg: &TcpConfig, parts: EndpointParts) -> TcpEndpoint {
        let ack_policy: Box<dyn AckPolicy> = if cfg.delayed_ack {
            Box::new(
                DelayedAck::new(
                    Duration::from_secs_f64(cfg.max_ack_delay),
                    cfg.max_ack_segments,
                )
                .with_quick_acks(QuickAck::new(
                    cfg.quick_acks,
                    cfg.rcv_buffer as u64,
                    cfg.mss,
                )),
            )
        } else {
            Box::new(DelayedAck::disabled())
        };
        let mss = cfg.mss;
        // PRR sets cwnd in recovery, unless the congestion control does.
        let prr = cfg.prr && !parts.cc.owns_cwnd();
        let recovery = super::recovery::with_settings(parts.recovery, prr);
        let mut ep = TcpEndpoint {
            state: ConnState::Closed,
            tx: SendState {
                mss,
                snd_una: 0,
                snd_max: 0,
                stream_end: 1,
                fin_seq: None,
                cwnd: cfg.initial_window as u64 * mss as u64,
                ssthresh: cfg.initial_ssthresh,
                rwnd: cfg.rcv_buffer as u64,
                dupacks: 0,
                dupthresh: cfg.dupack_threshold,
                state: CongState::Open,
                recover: 0,
                retransmit_now: false,
                sack: false,
                rtt: RttEstimator::new(cfg),
                sent: SentQueue::default(),
                extra: Vec::new(),
                next_send_time: SimTime::ZERO,
                undo: UndoState::default(),
                loss_by_time: false,
                slow_start: SlowStartRules::new(cfg),
                cwnd_use: CwndUse::new(cfg),
                ssthresh_from: cfg.ssthresh_from,
            },
            rx: ReceiveHalf::new(cfg.rcv_buffer.min(65_535), false, cfg.dsack),
            cc: parts.cc,
            rules: recovery.rules(),
            recovery,
            // `tcp.undo` undoes DSACK-shown spurious reductions for every
            // variant (Linux's tcp_try_undo_dsack / tcp_try_undo_recovery).
            undo_on_dsack: parts.undo_on_dsack || cfg.undo,
            ack_policy,
            receiver: parts.receiver,
            ecn: EcnState::new(cfg.ecn),
            opts: TcpOptions::new(cfg),
            rto_deadline: None,
            ack_now: false,
            sack_offered: parts.sack,
            initial_window: cfg.initial_window,
            nagle: NagleState::new(cfg.nagle),
            max_retransmissions: cfg.max_retransmissions,
            consecutive_rtos: 0,
            pacing_blocked: false,
            last_data: None,
            stats: FlowStats::default(),
            scoreboard_after_timeout: cfg.scoreboard_after_timeout,
            recovery_counters: RecoveryCounters::new(cfg),
            frto: cfg.frto.then(Frto::default),
            rack: cfg.rack_tlp.then(Box::default),
            tlp: cfg.rack_tlp.then(Box::default),
            stalls: StallRecord::default(),
            unread: None,
        };
        if ep.frto.is_some() || ep.rack.is_some() {
            ep.tx.sent.track_delivered();
        }
        ep
    }

    /// Offers the congestion module what the path cache holds for this
    /// connection's direction, right after the connection is created (the
    /// cache itself belongs to the simulation: it outlives connections).
    pub fn start_from_cache(&mut self, cached: Option<&CachedPath>, now: SimTime) {
        self.cc
            .on_event(&mut self.tx, CcEvent::ConnectionStart(cached), now);
        self.debug_check();
    }

    /// What the congestion module leaves in the path cache; asked once,
    /// when the connection has finished.
    pub fn cache_entry(&mut self, now: SimTime) -> Option<CachedPath> {
        self.cc.cache_entry(&self.tx, now)
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    pub fn cc_counters(&self) -> Vec<(&'static str, u64)> {
        self.cc.counters()
    }
    pub fn cc_phase(&self) -> i32 {
        self.cc.trace_phase()
    }
    pub fn recovery_name(&self) -> &'static str {
        self.recovery.name()
    }
    /// Counters of the loss-recovery mechanisms switched on (reneging,
    /// F-RTO, PRR, RACK-TLP); empty with the RFC defaults.
    pub fn recovery_counters(&self) -> Vec<(&'static str, u64)> {
        self.recovery_counters.reported()
    }

    // ----- invariants -----

    /// The transport invariants (`tcp::invariants`) of this endpoint's send
    /// and receive state: the first one broken, described.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check_sender(&self.tx)?;
        invariants::check_receiver(&self.rx, self.stats.bytes_delivered)?;
        if self.state == ConnState::Finished && self.tx.snd_una != self.tx.snd_max {
            return Err("finished with data unacknowledged".into());
        }
        Ok(())
    }

    /// Debug builds check the invariants after every call that changes the
    /// endpoint's state; release builds compile this to nothing.
    #[inline]
    fn debug_check(&self) {
        debug_assert_eq!(self.check_invariants(), Ok(()), "transport invariant");
    }

    // ----- application interface -----

    /// Active open: sends the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut TcpOutput) {
        debug_assert_eq!(self.state, ConnState::Closed);
        self.state = ConnState::SynSent;
        self.send_syn(now, out);
        self.debug_check();
    }

    /// Passive open.
    pub fn listen(&mut self) {
        self.state = ConnState::Listen;
    }

    /// The application hands `bytes` more bytes to send.
    pub fn write(&mut self, bytes: u64, now: SimTime, out: &mut TcpOutput) {
        assert!(self.tx.fin_seq.is_none(), "write after close");
        self.tx.stream_end += bytes;
        self.restart_if_idle(now);
        self.try_send(now, out);
        self.debug_check();
    }

    /// The application will send nothing more: a FIN follows the data.
    pub fn close(&mut self, now: SimTime, out: &mut TcpOutput) {
        if self.tx.fin_seq.is_none() {
            self.tx.fin_seq = Some(self.tx.stream_end);
            self.try_send(now, out);
        }
        self.debug_check();
    }

    /// From now on, delivered bytes stay in the receive buffer until the
    /// application says it took them (`set_unread`): the advertised window
    /// is the room left (a proxy relaying into a full onward connection).
    pub fn hold_delivered(&mut self) {
        self.unread = Some(0);
    }

    /// Bytes delivered and not yet taken by the application (0 when it
    /// takes them at once).
    pub fn unread(&self) -> u64 {
        self.unread.unwrap_or(0)
    }

    /// The application still holds `unread` of the delivered bytes (it took
    /// the others). A window reopened this way is advertised at once when
    /// Linux would (`__tcp_cleanup_rbuf`): the window the peer may still
    /// use was at most half the buffer and at least doubled; a window
    /// update after a zero window is one such.
    pub fn set_unread(&mut self, unread: u64, now: SimTime, out: &mut TcpOutput) {
        let Some(held) = self.unread.as_mut() else {
            return;
        };
        if *held == unread {
            return;
        }
        *held = unread;
        let before = self.opts.adv_window;
        self.opts.set_unread(unread);
        let after = self.opts.adv_window;
        let doubled = after > 0 && after >= 2 * before;
        if doubled && before <= self.opts.window_limit() / 2 && self.state != ConnState::Listen {
            self.ack_now = true;
            self.flush_ack(now, out);
        }
        self.debug_check();
    }

    /// The window this endpoint advertises now, bytes.
    pub fn advertised_window(&self) -> u32 {
        self.opts.adv_window
    }

    /// Application bytes written and not yet acknowledged.
    pub fn unacked_app_bytes(&self) -> u64 {
        self.tx.stream_end - self.tx.snd_una.clamp(1, self.tx.stream_end)
    }

    // ----- events -----

    /// A segment addressed to this endpoint arrived in a datagram that was
    /// not ECN-capable.
    pub fn on_segment(&mut self, h: &TcpHeader, now: SimTime, out: &mut TcpOutput) {
        self.on_segment_ecn(h, Ecn::NotEct, now, out);
    }

    /// A segment arrived in a datagram whose ECN field is `ecn` (CE if a
    /// router marked it).
    pub fn on_segment_ecn(&mut self, h: &TcpHeader, ecn: Ecn, now: SimTime, out: &mut TcpOutput) {
        self.segment_arrived(h, ecn, now, out);
        self.debug_check();
    }

    fn segment_arrived(&mut self, h: &TcpHeader, ecn: Ecn, now: SimTime, out: &mut TcpOutput) {
        self.stats.segments_received += 1;
        if matches!(self.state, ConnState::Aborted | ConnState::Closed) {
            return;
        }
        if h.has(flags::SYN) {
            self.on_syn(h, now, out);
            return;
        }
        if matches!(self.state, ConnState::Listen | ConnState::SynSent) {
            return;
        }
        if self.ecn.on_arrival(h, ecn) {
            self.stats.ce_marks_received += 1;
        }
        if self.screen(h, now, out) {
            return;
        }
        self.opts.on_arrival(h);
        if h.has(flags::ACK) {
            self.on_ack(h, now, out);
        }
        if h.len > 0 || h.has(flags::FIN) {
            self.on_data(h, now, out);
        }
        self.try_send(now, out);
        self.flush_ack(now, out);
        self.check_finished(out);
    }

    /// The earliest time `on_timer` has work to do.
    pub fn next_deadline(&self) -> Option<SimTime> {
        // An ended connection ignores its timers (`timer_fired`), so it
        // must not ask for one: a deadline left behind (a variant's timer
        // already due when the retry limit aborted the connection) would
        // otherwise be rescheduled at the same instant for ever.
        if matches!(self.state, ConnState::Aborted | ConnState::Closed) {
            return None;
        }
        earliest(
            earliest(self.rto_deadline, self.ack_policy.deadline()),
            earliest(
                earliest(self.cc.next_timer(), self.pacing_deadline()),
                self.loss_timer_deadline(),
            ),
        )
    }

    /// RACK's reorder timer and the tail loss probe timer (RFC 8985).
    fn loss_timer_deadline(&self) -> Option<SimTime> {
        earliest(
            self.rack.as_ref().and_then(|r| r.deadline()),
            self.tlp.as_ref().and_then(|t| t.deadline()),
        )
    }

    pub fn on_timer(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.timer_fired(now, out);
        self.debug_check();
    }

    fn timer_fired(&mut self, now: SimTime, out: &mut TcpOutput) {
        if matches!(self.state, ConnState::Aborted | ConnState::Closed) {
            return;
        }
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.on_rto(now, out);
            if self.state == ConnState::Aborted {
                return;
            }
        }
        if self
            .tlp
            .as_ref()
            .and_then(|t| t.deadline())
            .is_some_and(|t| t <= now)
        {
            self.send_loss_probe(now, out);
        }
        if self
            .rack
            .as_ref()
            .and_then(|r| r.deadline())
            .is_some_and(|t| t <= now)
        {
            self.on_reorder_timer(now);
        }
        if self.ack_policy.deadline().is_some_and(|t| t <= now) {
            self.ack_now = true;
        }
        if self.cc.next_timer().is_some_and(|t| t <= now) {
            self.cc.on_event(&mut self.tx, CcEvent::Timer, now);
        }
        self.try_send(now, out);
        self.flush_ack(now, out);
    }

    // ----- handshake -----

    fn send_syn(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.tx.sent.push_new(SeqRange::new(0, 1), true, false, now);
        self.tx.snd_max = 1;
        self.emit(
            0,
            0,
            Flags {
                syn: true,
                fin: false,
                new_data: false,
            },
            now,
            out,
        );
        self.arm_rto(now);
    }

    fn on_syn(&mut self, h: &TcpHeader, now: SimTime, out: &mut TcpOutput) {
        match self.state {
            ConnState::Listen => {
                self.rx.on_syn(h.seq);
                self.negotiate_options(h);
                self.ecn.on_peer_syn(h, false);
                self.tx.rwnd = h.window as u64;
                self.state = ConnState::SynReceived;
                self.send_syn(now, out);
            }
            ConnState::SynSent if h.has(flags::ACK) && h.ack == 1 => {
                self.rx.on_syn(h.seq);
                self.negotiate_options(h);
                self.ecn.on_peer_syn(h, true);
                self.on_ack(h, now, out);
                self.state = ConnState::Established;
                out.notices.push(Notice::Connected);
                self.ack_now = true;
                self.try_send(now, out);
                self.flush_ack(now, out);
            }
            ConnState::SynReceived if !h.has(flags::ACK) => {
                // The peer did not get our SYN-ACK: send it again.
                if self.tx.sent.first().is_some_and(|f| f.syn) {
                    self.retransmit(0, now, out);
                }
            }
            _ => {
                // A duplicate SYN-ACK: our handshake ACK was lost.
                if self.rx.rcv_nxt.is_some() {
                    self.ack_now = true;
                    self.flush_ack(now, out);
                }
            }
        }
    }

    /// The peer's SYN or SYN-ACK: SACK, window scaling and timestamps are
    /// used when both ends offered them.
    fn negotiate_options(&mut self, h: &TcpHeader) {
        let sack = self.sack_offered && h.sack_permitted;
        self.sack_offered = sack;
        self.tx.sack = sack;
        self.tx.loss_by_time = sack && self.rack.is_some();
        self.rx.set_sack(sack);
        self.opts.on_peer_syn(h);
        self.rx.rcv_wnd = self.opts.adv_window;
        let overhead = self.opts.payload_overhead();
        if overhead > 0 {
            // The timestamps option takes its 12 bytes from the payload of
            // each segment, as Linux does, so that segments keep their size.
            self.tx.mss -= overhead;
            self.tx.cwnd = self.initial_window as u64 * self.tx.mss as u64;
        }
    }

    // ----- the sending side -----

    fn on_ack(&mut self, h: &TcpHeader, now: SimTime, out: &mut TcpOutput) {
        let ack = h.ack;
        if ack > self.tx.snd_max {
            return; // acknowledges something never sent
        }
        let window = self.opts.peer_window(h);
        let in_timeout_recovery = self.tx.state == CongState::Loss;
        let prior_in_flight = self.tx.pipe();
        let delivered_before = self.tx.sent.rate.delivered;
        let mut newly_sacked = 0;
        let mut dsack = None;
        if self.tx.sack && h.has_sack() {
            let blocks = h.sack();
            dsack = dsack_block(ack, &blocks);
            newly_sacked = self.tx.sent.apply_sack(&blocks, now);
        }
        let new_ack = ack > self.tx.snd_una;
        let duplicate = !new_ack
            && ack == self.tx.snd_una
            && h.len == 0
            && !h.has(flags::FIN)
            && self.tx.snd_max > self.tx.snd_una
            && window == self.tx.rwnd;
        let acked = if new_ack {
            self.tx.sent.ack_to(ack, now)
        } else {
            Acked::default()
        };
        // The timestamp echo, else Karn's sample: from the newest segment
        // acknowledged for congestion control, from the oldest (the ACK
        // delay included) for the RTO estimator (`Acked::rto_rtt`).
        let echo = if new_ack {
            self.opts.rtt_from_echo(h, now)
        } else {
            None
        };
        let rtt = echo.or(acked.rtt);
        let rto_rtt = echo.or(acked.rto_rtt);
        let info = AckInfo {
            header: h,
            window,
            dsack,
            newly_acked: acked.payload,
            newly_sacked,
            newly_delivered: self.tx.sent.rate.delivered - delivered_before,
            duplicate,
            rtt,
            rate: self.tx.sent.rate.take_sample(),
            prior_in_flight,
        };
        self.cc.on_event(&mut self.tx, CcEvent::Ack(&info), now);
        if let Some(d) = dsack {
            self.on_dsack(d, now);
        }
        let delivered = self.tx.sent.take_delivered();
        if self.rack_on() {
            self.rack_on_ack(&delivered, rtt, dsack.is_some(), now);
        }
        if new_ack {
            self.on_new_ack(h, &acked, (rtt, rto_rtt), window, now, out);
        } else if duplicate {
            self.on_dupack(now);
        } else if ack == self.tx.snd_una {
            self.tx.rwnd = window;
        }
        if self.frto.is_some() && in_timeout_recovery {
            let sacked_or_duplicate = newly_sacked > 0 || duplicate;
            self.frto_on_ack(new_ack, sacked_or_duplicate, delivered, now);
        }
        if self.rack_on() {
            self.rack_start_recovery(now);
            self.tlp_on_ack(h.ack, dsack, new_ack, newly_sacked > 0, duplicate);
            self.arm_probe_timer(now, new_ack);
        }
        self.on_ecn_echo(h, now);
        self.cc
            .on_event(&mut self.tx, CcEvent::AckProcessed(&info), now);
    }

    /// F-RTO (RFC 5682 Sec. 3) reads an ACK of the timeout's recovery.
    fn frto_on_ack(
        &mut self,
        advanced: bool,
        sacked_or_duplicate: bool,
        delivered: DeliveredNow,
        now: SimTime,
    ) {
        let recover = self.tx.recover;
        // Without SACK, an ACK that also covers resent data cannot tell
        // which copies arrived (Linux clears FLAG_ORIG_SACK_ACKED then).
        let original_delivered = delivered.lowest_original_end.is_some_and(|e| e <= recover)
            && (self.tx.sack || delivered.newest_resent.is_none());
        let a = FrtoAck {
            advanced,
            covers_recover: self.tx.snd_una >= recover,
            original_delivered,
            sacked_or_duplicate,
            new_data_can_go: self.new_data_can_go(),
        };
        let Some(f) = self.frto.as_mut() else { return };
        if f.on_ack(a) == Verdict::Spurious {
            self.undo_spurious_timeout(now);
        }
    }

    /// Unsent data waits and the peer's window lets a segment of it go.
    fn new_data_can_go(&self) -> bool {
        let unsent = self.tx.stream_end - self.tx.snd_max.min(self.tx.stream_end);
        let fin_waits = self.tx.fin_seq == Some(self.tx.snd_max);
        let len = unsent.min(self.tx.mss as u64);
        let wnd_end = self.tx.snd_una + self.cc.send_window_limit(&self.tx);
        (unsent > 0 || fin_waits) && self.tx.snd_max + len <= wnd_end
    }

    /// F-RTO showed the timeout spurious (RFC 5682 step 3b), and Linux's
    /// response (`tcp_try_undo_loss` with `frto_undo`): the reduction is
    /// undone, no segment stays presumed lost, the state is Open again,
    /// and a new loss in the window may start fast recovery.
    fn undo_spurious_timeout(&mut self, now: SimTime) {
        self.recovery_counters.frto_spurious += 1;
        self.stats.undos += 1;
        self.tx.undo.armed = false;
        self.cc.undo(&mut self.tx);
        self.tx.sent.unmark_lost();
        self.tx.recover = self.tx.snd_una;
        self.set_state(CongState::Open, now);
    }

    /// A DSACK arrived: if it reports a segment we retransmitted since the
    /// last window reduction, that retransmission was spurious; once all of
    /// them are, the reduction may be undone (if the recovery module wants).
    fn on_dsack(&mut self, d: SeqRange, now: SimTime) {
        self.stats.dsacks_received += 1;
        let Some(r) = self.tx.undo.on_dsack(d) else {
            return;
        };
        self.stats.spurious_retransmissions += 1;
        self.cc
            .on_event(&mut self.tx, CcEvent::SpuriousRetransmission(r), now);
        if self.tx.undo.all_spurious() && self.undo_on_dsack {
            self.tx.undo.armed = false;
            self.stats.undos += 1;
            self.cc.undo(&mut self.tx);
        }
    }

    /// An ACK with ECE: reduce once per window, unless a loss-recovery
    /// episode or timeout is already answering this window's congestion.
    fn on_ecn_echo(&mut self, h: &TcpHeader, now: SimTime) {
        // The ECE of a SYN-ACK is negotiation, not an echo.
        if h.has(flags::SYN) || matches!(self.tx.state, CongState::Recovery | CongState::Loss) {
            return;
        }
        if self.ecn.take_echo(h, self.tx.snd_una, self.tx.snd_max) {
            self.stats.ecn_reductions += 1;
            if self.cc.on_event(&mut self.tx, CcEvent::EcnEcho, now) == Reply::Default {
                // The same reduction as a loss, without the retransmission.
                self.tx.ssthresh = self.cc.ssthresh(&self.tx);
                self.tx.cwnd = self.tx.ssthresh;
            }
        }
    }

    /// The congestion state becomes `to`; the congestion control hears of
    /// a change.
    fn set_state(&mut self, to: CongState, now: SimTime) {
        let from = self.tx.state();
        if to == CongState::Open {
            if let Some(r) = self.rack.as_mut() {
                r.on_recovery_end();
            }
        }
        self.tx.state = to;
        self.announce_state(from, now);
    }

    /// Tells the congestion control that the state went from `from` to
    /// what it is now, if it changed.
    fn announce_state(&mut self, from: CongState, now: SimTime) {
        let to = self.tx.state();
        if from != to {
            self.cc
                .on_event(&mut self.tx, CcEvent::StateChanged { from, to }, now);
        }
    }

    fn on_new_ack(
        &mut self,
        h: &TcpHeader,
        acked: &Acked,
        (rtt, rto_rtt): (Option<Duration>, Option<Duration>),
        window: u64,
        now: SimTime,
        out: &mut TcpOutput,
    ) {
        self.tx.snd_una = h.ack;
        self.tx.rwnd = window;
        self.tx.dupacks = 0;
        self.consecutive_rtos = 0;
        if let Some(r) = rto_rtt {
            self.tx
                .rtt
                .sample_acked(r, self.tx.snd_una, self.tx.snd_max);
            self.stats.rtt_samples += 1;
            self.stalls.sampled(now);
        }
        if let Some(rtt) = rtt {
            self.cc.on_event(&mut self.tx, CcEvent::RttSample(rtt), now);
        }
        self.tx.observe_slow_start(rtt);
        if self.state == ConnState::SynReceived {
            self.state = ConnState::Established;
            out.notices.push(Notice::Connected);
        }
        // Windows grow with data acknowledged, not with SYN or FIN octets.
        let bytes = acked.payload;
        if self.tx.state == CongState::Recovery {
            if h.ack >= self.tx.recover {
                self.recovery.exit(&mut self.tx);
                self.set_state(CongState::Open, now);
            } else {
                let ack = RecoveryAck::Partial { acked: bytes };
                self.recovery.on_ack(&mut self.tx, ack);
            }
        } else if bytes > 0 {
            // Congestion window validation: growth only when cwnd-limited.
            let (before, may_raise) = (self.tx.cwnd, self.tx.may_raise_cwnd());
            self.cc.on_ack(&mut self.tx, bytes, now);
            self.tx.growth_offered(now, before, may_raise);
        }
        if self.tx.state == CongState::Loss && self.tx.snd_una >= self.tx.recover {
            self.set_state(CongState::Open, now);
        }
        if self.tx.snd_una >= self.tx.snd_max {
            self.rto_deadline = None;
            self.stalls.idle(now);
        } else {
            self.rto_deadline = Some(now + self.tx.rtt.rto());
            self.check_reneging(now);
        }
    }

    fn on_dupack(&mut self, now: SimTime) {
        self.stats.dupacks_received += 1;
        if self.cc.on_event(&mut self.tx, CcEvent::DupAck, now) == Reply::Handled {
            self.stats.dupacks_claimed += 1;
            return;
        }
        self.tx.dupacks += 1;
        if self.tx.state == CongState::Recovery {
            self.recovery.on_ack(&mut self.tx, RecoveryAck::Duplicate);
        } else if self.tx.snd_una >= self.tx.recover && self.loss_detected() {
            // RFC 6582 Sec. 3.2: no new episode for losses of a window that
            // an earlier episode or timeout already answered.
            self.start_recovery(now);
        }
    }

    /// Whether the ACK just processed shows a loss that starts recovery:
    /// the recovery module's rule (DupThresh, RFC 6675's IsLost), or with
    /// RACK a segment RACK presumed lost (Linux's `tcp_time_to_recover`).
    fn loss_detected(&self) -> bool {
        if self.rack_on() {
            self.tx.sent.awaiting_retransmission() > 0
        } else {
            self.recovery.loss_detected(&self.tx)
        }
    }

    /// A loss-recovery episode starts: ssthresh (unless the variant keeps
    /// its window), `recover`, the module's entry.
    fn start_recovery(&mut self, now: SimTime) {
        let reduce = self.cc.on_event(&mut self.tx, CcEvent::LossDetected, now) == Reply::Default;
        if reduce {
            self.stats.fast_retransmits += 1;
            self.tx.undo.arm(self.tx.cwnd, self.tx.ssthresh);
            self.tx.ssthresh = self.cc.ssthresh(&self.tx);
        }
        let from = self.tx.state();
        self.tx.recover = self.tx.snd_max;
        self.tx.state = CongState::Recovery;
        self.tx.sent.on_recovery_entry();
        // A congestion control that sets cwnd itself keeps the recovery
        // module's entry rule (cwnd = ssthresh) out.
        let module_sets_cwnd = reduce && !self.cc.owns_cwnd();
        self.recovery.enter(&mut self.tx, module_sets_cwnd);
        self.announce_state(from, now);
        if let Some(t) = self.tlp.as_mut() {
            t.reset();
        }
    }

    fn on_rto(&mut self, now: SimTime, out: &mut TcpOutput) {
        if self.tx.snd_una >= self.tx.snd_max {
            self.rto_deadline = None;
            self.stalls.idle(now);
            return;
        }
        self.consecutive_rtos += 1;
        self.stats.timeouts += 1;
        if self.consecutive_rtos > self.max_retransmissions {
            self.state = ConnState::Aborted;
            self.rto_deadline = None;
            self.stalls.aborted(now, self.consecutive_rtos);
            out.notices.push(Notice::Aborted);
            return;
        }
        if self.tx.snd_una == 0 {
            // A lost SYN or SYN-ACK (RFC 5681 Sec. 3.1): start with one
            // segment; ssthresh and the loss-recovery state concern data.
            self.tx.cwnd = self.tx.mss as u64;
        } else {
            if self.tx.state != CongState::Loss {
                self.tx.undo.arm(self.tx.cwnd, self.tx.ssthresh);
            }
            if let Some(f) = self.frto.as_mut() {
                // RFC 5682 Sec. 3.2: not when the timeout interrupts fast
                // recovery, unless it repeats one on the same snd_una.
                let fresh = self.tx.state == CongState::Open || self.consecutive_rtos > 1;
                f.on_timeout(fresh);
            }
            self.cc.on_timeout(&mut self.tx);
            self.tx.recover = self.tx.snd_max;
            self.set_state(CongState::Loss, now);
        }
        self.tx.dupacks = 0;
        if let Some(t) = self.tlp.as_mut() {
            t.reset();
        }
        self.presume_lost_at_timeout(now);
        self.tx.rtt.back_off();
        self.stalls.timed_out(self.tx.rtt.rto());
        self.tx.retransmit_now = true;
        let margin = self.rules.rto_restart_margin;
        self.rto_deadline = Some(now + self.tx.rtt.rto() + margin);
    }

    /// What a timeout presumes lost (`tcp.scoreboard_after_timeout`):
    /// everything outstanding, the SACK marks forgotten (`clear`: RFC 2018
    /// Sec. 8 and RFC 6675 Sec. 5.1; SACK blocks that arrive afterwards
    /// count again), or everything not SACKed, unless the receiver reneged
    /// (`keep`: the erratum to RFC 6675 Sec. 5.1, Linux's
    /// `tcp_timeout_mark_lost`). A lost SYN is simply resent.
    /// With RACK and the scoreboard kept, only the first segment and those
    /// RACK no longer waits for are presumed lost (RFC 8985 Sec. 6.3,
    /// Linux's `tcp_timeout_mark_lost`).
    fn presume_lost_at_timeout(&mut self, now: SimTime) {
        if self.scoreboard_after_timeout == ScoreboardAfterTimeout::Clear || self.tx.snd_una == 0 {
            self.tx.sent.mark_all_lost();
            return;
        }
        let spare = if self.rack_on() {
            let reo_wnd = self.rack_reo_wnd();
            self.rack.as_ref().and_then(|r| r.spare_after(reo_wnd, now))
        } else {
            None
        };
        if self.tx.sent.mark_lost_keeping_sacks(spare) {
            self.recovery_counters.renegings += 1;
        }
    }

    /// Linux's `tcp_check_sack_reneging`, with the scoreboard kept across
    /// timeouts: an ACK that moved snd_una to a segment it SACKed earlier
    /// shows the receiver dropped SACKed data (reneging), or a passing
    /// oddity. The timer is brought forward to max(SRTT/2, 10 ms): if the
    /// next ACKs do not clear it up, the timeout finds the first segment
    /// still SACKed and clears the scoreboard (`presume_lost_at_timeout`).
    fn check_reneging(&mut self, now: SimTime) {
        if self.scoreboard_after_timeout == ScoreboardAfterTimeout::Keep
            && self.tx.sent.first().is_some_and(|f| f.sacked)
        {
            let half_srtt = self
                .tx
                .rtt
                .srtt()
                .map_or(Duration::ZERO, |d| Duration(d.0 / 2));
            self.rto_deadline = Some(now + half_srtt.max(Duration::from_millis(10)));
        }
    }

    // ----- RACK-TLP (RFC 8985) -----

    /// RACK runs: switched on and SACK in use (Linux runs RACK for SACK
    /// connections only; without SACK, DupThresh stays).
    fn rack_on(&self) -> bool {
        self.tx.loss_by_time
    }

    /// RACK.reo_wnd now (RFC 8985 Sec. 6.2 step 4).
    fn rack_reo_wnd(&self) -> Duration {
        let Some(r) = self.rack.as_ref() else {
            return Duration::ZERO;
        };
        let recovering = matches!(self.tx.state, CongState::Recovery | CongState::Loss);
        let sacked = self.tx.sent.sacked_bytes();
        let dupthresh_sacked = sacked >= self.tx.dupthresh as u64 * self.tx.mss as u64;
        r.reo_wnd(recovering, dupthresh_sacked, self.tx.rtt.srtt())
    }

    /// RACK's steps 1-5 on an ACK, before the recovery module sees it.
    fn rack_on_ack(
        &mut self,
        delivered: &DeliveredNow,
        rtt: Option<Duration>,
        dsack: bool,
        now: SimTime,
    ) {
        let (snd_una, snd_max) = (self.tx.snd_una, self.tx.snd_max);
        let Some(r) = self.rack.as_mut() else { return };
        if let Some(rtt) = rtt {
            r.on_rtt_sample(rtt);
        }
        if dsack {
            r.on_dsack(snd_una, snd_max);
        }
        // Linux scans only when RACK advanced (`tcp_rack_mark_lost`); the
        // reorder timer covers the rest.
        if *delivered == DeliveredNow::default() {
            return;
        }
        r.on_delivered(delivered, now);
        self.rack_detect_loss(now);
    }

    fn rack_detect_loss(&mut self, now: SimTime) -> usize {
        let reo_wnd = self.rack_reo_wnd();
        let Some(r) = self.rack.as_mut() else {
            return 0;
        };
        let marked = r.detect_loss(&mut self.tx.sent, reo_wnd, now);
        self.recovery_counters.rack_marked_lost += marked as u64;
        marked
    }

    /// After an ACK that did not start recovery as a duplicate: RACK may
    /// have presumed segments lost on any ACK (Linux enters recovery on
    /// any ACK with lost_out), e.g. one that advanced snd_una with SACKs.
    fn rack_start_recovery(&mut self, now: SimTime) {
        if self.tx.state == CongState::Open
            && self.tx.snd_una >= self.tx.recover
            && self.tx.sent.awaiting_retransmission() > 0
        {
            self.start_recovery(now);
        }
    }

    /// The reorder timer (RFC 8985 Sec. 6.2 step 5; Linux's
    /// `tcp_rack_reo_timeout`): segments whose window ran out are presumed
    /// lost, and recovery starts if it has not.
    fn on_reorder_timer(&mut self, now: SimTime) {
        let marked = self.rack_detect_loss(now);
        if marked > 0 {
            self.recovery_counters.rack_timer_losses += marked as u64;
            self.rack_start_recovery(now);
        }
    }

    /// Arms (`restart`: after new data went or snd_una advanced) or clears
    /// the probe timer (RFC 8985 Sec. 7.2).
    fn arm_probe_timer(&mut self, now: SimTime, restart: bool) {
        let eligible = self.tx.loss_by_time
            && self.tx.snd_una > 0
            && self.tx.state() == CongState::Open
            && self.tx.snd_max > self.tx.snd_una;
        let Some(t) = self.tlp.as_mut() else { return };
        if !eligible {
            t.clear_timer();
        } else if restart || t.deadline().is_none() {
            let segments = self.tx.sent.len();
            t.schedule(true, segments, self.tx.rtt.srtt(), self.rto_deadline, now);
        }
    }

    /// The probe timer ran out (RFC 8985 Sec. 7.3, Linux's
    /// `tcp_send_loss_probe`): one segment, new data if the peer's window
    /// lets it go, else the last segment again, whatever cwnd says; then
    /// the retransmission timer, not the probe timer, runs.
    fn send_loss_probe(&mut self, now: SimTime, out: &mut TcpOutput) {
        let eligible = self.tx.loss_by_time
            && self.tx.state() == CongState::Open
            && self.tx.snd_max > self.tx.snd_una;
        if !eligible {
            if let Some(t) = self.tlp.as_mut() {
                t.clear_timer();
            }
            return;
        }
        let resent = if self.new_data_can_go() {
            let len = (self.tx.stream_end - self.tx.snd_max).min(self.tx.mss as u64);
            self.send_new(len as u32, now, out);
            false
        } else {
            let last = self.tx.sent.len() - 1;
            self.resend(last, false, now, out);
            true
        };
        self.recovery_counters.tlp_probes += 1;
        let end = self.tx.snd_max;
        if let Some(t) = self.tlp.as_mut() {
            t.on_probe_sent(end, resent);
        }
        self.rto_deadline = Some(now + self.tx.rtt.rto());
    }

    /// An ACK while a probe is unanswered (RFC 8985 Sec. 7.4): a probe
    /// that repaired a loss reduces cwnd as one loss does (Linux: ssthresh
    /// from the congestion control, cwnd = ssthresh).
    fn tlp_on_ack(
        &mut self,
        ack: u64,
        dsack: Option<SeqRange>,
        advanced: bool,
        sacked: bool,
        duplicate: bool,
    ) {
        let Some(t) = self.tlp.as_mut() else { return };
        let dsack_of_probe = t
            .probe_end()
            .is_some_and(|end| dsack.is_some_and(|d| d.end == end));
        if t.on_ack(ack, dsack_of_probe, advanced, sacked, duplicate) == ProbeAnswer::Repaired {
            self.recovery_counters.tlp_repairs += 1;
            self.tx.ssthresh = self.cc.ssthresh(&self.tx);
            if !self.cc.owns_cwnd() {
                self.tx.cwnd = self.tx.ssthresh.max(self.tx.mss as u64);
            }
        }
    }

    fn arm_rto(&mut self, now: SimTime) {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.tx.rtt.rto());
            self.stalls.sending(now);
        }
    }

    fn pacing_deadline(&self) -> Option<SimTime> {
        self.pacing_blocked.then_some(self.tx.next_send_time)
    }

    /// A transmission round ended: how much of cwnd it used
    /// (`tcp/cwnd_validation.rs`); an unused cwnd decays unless the
    /// congestion control keeps it.
    fn after_transmit(&mut self, sent_data: bool, now: SimTime) {
        if self.tx.after_transmit(sent_data, now)
            && self.cc.on_event(&mut self.tx, CcEvent::UnusedCwnd, now) == Reply::Default
        {
            self.tx.decay_unused_cwnd(now);
        }
    }

    /// New data after an idle period longer than the RTO restarts the
    /// window (`tcp/cwnd_validation.rs`), unless the congestion control
    /// keeps it.
    fn restart_if_idle(&mut self, now: SimTime) {
        if self.tx.idle_restart_due(now)
            && self.cc.on_event(&mut self.tx, CcEvent::UnusedCwnd, now) == Reply::Default
        {
            self.tx.restart_after_idle(now);
        }
    }

    /// Sends what the windows allow: the forced fast retransmission, then
    /// segments presumed lost (RFC 6675 NextSeg rule (1)), then new data
    /// (rule (2)), then a bare FIN; in a recovery episode whose module asks
    /// for them, NextSeg rules (3) and (4) when no new segment may go; then
    /// any extra segments the variant asked for.
    fn try_send(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.pacing_blocked = false;
        if self.tx.snd_una == 0 {
            // Our SYN is not acknowledged yet: only its retransmission after
            // a timeout may go (on_rto presumed it lost). Without this a lost
            // SYN, or a SYN-ACK whose ACK was lost, is never sent again.
            if std::mem::take(&mut self.tx.retransmit_now) {
                if let Some(i) = self.tx.sent.next_lost() {
                    self.retransmit(i, now, out);
                }
            }
            return;
        }
        let snd_max_before = self.tx.snd_max;
        let data_segments_before = self.stats.data_segments_sent;
        let limit = self
            .rules
            .timeout_retransmit_limit
            .filter(|_| self.tx.state == CongState::Loss);
        let mut retransmitted = 0;
        // F-RTO step 2b: this round sends new data, no retransmission.
        let new_data_only = self.frto.as_mut().is_some_and(|f| f.take_new_data_round());
        // The peer's window, as the variant sees it, is evaluated once per
        // transmission round (one ACK or timer event), like the send-size
        // computation of BSD-derived stacks; sending within the round does
        // not re-evaluate it.
        let wnd_limit = self.cc.send_window_limit(&self.tx);
        loop {
            if self.tx.retransmit_now {
                self.tx.retransmit_now = false;
                if let Some(i) = self.tx.sent.next_lost() {
                    self.retransmit(i, now, out);
                    retransmitted += 1;
                    continue;
                }
            }
            if self.cc.pacing_rate(&self.tx).is_some() && now < self.tx.next_send_time {
                self.pacing_blocked = true;
                break;
            }
            if let Some(i) = self.tx.sent.next_lost().filter(|_| !new_data_only) {
                let len = self.tx.sent.get(i).len();
                let capped = limit.is_some_and(|l| retransmitted >= l);
                if !capped && self.tx.pipe() + len <= self.tx.cwnd {
                    self.retransmit(i, now, out);
                    retransmitted += 1;
                    continue;
                }
                break;
            }
            // Unsent data that the receiver's window or Nagle holds back:
            // NextSeg rule (2) fails and rules (3)-(4) may apply.
            let mut new_data_held = false;
            if self.tx.snd_max < self.tx.stream_end {
                let len = (self.tx.stream_end - self.tx.snd_max).min(self.tx.mss as u64);
                let wnd_end = self.tx.snd_una + wnd_limit;
                if self.nagle_holds(len) || self.tx.snd_max + len > wnd_end {
                    new_data_held = true;
                } else if self.tx.pipe() + len > self.tx.cwnd {
                    break;
                } else {
                    self.send_new(len as u32, now, out);
                    continue;
                }
            } else if self.tx.fin_seq == Some(self.tx.snd_max) {
                self.send_new(0, now, out);
                continue;
            }
            if self.tx.state == CongState::Recovery && self.rules.nextseg_rules_3_and_4 {
                match self.last_resort_retransmission(now, out) {
                    Some(true) => continue,
                    Some(false) => break,
                    None => {}
                }
            }
            if new_data_held {
                break;
            }
            // Nothing left to send and room in the window: rate samples
            // taken until this flight is delivered understate the path.
            if self.tx.pipe() < self.tx.cwnd {
                let pipe = self.tx.pipe();
                self.tx.sent.rate.mark_app_limited(pipe);
            }
            break;
        }
        if !self.tx.extra.is_empty() {
            self.send_extra(now, out);
        }
        if self.tlp.is_some() && self.tx.snd_max > snd_max_before {
            self.arm_probe_timer(now, true);
        }
        self.after_transmit(self.stats.data_segments_sent > data_segments_before, now);
    }

    /// Nagle's rule (`tcp/nagle.rs`) for a new segment of `len` bytes.
    fn nagle_holds(&self, len: u64) -> bool {
        let fin = self.tx.fin_seq == Some(self.tx.snd_max + len);
        let t = &self.tx;
        self.nagle
            .holds(len, t.mss as u64, fin, t.snd_una, t.snd_max)
    }

    fn send_new(&mut self, len: u32, now: SimTime, out: &mut TcpOutput) {
        let seq = self.tx.snd_max;
        let fin = self.tx.fin_seq == Some(seq + len as u64);
        let end = seq + len as u64 + fin as u64;
        self.nagle.on_sent(len as u64, self.tx.mss as u64, end);
        self.tx
            .sent
            .push_new(SeqRange::new(seq, end), false, fin, now);
        self.tx.snd_max = end;
        self.emit(
            seq,
            len,
            Flags {
                syn: false,
                fin,
                new_data: true,
            },
            now,
            out,
        );
        self.arm_rto(now);
    }

    /// RFC 6675 NextSeg rules (3) and (4), the "last resort" once rules (1)
    /// and (2) failed: Some(true) if a segment went, Some(false) if one is
    /// due but cwnd - pipe does not hold it, None if neither rule applies.
    fn last_resort_retransmission(&mut self, now: SimTime, out: &mut TcpOutput) -> Option<bool> {
        let (i, rescue) = match self.tx.sent.next_seg_rule3() {
            Some(i) => (i, false),
            None => (self.tx.sent.rescue_candidate(self.tx.snd_una)?, true),
        };
        if self.tx.pipe() + self.tx.sent.get(i).len() > self.tx.cwnd {
            return Some(false);
        }
        self.resend(i, rescue, now, out);
        Some(true)
    }

    fn retransmit(&mut self, i: usize, now: SimTime, out: &mut TcpOutput) {
        self.resend(i, false, now, out);
    }

    /// Sends segment `i` again; `rescue`: as NextSeg rule (4)'s rescue
    /// retransmission (RescueRxt set, HighRxt and pipe unchanged).
    fn resend(&mut self, i: usize, rescue: bool, now: SimTime, out: &mut TcpOutput) {
        let s = *self.tx.sent.get(i);
        debug_assert!(
            s.range.start >= self.tx.snd_una,
            "retransmission of {:?}, cumulatively acknowledged up to {}",
            s.range,
            self.tx.snd_una
        );
        if rescue {
            self.tx.sent.on_rescue_retransmit(i, now, self.tx.recover);
        } else {
            self.tx.sent.on_retransmit(i, now);
        }
        self.tx.undo.on_retransmit(s.range);
        let resent = *self.tx.sent.get(i);
        self.cc
            .on_event(&mut self.tx, CcEvent::Retransmitted(&resent), now);
        self.stats.retransmitted_segments += 1;
        self.stats.retransmitted_bytes += s.payload() as u64;
        let seq = s.range.start;
        let f = Flags {
            syn: s.syn,
            fin: s.fin,
            new_data: false,
        };
        self.emit(seq, s.payload(), f, now, out);
        self.arm_rto(now);
    }

    fn send_extra(&mut self, now: SimTime, out: &mut TcpOutput) {
        let Some((seq, len)) = self.last_data else {
            self.tx.extra.clear();
            return;
        };
        for e in std::mem::take(&mut self.tx.extra) {
            let mut h = TcpHeader::default();
            self.header(&mut h, seq, len, false, false);
            h.ext.flags = e.ext_flags;
            self.opts.stamp(&mut h, now);
            self.stats.extra_segments_sent += 1;
            self.stats.segments_sent += 1;
            out.segments.push((h, e.priority));
        }
    }

    /// Fills `h`, a default (empty) header, field by field where it lies.
    fn header(&mut self, h: &mut TcpHeader, seq: u64, len: u32, syn: bool, fin: bool) {
        let mut f = 0;
        if syn {
            f |= flags::SYN;
        }
        if fin {
            f |= flags::FIN;
        }
        h.seq = seq;
        h.len = len;
        h.flags = f;
        h.window = self.opts.window_field(syn);
        if let Some(n) = self.rx.rcv_nxt {
            h.flags |= flags::ACK;
            h.ack = n;
            let mut blocks = self.rx.sack_blocks();
            if !blocks.is_empty() {
                if self.opts.ts_on {
                    // 40 option bytes: timestamps leave room for three blocks.
                    blocks.truncate(MAX_SACK_BLOCKS - 1);
                }
                // A new header holds no range yet: nothing to set otherwise.
                h.set_sack(blocks.as_slice());
            }
        }
        if syn {
            // A SYN-ACK is the SYN sent once the peer's SYN is in.
            h.flags |= self.ecn.syn_flags(self.rx.rcv_nxt.is_some());
            h.syn_mss = self.tx.mss;
            h.sack_permitted = self.sack_offered;
            self.opts.syn_options(h);
        }
    }

    fn emit(&mut self, seq: u64, len: u32, f: Flags, now: SimTime, out: &mut TcpOutput) {
        // The header is built where it is sent from, in the output: built
        // in a local and copied there, its flag and option bytes, stored
        // one by one, were reloaded at once as one word while still in the
        // store buffer (a store-forwarding stall, three quarters of
        // `header`'s time in `perf`).
        out.segments.push((TcpHeader::default(), Priority::High));
        let (h, out_priority) = out.segments.last_mut().expect("just pushed");
        self.header(h, seq, len, f.syn, f.fin);
        if !f.syn {
            let new_data = f.new_data && len > 0;
            h.flags |= self.ecn.segment_flags(h.has(flags::ACK), new_data);
            h.ect = self.ecn.ect(new_data);
        }
        self.opts.stamp(h, now);
        if h.has(flags::ACK) {
            self.ack_policy.on_ack_sent();
            self.ack_now = false;
            if let Some(rp) = self.receiver.as_mut() {
                rp.on_ack_out(h);
            }
        }
        self.stats.segments_sent += 1;
        let mut priority = Priority::High;
        if len > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.payload_bytes_sent += len as u64;
            self.last_data = Some((seq, len));
            self.cc.on_event(&mut self.tx, CcEvent::DataSent, now);
            // Asked after on_data_sent, so that a variant that fixes its
            // plans at the first data segment has done so.
            priority = self.cc.data_priority(&self.tx, seq);
            if priority == Priority::Low {
                self.stats.low_priority_data_segments_sent += 1;
            }
        }
        if let Some(rate) = self.cc.pacing_rate(&self.tx) {
            let gap = Duration::from_secs_f64(h.wire_bytes() as f64 / rate);
            self.tx.next_send_time = now.max(self.tx.next_send_time) + gap;
        }
        *out_priority = priority;
    }

    // ----- segments the variant answers itself -----

    /// Before ordinary processing, on an established connection: a pure
    /// ACK with header extension flags may be the peer's answer to one of
    /// our extra segments, which the congestion module may consume; a data
    /// segment may be consumed and answered by the receiver part. Returns
    /// whether the segment was consumed.
    fn screen(&mut self, h: &TcpHeader, now: SimTime, out: &mut TcpOutput) -> bool {
        // During the handshake such a segment may be what completes it.
        if !matches!(self.state, ConnState::Established | ConnState::Finished) || h.has(flags::FIN)
        {
            return false;
        }
        if h.len == 0 {
            if h.ext.flags != 0
                && self
                    .cc
                    .on_event(&mut self.tx, CcEvent::MarkedAck(h.ext.flags), now)
                    == Reply::Handled
            {
                self.stats.marked_acks_received += 1;
                self.try_send(now, out);
                return true;
            }
            return false;
        }
        let Some(answer) = self.receiver.as_mut().and_then(|r| r.screen(h, now)) else {
            return false;
        };
        self.send_extra_ack(answer, now, out);
        true
    }

    /// Answers a segment the receiver part consumed. The ACK reports
    /// rcv_nxt but is not an ACK in the ACK policy's sense: it leaves the
    /// delayed-ACK state and any pending SACK/DSACK report alone, so the
    /// data ACK stream is the same as without the consumed segments.
    fn send_extra_ack(&mut self, answer: ExtraAck, now: SimTime, out: &mut TcpOutput) {
        let mut h = TcpHeader {
            seq: self.tx.snd_max,
            ack: self.rx.rcv_nxt_or_zero(),
            flags: flags::ACK,
            window: self.opts.window_field(false),
            ..Default::default()
        };
        h.ext.flags = answer.ext_flags;
        self.opts.stamp(&mut h, now);
        self.stats.segments_sent += 1;
        self.stats.marked_acks_sent += 1;
        out.segments.push((h, answer.priority));
    }

    // ----- the receiving side -----

    fn on_data(&mut self, h: &TcpHeader, now: SimTime, out: &mut TcpOutput) {
        let a = self.rx.on_segment(h);
        self.stats.payload_bytes_received += a.payload as u64;
        self.stats.bytes_delivered += a.delivered;
        if let Some(held) = self.unread.as_mut() {
            *held += a.delivered;
            self.opts.set_unread(*held);
        }
        if a.duplicate() {
            self.stats.duplicate_segments_received += 1;
        }
        if a.out_of_order() {
            self.stats.out_of_order_segments += 1;
        }
        if a.delivered > 0 {
            out.notices.push(Notice::Delivered(a.delivered));
        }
        if a.fin_now() {
            out.notices.push(Notice::PeerClosed);
        }
        if let Some(rp) = self.receiver.as_mut() {
            rp.on_arrival(h, &a, now);
            if let Some(nxt) = self.rx.rcv_nxt {
                rp.on_reassembly(nxt, self.rx.out_of_order_blocks());
            }
        }
        if self
            .ack_policy
            .on_arrival(&a, h.len >= self.tx.mss, now, &self.tx.rtt)
        {
            self.ack_now = true;
        }
    }

    fn flush_ack(&mut self, now: SimTime, out: &mut TcpOutput) {
        if !self.ack_now || self.rx.rcv_nxt.is_none() {
            return;
        }
        // A pure ACK carries the next sequence number we would send.
        let seq = self.tx.snd_max;
        self.stats.pure_acks_sent += 1;
        self.emit(seq, 0, Flags::default(), now, out);
    }

    fn check_finished(&mut self, out: &mut TcpOutput) {
        if self.state == ConnState::Established
            && self.rx.fin_received
            && self.tx.fin_seq.is_some_and(|f| self.tx.snd_una > f)
        {
            self.state = ConnState::Finished;
            out.notices.push(Notice::Finished);
        }
    }
}
