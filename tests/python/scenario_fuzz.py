"""The whole-scenario fuzzer (issue 31 item 6): hypothesis strategies that
draw complete scenarios over every registered variant, router function,
queue kind, application kind, schedule and link model, most values in
their ranges and, in about half of the cases, a few fields replaced by
hostile values (out of range, of the wrong type, not finite); and the
property every case must hold (:func:`check_case`).

Used by ``tests/python/test_fuzz_scenarios.py`` (a fixed-seed slice in
``make test``) and ``tools/fuzz_scenarios.py`` (the long run, ``make
fuzz-scenarios``).
"""

from __future__ import annotations

import copy
import functools
import io
import json
import math
import os
import random
import shutil
import threading
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from hypothesis import strategies as st

import satcp
from satcp import _core
from satcp.scenario import to_json

#: Simulated seconds at most: short runs, so that the long run reaches
#: 10^5 cases an hour.
MAX_DURATION_S = 2.0
#: Wall seconds a run of a scenario within the generator's bounds may take
#: before it counts as a hang (stopped through its stop flag).
RUN_BUDGET_S = 60.0
#: Packet transmissions the links of a scenario can make at most (at 40
#: bytes a packet) below which a run must end within RUN_BUDGET_S. The
#: generator's rates and durations give at most 7.4 x 10^6 (30,000 seeds);
#: a valid hostile rate (a 1 Tb/s link) can ask for 10^9, a long run that
#: is no hang.
MAX_CHECKED_TRANSMISSIONS = 1.5e7
#: The memory limit the fuzzer runs with, bytes.
MAX_MEMORY = 5e8

VARIANTS = list(_core.variants())
ROUTER_KINDS = [k for k, _ in _core.router_kinds()]
QUEUE_KINDS = ["drop_tail", "priority", "red", "drr", "codel", "fq_codel", "ack_filter"]
APP_KINDS = ["ftp", "http", "bulk", "web"]
TRACE_KINDS = list(_core.trace_kinds())

#: Values a hostile field gets: out of every range, not finite, of the
#: wrong type, and the edges of the integer types.
HOSTILE = [
    -1,
    0,
    -0.0,
    0.4,
    1e-300,
    1e300,
    1e12,
    1e13,
    2**32,
    2**63,
    2**64,
    -(2**63),
    math.nan,
    math.inf,
    -math.inf,
    "x",
    "",
    True,
    [],
    [[0.0, -1.0]],
    {},
    None,
    "../../escape",
    "/abs/name",
    "a\x00b",
    "n" * 300,
]


# Every strategy below is made by these helpers, which also register how
# to draw it from a seeded ``random.Random`` (``SAMPLERS``): the same
# generator code then runs under hypothesis (the fixed-seed slice: shrinking,
# boundary values) or from a seed (:func:`random_scenario`, the long run:
# hypothesis' per-draw cost, some 0.1 ms on this machine times a few
# hundred draws per scenario, would cap it near 3 x 10^4 cases an hour).
# Each is built once (functools.cache): building one costs more than a draw.

SAMPLERS: dict[int, Callable[[random.Random, Callable[[Any], Any]], Any]] = {}


def registered(strategy: st.SearchStrategy[Any], sample: Callable) -> st.SearchStrategy[Any]:
    SAMPLERS[id(strategy)] = sample
    return strategy


def edge(r: random.Random, lo: Any, hi: Any, value: Any) -> Any:
    """Mostly ``value``, sometimes a bound (as hypothesis favours them)."""
    x = r.random()
    return lo if x < 0.05 else hi if x < 0.1 else value


B = registered(st.booleans(), lambda r, d: r.random() < 0.5)
HOSTILE_VALUES = registered(st.sampled_from(HOSTILE), lambda r, d: r.choice(HOSTILE))
SEQS = registered(
    st.lists(st.integers(0, 100_000), max_size=3),
    lambda r, d: [r.randint(0, 100_000) for _ in range(r.randint(0, 3))],
)


@functools.cache
def small(lo: float, hi: float) -> st.SearchStrategy[float]:
    return registered(
        st.floats(lo, hi, allow_nan=False, allow_infinity=False),
        lambda r, d: edge(r, lo, hi, r.uniform(lo, hi)),
    )


@functools.cache
def ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return registered(st.integers(lo, hi), lambda r, d: edge(r, lo, hi, r.randint(lo, hi)))


@functools.cache
def pick(*options: Any) -> st.SearchStrategy[Any]:
    return registered(st.sampled_from(options), lambda r, d: r.choice(options))


@functools.cache
def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The value, or the field left out (None, dropped by :func:`pruned`)."""
    return registered(
        st.one_of(st.none(), strategy), lambda r, d: None if r.random() < 0.5 else d(strategy)
    )


@functools.cache
def either(a: st.SearchStrategy[Any], b: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return registered(a | b, lambda r, d: d(a) if r.random() < 0.5 else d(b))


def composite(fn: Callable[..., Any]) -> Callable[..., st.SearchStrategy[Any]]:
    """``st.composite``, registered: ``fn(draw, *args)``."""

    @functools.cache
    def make(*args: Any) -> st.SearchStrategy[Any]:
        return registered(st.composite(fn)(*args), lambda r, d: fn(d, *args))

    return make


def random_scenario(seed: int) -> dict[str, Any]:
    """A scenario of :func:`scenarios` drawn from ``seed`` without
    hypothesis: the same seed gives the same scenario."""
    rng = random.Random(seed)

    def draw(strategy: st.SearchStrategy[Any]) -> Any:
        return SAMPLERS[id(strategy)](rng, draw)

    return draw(scenarios())


def pruned(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


TIMES = small(0, MAX_DURATION_S)


def _schedule(draw: Any, values: st.SearchStrategy[float]) -> list[list[float]]:
    """[[time_s, value], ...] in increasing time within the run."""
    n = draw(ints(1, 4))
    times = sorted({draw(TIMES) for _ in range(n)})
    return [[t, draw(values)] for t in times]


schedule = composite(_schedule)

RATES = either(pick(1e4, 6.4e4, 1e5, 1e6, 2e6, 1e7), small(1e3, 5e7))
DELAYS = small(0, 0.3)


def queue_table(draw: Any) -> dict[str, Any]:
    kind = draw(pick(*QUEUE_KINDS))
    t: dict[str, Any] = {"queue": kind}
    limit = draw(pick("packets", "bytes", "none"))
    if limit == "packets":
        t["queue_packets"] = draw(ints(1, 200))
    elif limit == "bytes":
        t["queue_bytes"] = draw(ints(1, 300_000))
    settings: dict[str, Any] | None = None
    if kind == "priority":
        settings = pruned({"push_out": draw(maybe(B))})
    elif kind == "red":
        lo = draw(small(0, 20))
        settings = pruned(
            {
                "min_th": lo,
                "max_th": lo + draw(small(0.5, 40)),
                "max_p": draw(maybe(small(0.01, 1))),
                "wq": draw(maybe(small(0.001, 1))),
                "gentle": draw(maybe(B)),
                "ecn_marking": draw(maybe(B)),
            }
        )
    elif kind == "drr":
        settings = pruned(
            {
                "quantum_bytes": draw(maybe(ints(1, 9000))),
                "flow_limit_packets": draw(maybe(ints(1, 100))),
            }
        )
    elif kind == "codel":
        settings = pruned(
            {
                "target_s": draw(maybe(small(1e-4, 0.1))),
                "interval_s": draw(maybe(small(1e-3, 1))),
                "ecn_marking": draw(maybe(B)),
            }
        )
    elif kind == "fq_codel":
        settings = pruned(
            {
                "quantum_bytes": draw(maybe(ints(1, 9000))),
                "target_s": draw(maybe(small(1e-4, 0.1))),
                "interval_s": draw(maybe(small(1e-3, 1))),
                "ecn_marking": draw(maybe(B)),
                "drop_batch_packets": draw(maybe(ints(1, 64))),
            }
        )
    elif kind == "ack_filter":
        settings = pruned({"place": draw(maybe(pick("first_removed", "tail")))})
    if settings and draw(B):
        t[kind] = settings
    return t


@composite
def direction(draw: Any) -> dict[str, Any]:
    """Settings of a link, or of one of its directions."""
    d: dict[str, Any] = {}
    if draw(B):
        d.update(queue_table(draw))
    if draw(ints(0, 3)) == 0:
        d["delay_schedule"] = draw(schedule(DELAYS))
    if draw(ints(0, 3)) == 0:
        d["rate_schedule"] = draw(schedule(RATES))
    if draw(ints(0, 4)) == 0:
        d["congestion_loss"] = draw(small(0, 0.2))
    if draw(B):
        errors: dict[str, Any] = pruned(
            {
                "ber": draw(maybe(pick(0.0, 1e-7, 1e-6, 1e-5))),
                "loss": draw(maybe(small(0, 0.2))),
                "duplicate": draw(maybe(small(0, 0.1))),
                "data_only": draw(maybe(B)),
                "corrupted_reach_next_node": draw(maybe(B)),
                "drop_seqs": draw(maybe(SEQS)),
                "loss_schedule": draw(maybe(schedule(small(0, 0.3)))),
            }
        )
        if draw(ints(0, 3)) == 0:
            errors["gilbert_elliott"] = pruned(
                {
                    "p": draw(small(0, 0.5)),
                    "r": draw(small(0.01, 1)),
                    "loss_good": draw(maybe(small(0, 0.05))),
                    "loss_bad": draw(maybe(small(0, 1))),
                    "ber_good": draw(maybe(small(0, 1e-6))),
                    "ber_bad": draw(maybe(small(0, 1e-4))),
                }
            )
        d["errors"] = errors
    if draw(ints(0, 3)) == 0:
        d["reorder"] = pruned(
            {
                "prob": draw(small(0, 0.3)),
                "delay": draw(maybe(pick("fixed", "uniform", "normal"))),
                "mean_s": draw(maybe(small(0, 0.1))),
                "sd_s": draw(maybe(small(0, 0.05))),
            }
        )
    if draw(ints(0, 3)) == 0:
        attempts = draw(ints(0, 4))
        d["arq"] = pruned({"attempts": attempts, "recover_all": draw(B) if attempts else None})
    if "rate_schedule" not in d and "arq" not in d and draw(ints(0, 5)) == 0:
        # (The carrier sets the rate and has no ARQ.)
        d["dvbs2"] = dvbs2_table(draw)
    elif "rate_schedule" not in d and "arq" not in d and draw(ints(0, 5)) == 0:
        # (Its terminals' queues are drop-tail queues of queue_packets.)
        for k in [k for k in d if k.startswith("queue") or k in QUEUE_KINDS]:
            del d[k]
        d["queue"] = "drop_tail"
        d["queue_packets"] = draw(ints(1, 500))
        d["dvbrcs2"] = dvbrcs2_table(draw)
    return d


def dvbrcs2_table(draw: Any) -> dict[str, Any]:
    """A DVB-RCS2 return carrier (docs/satellite-access.md): DAMA, random
    access or both."""
    slots = draw(pick(1, 16, 64))
    c = {
        "superframe_s": draw(pick(0.0265, 0.1, 0.5)),
        "slots": slots,
        "carriers": draw(maybe(pick(1, slots))),
        "random_access_slots": draw(maybe(ints(0, slots))),
        "random_access": draw(maybe(pick("slotted_aloha", "crdsa"))),
        "replicas": draw(maybe(pick(2, 3))),
        "ra_max_packets": draw(maybe(ints(1, 4))),
        "forward_delay_s": draw(maybe(small(0, 0.3))),
        "cra_bps": draw(maybe(pick(0.0, 1e3))),
        "rbdc_max_bps": draw(maybe(pick(0.0, 1e5, 1e7))),
        "rbdc_timeout_s": draw(maybe(small(0.01, 2))),
        "vbdc": draw(maybe(B)),
    }
    if draw(B):
        c["slot_payload_bytes"] = draw(pick(38, 188, 1500))
    else:
        c["burst_rate_bps"] = draw(pick(1e5, 1e6, 1e8))
    return pruned(c)


def dvbs2_table(draw: Any) -> dict[str, Any]:
    """A DVB-S2 carrier (docs/satellite-access.md): constant Es/N0, a
    series or a rain fade."""
    c = {
        "symbol_rate_baud": draw(pick(1e5, 1e6, 2e7)),
        "frame": draw(maybe(pick("normal", "short"))),
        "pilots": draw(maybe(B)),
        "standard": draw(maybe(pick("s2", "s2x"))),
        "margin_db": draw(maybe(small(0, 3))),
        "loop_delay_s": draw(maybe(small(0, 1))),
        "gse_label_bytes": draw(maybe(pick(0, 3, 6))),
        "esn0_db": draw(small(-5, 20)),
    }
    kind = draw(ints(0, 2))
    if kind == 1:
        c["esn0_schedule"] = draw(schedule(small(-5, 20)))
    elif kind == 2:
        c["rain"] = pruned(
            {
                "median_db": draw(small(0.1, 5)),
                "sigma": draw(small(0.1, 1.5)),
                "beta_per_s": draw(maybe(small(1e-4, 0.1))),
                "probability": draw(maybe(small(0.01, 1))),
            }
        )
    return pruned(c)


#: Each variant family's settings table: field -> values in range.
VARIANT_SETTINGS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "adalr": {
        "breakpoint": small(0.01, 10),
        "rho_max": small(1, 100),
        "rwnd_mode": pick("per_ack", "cumulative"),
        "rto_margin": small(0, 5),
        "rto_retransmit_limit": ints(1, 10),
    },
    "peach": {"receiver_support": B},
    "faststart": {"pacing": B, "max_age_s": small(0, 120)},
    "slowstart": {
        "function": pick("standard", "constant", "linear", "piecewise"),
        "k": small(0.1, 4),
        "thr": small(1, 100),
    },
    "rntcp": {"k": ints(1, 10), "es": B},
    "tcpr": {
        "response": pick("resend", "recovery"),
        "ece_memory_srtt": small(0, 10),
        "resend_interval_srtt": small(0, 10),
    },
    "dsackr": {"late_dsack_srtts": small(0, 10)},
    "rrtcp": {
        "mode": pick("fa", "ta"),
        "fa": small(0, 1),
        "step": small(0, 1),
        "samples": ints(1, 50),
        "es": B,
        "max_dupthresh": ints(3, 100),
    },
    "cubic": {
        "c": small(0.01, 2),
        "beta": small(0.1, 0.95),
        "fast_convergence": B,
        "reno_friendly": B,
    },
    "hybla": {"rtt0_s": small(0.001, 0.5), "pacing": B},
    "scalable": {"a": small(0.001, 0.1), "b": small(0.01, 0.9)},
}

#: A shorthand's family (from the registry: `satcp variants`).
FAMILY = {
    short: name for name, _, _, shorthands in _core.variant_families() for short in shorthands
} | {name: name for name, *_ in _core.variant_families()}


@composite
def tcp_table(draw: Any) -> dict[str, Any]:
    variant = draw(pick(*VARIANTS))
    scaling = draw(B)
    t = pruned(
        {
            "variant": variant,
            "profile": draw(maybe(pick("rfc", "linux"))),
            "mss": draw(maybe(either(pick(536, 1000, 1460), ints(100, 9000)))),
            "initial_window": draw(maybe(ints(1, 20))),
            "initial_ssthresh": draw(maybe(ints(1, 10**7))),
            "window_scaling": scaling,
            "rcv_buffer": draw(
                maybe(ints(2000, 4_000_000 if scaling else 65_535)),
            ),
            "timestamps": draw(maybe(B)),
            "delayed_ack": draw(maybe(B)),
            "dupack_threshold": draw(maybe(ints(1, 10))),
            "min_rto": draw(maybe(small(0.01, 1))),
            "max_retransmissions": draw(maybe(ints(0, 20))),
            "dsack": draw(maybe(B)),
            "ecn": draw(maybe(B)),
        }
    )
    family = FAMILY.get(variant, variant)
    fields = VARIANT_SETTINGS.get(family)
    if fields and draw(B):
        names = sorted({draw(pick(*sorted(fields))) for _ in range(draw(ints(1, 3)))})
        t[family] = {n: draw(fields[n]) for n in names}
    return t


@composite
def app(draw: Any, client: str, server: str) -> dict[str, Any]:
    kind = draw(pick(*APP_KINDS))
    a: dict[str, Any] = {"kind": kind, "client": client, "server": server}
    a["start_s"] = draw(maybe(small(0, 1)))
    if kind == "ftp":
        a |= {
            "file_bytes": draw(ints(1, 300_000)),
            "files": draw(maybe(ints(1, 4))),
            "inter_request_s": draw(maybe(small(0, 1))),
            "request_bytes": draw(maybe(ints(1, 2000))),
        }
    elif kind == "http":
        a |= {
            "main_object_bytes": draw(maybe(ints(1, 50_000))),
            "embedded_objects": draw(maybe(ints(0, 8))),
            "embedded_object_bytes": draw(maybe(ints(1, 20_000))),
            "page_interval_s": draw(maybe(small(0.05, 2))),
            "pages": draw(maybe(ints(1, 3))),
            "pipelining": draw(maybe(B)),
        }
    elif kind == "bulk":
        a["bytes"] = draw(maybe(ints(1, 2_000_000)))
    else:
        a |= {
            "segments": draw(maybe(ints(1, 60))),
            "think_time_s": draw(maybe(small(0, 0.5))),
            "think_time": draw(maybe(pick("exponential", "fixed"))),
            "transfers": draw(maybe(ints(1, 5))),
        }
    if draw(ints(0, 2)) == 0:
        a["tcp"] = draw(tcp_table())
    if draw(B):
        a["name"] = f"app{draw(ints(0, 99))}"
    return pruned(a)


@composite
def scenarios(draw: Any) -> dict[str, Any]:
    """A whole scenario: a chain of 2 to 5 nodes (one link per
    neighbouring pair, sometimes one more across), 1 to 3 applications
    between nodes, a shared [tcp] table, router functions, a
    split-connection proxy or two, and a duration of at most
    MAX_DURATION_S."""
    n = draw(ints(2, 5))
    nodes = [f"n{i}" for i in range(n)]
    links = []
    for i in range(n - 1):
        link = {"a": nodes[i], "b": nodes[i + 1], "rate_bps": draw(RATES)}
        link["delay_s"] = draw(maybe(DELAYS))
        link |= draw(direction())
        for dname in ("ab", "ba"):
            if draw(ints(0, 3)) == 0:
                link[dname] = draw(direction())
        if draw(B):
            link["name"] = f"l{i}"
        links.append(pruned(link))
    if n > 2 and draw(ints(0, 3)) == 0:
        links.append({"a": nodes[0], "b": nodes[-1], "rate_bps": draw(RATES)})
    apps = []
    for _ in range(draw(ints(1, 3))):
        c = draw(pick(*nodes))
        s = draw(pick(*[x for x in nodes if x != c]))
        apps.append(draw(app(c, s)))
    sc: dict[str, Any] = {
        "name": "fuzz",
        "seed": draw(ints(0, 2**64 - 1)),
        "duration_s": draw(small(0.01, MAX_DURATION_S)),
        "stop_when_done": draw(B),
        "sample_interval_s": draw(pick(0.0, 0.0, 0.05, 0.5)),
        "nodes": nodes,
        "links": links,
        "apps": apps,
    }
    if draw(B):
        sc["tcp"] = draw(tcp_table())
    if draw(ints(0, 3)) == 0:
        sc["trace"] = {
            "kinds": [k for k in TRACE_KINDS if draw(B)],
            "start_s": draw(pick(0.0, 0.0, 0.5)),
            "max_rows": draw(pick(1, 1000, 100_000)),
        }
    if n > 2 and draw(ints(0, 3)) == 0:
        kind = draw(pick(*ROUTER_KINDS))
        router: dict[str, Any] = {"node": draw(pick(*nodes[1:-1])), "kind": kind}
        if kind == "example-drop-recorder" and draw(B):
            router["congestion_only"] = draw(B)
        sc["routers"] = [router]
    inner = nodes[1:-1]  # before hostile values may replace names
    for _ in range(draw(pick(0, 0, 0, 1, 1, 2))):
        hostile(draw, sc)
    # Drawn last, so that the draws above (and the scenarios of earlier
    # seeds up to here) stay as they were.
    if n > 2 and draw(ints(0, 3)) == 0:
        proxy = {
            "node": draw(pick(*inner)),
            "satellite_variant": draw(maybe(pick(*VARIANTS))),
            "satellite_side": draw(maybe(pick("client", "server"))),
            "buffer_bytes": draw(maybe(ints(1, 2_000_000))),
        }
        sc["pep"] = [pruned(proxy)]
        # A second proxy on the chain: a flow across both is split twice
        # (three connections, the middle one leg to leg).
        others = [x for x in inner if x != proxy["node"]]
        if others and draw(ints(0, 2)) == 0:
            sc["pep"].append({"node": draw(pick(*others))})
    return sc


def leaves(v: Any, path: tuple = ()) -> list[tuple]:
    """Every path to a value in a scenario (tables and lists included)."""
    out = [path] if path else []
    if isinstance(v, dict):
        for k, x in v.items():
            out += leaves(x, (*path, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += leaves(x, (*path, i))
    return out


def hostile(draw: Any, sc: dict[str, Any]) -> None:
    """Replaces one field, table or list item of ``sc`` (or adds an unknown
    field) with a hostile value."""
    paths = leaves(sc)
    path = paths[draw(ints(0, len(paths) - 1))]
    value = copy.deepcopy(draw(HOSTILE_VALUES))  # never a shared list
    *head, last = path
    parent: Any = sc
    for k in head:
        parent = parent[k]
    if isinstance(parent, dict) and draw(ints(0, 9)) == 0:
        parent["unknown_field"] = value
    else:
        parent[last] = value


# ----- the property -----


class Outcome:
    REJECTED = "rejected"
    RAN = "ran"


def check_case(sc: dict[str, Any]) -> str:
    """The property of one case: the scenario is rejected cleanly (a
    ScenarioError of one line naming what is wrong), or it runs within
    RUN_BUDGET_S and its results hold the transport invariants that the
    results show. Anything else (a panic, another exception, a hang)
    fails the case. Returns which of the two it was."""
    try:
        text = to_json(sc)
    except satcp.ScenarioError as e:
        assert_one_line(e)
        return Outcome.REJECTED
    stop = _core.StopFlag()
    timer = threading.Timer(RUN_BUDGET_S, stop.set)
    timer.start()
    trace = _core.TraceBuffer()
    try:
        out = _core.run_json(text, stop, MAX_MEMORY, trace)
    except satcp.ScenarioError as e:
        assert_one_line(e)
        return Outcome.REJECTED
    except KeyboardInterrupt:
        if transmissions_bound(sc) <= MAX_CHECKED_TRANSMISSIONS:
            raise AssertionError(f"the run took more than {RUN_BUDGET_S} s: {text}") from None
        return Outcome.RAN  # asked for more than the budget holds: stopped, as asked
    finally:
        timer.cancel()
    check_results(sc, json.loads(out))
    check_trace(sc, trace.take())
    return Outcome.RAN


def transmissions_bound(sc: dict[str, Any]) -> float:
    """Packet transmissions of 40 bytes (the smallest, a bare header) that
    every rate the scenario names, all at once for its whole duration,
    could make: what the run may take at most (a DVB-S2 carrier's symbols
    counted at 6 bits, more than its densest code carries)."""
    bits_per_s = 0.0

    def walk(v: Any, key: str = "") -> None:
        nonlocal bits_per_s
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            if key == "rate_schedule":
                for point in v:
                    if isinstance(point, list) and len(point) == 2:
                        walk(point[1], "rate_bps")
            else:
                for x in v:
                    walk(x, key)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            if key.endswith("rate_bps"):
                bits_per_s += abs(v)
            elif key.endswith("rate_baud"):
                bits_per_s += 6 * abs(v)

    walk(sc.get("links", []))
    duration = sc.get("duration_s")
    if not isinstance(duration, int | float) or isinstance(duration, bool):
        return math.inf
    bound = 2 * bits_per_s * abs(duration) / (8 * 40)  # both directions
    return bound if math.isfinite(bound) else math.inf


def check_trace(sc: dict[str, Any], columns: dict[str, Any] | None) -> None:
    """A trace exactly when the scenario names kinds: of those kinds, in
    time order, within the window and ``max_rows``."""
    from satcp.trace import frame

    wanted = sc.get("trace", {}).get("kinds")
    assert (columns is not None) == bool(wanted), (wanted, columns is None)
    if columns is None:
        return
    t = frame(columns)
    settings = sc["trace"]
    assert len(t) <= settings.get("max_rows", 5_000_000)
    assert set(t.kind.astype(str)) <= set(wanted)
    assert t.time_s.is_monotonic_increasing
    # the window opens at start_s rounded to the core's nanosecond
    assert (t.time_s >= settings.get("start_s", 0.0) - 1e-9).all()


def assert_one_line(e: BaseException) -> None:
    msg = str(e)
    assert msg.startswith("invalid ") or "scenario" in msg or ":" in msg, msg
    assert "\n" not in msg and msg.strip() == msg and msg, repr(msg)
    assert len(msg) < 2000, msg[:200]


def non_negative(v: Any, where: str) -> None:
    """Every number in the results is >= 0 (or NaN: no value)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return
    if isinstance(v, int | float):
        assert math.isnan(v) or v >= 0, f"{where} = {v}"
    elif isinstance(v, dict):
        for k, x in v.items():
            non_negative(x, f"{where}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            non_negative(x, f"{where}[{i}]")


def check_results(sc: dict[str, Any], r: dict[str, Any]) -> None:
    """The transport invariants the results show."""
    for part in ("flows", "links", "transfers", "stalls", "apps"):
        non_negative(r.get(part), part)
    assert r["events"] >= 0
    assert r["end_time_s"] <= float(sc["duration_s"]) + 1e-6, (r["end_time_s"], sc["duration_s"])
    for f in r["flows"]:
        srv, cli = f["server"], f["client"]
        for a, b in ((srv, cli), (cli, srv)):
            # Nothing is delivered that was not sent.
            assert b["bytes_delivered"] <= a["payload_bytes_sent"], f
            assert a["retransmitted_segments"] <= a["segments_sent"], f
            assert a["data_segments_sent"] <= a["segments_sent"], f
    for link in r["links"]:
        s = link["stats"]
        assert s["rx_packets"] <= s["tx_packets"] + s["duplicated"], link
        assert (
            s["tx_packets"]
            <= s["enqueued_packets"] + s["duplicated"] + s["arq_retransmissions"] + 1
        ), link
    for t in r["transfers"]:
        if t["response_time_s"] is not None:
            assert t["response_time_s"] >= 0, t
        if t["end_s"] is not None:
            assert t["end_s"] >= t["start_s"] - 1e-9, t


def check_cli_case(sc: dict[str, Any], tmp: str) -> str:
    """The same scenario through ``satcp run`` in-process, with --out and a
    capture of its first link: exit 0, or exit 2 with one line
    ``satcp: error: ...``; never a file outside --out (the working
    directory is ``tmp``, and ``tmp`` holds only ``out`` afterwards)."""
    from satcp import cli

    text = toml_document(sc)
    if text is None:
        return Outcome.REJECTED  # not a document TOML can hold (a null)
    toml_path = os.path.join(tmp, "in", "s.toml")
    os.makedirs(os.path.dirname(toml_path), exist_ok=True)
    os.makedirs(os.path.join(tmp, "work"), exist_ok=True)
    with open(toml_path, "w", encoding="utf-8") as f:
        f.write(text)
    links = sc.get("links")
    link = links[0] if isinstance(links, list) and links and isinstance(links[0], dict) else {}
    pcap = str(link.get("name", "0")) if isinstance(link.get("name", "0"), str) else "0"
    err, outs = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(os.path.join(tmp, "work"))
    try:
        with redirect_stderr(err), redirect_stdout(outs):
            code = cli.main(["run", toml_path, "--out", "out", "--pcap", pcap, "-q"])
    finally:
        os.chdir(cwd)
    lines = err.getvalue().splitlines()
    work = os.path.join(tmp, "work")
    left = sorted(os.listdir(work))
    if code == 0:
        assert left == ["out"], left
        # -q leaves only warnings a user must see (a trace cut at max_rows)
        assert all(ln.startswith("satcp: warning: ") for ln in lines), lines
        for name in os.listdir(os.path.join(work, "out")):
            assert os.path.isfile(os.path.join(work, "out", name)), name
        shutil.rmtree(os.path.join(work, "out"))
        return Outcome.RAN
    assert code == 2, (code, err.getvalue())
    assert len(lines) == 1 and lines[0].startswith("satcp: error: "), lines
    assert left == [], left  # nothing written
    return Outcome.REJECTED


def toml_value(v: Any) -> str | None:
    """``v`` as a TOML value (inline tables and arrays); None for a null."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # TOML's basic strings escape as JSON's do
    if isinstance(v, list):
        items = [toml_value(x) for x in v]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if isinstance(v, dict):
        items = [(json.dumps(k), toml_value(x)) for k, x in v.items()]
        if any(x is None for _, x in items):
            return None
        return "{" + ", ".join(f"{k} = {x}" for k, x in items) + "}"
    raise TypeError(type(v))


def toml_document(sc: dict[str, Any]) -> str | None:
    lines = []
    for k, v in sc.items():
        t = toml_value(v)
        if t is None:
            return None
        lines.append(f"{json.dumps(k)} = {t}")
    return "\n".join(lines) + "\n"
