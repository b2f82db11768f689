"""The whole-scenario fuzzer's fixed-seed slice (issue 31 item 6; the
strategies and the property: ``scenario_fuzz.py``; the long run: ``make
fuzz-scenarios``). Every case is either rejected with one line or runs
within its budget and holds the transport invariants its results show:
never a panic, another exception, a hang, or a file outside --out."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from scenario_fuzz import Outcome, check_case, check_cli_case, scenarios

SLICE = settings(max_examples=250)  # on conftest's fixed profile

SEEN: Counter[str] = Counter()


@SLICE
@given(scenarios())
def test_every_scenario_is_rejected_cleanly_or_runs_within_its_budget(sc):
    SEEN[check_case(sc)] += 1


def test_the_slice_both_rejects_and_runs():
    """The slice exercises both sides of the property (a generator that
    only made invalid scenarios would test validation alone)."""
    if not SEEN:
        test_every_scenario_is_rejected_cleanly_or_runs_within_its_budget()
    assert SEEN[Outcome.RAN] >= 50, SEEN
    assert SEEN[Outcome.REJECTED] >= 30, SEEN


@settings(SLICE, max_examples=40)
@given(scenarios())
def test_the_command_line_exits_0_or_2_with_one_line_and_writes_only_out(sc):
    with tempfile.TemporaryDirectory() as tmp:
        check_cli_case(sc, tmp)


def test_the_generator_covers_every_registered_kind():
    """Among 1,500 scenarios drawn from seeds (the long run's way) that the
    core accepts: every registered variant, router function, queue kind,
    application kind and schedule, a split-connection proxy and two on
    one route."""
    from scenario_fuzz import (
        APP_KINDS,
        MAX_MEMORY,
        QUEUE_KINDS,
        ROUTER_KINDS,
        VARIANTS,
        random_scenario,
    )

    from satcp import _core
    from satcp.scenario import to_json

    seen: set[str] = set()
    for seed in range(1500):
        sc = random_scenario(seed)
        try:
            _core.validate_json(to_json(sc), MAX_MEMORY)
        except Exception:
            continue
        text = to_json(sc)
        tables = [sc, *sc["apps"]]
        seen |= {f"variant {t['tcp']['variant']}" for t in tables if "tcp" in t}
        seen |= {f"app {a['kind']}" for a in sc["apps"]}
        seen |= {f"router {r['kind']}" for r in sc.get("routers", [])}
        seen |= {"pep"} if sc.get("pep") else set()
        seen |= {"two proxies"} if len(sc.get("pep", [])) == 2 else set()
        seen |= {f"queue {q}" for q in QUEUE_KINDS if f'"queue": "{q}"' in text}
        seen |= {
            s
            for s in (
                "delay_schedule",
                "rate_schedule",
                "loss_schedule",
                "dvbs2",
                "esn0_schedule",
                "dvbrcs2",
            )
            if s in text
        }
    want = (
        {f"variant {v}" for v in VARIANTS}
        | {f"app {a}" for a in APP_KINDS}
        | {f"router {r}" for r in ROUTER_KINDS}
        | {f"queue {q}" for q in QUEUE_KINDS}
        | {"delay_schedule", "rate_schedule", "loss_schedule", "dvbs2", "esn0_schedule", "dvbrcs2"}
        | {"pep", "two proxies"}
    )
    assert want <= seen, sorted(want - seen)


def test_the_hang_check_spares_only_runs_that_ask_for_more_than_the_budget():
    """A run stopped at RUN_BUDGET_S is a hang unless its rates and duration
    allow more packet transmissions than MAX_CHECKED_TRANSMISSIONS: every
    scenario of the generator's own ranges stays checked; a valid hostile
    rate (a bulk flow on a 1 Tb/s link for a second: 3 x 10^8 events, found
    by the long run) does not."""
    from scenario_fuzz import MAX_CHECKED_TRANSMISSIONS, random_scenario, transmissions_bound

    sc = {
        "duration_s": 1.12,
        "links": [
            {"a": "n0", "b": "n1", "rate_bps": 1e12},
            {"a": "n1", "b": "n2", "rate_bps": 1e4, "rate_schedule": [[1.0, 5e7]]},
            {"a": "n2", "b": "n3", "dvbs2": {"symbol_rate_baud": 1e6}, "ba": {"rate_bps": 2e6}},
        ],
    }
    assert transmissions_bound(sc) > MAX_CHECKED_TRANSMISSIONS
    sc["links"] = sc["links"][1:]
    # 2 x (1e4 + 5e7 + 6e6 + 2e6) b/s x 1.12 s / 320 bits
    assert transmissions_bound(sc) == 2 * (1e4 + 5e7 + 6e6 + 2e6) * 1.12 / 320
    spared = [s for s in map(random_scenario, range(3000)) if "unknown_field" not in str(s)]
    within = [s for s in spared if transmissions_bound(s) <= MAX_CHECKED_TRANSMISSIONS]
    assert len(within) >= 0.98 * len(spared)


def test_a_proxys_leg_waits_for_its_peer_before_it_retires():
    """make fuzz-scenarios-checked, seed 236349119574098: a proxy's
    client-side leg retired while the client (in another connection) could
    still send to it, and the client's FIN, sent again, reached it (a Rust
    panic: "a retired endpoint was called")."""
    case = Path(__file__).parent / "fuzz_cases" / "proxy_leg_retired_before_client_fin.json"
    assert check_case(json.loads(case.read_text())) == Outcome.RAN
