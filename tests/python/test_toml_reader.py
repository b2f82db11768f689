"""Scenarios are read by the core's TOML reader (``_core.parse_toml``, the
``toml`` crate), with tomllib answering only where it cannot: the reader
must give exactly tomllib's dict (types, values, key order) or leave the
document to tomllib, never accept what tomllib refuses (issue 33: importing
tomllib was a sixth of ``satcp run``'s time). The TOML 1.0 conformance
suite's check: ``tools/toml_conformance.py``."""

from __future__ import annotations

import importlib.util
import json
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satcp import _core
from satcp.scenario import NotToml, parse_toml, parse_value

ROOT = Path(__file__).resolve().parents[2]
REPO_DOCS = sorted(
    p
    for d in ("scenarios", "python/satcp", "fuzz/corpus/scenario_text")
    for p in (ROOT / d).rglob("*")
    if p.is_file() and (p.suffix == ".toml" or "corpus" in p.parts)
)


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Equal values of equal types, floats bit for bit (NaN's sign, -0.0), dict
# keys in the same order: the conformance tool's comparison.
same = _tool("toml_conformance").same

FUZZ = settings(max_examples=400)  # on conftest's fixed profile


def tomllib_answer(text: str) -> object:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return NotToml(str(e))


def check_reader(text: str) -> bool:
    """The property: the core's reader gives tomllib's dict or None.
    Returns whether it read the document."""
    ours = _core.parse_toml(text)
    if ours is None:
        return False
    ref = tomllib_answer(text)
    assert not isinstance(ref, NotToml), f"read what tomllib refuses ({ref}): {text!r}"
    assert same(ours, ref), f"{ours!r} != tomllib's {ref!r} for {text!r}"
    return True


# Documents the reader must read as tomllib does.
READ = [
    "",
    "# only a comment\n",
    'name = "thesis"\nseed = 1\n',
    "a = 1\nb = -0\nc = +17\nd = 1_000\ne = 0xDEAD_beef\nf = 0o755\ng = 0b1101\n",
    "i = 9223372036854775807\nj = -9223372036854775808\n",
    "a = 0.1\nb = -0.0\nc = +1.5\nd = 6.626e-34\ne = 5e+22\nf = 1e1_0\ng = 224_617.445_991\n",
    "a = inf\nb = -inf\nc = +inf\nd = nan\ne = -nan\nf = +nan\n",
    "tiny = 1e-400\nneg = -1e400\n",
    "a = true\nb = false\n",
    r'a = "tab\there, quote \" backslash \\ unicode \u00e9 \U0001F600"' + "\n",
    "a = 'C:\\Users\\literal'\n",
    'a = """\nfirst\nsecond"""\n',
    'a = """\\\n   folded \\\n   line"""\n',
    "a = '''\nraw \\n kept'''\n",
    'a = """two\r\nlines"""\r\nb = 2\r\n',
    "a = [1, 2, 3]\nb = [ [1, 2], ['x', \"y\"] ]\nc = [\n  1,\n  2,\n]\nd = []\n",
    "a = [1, 2.0, 'mixed', true, [], {}]\n",
    "p = { x = 1, y = { z = [1, 2] } }\ne = {}\n",
    "a.b.c = 1\na.b.d = 2\n'quoted key' = 3\n\"é\" = 4\n",
    "[tcp]\nvariant = 'sack'\n[tcp.sub]\nx = 1\n[other]\n",
    "[[links]]\nname = 'a'\n[[links]]\nname = 'b'\n[links.ab]\nrate_bps = 2e6\n",
    "z = 1\na = 2\nm = 3\n[b]\ny = 1\nx = 2\n",  # key order kept
    "[a.b.c]\n[a]\nx = 1\n",  # a super-table defined after its child
    "a = 1 # comment\n[t] # comment\n",
    '"\\ufefe" = 1\n',
]

# Documents tomllib refuses: the reader must not read them (parse_toml
# then raises NotToml with tomllib's message).
REFUSED = [
    "a = 1\na = 2\n",
    "[t]\n[t]\n",
    "a = { x = 1, }\n",
    "a = { x = 1,\n y = 2 }\n",
    "a = 01\n",
    "a = 1__0\n",
    "a = .5\n",
    "a = 5.\n",
    "a = 1e\n",
    "a = 0x\n",
    "a = +0x10\n",
    "a = tru\n",
    "a = 'unterminated\n",
    'a = "bad escape \\q"\n',
    'a = "bare\rcr"\n',
    "a = 1\r\n\rb = 2\n",
    "[a]\nb = 1\n[a.b]\n",
    "a = [1, 2\n",
    "a.b = 1\na = 2\n",
    "t = {}\n[t]\n",
    "[[a]]\n[a]\n",
    "a = 1 b = 2\n",
    "= 1\n",
    'a = "\x00"\n',
    "a = 1 # \x01\n",
    "a = \x7f\n",
    "\ufeffa = 1\n",  # a byte-order mark: tomllib refuses it
]


@pytest.mark.parametrize("text", READ)
def test_the_reader_reads_what_tomllib_reads(text):
    assert check_reader(text), f"left to tomllib: {text!r}"
    assert same(parse_toml(text, "x"), tomllib.loads(text))


@pytest.mark.parametrize("text", REFUSED)
def test_what_tomllib_refuses_is_refused_with_its_message(text):
    assert _core.parse_toml(text) is None
    ref = tomllib_answer(text)
    assert isinstance(ref, NotToml)
    with pytest.raises(NotToml) as e:
        parse_toml(text, "x")
    assert str(e.value) == str(ref)


@pytest.mark.parametrize(
    "text",
    [
        "when = 1979-05-27T07:32:00Z\n",
        "d = 1979-05-27\n",
        "t = 07:32:00\n",
        "a = [1, { at = 1979-05-27T00:32:00.999999-07:00 }]\n",
        "huge = 9223372036854775808\n",  # beyond i64: tomllib's int
        "neg = -9223372036854775809\n",
        "big = 1e400\n",  # the crate refuses +1e400 (but reads -1e400)
    ],
)
def test_dates_and_numbers_too_large_are_tomllibs(text):
    assert _core.parse_toml(text) is None
    assert same(parse_toml(text, "x"), tomllib.loads(text))


def test_text_that_is_not_unicode_is_left_to_tomllib():
    text = "a = '\udcff'\n"  # an undecodable command-line byte (surrogateescape)
    assert _core.parse_toml(text) is None
    assert parse_value("'\udcff'") == "\udcff"  # as tomllib reads it


def test_set_values_read_as_before():
    assert parse_value("1979-05-27") == "1979-05-27"  # a date stays text
    assert parse_value("newreno") == "newreno"  # not TOML: text
    assert parse_value("[1, 2.5]") == [1, 2.5]
    assert parse_value("{ rate_bps = 2e6 }") == {"rate_bps": 2e6}
    assert parse_value("99999999999999999999") == 99999999999999999999


@pytest.mark.parametrize("path", REPO_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_toml_file_of_the_project_is_read_by_the_core(path):
    """Every scenario, preset and paper file, and the fuzz corpus's
    documents (one of them cut short), are read without tomllib or refused
    as tomllib refuses them."""
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    assert check_reader(text) == (not isinstance(tomllib_answer(text), NotToml))


# Documents of the values a scenario has, written as TOML in several styles.
KEYS = st.sampled_from(["a", "b", "rate_bps", "x-y", "_", "1", '"q k"', "'lit'", '"é"', "a.b"])
STRINGS = st.text(st.characters(codec="utf-8"), max_size=12)
SCALARS = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from(["0x1F", "0o17", "0b101", "+1", "1_000"]),
    st.floats(allow_nan=True, allow_infinity=True).map(
        lambda f: "nan" if f != f else ("inf" if f > 0 else "-inf") if math.isinf(f) else repr(f)
    ),
    st.sampled_from(["true", "false", "6.626e-34", "1e1_0", "-0.0", "+nan"]),
    STRINGS.map(lambda s: json.dumps(s, ensure_ascii=False)),
    STRINGS.map(lambda s: json.dumps(s)),
    st.from_regex(r"[a-z ]{0,8}", fullmatch=True).map(lambda s: f"'{s}'"),
)


def _values(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return SCALARS
    inner = _values(depth - 1)
    return st.one_of(
        SCALARS,
        st.lists(inner, max_size=4).map(lambda v: "[" + ", ".join(v) + "]"),
        st.lists(st.tuples(KEYS, inner), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k} = {v}" for k, v in kv) + "}"
        ),
    )


LINES = st.one_of(
    st.tuples(KEYS, _values(2)).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    KEYS.map(lambda k: f"[{k}]"),
    KEYS.map(lambda k: f"[[{k}]]"),
    st.just("# comment"),
    st.just(""),
)
DOCUMENTS = st.tuples(st.lists(LINES, max_size=8), st.sampled_from(["\n", "\r\n"])).map(
    lambda d: d[1].join(d[0]) + d[1]
)


@FUZZ
@given(DOCUMENTS)
def test_generated_documents(text):
    """Every document without dates, integers beyond 64 bits or a
    byte-order mark that tomllib reads, the core reads, to the same dict;
    what tomllib refuses, the core refuses."""
    read = check_reader(text)
    assert read or isinstance(tomllib_answer(text), NotToml), f"left to tomllib: {text!r}"


SEEDS = [t for t in READ if t] + [p.read_text() for p in REPO_DOCS if p.suffix == ".toml"]
EDIT_CHARS = st.sampled_from([*"=[]{}.,\"'#\\ \n\r\t0123456789+-_exabintfu", "\x00", "é"])


@FUZZ
@given(
    st.sampled_from(SEEDS),
    st.lists(
        st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.floats(0, 1), EDIT_CHARS),
        min_size=1,
        max_size=3,
    ),
)
def test_edited_documents(seed, edits):
    """Documents a few keystrokes from valid ones (mostly invalid): the
    core reads them as tomllib does or leaves them to it."""
    text = seed
    for op, where, char in edits:
        i = int(where * len(text))
        if op == "insert":
            text = text[:i] + char + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + char + text[i + 1 :]
    check_reader(text)
