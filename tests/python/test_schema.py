"""The scenario reference: the JSON Schema the core derives from its
parser's types, the Markdown page made from it, both checked in under
docs/ and current; `satcp schema`; and every scenario the project ships
valid under the schema."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import REPO, run_cli

import satcp
from satcp import schema

DOCS = REPO / "docs"
SCHEMA_FILE = DOCS / "scenario.schema.json"
REFERENCE = DOCS / "scenario-reference.md"
REGENERATE = "regenerate it with `make schema`"

SCENARIOS = sorted(
    [
        *(REPO / "scenarios").glob("*.toml"),
        *(REPO / "scenarios" / "examples").glob("*.toml"),
        *(REPO / "python" / "satcp" / "scenarios").glob("*.toml"),
    ]
)
SCENARIOS = [p for p in SCENARIOS if p.name != "sweep.toml"]


@pytest.fixture(scope="module")
def validator():
    s = schema.json_schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def test_the_checked_in_schema_is_current():
    assert SCHEMA_FILE.read_text() == schema.json_text(), f"{SCHEMA_FILE} is stale: {REGENERATE}"


def test_the_checked_in_reference_is_current():
    assert REFERENCE.read_text() == schema.markdown(), f"{REFERENCE} is stale: {REGENERATE}"


def test_satcp_schema_prints_both():
    p = run_cli("schema")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == schema.json_schema()
    p = run_cli("schema", "--format", "markdown")
    assert p.returncode == 0, p.stderr
    assert p.stdout == REFERENCE.read_text()


def leaves(s, path=""):
    """(path, schema, required) of every property that is not itself a
    table or a list of tables."""
    for name, p in s.get("properties", {}).items():
        sub = schema._object(p)
        items = p.get("items")
        if sub is not None and sub.get("properties"):
            yield from leaves(sub, f"{path}.{name}")
        elif p.get("type") == "object":
            continue  # a table without settings (it must be empty)
        elif isinstance(items, dict) and ("properties" in items or "oneOf" in items):
            yield from leaves(items, f"{path}.{name}[]")
        else:
            yield f"{path}.{name}", p, name in s.get("required", [])
    for alt in s.get("oneOf", []):
        yield from leaves(alt, path)


def nullable(p):
    t = p.get("type")
    return (isinstance(t, list) and "null" in t) or any(
        a.get("type") == "null" for a in p.get("anyOf", [])
    )


def test_every_field_has_a_type_a_meaning_and_a_default_or_is_required():
    fields = list(leaves(schema.json_schema()))
    assert len(fields) > 250
    for path, p, required in fields:
        assert p.get("description"), path
        assert schema._type(p), path
        # No default: required, or optional (not set: none).
        assert "default" in p or required or nullable(p), path


def test_every_field_is_on_the_reference_page():
    page = REFERENCE.read_text()
    for path, _, _ in leaves(schema.json_schema()):
        name = path.rsplit(".", 1)[-1]
        assert f"| `{name}` |" in page, path


def test_units_come_from_the_field_names_and_beside_the_fields():
    tcp = schema.json_schema()["properties"]["tcp"]["properties"]
    assert tcp["min_rto"]["x-unit"] == "s"  # beside the field
    assert tcp["mss"]["x-unit"] == "bytes"
    link = schema.json_schema()["properties"]["links"]["items"]["properties"]
    assert link["delay_s"]["x-unit"] == "s"  # from the name
    assert link["rate_bps"]["x-unit"] == "bit/s"
    assert link["queue_packets"]["x-unit"] == "packets"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_scenario_is_valid_under_the_schema(path, validator):
    scenario = satcp.load(path)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(scenario)]
    assert not errors, errors


@pytest.mark.parametrize(
    "override",
    [
        "links[0].mtu=1500",  # unknown field
        "tcp.variant=vegas",  # not a variant
        "links[0].errors.ber=2",  # beyond its range
        "links[0].queue=wfq",  # not a queue
        "apps[0].kind=ssh",  # not an application
        "tcp.cubic.beta=1.0",  # an exclusive bound
        "emulate.hosts=['client']",  # too few hosts
        "emulate.run=[{host='client'}]",  # a command without cmd
        "emulate.run=[{host='client', cmd='true', every_s=1}]",  # unknown field
    ],
)
def test_the_schema_rejects_what_the_parser_rejects(override, validator):
    path, value = satcp.scenario.parse_override(override)
    scenario = satcp.load(REPO / "scenarios" / "thesis_ftp.toml")
    satcp.scenario.apply_override(scenario, path, value)
    assert list(validator.iter_errors(scenario))
    with pytest.raises(satcp.ScenarioError):
        satcp._core.validate_json(json.dumps(scenario))


def test_every_compare_preset_is_valid_under_the_schema(validator):
    from satcp import compare

    for preset, (_, factory) in compare.PRESETS.items():
        for label, tcp in compare.VARIANTS:
            errors = [e.message for e in validator.iter_errors(factory(tcp, 120.0))]
            assert not errors, (preset, label, errors)


def test_satcp_validate_checks_the_emulate_table(tmp_path):
    """`satcp validate` reads `[emulate]` as `satcp emulate` does: one line
    naming the field, exit 2."""
    example = REPO / "scenarios" / "examples" / "emulate_leo_cubic.toml"
    good = example.read_text()
    assert run_cli("validate", example).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text(good.replace("background = true", "background = 3", 1))
    p = run_cli("validate", bad)
    assert p.returncode == 2, p.stderr
    assert "emulate.run[0].background" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
