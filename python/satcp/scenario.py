"""Scenario loading: TOML files, ``--set`` overrides, JSON for the core.

The scenario format itself (fields, defaults, validation) belongs to the Rust
core; every field is in ``docs/scenario-reference.md`` (generated from the
core's JSON Schema, :mod:`satcp.schema`). This module only

- reads a TOML file (or copies a dict),
- applies overrides such as ``links[1].ab.errors.ber=1e-6`` or ``tcp.variant=newreno``
  (a list item by its index or by its name: ``links[satellite].ab.errors.ber``),
- serializes the result to the JSON text that ``satcp._core`` accepts.

Every problem with the input is raised as :class:`satcp.ScenarioError` (a
``ValueError``) with a one-line message; a missing or unreadable file raises
the usual ``OSError``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping

from . import _core
from ._core import ScenarioError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["apply_override", "load", "parse_override", "parse_value", "to_json"]


class ItemName(str):
    """A step of an override path that names a list item: ``links[satellite]``
    is the link whose ``name`` is ``satellite`` (an unnamed link answers to
    ``a-b``, as in the results and ``--pcap``)."""


# One step of an override path: a key, a list index, or a list item's name.
PathStep = str | int | ItemName

# Patterns compiled on first use (re caches them), not at import: only
# --set and TOML errors need them.
_KEY = r"[A-Za-z0-9_-]+"
# A list index, or a list item's name (at least one letter or "_", so that
# "-1" is no name).
_INDEX = r"\[(?:(\d+)|([A-Za-z0-9_-]*[A-Za-z_][A-Za-z0-9_-]*))\]"
_TOML_POS = r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$"


def load(
    source: str | os.PathLike[str] | Mapping[str, Any],
    overrides: Iterable[str] = (),
    seed: int | None = None,
) -> dict[str, Any]:
    """Returns a scenario as a dict: read from a TOML file (a path) or copied
    from a mapping, with ``overrides`` (``"dotted.path[index].field=value"``)
    applied in order and, if given, ``seed`` set last."""
    if isinstance(source, Mapping):
        scenario = _copy_tree(source)
    elif isinstance(source, str | os.PathLike):
        scenario = read_toml(os.fspath(source))
        _read_schedule_files(scenario, os.path.dirname(os.path.abspath(os.fspath(source))))
    else:
        raise TypeError(f"a scenario is a path or a dict, not {type(source).__name__}")
    if isinstance(overrides, str):
        overrides = [overrides]
    for text in overrides:
        path, value = parse_override(text)
        apply_override(scenario, path, value)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ScenarioError(f"invalid scenario: seed: {seed!r} must be a whole number >= 0")
        scenario["seed"] = seed
    return scenario


def _copy_tree(value: Any) -> Any:
    """A copy of a scenario's tables and lists, so that overrides and seeds
    never change the caller's: what ``copy.deepcopy`` gives for the values
    a scenario holds (scalars are immutable and shared), at a fraction of
    its cost per run in a batch (``run_many``). A mapping becomes a dict; a
    tuple stays a tuple of copies."""
    t = type(value)
    if t is str or t is int or t is float or t is bool or value is None:
        return value  # the usual leaves, before the slower Mapping test
    if t is dict or isinstance(value, Mapping):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_tree(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy_tree(v) for v in value)
    return value


#: A link's schedules, by their path in a link or direction table.
SCHEDULES = (
    ("delay_schedule",),
    ("rate_schedule",),
    ("errors", "loss_schedule"),
    ("dvbs2", "esn0_schedule"),
)


def _read_schedule_files(scenario: dict[str, Any], base: str) -> None:
    """A link's ``delay_schedule`` / ``rate_schedule`` / ``errors.loss_schedule`` /
    ``dvbs2.esn0_schedule``
    as a file name (CSV, two columns: time in seconds and the value; ``#``
    comments and a header line allowed; relative to the scenario file) is read
    into the table of points the core takes."""
    links = scenario.get("links")
    if not isinstance(links, list):
        return  # not a list of tables: the core's validation names the field
    for i, link in enumerate(links):
        if not isinstance(link, dict):
            continue
        for where, table in [
            (f"links[{i}]", link),
            (f"links[{i}].ab", link.get("ab")),
            (f"links[{i}].ba", link.get("ba")),
        ]:
            for path in SCHEDULES:
                *inner, key = path
                holder = table
                for t in inner:
                    holder = holder.get(t) if isinstance(holder, dict) else None
                if isinstance(holder, dict) and isinstance(holder.get(key), str):
                    field = ".".join([where, *path])
                    holder[key] = read_schedule_csv(os.path.join(base, holder[key]), field)


#: The largest scenario or schedule file read, bytes: reading stops there
#: (an endless file such as /dev/zero never returns otherwise).
MAX_INPUT_BYTES = 64 << 20
#: The most points a schedule file may hold.
MAX_SCHEDULE_POINTS = 1_000_000


def _read_bounded(path: str, field: str) -> str:
    """A text file's content, at most MAX_INPUT_BYTES of it (else an
    error naming the field), decoded as UTF-8 (else an error)."""
    with open(path, "rb") as f:
        data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ScenarioError(
            f"invalid scenario: {field}: {path} is larger than {MAX_INPUT_BYTES >> 20} MB"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(
            f"invalid scenario: {field}: {path}: not UTF-8 text (byte {e.start})"
        ) from None


def read_schedule_csv(path: str, field: str = "schedule") -> list[list[float]]:
    """``[[time_s, value], ...]`` from a two-column CSV file."""
    if "\0" in path:
        # open() would raise ValueError, not OSError.
        raise ScenarioError(f"invalid scenario: {field}: {path!r} is not a file name (a NUL byte)")
    points = []
    try:
        text = _read_bounded(path, field)
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cells = [c.strip() for c in line.replace(";", ",").split(",")]
            try:
                t, v = float(cells[0]), float(cells[1])
            except (ValueError, IndexError):
                if not points:
                    continue  # a header line, before the data
                raise ScenarioError(
                    f"invalid scenario: {field}: {path} line {n}: {line!r} is not 'time_s, value'"
                ) from None
            points.append([t, v])
            if len(points) > MAX_SCHEDULE_POINTS:
                raise ScenarioError(
                    f"invalid scenario: {field}: {path} has more than {MAX_SCHEDULE_POINTS} points"
                )
    except OSError as e:
        raise ScenarioError(
            f"invalid scenario: {field}: cannot read {path}: {e.strerror}"
        ) from None
    return points


#: The deepest nesting of arrays and tables a TOML document may have: a
#: scenario needs four or five levels; thousands made tomllib (recursive)
#: raise RecursionError.
MAX_TOML_DEPTH = 32


class NotToml(ValueError):
    """A document that is not TOML, with tomllib's message (which ends with
    the line and column)."""


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """``tomllib.loads``, refusing documents nested deeper than
    MAX_TOML_DEPTH (ScenarioError naming ``where``) before they are read;
    a document that is not TOML raises NotToml.

    The core's reader (``_core.parse_toml``, the ``toml`` crate) reads most
    documents; it gives the same dict as tomllib or, where it cannot (a
    date or a time, a syntax error), None, and tomllib answers. tomllib is
    imported only then: its import is a sixth of ``satcp run``'s time."""
    depth = _max_bracket_depth(text)
    if depth > MAX_TOML_DEPTH:
        raise ScenarioError(
            f"{where}: arrays or tables nested {depth} deep, more than {MAX_TOML_DEPTH}"
        )
    doc = _core.parse_toml(text)
    if doc is not None:
        return doc
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NotToml(str(e)) from None
    except RecursionError:  # a bound above that the count below missed
        raise ScenarioError(f"{where}: nested too deeply") from None


def _max_bracket_depth(text: str) -> int:
    """An upper bound of a TOML document's nesting: the deepest run of
    open brackets and braces, strings included (a string with many brackets
    is no scenario either). Linear, with no recursion."""
    depth = deepest = 0
    for c in text:
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
    return deepest


def read_toml(path: str) -> dict[str, Any]:
    """A TOML file of at most MAX_INPUT_BYTES, UTF-8, nested at most
    MAX_TOML_DEPTH deep; any fault is a ScenarioError naming the file (and
    the line of a TOML error)."""
    with open(path, "rb") as f:
        data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ScenarioError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MB: not a scenario")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text (byte {e.start})") from None
    try:
        return parse_toml(text, path)
    except NotToml as e:
        msg = str(e)
        m = re.search(_TOML_POS, msg)
        if m and m.group(1):
            msg = msg[: m.start()]
            where = f"line {m.group(1)}, column {m.group(2)}"
        elif m:
            msg = msg[: m.start()]
            where = f"line {text.count(chr(10)) + 1} (end of file)"
        else:
            where = "line ?"
        raise ScenarioError(f"{path}: {where}: invalid TOML: {msg}") from None


def parse_override(text: str) -> tuple[list[PathStep], Any]:
    """Splits ``"a.b[2].c=value"`` into ``(["a", "b", 2, "c"], parsed value)``."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError(f"bad --set {text!r}: expected KEY=VALUE, e.g. tcp.variant=newreno")
    return parse_path(key), parse_value(raw.strip())


def parse_path(key: str) -> list[PathStep]:
    """``"links[1].ab.errors.ber"`` -> ``["links", 1, "ab", "errors", "ber"]``;
    ``links[satellite]`` gives the step ``ItemName("satellite")`` (a name
    is letters, digits, ``_`` and ``-``, with a letter or ``_``)."""
    steps: list[PathStep] = []
    for part in key.split("."):
        m = re.match(_KEY, part)
        if not m:
            raise ScenarioError(f"bad --set key {key!r}: {part!r} is not a field name")
        steps.append(m.group(0))
        rest = part[m.end() :]
        while rest:
            m = re.match(_INDEX, rest)
            if not m:
                raise ScenarioError(f"bad --set key {key!r}: cannot read {rest!r}")
            steps.append(int(m.group(1)) if m.group(1) else ItemName(m.group(2)))
            rest = rest[m.end() :]
    return steps


def parse_value(raw: str) -> Any:
    """A TOML value (integer, float, boolean, string, array, inline table); any
    text that is not one is taken as a plain string (so ``newreno`` works
    without quotes). TOML dates and times are kept as their text."""
    if raw == "":
        return ""
    try:
        value = parse_toml(f"v = {raw}", "--set")["v"]
    except NotToml:
        return raw
    # TOML's values but these are dates and times (datetime objects)
    if not isinstance(value, str | int | float | list | dict):
        return raw
    return value


def format_path(path: list[PathStep]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int | ItemName):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


def apply_override(scenario: dict[str, Any], path: list[PathStep], value: Any) -> None:
    """Sets ``value`` at ``path``, creating missing tables on the way (so
    ``tcp.variant`` works without a ``[tcp]`` table). A list index must
    exist, and so must a list item named."""
    node: Any = scenario
    for i, step in enumerate(path):
        last = i == len(path) - 1
        here = format_path(path[: i + 1])
        if isinstance(step, ItemName):
            step = _named_item(node, path, i)
        if isinstance(step, int):
            if not isinstance(node, list):
                parent = format_path(path[:i])
                raise ScenarioError(f"bad --set {format_path(path)}: {parent} is not a list")
            if step >= len(node):
                raise ScenarioError(
                    f"bad --set {format_path(path)}: {here} does not exist "
                    f"(the list has {len(node)} item{'s' if len(node) != 1 else ''})"
                )
            if last:
                node[step] = value
            else:
                node = node[step]
        else:
            if not isinstance(node, dict):
                parent = format_path(path[:i]) or "the scenario"
                raise ScenarioError(f"bad --set {format_path(path)}: {parent} is not a table")
            if last:
                node[step] = value
            elif step in node:
                node = node[step]
            elif isinstance(path[i + 1], int):
                raise ScenarioError(f"bad --set {format_path(path)}: {here} does not exist")
            else:
                node[step] = {}
                node = node[step]


def _item_names(item: Any, in_links: bool) -> list[str]:
    """The names a list item answers to: its ``name``; for a link without
    one, ``a-b``."""
    if not isinstance(item, Mapping):
        return []
    if "name" in item:
        return [str(item["name"])]
    if in_links:
        return [f"{item.get('a')}-{item.get('b')}"]
    return []


def _named_item(node: Any, path: list[PathStep], i: int) -> int:
    """The index of the item of list ``node`` named ``path[i]``."""
    where = format_path(path[:i])
    if not isinstance(node, list):
        raise ScenarioError(f"bad --set {format_path(path)}: {where} is not a list")
    in_links = path[:i] == ["links"]
    names = [_item_names(item, in_links) for item in node]
    for index, item_names in enumerate(names):
        if path[i] in item_names:
            return index
    known = ", ".join(n for item_names in names for n in item_names) or "none is named"
    raise ScenarioError(
        f"bad --set {format_path(path)}: {where} has no item named {str(path[i])!r} "
        f"({where}: {known})"
    )


def to_json(scenario: Mapping[str, Any], *, indent: int | None = None) -> str:
    """The scenario as JSON text for ``satcp._core``. Values JSON cannot carry
    (inf, nan, other objects) raise ScenarioError naming the field."""
    if not _is_json(scenario):
        _check_json(scenario, [])  # raises, naming the field
    return json.dumps(scenario, indent=indent, allow_nan=False)


def _is_json(value: Any) -> bool:
    """Whether :func:`_check_json` would accept ``value``, without the
    path it keeps for its message: the test of every run in a batch."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return True  # the usual leaves, before the slower Mapping test
    if t is float:
        return math.isfinite(value)
    if t is dict or isinstance(value, Mapping):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_is_json(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int | bool)


def _check_json(value: Any, path: list[PathStep]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(
                    f"invalid scenario: {format_path(path) or 'the scenario'}: key {k!r} "
                    "is not a string"
                )
            _check_json(v, [*path, k])
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_json(v, [*path, i])
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ScenarioError(
                f"invalid scenario: {format_path(path)}: {value} is not a finite number"
            )
    elif value is not None and not isinstance(value, str | int | bool):
        raise ScenarioError(f"invalid scenario: {format_path(path)}: {value!r} is not a JSON value")
