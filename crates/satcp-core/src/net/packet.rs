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
/// (RFC 2018 Sec. 3, without timestamps; three with them).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A short list of sequence ranges, as carried by a TCP option: SACK
/// blocks, or the drop records of a header extension.
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
    /// Keeps at most `n` blocks (the first ones).
    pub fn truncate(&mut self, n: usize) {
        self.n = self.n.min(n as u8);
    }
}

/// Protocol fields beyond standard TCP that a variant's endpoints or a
/// router function write and read (docs/header-extensions.md). The core
/// carries them and counts their bytes; which bit or range means what is
/// defined by the protocols that use them (`protocols::header_bits`).
///
/// - `flags`: eight bits in otherwise unused TCP header bits (the reserved
///   bits of the fixed header): no bytes on the wire.
/// - sequence ranges (e.g. drop records written by a gateway) are kept in
///   the header (`TcpHeader::ext_ranges`), since they share the option
///   space with SACK blocks: one experimental TCP option (RFC 6994: kind
///   253, length, a 2-byte experiment identifier, 8 bytes per range),
///   4 + 8 n bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeaderExt {
    pub flags: u8,
}

impl HeaderExt {
    pub fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }
}

/// TCP option space (RFC 9293 Sec. 3.1: data offset of at most 15 words).
pub const OPTION_SPACE_BYTES: u32 = 40;

/// Bytes of the SACK option with `n` blocks: kind + length + 8 per
/// block, padded to a multiple of 4 with two NOPs.
fn sack_option_bytes(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        4 + 8 * n as u32
    }
}

/// Bytes of the experimental option with `n` ranges.
fn ext_option_bytes(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        4 + 8 * n as u32
    }
}

/// The sequence ranges a header carries in its options: SACK blocks
/// first, then header-extension ranges. Both share 40 bytes, so four
/// ranges in all is the most that ever fits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionRanges {
    r: [SeqRange; MAX_SACK_BLOCKS],
    n_sack: u8,
    n_ext: u8,
}

/// The TCP timestamps option (RFC 7323 Sec. 3): TSval and TSecr, in ticks
/// of the sender's timestamp clock (1 ms in satcp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    pub val: u32,
    pub ecr: u32,
}

/// Bytes the timestamps option takes: 10, padded with two NOPs.
pub const TIMESTAMPS_OPTION_BYTES: u32 = 12;

/// The TCP header fields satcp models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first octet (SYN and FIN occupy one each).
    pub seq: u64,
    /// Payload bytes carried.
    pub len: u32,
    pub ack: u64,
    pub flags: u8,
    /// The 16-bit window field: the advertised receive window in bytes,
    /// shifted right by the window scale the sender announced (RFC 7323;
    /// never scaled on a SYN).
    pub window: u32,
    /// SACK blocks and header-extension ranges, read and written through
    /// `sack()`, `set_sack()`, `ext_ranges()` and `push_ext_range()`.
    pub ranges: OptionRanges,
    /// SYN options: MSS, SACK-permitted and window scale (RFC 7323 Sec. 2).
    pub syn_mss: u32,
    pub sack_permitted: bool,
    pub wscale: Option<u8>,
    /// RFC 7323 timestamps, when the connection uses them.
    pub ts: Option<Timestamps>,
    /// Protocol fields beyond standard TCP (`HeaderExt`).
    pub ext: HeaderExt,
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
    /// The SACK blocks (RFC 2018), the first one a D-SACK (RFC 2883) when
    /// the receiver reports a duplicate.
    pub fn sack(&self) -> &[SeqRange] {
        &self.ranges.r[..self.ranges.n_sack as usize]
    }

    /// Sets the SACK blocks, keeping the first ones that fit beside the
    /// extension ranges already written (the caller leaves room for
    /// timestamps, which are stamped later).
    pub fn set_sack(&mut self, blocks: &[SeqRange]) {
        let ext = self.ext_ranges_copy();
        let room = MAX_SACK_BLOCKS - ext.len();
        let n = blocks.len().min(room);
        self.ranges.r[..n].copy_from_slice(&blocks[..n]);
        self.ranges.n_sack = n as u8;
        self.ranges.r[n..n + ext.len()].copy_from_slice(ext.as_slice());
    }

    /// The header extension's sequence ranges.
    pub fn ext_ranges(&self) -> &[SeqRange] {
        let s = self.ranges.n_sack as usize;
        &self.ranges.r[s..s + self.ranges.n_ext as usize]
    }

    fn ext_ranges_copy(&self) -> SackBlocks {
        let mut b = SackBlocks::default();
        for r in self.ext_ranges() {
            b.push(*r);
        }
        b
    }

    /// Adds a header-extension range if the option space still has room
    /// beside the SACK blocks and timestamps; false if it has none.
    pub fn push_ext_range(&mut self, r: SeqRange) -> bool {
        let (s, e) = (self.ranges.n_sack as usize, self.ranges.n_ext as usize);
        let ts = if self.ts.is_some() {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        };
        let fits = s + e < MAX_SACK_BLOCKS
            && sack_option_bytes(s) + ext_option_bytes(e + 1) + ts <= OPTION_SPACE_BYTES;
        if fits {
            self.ranges.r[s + e] = r;
            self.ranges.n_ext += 1;
        }
        fits
    }

    pub fn clear_ext_ranges(&mut self) {
        self.ranges.n_ext = 0;
    }

    /// Bytes of TCP options.
    pub fn option_bytes(&self) -> u32 {
        let mut b = sack_option_bytes(self.ranges.n_sack as usize)
            + ext_option_bytes(self.ranges.n_ext as usize);
        if self.ts.is_some() {
            b += TIMESTAMPS_OPTION_BYTES;
        }
        if self.has(flags::SYN) {
            b += 4; // MSS option
            if self.sack_permitted {
                b += 4; // SACK-permitted (2) padded with two NOPs
            }
            if self.wscale.is_some() {
                b += 4; // window scale (3) padded with one NOP
            }
        }
        b
    }
    /// Size of the IP datagram carrying this segment.
    pub fn wire_bytes(&self) -> u32 {
        IP_TCP_HEADER_BYTES + self.option_bytes() + self.len
    }
}

#[derive(Clone, Debug, Default)]
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

/// A flow as a router sees it: the addresses of a packet (source and
/// destination node, and the endpoint, standing for the ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: NodeId,
    pub dst: NodeId,
    pub endpoint: EndpointId,
}

impl Packet {
    pub fn is_data(&self) -> bool {
        self.tcp.len > 0
    }
    pub fn flow(&self) -> FlowKey {
        FlowKey {
            src: self.src,
            dst: self.dst,
            endpoint: self.endpoint,
        }
    }
    /// Recomputes `size` after the header changed (a router wrote a header
    /// extension).
    pub fn resize(&mut self) {
        self.size = self.tcp.wire_bytes();
    }
}

/// Makes room for one more element, growing a full vector to four times
/// its length rather than two. When the allocator cannot grow a buffer in
/// place (in a process's later runs glibc serves it from its heap) the
/// growth copies it into fresh pages, each a page fault: doubling copies
/// as much as the final size in all, quadrupling a third of it. Room that
/// is reserved and never written costs address space only.
fn grow_fourfold<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(3 * v.len().max(4));
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
            grow_fourfold(&mut self.slots);
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }
    /// A slot for a new packet, for the caller to fill where it lies; it
    /// must set every field, since the slot may hold a released packet.
    /// (A packet built in a local and moved in with `alloc` is stored
    /// field by field and then reloaded as wide words while those stores
    /// are still in flight: a store-forwarding stall on every packet.)
    pub fn alloc_slot(&mut self) -> (PacketId, &mut Packet) {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                grow_fourfold(&mut self.slots);
                self.slots.push(Packet::default());
                (self.slots.len() - 1) as PacketId
            }
        };
        (id, &mut self.slots[id as usize])
    }
    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }
    /// Starts loading packet `id` into the caches (`engine::prefetch`).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::engine::prefetch::prefetch(p);
        }
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
    fn pool_grows_fourfold_and_reuses_released_slots() {
        let mut pool = PacketPool::default();
        let ids: Vec<PacketId> = (0..13).map(|_| pool.alloc(Packet::default())).collect();
        assert_eq!(ids, (0..13).collect::<Vec<_>>());
        // 12 slots first, then four times 12.
        assert_eq!(pool.slots.capacity(), 48);
        pool.release(5);
        assert_eq!(pool.alloc_slot().0, 5);
        assert_eq!(pool.live(), 13);
        assert_eq!(pool.slots.len(), 13);
    }

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
        h.set_sack(&[SeqRange::new(10, 20)]);
        assert_eq!(h.wire_bytes(), 40 + 12);
        h.set_sack(&[SeqRange::new(30, 40); 6]);
        assert_eq!(h.sack().len(), 4);
        assert_eq!(h.wire_bytes(), 40 + 36);
        // No room left for an extension range.
        assert!(!h.push_ext_range(SeqRange::new(1, 2)));
    }

    #[test]
    fn options_count_in_the_size() {
        let mut h = TcpHeader {
            len: 1000,
            ts: Some(Timestamps::default()),
            ..Default::default()
        };
        assert_eq!(h.wire_bytes(), 40 + 12 + 1000);
        h.ext.flags = 0x80;
        assert_eq!(h.wire_bytes(), 40 + 12 + 1000, "flags use header bits");
        assert!(h.push_ext_range(SeqRange::new(1, 2)));
        assert!(h.push_ext_range(SeqRange::new(5, 9)));
        assert_eq!(h.wire_bytes(), 40 + 12 + 20 + 1000);
        // 12 + 28 = 40: a third range fits, a fourth does not.
        assert!(h.push_ext_range(SeqRange::new(11, 12)));
        assert!(!h.push_ext_range(SeqRange::new(13, 14)));
        assert_eq!(h.option_bytes(), 40);
        // SACK blocks set later keep the extension ranges after them.
        h.ts = None;
        h.set_sack(&[SeqRange::new(100, 200); 3]);
        assert_eq!(h.sack().len(), 1);
        assert_eq!(h.ext_ranges().len(), 3);
        assert_eq!(h.ext_ranges()[2], SeqRange::new(11, 12));
        assert_eq!(h.option_bytes(), 12 + 28);
        let syn = TcpHeader {
            flags: flags::SYN,
            sack_permitted: true,
            wscale: Some(7),
            ts: Some(Timestamps::default()),
            ..Default::default()
        };
        assert_eq!(syn.wire_bytes(), 40 + 4 + 4 + 4 + 12);
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
