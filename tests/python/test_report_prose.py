"""Report prose that states a comparison follows the numbers it is given:
each text function is fed inputs on both sides of its condition and the
wording must change (issue 10: no sentence states a conclusion no code
checks). No simulation runs here; the inputs are made up around the
thresholds: a paper's prose is data, rendered with made-up names
(:func:`satcp.reproduce.paper_run.text`; the slow-start paper's tests are
in test_slowstart_reproduce.py)."""

from __future__ import annotations

from satcp.reproduce import adalr, paper_run, peach, tcpr

# Total goodputs (segments/s, 20 connections) at PLoss = 1e-2 and the
# (recovery episodes, timeouts) counts; only the goodputs decide the wording.
COUNTS = (3950.0, 113.0, 2359.0, 693.0)


def _peach(part: str, name: str, **names) -> str:
    """TCP-Peach's text ``name`` of ``part`` with made-up numbers."""
    return paper_run.text(peach.PAPER, part, name, **names)


def gain_text(reno: float, peach_: float, counts) -> str:
    return _peach("goodput", "gain", reno=reno, peach=peach_, counts=counts)


def overhead_text(peach_conn, implied_conn, measured_pct, share_pct) -> str:
    return _peach(
        "goodput",
        "overhead",
        peach_conn=peach_conn,
        implied_conn=implied_conn,
        measured_pct=measured_pct,
        share_pct=share_pct,
    )


def test_peach_gain_heading_follows_the_gain():
    reno = 400.0
    larger = gain_text(reno, 960.0, COUNTS)
    close = gain_text(reno, reno * 1.31, COUNTS)
    smaller = gain_text(reno, reno * 1.05, COUNTS)
    assert "is larger than the paper's 30.65%" in larger
    assert "(satcp: +140.0%)" in larger
    assert "is close to the paper's 30.65%" in close
    assert "is smaller than the paper's 30.65%" in smaller


def test_peach_gain_places_peach_against_the_papers_two_figures():
    reno = 400.0  # +30.65% implies 26.1 segments/s per connection
    between = gain_text(reno, 960.0, COUNTS)  # 48 per connection
    below = gain_text(reno, 500.0, COUNTS)  # 25
    above = gain_text(reno, 2100.0, COUNTS)  # 105
    assert "lies between the paper's two figures" in between
    assert "at or below what the paper's +30.65% implies" in below
    assert "at or above the paper's Fig. 20 figure of 100" in above
    for text in (below, above):
        assert "lies between" not in text


def test_peach_gain_says_whether_reno_is_near_mathis():
    # Mathis x 20 at 1e-2 is 445 segments/s; Fig. 20 x 20 is 394.
    near = gain_text(400.0, 960.0, COUNTS)
    far = gain_text(200.0, 960.0, COUNTS)
    assert "close to Mathis's law (445)" in near
    assert "not close to Mathis's law" in far
    assert "not close to the paper's own TCP-Reno" in far
    assert "not close to" not in near


def test_peach_overhead_heading_and_verdict_follow_the_numbers():
    # 48 segments/s per connection: a window of 26 segments, estimate 26%.
    higher = overhead_text(48.0, 26.0, 25.8, 20.5)
    assert "overhead is higher than the paper's 17.21%" in higher
    assert "measured: 25.8%" in higher
    assert "satcp's do too, at a higher goodput" in higher
    close = overhead_text(30.0, 26.0, 17.0, 14.5)
    assert "overhead is close to the paper's 17.21%" in close
    lower = overhead_text(20.0, 26.0, 10.0, 9.0)
    assert "overhead is lower than the paper's 17.21%" in lower
    # The estimate (26%) does not account for a measured 50%.
    off = overhead_text(48.0, 26.0, 50.0, 33.0)
    assert "does not account for satcp's measured overhead" in off
    assert "agree with each other" not in off
    # Nor does the paper's implied goodput (a window of 5 segments: 5%).
    paper_off = overhead_text(48.0, 10.0, 25.8, 20.5)
    assert "does not account for the paper's 17.21%" in paper_off


def link_error_cost_text(peach_gap, peach_growth, reno_gap, reno_growth, cwnd0) -> str:
    return _peach(
        "recovery",
        "cost",
        peach_gap=peach_gap,
        peach_growth=peach_growth,
        reno_gap=reno_gap,
        reno_growth=reno_growth,
        cwnd0=cwnd0,
    )


def test_peach_link_error_cost_follows_the_gaps():
    steady = link_error_cost_text(24.5, 0.0, 71.8, 13.0, 30.0)
    assert "a gap that no longer grows once its window is back" in steady
    assert "NewReno's gap grows by about 13 segments per RTT" in steady
    assert "cost it more than the paper's accounting (15)" in steady
    growing = link_error_cost_text(14.0, 3.0, 71.8, -2.0, 30.0)
    assert "a gap that still grows by about 3.0 segments per RTT" in growing
    assert "no longer grows" not in growing
    assert "NewReno's gap shrinks by about 2 segments per RTT" in growing
    assert "cost it no more than the paper's accounting (15) here" in growing


def test_peach_fig9_overlap_follows_the_largest_gap():
    overlap = _peach("recovery", "overlap", max_gap=1.0)
    assert "the curves overlap after the recovery, as in the paper" in overlap
    apart = _peach("recovery", "overlap", max_gap=5.0)
    assert "do not overlap" in apart
    assert "5.0 segments" in apart


def _lossy(name: str, **names) -> str:
    """The ADaLR lossy part's text ``name`` with made-up numbers."""
    return paper_run.text(adalr.PAPER, "lossy", name, **names)


def test_adalr_metrics_paragraph_follows_the_gains():
    # (delayed ACK, BER, goodput, TCP throughput, link throughput gains in %)
    together = _lossy(
        "metrics", metric_gains=[(True, 1e-5, 47.2, 44.6, 44.6), (False, 1e-5, 53.9, 54.1, 54.1)]
    )
    assert "move together." in together
    assert "nearly the same in the three metrics (within 2.6 percentage points" in together
    assert "TCP throughput gains with delayed ACK are within the thesis's 16%-61%" in together
    assert "goodput gains (up to +47.2%) are above the thesis's 27%" in together
    assert "satcp agrees with the larger TCP throughput figure" in together
    apart = _lossy(
        "metrics", metric_gains=[(True, 1e-5, 20.0, 70.0, 80.0), (False, 1e-5, 53.9, 54.1, 54.1)]
    )
    assert "do not move together." in apart
    assert "up to 60.0 percentage points apart" in apart
    assert "are outside the thesis's 16%-61%" in apart
    assert "goodput gains (up to +20.0%) are within the thesis's 27%" in apart
    assert "link throughput gains (up to +80.0%) are above the thesis's 73%" in apart
    assert "agrees with the larger" not in apart


def _gaps(part: str, **names) -> str:
    """TCP-R's "where satcp differs" of ``part`` with made-up numbers."""
    return paper_run.text(tcpr.PAPER, part, "gaps", **names)


def _multipath(first, factors, vs_rntcp, vs_dsack_ta, dup_tcpr, dup_rntcp) -> str:
    return _gaps(
        "multipath",
        fig4_first=first,
        fig4_factors=factors,
        fig5_vs_rntcp=vs_rntcp,
        fig5_vs_dsack_ta=vs_dsack_ta,
        dup_tcpr=dup_tcpr,
        dup_rntcp=dup_rntcp,
    )


def test_tcpr_multipath_gaps_follow_the_figures():
    seen = _multipath(True, (1.6, 3.8), 0.39, 0.75, 0.299, 0.0)
    assert "Fig. 4 holds in order" in seen
    assert "smaller factors than the paper's" in seen and "1.6-3.8 instead of 4-7" in seen
    assert "0.39 x RN-TCP's and 0.75 x DSACK-TA's" in seen
    assert "well below both" in seen and "duplicate ratio 0.299" in seen
    other = _multipath(False, (4.5, 8.0), 0.98, 1.2, 0.01, 0.0)
    assert "does not hold in order" in other
    assert "overlapping factors" in other
    assert "well below" not in other and "not below both by more than 10%" in other
    assert "larger factors" in _multipath(True, (7.5, 9.0), 1.0, 1.0, 0.0, 0.0)


def test_tcpr_multiflow_gaps_follow_the_shares():
    same = _gaps(
        "multiflow", spread=0.04, mean_thr=28.2, to_range=(0.041, 0.052), fr_range=(0.0002, 0.007)
    )
    assert "nearly the same share (about 28 kb/s per flow" in same
    assert "within 4.0% of each other" in same and "timeout ratios 4.1-5.2%" in same
    assert "fast-retransmit ratios 0.0-0.7%" in same
    apart = _gaps(
        "multiflow", spread=0.4, mean_thr=28.2, to_range=(0.0, 0.05), fr_range=(0.0, 0.01)
    )
    assert "shares differ (by up to 40.0% at one delay" in apart
    assert "nearly the same share" not in apart


def _conditions_gaps(**changes) -> str:
    base = dict(
        first6=True,
        first7=True,
        tcpr_to7=0.0002,
        hi7=1.55,
        kept8={"SACK": 0.91, "DSACK-R": 0.76},
        vs8={"DSACK-TA": 0.75, "RN-TCP": 0.95},
        nodelay8=0.001,
    )
    return _gaps("conditions", **{**base, **changes})


def test_tcpr_conditions_gaps_follow_the_figures():
    text = _conditions_gaps()
    assert "Figs. 6 and 7 hold in order" in text and "stays near zero" in text
    assert "not similar in satcp: TCP-R gets 1.55 x" in text
    assert "SACK keeps 0.91 x" in text and "DSACK-R keeps 0.76 x" in text
    assert "stays below DSACK-TA (0.75 x) rather than similar" in text
    assert "RN-TCP (" not in text  # 0.95: within SIMILAR, not "below"
    assert "equal within 0.1%" in text

    other = _conditions_gaps(
        first7=False,
        tcpr_to7=0.01,
        hi7=1.02,
        kept8={"SACK": 0.3, "DSACK-R": 0.2},
        vs8={"DSACK-TA": 1.0, "RN-TCP": 1.0},
        nodelay8=0.2,
    )
    assert "Fig. 7 does not hold in order" in other
    assert "does not stay near zero" in other
    assert "At BER 1e-5 the protocols are similar, as in the paper" in other
    assert "cannot hold" not in other and "stays below" not in other
    assert "within 20.0% of each other." in other and "bypass_refused_dn" not in other


def _linklevel_gaps(**changes) -> str:
    base = dict(
        first2=True,
        first3=True,
        factors3={"RN-TCP": 3.3, "DSACK-R": 3.3, "SACK": 3.7},
        es_lift={"10": 0.9, "11": 1.65},
        es_over_tcpr={"10": 1.8, "11": None},
        tcpr_fr=0.0034,
    )
    return _gaps("linklevel", **{**base, **changes})


def test_tcpr_linklevel_gaps_follow_the_figures():
    text = _linklevel_gaps()
    assert "The orderings of Figs. 2 and 3 hold" in text
    assert "larger than the paper's (RN-TCP 3.3 x (paper 2)" in text and "Karn" in text
    assert "from 0.9 s (Fig. 10), 1.65 s (Fig. 11)" in text
    assert "above TCP-R from 1.8 s (Fig. 10)" in text
    assert "ratio up to 0.0034" in text

    other = _linklevel_gaps(
        first3=False,
        factors3={"RN-TCP": 1.5, "DSACK-R": 3.3, "SACK": 3.7},
        es_lift={"10": None, "11": None},
        tcpr_fr=0.0,
    )
    assert "The ordering of Fig. 2 holds, that of Fig. 3 does not" in other
    assert "larger than the paper's" not in other and "RN-TCP 1.5 x (paper 2)" in other
    assert "does not lift RN-TCP-ES and DSACK-TAES" in other
    assert "fast retransmissions" not in other
    neither = _linklevel_gaps(first2=False, first3=False)
    assert "do not hold" in neither
    stays = _linklevel_gaps(es_over_tcpr={"10": None, "11": None})
    assert "TCP-R stays above them" in stays


def test_adalr_high_ber_timeouts_follow_the_counts():
    counts = {
        (1e-5, "adalr-sack"): (77.0, 190.0),
        (1e-5, "adalr-newreno"): (136.0, 160.0),
        (1e-5, "sack"): (140.0, 198.0),
        (1e-5, "newreno"): (284.0, 76.0),
    }
    text = _lossy("high_ber", counts=counts)
    assert "avoid many RTOs, most for NewReno" in text
    assert "ADaLR NewReno 136 RTOs / 160 fast recoveries" in text
    sack_most = _lossy("high_ber", counts={**counts, (1e-5, "newreno"): (150.0, 76.0)})
    assert "avoid many RTOs;" in sack_most and "most for NewReno" not in sack_most
    more = _lossy("high_ber", counts={**counts, (1e-5, "adalr-sack"): (150.0, 190.0)})
    assert "do not avoid RTOs" in more and "avoid many" not in more


def test_adalr_sack_vs_newreno_follows_the_times():
    grow = [
        ("FTP", 1e-6, 400.0, 420.0),
        ("FTP", 1e-5, 536.9, 770.1),
        ("HTTP", 1e-6, 12.0, 12.5),
        ("HTTP", 1e-5, 15.4, 20.6),
    ]
    assert "separate as the BER grows" in _lossy("sack_newreno", adalr_times=grow)
    one_ber = _lossy("sack_newreno", adalr_times=[("FTP", 1e-5, 536.9, 770.1)])
    assert "faster at each high BER shown" in one_ber and "as the BER grows" not in one_ber
    slower = _lossy("sack_newreno", adalr_times=[("FTP", 1e-5, 800.0, 770.1)])
    assert "not faster at every high BER" in slower
