"""Where a result comes from: satcp's version, the git commit of the
checkout it runs from, the hash of what was run, the seed(s) and the
platform.

The commit is found at run time, not captured at build time: the Python
package runs from the checkout (an editable install), and `make setup`
rebuilds the extension only when Rust sources change, so a commit baked
into the extension would go stale with every Python-only commit. It is
the checkout's ``HEAD``, with ``-dirty`` appended when a tracked file
differs from it (untracked files, such as result folders, do not count);
``unknown`` when this package does not sit in a satcp checkout (installed
from a wheel) or git cannot be run. Nothing in it depends on the time, so
the same build, scenario and seed on the same machine give the same
provenance, and files that carry it stay byte-identical.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

UNKNOWN = "unknown"


def _git(repo: str, *args: str) -> str | None:
    try:
        p = subprocess.run(
            ["git", "-C", repo, *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


@functools.cache
def commit() -> str:
    """The commit of the satcp checkout this package runs from
    (``<sha>``, ``<sha>-dirty`` or ``unknown``; see the module docstring)."""
    return commit_of(os.path.dirname(os.path.abspath(__file__)))


def commit_of(here: str) -> str:
    """The commit of the satcp checkout that holds directory ``here``."""
    top = _checkout_top(here)
    if top is None:
        return UNKNOWN
    # One git process for both (a command waits for it): the branch
    # header names HEAD's commit, the other lines are changed tracked files.
    out = _git(top, "status", "--porcelain=v2", "--branch", "--untracked-files=no")
    if out is None:
        return UNKNOWN
    lines = out.splitlines()
    sha = next((ln.split()[2] for ln in lines if ln.startswith("# branch.oid ")), None)
    if not sha or not all(c in "0123456789abcdef" for c in sha):
        return UNKNOWN  # no commit yet: "(initial)"
    dirty = any(not ln.startswith("#") for ln in lines)
    return f"{sha}-dirty" if dirty else sha


def _checkout_top(here: str) -> str | None:
    """The work tree holding ``here`` (the nearest directory up with a
    ``.git`` entry, a directory or a worktree's file), if it is a satcp
    checkout and not some other repository the package was put in."""
    d = os.path.abspath(here)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            cargo = os.path.join(d, "crates", "satcp-core", "Cargo.toml")
            return d if os.path.isfile(cargo) else None
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def platform_name() -> str:
    """The operating system, machine and Python that ran it, in the words
    of ``platform.platform()`` without its processor name, which costs a
    ``uname -p`` process on Linux and is the machine name there anyway."""
    u = platform.uname()
    name = "-".join(x for x in (u.system, u.release, u.machine) if x)
    lib, version = platform.libc_ver()
    if lib:
        name += f"-with-{lib}{version}"
    return f"{name}; Python {platform.python_version()}"


def content_hash(value: Any) -> str:
    """SHA-256 of a JSON value's canonical text (keys sorted, no spaces):
    the same scenario, however its file is laid out, has the same hash."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def of_run(scenario: Mapping[str, Any] | None, seed: int | None) -> dict[str, Any]:
    """The provenance of one run of ``scenario`` (overrides and seed
    applied; None when not known) with ``seed``."""
    from . import __version__

    return {
        "satcp_version": __version__,
        "commit": commit(),
        "scenario_sha256": content_hash(scenario) if scenario is not None else None,
        "seed": seed,
        "platform": platform_name(),
    }


def of_sweep(sweep_doc: Mapping[str, Any]) -> dict[str, Any]:
    """The provenance of a sweep: ``sweep_doc`` is its base scenario,
    fixed overrides, axes and seeds."""
    from . import __version__

    return {
        "satcp_version": __version__,
        "commit": commit(),
        "base_scenario_sha256": content_hash(sweep_doc["base"]),
        "sweep_sha256": content_hash(sweep_doc),
        "seeds": list(sweep_doc["seeds"]),
        "platform": platform_name(),
    }


def version_line() -> str:
    """``satcp --version``: the version, commit and platform."""
    from . import __version__

    return f"satcp {__version__} (commit {commit()}; {platform_name()})"
