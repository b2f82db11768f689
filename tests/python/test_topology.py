"""The topology library (satcp.topology): links, the shapes, the named
networks."""

from __future__ import annotations

import pytest
from conftest import FTP, HTTP

import satcp
from satcp import topology
from satcp.topology import bent_pipe, dumbbell, link, link_options, merge_options


def test_link_options_pass_through_as_the_core_reads_them():
    opts = link_options(
        rate_bps=2e6,
        queue="red",
        errors={"ber": 1e-6, "data_only": True, "loss": None},
        reorder={"prob": 0.04, "delay": "normal", "mean_s": 0.3, "sd_s": 0.1},
        red={"min_th": 5.0},
        priority={"push_out": False},
        arq={"attempts": 3, "recover_all": None},
        congestion_loss=None,
        delay_schedule=[[0.0, 0.25]],
    )
    assert opts == {
        "rate_bps": 2e6,
        "queue": "red",
        "errors": {"ber": 1e-6, "data_only": True},
        "reorder": {"prob": 0.04, "delay": "normal", "mean_s": 0.3, "sd_s": 0.1},
        "red": {"min_th": 5.0},
        "priority": {"push_out": False},
        "arq": {"attempts": 3},
        "delay_schedule": [[0.0, 0.25]],
    }
    # A table whose fields are all None is left out; an empty one is kept.
    assert link_options(errors={"ber": None}, arq={}) == {"arq": {}}


def test_link_keys_are_checked_by_the_core():
    # The library spells no key: a wrong one reaches the core, whose error
    # names the path and, for an old flat key, the new one.
    sc = topology.thesis_network(duration_s=1.0)
    sc["links"][1]["ab"] |= link_options(ber=1e-6)
    with pytest.raises(satcp.ScenarioError, match=r"links\[1\]\.ab\.ber: renamed to errors\.ber"):
        satcp.validate(sc)
    sc = topology.thesis_network(duration_s=1.0)
    sc["links"][1] |= link_options(errors={"bler": 1e-6})
    with pytest.raises(satcp.ScenarioError, match=r"links\[1\]\.errors\.bler"):
        satcp.validate(sc)


def test_link_and_merge():
    sat = link(
        "a",
        "b",
        name="sat",
        delay_s=0.25,
        errors={"corrupted_reach_next_node": True},
        ab=merge_options(
            {"errors": {"data_only": True, "gilbert_elliott": {"p": 0.1}}},
            {"errors": {"ber": 1e-7, "gilbert_elliott": {"r": 0.5}}, "reorder": None},
        ),
        ba={"rate_bps": 1e6},
    )
    assert sat == {
        "name": "sat",
        "a": "a",
        "b": "b",
        "delay_s": 0.25,
        "errors": {"corrupted_reach_next_node": True},
        "ab": {"errors": {"data_only": True, "gilbert_elliott": {"p": 0.1, "r": 0.5}, "ber": 1e-7}},
        "ba": {"rate_bps": 1e6},
    }
    assert "name" not in link("a", "b") and "ab" not in link("a", "b", ab={})


def test_shapes():
    links = bent_pipe(["s", "g", "c"], [{"rate_bps": 1e7}, {"delay_s": 0.25}], ["eth", None])
    assert [(x["a"], x["b"], x.get("name")) for x in links] == [("s", "g", "eth"), ("g", "c", None)]
    with pytest.raises(ValueError, match="3 nodes has 2 hops, not 1"):
        bent_pipe(["s", "g", "c"], [{}])
    nodes, links = dumbbell(
        2,
        {"rate_bps": 1e6},
        left="L",
        right="R",
        sender="s{i}",
        receiver="r{i}",
        access=lambda i: {"delay_s": i / 10},
        tail=lambda i: {},
        access_name="up{i}",
        bottleneck_last=True,
    )
    assert nodes == ["L", "R", "s0", "r0", "s1", "r1"]
    assert [(x["a"], x["b"], x.get("name")) for x in links] == [
        ("s0", "L", "up0"),
        ("R", "r0", None),
        ("s1", "L", "up1"),
        ("R", "r1", None),
        ("L", "R", None),
    ]
    assert links[2]["delay_s"] == 0.1


def test_the_thesis_network_is_the_shipped_scenarios():
    assert topology.thesis_network("ftp") == satcp.load(FTP)
    assert topology.thesis_network("http") == satcp.load(HTTP)


def test_every_named_network_is_a_valid_scenario():
    args = {
        "thesis_fairness": {"variants": ["sack"] * 6},
        "peach_sec5": {"variants": ["peach-sack", "sack"]},
        "peach_hetero": {"x_variant": "peach-sack", "y_variant": "sack"},
        "tcpr_network": {
            "variants": ["tcpr", "sack"],
            "bottleneck": {"reorder": {"prob": 0.04, "delay": "fixed", "mean_s": 0.3}},
            "gateway": "epdn-v3",
        },
        "slowstart_testbed": {"connections": 2},
    }
    presets = {"thesis_geo", "peach_geo", "starlink", "starlink_isl", "leo_trace"}
    for name in topology.NETWORKS:
        if name in presets:
            sc = topology.network(name, tcp={"variant": "sack"}, secs=20.0)
        else:
            sc = topology.network(name, **args.get(name, {}))
        satcp.validate(sc)
    with pytest.raises(topology.UnknownNetwork, match="unknown network 'mars' \\(known: thesis"):
        topology.network("mars")


def test_path_bounds():
    sc = topology.thesis_network("ftp")
    hops = topology.path_hops(sc, "server", "client")
    assert hops == [(0.010, 10e6, 10e6), (0.250, 2.048e6, 256e3)]
    b = topology.window_bound(sc)
    assert b.window_bytes == 44 * 1460 and b.total_s == pytest.approx(411.8, abs=0.05)
    assert topology.link_bound_s(sc) == pytest.approx(34247 * 1500 * 8 / 2.048e6 + 0.52)


def test_the_slowstart_router_readings():
    """The WFQ reading of the test-bed's router (docs/slowstart.md) is a
    per-flow DRR queue with the FIFO's size per flow; with one connection
    it is the same queue as the FIFO, so Table I does not depend on it."""
    fifo = topology.slowstart_testbed(1)
    wfq = topology.slowstart_testbed(1, router="wfq")
    sat = next(link for link in wfq["links"] if link.get("name") == "sat")
    assert sat["queue"] == "drr" and sat["drr"] == {"flow_limit_packets": 64}
    assert sat["queue_packets"] == topology.papers.SLOWSTART_WFQ_TOTAL_PACKETS == 1000
    one = [satcp.run(sc).transfers["response_time_s"].tolist() for sc in (fifo, wfq)]
    assert one[0] == one[1]
    with pytest.raises(ValueError, match="router: 'red'"):
        topology.slowstart_testbed(1, router="red")
