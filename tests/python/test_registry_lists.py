"""The lists of variants outside the registry come from it: the README's
family list and the variants `satcp compare` runs."""

import re
from pathlib import Path

from satcp import _core, compare

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_lists_every_family_in_registry_order():
    text = (ROOT / "README.md").read_text()
    m = re.search(r"# a family \(([^)]*)\)", text)
    assert m, "the README's scenario example lists the families"
    listed = [f.strip() for f in m.group(1).replace("#", " ").split("|")]
    families = [name for name, _about, _recoveries, _shorthands in _core.variant_families()]
    assert listed == families


def test_every_compared_configuration_is_a_valid_tcp_table():
    import json

    labels = [label for label, _ in compare.VARIANTS]
    assert labels == [label for label, _tcp in _core.compared_variants()]
    assert len(labels) == len(set(labels)), "labels are unique"
    for _label, tcp in compare.VARIANTS:
        scenario = {
            "nodes": ["a", "b"],
            "links": [{"a": "a", "b": "b", "rate_bps": 1e6, "delay_s": 0.01}],
            "tcp": tcp,
            "apps": [{"kind": "bulk", "client": "b", "server": "a", "bytes": 1000}],
        }
        _core.validate_json(json.dumps(scenario))  # raises ScenarioError


def test_compare_runs_the_modern_variants_on_the_linux_profile():
    profiles = {label: compare.profile_of(tcp) for label, tcp in compare.VARIANTS}
    for label in ("CUBIC", "Hybla", "Westwood+", "BBR"):
        assert profiles[label] == "linux", label
    for label in ("NewReno", "SACK", "TCP-ADaLR", "TCP-Peach"):
        assert profiles[label] == "rfc", label
