"""Scenario loading and --set overrides (no simulation runs)."""

from __future__ import annotations

import math

import pytest
from conftest import FTP, run_cli

from satcp import ScenarioError
from satcp.scenario import (
    apply_override,
    load,
    parse_override,
    parse_path,
    parse_value,
    to_json,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1", 1),
        ("-5", -5),
        ("1_000_000", 1_000_000),
        ("1e-6", 1e-6),
        ("10e6", 10e6),
        ("2.5", 2.5),
        ("true", True),
        ("false", False),
        ('"quoted"', "quoted"),
        ("'single'", "single"),
        ("newreno", "newreno"),
        ("two words", "two words"),
        ("", ""),
        ("[1, 2, 3]", [1, 2, 3]),
        ('{ rate_bps = 1e6, queue = "priority" }', {"rate_bps": 1e6, "queue": "priority"}),
        ("1979-05-27", "1979-05-27"),
    ],
)
def test_parse_value(raw, expected):
    value = parse_value(raw)
    assert value == expected
    assert type(value) is type(expected)


def test_parse_value_inf_is_float():
    assert math.isinf(parse_value("inf"))


@pytest.mark.parametrize(
    ("key", "path"),
    [
        ("seed", ["seed"]),
        ("tcp.variant", ["tcp", "variant"]),
        ("links[1].ab.errors.ber", ["links", 1, "ab", "errors", "ber"]),
        ("apps[0].file_bytes", ["apps", 0, "file_bytes"]),
        ("a[0][2].b", ["a", 0, 2, "b"]),
        ("links[satellite].ab.delay_s", ["links", "satellite", "ab", "delay_s"]),
    ],
)
def test_parse_path(key, path):
    assert parse_path(key) == path


@pytest.mark.parametrize("key", ["links[].ber", "links[-1].ber", "a..b", ".a", "a.", "a[1", "a b"])
def test_parse_path_rejects(key):
    with pytest.raises(ScenarioError, match="bad --set key"):
        parse_path(key)


def test_parse_override_splits_at_first_equals():
    assert parse_override("name=a=b") == (["name"], "a=b")
    assert parse_override(" tcp.delayed_ack = false ") == (["tcp", "delayed_ack"], False)


@pytest.mark.parametrize("text", ["novalue", "=5", ""])
def test_parse_override_needs_key_and_equals(text):
    with pytest.raises(ScenarioError, match="expected KEY=VALUE"):
        parse_override(text)


def test_apply_override_sets_nested_and_creates_tables():
    sc = {"links": [{"a": "x"}, {"a": "y", "ab": {"rate_bps": 1.0}}], "apps": [{}]}
    apply_override(sc, ["links", 1, "ab", "errors", "ber"], 1e-6)
    apply_override(sc, ["tcp", "variant"], "newreno")
    apply_override(sc, ["apps", 0, "tcp", "delayed_ack"], False)
    apply_override(sc, ["links", 0], {"a": "z"})
    assert sc["links"][1]["ab"] == {"rate_bps": 1.0, "errors": {"ber": 1e-6}}
    assert sc["tcp"] == {"variant": "newreno"}
    assert sc["apps"][0]["tcp"] == {"delayed_ack": False}
    assert sc["links"][0] == {"a": "z"}


def test_apply_override_missing_index_names_the_path():
    sc = {"links": [{}, {}]}
    with pytest.raises(ScenarioError, match=r"links\[5\]\.ber: links\[5\] does not exist"):
        apply_override(sc, ["links", 5, "ber"], 0.1)
    with pytest.raises(ScenarioError, match=r"apps\[0\]\.x: apps does not exist"):
        apply_override(sc, ["apps", 0, "x"], 1)


def test_apply_override_type_mismatch():
    sc = {"nodes": ["a"], "seed": 1}
    with pytest.raises(ScenarioError, match="nodes is not a table"):
        apply_override(sc, ["nodes", "x"], 1)
    with pytest.raises(ScenarioError, match="seed is not a list"):
        apply_override(sc, ["seed", 0], 1)


def test_load_file_with_overrides_and_seed():
    sc = load(
        FTP,
        [
            "tcp.variant=newreno",
            "links[1].ab.errors.ber=1e-6",
            "apps[0].file_bytes=1000000",
            "tcp.delayed_ack=false",
        ],
        seed=7,
    )
    assert sc["tcp"] == {"variant": "newreno", "delayed_ack": False}
    assert sc["links"][1]["ab"] == {"rate_bps": 2.048e6, "errors": {"ber": 1e-6}}
    assert sc["apps"][0]["file_bytes"] == 1_000_000
    assert sc["seed"] == 7


def test_load_copies_a_dict():
    base = {"nodes": ["a"], "tcp": {"variant": "sack"}}
    sc = load(base, ["tcp.variant=newreno"])
    assert base["tcp"]["variant"] == "sack"
    assert sc["tcp"]["variant"] == "newreno"


def test_load_single_override_string():
    assert load({"a": 1}, "a=2") == {"a": 2}


def test_load_toml_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nseed = = 3\n')
    with pytest.raises(ScenarioError) as info:
        load(bad)
    msg = str(info.value)
    assert str(bad) in msg
    assert "line 2" in msg
    assert "\n" not in msg


def test_load_missing_file():
    with pytest.raises(FileNotFoundError):
        load("/nonexistent/scenario.toml")


def test_load_rejects_bad_seed():
    with pytest.raises(ScenarioError, match="seed"):
        load({}, seed=-1)


def test_to_json_rejects_non_finite():
    with pytest.raises(ScenarioError, match=r"links\[0\]\.errors\.ber: inf"):
        to_json({"links": [{"errors": {"ber": float("inf")}}]})
    assert to_json({"a": [1, 2.5, "x", True, None]}) == '{"a": [1, 2.5, "x", true, null]}'


def test_a_link_is_named_by_its_name_or_its_ends():
    """``links[NAME]``: the link named so, or an unnamed link by ``a-b``;
    the same scenario as by index."""
    by_name = load(FTP, ["links[satellite].ab.errors.ber=1e-6", "links[ethernet].delay_s=0.02"])
    by_index = load(FTP, ["links[1].ab.errors.ber=1e-6", "links[0].delay_s=0.02"])
    assert by_name == by_index
    sc = {"links": [{"a": "x", "b": "y"}, {"name": "sat", "a": "y", "b": "z"}]}
    apply_override(sc, parse_path("links[x-y].delay_s"), 0.5)
    apply_override(sc, parse_path("links[sat].delay_s"), 0.25)
    assert [lk.get("delay_s") for lk in sc["links"]] == [0.5, 0.25]


def test_an_unknown_link_name_is_one_line_and_exit_2(tmp_path):
    with pytest.raises(
        ScenarioError, match=r"links\[sat\]\.delay_s: .*'sat' .*ethernet, satellite"
    ):
        load(FTP, ["links[sat].delay_s=1"])
    out = tmp_path / "out"
    proc = run_cli("run", FTP, "--set", "links[sat].delay_s=1", "--out", out)
    assert proc.returncode == 2
    assert proc.stderr.startswith("satcp: error: bad --set links[sat].delay_s")
    assert "'sat'" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not out.exists() and proc.stdout == ""
