//! Sudden Start (TCP-Peach Sec. III-B, Fig. 2), which replaces slow start:
//!
//! ```text
//! Sudden_Start()
//!     cwnd = 1;
//!     tau = RTT / rwnd;
//!     send(Data_Segment);
//!     for (i = 1 to rwnd - 1)
//!         wait(tau);
//!         send(Dummy_Segment);
//!     end;
//! end.
//! ```
//!
//! The sender then runs Congestion Avoidance; the ACKs of the dummies open
//! cwnd through the wdsn rule (`super::Peach::on_marked_ack`).
//!
//! satcp counts windows in bytes: cwnd = 1 is one MSS, and rwnd in
//! segments is the peer's advertised window divided by the MSS, rounded
//! down (the whole segments the sender may have outstanding). RTT is the
//! smoothed estimate, which at connection start is the handshake's sample
//! (Sec. III-B: "the sender can estimate RTT during the connection setup").
//!
//! The module also keeps what the sender needs to notice a receiver
//! without Peach support (Sec. III-A, III-B): such a receiver never sends
//! a marked ACK and takes every dummy for a duplicate of data it already
//! holds, which it answers with a duplicate ACK.

use super::dummy;
use crate::engine::{Duration, SimTime};
use crate::tcp::send_state::SendState;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Nothing to do: the dummies are out, or the algorithm was stopped.
    Idle,
    /// Waiting for the first data segment (at connection start or after a
    /// retransmission timeout).
    Armed,
    /// Dummies are due every `tau`, the next at `next`, `left` to go.
    Pacing {
        next: SimTime,
        tau: Duration,
        left: u32,
    },
}

pub struct SuddenStart {
    stage: Stage,
    /// Dummies sent since the algorithm last started.
    sent: u32,
    /// Dummies a receiver without Peach support still owes a duplicate ACK.
    unclaimed: u32,
    /// Duplicate ACKs are claimed as answers to dummies only until then.
    claim_until: SimTime,
    /// A marked ACK has arrived: the receiver supports TCP-Peach.
    verified: bool,
}

impl Default for SuddenStart {
    fn default() -> Self {
        SuddenStart::new()
    }
}

impl SuddenStart {
    /// Armed for the connection's first data segment.
    pub fn new() -> SuddenStart {
        SuddenStart {
            stage: Stage::Armed,
            sent: 0,
            unclaimed: 0,
            claim_until: SimTime::ZERO,
            verified: false,
        }
    }

    /// Starts over at the next data segment sent (after a timeout, Fig. 1
    /// and Sec. III-C). Dummies of an earlier run not yet sent are dropped.
    pub fn arm(&mut self) {
        self.stage = Stage::Armed;
        self.sent = 0;
    }

    /// Stops sending dummies (the receiver lacks Peach support).
    pub fn stop(&mut self) {
        self.stage = Stage::Idle;
    }

    /// Whether dummies are still to be sent.
    pub fn running(&self) -> bool {
        self.stage != Stage::Idle
    }

    pub fn dummies_sent(&self) -> u32 {
        self.sent
    }

    /// The RTT of Eq. 2: the smoothed estimate. Without any sample (the
    /// handshake was retransmitted, so Karn's rule gave none) the RTO
    /// stands in for it.
    pub fn rtt(s: &SendState) -> Duration {
        s.rtt().srtt().unwrap_or_else(|| s.rtt().rto())
    }

    /// tau = RTT / rwnd (Eq. 2) and rwnd in whole segments.
    pub fn spacing(s: &SendState) -> (Duration, u32) {
        let rwnd = (s.rwnd() / s.mss() as u64).clamp(1, u32::MAX as u64) as u32;
        (Duration(Self::rtt(s).0 / rwnd as u64), rwnd)
    }

    /// A data segment was sent. The first one after arming is Fig. 2's
    /// `send(Data_Segment)`: cwnd = 1, and the dummies follow every tau.
    pub fn on_data_sent(&mut self, s: &mut SendState, now: SimTime) {
        if self.stage != Stage::Armed {
            return;
        }
        s.cwnd = s.mss() as u64;
        let (tau, rwnd) = Self::spacing(s);
        self.stage = if rwnd > 1 {
            Stage::Pacing {
                next: now + tau,
                tau,
                left: rwnd - 1,
            }
        } else {
            Stage::Idle
        };
    }

    /// When the next dummy is due.
    pub fn next_timer(&self) -> Option<SimTime> {
        match self.stage {
            Stage::Pacing { next, .. } => Some(next),
            _ => None,
        }
    }

    /// `wait(tau); send(Dummy_Segment)`: asks for the dummy that is due.
    pub fn on_timer(&mut self, s: &mut SendState, now: SimTime) {
        let Stage::Pacing { next, tau, left } = self.stage else {
            return;
        };
        if next > now {
            return;
        }
        // Reading: once everything, FIN included, is acknowledged there is
        // nothing left to copy or to send faster; the paper's transfers
        // never end within Sudden Start, so it does not say.
        if s.fin_seq().is_some_and(|f| s.snd_una() > f) {
            self.stage = Stage::Idle;
            return;
        }
        s.send_extra(dummy());
        self.sent += 1;
        self.unclaimed += 1;
        // The answer to this dummy is due about one RTT from now; two
        // leave room for queueing on the way.
        self.claim_until = now + Duration(2 * Self::rtt(s).0);
        self.stage = if left > 1 {
            Stage::Pacing {
                next: next + tau,
                tau,
                left: left - 1,
            }
        } else {
            Stage::Idle
        };
    }

    /// A marked ACK arrived: the receiver supports TCP-Peach.
    pub fn on_marked_ack(&mut self) {
        self.verified = true;
        self.unclaimed = 0;
    }

    /// An unmarked duplicate ACK arrived while dummies of this connection
    /// were out and no marked ACK ever came: the "ACKs for the dummy
    /// segments [did] not arrive in the expected format" (Sec. III-B), so
    /// the receiver lacks Peach support.
    pub fn shows_no_support(&self) -> bool {
        !self.verified && self.unclaimed > 0
    }

    /// Whether a duplicate ACK arriving at `now` is taken as a receiver's
    /// answer to a dummy (and counts it off). A receiver without Peach
    /// support answers every dummy that reaches it with a duplicate ACK;
    /// they say nothing about loss.
    pub fn claim_answer(&mut self, now: SimTime) -> bool {
        if self.verified || self.unclaimed == 0 || now > self.claim_until {
            return false;
        }
        self.unclaimed -= 1;
        true
    }
}
