"""Hostile-input mutation check (issue 31): every numeric field of the
shipped scenarios, and the variants', routers' and link models' settings,
replaced by extreme values; each case is validated, and run (short) when
accepted. A case is fine when it is rejected with one line and exit 2, or
runs to the end; anything else is counted by class:

    panic      a Rust panic (pyo3 PanicException) or another traceback
    killed     the run was killed (memory limit) or timed out
    multiline  rejected, but not as one ``satcp: error:`` line
    accepted_huge  1e300 or 2^64 accepted and run (absurd values taken
               silently; informational, not a failure)

    .venv/bin/python tools/mutate_scenarios.py [--timeout S] [--quiet]

Prints the counts per class and the failing cases; exit 1 if any.
Each case runs in a forked child with a 2 GB address-space limit.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import os
import resource
import signal
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALUES = ["0", "1e-300", "0.4", "-1", "1e300", "1e12", "nan", "inf", "-inf", "18446744073709551616"]

# Settings the shipped scenarios do not write: (the variant to select or
# None, the field path).
EXTRA = [
    (None, f"tcp.{k}")
    for k in [
        "mss",
        "initial_window",
        "initial_ssthresh",
        "rcv_buffer",
        "timer_granularity",
        "persist_timeout",
        "max_ack_delay",
        "max_ack_segments",
        "dupack_threshold",
        "initial_rto",
        "min_rto",
        "max_rto",
        "max_retransmissions",
        "rtt_gain",
        "deviation_gain",
        "rtt_deviation_coefficient",
    ]
]
VARIANTS = {
    "adalr": "breakpoint rho_max rto_margin rto_retransmit_limit deviation_gain",
    "hybla": "rtt0_s",
    "cubic": "c beta",
    "slowstart": "k thr n_ack",
    "faststart": "max_age_s initial_cwnd initial_ssthresh",
    "peach": "wdsn",
    "scalable": "a b",
    "rr-tcp": "fa step samples fa_min fa_max max_dupthresh",
    "rn-tcp": "base_dupthresh",
    "tcp-r": "ece_memory_srtt resend_interval_srtt",
}
LINK = [
    "rate_bps",
    "delay_s",
    "congestion_loss",
    "errors.ber",
    "errors.loss",
    "errors.duplicate",
    "reorder.prob",
    "reorder.mean_s",
    "reorder.sd_s",
    "arq.attempts",
    "queue_packets",
    "queue_bytes",
]
SCHEDULES = ["rate_schedule", "delay_schedule", "errors.loss_schedule"]
GE = ["p", "r", "loss_good", "loss_bad", "ber_good", "ber_bad"]
RED = ["min_th", "max_th", "max_p", "wq"]


def numeric_leaves(d, prefix=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from numeric_leaves(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from numeric_leaves(v, f"{prefix}[{i}]")
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        yield prefix


def cases(files):
    for f in files:
        with open(f, "rb") as fh:
            sc = tomllib.load(fh)
        base = []
        for leaf in numeric_leaves(sc):
            if leaf != "seed":
                base.append(([], leaf))
        base += [([], e) for _, e in EXTRA]
        for v, fields in VARIANTS.items():
            base += [([f"tcp.variant={v}"], f"tcp.{_table(v)}.{k}") for k in fields.split()]
        for i in range(len(sc.get("links", []))):
            base += [([], f"links[{i}].{k}") for k in LINK]
            base += [([], f"links[{i}].errors.gilbert_elliott.{k}") for k in GE]
            base += [([f"links[{i}].queue=red"], f"links[{i}].red.{k}") for k in RED]
        for i in range(len(sc.get("apps", []))):
            for k in ("page_interval_s", "request_bytes", "files", "file_bytes", "start_s"):
                base += [([], f"apps[{i}].{k}")]
        seen = set()
        for pre, field in base:
            if field in seen:
                continue
            seen.add(field)
            for v in VALUES:
                if any(field.endswith(s) for s in SCHEDULES):
                    yield f, pre, f"{field}=[[0.0, {_toml(v)}]]"
                else:
                    yield f, pre, f"{field}={_toml(v)}"
        for i in range(len(sc.get("links", []))):
            for s in SCHEDULES:
                for v in ("0.3", "1e-300", "1e300", "-1", "nan"):
                    yield f, [], f"links[{i}].{s}=[[0.0, {v}]]"


def _table(variant):
    return {"rr-tcp": "rr_tcp", "rn-tcp": "rntcp", "tcp-r": "tcpr"}.get(variant, variant)


def _toml(v):
    return v


def run_case(file, pre, override, timeout):
    """0 fine, else a class name and the output."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)  # the core's panic message
        out = io.StringIO()
        code = 99
        try:
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
            signal.alarm(timeout)
            from satcp import cli

            args = [a for o in pre for a in ("--set", o)] + ["--set", override]
            with contextlib.redirect_stderr(out), contextlib.redirect_stdout(io.StringIO()):
                code = cli.main(["validate", file, *args])
                if code == 0 and "duration_s" not in override:
                    args += ["--set", "duration_s=20"]
                if code == 0:
                    code = cli.main(["run", file, "--quiet", "--sample-interval", "1", *args])
        except BaseException as e:
            out.write(f"TRACEBACK {type(e).__name__}: {e}")
            code = 1
        os.write(w, f"{code}\n{out.getvalue()}".encode()[:4000])
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not data:
        return "killed", f"signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else '?'}"
    code, _, err = data.decode(errors="replace").partition("\n")
    code = int(code)
    if code == 0:
        huge = ("1e300", "18446744073709551616")
        if any(override.endswith(f"={h}") or f" {h}]]" in override for h in huge):
            return "accepted_huge", "accepted"
        return None, ""
    if code == 2:
        lines = err.strip().splitlines()
        if len(lines) == 1 and lines[0].startswith("satcp: error: "):
            return None, ""
        return "multiline", err.strip()[-300:]
    if "PanicException" in err or "panicked" in err:
        return "panic", err.strip()[-300:]
    return "other", err.strip()[-300:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=int, default=20)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("files", nargs="*")
    a = p.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.toml")))
    counts: dict[str, int] = {}
    total = 0
    for f, pre, o in cases(files):
        total += 1
        cls, msg = run_case(f, pre, o, a.timeout)
        if cls:
            counts[cls] = counts.get(cls, 0) + 1
            if not a.quiet:
                last = msg.splitlines()[-1] if msg else ""
                print(f"{cls}: {os.path.basename(f)} {' '.join(pre)} {o}: {last}")
    print(
        f"{total} cases: "
        + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "all clean")
    )
    return 1 if set(counts) - {"accepted_huge"} else 0


if __name__ == "__main__":
    sys.exit(main())
