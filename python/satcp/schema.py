"""The scenario format's reference: the JSON Schema the Rust core derives from
the types its parser reads (``satcp._core.scenario_schema``), and the
Markdown page made from it (``docs/scenario-reference.md``).

``satcp schema`` prints the schema; ``satcp schema --format markdown`` the
page. Both files are checked in under ``docs/``, and a test fails when they
differ from what the build prints, so the reference cannot fall behind the
parser.
"""

from __future__ import annotations

import json
from typing import Any

from . import _core

__all__ = ["json_schema", "json_text", "markdown"]


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario as the core reads it: a
    TOML file after :func:`satcp.load` (schedule files read in)."""
    return json.loads(_core.scenario_schema())


def json_text() -> str:
    """The schema as ``docs/scenario.schema.json`` holds it."""
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


# ---------------------------------------------------------------------------
# Markdown

_HEADER = """\
# Scenario reference

Every field of a satcp scenario file, with its type, unit, default, range
and meaning. This page is generated (`satcp schema --format markdown`) from
the JSON Schema that the Rust core derives from the types its parser reads
([scenario.schema.json](scenario.schema.json), `satcp schema`); a test
fails when either file differs from what the build prints, so do not edit
them by hand: regenerate them with `make schema`.

How to read it:

- A scenario is a TOML file (see the [README](../README.md#scenario-files)
  and the [examples](../scenarios/examples/README.md)). Every field has a
  default except those marked **required**; unknown fields are errors.
- Units are in the field names (`_s` seconds, `_bps` bits per second,
  `_bytes` bytes, `_packets` packets) or in the Unit column.
- Ranges are inclusive; `> 0` excludes zero. A field may have further rules
  that involve other fields (stated in its meaning), which `satcp validate`
  checks.
- A *table* is a TOML table (`errors = { ber = 1e-6 }` or `[links.errors]`),
  a *list* a TOML array.
- TCP settings are the `rfc` profile's by default; the column "linux"
  gives what `profile = "linux"` sets instead (a field set in the scenario
  always wins).
- Schedules (`delay_schedule`, `rate_schedule`, `errors.loss_schedule`) may
  also name a CSV file of `time_s,value` rows, read by `satcp` before the
  core sees the scenario ([leo.md](leo.md)).
- The `[emulate]` table holds the hosts and commands of `satcp emulate`
  ([emulation.md](emulation.md#the-emulate-table)); a simulation ignores it.
"""


def markdown(schema: dict[str, Any] | None = None) -> str:
    """The reference page of ``schema`` (default: this build's)."""
    s = schema if schema is not None else json_schema()
    out = [_HEADER]
    sections: list[tuple[str, str, dict[str, Any], bool]] = []
    props = s["properties"]
    top = {**s, "properties": {k: v for k, v in props.items()}}
    sections.append(("Top level", s.get("description", ""), top, False))
    _tables("[tcp]", props["tcp"], sections, tcp=True)
    link = props["links"]["items"]
    _tables("[[links]]", link, sections, skip=("ab", "ba"))
    for app in props["apps"]["items"]["oneOf"]:
        kind = app["properties"]["kind"]["const"]
        _tables(f'[[apps]] kind = "{kind}"', app, sections, skip=("tcp",))
    for router in props["routers"]["items"]["oneOf"]:
        kind = router["properties"]["kind"]["const"]
        _tables(f'[[routers]] kind = "{kind}"', router, sections)
    _tables("[[pep]]", props["pep"]["items"], sections)
    _tables("[trace]", props["trace"], sections)
    _tables("[emulate]", props["emulate"], sections)
    _tables("[[emulate.run]]", props["emulate"]["properties"]["run"]["items"], sections)
    out.append("## Contents\n")
    for title, _, _, _ in sections:
        out.append(f"- [{_code(title)}](#{_anchor(title)})")
    out.append("")
    for title, about, table, tcp in sections:
        out.append(f"## {_code(title)}\n")
        if about:
            out.append(_line(about) + "\n")
        out.append(_table(table, tcp))
    return "\n".join(out).rstrip() + "\n"


def _tables(
    title: str,
    s: dict[str, Any],
    sections: list[tuple[str, str, dict[str, Any], bool]],
    tcp: bool = False,
    skip: tuple[str, ...] = (),
) -> None:
    """Adds the section of table ``s`` and, after it, one per sub-table."""
    sections.append((title, s.get("description", ""), s, tcp))
    for name, p in s.get("properties", {}).items():
        if name in skip:
            continue
        sub = _object(p)
        if sub is not None and sub.get("properties"):
            if title.startswith("[tcp"):
                sub_title = f"{title[:-1]}.{name}]"
            elif title.endswith("]"):
                sub_title = f"{title} {name}"
            else:
                sub_title = f"{title}.{name}"
            _tables(sub_title, sub, sections)


def _object(p: dict[str, Any]) -> dict[str, Any] | None:
    """The table schema of property ``p``, if it is a table."""
    if "properties" in p:
        return p
    for alt in p.get("anyOf", []) + p.get("oneOf", []):
        if "properties" in alt:
            return {**alt, "description": p.get("description", alt.get("description", ""))}
    return None


def _table(s: dict[str, Any], tcp: bool) -> str:
    required = set(s.get("required", []))
    head = ["Field", "Type", "Unit", "Default"] + (["linux"] if tcp else []) + ["Range", "Meaning"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, p in s.get("properties", {}).items():
        sub = _object(p)
        is_table = sub is not None and sub.get("properties")
        if name in required:
            default = "**required**"
        elif "default" in p:
            default = _value(p["default"])
        elif is_table:
            default = "see its table" if name not in ("ab", "ba", "tcp") else ""
        elif p.get("type") == "object":
            default = "{} (no settings)"
        else:
            default = ""
        cells = [f"`{name}`", _type(p), p.get("x-unit", "")]
        cells.append(default)
        if tcp:
            cells.append(_value(p["x-default-linux"]) if "x-default-linux" in p else "")
        cells += [_range(p), _line(p.get("description", ""))]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def _type(p: dict[str, Any]) -> str:
    if "const" in p:
        return _value(p["const"])
    if "enum" in p:
        values = [v for v in p["enum"] if v is not None]
        if len(values) > _MAX_ENUM_IN_TYPE:
            return "string"
        return " or ".join(_value(v) for v in values)
    alts = p.get("oneOf") or p.get("anyOf")
    if alts:
        consts = [a["const"] for a in alts if "const" in a]
        if consts and len(consts) == len(alts):
            return " or ".join(_value(c) for c in consts)
        kinds = [_type(a) for a in alts if a.get("type") != "null"]
        return " or ".join(dict.fromkeys(kinds))
    t = p.get("type")
    types = [t] if isinstance(t, str) else [x for x in (t or []) if x != "null"]
    if "properties" in p or types == ["object"]:
        return "table"
    if types == ["array"]:
        items = p.get("items", {})
        if "prefixItems" in items:  # a schedule's [time_s, value] points
            return f"list of [{', '.join(_type(q) for q in items['prefixItems'])}]"
        n = items.get("minItems")
        if n is not None and n == items.get("maxItems") and "items" in items:
            return f"list of [{', '.join([_type(items['items'])] * n)}]"
        return f"list of {_type(items)}" if items else "list"
    return " or ".join(types)


def _num(v: float | int) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int) and abs(v) >= 10**6 and str(v).rstrip("0") in ("1", "-1"):
        return f"{'-' if v < 0 else ''}1e{len(str(abs(v))) - 1}"
    return str(v)


def _value(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return _num(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]" if v else "[]"
    if isinstance(v, dict):
        return "{}" if not v else "see its table"
    return json.dumps(v)


#: An enumeration longer than this is listed in the Range column.
_MAX_ENUM_IN_TYPE = 6


def _range(p: dict[str, Any]) -> str:
    points = p.get("items", {}).get("prefixItems") if isinstance(p.get("items"), dict) else None
    if points:  # each coordinate's range, as the points are written
        return "[" + ", ".join(_range(q) or "any" for q in points) + "] each"
    values = [v for v in p.get("enum", []) if v is not None]
    if len(values) > _MAX_ENUM_IN_TYPE:
        return "one of " + ", ".join(_value(v) for v in values)
    lo, hi = p.get("minimum"), p.get("maximum")
    xlo = p.get("exclusiveMinimum")
    if p.get("format", "").startswith("uint") and lo == 0 and hi is None:
        lo = None  # an unsigned integer: "zero or more" is its type
    parts = []
    if xlo is not None:
        parts.append(f"> {_num(xlo)}")
    if lo is not None and hi is not None:
        parts.append(f"{_num(lo)} to {_num(hi)}")
    elif lo is not None:
        parts.append(f">= {_num(lo)}")
    elif hi is not None:
        parts.append(f"<= {_num(hi)}")
    if "minLength" in p or "maxLength" in p:
        parts.append(f"{p.get('minLength', 0)} to {p.get('maxLength', 'any')} characters")
    if "minItems" in p and "maxItems" in p:
        parts.append(f"{p['minItems']} to {p['maxItems']} items")
    elif "minItems" in p:
        n = p["minItems"]
        parts.append(f"at least {n} item{'s' if n != 1 else ''}")
    if p.get("format", "").startswith(("uint", "int")) and not parts:
        parts.append(">= 0" if p["format"].startswith("uint") else "")
    return ", ".join(x for x in parts if x)


def _line(text: str) -> str:
    return " ".join(text.split())


def _code(title: str) -> str:
    return title if title == "Top level" else f"`{title}`"


def _anchor(title: str) -> str:
    """GitHub's anchor of a heading."""
    text = title.lower()
    keep = "".join(c for c in text if c.isalnum() or c in " -_")
    return keep.replace(" ", "-")
