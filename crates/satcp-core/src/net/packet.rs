//! Packets on the wire. A packet is an IP datagram carrying one TCP segment;
//! its `size` is what a link serializes: IP and TCP headers, TCP options and
//! payload (payload bytes are not stored, only counted).
//!
//! Sequence numbers are 64-bit and never wrap (see docs/model.md).

use crate::engine::SimTime;

pub type NodeId = u32;
pub type LinkId = u32;
/// A TCP endpoint (one side of a connection); stands in for address + port.
pub type EndpointId = u32;

/// IPv4 (20 bytes) plus TCP (20 bytes) without options.
pub const IP_TCP_HEADER_BYTES: u32 = 40;

/// Two service classes, as in TCP-Peach's priority routers. Ordinary traffic
/// is `High`; `Low` is served only when no `High` packet waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Priority {
    #[default]
    High,
    Low,
}

/// ECN field of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

pub mod flags {
    pub const SYN: u8 = 0x01;
    pub const ACK: u8 = 0x02;
    pub const FIN: u8 = 0x04;
    pub const ECE: u8 = 0x08;
    pub const CWR: u8 = 0x10;
}

/// Bits of `TcpHeader::marks`, the otherwise unused TCP header bits that
/// protocols use to label segments.
pub mod marks {
    /// A TCP-Peach dummy segment, or the receiver's ACK of one (TCP-Peach
    /// Sec. III-A: "one or more of the six unused bits of the TCP header").
    pub const DUMMY: u8 = 0x01;
}

/// A half-open range of sequence space [start, end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
}

impl SeqRange {
    pub fn new(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// At most four SACK blocks fit in the 40 bytes of TCP option space
/// (RFC 2018 Sec. 3, without timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [SeqRange; MAX_SACK_BLOCKS],
    n: u8,
}

impl SackBlocks {
    pub fn push(&mut self, r: SeqRange) -> bool {
        if (self.n as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.n as usize] = r;
            self.n += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[SeqRange] {
        &self.blocks[..self.n as usize]
    }
    pub fn len(&self) -> usize {
        self.n as usize
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// Option bytes on the wire: kind + length + 8 per block, padded to a
    /// multiple of 4 with two NOPs.
    pub fn option_bytes(&self) -> u32 {
        if self.n == 0 {
            0
        } else {
            4 + 8 * self.n as u32
        }
    }
}

/// The TCP header fields satcp models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first octet (SYN and FIN occupy one each).
    pub seq: u64,
    /// Payload bytes carried.
    pub len: u32,
    pub ack: u64,
    pub flags: u8,
    /// Advertised receive window in bytes (no window scaling).
    pub window: u32,
    pub sack: SackBlocks,
    /// SYN options: MSS and SACK-permitted.
    pub syn_mss: u32,
    pub sack_permitted: bool,
    /// Protocol marks carried in otherwise unused header bits (e.g. a
    /// TCP-Peach dummy segment); the core only carries them.
    pub marks: u8,
    /// The sending TCP asks for an ECN-capable datagram (ECT(0), RFC 3168);
    /// the simulation sets `Packet::ecn` from it. Not a header bit: it
    /// stands for the socket's request to IP.
    pub ect: bool,
}

impl TcpHeader {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// Sequence space the segment occupies (payload plus SYN and FIN).
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }
    pub fn seq_end(&self) -> u64 {
        self.seq + self.seq_len()
    }
    /// Bytes of TCP options.
    pub fn option_bytes(&self) -> u32 {
        let mut b = self.sack.option_bytes();
        if self.has(flags::SYN) {
            b += 4; // MSS option
            if self.sack_permitted {
                b += 4; // SACK-permitted (2) padded with two NOPs
            }
        }
        b
    }
    /// Size of the IP datagram carrying this segment.
    pub fn wire_bytes(&self) -> u32 {
        IP_TCP_HEADER_BYTES + self.option_bytes() + self.len
    }
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub src: NodeId,
    pub dst: NodeId,
    /// Endpoint the packet is addressed to at `dst`.
    pub endpoint: EndpointId,
    pub size: u32,
    pub priority: Priority,
    pub ecn: Ecn,
    pub tcp: TcpHeader,
    pub created: SimTime,
}

impl Packet {
    pub fn is_data(&self) -> bool {
        self.tcp.len > 0
    }
}

pub type PacketId = u32;

/// Packets in flight live in one arena; events and queues carry 4-byte ids.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }
    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_segment_is_1500_bytes() {
        let h = TcpHeader {
            len: 1460,
            flags: flags::ACK,
            ..Default::default()
        };
        assert_eq!(h.wire_bytes(), 1500);
    }

    #[test]
    fn sack_option_sizes() {
        let mut h = TcpHeader::default();
        h.sack.push(SeqRange::new(10, 20));
        assert_eq!(h.wire_bytes(), 40 + 12);
        for _ in 0..5 {
            h.sack.push(SeqRange::new(30, 40));
        }
        assert_eq!(h.sack.len(), 4);
        assert_eq!(h.wire_bytes(), 40 + 36);
    }

    #[test]
    fn syn_occupies_sequence_space() {
        let h = TcpHeader {
            seq: 0,
            flags: flags::SYN,
            sack_permitted: true,
            ..Default::default()
        };
        assert_eq!(h.seq_end(), 1);
        assert_eq!(h.wire_bytes(), 48);
    }
}
