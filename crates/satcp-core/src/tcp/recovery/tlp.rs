//! Tail loss probes (RFC 8985 Sec. 7, `tcp.rack_tlp`), as Linux sends
//! them (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`,
//! `tcp_process_tlp_ack`): when the last segments of a flight are lost,
//! no ACK comes back to start fast recovery, and the sender would wait
//! for the retransmission timer. Instead, a probe timeout (PTO) of about
//! two round trips after the last transmission sends one segment (new
//! data if the peer's window lets it, else the last segment again),
//! whatever cwnd says; its ACK (SACK) lets RACK find the losses and start
//! fast recovery.
//!
//! - Sec. 7.2: the PTO runs while the connection is open (not in recovery,
//!   nothing SACKed or duplicate-ACKed: Linux's TCP_CA_Open), has data
//!   outstanding and no probe unanswered; PTO = 2 SRTT plus WCDelAckT
//!   (200 ms) when one segment is outstanding (its ACK may be delayed),
//!   plus 2 ms otherwise (Linux's TCP_TIMEOUT_MIN), 1 s without an RTT
//!   sample, never beyond the retransmission timer.
//! - Sec. 7.3: on expiry one probe; TLP.end_seq = snd_max; the
//!   retransmission timer is re-armed (the probe is not timed by a PTO).
//! - Sec. 7.4: the ACK that covers TLP.end_seq ends the episode: a probe
//!   of new data, a DSACK of the probe, or a plain duplicate ACK show no
//!   loss; an ACK beyond TLP.end_seq after a resent probe shows the probe
//!   repaired a loss, and cwnd is reduced as for one loss (Linux:
//!   ssthresh from the congestion control, cwnd = ssthresh).

use crate::engine::{Duration, SimTime};

/// WCDelAckT, the worst-case delayed-ACK time RFC 8985 Sec. 7.2 adds
/// when a single segment is outstanding (Linux: TCP_RTO_MIN).
pub const WORST_CASE_DELAYED_ACK: Duration = Duration(200_000_000);
/// Added to 2 SRTT otherwise (Linux: TCP_TIMEOUT_MIN, 2 jiffies).
const PTO_SLACK: Duration = Duration(2_000_000);
/// The PTO before an RTT sample.
const PTO_WITHOUT_SRTT: Duration = Duration(1_000_000_000);

/// What the ACK answering a probe showed (Sec. 7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeAnswer {
    /// No probe waiting, or this ACK does not settle it.
    Pending,
    /// The episode ended without a loss.
    NoLoss,
    /// The resent probe repaired a loss: reduce cwnd.
    Repaired,
}

#[derive(Clone, Debug, Default)]
pub struct Tlp {
    /// The probe timer.
    deadline: Option<SimTime>,
    /// TLP.end_seq: snd_max when the unanswered probe went.
    end_seq: Option<u64>,
    /// TLP.is_retrans: the probe resent the last segment.
    is_retrans: bool,
}

impl Tlp {
    /// Sec. 7.2: (re)arms the PTO at `now`, or clears it when the
    /// connection is not eligible. `flight_segments`: segments
    /// outstanding; `rto_deadline`: the retransmission timer.
    pub fn schedule(
        &mut self,
        eligible: bool,
        flight_segments: usize,
        srtt: Option<Duration>,
        rto_deadline: Option<SimTime>,
        now: SimTime,
    ) {
        if !eligible || flight_segments == 0 || self.end_seq.is_some() {
            self.deadline = None;
            return;
        }
        let pto = match srtt {
            Some(s) if flight_segments == 1 => s + s + WORST_CASE_DELAYED_ACK,
            Some(s) => s + s + PTO_SLACK,
            None => PTO_WITHOUT_SRTT,
        };
        let at = now + pto;
        self.deadline = Some(rto_deadline.map_or(at, |r| at.min(r)));
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The PTO fired and a probe went (Sec. 7.3): `end_seq` is snd_max
    /// after it, `resent` whether it was the last segment again.
    pub fn on_probe_sent(&mut self, end_seq: u64, resent: bool) {
        self.deadline = None;
        self.end_seq = Some(end_seq);
        self.is_retrans = resent;
    }

    /// The PTO fired with nothing to probe.
    pub fn clear_timer(&mut self) {
        self.deadline = None;
    }

    /// A loss recovery or timeout started: the episode is over (Linux's
    /// `tcp_init_cwnd_reduction` resets tlp_high_seq).
    pub fn reset(&mut self) {
        self.deadline = None;
        self.end_seq = None;
    }

    /// Sec. 7.4 (Linux's `tcp_process_tlp_ack`): an ACK of `ack`;
    /// `dsack_of_probe`: it carries a DSACK for the probe; `advanced`:
    /// snd_una moved; `sacked`: it SACKed new data; `duplicate`.
    pub fn on_ack(
        &mut self,
        ack: u64,
        dsack_of_probe: bool,
        advanced: bool,
        sacked: bool,
        duplicate: bool,
    ) -> ProbeAnswer {
        let Some(end) = self.end_seq else {
            return ProbeAnswer::Pending;
        };
        if ack < end {
            return ProbeAnswer::Pending;
        }
        let answer = if !self.is_retrans || dsack_of_probe {
            // New data probed, or the original and the probe both arrived.
            ProbeAnswer::NoLoss
        } else if ack > end {
            ProbeAnswer::Repaired
        } else if duplicate && !advanced && !sacked {
            ProbeAnswer::NoLoss
        } else {
            return ProbeAnswer::Pending;
        };
        self.end_seq = None;
        answer
    }

    /// The probe of the last segment covers [start, end): whether a DSACK
    /// of `d` reports it.
    pub fn probe_end(&self) -> Option<u64> {
        self.end_seq.filter(|_| self.is_retrans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Sec. 7.2: PTO = 2 SRTT + 2 ms with several segments out, + WCDelAckT
    /// with one, 1 s without SRTT, capped by the RTO; none when not
    /// eligible, nothing out, or a probe unanswered.
    #[test]
    fn sec7_2_probe_timeout() {
        let mut t = Tlp::default();
        let now = SimTime(0);
        t.schedule(true, 5, Some(ms(100)), None, now);
        assert_eq!(t.deadline(), Some(now + ms(202)));
        t.schedule(true, 1, Some(ms(100)), None, now);
        assert_eq!(t.deadline(), Some(now + ms(400)));
        t.schedule(true, 5, None, None, now);
        assert_eq!(t.deadline(), Some(now + ms(1000)));
        t.schedule(true, 5, Some(ms(100)), Some(now + ms(150)), now);
        assert_eq!(t.deadline(), Some(now + ms(150)), "capped by the RTO");
        t.schedule(false, 5, Some(ms(100)), None, now);
        assert_eq!(t.deadline(), None);
        t.schedule(true, 0, Some(ms(100)), None, now);
        assert_eq!(t.deadline(), None);
        t.on_probe_sent(1000, true);
        t.schedule(true, 5, Some(ms(100)), None, now);
        assert_eq!(t.deadline(), None, "one probe at a time");
    }

    /// Sec. 7.4: the probe of new data answered: no loss.
    #[test]
    fn sec7_4_an_answered_probe_of_new_data_ends_the_episode() {
        let mut t = Tlp::default();
        t.on_probe_sent(1000, false);
        assert_eq!(
            t.on_ack(900, false, true, false, false),
            ProbeAnswer::Pending
        );
        assert_eq!(
            t.on_ack(1000, false, true, false, false),
            ProbeAnswer::NoLoss
        );
        assert_eq!(t.probe_end(), None);
    }

    /// Sec. 7.4: a resent probe reported by DSACK, or answered by a plain
    /// duplicate ACK: the original arrived, no loss.
    #[test]
    fn sec7_4_a_dsack_or_duplicate_ack_of_a_resent_probe_shows_no_loss() {
        let mut t = Tlp::default();
        t.on_probe_sent(1000, true);
        assert_eq!(
            t.on_ack(1000, true, false, false, false),
            ProbeAnswer::NoLoss
        );
        let mut t = Tlp::default();
        t.on_probe_sent(1000, true);
        assert_eq!(
            t.on_ack(1000, false, false, false, true),
            ProbeAnswer::NoLoss
        );
    }

    /// Sec. 7.4: an ACK beyond the probe of the last segment: the probe
    /// repaired a loss (Linux waits for it: the ACK of the probe alone may
    /// be the original's).
    #[test]
    fn sec7_4_an_ack_beyond_a_resent_probe_shows_a_repaired_loss() {
        let mut t = Tlp::default();
        t.on_probe_sent(1000, true);
        assert_eq!(
            t.on_ack(1000, false, true, false, false),
            ProbeAnswer::Pending
        );
        assert_eq!(
            t.on_ack(1500, false, true, false, false),
            ProbeAnswer::Repaired
        );
    }
}
