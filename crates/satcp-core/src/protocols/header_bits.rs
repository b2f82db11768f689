//! Which protocol owns which bit of the header extension flags
//! (`net::packet::HeaderExt::flags`), in one place so that no two collide.
//! The core only carries the bits; their meaning is the protocols'.

/// A TCP-Peach dummy segment, or the receiver's ACK of one (TCP-Peach
/// Sec. III-A: one of the unused bits of the TCP header marks them).
pub const PEACH_DUMMY: u8 = 0x01;

/// The worked example (`protocols/example/`): the ACK echoes drop records
/// the network wrote into the data it acknowledges.
pub const EXAMPLE_DROP_ECHO: u8 = 0x80;

/// RN-TCP / TCP-R receivers (`protocols/rn_receiver.rs`): the drop-negative
/// bit of a duplicate ACK (TCP-R paper Sec. 2.2). 1: the segment the ACK
/// asks for (rcv_nxt) sits in a hole no EPDN drop record covers, so it is
/// presumed reordered or corrupted; 0: an EPDN gateway reported it dropped
/// (or the ACK is no duplicate).
pub const DROP_NEGATIVE: u8 = 0x02;
