"""The reproductions' metrics that sum the results' flow rows
(``peach.functions.flow_goodputs`` and ``web_run``,
``metrics.flow_rates``, ``adalr.functions.lossy_metrics``) give what the tables give: they read
the rows instead of building the tables only for speed
(docs/performance.md, "The paper set")."""

from __future__ import annotations

import math

import pytest

import satcp
from satcp.reproduce.adalr.functions import lossy_metrics, satellite_link
from satcp.reproduce.metrics import flow_rates
from satcp.reproduce.peach.functions import MSS, flow_goodputs
from satcp.reproduce.peach.functions import web_run as web_run_of
from satcp.topology import peach_sec5, thesis_network


@pytest.fixture(scope="module")
def web_run():
    """Two variants, three applications of short web transfers with
    losses: a connection per file, so each application has many rows."""
    sc = peach_sec5(
        ["sack", "peach-sack", "sack"],
        ploss=0.01,
        duration_s=30.0,
        app={"kind": "web", "segments": 20, "think_time_s": 0.5, "think_time": "exponential"},
        name="flow-sums",
    )
    return satcp.run(sc)


def test_flow_goodputs_is_the_flows_tables_sum_per_application(web_run):
    flows = web_run.flows
    assert flows["app"].value_counts().min() > 5  # many connections per application
    per_app = flows.groupby("app")["client_bytes_delivered"].sum().sort_index()
    expected = [float(b) / MSS / float(web_run.end_time_s) for b in per_app]
    assert len(expected) == 3
    assert flow_goodputs(web_run) == expected


def test_web_run_reads_the_transfers_tables_times(web_run):
    tr = web_run.transfers
    done = tr["response_time_s"].dropna().astype(float)
    assert 0 < len(done) < len(tr)  # finished transfers and unfinished ones
    total = float(sum(done))
    mine = web_run_of(web_run, 20)
    assert (mine.transfers, mine.completed) == (len(tr), len(done))
    assert mine.t_avg == total / len(done)
    assert mine.transfer_goodput == 20 * len(done) / total
    assert mine.goodput == sum(flow_goodputs(web_run))


@pytest.mark.parametrize("variant", [None, "sack", "peach-sack"])
def test_flow_rates_are_the_flows_tables_sums(web_run, variant):
    flows = web_run.flows
    mine = flows[flows["variant"] == variant] if variant else flows
    sent = float(mine["server_data_segments_sent"].sum()) or 1.0
    expected = (
        float(mine["client_bytes_delivered"].sum()) * 8 / 30.0 / 1000.0 / len(mine),
        float(mine["server_fast_retransmits"].sum()) / sent,
        float(mine["server_timeouts"].sum()) / sent,
        float(mine["client_duplicate_segments_received"].sum()) / sent,
    )
    assert expected[1] > 0  # losses: the counters are not all zero
    assert flow_rates(web_run, 30.0, variant) == expected


def _lossy_metrics_from_tables(app, run):
    """``lossy_metrics`` as it read the data frames before it read rows."""
    links, flows = run.links, run.flows
    down = links[(links["from"] == "gateway") & (links["to"] == "client")].iloc[0]
    out = {}
    if app == "ftp":
        rt, f = run.transfers.iloc[0]["response_time_s"], flows.iloc[0]
        out["ftp_response_time_s"] = float(rt) if rt is not None and rt == rt else math.nan
        out["goodput_bps"] = float(f["goodput_bps"])
        out["tcp_throughput_Bps"] = float(f["throughput_bps"]) / 8.0
        out["link_throughput_bps"] = float(down["throughput_bps"])
        out["link_utilization_pct"] = 100.0 * float(down["utilization"])
        out["ftp_retransmitted_segments"] = float(f["server_retransmitted_segments"])
    else:
        times = run.response_times("http")
        out["http_page_response_time_s"] = float(times.mean()) if len(times) else math.nan
        pages = int((run.transfers["kind"] == "http").sum())
        out["http_pages_unfinished"] = float(pages - len(times))
    out[f"{app}_timeouts"] = float(flows["server_timeouts"].sum())
    out[f"{app}_recovery_episodes"] = float(flows["server_fast_retransmits"].sum())
    out[f"{app}_queue_drops"] = float(down["queue_drops"])
    return out


@pytest.mark.parametrize(
    ("app", "duration_s"),
    [("ftp", None), ("ftp", 20.0), ("http", 300.0)],
    ids=["ftp-finished", "ftp-unfinished", "http"],
)
def test_lossy_metrics_read_from_rows_are_the_tables(app, duration_s):
    """An FTP download that finishes and one cut short (no response
    time), and HTTP pages over many connections, with bit errors and a
    small gateway buffer (drops, timeouts, recoveries)."""
    sc = thesis_network(
        app,
        variant="sack",
        file_bytes=2_000_000,
        gateway_buffer_packets=2,
        satellite_ber=1e-6,
        sample_interval_s=0.0,
        duration_s=duration_s,
    )
    run = satcp.run(sc)
    mine, expected = lossy_metrics(app, run), _lossy_metrics_from_tables(app, run)
    assert list(mine) == list(expected)
    for k, v in expected.items():
        assert mine[k] == v or (math.isnan(mine[k]) and math.isnan(v)), k
    assert mine[f"{app}_recovery_episodes"] > 0 and mine[f"{app}_queue_drops"] > 0
    if app == "http":
        assert len(run.raw["flows"]) > 1  # a connection per page
    if duration_s == 20.0:
        assert math.isnan(mine["ftp_response_time_s"])


def test_satellite_link_is_the_links_tables_row():
    """The downlink's row built from the results' row has the table row's
    columns and values (with bit errors: the counters are not all zero)."""
    sc = thesis_network(
        "ftp", variant="sack", file_bytes=500_000, satellite_ber=1e-6, sample_interval_s=0.0
    )
    run = satcp.run(sc)
    links = run.links
    table_row = links[(links["from"] == "gateway") & (links["to"] == "client")].iloc[0]
    mine = satellite_link(run)
    assert list(mine.index) == list(table_row.index)
    assert mine["corrupted"] > 0 and mine["link"] == table_row["link"]
    for column, value in mine.items():
        assert value == table_row[column], column


def test_sec5_counters_read_from_rows_are_the_tables(web_run):
    """Peach's Sec. V counters: the flows' and the satellite channel's, as
    the tables summed them."""
    from satcp.reproduce.peach.functions import Counters, sec5_counters

    f, links = web_run.flows, web_run.links
    sat = links[links["name"] == "satellite:ab"].iloc[0]
    expected = Counters(
        sum(flow_goodputs(web_run)),
        int(f["server_data_segments_sent"].sum()),
        int(f["server_extra_segments_sent"].sum()),
        int(f["server_retransmitted_segments"].sum()),
        int(f["server_timeouts"].sum()),
        int(f["server_fast_retransmits"].sum()),
        int(sat["queue_drops"]),
        int(sat["lost"] + sat["corrupted"]),
        float(sat["utilization"]),
    )
    mine = sec5_counters(web_run)
    assert mine == expected
    assert mine.dummies > 0 and mine.retransmissions > 0 and mine.link_losses > 0
