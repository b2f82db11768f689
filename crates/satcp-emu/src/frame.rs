//! What the link models need to know of a real Ethernet frame: its IPv4
//! addresses, the datagram's length (what a link serializes, as in the
//! simulator: IP and TCP headers and payload, no Ethernet framing), its
//! ECN field and, for TCP, the sequence number, payload length and flags
//! (`errors.data_only` and friends tell data from ACKs by the payload).

use satcp_core::net::packet::{flags, Ecn};

const ETHERNET_HEADER: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;

/// The fields of one IPv4 frame the relay reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    /// The IP datagram's total length, bytes.
    pub ip_len: u32,
    pub ecn: Ecn,
    /// TCP only: the sequence number, payload bytes and flags (satcp's
    /// `flags` bits); for other protocols, the payload (after the UDP header
    /// for UDP) and zeros.
    pub tcp_seq: u32,
    pub tcp_payload: u32,
    pub tcp_flags: u8,
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}

/// The IPv4 fields of an Ethernet frame; None for anything else (ARP,
/// IPv6) or a frame too short for the headers it claims.
pub fn parse(frame: &[u8]) -> Option<FrameInfo> {
    if frame.len() < ETHERNET_HEADER + 20 || u16_at(frame, 12) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &frame[ETHERNET_HEADER..];
    let ihl = ((ip[0] & 0x0f) as usize) * 4;
    if ip[0] >> 4 != 4 || ihl < 20 || ip.len() < ihl {
        return None;
    }
    let ip_len = u16_at(ip, 2) as usize;
    if ip_len < ihl || ip_len > ip.len() {
        return None;
    }
    let ecn = match ip[1] & 0x03 {
        0 => Ecn::NotEct,
        3 => Ecn::Ce,
        _ => Ecn::Ect,
    };
    let mut info = FrameInfo {
        src_ip: ip[12..16].try_into().expect("4 bytes"),
        dst_ip: ip[16..20].try_into().expect("4 bytes"),
        ip_len: ip_len as u32,
        ecn,
        tcp_seq: 0,
        tcp_payload: 0,
        tcp_flags: 0,
    };
    let first_fragment = u16_at(ip, 6) & 0x1fff == 0;
    let tcp = &ip[ihl..ip_len];
    if ip[9] == PROTO_TCP && first_fragment && tcp.len() >= 20 {
        let data_offset = ((tcp[12] >> 4) as usize) * 4;
        info.tcp_seq = u32::from_be_bytes(tcp[4..8].try_into().expect("4 bytes"));
        info.tcp_payload = tcp.len().saturating_sub(data_offset) as u32;
        info.tcp_flags = tcp_flags(tcp[13]);
    } else {
        // Anything else is data by its payload (a QUIC datagram is, an
        // empty one is not), so that `errors.data_only` and friends treat
        // it as they treat TCP.
        let header = if ip[9] == PROTO_UDP && first_fragment {
            8
        } else {
            0
        };
        info.tcp_payload = tcp.len().saturating_sub(header) as u32;
    }
    Some(info)
}

/// TCP's flag byte as satcp's `flags` bits.
fn tcp_flags(b: u8) -> u8 {
    let mut f = 0;
    for (wire, ours) in [
        (0x01, flags::FIN),
        (0x02, flags::SYN),
        (0x10, flags::ACK),
        (0x40, flags::ECE),
        (0x80, flags::CWR),
    ] {
        if b & wire != 0 {
            f |= ours;
        }
    }
    f
}

/// Marks an ECN-capable IPv4 frame Congestion Experienced (a queue of the
/// scenario marked its packet), fixing the header checksum incrementally
/// (RFC 1624).
pub fn mark_ce(frame: &mut [u8]) {
    let ip = &mut frame[ETHERNET_HEADER..];
    let old = u16_at(ip, 0);
    ip[1] |= 0x03;
    let new = u16_at(ip, 0);
    let sum = !u16_at(ip, 10) as u32 + !old as u32 + new as u32;
    let sum = (sum & 0xffff) + (sum >> 16);
    let sum = (sum & 0xffff) + (sum >> 16);
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The header checksum of an IPv4 header.
    fn checksum(ip: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for i in (0..ip.len()).step_by(2) {
            sum += u16_at(ip, i) as u32;
        }
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// An Ethernet frame with an IPv4 TCP segment from `src` to `dst`,
    /// `payload` bytes long, with sequence number `seq`, ECN field `ecn`.
    pub(crate) fn tcp_frame(
        src: [u8; 4],
        dst: [u8; 4],
        seq: u32,
        payload: usize,
        ecn: u8,
    ) -> Vec<u8> {
        let ip_len = 20 + 32 + payload;
        let mut f = vec![0u8; ETHERNET_HEADER + ip_len];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        let ip = &mut f[ETHERNET_HEADER..];
        ip[0] = 0x45;
        ip[1] = ecn;
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = PROTO_TCP;
        ip[12..16].copy_from_slice(&src);
        ip[16..20].copy_from_slice(&dst);
        let c = checksum(&ip[..20]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        let tcp = &mut ip[20..];
        tcp[4..8].copy_from_slice(&seq.to_be_bytes());
        tcp[12] = 8 << 4; // 32 bytes: timestamps
        tcp[13] = 0x10; // ACK
        f
    }

    #[test]
    fn a_tcp_segment_is_read() {
        let f = tcp_frame([198, 18, 0, 1], [198, 18, 0, 2], 77, 1448, 2);
        let i = parse(&f).unwrap();
        assert_eq!(i.src_ip, [198, 18, 0, 1]);
        assert_eq!(i.dst_ip, [198, 18, 0, 2]);
        assert_eq!(i.ip_len, 1500);
        assert_eq!((i.tcp_seq, i.tcp_payload), (77, 1448));
        assert_eq!(i.tcp_flags, flags::ACK);
        assert_eq!(i.ecn, Ecn::Ect);
    }

    #[test]
    fn a_udp_datagram_is_data_by_its_payload() {
        let mut f = tcp_frame([198, 18, 0, 1], [198, 18, 0, 2], 0, 1000, 0);
        f[ETHERNET_HEADER + 9] = PROTO_UDP;
        let i = parse(&f).unwrap();
        // 32 bytes of would-be TCP header + 1000: all UDP, 8 of it header.
        assert_eq!((i.tcp_payload, i.tcp_seq, i.tcp_flags), (1032 - 8, 0, 0));
    }

    #[test]
    fn other_frames_and_short_ones_are_not_read() {
        let mut arp = tcp_frame([1, 1, 1, 1], [2, 2, 2, 2], 0, 0, 0);
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(parse(&arp), None);
        let f = tcp_frame([1, 1, 1, 1], [2, 2, 2, 2], 0, 100, 0);
        assert_eq!(parse(&f[..60]), None, "a datagram longer than the frame");
        assert_eq!(parse(&f[..20]), None);
    }

    #[test]
    fn marking_ce_keeps_the_checksum_right() {
        let mut f = tcp_frame([198, 18, 0, 1], [198, 18, 0, 2], 1, 10, 2);
        mark_ce(&mut f);
        assert_eq!(parse(&f).unwrap().ecn, Ecn::Ce);
        assert_eq!(checksum(&f[ETHERNET_HEADER..ETHERNET_HEADER + 20]), 0);
    }
}
