//! What an arriving ACK tells the sender, as a real stack sees it: handed to
//! the congestion and loss-recovery modules with every ACK, during loss
//! recovery too, after the scoreboard took it in and before the machinery
//! acts on it (duplicate-ACK counting, recovery entry and exit, window
//! growth).

use super::delivery_rate::RateSample;
use crate::engine::Duration;
use crate::net::packet::{flags, HeaderExt, SackBlocks, SeqRange, TcpHeader};

#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    /// The segment as it arrived.
    pub header: &'a TcpHeader,
    /// The peer's receive window in bytes (window scaling applied).
    pub window: u64,
    /// The first SACK block, when RFC 2883 makes it a DSACK: below the
    /// cumulative ACK, or inside the second block.
    pub dsack: Option<SeqRange>,
    /// Payload bytes newly acknowledged cumulatively.
    pub newly_acked: u64,
    /// Sequence bytes newly SACKed.
    pub newly_sacked: u64,
    /// Sequence bytes delivered for the first time by this ACK: newly
    /// SACKed, or acknowledged cumulatively without having been SACKed
    /// before (Linux's `acked_sacked`, RFC 6937's DeliveredData). Not
    /// `newly_acked + newly_sacked`, which counts a SACKed segment twice:
    /// when it is SACKed and again when the cumulative ACK passes it.
    pub newly_delivered: u64,
    /// The machinery counts it as a duplicate ACK (RFC 5681 Sec. 2).
    pub duplicate: bool,
    /// RTT sample (Karn-valid, or from the timestamp echo).
    pub rtt: Option<Duration>,
    /// Delivery-rate sample.
    pub rate: Option<RateSample>,
    /// pipe before the ACK arrived (Linux's `rs->prior_in_flight`).
    pub prior_in_flight: u64,
}

impl AckInfo<'_> {
    pub fn ack(&self) -> u64 {
        self.header.ack
    }
    /// SACK blocks reporting data above the cumulative ACK (the DSACK
    /// block, if any, left out).
    pub fn sack_blocks(&self) -> SackBlocks {
        let b = self.header.sack();
        if self.dsack.is_some() {
            b.without_first()
        } else {
            b
        }
    }
    pub fn ece(&self) -> bool {
        self.header.has(flags::ECE)
    }
    pub fn ext(&self) -> &HeaderExt {
        &self.header.ext
    }
    /// Sequence ranges of the header extension.
    pub fn ext_ranges(&self) -> SackBlocks {
        self.header.ext_ranges()
    }
}

pub use crate::net::packet::dsack_block;

#[cfg(test)]
mod tests {
    use super::*;

    fn ack_with(ack: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = TcpHeader {
            ack,
            flags: flags::ACK,
            ..Default::default()
        };
        let b: Vec<SeqRange> = blocks.iter().map(|&(s, e)| SeqRange::new(s, e)).collect();
        h.set_sack(&b);
        h
    }

    fn dsack(h: &TcpHeader) -> Option<SeqRange> {
        dsack_block(h.ack, &h.sack())
    }

    #[test]
    fn dsack_rules_of_rfc_2883() {
        assert_eq!(
            dsack(&ack_with(1000, &[(500, 600)])),
            Some(SeqRange::new(500, 600))
        );
        assert_eq!(
            dsack(&ack_with(1000, &[(1200, 1300), (1100, 1500)])),
            Some(SeqRange::new(1200, 1300))
        );
        assert_eq!(dsack(&ack_with(1000, &[(1200, 1300)])), None);
        assert_eq!(dsack(&ack_with(1000, &[(1600, 1700), (1100, 1500)])), None);
        assert_eq!(dsack(&ack_with(1000, &[])), None);
    }
}
