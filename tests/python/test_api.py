"""The Python API: run, run_many, Results."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from conftest import FTP, SMALL_FTP

import satcp
from satcp import ScenarioError
from satcp.results import Results


@pytest.fixture(scope="module")
def small_run() -> Results:
    return satcp.run(FTP, overrides=SMALL_FTP, sample_interval_s=0.5)


def test_variants():
    assert {"sack", "newreno"} <= set(satcp.variants())


def test_run_completes_the_download(small_run):
    r = small_run
    assert r.apps_done
    t = r.transfers
    assert list(t.columns) == [
        "app",
        "app_name",
        "kind",
        "index",
        "conn",
        "start_s",
        "end_s",
        "response_time_s",
        "bytes",
        "outcome",
    ]
    assert len(t) == 1
    assert t.loc[0, "outcome"] == "done"
    assert t.loc[0, "kind"] == "ftp"
    assert t.loc[0, "bytes"] == 200_000
    # at most one 64 KB window per ~0.53 s round trip: 200 kB takes > 2 s
    assert 2.0 < t.loc[0, "response_time_s"] < 10.0
    assert r.flows.loc[0, "client_bytes_delivered"] == 200_000
    assert r.wall_time_s is not None and r.wall_time_s > 0


def test_flow_and_link_columns_are_flattened(small_run):
    flows = small_run.flows
    for col in [
        "conn",
        "variant",
        "goodput_bps",
        "server_retransmitted_segments",
        "server_fast_retransmits",
        "server_timeouts",
        "client_bytes_delivered",
    ]:
        assert col in flows.columns
    assert "server" not in flows.columns and "client" not in flows.columns
    assert flows.loc[0, "variant"] == "sack"

    links = small_run.links
    for col in ["link", "name", "from", "to", "rate_bps", "throughput_bps", "utilization"]:
        assert col in links.columns
    for col in ["rx_bytes", "tx_packets", "queue_drops", "corrupted", "busy_ns"]:
        assert col in links.columns
    assert "stats" not in links.columns
    assert len(links) == 4  # two links, two directions each
    assert links["name"].tolist() == ["ethernet:ab", "ethernet:ba", "satellite:ab", "satellite:ba"]


def test_series_frames(small_run):
    fs, ls = small_run.flow_series, small_run.link_series
    assert {"time_s", "conn", "cwnd", "ssthresh", "srtt_s", "rcv_nxt"} <= set(fs.columns)
    assert {"time_s", "link", "rx_bytes", "throughput_bps", "utilization"} <= set(ls.columns)
    assert len(fs) > 5
    assert fs["time_s"].is_monotonic_increasing


def test_summary(small_run):
    text = small_run.summary()
    assert "Transfers" in text and "Flows" in text and "Links" in text
    assert "response s" in text and "goodput kb/s" in text and "util %" in text
    assert "satellite:ab" in text
    assert "events/s" in text


def test_same_seed_same_results():
    a = satcp.run(FTP, overrides=[*SMALL_FTP, "links[1].ab.errors.ber=1e-5"], seed=3)
    b = satcp.run(FTP, overrides=[*SMALL_FTP, "links[1].ab.errors.ber=1e-5"], seed=3)
    assert a.raw_json == b.raw_json


def test_other_seed_changes_results_with_ber():
    ber = "links[1].ab.errors.ber=1e-5"
    runs = [satcp.run(FTP, overrides=[*SMALL_FTP, ber], seed=s) for s in (1, 2)]
    corrupted = [r.links["corrupted"].sum() for r in runs]
    assert all(c > 0 for c in corrupted)
    payload = [{k: v for k, v in r.raw.items() if k != "seed"} for r in runs]
    assert payload[0] != payload[1]


def test_run_accepts_a_dict(small_ftp):
    r = satcp.run(small_ftp, overrides=["tcp.variant=newreno"])
    assert r.flows.loc[0, "variant"] == "newreno"
    assert r.scenario["tcp"]["variant"] == "newreno"
    assert small_ftp["tcp"]["variant"] == "sack"  # the caller's dict is not changed


def test_run_bad_scenario_raises_scenario_error(small_ftp):
    message = r"links\[1\]\.ab\.errors\.ber: 1\.5 must be between 0 and 1"
    with pytest.raises(ScenarioError, match=message):
        satcp.run(small_ftp, overrides=["links[1].ab.errors.ber=1.5"])
    with pytest.raises(ValueError):  # ScenarioError is a ValueError
        satcp.run(small_ftp, overrides=["tcp.variant=foo"])


def test_validate(small_ftp):
    assert satcp.validate(small_ftp)["apps"][0]["file_bytes"] == 200_000
    with pytest.raises(ScenarioError, match="is not a known variant"):
        satcp.validate(small_ftp, overrides=["tcp.variant=foo"])


def test_run_many_keeps_order_and_matches_run(small_ftp):
    scenarios = [
        satcp.load(small_ftp, [f"tcp.variant={v}", f"apps[0].file_bytes={n}"])
        for v, n in [("sack", 100_000), ("newreno", 150_000), ("sack", 50_000)]
    ]
    many = satcp.run_many(scenarios, workers=2)
    assert [r.transfers.loc[0, "bytes"] for r in many] == [100_000, 150_000, 50_000]
    assert [r.flows.loc[0, "variant"] for r in many] == ["sack", "newreno", "sack"]
    assert many[1].raw_json == satcp.run(scenarios[1]).raw_json
    assert satcp.run_many([]) == []


def test_run_many_validates_before_running(small_ftp):
    bad = satcp.load(small_ftp, ["links[0].rate_bps=-5"])
    with pytest.raises(ScenarioError, match=r"scenario 1: .*links\[0\]\.rate_bps"):
        satcp.run_many([small_ftp, bad])


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_write(small_run, tmp_path, fmt):
    out = tmp_path / "out"
    small_run.write(out, fmt)
    names = sorted(os.listdir(out))
    tables = [
        "apps",
        "flow_series",
        "flows",
        "link_series",
        "links",
        "stalls",
        "transfers",
        "warnings",
    ]
    assert names == sorted([f"{t}.{fmt}" for t in tables] + ["results.json", "scenario.json"])
    read = pd.read_csv if fmt == "csv" else pd.read_parquet
    flows = read(out / f"flows.{fmt}")
    assert flows.loc[0, "server_retransmitted_segments"] == 0
    assert len(read(out / f"flow_series.{fmt}")) == len(small_run.flow_series)
    # The core's JSON, with the provenance added as its last key.
    written = (out / "results.json").read_text()
    assert written.startswith(small_run.raw_json[:-1]) and '"provenance":' in written
    without = json.loads(written)
    del without["provenance"]
    assert without == json.loads(small_run.raw_json)
    scenario = json.loads((out / "scenario.json").read_text())
    assert scenario["apps"][0]["file_bytes"] == 200_000
    assert scenario["sample_interval_s"] == 0.5
    # no temporary directory is left behind
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_write_replaces_files_of_an_existing_dir(small_run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "flows.csv").write_text("old")
    (out / "notes.txt").write_text("mine")
    small_run.write(out)
    assert (out / "flows.csv").read_text().startswith("conn,")
    assert (out / "notes.txt").read_text() == "mine"


def test_write_failure_leaves_nothing(small_run, tmp_path, monkeypatch):
    def boom(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(satcp.frame_files.Frame, "write_parquet", boom)
    out = tmp_path / "new"
    with pytest.raises(OSError):
        small_run.write(out, "parquet")
    assert sorted(os.listdir(tmp_path)) == []

    out.mkdir()
    (out / "flows.parquet").write_text("old")
    with pytest.raises(OSError):
        small_run.write(out, "parquet")
    assert sorted(os.listdir(out)) == ["flows.parquet"]
    assert (out / "flows.parquet").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["new"]


def test_write_rejects_unknown_format(small_run, tmp_path):
    with pytest.raises(ValueError, match="unknown format"):
        small_run.write(tmp_path / "x", "xlsx")
    assert not (tmp_path / "x").exists()


def test_results_from_dict_and_empty_tables():
    r = Results({"name": "empty", "seed": 1, "transfers": [], "flows": [], "links": []})
    assert r.transfers.empty and r.flows.empty and r.links.empty
    assert r.response_times().empty
    assert "empty" in r.summary()


def test_router_functions_and_variant_counters_from_a_scenario(tmp_path):
    """[[routers]] entries and a variant's counters, through the Python API:
    the worked example's gateway records the lost second segment, the
    receiver echoes it, the sender resends it at once."""
    sc = {
        "name": "example",
        "nodes": ["server", "gw", "client"],
        "links": [
            {
                "a": "server",
                "b": "gw",
                "rate_bps": 10e6,
                "delay_s": 0.005,
                "ab": {"errors": {"drop_seqs": [1001]}},
            },
            {"a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25},
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 100_000}],
        "tcp": {"variant": "example", "mss": 1000, "initial_window": 4},
        "routers": [{"node": "gw", "kind": "example-drop-recorder"}],
    }
    r = satcp.run(sc)
    f = r.flows.iloc[0]
    assert f["counter_presumed_lost_by_echo"] == 1
    assert f["server_fast_retransmits"] == 0 and f["server_timeouts"] == 0
    r.write(tmp_path / "out", fmt="parquet")
    assert (tmp_path / "out" / "flows.parquet").exists()
    with pytest.raises(ScenarioError, match=r"routers\[0\]\.kind"):
        satcp.run({**sc, "routers": [{"node": "gw", "kind": "nope"}]})


def test_variant_families_are_listed():
    from satcp import _core

    fams = {f[0]: f for f in _core.variant_families()}
    assert {"reno", "adalr", "peach", "faststart", "slowstart"} <= set(fams)
    assert "example" not in fams
    assert "sack" in fams["reno"][3]


def test_run_many_applies_overrides_to_every_scenario(small_ftp):
    """A dict of dotted keys, as ``--set`` names them, with Python values;
    the same as the override strings :func:`satcp.run` takes."""
    other = satcp.load(small_ftp, ["apps[0].file_bytes=100000"])
    many = satcp.run_many(
        [small_ftp, other],
        overrides={"tcp.variant": "newreno", "links[satellite].ab.errors.ber": 1e-7},
    )
    assert [r.flows.loc[0, "variant"] for r in many] == ["newreno", "newreno"]
    assert [r.transfers.loc[0, "bytes"] for r in many] == [200_000, 100_000]
    assert [r.scenario["links"][1]["ab"]["errors"]["ber"] for r in many] == [1e-7, 1e-7]
    one = satcp.run(small_ftp, overrides=["tcp.variant=newreno", "links[1].ab.errors.ber=1e-7"])
    assert many[0].raw_json == one.raw_json
    strings = satcp.run_many([small_ftp], overrides=["tcp.variant=newreno"])
    assert strings[0].flows.loc[0, "variant"] == "newreno"


def test_run_many_runs_each_scenario_once_per_seed_scenario_major(small_ftp):
    other = satcp.load(small_ftp, ["apps[0].file_bytes=100000"])
    ber = {"links[1].ab.errors.ber": 1e-6}
    many = satcp.run_many([small_ftp, other], overrides=ber, seeds=[3, 4, 5], workers=2)
    assert [(r.scenario["apps"][0]["file_bytes"], r.scenario["seed"]) for r in many] == [
        (200_000, 3),
        (200_000, 4),
        (200_000, 5),
        (100_000, 3),
        (100_000, 4),
        (100_000, 5),
    ]
    assert (
        many[4].raw_json
        == satcp.run(other, overrides=["links[1].ab.errors.ber=1e-6"], seed=4).raw_json
    )
    with pytest.raises(ScenarioError, match=r"scenario 0 seed 3: .*rate_bps"):
        satcp.run_many([small_ftp, other], overrides={"links[0].rate_bps": -5}, seeds=[3])
    with pytest.raises(TypeError, match="sequence of seeds"):
        satcp.run_many([small_ftp], seeds=3)


def test_the_public_namespace_is_all():
    """``dir(satcp)``'s public names are ``__all__`` and submodules; a fresh
    interpreter, so that the submodules other tests import do not count, and
    the lazy names resolve."""
    import subprocess
    import sys

    probe = (
        "import json, types, satcp; "
        "names = [n for n in dir(satcp) if not n.startswith('_')]; "
        "mods = [n for n in names if isinstance(getattr(satcp, n), types.ModuleType)]; "
        "print(json.dumps([satcp.__all__, names, mods]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=600
    ).stdout
    all_, names, mods = json.loads(out)
    assert sorted(all_) == all_
    assert set(names) - set(mods) == set(all_) - {"__version__"}
    for name in all_:
        assert getattr(satcp, name) is not None, name
    assert not {"run_many", "run", "Results", "load"} & set(mods)


def test_repr_html_summarizes_flows_links_and_warnings(small_run):
    """The notebook view: per flow variant, goodput in Mb/s, retransmissions
    and timeouts; per link direction drops by cause; the reasons and
    warnings; every text from the run escaped."""
    from html.parser import HTMLParser

    raw = json.loads(small_run.raw_json)
    raw["name"] = "<script>alert(1)</script>"
    raw["flows"][0]["variant"] = "a&b"
    raw["flows"][0]["server"]["retransmitted_segments"] = 17
    raw["flows"][0]["server"]["timeouts"] = 4
    raw["links"][2]["stats"]["queue_drops"] = 31
    raw["links"][2]["stats"]["corrupted"] = 5
    raw["apps"][0]["why"] = "1 transfer aborted (conn 0: <gave up>)"
    raw["warnings"] = [{"kind": "rto", "subject": "conn 0", "message": "RTO backed off to 64 s"}]
    html = Results(raw)._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "a&amp;b" in html and "&lt;gave up&gt;" in html
    assert "warning: conn 0: RTO backed off to 64 s" in html

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.open = [], []

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            self.open.append(tag)

        def handle_endtag(self, tag):
            assert self.open.pop() == tag, tag  # well nested

        def handle_data(self, data):
            if self.open and self.open[-1] in ("td", "th"):
                self.rows[-1].append(data)

    p = Cells()
    p.feed(html)
    assert p.open == []
    header = p.rows[0]
    assert header == [
        "conn",
        "app",
        "variant",
        "goodput Mb/s",
        "retransmitted segments",
        "timeouts",
    ]
    goodput = f"{raw['flows'][0]['goodput_bps'] / 1e6:.3f}"
    assert p.rows[1] == ["0", "ftp0", "a&b", goodput, "17", "4"]
    assert p.rows[2] == ["link", "direction", "queue", "congestion", "corrupted", "lost"]
    assert p.rows[5] == ["satellite:ab", "gateway -> client", "31", "0", "5", "0"]


def test_load_copies_a_dict_so_overrides_and_seeds_leave_it_alone(small_ftp):
    base = satcp.load(small_ftp)
    link = base["links"][1]
    # one table reused for two links: an override of one changes only it
    base["links"] = [base["links"][0], link, link]
    base["nodes"] = tuple(base["nodes"])
    before = json.dumps(base, sort_keys=True)
    sc = satcp.load(base, ["links[1].ab.errors.ber=1e-6"], seed=9)
    assert json.dumps(base, sort_keys=True) == before
    assert sc["links"][1]["ab"]["errors"]["ber"] == 1e-6
    assert "errors" not in (sc["links"][2].get("ab") or {})
    assert sc["links"][2] is not base["links"][2]
    assert sc["nodes"] == base["nodes"]
    assert sc["seed"] == 9


@pytest.mark.parametrize(
    ("where", "bad", "message"),
    [
        ("duration_s", float("inf"), r"duration_s: inf is not a finite number"),
        ("links", [{"a": "x", "b": object()}], r"links\[0\]\.b: <object .*> is not a JSON value"),
        ("tcp", {1: 2}, r"tcp: key 1 is not a string"),
    ],
)
def test_values_json_cannot_carry_are_named_by_their_field(small_ftp, where, bad, message):
    sc = satcp.load(small_ftp)
    sc[where] = bad
    with pytest.raises(ScenarioError, match=message):
        satcp.scenario.to_json(sc)
    assert satcp.scenario._is_json(sc) is False
    del sc[where]
    assert satcp.scenario._is_json(sc) is True


def test_work_done_while_a_run_goes_on_is_not_its_wall_time(small_ftp):
    """`satcp run --out` imports what writing needs and finds the commit
    while the core runs (``meanwhile``): the results are the run's, and
    its wall time is the run's, not that work's (a few ms, not 1 s)."""
    import time

    from satcp.scenario import to_json

    done = []

    def meanwhile():
        time.sleep(1.0)
        done.append(True)

    r = satcp._run_resolved(small_ftp, to_json(small_ftp), meanwhile=meanwhile)
    assert done == [True]
    assert r.wall_time_s < 1.0
    assert r.raw == satcp.run(small_ftp).raw
