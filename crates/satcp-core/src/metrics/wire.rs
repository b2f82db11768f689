//! A simulated packet as the bytes a capture would show: an IPv4 header
//! and a TCP header with its options, laid out as RFC 791 and RFC 9293
//! say, with correct checksums. The payload is all zeros and is left out
//! of the returned bytes (a capture truncated after the headers, its
//! original length the packet's size); zeros do not change the TCP
//! checksum, which is computed over the full segment.
//!
//! Addresses and ports: node n is 10.x.y.z with x.y.z = n + 1; endpoint
//! 2c (the client of connection c) uses port 49152 + c mod 16384, endpoint
//! 2c + 1 (its server) port 40000. Sequence numbers are the low 32 bits of
//! satcp's (each side starts at 0). Header-extension flags 0x01-0x04 go in
//! the three reserved bits of the TCP header; extension ranges in the
//! experimental option (kind 253, ExID 0x5341 "SA") of
//! docs/header-extensions.md.

use crate::net::packet::{flags, Ecn, Packet, SeqRange, TcpHeader, IP_TCP_HEADER_BYTES};

/// Experiment identifier of satcp's header-extension option (RFC 6994).
pub const EXPERIMENT_ID: u16 = 0x5341;
pub const SERVER_PORT: u16 = 40_000;

pub fn ipv4_of(node: u32) -> [u8; 4] {
    let n = node + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

pub fn port_of(endpoint: u32) -> u16 {
    if endpoint.is_multiple_of(2) {
        49_152 + ((endpoint / 2) % 16_384) as u16
    } else {
        SERVER_PORT
    }
}

/// The headers of `pkt` (IPv4 + TCP with options); `ip_id` is the IP
/// identification field.
pub fn headers(pkt: &Packet, ip_id: u16) -> Vec<u8> {
    headers_between(pkt, (pkt.endpoint ^ 1, pkt.endpoint), ip_id)
}

/// The same, with the ports of the endpoints the packet goes between as
/// a capture shows them (`PacketEvent::ends`: a proxy's leg appears as the
/// end host it speaks for).
pub fn headers_between(pkt: &Packet, ends: (u32, u32), ip_id: u16) -> Vec<u8> {
    let h = &pkt.tcp;
    let opts = tcp_options(h);
    debug_assert_eq!(opts.len() as u32, h.option_bytes());
    let tcp_len = 20 + opts.len();
    let mut b = Vec::with_capacity(20 + tcp_len);
    // IPv4 (RFC 791): no options, DF, TTL 64, protocol 6.
    let tos = match pkt.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect => 0b10,
        Ecn::Ce => 0b11,
    };
    let total = pkt.size as u16;
    b.extend_from_slice(&[0x45, tos]);
    b.extend_from_slice(&total.to_be_bytes());
    b.extend_from_slice(&ip_id.to_be_bytes());
    b.extend_from_slice(&0x4000u16.to_be_bytes());
    b.extend_from_slice(&[64, 6, 0, 0]);
    let (src, dst) = (ipv4_of(pkt.src), ipv4_of(pkt.dst));
    b.extend_from_slice(&src);
    b.extend_from_slice(&dst);
    let ip_sum = checksum(&b[..20], 0);
    b[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    // TCP (RFC 9293 Sec. 3.1).
    b.extend_from_slice(&port_of(ends.0).to_be_bytes());
    b.extend_from_slice(&port_of(ends.1).to_be_bytes());
    b.extend_from_slice(&(h.seq as u32).to_be_bytes());
    let ack = if h.has(flags::ACK) { h.ack as u32 } else { 0 };
    b.extend_from_slice(&ack.to_be_bytes());
    let offset = (tcp_len / 4) as u8;
    b.push(offset << 4 | ((h.ext.flags & 0x07) << 1));
    b.push(tcp_flags(h));
    b.extend_from_slice(&(h.window.min(65_535) as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    b.extend_from_slice(&opts);
    // Pseudo-header (RFC 9293 Sec. 3.1): addresses, protocol, TCP length
    // (header and payload: the zero payload adds nothing else).
    let seg_len = tcp_len as u32 + h.len;
    let mut pseudo = Vec::with_capacity(12);
    pseudo.extend_from_slice(&src);
    pseudo.extend_from_slice(&dst);
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&(seg_len as u16).to_be_bytes());
    let partial = sum16(&pseudo, 0);
    let tcp_sum = checksum(&b[20..], partial);
    b[36..38].copy_from_slice(&tcp_sum.to_be_bytes());
    debug_assert_eq!(b.len() as u32 + h.len, pkt.size);
    debug_assert_eq!(IP_TCP_HEADER_BYTES, 40);
    b
}

fn tcp_flags(h: &TcpHeader) -> u8 {
    let mut f = 0;
    for (ours, wire) in [
        (flags::FIN, 0x01),
        (flags::SYN, 0x02),
        (flags::ACK, 0x10),
        (flags::ECE, 0x40),
        (flags::CWR, 0x80),
    ] {
        if h.has(ours) {
            f |= wire;
        }
    }
    f
}

fn push_ranges(o: &mut Vec<u8>, ranges: &[SeqRange]) {
    for r in ranges {
        o.extend_from_slice(&(r.start as u32).to_be_bytes());
        o.extend_from_slice(&(r.end as u32).to_be_bytes());
    }
}

/// The options in the order satcp counts them (`TcpHeader::option_bytes`),
/// each padded with NOPs to 32 bits as Linux lays them out.
fn tcp_options(h: &TcpHeader) -> Vec<u8> {
    let mut o = Vec::with_capacity(40);
    if h.has(flags::SYN) {
        o.extend_from_slice(&[2, 4]);
        o.extend_from_slice(&(h.syn_mss.min(65_535) as u16).to_be_bytes());
        if h.sack_permitted {
            o.extend_from_slice(&[1, 1, 4, 2]);
        }
        if let Some(shift) = h.wscale {
            o.extend_from_slice(&[1, 3, 3, shift]);
        }
    }
    if let Some(ts) = h.ts {
        o.extend_from_slice(&[1, 1, 8, 10]);
        o.extend_from_slice(&ts.val.to_be_bytes());
        o.extend_from_slice(&ts.ecr.to_be_bytes());
    }
    let sack = h.sack();
    if !sack.is_empty() {
        o.extend_from_slice(&[1, 1, 5, (2 + 8 * sack.len()) as u8]);
        push_ranges(&mut o, &sack);
    }
    let ext = h.ext_ranges();
    if !ext.is_empty() {
        o.extend_from_slice(&[253, (4 + 8 * ext.len()) as u8]);
        o.extend_from_slice(&EXPERIMENT_ID.to_be_bytes());
        push_ranges(&mut o, &ext);
    }
    o
}

fn sum16(bytes: &[u8], mut acc: u32) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

/// The Internet checksum (RFC 1071) of `bytes`, starting from `acc`.
pub fn checksum(bytes: &[u8], acc: u32) -> u16 {
    let mut s = sum16(bytes, acc);
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::net::packet::{Priority, Timestamps};

    fn packet(h: TcpHeader) -> Packet {
        Packet {
            src: 0,
            dst: 2,
            endpoint: 1,
            size: h.wire_bytes(),
            priority: Priority::High,
            ecn: Ecn::Ect,
            tcp: h,
            created: SimTime::ZERO,
        }
    }

    /// Verifying a checksum over data that includes it gives zero.
    fn verifies(bytes: &[u8], acc: u32) -> bool {
        checksum(bytes, acc) == 0
    }

    #[test]
    fn headers_have_valid_checksums_and_the_packet_size() {
        let mut h = TcpHeader {
            seq: 5_000_000_001,
            len: 1448,
            ack: 1,
            flags: flags::ACK,
            window: 1024,
            ts: Some(Timestamps { val: 7, ecr: 3 }),
            ..Default::default()
        };
        h.set_sack(&[SeqRange::new(10, 20)]);
        let p = packet(h);
        let b = headers(&p, 9);
        assert_eq!(b.len() as u32 + 1448, p.size);
        assert!(verifies(&b[..20], 0), "IP header checksum");
        let tcp_len = (b.len() - 20) as u32 + 1448;
        let mut pseudo = vec![];
        pseudo.extend_from_slice(&b[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&(tcp_len as u16).to_be_bytes());
        assert!(verifies(&b[20..], sum16(&pseudo, 0)), "TCP checksum");
        assert_eq!(&b[24..28], &(5_000_000_001u64 as u32).to_be_bytes());
        assert_eq!(b[1], 0b10, "ECT(0)");
        assert_eq!(b[33], 0x10, "ACK");
    }

    #[test]
    fn syn_options_are_laid_out_as_counted() {
        let h = TcpHeader {
            flags: flags::SYN,
            syn_mss: 1460,
            sack_permitted: true,
            wscale: Some(7),
            ts: Some(Timestamps { val: 1, ecr: 0 }),
            ..Default::default()
        };
        let b = headers(&packet(h), 0);
        assert_eq!(b.len(), 40 + 24);
        assert_eq!(&b[40..44], &[2, 4, 0x05, 0xb4]);
        assert_eq!(&b[44..48], &[1, 1, 4, 2]);
        assert_eq!(&b[48..52], &[1, 3, 3, 7]);
        assert_eq!(b[32] >> 4, 11, "data offset: 44 bytes");
    }
}
