//! The transport invariants of one endpoint: what must hold between any two
//! events, whatever the network did to the segments and whichever variant
//! runs. docs/testing.md lists them with the tests that check them.
//!
//! They are checked in two ways:
//! - `debug_assert!`s at the end of every call into an endpoint
//!   (`TcpEndpoint::debug_check`), so every debug-build test checks them on
//!   every event, and a release build pays nothing;
//! - on demand (`TcpEndpoint::check_invariants`), which the simulation calls
//!   after every endpoint event when asked (`Simulation::check_invariants`,
//!   `scenario::run_checked`), so that the release-build property tests and
//!   fuzz targets check the same rules.
//!
//! satcp keeps no separate snd_nxt: the next segment sent is either a
//! presumed-lost one in [snd_una, snd_max) (go-back-N after a timeout
//! presumes everything lost) or new data at snd_max, so "snd_una <= snd_nxt
//! <= snd_max" is "every segment in the retransmission queue lies in
//! [snd_una, snd_max)", checked below.

use super::receiver::ReceiveHalf;
use super::send_state::SendState;

/// The sender's sequence variables, windows and scoreboard. O(segments in
/// flight): the scoreboard's incrementally kept sums are recomputed.
pub fn check_sender(tx: &SendState) -> Result<(), String> {
    let err = |what: String| {
        Err(format!(
            "sender: {what} (snd_una {}, snd_max {}, stream_end {}, fin_seq {:?}, cwnd {}, pipe {})",
            tx.snd_una,
            tx.snd_max,
            tx.stream_end,
            tx.fin_seq,
            tx.cwnd,
            tx.pipe()
        ))
    };
    if tx.snd_una > tx.snd_max {
        return err("snd_una > snd_max".into());
    }
    // Nothing beyond what the application wrote (and our FIN) is sent.
    let end = tx.fin_seq.map_or(tx.stream_end, |f| f + 1);
    if tx.snd_max > end {
        return err("snd_max beyond the data written".into());
    }
    if let Some(f) = tx.fin_seq {
        if f != tx.stream_end {
            return err("FIN not right after the last byte written".into());
        }
    }
    if tx.cwnd < tx.mss as u64 {
        return err(format!("cwnd below one segment ({} bytes)", tx.mss));
    }
    if tx.mss == 0 {
        return err("mss 0".into());
    }
    // Unsigned sums that went "negative" wrap to huge values: bounding them
    // by the flight catches it in release builds too. A segment retransmitted
    // before it was presumed lost counts twice in pipe (RFC 6675 SetPipe (a)
    // and (b): NextSeg rule (3), or a SYN-ACK resent for a duplicate SYN), so
    // pipe is bounded by twice the flight; the scoreboard's own check below
    // recounts it exactly.
    let flight = tx.flight_size();
    if tx.sent.sacked_bytes() > flight {
        return err(format!(
            "SACKed bytes ({}) above the flight size {flight}",
            tx.sent.sacked_bytes()
        ));
    }
    if tx.pipe() > 2 * (flight - tx.sent.sacked_bytes()) {
        return err(format!(
            "pipe above twice the unSACKed flight ({flight} in flight, {} SACKed)",
            tx.sent.sacked_bytes()
        ));
    }
    // The retransmission queue covers exactly [snd_una, snd_max), segment
    // after segment: nothing cumulatively acknowledged is left in it, so
    // nothing cumulatively acknowledged can be retransmitted.
    match (tx.sent.first(), tx.sent.last()) {
        (None, None) if tx.snd_una == tx.snd_max => {}
        (Some(f), Some(l)) if f.range.start == tx.snd_una && l.range.end == tx.snd_max => {}
        (f, l) => {
            return err(format!(
                "retransmission queue {:?}..{:?} is not [snd_una, snd_max)",
                f.map(|s| s.range),
                l.map(|s| s.range)
            ))
        }
    }
    tx.sent.check()
}

/// The receive half: out-of-order blocks above rcv_nxt, sorted, disjoint,
/// not touching; the bytes delivered are exactly those below rcv_nxt
/// (`delivered`: the endpoint's count of bytes handed to the application).
pub fn check_receiver(rx: &ReceiveHalf, delivered: u64) -> Result<(), String> {
    let Some(nxt) = rx.rcv_nxt else {
        if delivered > 0 || rx.has_holes() {
            return Err("receiver: data before the peer's SYN".into());
        }
        return Ok(());
    };
    let blocks = rx.out_of_order_blocks();
    let err = |what: &str| {
        Err(format!(
            "receiver: {what} (rcv_nxt {nxt}, delivered {delivered}, irs {:?}, blocks {blocks:?})",
            rx.irs()
        ))
    };
    let mut prev_end = nxt;
    for (i, b) in blocks.iter().enumerate() {
        if b.start >= b.end {
            return err("empty out-of-order block");
        }
        // Blocks touching rcv_nxt or each other would have been merged.
        if b.start <= prev_end {
            return err(if i == 0 {
                "out-of-order block at or below rcv_nxt"
            } else {
                "out-of-order blocks overlap, touch or are unsorted"
            });
        }
        prev_end = b.end;
    }
    // In order and once: rcv_nxt advanced by exactly the bytes delivered,
    // plus the peer's SYN and FIN.
    let expected = rx
        .irs()
        .map(|irs| irs + 1 + delivered + rx.fin_received as u64);
    if expected != Some(nxt) {
        return err("rcv_nxt is not irs + 1 + bytes delivered (+ FIN)");
    }
    Ok(())
}
