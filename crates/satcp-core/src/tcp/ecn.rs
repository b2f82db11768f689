//! ECN in TCP (RFC 3168 Sec. 6.1): negotiation in the handshake, the
//! receiver's ECE echo of CE marks until the sender's CWR, and the
//! sender's rule of one reduction per window. The endpoint asks this state
//! which flags to set and when to react; how cwnd moves on an echo is the
//! congestion module's (`CongestionControl::on_ecn_echo`).

use crate::net::packet::{flags, Ecn, TcpHeader};

#[derive(Clone, Debug, Default)]
pub struct EcnState {
    /// This endpoint offers / accepts ECN (`tcp.ecn`).
    enabled: bool,
    /// Both ends agreed in the handshake.
    pub negotiated: bool,
    /// Receiver: a CE mark arrived and no CWR since: set ECE on our ACKs.
    echo_ece: bool,
    /// Sender: we reduced on an echo: set CWR on the next new data segment.
    send_cwr: bool,
    /// Sender: no further reduction on ECE until snd_una passes this (the
    /// window in flight at the last reduction). Strictly passes: the ACK of
    /// exactly this point left the receiver before our CWR segment (the
    /// first one above it) reached it, so its ECE is still the old echo.
    reduce_after: u64,
}

impl EcnState {
    pub fn new(enabled: bool) -> EcnState {
        EcnState {
            enabled,
            ..Default::default()
        }
    }

    /// Flags of our SYN (ECN-setup SYN: ECE and CWR) or SYN-ACK (ECE alone,
    /// if the peer's SYN offered ECN).
    pub fn syn_flags(&self, syn_ack: bool) -> u8 {
        match (self.enabled, syn_ack) {
            (false, _) => 0,
            (true, false) => flags::ECE | flags::CWR,
            (true, true) if self.negotiated => flags::ECE,
            (true, true) => 0,
        }
    }

    /// The peer's SYN (`syn_ack` false) or SYN-ACK.
    pub fn on_peer_syn(&mut self, h: &TcpHeader, syn_ack: bool) {
        let offered = if syn_ack {
            h.has(flags::ECE) && !h.has(flags::CWR)
        } else {
            h.has(flags::ECE) && h.has(flags::CWR)
        };
        self.negotiated = self.enabled && offered;
    }

    /// Receiver side of a non-SYN segment carried in a datagram with ECN
    /// field `ecn`; returns whether it was CE-marked on an ECN connection.
    /// CWR stops the echo first, so a CE mark on the CWR segment itself
    /// starts a new one.
    pub fn on_arrival(&mut self, h: &TcpHeader, ecn: Ecn) -> bool {
        if !self.negotiated {
            return false;
        }
        if h.has(flags::CWR) {
            self.echo_ece = false;
        }
        let ce = ecn == Ecn::Ce;
        if ce {
            self.echo_ece = true;
        }
        ce
    }

    /// Sender side: the ACK `h` echoes congestion, and this is the first
    /// echo for the window sent since the last reduction. Records the
    /// reduction (up to `snd_max`) when it returns true.
    pub fn take_echo(&mut self, h: &TcpHeader, snd_una: u64, snd_max: u64) -> bool {
        if !self.negotiated || !h.has(flags::ECE) || snd_una <= self.reduce_after {
            return false;
        }
        self.reduce_after = snd_max;
        self.send_cwr = true;
        true
    }

    /// Flags for a non-SYN segment we send: ECE on ACKs while echoing, CWR
    /// on the first new data segment after a reduction.
    pub fn segment_flags(&mut self, is_ack: bool, new_data: bool) -> u8 {
        let mut f = 0;
        if is_ack && self.echo_ece {
            f |= flags::ECE;
        }
        if new_data && std::mem::take(&mut self.send_cwr) {
            f |= flags::CWR;
        }
        f
    }

    /// Whether a data segment goes ECN-capable: new data of an ECN
    /// connection; retransmissions and pure ACKs do not (RFC 3168 Sec.
    /// 6.1.4, 6.1.5).
    pub fn ect(&self, new_data: bool) -> bool {
        self.negotiated && new_data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(f: u8) -> TcpHeader {
        TcpHeader {
            flags: f,
            ..Default::default()
        }
    }

    #[test]
    fn negotiation_needs_both_ends() {
        let mut a = EcnState::new(true);
        let mut b = EcnState::new(true);
        let syn = hdr(flags::SYN | a.syn_flags(false));
        b.on_peer_syn(&syn, false);
        assert!(b.negotiated);
        let syn_ack = hdr(flags::SYN | flags::ACK | b.syn_flags(true));
        a.on_peer_syn(&syn_ack, true);
        assert!(a.negotiated);
        // A peer without ECN answers without ECE: neither side uses it.
        let mut c = EcnState::new(false);
        c.on_peer_syn(&syn, false);
        assert!(!c.negotiated);
        let mut a = EcnState::new(true);
        a.on_peer_syn(&hdr(flags::SYN | flags::ACK | c.syn_flags(true)), true);
        assert!(!a.negotiated);
    }

    #[test]
    fn echo_lasts_until_cwr() {
        let mut r = EcnState::new(true);
        r.negotiated = true;
        assert!(!r.on_arrival(&hdr(0), Ecn::Ect));
        assert_eq!(r.segment_flags(true, false), 0);
        assert!(r.on_arrival(&hdr(0), Ecn::Ce));
        assert_eq!(r.segment_flags(true, false), flags::ECE);
        r.on_arrival(&hdr(0), Ecn::Ect);
        assert_eq!(r.segment_flags(true, false), flags::ECE);
        r.on_arrival(&hdr(flags::CWR), Ecn::Ect);
        assert_eq!(r.segment_flags(true, false), 0);
        // CE on the CWR segment itself starts a new echo.
        r.on_arrival(&hdr(flags::CWR), Ecn::Ce);
        assert_eq!(r.segment_flags(true, false), flags::ECE);
    }

    #[test]
    fn one_reduction_per_window_then_cwr_once() {
        let mut s = EcnState::new(true);
        s.negotiated = true;
        let ece = hdr(flags::ACK | flags::ECE);
        assert!(s.take_echo(&ece, 1000, 5000));
        assert!(!s.take_echo(&ece, 3000, 6000));
        assert_eq!(s.segment_flags(false, true), flags::CWR);
        assert_eq!(s.segment_flags(false, true), 0);
        assert!(!s.take_echo(&ece, 5000, 9000));
        assert!(s.take_echo(&ece, 5001, 9000));
        assert!(!s.take_echo(&hdr(flags::ACK), 9000, 9000));
    }
}
