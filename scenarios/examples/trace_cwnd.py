"""A per-event trace in pandas, notebook style: run trace.toml, load the
trace.parquet it writes, and plot each connection's cwnd and ssthresh,
its time in loss recovery, its RTT samples and the gateway's queue.

    python scenarios/examples/trace_cwnd.py [OUT_DIR]     # default out/trace

Each ``# %%`` starts a cell (VS Code, Spyder, Jupyter with jupytext): the
first runs the scenario as ``satcp run scenarios/examples/trace.toml --out
OUT_DIR`` would; the others read only the files in OUT_DIR, so they work on
any results folder written with a trace (docs/traces.md).
"""

# Imports sit in the cells that first need them, as in a notebook.
# ruff: noqa: E402

# %% Run the scenario and write its results, trace.parquet among them
import sys
from pathlib import Path

import satcp

here = Path(__file__).resolve().parent
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/trace")
satcp.run(here / "trace.toml").write(out)

# %% Load the trace: one row per change (time_s, kind, conn, side, link, value)
import pandas as pd

trace = pd.read_parquet(out / "trace.parquet")
links = pd.read_csv(out / "links.csv")
print(trace.groupby("kind", observed=True).size().rename("rows").to_string())

# %% cwnd and ssthresh of each data sender (the server side), as steps
import matplotlib

matplotlib.use("Agg")  # files only; drop this line in a notebook
import matplotlib.pyplot as plt

sender = trace[trace.side == "server"]
fig, (ax_w, ax_q) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for (conn, kind), g in sender[sender.kind.isin(["cwnd", "ssthresh"])].groupby(
    ["conn", "kind"], observed=True
):
    style = "-" if kind == "cwnd" else "--"
    ax_w.step(g.time_s, g.value / 1e3, style, where="post", label=f"conn {conn} {kind}")
ax_w.set_ylabel("kB")
ax_w.legend(fontsize=8)

# %% The gateway's queue towards the client, in packets
gateway = links.loc[links.name == "satellite:ab", "link"].item()
q = trace[(trace.kind == "queue") & (trace.link == gateway)]
ax_q.step(q.time_s, q.value, where="post", color="grey")
ax_q.set_ylabel("gateway queue (packets)")
ax_q.set_xlabel("time (s)")
fig.tight_layout()
fig.savefig(out / "trace-cwnd-example.png", dpi=100)
print(f"wrote {out / 'trace-cwnd-example.png'}")

# %% Time each sender spent in loss recovery (state 2) or after a timeout (3)
states = sender[sender.kind == "state"].copy()
states["until"] = states.groupby("conn").time_s.shift(-1).fillna(trace.time_s.max())
states["held_s"] = states.until - states.time_s
recovering = states[states.value >= 2].groupby("conn").held_s.sum()
print("seconds in recovery per connection:", {int(c): round(s, 2) for c, s in recovering.items()})

# %% RTT samples: how far the queue pushes the round trip above the path's
rtt = sender[sender.kind == "rtt"]
print(rtt.groupby("conn").value.describe()[["count", "min", "50%", "max"]].round(3).to_string())
