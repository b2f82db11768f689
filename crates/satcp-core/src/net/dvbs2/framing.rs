//! BBFrames and GSE: how IP packets fill the frames of a DVB-S2 carrier.
//!
//! A BBFRAME holds Kbch bits (the MODCOD's, for a normal or a short
//! FECFRAME): an 80-bit BBHEADER and a data field that GSE packets fill
//! (ETSI EN 302 307-1 Sec. 5.1.5-5.2). On the air a frame is a PLFRAME:
//! a 90-symbol PLHEADER, the FECFRAME in slots of 90 symbols (64,800 or
//! 16,200 bits at the constellation's bits per symbol) and, with pilots,
//! a 36-symbol pilot block after every 16 slots but the last (Sec. 5.5).
//!
//! GSE (ETSI TS 102 606-1, Sec. 4.2) carries an IP packet whole, or in
//! fragments across frames. The header fields and their sizes, in bytes:
//! Start/End/Label type/GSE length 2 (every GSE packet); Frag ID 1 (a
//! fragment); Total length 2 (a first fragment); Protocol type 2 and the
//! label (6, 3 or 0) (a whole packet or a first fragment); a CRC-32 of 4
//! after the last fragment. So:
//!
//! | GSE packet | overhead, bytes |
//! |---|---|
//! | whole | 2 + 2 + label |
//! | first fragment | 2 + 1 + 2 + 2 + label |
//! | middle fragment | 2 + 1 |
//! | last fragment | 2 + 1 + CRC 4 |
//!
//! What is left of a data field that cannot hold one more GSE packet (at
//! least its header and one byte) is padding. The GSE length field's
//! limit (4,095 bytes, so a longer packet must be fragmented even where a
//! frame has room) is not modelled: satcp's packets are at most an MTU.

use super::modcod::{Modcod, Modulation};
use crate::net::packet::PacketId;
use std::collections::VecDeque;

/// The BBHEADER, bits (EN 302 307-1 Sec. 5.1.6).
pub const BBHEADER_BITS: u32 = 80;
/// Symbols of the PLHEADER, of a slot, and of a pilot block (Sec. 5.5).
const PLHEADER_SYMBOLS: u32 = 90;
const SLOT_SYMBOLS: u32 = 90;
const PILOT_BLOCK_SYMBOLS: u32 = 36;
/// A pilot block follows every 16 slots.
const SLOTS_PER_PILOT_BLOCK: u32 = 16;

/// GSE overheads (TS 102 606-1 Sec. 4.2), bytes.
const GSE_FIXED: u32 = 2;
const GSE_FRAG_ID: u32 = 1;
const GSE_TOTAL_LENGTH: u32 = 2;
const GSE_PROTOCOL_TYPE: u32 = 2;
const GSE_CRC: u32 = 4;
const MIDDLE_OVERHEAD: u32 = GSE_FIXED + GSE_FRAG_ID;
const LAST_OVERHEAD: u32 = GSE_FIXED + GSE_FRAG_ID + GSE_CRC;

/// The FECFRAME length.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FrameSize {
    /// 64,800 bits.
    #[default]
    Normal,
    /// 16,200 bits.
    Short,
}

impl FrameSize {
    pub fn fec_bits(self) -> u32 {
        match self {
            FrameSize::Normal => 64_800,
            FrameSize::Short => 16_200,
        }
    }

    /// Kbch of MODCOD `m` in frames of this size; None if the table has
    /// no such frame.
    pub fn kbch(self, m: &Modcod) -> Option<u32> {
        match self {
            FrameSize::Normal => Some(m.kbch_normal),
            FrameSize::Short => m.kbch_short,
        }
    }

    /// Symbols of a PLFRAME of this size with modulation `m`.
    pub fn symbols(self, m: Modulation, pilots: bool) -> u32 {
        let slots = self.fec_bits().div_ceil(m.bits_per_symbol() * SLOT_SYMBOLS);
        let pilot_blocks = if pilots {
            (slots - 1) / SLOTS_PER_PILOT_BLOCK
        } else {
            0
        };
        PLHEADER_SYMBOLS + slots * SLOT_SYMBOLS + pilot_blocks * PILOT_BLOCK_SYMBOLS
    }
}

/// The bytes of a BBFRAME's data field: Kbch less the BBHEADER.
pub fn data_field_bytes(kbch: u32) -> u32 {
    (kbch - BBHEADER_BITS) / 8
}

/// A packet whose last byte is in a frame: released at that frame's end,
/// lost if any frame that carried a part of it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Released {
    pub packet: PacketId,
    pub size: u32,
    pub lost: bool,
}

/// What one frame carried, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filled {
    /// Packets whose last byte is in the frame.
    pub completed: u32,
    pub payload_bytes: u32,
    pub gse_header_bytes: u32,
    pub padding_bytes: u32,
}

/// A packet carried in fragments: what is still to send.
#[derive(Clone, Copy, Debug)]
struct Partial {
    packet: PacketId,
    size: u32,
    rest: u32,
    /// No fragment sent yet (it did not fit in the last frame at all).
    started: bool,
    lost: bool,
}

/// Fills BBFRAMEs with GSE packets, carrying a packet that does not fit
/// into the next frame in fragments.
#[derive(Debug)]
pub struct Packer {
    /// The label's bytes: 6 (a MAC address), 3, or 0 (broadcast or
    /// re-used label).
    label_bytes: u32,
    partial: Option<Partial>,
}

impl Packer {
    pub fn new(label_bytes: u32) -> Packer {
        Packer {
            label_bytes,
            partial: None,
        }
    }

    fn whole_overhead(&self) -> u32 {
        GSE_FIXED + GSE_PROTOCOL_TYPE + self.label_bytes
    }

    fn first_overhead(&self) -> u32 {
        GSE_FIXED + GSE_FRAG_ID + GSE_TOTAL_LENGTH + GSE_PROTOCOL_TYPE + self.label_bytes
    }

    /// A packet is partly sent, or waits for the next frame.
    pub fn has_partial(&self) -> bool {
        self.partial.is_some()
    }

    /// Fills a data field of `room` bytes: first the rest of a packet
    /// carried over, then packets from `next` (id and size) while they
    /// fit, the last one perhaps in part. Packets completed go to `done`;
    /// `frame_lost` marks them and any packet partly carried.
    pub fn fill(
        &mut self,
        mut room: u32,
        frame_lost: bool,
        mut next: impl FnMut() -> Option<(PacketId, u32)>,
        done: &mut VecDeque<Released>,
    ) -> Filled {
        let mut f = Filled::default();
        loop {
            let mut part = match self.partial.take() {
                Some(p) => p,
                None => match next() {
                    Some((packet, size)) => Partial {
                        packet,
                        size,
                        rest: size,
                        started: false,
                        lost: false,
                    },
                    None => break,
                },
            };
            let (overhead, fragment_overhead) = if part.started {
                (LAST_OVERHEAD, MIDDLE_OVERHEAD)
            } else {
                (self.whole_overhead(), self.first_overhead())
            };
            if overhead + part.rest <= room {
                // The packet, or its last fragment, fits.
                room -= overhead + part.rest;
                f.gse_header_bytes += overhead;
                f.payload_bytes += part.rest;
                f.completed += 1;
                done.push_back(Released {
                    packet: part.packet,
                    size: part.size,
                    lost: part.lost || frame_lost,
                });
                continue;
            }
            // A fragment with at least one byte, leaving at least one for
            // the last fragment; else the packet waits for the next frame.
            let carried = room.saturating_sub(fragment_overhead).min(part.rest - 1);
            if carried > 0 {
                room -= fragment_overhead + carried;
                f.gse_header_bytes += fragment_overhead;
                f.payload_bytes += carried;
                part.rest -= carried;
                part.started = true;
                part.lost |= frame_lost;
            }
            self.partial = Some(part);
            break;
        }
        f.padding_bytes = room;
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbs2::modcod::by_name;

    #[test]
    fn plframe_symbols_as_the_standard_counts_them() {
        // QPSK normal: 360 slots; 22 pilot blocks (after slots 16, 32, ...,
        // 352): 90 + 32,400 + 22 x 36 = 33,282 symbols.
        assert_eq!(FrameSize::Normal.symbols(Modulation::Qpsk, true), 33_282);
        assert_eq!(FrameSize::Normal.symbols(Modulation::Qpsk, false), 32_490);
        // 8PSK short: 16,200 / 3 / 90 = 60 slots, 3 pilot blocks:
        // 90 + 5,400 + 108 = 5,598.
        assert_eq!(FrameSize::Short.symbols(Modulation::Psk8, true), 5_598);
        // 32APSK normal: 144 slots, 8 pilot blocks: 90 + 12,960 + 288.
        assert_eq!(FrameSize::Normal.symbols(Modulation::Apsk32, true), 13_338);
    }

    fn fill_with(
        packer: &mut Packer,
        room: u32,
        lost: bool,
        queue: &mut VecDeque<(PacketId, u32)>,
        done: &mut VecDeque<Released>,
    ) -> Filled {
        packer.fill(room, lost, || queue.pop_front(), done)
    }

    /// QPSK 1/2, normal frame: Kbch 32,208 bits; data field (32,208 - 80)
    /// / 8 = 4,016 bytes. Packets of 1,500 bytes with a 6-byte label: a
    /// whole GSE packet is 2 + 2 + 6 + 1,500 = 1,510 bytes. Two fit (3,020),
    /// leaving 996; a first fragment has 2 + 1 + 2 + 2 + 6 = 13 bytes of
    /// header, so it carries 983 bytes of the third packet; the frame has
    /// no padding. The next frame starts with the last fragment: 3 + 4
    /// (CRC) + 517 = 524 bytes, then two whole packets (3,020), leaving
    /// 472: a first fragment of 459 bytes.
    #[test]
    fn gse_overhead_against_a_hand_computation() {
        let room = data_field_bytes(
            FrameSize::Normal
                .kbch(by_name("QPSK 1/2").unwrap())
                .unwrap(),
        );
        assert_eq!(room, 4_016);
        let mut packer = Packer::new(6);
        let mut queue: VecDeque<(PacketId, u32)> = (0..10).map(|i| (i, 1500)).collect();
        let mut done = VecDeque::new();
        let f = fill_with(&mut packer, room, false, &mut queue, &mut done);
        assert_eq!(
            f,
            Filled {
                completed: 2,
                payload_bytes: 3_000 + 983,
                gse_header_bytes: 10 + 10 + 13,
                padding_bytes: 0
            }
        );
        let f = fill_with(&mut packer, room, false, &mut queue, &mut done);
        assert_eq!(
            f,
            Filled {
                completed: 3,
                payload_bytes: 517 + 3_000 + 459,
                gse_header_bytes: 7 + 20 + 13,
                padding_bytes: 0
            }
        );
        let ids: Vec<_> = done.iter().map(|r| r.packet).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4]);
    }

    /// A queue that runs dry leaves padding: one 40-byte ACK with no label
    /// takes 2 + 2 + 40 = 44 bytes of a short QPSK 1/4 frame's (3,072 -
    /// 80) / 8 = 374: 330 bytes of padding.
    #[test]
    fn a_frame_the_queue_cannot_fill_is_padded() {
        let room = data_field_bytes(FrameSize::Short.kbch(by_name("QPSK 1/4").unwrap()).unwrap());
        assert_eq!(room, 374);
        let mut packer = Packer::new(0);
        let mut queue = VecDeque::from([(7, 40)]);
        let mut done = VecDeque::new();
        let f = fill_with(&mut packer, room, false, &mut queue, &mut done);
        assert_eq!((f.gse_header_bytes, f.padding_bytes), (4, 330));
        assert!(!packer.has_partial());
    }

    /// A packet spread over five frames is lost if any of them is: here
    /// the second. Frames of 374 bytes, a 6-byte label: a first fragment
    /// of 374 - 13 = 361 bytes, middle fragments of 374 - 3 = 371 in the
    /// second to fourth frames (1,500 - 361 - 3 x 371 = 26 left), the last
    /// fragment of 26 + 7 in the fifth, and a 40-byte ACK whole after it.
    #[test]
    fn a_packet_is_lost_with_any_frame_that_carried_a_part_of_it() {
        let mut packer = Packer::new(6);
        let mut queue = VecDeque::from([(1, 1500), (2, 40)]);
        let mut done = VecDeque::new();
        let mut carried = 0;
        for lost in [false, true, false, false, false] {
            let f = fill_with(&mut packer, 374, lost, &mut queue, &mut done);
            carried += f.payload_bytes;
        }
        assert_eq!(carried, 1_540);
        let fates: Vec<_> = done.iter().map(|r| (r.packet, r.lost)).collect();
        assert_eq!(fates, [(1, true), (2, false)]);
    }
}
