"""The CLI's last line of defence (issue 31 item 5): an unexpected
exception, a bug in satcp, is one line ``satcp: internal error: ...`` with
exit status 70 and a hint to report it, never a traceback; and the inputs
that tracebacks were once found on are user errors (one line, exit 2)."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import FTP, SMALL_FTP, run_cli

from satcp import cli

SMALL = [a for o in SMALL_FTP for a in ("--set", o)]


class _FakePanic(BaseException):
    """Like pyo3's PanicException: a BaseException, not an Exception."""


@pytest.mark.parametrize("exc", [RuntimeError("boom\nsecond line"), _FakePanic("index 3")])
def test_an_unexpected_exception_is_one_line_and_exit_70(monkeypatch, capsys, exc):
    def broken() -> int:
        raise exc

    monkeypatch.delenv("SATCP_TRACEBACK", raising=False)
    monkeypatch.setattr(cli, "_cmd_variants", broken)
    assert cli.main(["variants"]) == cli.EXIT_INTERNAL == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("satcp: internal error: ")
    assert type(exc).__name__ in err and "report" in err
    assert "Traceback" not in err


def test_satcp_traceback_shows_the_traceback(monkeypatch):
    def broken() -> int:
        raise RuntimeError("boom")

    monkeypatch.setenv("SATCP_TRACEBACK", "1")
    monkeypatch.setattr(cli, "_cmd_variants", broken)
    with pytest.raises(RuntimeError):
        cli.main(["variants"])


def test_help_and_usage_are_not_internal_errors(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert e.value.code == 0
    assert cli.main(["frobnicate"]) == 2


def _one_line_exit_2(proc, *fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("satcp: error: "), proc.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def test_a_schedule_file_that_is_not_utf8(tmp_path):
    (tmp_path / "d.csv").write_bytes(b"time_s,delay_s\n0,0.25\n\xff\xfe,0.3\n")
    text = FTP.read_text().replace("delay_s = 0.250", 'delay_schedule = "d.csv"  #')
    assert 'delay_schedule = "d.csv"' in text
    (tmp_path / "s.toml").write_text(text)
    proc = run_cli("run", tmp_path / "s.toml", "--out", tmp_path / "out")
    _one_line_exit_2(proc, "links[1].delay_schedule", "not UTF-8")
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = tmp_path_factory.mktemp("plot") / "r"
    proc = run_cli("run", FTP, *SMALL, "--sample-interval", "1", "--out", d, "--quiet")
    assert proc.returncode == 0, proc.stderr
    return d


def _edited(results, tmp_path, name, edit):
    import shutil

    d = tmp_path / "r"
    shutil.copytree(results, d)
    p = d / name
    p.write_bytes(edit(p.read_bytes()))
    return d


@pytest.mark.parametrize(
    ("name", "edit", "fragments"),
    [
        ("flow_series.csv", lambda b: b.replace(b"cwnd", b"cwin", 1), ["flow_series", "'cwnd'"]),
        ("link_series.csv", lambda b: b"x,y\n1,2\n", ["link_series", "'time_s'"]),
        (
            "flow_series.csv",
            lambda b: b.replace(b"\n0.0,", b"\nabc,", 1),
            ["flow_series", "'time_s'", "'abc'", "not a number"],
        ),
        ("links.csv", lambda b: b"\xff\xfe\x00", ["links.csv", "not a table"]),
    ],
    ids=["missing-column", "other-table", "text-in-numbers", "not-utf8"],
)
def test_plot_on_tables_it_did_not_write(results, tmp_path, name, edit, fragments):
    d = _edited(results, tmp_path, name, edit)
    _one_line_exit_2(run_cli("plot", d), *fragments)
    assert not list(d.glob("*.png"))


def test_scheduler_without_dask(tmp_path):
    """--scheduler needs the optional ``distributed``: hidden here by a
    module of that name that fails to import, first on the path."""
    fake = tmp_path / "fake" / "distributed"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no dask here')\n")
    (tmp_path / "s.toml").write_text(f'base = "{FTP}"\n')
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), *sys.path])}
    proc = subprocess.run(
        [sys.executable, "-m", "satcp.cli", "sweep", tmp_path / "s.toml", "--scheduler", "x:1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
        check=False,
    )
    _one_line_exit_2(proc, "--scheduler", "distributed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake", "s.toml"]


def test_a_sweep_nested_thousands_deep(tmp_path):
    (tmp_path / "s.toml").write_text(f'base = "{FTP}"\nx = ' + "[" * 4000 + "]" * 4000 + "\n")
    _one_line_exit_2(run_cli("sweep", tmp_path / "s.toml"), "invalid sweep", "nested 4000 deep")
