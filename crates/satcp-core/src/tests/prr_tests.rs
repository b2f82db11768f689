//! Proportional Rate Reduction (RFC 6937, `tcp.prr`), rule by rule, on a
//! server driven by hand-made ACKs: twenty segments of 1,000 bytes out
//! (cwnd 20 segments) and twenty more waiting. With SACK, the first two
//! SACKs release two new segments (limited transmit), so the flight at
//! the third is 22 segments: RecoverFS 22, ssthresh 11 (Reno: half the
//! flight). Segment k (1-based) is `seg(k)`.

use crate::engine::SimTime;
use crate::net::packet::SeqRange;
use crate::protocols::adalr::AdalrRecovery;
use crate::protocols::reno::Reno;
use crate::tcp::recovery::{NewRenoRecovery, SackRecovery};
use crate::tcp::test_support::{feed_ack, seg, server_with_window_full, MSS};
use crate::tcp::{EndpointParts, LossRecovery, TcpConfig, TcpEndpoint, TcpOutput};

fn twenty_out(recovery: Box<dyn LossRecovery>, sack: bool) -> TcpEndpoint {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        prr: true,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), recovery, sack);
    server_with_window_full(&cfg, parts, 20)
}

/// The peer's ACK of `ack` with SACK `blocks`, at 1 s.
fn ack(srv: &mut TcpEndpoint, ack: u64, blocks: &[SeqRange]) -> Vec<u64> {
    feed_ack(srv, ack, blocks, SimTime::from_secs_f64(1.0))
}

/// SACKs of `from..=to` above a hole at 1 (one ACK per segment); returns
/// everything sent in answer.
fn sack_one_by_one(srv: &mut TcpEndpoint, first_sacked: u64, from: u64, to: u64) -> Vec<u64> {
    let mut sent = vec![];
    for k in from..=to {
        let b = SeqRange::new(seg(first_sacked).start, seg(k).end);
        sent.extend(ack(srv, 1, &[b]));
    }
    sent
}

/// RFC 6937 Sec. 3: while pipe > ssthresh, "sndcnt =
/// CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out": of the 16 segments delivered after
/// the fast retransmission (SACKs of 5-20), the sender sends back
/// ceil(16 x 11 / 22) = 8 including the fast retransmission: seven new
/// segments, spread over the ACKs (one per two delivered), where RFC
/// 6675's cwnd = ssthresh would send nothing until pipe fell to 11 and
/// then one per ACK.
#[test]
fn rfc6937_proportional_part_sends_ssthresh_over_recoverfs_of_the_delivered() {
    let mut srv = twenty_out(Box::new(SackRecovery), true);
    let entry = sack_one_by_one(&mut srv, 2, 2, 4);
    assert!(srv.tx.in_recovery());
    assert_eq!(
        entry,
        vec![seg(21).start, seg(22).start, seg(1).start],
        "limited transmit, then the fast retransmission alone"
    );
    assert_eq!(srv.tx.ssthresh, 11 * MSS);
    let sent = sack_one_by_one(&mut srv, 2, 5, 16);
    assert_eq!(
        sent.len(),
        5,
        "ceil(12 x 11 / 22) - 1 by the 16th: {sent:?}"
    );
    assert!(sent.iter().all(|&s| s >= seg(23).start), "new data");
    assert!(srv.tx.pipe() > srv.tx.ssthresh);
    // Spread: one per two delivered.
    let mut srv = twenty_out(Box::new(SackRecovery), true);
    let sent = sack_one_by_one(&mut srv, 2, 2, 12);
    assert_eq!(sent.len(), 2 + 1 + 3, "ceil(8 x 11 / 22) = 4 by the 12th");
}

/// The same without SACK (RFC 6937 Sec. 3: DeliveredData is estimated as
/// one SMSS per duplicate ACK, and pipe as the flight less what the
/// duplicate ACKs delivered; no limited transmit, so RecoverFS 20 and
/// ssthresh 10). For the 16 duplicate ACKs after the fast retransmission,
/// PRR sends one new segment every second ACK from the third on (the
/// proportional part: ceil(prr_delivered x 10 / 20) - prr_out) until the
/// estimated pipe falls below ssthresh at the eleventh, then one per ACK
/// (the reduction bound: a duplicate ACK releases what it delivered). RFC
/// 6582's inflation (cwnd = ssthresh + 3 SMSS, + 1 per duplicate ACK)
/// sends nothing for seven ACKs, then one per ACK.
fn newreno_sends(prr: bool) -> Vec<usize> {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        prr,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), Box::new(NewRenoRecovery), false);
    let mut srv = server_with_window_full(&cfg, parts, 20);
    let mut out = TcpOutput::default();
    srv.write(20 * MSS, SimTime::from_secs_f64(0.5), &mut out);
    for _ in 0..3 {
        ack(&mut srv, 1, &[]);
    }
    assert!(srv.tx.in_recovery());
    // Which of the 16 following duplicate ACKs (1-based) sent a segment.
    (1..=16)
        .flat_map(|n| std::iter::repeat_n(n, ack(&mut srv, 1, &[]).len()))
        .collect()
}

#[test]
fn rfc6937_without_sack_each_duplicate_ack_delivers_one_smss() {
    assert_eq!(
        newreno_sends(true),
        vec![3, 5, 7, 9, 12, 13, 14, 15, 16],
        "PRR"
    );
    assert_eq!(
        newreno_sends(false),
        vec![8, 9, 10, 11, 12, 13, 14, 15, 16],
        "NewReno's inflation"
    );
}

/// Segments 1-16 lost, 17-20 SACKed: pipe falls below ssthresh at once.
fn heavy_loss() -> TcpEndpoint {
    let mut srv = twenty_out(Box::new(SackRecovery), true);
    let entry = sack_one_by_one(&mut srv, 17, 17, 19);
    assert!(srv.tx.in_recovery());
    assert_eq!(entry.last(), Some(&seg(1).start));
    srv
}

/// RFC 6937 Sec. 3, PRR-SSRB, pipe <= ssthresh: "sndcnt = MIN(ssthresh -
/// pipe, limit)" with limit = MAX(prr_delivered - prr_out, DeliveredData)
/// (+ MSS only when snd_una advanced, below): a duplicate ACK delivering
/// one segment releases one, packet conservation, though ssthresh - pipe
/// is 8 segments.
#[test]
fn rfc6937_ssrb_a_duplicate_ack_sends_what_it_delivered() {
    let mut srv = heavy_loss();
    let sent = ack(&mut srv, 1, &[SeqRange::new(seg(17).start, seg(20).end)]);
    assert_eq!(sent, vec![seg(2).start]);
}

/// RFC 6937's slow-start reduction bound, "+ MSS" (Linux: only on an ACK
/// that advances snd_una and marks no new loss): the partial ACK of 1
/// delivers one segment and releases two, so pipe grows back towards
/// ssthresh by one segment per ACK, as slow start would.
#[test]
fn rfc6937_ssrb_a_partial_ack_sends_one_segment_more_than_delivered() {
    let mut srv = heavy_loss();
    ack(&mut srv, 1, &[SeqRange::new(seg(17).start, seg(20).end)]);
    let sent = ack(
        &mut srv,
        seg(1).end,
        &[SeqRange::new(seg(17).start, seg(20).end)],
    );
    assert_eq!(sent, vec![seg(3).start, seg(4).start]);
}

/// RFC 6937 Sec. 3: at the end of recovery cwnd = ssthresh.
#[test]
fn rfc6937_recovery_ends_with_cwnd_at_ssthresh() {
    let mut srv = twenty_out(Box::new(SackRecovery), true);
    sack_one_by_one(&mut srv, 2, 2, 20);
    let ssthresh = srv.tx.ssthresh;
    assert_eq!(ssthresh, 11 * MSS);
    let recover = srv.tx.recover();
    ack(&mut srv, recover, &[]);
    assert!(!srv.tx.in_recovery());
    assert_eq!(srv.tx.cwnd, ssthresh);
}

/// A variant whose recovery has its own cwnd rule keeps it with `prr`:
/// TCP-ADaLR (SACK) enters recovery with cwnd = ssthresh, as RFC 6675,
/// where PRR would leave cwnd at pipe.
#[test]
fn a_variant_recovery_with_its_own_cwnd_rule_is_not_wrapped() {
    let adalr = AdalrRecovery::new(SackRecovery, Default::default());
    assert!(!adalr.rules().standard_cwnd);
    assert!(SackRecovery.rules().standard_cwnd && NewRenoRecovery.rules().standard_cwnd);
    let mut srv = twenty_out(Box::new(adalr), true);
    sack_one_by_one(&mut srv, 2, 2, 4);
    assert!(srv.tx.in_recovery());
    assert_eq!(srv.tx.cwnd, srv.tx.ssthresh);
    // With PRR, SACK recovery enters at cwnd = pipe (22 out, 3 SACKed, 1
    // presumed lost), filled by the fast retransmission.
    let mut srv = twenty_out(Box::new(SackRecovery), true);
    sack_one_by_one(&mut srv, 2, 2, 4);
    assert_eq!(srv.tx.cwnd, 18 * MSS);
}
