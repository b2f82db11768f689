"""The ``satcp`` command.

    satcp run FILE [--set K=V]... [--seed N] [--sample-interval S]
                   [--out DIR] [--format csv|parquet] [--quiet] [--pcap LINK[:DIR]]...
                   [--max-memory SIZE] [--trace KINDS]
    satcp validate FILE [--set K=V]...
    satcp variants
    satcp reproduce [--list]                       (the reproductions, one line each)
    satcp reproduce NAME [--out DIR] [--workers N] [--quick]
    satcp plot RESULTS_DIR|SWEEP_DIR [--out DIR]
    satcp report [FOLDER] [--out FILE]
    satcp sweep FILE [--out DIR] [--workers N] [--scheduler ADDRESS] [--quiet]
                     [--max-memory SIZE]
    satcp compare [--out DIR] [--preset NAME]... [--seconds S] [--seeds N] [--quick]

Bad input (a missing file, a TOML error, an invalid scenario, a bad --set or
command line) prints one line ``satcp: error: <message>`` on stderr and
exits with status 2, having written nothing. Anything else that goes wrong
is a bug in satcp: one line ``satcp: internal error: ...`` asking for a
report, exit status 70 (EX_SOFTWARE); ``SATCP_TRACEBACK=1`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import functools
import gc
import math
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

PROG = "satcp"
EXIT_BAD_INPUT = 2
#: A bug, not the user's input (sysexits.h's EX_SOFTWARE).
EXIT_INTERNAL = 70
#: Where a bug is reported, in the one line of an internal error.
REPORT_HINT = "this is a bug in satcp: please report it with the command line"


class UsageError(Exception):
    """Bad input; the message is shown as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors are one line and exit through UsageError,
    and its help is laid out by :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, as wide as the terminal, found without
    importing shutil (with bz2 and lzma, 4 ms): argparse makes a formatter
    for every argument it is given, and asks shutil for the width."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2  # as HelpFormatter does
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS, else the width of
    the terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


#: `satcp compare`'s path presets, for its help text without importing the
#: comparison (and pandas) at start-up; `test_compare.py` checks it against
#: `satcp.compare.PRESETS`.
COMPARE_PRESETS = ("thesis-geo", "peach-geo", "starlink", "leo-trace", "starlink-isl")


def _build_parser() -> argparse.ArgumentParser:
    """The parser, argparse's translations of its own words remembered
    while it is built: argparse asks gettext for them for every parser and
    argument it makes, and each ask searches the disk for message catalogs
    (33 searches here, 2.3 ms of a 100 ms command on a slow host). The
    answers cannot change meanwhile; argparse's own are put back after."""
    translate = argparse._
    argparse._ = functools.cache(translate)
    try:
        return _parser()
    finally:
        argparse._ = translate


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="Packet-level simulator of TCP over satellite links.",
    )
    p.add_argument(
        "--version",
        action="store_true",
        help="print the version, the git commit and the platform, and exit",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def scenario_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("file", metavar="FILE", help="scenario TOML file")
        sp.add_argument(
            "--set",
            dest="overrides",
            metavar="K=V",
            action="append",
            default=[],
            help="override a field, e.g. tcp.variant=newreno or links[1].ab.errors.ber=1e-6 "
            "(a list item by index or name: links[satellite].delay_s=0.3; repeatable; "
            "the value is read as TOML, else as a string)",
        )
        sp.add_argument("--seed", type=int, help="random seed (overrides the file's)")

    def max_memory_arg(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--max-memory",
            type=_memory_size,
            metavar="SIZE",
            default=None,
            help="refuse a run estimated to need more memory than SIZE bytes "
            "(k, M, G, T: powers of 1000; default 2G)",
        )

    r = sub.add_parser("run", help="run a scenario and print a summary")
    scenario_args(r)
    r.add_argument(
        "--sample-interval",
        type=float,
        metavar="S",
        help="time-series interval in seconds (0: none)",
    )
    max_memory_arg(r)
    r.add_argument("--out", metavar="DIR", help="write tables, results.json, scenario.json here")
    r.add_argument("--format", choices=("csv", "parquet"), default="csv", help="table format")
    r.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    r.add_argument(
        "--pcap",
        action="append",
        metavar="LINK[:DIR]",
        default=[],
        help="write what was sent on a link direction (ab or ba, default ab) as a pcap file "
        "<link>-<dir>.pcap, in --out or the current directory (repeatable)",
    )
    r.add_argument(
        "--trace",
        metavar="KINDS",
        default=None,
        help="record every change of these, comma-separated, into trace.parquet in --out: "
        "cwnd, ssthresh, rtt (each sample), srtt, rto, state, retx, queue, queue_bytes, "
        "or all (docs/traces.md)",
    )

    v = sub.add_parser("validate", help="check a scenario without running it")
    scenario_args(v)

    sub.add_parser("variants", help="list the TCP variants")

    sc = sub.add_parser(
        "schema",
        help="print the scenario format: its JSON Schema, or the reference page "
        "(docs/scenario-reference.md)",
    )
    sc.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="json: the JSON Schema (docs/scenario.schema.json); markdown: the reference page",
    )

    rp = sub.add_parser("reproduce", help="reproduce published results")
    rp.add_argument(
        "what",
        nargs="?",
        metavar="NAME",
        help="a reproduction; without one (or with --list) the reproductions are listed",
    )
    rp.add_argument("--list", action="store_true", help="list the reproductions and exit")
    rp.add_argument("--out", metavar="DIR", default=None, help="default: reports/<what>")
    rp.add_argument("--workers", type=int, default=None, help="parallel runs (default: cores)")
    rp.add_argument(
        "--quick",
        action="store_true",
        help="a reduced set of runs (for tests; not every reproduction has one)",
    )
    rep = sub.add_parser("report", help="one self-contained HTML page of the reproductions")
    rep.add_argument("folder", nargs="?", default="reports", help="default: reports")
    rep.add_argument("--out", metavar="FILE", default=None, help="default: FOLDER/index.html")

    pl = sub.add_parser(
        "plot", help="draw a run's time series, or a sweep's means over its axes, as PNG"
    )
    pl.add_argument("results", help="a directory written by `satcp run --out` or by `satcp sweep`")
    pl.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="default: the results directory (a sweep's: its plots/)",
    )

    sw = sub.add_parser("sweep", help="run a grid of scenarios (cached, resumable)")
    sw.add_argument("file", help="sweep file (TOML: base, seeds, [set], [axes])")
    sw.add_argument("--out", metavar="DIR", default=None, help="default: sweeps/<file name>")
    sw.add_argument(
        "--workers", type=int, default=None, help="local parallel runs (default: cores)"
    )
    sw.add_argument(
        "--scheduler", metavar="ADDRESS", default=None, help="a Dask distributed scheduler"
    )
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar or summary")
    max_memory_arg(sw)

    em = sub.add_parser(
        "emulate",
        help="real hosts (network namespaces) joined by a scenario's links in real time "
        "(Linux, root; docs/emulation.md)",
    )
    em.add_argument("file", metavar="FILE", nargs="?", help="scenario TOML file")
    em.add_argument(
        "--set",
        dest="overrides",
        metavar="K=V",
        action="append",
        default=[],
        help="override a field, as in `satcp run` (repeatable)",
    )
    em.add_argument("--seed", type=int, help="random seed (overrides the file's)")
    em.add_argument(
        "--out", metavar="DIR", default=".", help="emulation.json, captures, $SATCP_OUT"
    )
    em.add_argument(
        "--pcap",
        action="append",
        metavar="LINK[:DIR]",
        default=[],
        help="capture the frames sent on a link direction (ab or ba, default ab) as "
        "<link>-<dir>.pcap in --out (repeatable)",
    )
    em.add_argument(
        "--host", default=None, help="the host of `-- COMMAND` (default: the first host)"
    )
    em.add_argument(
        "--cleanup",
        action="store_true",
        help="remove what emulations whose controller is gone left behind, and exit",
    )

    cp = sub.add_parser(
        "compare", help="every variant on named path presets: ranking table and plots"
    )
    cp.add_argument("--out", metavar="DIR", default=None, help="default: reports/compare")
    cp.add_argument(
        "--preset",
        action="append",
        metavar="NAME",
        help="a path preset (repeatable; default: all): " + ", ".join(COMPARE_PRESETS),
    )
    cp.add_argument("--seconds", type=float, default=120.0, help="transfer length (default 120)")
    cp.add_argument("--seeds", type=int, default=3, help="seeds per point (default 3)")
    cp.add_argument("--workers", type=int, default=None, help="parallel runs (default: cores)")
    cp.add_argument("--quick", action="store_true", help="30 s transfers, 2 seeds")
    return p


_SIZE_UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def _memory_size(text: str) -> float:
    """``--max-memory``'s value: bytes, or a number with k, M, G or T
    (powers of 1000, a trailing B allowed: 500M, 2G, 1.5GB)."""
    t = text.strip().lower().removesuffix("b")
    unit = t[-1:] if t[-1:] in _SIZE_UNITS else ""
    try:
        v = float(t[: len(t) - len(unit)]) * _SIZE_UNITS[unit]
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size (bytes, or a number with k, M, G or T: 2G, 500M)"
        )
    return v


def _one_line(msg: object) -> str:
    return " ".join(str(msg).split()) or "unknown error"


def _os_error(e: OSError) -> str:
    what = e.strerror or str(e)
    if e.filename is not None:
        return f"{e.filename}: {what}"
    return what


def console() -> NoReturn:
    """The ``satcp`` command (and ``python -m satcp``): :func:`main`, then
    exit with its status. Every object is frozen out of the cycle
    collector first (``gc.freeze``): the interpreter's shutdown collects
    while it clears the modules, walking each object the imports made,
    some 5 ms of a 100 ms ``satcp run`` on a slow host, for nothing but
    cycles of a process that is ending. Finalizers, atexit functions and
    files are closed as before. (``--help`` exits from within main.)"""
    try:
        status = main()
    finally:
        gc.freeze()
    sys.exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except UsageError as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `satcp run ... | head`): not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except SystemExit:
        raise  # argparse's --help and usage
    except BaseException as e:  # a Rust panic is a BaseException, not an Exception
        if os.environ.get("SATCP_TRACEBACK"):
            raise
        print(_internal_error(e), file=sys.stderr)
        return EXIT_INTERNAL


def _internal_error(e: BaseException) -> str:
    """The one line of an unexpected exception: its type, its message and
    where to report it (a traceback is for developers: SATCP_TRACEBACK=1)."""
    return (
        f"{PROG}: internal error: {type(e).__name__}: {_one_line(e)} "
        f"({REPORT_HINT}; SATCP_TRACEBACK=1 shows the traceback)"
    )


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `satcp emulate FILE -- COMMAND ...`: the command is not satcp's to parse.
    command: list[str] = []
    if "emulate" in argv and "--" in argv[argv.index("emulate") :]:
        cut = argv.index("--", argv.index("emulate"))
        argv, command = argv[:cut], argv[cut + 1 :]
    args = _build_parser().parse_args(argv)
    args.command_argv = command
    if args.version:
        from .provenance import version_line

        print(version_line())
        return 0
    if args.command is None:
        raise UsageError(
            "a command is needed: run, validate, variants, schema, reproduce, compare, "
            "sweep, plot, report or emulate"
        )

    # Imported here so that `--help` and usage errors stay fast.
    from . import ScenarioError

    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "validate":
            return _cmd_validate(args)
        if args.command == "variants":
            return _cmd_variants()
        if args.command == "schema":
            return _cmd_schema(args)
        if args.command == "reproduce":
            return _cmd_reproduce(args)
        if args.command == "compare":
            return _cmd_compare(args)
        if args.command == "sweep":
            return _cmd_sweep(args)
        if args.command == "plot":
            return _cmd_plot(args)
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "emulate":
            return _cmd_emulate(args)
    except ScenarioError as e:
        raise UsageError(e) from None
    raise AssertionError(args.command)


def _load(
    args: argparse.Namespace, sample_interval_s: float | None = None, keep_emulate: bool = False
) -> dict:
    from . import _resolve

    try:
        return _resolve(
            args.file,
            seed=args.seed,
            overrides=args.overrides,
            sample_interval_s=sample_interval_s,
            keep_emulate=keep_emulate,
        )
    except OSError as e:
        raise UsageError(_os_error(e)) from None


def _cmd_validate(args: argparse.Namespace) -> int:
    from . import _core
    from .scenario import to_json

    sc = _load(args, keep_emulate=True)
    _core.validate_json(to_json(sc))
    print(
        f"{args.file}: ok ({len(sc.get('nodes', []))} nodes, {len(sc.get('links', []))} links, "
        f"{len(sc.get('apps', []))} apps)"
    )
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    """The scenario format, derived by the core from its parser's types."""
    from . import schema

    sys.stdout.write(schema.markdown() if args.format == "markdown" else schema.json_text())
    return 0


def _cmd_variants() -> int:
    """Each variant family with its loss recoveries and shorthand names,
    then the router function kinds a scenario's [[routers]] may use."""
    from . import _core

    for name, about, recoveries, shorthands in _core.variant_families():
        rec = ", ".join(recoveries)
        names = f" (also: {', '.join(shorthands)})" if shorthands else ""
        print(f"{name}{names}\n    recovery: {rec}\n    {about}")
    print("\nrouter functions ([[routers]] kind = ...):")
    for kind, about in _core.router_kinds():
        print(f"{kind}\n    {about}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from . import ScenarioError, _core, _run_resolved, _run_watched, progress
    from .scenario import to_json

    sc = _load(args, args.sample_interval)
    if args.trace is not None:
        from . import _set_trace

        try:
            _set_trace(sc, args.trace)
        except ScenarioError as e:
            raise UsageError(f"--trace: {str(e).removeprefix('trace: ')}") from None
    text = to_json(sc)
    _core.validate_json(text, args.max_memory)
    if args.out is not None:
        _check_out_dir(args.out)
    # While the core runs (without the GIL), this thread imports what
    # reading the results needs and, with --out, what writing the files
    # needs and the commit they name (a git process).
    ready = _ready_to_write if args.out is not None else _ready_to_read
    if args.pcap:
        res, pcaps = _run_with_pcap(sc, args)
    elif progress.enabled(not args.quiet):
        res, pcaps = _run_watched(sc, text, args.max_memory, ready), []
    else:
        res, pcaps = _run_resolved(sc, text, max_memory=args.max_memory, meanwhile=ready), []
    try:
        if args.out is not None:
            try:
                res.write(args.out, args.format)
            except OSError as e:
                raise UsageError(f"cannot write {args.out}: {_os_error(e)}") from None
    except BaseException:
        if pcaps:  # the captures' temporary folder goes too
            _remove_tree(pcaps[0][0])
        raise
    _move_pcaps(pcaps, args.out or ".")
    if res.trace_truncated_at_s is not None:  # even with --quiet: rows are missing
        print(
            f"{PROG}: warning: the trace stopped at {len(res.trace):,} rows "
            f"(trace.max_rows) at t = {res.trace_truncated_at_s:.3f} s",
            file=sys.stderr,
        )
    if not args.quiet:
        print(res.summary())
        if args.out is not None:
            print(f"wrote {args.out} ({args.format})")
        if res.has_trace:
            where = "trace.parquet" if args.out is not None else "not written: no --out"
            print(f"trace: {len(res.trace):,} rows ({where})")
    return 0


def _ready_to_read() -> None:
    """Imports what the results (:class:`satcp.results.Results`) need."""
    from . import results  # noqa: F401


def _ready_to_write() -> None:
    """Imports what :meth:`Results.write` imports and finds the commit its
    provenance names (cached)."""
    from . import provenance

    _ready_to_read()
    provenance.commit()


def _run_with_pcap(sc: dict[str, Any], args: argparse.Namespace):
    """Runs with captures written into a temporary directory first (moved
    into place by :func:`_move_pcaps` once everything succeeded)."""
    import tempfile

    from . import ScenarioError, _link_direction
    from . import run as run_scenario

    # Every capture is checked before anything is written: a known link
    # direction, named once, whose file name stays in the folder.
    names: dict[str, str] = {}
    seen: dict[int, str] = {}
    for key in args.pcap:
        try:
            direction = _link_direction(sc, key)
        except ScenarioError as e:
            raise UsageError(f"--pcap: {e}") from None
        name, _, d = key.partition(":")
        fname = f"{name}-{d or 'ab'}.pcap"
        if direction in seen or fname in names.values():
            first = seen.get(direction) or next(k for k, f in names.items() if f == fname)
            raise UsageError(f"--pcap {key}: the same capture as --pcap {first}")
        if not _plain_file_name(fname):
            raise UsageError(f"--pcap {key}: {fname!r} is not a plain file name")
        seen[direction] = key
        names[key] = fname
    parent = os.path.dirname(os.path.abspath(args.out or "."))
    try:
        tmp = tempfile.mkdtemp(prefix=".satcp-pcap-", dir=parent)
    except OSError as e:
        raise UsageError(f"--pcap: cannot write in {parent}: {e.strerror or e}") from None
    files = {}
    try:
        for key, fname in names.items():
            path = os.path.join(tmp, fname)
            # The second guard: never a file outside the capture folder.
            if os.path.dirname(os.path.realpath(path)) != os.path.realpath(tmp):
                raise UsageError(f"--pcap {key}: {fname!r} would be written outside --out")
            files[key] = path
        try:
            res = run_scenario(sc, pcap=files, max_memory=args.max_memory)
        except OSError as e:
            raise UsageError(f"--pcap: {e}") from None
    except BaseException:
        _remove_tree(tmp)
        raise
    return res, [(tmp, os.path.basename(f)) for f in files.values()]


def _plain_file_name(name: str) -> bool:
    """A name that is one file in a folder: no separator, no ``..``, no
    control character, not too long."""
    return (
        0 < len(name) <= 255
        and os.sep not in name
        and "/" not in name
        and "\\" not in name
        and ".." not in name
        and all(c.isprintable() for c in name)
    )


def _move_pcaps(pcaps: list[tuple[str, str]], out: str) -> None:
    if not pcaps:
        return
    tmp = pcaps[0][0]
    try:
        os.makedirs(out, exist_ok=True)
        for d, name in pcaps:
            os.replace(os.path.join(d, name), os.path.join(out, name))
    except OSError as e:
        raise UsageError(f"cannot write {out}: {_os_error(e)}") from None
    finally:
        _remove_tree(tmp)


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _check_out_dir(out: str) -> None:
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out}: exists and is not a directory")


def _cmd_emulate(args: argparse.Namespace) -> int:
    from . import emulate

    try:
        if args.cleanup:
            emulate.check_machine()
            removed = emulate.cleanup_stale()
            for netns in removed:
                print(f"removed {netns}")
            print(f"{len(removed)} stale namespaces removed")
            return 0
        if args.file is None:
            raise UsageError("emulate: a scenario FILE is needed (or --cleanup)")
        sc = _load(args, keep_emulate=True)
        pcap = []
        for key in args.pcap:
            link, _, d = key.partition(":")
            if not _plain_file_name(f"{link}-{d or 'ab'}.pcap"):
                raise UsageError(f"--pcap {key}: not a plain file name")
            pcap.append((link, d or "ab"))
        summary = emulate.emulate(
            sc,
            out=args.out,
            pcap=pcap,
            command=args.command_argv,
            command_host=args.host,
        )
    except emulate.EmulationError as e:
        raise UsageError(e) from None
    except OSError as e:
        raise UsageError(_os_error(e)) from None
    return 1 if summary["commands_failed"] else 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .html_report import write_report

    out = args.out or os.path.join(args.folder, "index.html")
    try:
        p = write_report(args.folder, out)
    except (OSError, ValueError) as e:
        raise UsageError(_os_error(e) if isinstance(e, OSError) else str(e)) from None
    print(f"wrote {p}")
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from .plot import plot_results
    from .sweep_plot import is_sweep_dir, plot_sweep

    if not os.path.isdir(args.results):
        raise UsageError(f"{args.results}: not a results directory")
    draw = plot_sweep if is_sweep_dir(args.results) else plot_results
    try:
        paths = draw(args.results, args.out)
    except (OSError, ValueError) as e:
        raise UsageError(_os_error(e) if isinstance(e, OSError) else str(e)) from None
    print(f"wrote {len(paths)} figures: {', '.join(os.path.basename(p) for p in paths)}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from . import ScenarioError, _core, sweep

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: {args.workers} must be at least 1")
    if args.scheduler is not None:
        _need_dask()
    try:
        sw = sweep.load_sweep(args.file)
    except OSError as e:
        raise UsageError(_os_error(e)) from None

    def check(i: int, job: sweep.Job) -> None:
        # The runs of a point differ only in their seeds (checked by
        # load_sweep): the core validates one of each point's runs, before
        # anything is written.
        try:
            _core.validate_json(job.text, args.max_memory)
        except ScenarioError as e:
            raise UsageError(f"run {i} {job.point}: {e}") from None

    stem = os.path.splitext(os.path.basename(args.file))[0]
    out = args.out or os.path.join("sweeps", stem)
    try:
        res = sweep.run_sweep(
            sw,
            out,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=not args.quiet,
            max_memory=args.max_memory,
            check=check,
        )
    except OSError as e:
        raise UsageError(_os_error(e)) from None
    except sweep.ClusterError as e:
        raise UsageError(e) from None
    if not args.quiet:
        print(
            f"{sw.count()} runs: {res.computed} computed, {res.cached} from the cache, "
            f"{len(res.failed)} failed; wrote {os.path.join(out, 'tables')}"
        )
    for f in res.failed:
        print(f"failed: {f}", file=sys.stderr)
    # Even with --quiet: the means of these points are over fewer runs.
    for line in res.unfinished_points():
        print(f"unfinished: {line}", file=sys.stderr)
    return 1 if res.failed else 0


def _need_dask() -> None:
    """--scheduler needs Dask's ``distributed``, an optional dependency."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(
            "--scheduler: needs Dask's distributed package (pip install distributed)"
        ) from None


def _cmd_compare(args: argparse.Namespace) -> int:
    from . import compare, progress
    from ._gc_policy import few_collections

    presets = args.preset or list(compare.PRESETS)
    for name in presets:
        if name not in compare.PRESETS:
            raise UsageError(f"--preset: {name!r} is not a preset ({', '.join(compare.PRESETS)})")
    seconds, seeds = (30.0, 2) if args.quick else (args.seconds, args.seeds)
    if not (seconds > 0 and math.isfinite(seconds)):
        raise UsageError(f"--seconds: {seconds} must be a positive number")
    if seeds < 1:
        raise UsageError(f"--seeds: {seeds} must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: {args.workers} must be at least 1")
    out = args.out or compare.DEFAULT_OUT
    try:
        with progress.runs("compare"), few_collections():
            rows, paths = compare.compare(
                out, presets, seconds, tuple(range(1, seeds + 1)), args.workers
            )
    except OSError as e:
        raise UsageError(_os_error(e)) from None
    for p in presets:
        best = [r for r in rows if r.preset == p][:3]
        podium = ", ".join(f"{r.variant} ({r.profile}) {r.goodput_mbps:.2f}" for r in best)
        print(f"{p}: {podium} Mb/s")
    print(f"wrote {os.path.join(out, 'ranking.md')} and {len(paths) - 1} more files")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from . import progress
    from . import reproduce as registry
    from ._gc_policy import few_collections
    from .reproduce.experiment import MissingPart
    from .reproduce.experiment import Report as EngineReport

    if args.list or args.what is None:
        print("\n".join(registry.listing()))
        return 0
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: must be at least 1")
    try:
        what = registry.load(args.what)
    except registry.UnknownReproduction as e:
        raise UsageError(e) from None
    entry = registry.REGISTRY[args.what]
    if args.quick and not entry.quick:
        have = ", ".join(n for n, e in registry.REGISTRY.items() if e.quick)
        raise UsageError(f"--quick: 'reproduce {args.what}' has no reduced set (these do: {have})")
    out = args.out if args.out is not None else what.DEFAULT_OUT
    _check_out_dir(out)
    kwargs = {"quick": args.quick} if entry.quick else {}
    try:
        # the engine's parts report to the progress bar
        with progress.runs(f"reproduce {args.what}"), few_collections():
            report = what.reproduce(out_dir=out, workers=args.workers, **kwargs)
    except OSError as e:
        raise UsageError(_os_error(e)) from None
    except MissingPart as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 1
    if not isinstance(report, EngineReport):  # baseline: its own report
        print(report.markdown, end="")
        print(f"\nwrote {os.path.join(out, 'baseline.md')} and baseline.csv")
        return 0
    _print_reproduction(out, report)
    return 0


def _print_reproduction(out: str, report: Any) -> None:
    """The claims that do not hold and how many do (or, for a reproduction
    whose claims are in its sections, its summary), then the files written."""
    claims = report.claims
    if claims:
        for c in claims:
            if not c.reproduced:
                print(
                    f"not reproduced: {c.where}: {c.statement}: paper "
                    f"{c.paper_text or c.value(c.paper) if c.paper is not None else '-'}, "
                    f"satcp {c.value(c.satcp)}"
                )
        held = sum(1 for c in claims if c.reproduced)
        print(f"\n{held} of {len(claims)} claims of the paper hold in satcp; ", end="")
    else:
        md = report.markdown
        start = md.find("## Summary")
        end = md.find("\n## ", start + 1)
        print(md[start:end].rstrip("\n") if start >= 0 else md.splitlines()[0])
        print()
    csvs = sum(p.endswith(".csv") for p in report.paths)
    pngs = sum(p.endswith(".png") for p in report.paths)
    parts = ", ".join(f"{p.module} {p.section.seconds:.1f} s" for p in report.parts)
    print(
        f"wrote {os.path.join(out, 'report.md')}, {csvs} CSV and {pngs} PNG files "
        f"in {report.seconds:.1f} s ({parts})"
    )


if __name__ == "__main__":
    sys.exit(main())
