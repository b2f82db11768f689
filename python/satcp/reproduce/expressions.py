"""The expressions and templates of a paper's data file.

An expression is a Python expression in a string that starts with "="
(``"= time_s['k2'] / time_s['reference']"``); it sees the names of its
scope (the paper's constants, cases and functions, a point's parameters, an
experiment's columns, ...) and :data:`BUILTINS`, nothing else. A template
is text with ``{expression}`` or ``{expression:format}`` fields, as in an
f-string; ``{{`` and ``}}`` are literal braces.

Both are compiled when the file is read (a syntax error names the key) and
evaluated later; an error while evaluating names the key too
(:class:`DataError`). The data file is the package's own, so evaluation
needs no sandbox: the restricted builtins keep expressions to what a
formula needs.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Mapping
from types import CodeType
from typing import Any

__all__ = [
    "BUILTINS",
    "DataError",
    "Expression",
    "Template",
    "compile_value",
    "evaluate",
    "is_expression",
    "names_in",
]

#: The builtins every expression sees.
BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in [
        "abs",
        "all",
        "any",
        "bool",
        "dict",
        "enumerate",
        "float",
        "format",
        "getattr",
        "int",
        "isinstance",
        "len",
        "list",
        "max",
        "min",
        "next",
        "range",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
    ]
} | {"nan": math.nan, "inf": math.inf, "isnan": math.isnan, "sqrt": math.sqrt, "log2": math.log2}


#: The names under which a part's pieces of prose are found.
PIECES = ("texts", "tables", "lists")


class DataError(ValueError):
    """A paper's data file that cannot be read, checked or evaluated; the
    message names the file and the key."""


def is_expression(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=")


class Expression:
    """A compiled expression of the data file; ``key`` is where it is."""

    def __init__(self, text: str, key: str) -> None:
        self.text = text.removeprefix("=").strip()
        self.key = key
        try:
            tree = ast.parse(self.text, key, "eval")
            self.code: CodeType = compile(tree, key, "eval")
        except SyntaxError as e:
            raise DataError(f"{key}: {self.text!r} is not an expression: {e.msg}") from None
        # The names it reads, and the pieces of prose (texts.NAME, ...) it asks for.
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id in PIECES
        }

    def __call__(self, scope: Mapping[str, Any]) -> Any:
        try:
            # Every name is a global, so that comprehensions and lambdas see it.
            return eval(self.code, {**scope, "__builtins__": BUILTINS})
        except DataError:
            raise
        except Exception as e:
            raise DataError(f"{self.key}: {self.text!r}: {type(e).__name__}: {e}") from e

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


class Template:
    """Text with ``{expression[:format]}`` fields. A paragraph (text
    between blank lines) that was nothing but fields and renders empty is
    left out, with its blank line: a paragraph that only some runs have."""

    def __init__(self, text: str, key: str) -> None:
        self.key = key
        self.paragraphs = [_parse(p, key) for p in text.split("\n\n")]

    def __call__(self, scope: Mapping[str, Any]) -> str:
        out = []
        for pieces in self.paragraphs:
            text = "".join(p if isinstance(p, str) else format(p[0](scope), p[1]) for p in pieces)
            if text or any(isinstance(p, str) and p for p in pieces) or not pieces:
                out.append(text)
        return "\n\n".join(out)


def _parse(text: str, key: str) -> list[str | tuple[Expression, str]]:
    """Literal pieces and (expression, format spec) fields."""
    pieces: list[str | tuple[Expression, str]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "{}" and text[i : i + 2] == c * 2:
            literal.append(c)
            i += 2
        elif c == "}":
            raise DataError(
                f"{key}: a single '}}' in {text[max(0, i - 30) : i + 1]!r} (write '}}}}')"
            )
        elif c == "{":
            end, colon = _field_end(text, i + 1, key)
            body = text[i + 1 : end]
            expr, spec = (body[:colon], body[colon + 1 :]) if colon >= 0 else (body, "")
            if literal:
                pieces.append("".join(literal))
                literal = []
            pieces.append((Expression(expr, key), spec))
            i = end + 1
        else:
            literal.append(c)
            i += 1
    if literal:
        pieces.append("".join(literal))
    return pieces


def _field_end(text: str, start: int, key: str) -> tuple[int, int]:
    """The index of the '}' closing the field that starts at ``start``, and
    the field's first top-level ':' (relative to ``start``; -1: none):
    brackets and quotes nest, as in an f-string."""
    depth, quote, colon = 0, "", -1
    for j in range(start, len(text)):
        c = text[j]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0 and c == "}":
                return j, colon
            depth -= 1
        elif c == ":" and depth == 0 and colon < 0:
            colon = j - start
    raise DataError(f"{key}: a '{{' without its '}}' in {text[start - 1 : start + 40]!r}")


def names_in(value: Any) -> set[str]:
    """Every name a compiled value (an expression, a template, or anything
    holding them: a text's alternatives, a table) reads, and the pieces of
    prose it asks for (``texts.gaps``: "gaps")."""
    if isinstance(value, Expression):
        return value.names
    if isinstance(value, Template):
        return {
            n for p in value.paragraphs for f in p if not isinstance(f, str) for n in names_in(f[0])
        }
    if isinstance(value, Mapping):
        return set().union(*(names_in(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(names_in(v) for v in value))
    if hasattr(value, "__dataclass_fields__"):
        return set().union(*(names_in(getattr(value, f)) for f in value.__dataclass_fields__))
    return set()


def compile_value(value: Any, key: str) -> Any:
    """A value of the data file made evaluable: an expression string
    compiled, a table or array compiled item by item, anything else as it
    is (see :func:`evaluate`)."""
    if is_expression(value):
        return Expression(value, key)
    if isinstance(value, Mapping):
        return {k: compile_value(v, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [compile_value(v, f"{key}[{i}]") for i, v in enumerate(value)]
    return value


def evaluate(value: Any, scope: Mapping[str, Any]) -> Any:
    """A compiled value (:func:`compile_value`) in ``scope``."""
    if isinstance(value, (Expression, Template)):
        return value(scope)
    if isinstance(value, Mapping):
        return {k: evaluate(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate(v, scope) for v in value]
    return value
