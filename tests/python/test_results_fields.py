"""Results cut down to some fields (``satcp.results.picked_fields``, an
experiment's ``fields``): the core writes only those, the metrics that
read them give what the whole results give, and a table left out is an
error, not an empty table."""

from __future__ import annotations

import pytest

import satcp
from satcp.reproduce.peach.functions import flow_goodputs, web_run
from satcp.results import SCALARS, picked_fields
from satcp.scenario import load, to_json
from satcp.topology import peach_sec5

WEB = ["transfers.response_time_s", "flows.app", "flows.client.bytes_delivered"]


@pytest.fixture(scope="module")
def runs():
    """A web run with losses (finished and unfinished transfers), whole
    and cut down to what Peach's ``web_run`` reads."""
    sc = load(
        peach_sec5(
            ["sack", "peach-sack"],
            ploss=0.01,
            duration_s=20.0,
            app={"kind": "web", "segments": 20, "think_time_s": 0.5, "think_time": "exponential"},
            name="fields",
        )
    )
    text = to_json(sc)
    return satcp._run_resolved(sc, text), satcp._run_resolved(sc, text, fields=picked_fields(WEB))


def test_the_fields_are_checked_and_the_single_values_always_kept():
    assert picked_fields(["flows.server.timeouts"]) == (*SCALARS, "flows.server.timeouts")
    assert picked_fields(["flows.variant_counters.anything"])[-1].endswith("anything")
    for bad, message in [
        ("flow.app", "the results have no 'flow'"),
        ("flows.nope", "a flows row has no 'nope'"),
        ("flows.server.nope", "a flows row has no 'nope'"),
        ("links.stats.drops", "a links row has no 'drops'"),
    ]:
        with pytest.raises(ValueError, match=message):
            picked_fields([bad])


def test_only_the_named_fields_come_back(runs):
    whole, cut = runs
    assert set(cut.raw) == {*SCALARS, "transfers", "flows"}
    assert all(set(f) == {"app", "client"} for f in dict.__getitem__(cut.raw, "flows"))
    assert len(cut.raw_json) * 10 < len(whole.raw_json)
    for name in SCALARS:
        assert cut.raw[name] == whole.raw[name]


def test_web_run_reads_the_same_numbers_from_either(runs):
    whole, cut = runs
    assert 0 < web_run(whole, 20).completed < web_run(whole, 20).transfers  # some unfinished
    assert web_run(cut, 20) == web_run(whole, 20)
    assert flow_goodputs(cut) == flow_goodputs(whole)


def test_a_table_left_out_is_an_error_naming_the_fields(runs):
    _, cut = runs
    with pytest.raises(KeyError, match=r"'links' was not asked for \(fields: name, seed"):
        cut.raw.get("links")
    with pytest.raises(KeyError, match=r"flows\.client\.bytes_delivered"):
        cut.links  # noqa: B018
    assert repr(cut).startswith("<Results 'fields' seed=")  # a repr does not raise


def test_run_json_fields_is_run_json_rows_results_part():
    """`_core.run_json_fields`, what a reproduction's runs call, gives the
    same text as the results half of the sweep's `run_json_row`."""
    from satcp import _core

    text = to_json(load(peach_sec5(["sack"], ploss=0.01, duration_s=5.0, name="fields-text")))
    fields = list(picked_fields(WEB))
    assert _core.run_json_fields(text, fields) == _core.run_json_row(text, fields)[1]
