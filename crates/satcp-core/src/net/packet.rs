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
    /// Whether `inner` lies within this range.
    pub fn covers(&self, inner: SeqRange) -> bool {
        self.start <= inner.start && inner.end <= self.end
    }
}

/// RFC 2883 Sec. 4: the first SACK block reports a duplicate when it lies
/// below the cumulative ACK or within the second block. `b`: the ACK's
/// SACK blocks, decoded once by the caller (`TcpHeader::sack`).
pub fn dsack_block(ack: u64, b: &[SeqRange]) -> Option<SeqRange> {
    let first = *b.first()?;
    let below_ack = first.end <= ack;
    let inside_second = b.get(1).is_some_and(|s| s.covers(first));
    (below_ack || inside_second).then_some(first)
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

impl std::ops::Deref for SackBlocks {
    type Target = [SeqRange];
    fn deref(&self) -> &[SeqRange] {
        self.as_slice()
    }
}

impl IntoIterator for SackBlocks {
    type Item = SeqRange;
    type IntoIter = std::iter::Take<std::array::IntoIter<SeqRange, MAX_SACK_BLOCKS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().take(self.n as usize)
    }
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
    /// The list without its first block (a DSACK, say).
    pub fn without_first(self) -> SackBlocks {
        let mut b = SackBlocks::default();
        for r in self.into_iter().skip(1) {
            b.push(r);
        }
        b
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
///
/// A range is stored as its start and a 32-bit length, as on the wire,
/// where a block is two 32-bit sequence numbers and so spans less than
/// 2^32 bytes (RFC 2018 Sec. 3). That keeps the header at 96 bytes and a
/// packet at 128, two cache lines' worth, where 16-byte ranges made them
/// 120 and 152 (docs/decisions/0013-sack-blocks-as-on-the-wire.md); the counts of each
/// kind sit in `RangeCounts`, beside the header's one-byte fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionRanges {
    start: [u64; MAX_SACK_BLOCKS],
    len: [u32; MAX_SACK_BLOCKS],
}

impl OptionRanges {
    fn get(&self, i: usize) -> SeqRange {
        SeqRange::new(self.start[i], self.start[i] + self.len[i] as u64)
    }
    /// Writes range `i`; false if it ends before it starts or is too long
    /// for the option.
    fn set(&mut self, i: usize, r: SeqRange) -> bool {
        match r.end.checked_sub(r.start).map(u32::try_from) {
            Some(Ok(len)) => {
                self.start[i] = r.start;
                self.len[i] = len;
                true
            }
            _ => false,
        }
    }
    fn list(&self, from: usize, n: usize) -> SackBlocks {
        let mut b = SackBlocks::default();
        for i in from..from + n {
            b.push(self.get(i));
        }
        b
    }
}

/// How many of `OptionRanges` are SACK blocks and how many extension
/// ranges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeCounts {
    sack: u8,
    ext: u8,
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
    /// How many of `ranges` are SACK blocks and how many extension ranges
    /// (kept apart from them so that the header packs into 96 bytes).
    pub range_counts: RangeCounts,
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
    pub fn sack(&self) -> SackBlocks {
        self.ranges.list(0, self.range_counts.sack as usize)
    }
    pub fn has_sack(&self) -> bool {
        self.range_counts.sack > 0
    }

    /// Sets the SACK blocks, keeping the first ones that fit beside the
    /// extension ranges already written (the caller leaves room for
    /// timestamps, which are stamped later).
    ///
    /// Panics on a block of 2^32 bytes or more: the receiver reports data
    /// within its window, which validation keeps below 2^30.
    pub fn set_sack(&mut self, blocks: &[SeqRange]) {
        let ext = self.ext_ranges();
        let room = MAX_SACK_BLOCKS - ext.len();
        let n = blocks.len().min(room);
        for (i, b) in blocks[..n].iter().enumerate() {
            assert!(
                self.ranges.set(i, *b),
                "SACK block {b:?} spans 2^32 bytes or more"
            );
        }
        for (i, r) in ext.into_iter().enumerate() {
            self.ranges.set(n + i, r);
        }
        self.range_counts.sack = n as u8;
    }

    /// The header extension's sequence ranges.
    pub fn ext_ranges(&self) -> SackBlocks {
        let c = self.range_counts;
        self.ranges.list(c.sack as usize, c.ext as usize)
    }

    /// Adds a header-extension range if the option space still has room
    /// beside the SACK blocks and timestamps; false if it has none, or if
    /// the range spans 2^32 bytes or more (as no option can carry).
    pub fn push_ext_range(&mut self, r: SeqRange) -> bool {
        let (s, e) = (
            self.range_counts.sack as usize,
            self.range_counts.ext as usize,
        );
        let ts = if self.ts.is_some() {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        };
        let fits = s + e < MAX_SACK_BLOCKS
            && sack_option_bytes(s) + ext_option_bytes(e + 1) + ts <= OPTION_SPACE_BYTES
            && self.ranges.set(s + e, r);
        if fits {
            self.range_counts.ext += 1;
        }
        fits
    }

    pub fn clear_ext_ranges(&mut self) {
        self.range_counts.ext = 0;
    }

    /// Bytes of TCP options.
    pub fn option_bytes(&self) -> u32 {
        let mut b = sack_option_bytes(self.range_counts.sack as usize)
            + ext_option_bytes(self.range_counts.ext as usize);
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
    /// Debug builds: which slots hold a packet, so that a packet released
    /// twice or read after its release fails where it happens (in release
    /// builds it would corrupt another packet's slot or a connection's
    /// count of packets in the network, and show far away).
    #[cfg(debug_assertions)]
    in_use: Vec<bool>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        let (id, slot) = self.alloc_slot();
        *slot = p;
        id
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
        #[cfg(debug_assertions)]
        {
            self.in_use.resize(self.slots.len(), false);
            self.in_use[id as usize] = true;
        }
        (id, &mut self.slots[id as usize])
    }
    pub fn release(&mut self, id: PacketId) {
        #[cfg(debug_assertions)]
        {
            assert!(self.in_use[id as usize], "packet {id} released twice");
            self.in_use[id as usize] = false;
        }
        self.free.push(id);
    }
    pub fn get(&self, id: PacketId) -> &Packet {
        self.debug_check_in_use(id);
        &self.slots[id as usize]
    }
    #[inline(always)]
    fn debug_check_in_use(&self, _id: PacketId) {
        #[cfg(debug_assertions)]
        assert!(
            self.in_use[_id as usize],
            "packet {_id} read after its release"
        );
    }
    /// Starts loading packet `id` into the caches (`engine::prefetch`).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::engine::prefetch::prefetch(p);
        }
    }
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.debug_check_in_use(id);
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
    #[cfg(debug_assertions)]
    #[should_panic(expected = "packet 1 released twice")]
    fn a_packet_released_twice_fails_in_debug_builds() {
        let mut pool = PacketPool::default();
        let _ = pool.alloc(Packet::default());
        let p = pool.alloc(Packet::default());
        pool.release(p);
        pool.release(p);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "packet 0 read after its release")]
    fn a_packet_read_after_its_release_fails_in_debug_builds() {
        let mut pool = PacketPool::default();
        let p = pool.alloc(Packet::default());
        pool.release(p);
        let _ = pool.get(p);
    }

    #[test]
    fn a_packet_takes_128_bytes() {
        assert_eq!(std::mem::size_of::<TcpHeader>(), 96);
        assert_eq!(std::mem::size_of::<Packet>(), 128);
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

    #[test]
    fn a_range_the_option_cannot_carry_is_refused() {
        let mut h = TcpHeader::default();
        assert!(!h.push_ext_range(SeqRange::new(10, 10 + (1 << 32))));
        assert!(!h.push_ext_range(SeqRange { start: 20, end: 10 }));
        assert!(h.push_ext_range(SeqRange::new(10, 10 + u32::MAX as u64)));
        assert_eq!(
            h.ext_ranges().as_slice(),
            &[SeqRange::new(10, 10 + u32::MAX as u64)]
        );
    }

    #[test]
    #[should_panic(expected = "spans 2^32 bytes or more")]
    fn a_sack_block_of_4_gib_is_a_bug() {
        TcpHeader::default().set_sack(&[SeqRange::new(0, 1 << 32)]);
    }

    fn range() -> impl proptest::strategy::Strategy<Value = SeqRange> {
        use proptest::prelude::*;
        (0u64..u64::MAX / 2, 0u64..=u32::MAX as u64).prop_map(|(s, l)| SeqRange::new(s, s + l))
    }

    proptest::proptest! {
        /// The compact storage gives back exactly the ranges written, in
        /// order, and the same option bytes as the ranges themselves.
        #[test]
        fn ranges_read_back_as_written(
            sack in proptest::collection::vec(range(), 0..6),
            ext in proptest::collection::vec(range(), 0..5),
            ts: bool,
            sack_after_ext: bool,
        ) {
            let mut h = TcpHeader {
                ts: ts.then_some(Timestamps::default()),
                ..Default::default()
            };
            if !sack_after_ext {
                h.set_sack(&sack);
            }
            let mut pushed = Vec::new();
            for r in &ext {
                if h.push_ext_range(*r) {
                    pushed.push(*r);
                }
            }
            if sack_after_ext {
                h.set_sack(&sack);
            }
            let n = h.sack().len();
            proptest::prop_assert_eq!(h.sack().to_vec(), sack[..n].to_vec());
            proptest::prop_assert_eq!(h.ext_ranges().to_vec(), pushed.clone());
            proptest::prop_assert!(n + pushed.len() <= MAX_SACK_BLOCKS);
            let expect = sack_option_bytes(n)
                + ext_option_bytes(pushed.len())
                + if ts { TIMESTAMPS_OPTION_BYTES } else { 0 };
            proptest::prop_assert_eq!(h.option_bytes(), expect);
            proptest::prop_assert_eq!(h.has_sack(), n > 0);
        }
    }
}
