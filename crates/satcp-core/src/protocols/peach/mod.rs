//! TCP-Peach (Akyildiz, Morabito, Palazzo, "TCP-Peach: A New Congestion
//! Control Scheme for Satellite IP Networks", IEEE/ACM ToN 9(3), 2001,
//! Sec. III-IV). Four algorithms (Fig. 1):
//!
//! - Sudden Start (`sudden_start.rs`) replaces slow start: one data
//!   segment, then rwnd - 1 dummy segments spaced RTT/rwnd apart, whose
//!   ACKs open cwnd one segment each;
//! - Congestion Avoidance is Reno's, plus the wdsn rule for ACKs of dummy
//!   segments (this file);
//! - Fast Retransmit after ndup duplicate ACKs (the connection machinery);
//! - Rapid Recovery (`rapid_recovery.rs`) replaces Fast Recovery: cwnd is
//!   halved, and 2 x cwnd dummies probe whether the loss was congestion; if
//!   the network carries them, cwnd is back where it was one RTT later.
//!
//! Dummy segments are low-priority copies of the last data segment sent,
//! marked with `marks::DUMMY`; a receiver with Peach support
//! (`receiver.rs`) answers each with a marked low-priority ACK. A sender
//! that finds the receiver without that support falls back to plain
//! NewReno (`peach`) or SACK (`peach-sack`) behaviour (Sec. III-A).
//!
//! The congestion module (`Peach`) and the loss-recovery module
//! (`rapid_recovery::PeachRecovery`) share one `State`: wdsn is set by
//! Rapid Recovery and spent by Congestion Avoidance. Readings of the paper
//! are marked "Reading:" and listed in docs/peach.md.

pub mod rapid_recovery;
pub mod receiver;
pub mod sudden_start;
#[cfg(test)]
mod tests;

use super::header_bits::PEACH_DUMMY;
use super::reno::{reno_ca_increase, Reno};
use super::{Settings, Showcase, Variant};
use crate::engine::SimTime;
use crate::net::packet::Priority;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery;
use crate::tcp::send_state::{ExtraSegment, SendState};
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use rapid_recovery::{PeachRecovery, RapidRecovery};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use sudden_start::SuddenStart;

/// TCP-Peach settings (`tcp.peach`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PeachConfig {
    /// The receiver recognises dummy segments and answers them with marked
    /// ACKs (Sec. III-A). Without it a dummy is an ordinary duplicate.
    pub receiver_support: bool,
}

impl Default for PeachConfig {
    fn default() -> Self {
        PeachConfig {
            receiver_support: true,
        }
    }
}

/// `peach` (NewReno-style) and `peach-sack` (with the SACK option, as in
/// the paper's Sec. V: "both TCP-Reno and TCP-Peach apply the SACK option").
pub const VARIANT: Variant = Variant::new::<PeachConfig>(
    "peach",
    "TCP-Peach (IEEE/ACM ToN 2001): Sudden Start, Rapid Recovery, dummy segments",
    &[Recovery::NewReno, Recovery::Sack],
    &[("peach-sack", Recovery::Sack)],
)
.compared_as(&[Showcase {
    label: "TCP-Peach",
    tcp: r#"{"variant": "peach-sack"}"#,
}]);

impl Settings for PeachConfig {}

impl VariantFactory for PeachConfig {
    /// The sender's congestion and loss-recovery modules share one `State`;
    /// the receiver answers dummies if it has Peach support (a setting, so
    /// that a TCP-Peach sender may meet a receiver without it).
    fn endpoint(&self, recovery: Recovery) -> EndpointParts {
        let sack = recovery == Recovery::Sack;
        let st: Shared = Rc::new(RefCell::new(State::new(sack)));
        let parts = EndpointParts::new(
            Box::new(Peach::new(st.clone())),
            Box::new(PeachRecovery::new(st, sack, recovery::standard(recovery))),
            sack,
        );
        if self.receiver_support {
            parts.with_receiver(Box::new(receiver::PeachReceiver))
        } else {
            parts
        }
    }
}

/// A dummy segment: low priority, marked (Sec. III-A).
pub fn dummy() -> ExtraSegment {
    ExtraSegment {
        priority: Priority::Low,
        ext_flags: PEACH_DUMMY,
    }
}

/// What the congestion and loss-recovery modules of one sender share.
pub struct State {
    /// The receiver lacks Peach support: plain NewReno / SACK from now on.
    pub fallback: bool,
    /// wdsn (Sec. III-A): ACKs of dummies still to be received before
    /// they open cwnd again. Zero at connection start.
    pub wdsn: u64,
    pub sudden: SuddenStart,
    pub rr: RapidRecovery,
}

pub type Shared = Rc<RefCell<State>>;

impl State {
    pub fn new(sack: bool) -> State {
        State {
            fallback: false,
            wdsn: 0,
            sudden: SuddenStart::new(),
            rr: RapidRecovery::new(sack),
        }
    }

    /// "TCP-Peach sender stops transmitting dummy segments, i.e., TCP-Peach
    /// behaves like TCP-Reno" (Sec. III-A).
    fn fall_back(&mut self) {
        self.fallback = true;
        self.sudden.stop();
        self.rr.abandon();
        self.wdsn = 0;
    }
}

/// Rapid Recovery's `cwnd = cwnd/2`. Reading: with RFC 5681's floor of two
/// segments, as Reno halves ("the sender halves its congestion window, as
/// in TCP-Reno", Sec. III-C).
pub fn halved(s: &SendState) -> u64 {
    (s.cwnd / 2).max(2 * s.mss() as u64)
}

/// Values of `trace_phase` (the `cc_phase` time series).
pub mod phase {
    /// Sudden Start is still sending dummies.
    pub const SUDDEN_START: i32 = 1;
    pub const CONGESTION_AVOIDANCE: i32 = 2;
    pub const RAPID_RECOVERY: i32 = 3;
    /// The receiver lacks Peach support: plain NewReno / SACK.
    pub const FALLBACK: i32 = 4;
}

/// TCP-Peach's congestion module.
pub struct Peach {
    st: Shared,
    /// Reno as it is, for the fallback.
    reno: Reno,
    /// Remainder of the congestion-avoidance division (`reno_ca_increase`).
    ca_carry: u64,
}

impl Peach {
    pub fn new(st: Shared) -> Peach {
        Peach {
            st,
            reno: Reno::new(),
            ca_carry: 0,
        }
    }

    /// cwnd grows by `inc`, but not beyond rwnd, "the maximum value for the
    /// congestion window" (Sec. III-B).
    /// The ACK of a dummy segment: in Rapid Recovery Fig. 4's
    /// DUMMY_ACK_ARRIVAL, otherwise the wdsn rule of Congestion Avoidance
    /// (Sec. III-A): cwnd + 1 if wdsn = 0, else wdsn - 1.
    fn dummy_answered(st: &mut State, s: &mut SendState) {
        st.sudden.on_marked_ack();
        if st.fallback {
            return;
        }
        if st.rr.active() {
            st.rr.dummy_ack(s, &mut st.wdsn);
            st.rr.send(s);
        } else if st.wdsn == 0 {
            Self::grow(s, s.mss() as u64);
        } else {
            st.wdsn -= 1;
        }
    }

    fn grow(s: &mut SendState, inc: u64) {
        s.cwnd = (s.cwnd + inc).min(s.cwnd.max(s.rwnd()));
    }
}

impl CongestionControl for Peach {
    fn name(&self) -> &'static str {
        "peach"
    }

    /// Congestion Avoidance as in Reno (Sec. III): TCP-Peach has no slow
    /// start, Sudden Start takes its place.
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        if self.st.borrow().fallback {
            return self.reno.on_ack(s, acked, now);
        }
        let inc = reno_ca_increase(s, &mut self.ca_carry);
        Self::grow(s, inc);
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        if self.st.borrow().fallback {
            s.halved_window()
        } else {
            halved(s)
        }
    }

    /// A timeout, in Rapid Recovery (Fig. 4's `t > tRetr + RTO`) or not
    /// (Fig. 1): Sudden Start from one segment. ssthresh is halved as in
    /// Reno; TCP-Peach itself never reads it.
    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
        let st = &mut *self.st.borrow_mut();
        if !st.fallback {
            st.rr.abandon();
            // Reading: Sudden Start begins with wdsn = 0 (Sec. III-B: "since
            // wdsn = 0, for any received ACK related to a dummy segment, the
            // sender increases its cwnd").
            st.wdsn = 0;
            st.sudden.arm();
        }
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        let st = &mut *self.st.borrow_mut();
        match ev {
            CcEvent::DataSent if !st.fallback => st.sudden.on_data_sent(s, now),
            CcEvent::Timer => st.sudden.on_timer(s, now),
            CcEvent::MarkedAck(m) if m & PEACH_DUMMY != 0 => {
                Self::dummy_answered(st, s);
                return Reply::Handled;
            }
            // A duplicate ACK while Sudden Start's dummies are out and none
            // has been answered by a marked ACK: the receiver lacks Peach
            // support. The sender falls back, and takes the duplicate ACKs
            // the receiver sends for the dummies (it holds their data
            // already) for what they are, not for a loss.
            CcEvent::DupAck => {
                if !st.fallback && st.sudden.shows_no_support() {
                    st.fall_back();
                }
                if st.fallback && st.sudden.claim_answer(now) {
                    return Reply::Handled;
                }
            }
            _ => {}
        }
        Reply::Default
    }

    fn next_timer(&self) -> Option<SimTime> {
        self.st.borrow().sudden.next_timer()
    }

    fn trace_phase(&self) -> i32 {
        let st = self.st.borrow();
        if st.fallback {
            phase::FALLBACK
        } else if st.rr.active() {
            phase::RAPID_RECOVERY
        } else if st.sudden.running() {
            phase::SUDDEN_START
        } else {
            phase::CONGESTION_AVOIDANCE
        }
    }
}
