#!/usr/bin/env python3
"""satcp against ns-3 on the same scenarios, run alternately (`make bench-ns3`).

For each scenario, runs alternately, PAIRS times, one process at a time:

- satcp's core: the benchmark binary, one scenario per process
  (`summary --one NAME`);
- `satcp run FILE --out DIR`: the command a user types, the whole process
  (interpreter start-up, TOML, the run, CSV and JSON files written); FILE
  is the benchmark scenario written as TOML;
- ns-3 3.44 as a compiled C++ program (tools/ns3/cpp/*.cc, built against
  the PyPI wheel's headers and libraries by tools/ns3/build_cpp.sh): what
  an ns-3 user runs;
- with --ns3-python, also the same simulation driven from Python through
  the wheel's bindings (tools/ns3/*_ns3.py: loading the libraries through
  cppyy and compiling the applications at run time take most of its time).

Prints per scenario the median whole-process wall time of each, the ratios
ns-3 / satcp (whole process, against the core binary and against `satcp
run`), the median ratio of the event loops alone (Simulator::Run against
satcp_core::run) and each side's peak resident memory.

    (a) the thesis's 50 MB GEO FTP download (SACK, delayed ACK) against
        satcp's a_thesis_ftp_50MB;
    (b) 20 bulk flows on a 10 Mb/s, 250 ms GEO bottleneck for 550 s against
        satcp's b_20_flows_550s.

Usage: bench_vs_ns3.py --satcp-bench BIN --ns3-cpp DIR [--satcp SATCP]
                       [--ns3-python PY] [--pairs N] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def thesis_ftp() -> dict:
    """crates/satcp-core/benches/common/mod.rs `thesis_ftp`."""
    return {
        "name": "bench-a-thesis-ftp",
        "duration_s": 18000.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": True},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.010},
            {
                "a": "gateway",
                "b": "client",
                "delay_s": 0.250,
                "ab": {"rate_bps": 2.048e6},
                "ba": {"rate_bps": 256e3},
            },
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 50_000_000}],
    }


def twenty_flows() -> dict:
    """crates/satcp-core/benches/common/mod.rs `twenty_flows`."""
    nodes = ["gateway", "terminal"]
    links = [
        {
            "name": "geo",
            "a": "gateway",
            "b": "terminal",
            "delay_s": 0.250,
            "rate_bps": 10e6,
            "queue_packets": 50,
        }
    ]
    apps = []
    for i in range(20):
        s, c = f"s{i}", f"c{i}"
        nodes += [s, c]
        links.append({"a": s, "b": "gateway", "rate_bps": 100e6, "delay_s": 0.001})
        links.append({"a": "terminal", "b": c, "rate_bps": 100e6, "delay_s": 0.001})
        apps.append({"kind": "bulk", "client": c, "server": s, "start_s": 0.1 * i})
    return {
        "name": "bench-b-20-flows",
        "duration_s": 550.0,
        "nodes": nodes,
        "tcp": {"variant": "sack", "delayed_ack": True},
        "links": links,
        "apps": apps,
    }


# (label, satcp benchmark name, scenario, ns-3 C++ program, ns-3 Python script and args)
SCENARIOS = [
    (
        "a: thesis FTP 50 MB",
        "a_thesis_ftp_50MB",
        thesis_ftp,
        "thesis_ftp",
        ["thesis_ftp_ns3.py", "--variant", "sack"],
    ),
    (
        "b: 20 flows, 550 s",
        "b_20_flows_550s",
        twenty_flows,
        "twenty_flows",
        ["twenty_flows_ns3.py"],
    ),
]


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml(doc: dict) -> str:
    return "".join(f"{k} = {toml_value(v)}\n" for k, v in doc.items())


def timed(cmd):
    """Runs cmd; returns (wall s, processor s, peak RSS MB of that process, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--satcp-bench", required=True, help="the summary benchmark binary")
    ap.add_argument("--ns3-cpp", required=True, help="directory of tools/ns3/build_cpp.sh")
    ap.add_argument("--satcp", default=os.path.join(REPO, ".venv", "bin", "satcp"))
    ap.add_argument("--ns3-python", help="also ns-3 driven from this Python (slow)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--only", choices=[s[1] for s in SCENARIOS], action="append")
    args = ap.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # byte-compiled, as installed
    os.environ["SATCP_PROGRESS"] = "0"
    tmp = tempfile.mkdtemp(prefix="satcp-bench-ns3-")
    rows = []
    try:
        for label, satcp_name, scenario, cpp, py_cmd in SCENARIOS:
            if args.only and satcp_name not in args.only:
                continue
            toml_path = os.path.join(tmp, f"{satcp_name}.toml")
            with open(toml_path, "w", encoding="utf-8") as f:
                f.write(toml(scenario()))
            out_dir = os.path.join(tmp, "out")
            sides = {
                "core": [args.satcp_bench, "--one", satcp_name, "1"],
                "cli": [args.satcp, "run", toml_path, "--out", out_dir, "--quiet"],
                "cpp": [os.path.join(args.ns3_cpp, cpp)],
            }
            if args.ns3_python:
                sides["py"] = [args.ns3_python, os.path.join(HERE, py_cmd[0]), *py_cmd[1:]]
                sides["py"].append("--json")
            wall = {k: [] for k in sides}
            cpu = {k: [] for k in sides}
            rss = {k: [] for k in sides}
            loop = {"core": [], "cpp": [], "py": []}
            timed(sides["cli"])  # byte-compiles the package once
            for i in range(args.pairs):
                order = list(sides) if i % 2 == 0 else list(sides)[::-1]
                for k in order:
                    shutil.rmtree(out_dir, ignore_errors=True)
                    w, c, m, out = timed(sides[k])
                    wall[k].append(w)
                    cpu[k].append(c)
                    rss[k].append(m)
                    if k == "core":
                        loop[k].append(float(out.split()[2]))
                    elif k in ("cpp", "py"):
                        r = json.loads(out.strip().splitlines()[-1])
                        loop[k].append(r.get("cpu_run_s", r["wall_run_s"]))
                print(
                    f"{label} pair {i + 1}: "
                    + ", ".join(f"{k} {wall[k][-1]:.3f} s" for k in sides)
                    + f" (loops: core {loop['core'][-1]:.4f} s, ns-3 {loop['cpp'][-1]:.3f} s)",
                    flush=True,
                )
            med = statistics.median

            def ratio(a, b, t=wall):
                return statistics.median([x / y for x, y in zip(t[a], t[b], strict=True)])

            rows.append(
                {
                    "label": label,
                    "wall": {k: med(v) for k, v in wall.items()},
                    "cpu": {k: med(v) for k, v in cpu.items()},
                    "cpu_cpp_core": ratio("cpp", "core", cpu),
                    "cpu_cpp_cli": ratio("cpp", "cli", cpu),
                    "rss": {k: max(v) for k, v in rss.items()},
                    "cpp_core": ratio("cpp", "core"),
                    "cpp_cli": ratio("cpp", "cli"),
                    "loop": med([n / s for n, s in zip(loop["cpp"], loop["core"], strict=True)]),
                    "py_core": ratio("py", "core") if "py" in wall else None,
                    "py_loop": med([n / s for n, s in zip(loop["py"], loop["core"], strict=True)])
                    if loop["py"]
                    else None,
                }
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(
        f"median of {args.pairs} alternating rounds; whole-process wall time in s; "
        "ratio = ns-3 / satcp"
    )
    print(
        f"{'scenario':<22} {'satcp core':>10} {'satcp run':>10} {'ns-3 C++':>9} "
        f"{'C++/core':>9} {'C++/run':>8} {'loop ratio':>10} {'peak MB core/run/C++':>22}"
    )
    for r in rows:
        w, m = r["wall"], r["rss"]
        print(
            f"{r['label']:<22} {w['core']:>10.3f} {w['cli']:>10.3f} {w['cpp']:>9.2f} "
            f"{r['cpp_core']:>8.0f}x {r['cpp_cli']:>7.1f}x {r['loop']:>9.0f}x "
            f"{m['core']:>6.1f} / {m['cli']:>5.1f} / {m['cpp']:>5.0f}"
        )
    print("processor time (user + system) of the same processes, s; ratio = ns-3 / satcp")
    for r in rows:
        c = r["cpu"]
        print(
            f"{r['label']:<22} {c['core']:>10.3f} {c['cli']:>10.3f} {c['cpp']:>9.2f} "
            f"{r['cpu_cpp_core']:>8.0f}x {r['cpu_cpp_cli']:>7.1f}x"
        )
    if any(r["py_core"] is not None for r in rows):
        print(
            "\nns-3 driven from Python (the wheel's bindings: cppyy start-up, run-time compiling):"
        )
        for r in rows:
            print(
                f"{r['label']:<22} {r['wall']['py']:>8.1f} s, {r['py_core']:>6.0f}x the core "
                f"binary's process; its loop {r['py_loop']:.0f}x satcp's; "
                f"peak {r['rss']['py']:.0f} MB"
            )
    print(
        "(the loop ratio: Simulator::Run's processor time against satcp_core::run's wall "
        "time, leaving out start-up, parsing and output)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
