//! The congestion-control hook, after Linux's tcp_congestion_ops and ns-3's
//! TcpCongestionOps: a variant decides how cwnd and ssthresh move; the
//! connection decides nothing about windows on its own.

use super::ack_info::AckInfo;
use super::path_cache::CachedPath;
use super::send_state::SendState;
use super::sent_queue::SentSegment;
use crate::engine::{Duration, SimTime};
use crate::net::packet::{Priority, SeqRange};

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    /// New data was acknowledged outside loss recovery.
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime);

    /// Every ACK, in or out of loss recovery, with what it carries (SACK
    /// and DSACK blocks, ECE, header extension, bytes newly acknowledged and
    /// SACKed, RTT and delivery-rate samples); called after the scoreboard
    /// took it in and before the machinery acts on it.
    fn on_ack_info(&mut self, _s: &mut SendState, _ack: &AckInfo, _now: SimTime) {}

    /// ssthresh when loss recovery starts (the module may also record state).
    fn ssthresh_on_loss(&mut self, s: &SendState) -> u64 {
        s.half_flight()
    }

    /// The retransmission timer expired (before the retransmission is sent).
    fn on_rto(&mut self, s: &mut SendState) {
        s.ssthresh = s.half_flight();
        s.cwnd = s.mss as u64;
    }

    /// An ACK echoed congestion (ECN-Echo, RFC 3168 Sec. 6.1.2), the first
    /// for this window, outside loss recovery. By default the same
    /// reduction as a loss, without the retransmission: ssthresh as on
    /// loss, cwnd = ssthresh.
    fn on_ecn_echo(&mut self, s: &mut SendState) {
        s.ssthresh = self.ssthresh_on_loss(s);
        s.cwnd = s.ssthresh;
    }

    /// A Karn-valid RTT sample was taken (after the estimator was updated).
    fn on_rtt_sample(&mut self, _s: &mut SendState, _rtt: Duration) {}

    /// The receiver-window limit the sender applies; the hook lets a variant
    /// use a different view of the peer's window (TCP-ADaLR).
    fn send_window_limit(&self, s: &SendState) -> u64 {
        s.rwnd
    }

    /// Pacing rate in bytes per second, if the variant paces.
    fn pacing_rate(&self, _s: &SendState) -> Option<f64> {
        None
    }

    /// A timer the variant wants (e.g. to space probe segments).
    fn next_timer(&self) -> Option<SimTime> {
        None
    }

    fn on_timer(&mut self, _s: &mut SendState, _now: SimTime) {}

    /// A data segment (new or retransmitted) has just been handed to the
    /// wire; `s.snd_max` already covers it. Lets a variant start something
    /// at its first transmission (TCP-Peach's Sudden Start spaces its dummy
    /// segments from the first data segment).
    fn on_data_sent(&mut self, _s: &mut SendState, _now: SimTime) {}

    /// A segment was just retransmitted (fast retransmission, recovery or
    /// timeout): `seg` is its scoreboard entry after the retransmission
    /// (`first_sent` the original transmission, `last_sent` = `now`,
    /// `tx_count` counting this one). Called before `on_data_sent`. Lets a
    /// variant pair transmissions with later ACKs and DSACKs (enhanced RTT
    /// sampling) or note which segments it resent.
    fn on_retransmit(&mut self, _s: &mut SendState, _seg: &SentSegment, _now: SimTime) {}

    /// A pure ACK whose header extension carries flags arrived. Return
    /// true to consume it as the peer's answer to one of our extra
    /// segments (a TCP-Peach dummy): the machinery then does nothing else
    /// with it (no cumulative-ACK, window or duplicate-ACK processing),
    /// since it tells of spare capacity, not of data received. By default
    /// it is an ordinary ACK.
    fn on_marked_ack(&mut self, _s: &mut SendState, _ext_flags: u8, _now: SimTime) -> bool {
        false
    }

    /// A DSACK showed that the retransmission of `r` was unnecessary: the
    /// original arrived too (RFC 2883 Sec. 5, RFC 3708).
    fn on_spurious_retransmission(&mut self, _s: &mut SendState, _r: SeqRange, _now: SimTime) {}

    /// Undo the last window reduction, which turned out to be spurious
    /// (every retransmission it caused was DSACKed) and whose loss recovery
    /// asked for undoing (`LossRecovery::undo_on_spurious`). By default
    /// as Linux's tcp_undo_cwnd_reduction: cwnd and ssthresh back to at
    /// least their values before it (`s.undo`).
    fn undo(&mut self, s: &mut SendState) {
        s.cwnd = s.cwnd.max(s.undo.prior_cwnd);
        s.ssthresh = s.ssthresh.max(s.undo.prior_ssthresh);
    }

    /// Before a duplicate ACK is counted: return true to claim it as a
    /// peer's answer to one of our extra segments (a receiver that ignores
    /// their marks takes them for duplicate data), so that it is no sign of
    /// loss and the machinery does not count it.
    fn claim_dupack(&mut self, _s: &mut SendState, _now: SimTime) -> bool {
        false
    }

    /// The connection was just created, before its first segment (SYN or
    /// SYN-ACK): `cached` is what an earlier connection from this host to
    /// the same peer host left in the simulation's path cache, if anything.
    /// A variant may start from it (TCP Fast Start); by default a
    /// connection starts from the TCP settings alone.
    fn on_connection_start(
        &mut self,
        _s: &mut SendState,
        _cached: Option<&CachedPath>,
        _now: SimTime,
    ) {
    }

    /// The connection has finished (both FINs sent and acknowledged): what
    /// to leave in the path cache for later connections to the same peer
    /// host. None (the default) leaves the cache as it is.
    fn on_connection_end(&mut self, _s: &SendState, _now: SimTime) -> Option<CachedPath> {
        None
    }

    /// The service class of the data segment starting at `seq`, asked for
    /// every data segment (new or retransmitted) as it is handed to the
    /// wire, after `on_data_sent`. SYNs, pure ACKs and bare FINs are always
    /// `High`. A variant may send data it is unsure the network can carry
    /// at `Low` priority, which priority routers drop first (TCP Fast
    /// Start's burst on cached state).
    fn data_priority(&self, _s: &SendState, _seq: u64) -> Priority {
        Priority::High
    }

    /// The variant's own counters (name, value), reported per flow in the
    /// results as `variant_counters` (e.g. retransmissions a rule avoided).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// A number naming the variant's current phase for time series (e.g.
    /// TCP-ADaLR's slow-start sub-phase); 0 when it has none.
    fn trace_phase(&self) -> i32 {
        0
    }
}

/// How much slow start adds per ACK: the hook for modified slow-start
/// functions. The standard rule is RFC 5681 Eq. 2: min(acked, SMSS).
pub trait SlowStart {
    fn increase(&mut self, s: &SendState, acked: u64) -> u64;
    /// Every ACK received (the congestion module passes its `on_ack_info`
    /// on), for policies that count ACKs.
    fn on_ack_info(&mut self, _s: &SendState, _ack: &AckInfo) {}
}

pub struct StandardSlowStart;

impl SlowStart for StandardSlowStart {
    fn increase(&mut self, s: &SendState, acked: u64) -> u64 {
        acked.min(s.mss as u64)
    }
}
