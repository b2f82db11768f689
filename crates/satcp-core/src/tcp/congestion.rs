//! The congestion-control contract, after Linux's `tcp_congestion_ops` and
//! ns-3's `TcpCongestionOps`: a variant decides how cwnd and ssthresh move;
//! the connection decides nothing about windows on its own.
//!
//! Three methods are required, as Linux requires them: the ssthresh of a
//! loss, the growth per ACK, and what a timeout does. Everything else is
//! optional: rare needs arrive as a `CcEvent` (one method, an enum, as
//! Linux's `cwnd_event` and ns-3's `CwndEvent`), and read-only answers (a
//! pacing rate, a view of the peer's window, a service class, a timer) have
//! defaults that do nothing. A variant that needs something new adds an
//! event, not a method every reader must skip.

use super::ack_info::AckInfo;
use super::path_cache::CachedPath;
use super::send_state::{CongState, SendState};
use super::sent_queue::SentSegment;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{Priority, SeqRange};

/// Something that happened to the connection. Each comes with the state
/// it left behind; a variant acts on the few it needs.
#[derive(Clone, Copy, Debug)]
pub enum CcEvent<'a> {
    /// Every ACK, in or out of loss recovery, with what it carries (SACK
    /// and DSACK blocks, ECE, header extension, bytes newly acknowledged
    /// and SACKed, RTT and delivery-rate samples), after the scoreboard
    /// took it in and before the machinery acts on it.
    Ack(&'a AckInfo<'a>),
    /// The same ACK once the machinery has acted on it (segments presumed
    /// lost, recovery entered or left, the recovery module's cwnd set) and
    /// before anything is sent: where Linux calls a congestion control's
    /// `cong_control` hook (BBR's `bbr_main`).
    AckProcessed(&'a AckInfo<'a>),
    /// A Karn-valid RTT sample from an ACK of new data (the estimator has
    /// taken it).
    RttSample(Duration),
    /// The congestion state changed: `Recovery` at a fast retransmission
    /// (after the recovery module entered it), `Loss` at a timeout (after
    /// `on_timeout`), `Open` or `Disorder` when either ends.
    StateChanged { from: CongState, to: CongState },
    /// A loss was detected and loss recovery is about to start. `Handled`:
    /// the variant keeps its window (no ssthresh change, no reduction
    /// counted, none to undo); the episode runs otherwise as usual.
    LossDetected,
    /// An ACK echoed congestion (ECN-Echo, RFC 3168 Sec. 6.1.2), the first
    /// for this window, outside loss recovery. `Default`: ssthresh as on a
    /// loss, cwnd = ssthresh; `Handled`: the variant answered it itself.
    EcnEcho,
    /// A data segment (new or retransmitted) was just handed to the wire;
    /// `snd_max` already covers it.
    DataSent,
    /// A segment was just retransmitted (fast retransmission, recovery or
    /// timeout): its scoreboard entry after the retransmission (`first_sent`
    /// the original transmission, `last_sent` now, `tx_count` counting this
    /// one). Comes before its `DataSent`.
    Retransmitted(&'a SentSegment),
    /// A DSACK showed the retransmission of this range unnecessary: the
    /// original arrived too (RFC 2883 Sec. 5, RFC 3708).
    SpuriousRetransmission(SeqRange),
    /// A pure ACK whose header extension carries these flags arrived.
    /// `Handled` consumes it as the peer's answer to one of our extra
    /// segments (a TCP-Peach dummy): the machinery does nothing else with
    /// it (no cumulative-ACK, window or duplicate-ACK processing).
    MarkedAck(u8),
    /// A duplicate ACK is about to be counted. `Handled` claims it as the
    /// peer's answer to one of our extra segments (a receiver that ignores
    /// their marks takes them for duplicate data): it is no sign of loss.
    DupAck,
    /// The variant's timer (`CongestionControl::next_timer`) is due.
    Timer,
    /// The connection was just created, before its first segment:
    /// what an earlier connection from this host to the same peer host
    /// left in the simulation's path cache, if anything.
    ConnectionStart(Option<&'a CachedPath>),
    /// cwnd has not been used for a retransmission timeout (an idle
    /// period, or an application or receiver limiting the sender) and the
    /// machinery is about to shrink it (`slow_start_after_idle`:
    /// `tcp/cwnd_validation.rs`). `Handled`: the variant keeps its window,
    /// as Linux exempts congestion controls with their own `cong_control`
    /// (BBR).
    UnusedCwnd,
}

/// A variant's answer to an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The machinery does what it does by default (for most events,
    /// nothing more).
    Default,
    /// The variant took care of it: the machinery skips its default (see
    /// the events that say what that is).
    Handled,
}

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    // ----- required -----

    /// ssthresh when a loss is detected (fast retransmission) or an ECN
    /// echo reduces the window. The variant may also note the loss.
    fn ssthresh(&mut self, s: &SendState) -> u64;

    /// New data was acknowledged (`acked` bytes) outside loss recovery:
    /// grow cwnd.
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime);

    /// The retransmission timer expired (before the retransmission is
    /// sent): set ssthresh and cwnd (RFC 5681: `s.restart_after_timeout`).
    fn on_timeout(&mut self, s: &mut SendState);

    // ----- optional -----

    /// Something happened (`CcEvent`); most variants act on none.
    fn on_event(&mut self, _s: &mut SendState, _ev: CcEvent, _now: SimTime) -> Reply {
        Reply::Default
    }

    /// Undo the last window reduction, which turned out to be spurious
    /// (every retransmission it caused was DSACKed, and the endpoint undoes
    /// such reductions: `EndpointParts::undo_on_dsack`). By default as
    /// Linux's tcp_undo_cwnd_reduction: cwnd and ssthresh back to at least
    /// their values before.
    fn undo(&mut self, s: &mut SendState) {
        let u = s.undo_state();
        let (cwnd, ssthresh) = (u.prior_cwnd, u.prior_ssthresh);
        s.cwnd = s.cwnd.max(cwnd);
        s.ssthresh = s.ssthresh.max(ssthresh);
    }

    /// Whether the variant sets cwnd itself on every ACK, in loss recovery
    /// too, as a Linux congestion control with a `cong_control` hook (BBR)
    /// does: the machinery's cwnd rules then stay out of it (no PRR, no
    /// cwnd = ssthresh when recovery starts or a tail loss probe shows a
    /// repaired loss: Linux's `tcp_cong_control` and
    /// `tcp_end_cwnd_reduction` skip such a congestion control). ssthresh
    /// is still asked (the variant may save its window there).
    fn owns_cwnd(&self) -> bool {
        false
    }

    /// Pacing rate in bytes per second, if the variant paces.
    fn pacing_rate(&self, _s: &SendState) -> Option<f64> {
        None
    }

    /// The peer's window as the sender applies it (by default the window
    /// advertised); asked once per transmission round.
    fn send_window_limit(&self, s: &SendState) -> u64 {
        s.rwnd()
    }

    /// The service class of the data segment starting at `seq`, asked as
    /// it is handed to the wire (after `CcEvent::DataSent`). SYNs, pure
    /// ACKs and bare FINs are always `High`; routers with a priority queue
    /// drop `Low` first.
    fn data_priority(&self, _s: &SendState, _seq: u64) -> Priority {
        Priority::High
    }

    /// When the variant next wants `CcEvent::Timer`.
    fn next_timer(&self) -> Option<SimTime> {
        None
    }

    /// What to leave in the path cache for later connections to the same
    /// peer host, asked once when the connection has finished (both FINs
    /// sent and acknowledged). None leaves the cache as it is.
    fn cache_entry(&self, _s: &SendState, _now: SimTime) -> Option<CachedPath> {
        None
    }

    /// The variant's own counters (name, value), reported per flow in the
    /// results as `variant_counters`.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// A number naming the variant's current phase for time series (e.g.
    /// TCP-ADaLR's slow-start sub-phase); 0 when it has none.
    fn trace_phase(&self) -> i32 {
        0
    }
}

impl SendState {
    /// RFC 5681's answer to a timeout (Eq. 4 and Sec. 3.1): ssthresh as
    /// given, cwnd one segment (the loss window).
    pub fn restart_after_timeout(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
        self.cwnd = self.mss() as u64;
    }
}

/// How much slow start adds per ACK: the hook for modified slow-start
/// functions. The standard rule is RFC 5681 Eq. 2: min(acked, SMSS), with
/// the stack's byte counting and HyStart++ (`SendState::slow_start`).
pub trait SlowStart {
    fn increase(&mut self, s: &SendState, acked: u64) -> u64;
    /// Grows cwnd for an ACK of `acked` bytes in slow start; returns what
    /// is left of `acked` for congestion avoidance. By default cwnd grows
    /// by `increase` and nothing is left.
    fn grow(&mut self, s: &mut SendState, acked: u64) -> u64 {
        s.cwnd += self.increase(s, acked);
        0
    }
    /// Every ACK received (the congestion module passes its ACK event
    /// on), for policies that count ACKs.
    fn on_ack_info(&mut self, _s: &SendState, _ack: &AckInfo) {}
}

/// The standard slow start (`tcp/slow_start.rs`).
pub struct StandardSlowStart;

impl SlowStart for StandardSlowStart {
    /// RFC 5681 Eq. 2, without the stack's rules.
    fn increase(&mut self, s: &SendState, acked: u64) -> u64 {
        acked.min(s.mss() as u64)
    }
    fn grow(&mut self, s: &mut SendState, acked: u64) -> u64 {
        s.slow_start(acked)
    }
}
