//! F-RTO (RFC 5682), the SACK-enhanced version of Sec. 3 as Linux runs it
//! (`tcp_process_loss`, net.ipv4.tcp_frto = 2): after a retransmission
//! timeout, the first ACK that advances snd_una lets new data go instead
//! of the retransmissions; if the ACKs that follow acknowledge or SACK
//! data sent before the timeout and never resent, the original
//! transmissions were not lost: the timeout was spurious and its
//! reduction is undone (the endpoint: `CongestionControl::undo`, the
//! segments presumed lost back in flight, state Open).
//!
//! The machinery tells this module what each ACK in the timeout's
//! recovery did (`FrtoAck`); the module answers what to do (`Verdict`).
//! Linux's reading of the RFC's steps, which this follows:
//!
//! - step 1 (the timeout): F-RTO runs if no loss recovery was under way,
//!   or the timeout repeats one on the same snd_una (Sec. 3.2);
//! - any ACK that acknowledges or SACKs a segment sent once, below the
//!   data outstanding at the timeout (Linux's FLAG_ORIG_SACK_ACKED;
//!   without SACK only if the ACK acknowledges no resent data): spurious
//!   (step 3b, Appendix B of RFC 4138: "the TCP sender must receive an
//!   acknowledgment for non-retransmitted segment between SND.UNA and
//!   RecoveryPoint");
//! - step 2: duplicate ACKs wait; the first ACK that advances snd_una
//!   (a) ends F-RTO if it covers everything outstanding at the timeout,
//!   (b) else sends new data in this transmission round if there is some
//!   and the peer's window allows it, else ends F-RTO (the conventional
//!   recovery goes on);
//! - step 3: after the new data, an ACK that SACKs data or is a duplicate
//!   shows the loss real (step 3a): F-RTO ends.

/// What an ACK during the timeout's recovery did, as F-RTO reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrtoAck {
    /// snd_una advanced.
    pub advanced: bool,
    /// snd_una reached the data outstanding at the timeout.
    pub covers_recover: bool,
    /// It acknowledged or SACKed a segment sent only once, below the data
    /// outstanding at the timeout.
    pub original_delivered: bool,
    /// It SACKed new data or was a duplicate ACK.
    pub sacked_or_duplicate: bool,
    /// Unsent data waits and the peer's window lets a segment of it go.
    pub new_data_can_go: bool,
}

/// F-RTO's answer to an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing decided (or F-RTO is not running).
    Wait,
    /// Step 2b: send new data in this round, no retransmission.
    SendNewData,
    /// Step 3b: the timeout was spurious: undo it.
    Spurious,
    /// The loss was real, or F-RTO cannot tell: the conventional recovery
    /// goes on.
    Genuine,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Step {
    /// Not running.
    #[default]
    Off,
    /// Step 2: waiting for the first ACK that advances snd_una.
    AwaitingAdvance,
    /// Step 3: new data went; waiting for the ACKs that tell.
    NewDataSent,
}

#[derive(Clone, Debug, Default)]
pub struct Frto {
    step: Step,
    /// The round after step 2b sends new data only.
    new_data_round: bool,
}

impl Frto {
    /// A retransmission timeout (step 1). `fresh`: no loss recovery was
    /// under way, or the timeout repeats one on the same snd_una (RFC 5682
    /// Sec. 3.2; Linux: `new_recovery || icsk_retransmits`).
    pub fn on_timeout(&mut self, fresh: bool) {
        self.step = if fresh {
            Step::AwaitingAdvance
        } else {
            Step::Off
        };
        self.new_data_round = false;
    }

    /// An ACK during the timeout's recovery.
    pub fn on_ack(&mut self, a: FrtoAck) -> Verdict {
        let v = self.verdict(a);
        match v {
            Verdict::SendNewData => {
                self.step = Step::NewDataSent;
                self.new_data_round = true;
            }
            Verdict::Spurious | Verdict::Genuine => self.step = Step::Off,
            Verdict::Wait => {}
        }
        v
    }

    fn verdict(&self, a: FrtoAck) -> Verdict {
        if self.step == Step::Off {
            return Verdict::Wait;
        }
        if a.original_delivered {
            return Verdict::Spurious;
        }
        match self.step {
            Step::AwaitingAdvance if a.advanced => {
                if a.covers_recover || !a.new_data_can_go {
                    Verdict::Genuine
                } else {
                    Verdict::SendNewData
                }
            }
            Step::NewDataSent if a.sacked_or_duplicate => Verdict::Genuine,
            _ => Verdict::Wait,
        }
    }

    /// Whether this transmission round sends new data only (step 2b);
    /// asked once per round.
    pub fn take_new_data_round(&mut self) -> bool {
        std::mem::take(&mut self.new_data_round)
    }

    pub fn running(&self) -> bool {
        self.step != Step::Off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed() -> Frto {
        let mut f = Frto::default();
        f.on_timeout(true);
        f
    }

    fn advancing() -> FrtoAck {
        FrtoAck {
            advanced: true,
            new_data_can_go: true,
            ..FrtoAck::default()
        }
    }

    /// RFC 5682 Sec. 3.2 (Linux: `new_recovery || icsk_retransmits`): a
    /// timeout that interrupts fast recovery does not start F-RTO.
    #[test]
    fn sec3_2_a_timeout_during_fast_recovery_does_not_start_frto() {
        let mut f = Frto::default();
        f.on_timeout(false);
        assert!(!f.running());
        assert_eq!(f.on_ack(advancing()), Verdict::Wait);
    }

    /// Step 2: duplicate ACKs before the first advancing ACK change nothing.
    #[test]
    fn step2_duplicate_acks_wait() {
        let mut f = armed();
        let dup = FrtoAck {
            sacked_or_duplicate: true,
            ..FrtoAck::default()
        };
        assert_eq!(f.on_ack(dup), Verdict::Wait);
        assert!(f.running());
    }

    /// Step 2a: an ACK covering everything outstanding at the timeout.
    #[test]
    fn step2a_an_ack_covering_recover_ends_frto() {
        let mut f = armed();
        let a = FrtoAck {
            covers_recover: true,
            ..advancing()
        };
        assert_eq!(f.on_ack(a), Verdict::Genuine);
        assert!(!f.running());
    }

    /// Step 2b: new data in the next round, once; without new data (or
    /// window), the conventional recovery.
    #[test]
    fn step2b_the_first_advancing_ack_sends_new_data() {
        let mut f = armed();
        assert_eq!(f.on_ack(advancing()), Verdict::SendNewData);
        assert!(f.take_new_data_round());
        assert!(!f.take_new_data_round(), "one round");
        let mut f = armed();
        let a = FrtoAck {
            new_data_can_go: false,
            ..advancing()
        };
        assert_eq!(f.on_ack(a), Verdict::Genuine);
    }

    /// Step 3a: a duplicate ACK or new SACK after the new data: genuine.
    #[test]
    fn step3a_a_duplicate_ack_after_the_new_data_shows_the_loss_real() {
        let mut f = armed();
        f.on_ack(advancing());
        let dup = FrtoAck {
            sacked_or_duplicate: true,
            ..FrtoAck::default()
        };
        assert_eq!(f.on_ack(dup), Verdict::Genuine);
    }

    /// Step 3b: an ACK of data sent once before the timeout: spurious.
    #[test]
    fn step3b_an_ack_of_original_data_shows_the_timeout_spurious() {
        let mut f = armed();
        f.on_ack(advancing());
        let a = FrtoAck {
            original_delivered: true,
            ..advancing()
        };
        assert_eq!(f.on_ack(a), Verdict::Spurious);
        assert!(!f.running());
    }
}
