//! How much of cwnd the sender uses, and what becomes of the part it does
//! not use. Machinery, after Linux 6.x (net/ipv4/tcp_output.c,
//! include/net/tcp.h); variants do not implement it.
//!
//! `cwnd_validation` (Linux's `tcp_is_cwnd_limited`, the idea of RFC
//! 7661): an ACK may grow cwnd only while the sender is cwnd-limited.
//! After each transmission round (`tcp_cwnd_validate`, called from
//! `tcp_write_xmit`) the machinery notes whether the flight reached cwnd
//! (no room for another full segment) and the largest flight of the
//! current window of data (`max_packets_out`, forgotten once snd_una
//! passes the window's end, `cwnd_usage_seq`). The sender is cwnd-limited
//! if the flight reached cwnd in that window or, in slow start, if cwnd is
//! below twice the largest flight ("ensure cwnd grows to twice what was
//! ACKed"). A receive-window- or application-limited sender therefore
//! grows cwnd to at most about twice what it sends, not without bound.
//! The congestion control's `on_ack` still runs on every ACK (variants keep
//! their bookkeeping there); the growth it made is taken back when the
//! sender was not cwnd-limited. Linux instead skips the whole `cong_avoid`
//! call: a CUBIC's W_est (its Reno-friendly estimate) therefore keeps
//! counting ACKs in satcp while the receiver limits the sender.
//! Congestion controls that set cwnd outside `on_ack` (BBR, in its ACK
//! event) are not limited, as Linux's BBR (its own `cong_control`) is not.
//!
//! `slow_start_after_idle` (Linux's `net.ipv4.tcp_slow_start_after_idle`,
//! default 1; RFC 2861, which RFC 7661 replaced): cwnd not used for an RTO
//! shrinks. After an idle period longer than the RTO (nothing in flight,
//! the last data segment sent more than an RTO ago), new data from the
//! application restarts the window (`tcp_cwnd_restart`): ssthresh =
//! max(ssthresh, 3/4 cwnd), cwnd halved for every RTO of idleness but not
//! below min(IW, cwnd). And while the sender is not cwnd-limited, once an
//! RTO has passed since cwnd was last used in full or offered growth
//! (`snd_cwnd_stamp`, refreshed by every ACK that may raise cwnd), cwnd
//! decays half-way to the largest flight sent meanwhile, at least IW
//! (`tcp_cwnd_application_limited`, in the Open state only). Before either
//! the congestion control hears `CcEvent::UnusedCwnd`; `Handled` keeps its
//! window (Linux exempts congestion controls with their own
//! `cong_control`, BBR). RFC 7661's pipeACK and its non-validated phase
//! are not modelled: Linux does not run them either.

use super::config::TcpConfig;
use super::send_state::{CongState, SendState};
use crate::engine::SimTime;

#[derive(Clone, Debug, Default)]
pub struct CwndUse {
    /// `cwnd_validation`.
    validate: bool,
    /// `slow_start_after_idle`.
    after_idle: bool,
    /// IW, segments (`tcp_init_cwnd`).
    initial_window: u64,
    /// The flight reached cwnd in the current window (`is_cwnd_limited`).
    is_cwnd_limited: bool,
    /// The largest flight of the current window, bytes (`max_packets_out`).
    max_flight: u64,
    /// snd_max when the current window started (`cwnd_usage_seq`).
    usage_seq: u64,
    /// The largest flight while not cwnd-limited, bytes (`snd_cwnd_used`).
    cwnd_used: u64,
    /// When cwnd was last used in full or offered growth (`snd_cwnd_stamp`).
    stamp: Option<SimTime>,
    /// When the last data segment left (`lsndtime`).
    last_send: Option<SimTime>,
    /// Restarts after idle and decays of an unused cwnd.
    pub restarts: u64,
    pub decays: u64,
}

impl CwndUse {
    pub fn new(cfg: &TcpConfig) -> CwndUse {
        CwndUse {
            validate: cfg.cwnd_validation,
            after_idle: cfg.slow_start_after_idle,
            initial_window: cfg.initial_window as u64,
            ..CwndUse::default()
        }
    }
}

impl SendState {
    /// Linux's `tcp_is_cwnd_limited`: the flight reached cwnd in the
    /// current window, or, in slow start, cwnd is below twice the largest
    /// flight.
    pub fn is_cwnd_limited(&self) -> bool {
        let u = &self.cwnd_use;
        u.is_cwnd_limited || (self.in_slow_start() && self.cwnd < 2 * u.max_flight)
    }

    /// Whether the ACK being processed may grow cwnd (always, without
    /// `cwnd_validation`). Asked before the congestion control's `on_ack`.
    pub(in crate::tcp) fn may_raise_cwnd(&self) -> bool {
        !self.cwnd_use.validate || self.is_cwnd_limited()
    }

    /// The congestion control's `on_ack` ran (`tcp_cong_avoid`): cwnd was
    /// offered growth; the growth is taken back unless `may_raise`.
    pub(in crate::tcp) fn growth_offered(&mut self, now: SimTime, before: u64, may_raise: bool) {
        if !may_raise && self.cwnd > before {
            self.cwnd = before;
        }
        self.cwnd_use.stamp = Some(now);
    }

    /// A transmission round ended (`tcp_cwnd_validate`); `sent_data`: it
    /// sent data. Returns whether cwnd has gone unused for an RTO, so that
    /// `decay_unused_cwnd` is due.
    pub(in crate::tcp) fn after_transmit(&mut self, sent_data: bool, now: SimTime) -> bool {
        if !(self.cwnd_use.validate || self.cwnd_use.after_idle) {
            return false;
        }
        if sent_data {
            self.cwnd_use.last_send = Some(now);
        }
        let limited_now = self.pipe() + self.mss as u64 > self.cwnd;
        if !(sent_data || limited_now) {
            return false;
        }
        let flight = self.flight_size();
        let (snd_una, snd_max) = (self.snd_una, self.snd_max);
        let u = &mut self.cwnd_use;
        // The strongest sign of use in the current window: cwnd-limited,
        // else the largest flight.
        if snd_una >= u.usage_seq || limited_now || (!u.is_cwnd_limited && flight > u.max_flight) {
            u.is_cwnd_limited = limited_now;
            u.max_flight = flight;
            u.usage_seq = snd_max;
        }
        let stamp = *u.stamp.get_or_insert(now);
        if self.is_cwnd_limited() {
            let u = &mut self.cwnd_use;
            u.cwnd_used = 0;
            u.stamp = Some(now);
            return false;
        }
        let u = &mut self.cwnd_use;
        u.cwnd_used = u.cwnd_used.max(flight);
        u.after_idle && now.since(stamp) >= self.rtt.rto()
    }

    /// max(ssthresh, 3/4 cwnd) outside loss recovery (`tcp_current_ssthresh`).
    fn current_ssthresh(&self) -> u64 {
        match self.state {
            CongState::Recovery | CongState::Loss => self.ssthresh,
            CongState::Open | CongState::Disorder => {
                self.ssthresh.max((self.cwnd >> 1) + (self.cwnd >> 2))
            }
        }
    }

    /// cwnd went unused for an RTO (`tcp_cwnd_application_limited`): half-way
    /// down to the largest flight sent meanwhile, at least IW.
    pub(in crate::tcp) fn decay_unused_cwnd(&mut self, now: SimTime) {
        if self.state() == CongState::Open {
            let iw = self.cwnd_use.initial_window * self.mss as u64;
            let used = self.cwnd_use.cwnd_used.max(iw);
            if used < self.cwnd {
                self.ssthresh = self.current_ssthresh();
                self.cwnd = (self.cwnd + used) / 2;
                self.cwnd_use.decays += 1;
            }
            self.cwnd_use.cwnd_used = 0;
        }
        self.cwnd_use.stamp = Some(now);
    }

    /// New data is about to go after an idle period longer than the RTO
    /// (`tcp_slow_start_after_idle_check`): nothing in flight, and the last
    /// data segment left more than an RTO ago.
    pub(in crate::tcp) fn idle_restart_due(&self, now: SimTime) -> bool {
        self.cwnd_use.after_idle
            && self.snd_max == self.snd_una
            && self
                .cwnd_use
                .last_send
                .is_some_and(|t| now.since(t) > self.rtt.rto())
    }

    /// The restart after idle (`tcp_cwnd_restart`): ssthresh remembers
    /// the window, cwnd halves for every RTO of idleness, down to at most
    /// min(IW, cwnd).
    pub(in crate::tcp) fn restart_after_idle(&mut self, now: SimTime) {
        let Some(last) = self.cwnd_use.last_send else {
            return;
        };
        let rto = self.rtt.rto().0 as i128;
        let mut idle = now.since(last).0 as i128;
        let restart = (self.cwnd_use.initial_window * self.mss as u64).min(self.cwnd);
        self.ssthresh = self.current_ssthresh();
        let mut cwnd = self.cwnd;
        loop {
            idle -= rto;
            if idle <= 0 || cwnd <= restart {
                break;
            }
            cwnd >>= 1;
        }
        self.cwnd = cwnd.max(restart);
        let u = &mut self.cwnd_use;
        u.stamp = Some(now);
        u.cwnd_used = 0;
        u.restarts += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Duration, SimTime};
    use crate::tcp::send_state::SendState;
    use crate::tcp::test_support::send_state;

    const MSS: u64 = 1000;

    fn sender(validate: bool, after_idle: bool) -> SendState {
        let mut s = send_state(MSS as u32);
        s.cwnd_use.validate = validate;
        s.cwnd_use.after_idle = after_idle;
        s.cwnd_use.initial_window = 10;
        s.rtt_mut().sample(Duration::from_millis(500)); // RTO 1.5 s (RFC 6298, G 0.5 s)
        s.set_snd_una(1);
        s.set_snd_max(1);
        s
    }

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// Sends `n` segments at `now` and ends the round.
    fn send(s: &mut SendState, n: u64, now: SimTime) {
        for _ in 0..n {
            s.send_new(MSS, now);
        }
        s.after_transmit(n > 0, now);
    }

    /// tcp_is_cwnd_limited: a flight that reached cwnd is cwnd-limited.
    #[test]
    fn a_flight_that_fills_cwnd_is_cwnd_limited() {
        let mut s = sender(true, false);
        s.cwnd = 10 * MSS;
        s.ssthresh = 5 * MSS; // congestion avoidance
        send(&mut s, 10, t(0));
        assert!(s.is_cwnd_limited());
        let mut s = sender(true, false);
        s.cwnd = 10 * MSS;
        s.ssthresh = 5 * MSS;
        send(&mut s, 6, t(0));
        assert!(!s.is_cwnd_limited());
    }

    /// In slow start cwnd may grow to twice the largest flight of the
    /// window ("ensure cwnd grows to twice what was ACKed").
    #[test]
    fn in_slow_start_cwnd_grows_to_twice_the_largest_flight() {
        let mut s = sender(true, false);
        s.cwnd = 11 * MSS;
        send(&mut s, 6, t(0)); // receiver-limited at 6 segments
        assert!(s.is_cwnd_limited(), "11 < 2 x 6");
        s.cwnd = 12 * MSS;
        assert!(!s.is_cwnd_limited(), "12 = 2 x 6");
        assert!(!s.may_raise_cwnd());
    }

    /// The growth of an ACK while not cwnd-limited is taken back.
    #[test]
    fn growth_is_kept_only_when_cwnd_limited() {
        let mut s = sender(true, false);
        s.cwnd = 20 * MSS;
        s.ssthresh = 5 * MSS;
        send(&mut s, 6, t(0));
        let may = s.may_raise_cwnd();
        s.cwnd += 100;
        s.growth_offered(t(1), 20 * MSS, may);
        assert_eq!(s.cwnd, 20 * MSS);
        // Without cwnd_validation the growth stays.
        let mut s = sender(false, false);
        s.cwnd = 20 * MSS;
        send(&mut s, 6, t(0));
        let may = s.may_raise_cwnd();
        s.cwnd += 100;
        s.growth_offered(t(1), 20 * MSS, may);
        assert_eq!(s.cwnd, 20 * MSS + 100);
    }

    /// The largest flight is remembered for one window of data (until
    /// snd_una passes cwnd_usage_seq), then measured afresh.
    #[test]
    fn the_largest_flight_is_per_window() {
        let mut s = sender(true, false);
        s.cwnd = 30 * MSS;
        s.ssthresh = 5 * MSS;
        send(&mut s, 8, t(0));
        assert_eq!(s.cwnd_use.max_flight, 8 * MSS);
        // Half acknowledged, two more sent: flight 6 < 8, same window.
        s.set_snd_una(1 + 4 * MSS);
        send(&mut s, 2, t(1));
        assert_eq!(s.cwnd_use.max_flight, 8 * MSS);
        // The window is acknowledged: the next round starts the count again.
        s.set_snd_una(s.snd_max());
        send(&mut s, 3, t(2));
        assert_eq!(s.cwnd_use.max_flight, 3 * MSS);
    }

    /// tcp_cwnd_restart: after 3.5 RTOs of idleness cwnd halves three
    /// times, but not below IW; ssthresh keeps 3/4 of the old cwnd.
    #[test]
    fn an_idle_rto_restarts_the_window() {
        let mut s = sender(false, true);
        s.cwnd = 200 * MSS;
        s.ssthresh = 100 * MSS;
        send(&mut s, 5, t(0));
        s.set_snd_una(s.snd_max());
        assert!(!s.idle_restart_due(t(1500)), "idle for exactly one RTO");
        assert!(s.idle_restart_due(t(5250)));
        s.restart_after_idle(t(5250));
        assert_eq!(s.cwnd, 25 * MSS);
        assert_eq!(s.ssthresh, 150 * MSS);
        // A long idle period: down to IW.
        let mut s = sender(false, true);
        s.cwnd = 200 * MSS;
        send(&mut s, 5, t(0));
        s.set_snd_una(s.snd_max());
        s.restart_after_idle(t(100_000));
        assert_eq!(s.cwnd, 10 * MSS);
        // Not while data is in flight.
        let mut s = sender(false, true);
        send(&mut s, 5, t(0));
        assert!(!s.idle_restart_due(t(100_000)));
    }

    /// tcp_cwnd_application_limited: not cwnd-limited for an RTO since cwnd
    /// was last used or offered growth, cwnd decays half-way to what was
    /// used (at least IW).
    #[test]
    fn an_unused_cwnd_decays_after_an_rto() {
        let mut s = sender(false, true);
        s.cwnd = 100 * MSS;
        s.ssthresh = 10 * MSS;
        assert!(!s.after_transmit(false, t(0)));
        send(&mut s, 20, t(0));
        assert!(!s.after_transmit(true, t(1000)), "less than an RTO");
        assert!(s.after_transmit(true, t(1500)));
        s.decay_unused_cwnd(t(1500));
        assert_eq!(s.cwnd, 60 * MSS, "(100 + 20) / 2");
        assert_eq!(s.ssthresh, 75 * MSS, "3/4 of the old cwnd");
        // An ACK that may raise cwnd refreshes the stamp.
        s.growth_offered(t(2000), s.cwnd, true);
        assert!(!s.after_transmit(true, t(3000)));
    }
}
