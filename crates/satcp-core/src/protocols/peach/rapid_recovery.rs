//! Rapid Recovery (TCP-Peach Sec. III-C and IV, Fig. 4), which replaces
//! Fast Recovery after the Fast Retransmit:
//!
//! ```text
//! Rapid_Recovery()
//!   cwnd=cwnd/2; adsn=2*cwnd; wdsn=cwnd; infl_seg=0; tRetr=t; END=0;
//!   while (END=0)
//!     if (ACK_ARRIVAL)
//!       if (DATA_ACK_ARRIVAL)       cwnd=cwnd+1; infl_seg=infl_seg+1;
//!       else if (DUMMY_ACK_ARRIVAL)
//!         if (wdsn=0)               cwnd=cwnd+1; infl_seg=infl_seg+1;
//!         else                      wdsn=wdsn-1;
//!     if (cwnd>nackseg)             send data segments while cwnd>nackseg;
//!     else if (adsn>0)              send two dummy segments; adsn=adsn-2;
//!     if (LOST_SEGMENT_ACKED)       END=1; cwnd=cwnd-infl_seg;
//!   if (t>tRetr+RTO)                Sudden_Start();
//! ```
//!
//! `RapidRecovery` below is the figure, one method per line group, in
//! bytes (one segment = one MSS). `PeachRecovery` plugs it into the
//! connection's loss-recovery hook: the machinery counts the duplicate
//! ACKs, does the Fast Retransmit and sends the data; the congestion module
//! (`super::Peach`) hands over the ACKs of dummies. Readings of the figure
//! are marked "Reading:" and listed in docs/peach.md.

use super::{dummy, Shared};
use crate::tcp::recovery::{LossRecovery, RecoveryAck, RecoveryRules};
use crate::tcp::send_state::SendState;

/// The counters of one Rapid Recovery episode.
#[derive(Clone, Debug, Default)]
pub struct RapidRecovery {
    /// With SACK the scoreboard's pipe, not cwnd inflation, accounts for
    /// the data segments that left the network.
    sack: bool,
    /// An episode is under way (END = 0).
    active: bool,
    /// adsn: dummy segments still allowed, in segments.
    adsn: u64,
    /// infl_seg: bytes cwnd was artificially inflated by.
    infl_seg: u64,
    /// Reading (SACK): Fig. 4's inflation for data ACKs, counted for the
    /// dummy rule but not applied to cwnd, since the pipe already frees a
    /// segment's worth of window for each of them.
    sack_infl: u64,
}

impl RapidRecovery {
    pub fn new(sack: bool) -> RapidRecovery {
        RapidRecovery {
            sack,
            ..Default::default()
        }
    }

    pub fn active(&self) -> bool {
        self.active
    }

    pub fn adsn(&self) -> u64 {
        self.adsn
    }

    pub fn infl_seg(&self) -> u64 {
        self.infl_seg
    }

    /// `cwnd=cwnd/2; adsn=2*cwnd; wdsn=cwnd; infl_seg=0; END=0`.
    /// The halving is `halved` (the machinery stored it in ssthresh when
    /// the Fast Retransmit started); adsn and wdsn count whole segments.
    /// `tRetr=t` needs no variable: the connection's retransmission timer
    /// is what expires when the retransmission is not acknowledged in time.
    pub fn start(&mut self, s: &mut SendState, wdsn: &mut u64) {
        let mss = s.mss() as u64;
        s.cwnd = s.ssthresh;
        self.adsn = 2 * s.cwnd / mss;
        *wdsn = s.cwnd / mss;
        self.infl_seg = 0;
        self.sack_infl = 0;
        self.active = true;
    }

    /// `DATA_ACK_ARRIVAL: cwnd=cwnd+1; infl_seg=infl_seg+1`.
    pub fn data_ack(&mut self, s: &mut SendState) {
        let mss = s.mss() as u64;
        if self.sack {
            self.sack_infl += mss;
        } else {
            s.cwnd += mss;
            self.infl_seg += mss;
        }
    }

    /// `DUMMY_ACK_ARRIVAL: if (wdsn=0) {cwnd=cwnd+1; infl_seg=infl_seg+1}
    /// else wdsn=wdsn-1`.
    pub fn dummy_ack(&mut self, s: &mut SendState, wdsn: &mut u64) {
        if *wdsn == 0 {
            s.cwnd += s.mss() as u64;
            self.infl_seg += s.mss() as u64;
        } else {
            *wdsn -= 1;
        }
    }

    /// `if (cwnd>nackseg) send data; else if (adsn>0) {send two dummies;
    /// adsn=adsn-2}`, once per ACK. The data itself is sent by the
    /// connection right after, as its windows allow. Reading: cwnd >
    /// nackseg means one more whole segment fits (cwnd >= nackseg + 1 MSS),
    /// nackseg is the data not cumulatively acknowledged (flight size).
    pub fn send(&mut self, s: &mut SendState) {
        let cwnd = s.cwnd + self.sack_infl;
        let nackseg = s.flight_size();
        if cwnd >= nackseg + s.mss() as u64 {
            return;
        }
        if self.adsn > 0 {
            s.send_extra(dummy());
            s.send_extra(dummy());
            self.adsn = self.adsn.saturating_sub(2);
        }
    }

    /// Reading (several losses in one window, which Fig. 4 does not
    /// cover): an ACK of new data short of the recovery point acknowledges
    /// segments whose duplicate ACKs inflated cwnd; as in NewReno, that
    /// inflation is taken back (never more than was inflated) before the
    /// ACK counts as a DATA_ACK_ARRIVAL.
    pub fn take_back(&mut self, s: &mut SendState, acked: u64) {
        if self.sack {
            self.sack_infl -= acked.min(self.sack_infl);
        } else {
            let d = acked.min(self.infl_seg);
            s.cwnd -= d;
            self.infl_seg -= d;
        }
    }

    /// `LOST_SEGMENT_ACKED: END=1; cwnd=cwnd-infl_seg` (and adsn = 0,
    /// Sec. III-C).
    pub fn end(&mut self, s: &mut SendState) {
        s.cwnd = s.cwnd.saturating_sub(self.infl_seg).max(s.mss() as u64);
        self.abandon();
    }

    /// `if (t>tRetr+RTO) Sudden_Start()`: the episode is over without its
    /// END; the caller starts Sudden Start.
    pub fn abandon(&mut self) {
        self.active = false;
        self.adsn = 0;
        self.infl_seg = 0;
        self.sack_infl = 0;
    }
}

/// TCP-Peach's loss-recovery module: Fast Retransmit then Rapid Recovery,
/// or the plain NewReno / SACK recovery once the sender has found that the
/// receiver lacks Peach support.
pub struct PeachRecovery {
    st: Shared,
    sack: bool,
    /// NewReno (peach) or RFC 6675 SACK (peach-sack) recovery: the
    /// fallback, and the loss detection of both.
    plain: Box<dyn LossRecovery>,
}

impl PeachRecovery {
    pub fn new(st: Shared, sack: bool, plain: Box<dyn LossRecovery>) -> PeachRecovery {
        PeachRecovery { st, sack, plain }
    }

    /// What follows every ACK of the episode: Fig. 4's send step.
    fn after_ack(&mut self, s: &mut SendState) {
        self.st.borrow_mut().rr.send(s);
    }
}

impl LossRecovery for PeachRecovery {
    fn name(&self) -> &'static str {
        if self.sack {
            "peach-sack"
        } else {
            "peach"
        }
    }

    /// Fast Retransmit after ndup duplicate ACKs (Fig. 1); with SACK also
    /// when the scoreboard presumes the first segment lost (RFC 6675).
    fn loss_detected(&self, s: &SendState) -> bool {
        self.plain.loss_detected(s)
    }

    /// Fig. 4's RAPID_RECOVERY_START: the fast retransmission, cwnd =
    /// ssthresh, adsn and wdsn set.
    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        let st = &mut *self.st.borrow_mut();
        if st.fallback {
            return self.plain.enter(s, reduced);
        }
        st.rr.start(s, &mut st.wdsn);
        s.retransmit_first_now();
        if self.sack {
            s.presume_lost_by_sack();
        }
    }

    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        if self.st.borrow().fallback {
            return self.plain.on_ack(s, ack);
        }
        match ack {
            // DATA_ACK_ARRIVAL of a duplicate ACK.
            RecoveryAck::Duplicate => {
                if self.sack {
                    s.presume_lost_by_sack();
                }
                self.st.borrow_mut().rr.data_ack(s);
            }
            // A partial ACK: the next hole is resent (NewReno) or presumed
            // lost (SACK); what the inflation counted for the acknowledged
            // segments is given back.
            RecoveryAck::Partial { acked } => {
                if self.sack {
                    s.presume_lost_by_sack();
                } else {
                    s.retransmit_first_now();
                }
                let rr = &mut self.st.borrow_mut().rr;
                rr.take_back(s, acked);
                rr.data_ack(s);
            }
        }
        self.after_ack(s);
    }

    /// RAPID_RECOVERY_END: the inflation taken back.
    fn exit(&mut self, s: &mut SendState) {
        let st = &mut *self.st.borrow_mut();
        if st.fallback {
            return self.plain.exit(s);
        }
        st.rr.end(s);
    }

    fn rules(&self) -> RecoveryRules {
        // peach-sack selects what Rapid Recovery sends by RFC 6675's
        // NextSeg, rules (3) and (4) included (docs/peach.md, reading 13);
        // after a fallback the plain recovery is SACK's exactly then too.
        RecoveryRules {
            nextseg_rules_3_and_4: self.sack,
            ..RecoveryRules::default()
        }
    }
}
