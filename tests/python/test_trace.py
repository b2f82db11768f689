"""Per-event traces from Python (docs/traces.md): ``satcp run --trace``,
the scenario's ``[trace]``, ``Results.trace``, ``trace.parquet``, and
``satcp plot`` on a run with a trace."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import FTP, SMALL_FTP, run_cli

import satcp
from satcp.trace import COLUMNS, KINDS, parse_kinds

# The thesis network with a 200 kB file and a bit error rate: losses,
# recoveries and retransmissions within a fast run.
LOSSY = [*SMALL_FTP, "links[satellite].ab.errors.ber=1e-6"]


def _run_args(out, *extra):
    args = ["run", FTP, "-q", "--out", out]
    for s in LOSSY:
        args += ["--set", s]
    return [*args, *extra]


def test_the_trace_kinds_are_the_cores():
    assert KINDS == (
        "cwnd",
        "ssthresh",
        "rtt",
        "srtt",
        "rto",
        "state",
        "retx",
        "queue",
        "queue_bytes",
    )
    assert parse_kinds("all") == list(KINDS)
    assert parse_kinds(" cwnd, rtt ,cwnd") == ["cwnd", "rtt"]
    with pytest.raises(ValueError, match="'cwin' is not a trace kind"):
        parse_kinds("cwnd,cwin")


def test_run_with_trace_writes_trace_parquet_and_leaves_the_rest_alone(tmp_path):
    off, on = tmp_path / "off", tmp_path / "on"
    assert run_cli(*_run_args(off)).returncode == 0
    p = run_cli(*_run_args(on, "--trace", "cwnd,rtt,queue,retx"))
    assert p.returncode == 0, p.stderr
    assert not (off / "trace.parquet").exists()
    # Every table is byte for byte the untraced run's; results.json too
    # but for its provenance (the scenario, with its [trace], differs).
    for f in sorted(off.glob("*.csv")):
        assert f.read_bytes() == (on / f.name).read_bytes(), f.name
    a, b = (json.loads((d / "results.json").read_text()) for d in (off, on))
    a.pop("provenance"), b.pop("provenance")
    assert a == b
    scenario = json.loads((on / "scenario.json").read_text())
    assert scenario["trace"] == {"kinds": ["cwnd", "rtt", "queue", "retx"]}

    t = pd.read_parquet(on / "trace.parquet")
    assert tuple(t.columns) == COLUMNS
    assert set(t.kind.astype(str)) == {"cwnd", "rtt", "queue", "retx"}
    assert t.time_s.is_monotonic_increasing
    conn_rows = t[t.kind != "queue"]
    assert conn_rows.link.isna().all() and conn_rows.conn.notna().all()
    assert set(conn_rows.side.astype(str)) == {"client", "server"}
    queue_rows = t[t.kind == "queue"]
    assert queue_rows.conn.isna().all() and queue_rows.link.notna().all()
    # The retransmission count ends at the flows table's.
    flows = pd.read_csv(on / "flows.csv")
    retx = t[(t.kind == "retx") & (t.side == "server")]
    assert retx.value.iloc[-1] == flows.server_retransmitted_segments.iloc[0] > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--trace", "cwnd,cwin"], "--trace: 'cwin' is not a trace kind (cwnd, ssthresh"),
        (["--trace", ","], "--trace: ',' names no trace kind"),
        (["--set", "trace.kinds=['cwin']"], "trace.kinds[0]: unknown variant `cwin`"),
        (["--set", "trace.start_s=-1", "--trace", "cwnd"], "trace.start_s: -1"),
    ],
)
def test_bad_trace_input_is_one_line_exit_2_and_nothing_written(tmp_path, extra, message):
    out = tmp_path / "out"
    p = run_cli(*_run_args(out, *extra))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("satcp: error: "), p.stderr
    assert message in p.stderr
    assert not out.exists()


def test_results_trace_from_the_api():
    r = satcp.run(FTP, overrides=LOSSY, trace=["cwnd", "state"])
    assert r.has_trace and r.trace_truncated_at_s is None
    t = r.trace
    assert set(t.kind.astype(str)) == {"cwnd", "state"}
    # Changes only: no two rows of one endpoint and kind hold one value in a row.
    for _, g in t.groupby(["kind", "conn", "side"], observed=True):
        assert (g.value.diff().iloc[1:] != 0).all()
    # The server went into recovery (2) and back to open (0).
    states = set(t[(t.kind == "state") & (t.side == "server")].value)
    assert {0.0, 2.0} <= states
    untraced = satcp.run(FTP, overrides=LOSSY)
    assert not untraced.has_trace and untraced.trace.empty
    assert list(untraced.trace.columns) == list(COLUMNS)
    assert untraced.raw_json == r.raw_json


def test_a_trace_that_reaches_max_rows_says_so(tmp_path):
    p = run_cli(*_run_args(tmp_path / "out", "--set", "trace.max_rows=10", "--trace", "cwnd"))
    assert p.returncode == 0, p.stderr
    assert "warning: the trace stopped at 10 rows (trace.max_rows) at t = " in p.stderr
    assert len(pd.read_parquet(tmp_path / "out" / "trace.parquet")) == 10


def test_plot_draws_the_trace(tmp_path):
    out = tmp_path / "out"
    # No time series (sample interval 0): the trace's figures only.
    p = run_cli(*_run_args(out, "--sample-interval", "0", "--trace", "all"))
    assert p.returncode == 0, p.stderr
    p = run_cli("plot", out)
    assert p.returncode == 0, p.stderr
    for name in ("trace-cwnd", "trace-rtt", "trace-queue"):
        png = out / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert not (out / "cwnd.png").exists()


def test_plot_refuses_a_trace_it_did_not_write(tmp_path):
    out = tmp_path / "out"
    assert run_cli(*_run_args(out, "--trace", "cwnd")).returncode == 0
    pd.DataFrame({"time_s": [0.0], "what": ["x"]}).to_parquet(out / "trace.parquet")
    p = run_cli("plot", out)
    assert p.returncode == 2
    assert "trace.parquet: no column 'kind'" in p.stderr
