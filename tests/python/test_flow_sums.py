"""The reproductions' metrics that sum the results' flow rows
(``peach.functions.flow_goodputs``, ``metrics.flow_rates``) give what the
flows table gives: they read the rows instead of building the table only for
speed (docs/performance.md, "The paper set")."""

from __future__ import annotations

import pytest

import satcp
from satcp.reproduce.metrics import flow_rates
from satcp.reproduce.peach.functions import MSS, flow_goodputs
from satcp.topology import peach_sec5


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
