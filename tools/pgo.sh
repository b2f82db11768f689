#!/usr/bin/env bash
# Profile-guided optimisation (PGO) of the Rust core, for the builds whose
# speed is measured: make run, make bench, make bench-ns3, make flamegraph
# (docs/decisions/0012-profile-guided-optimisation.md). make setup and make
# test build the extension without it.
#
#   tools/pgo.sh extension VENV   build the Python extension into VENV
#                                 (`maturin develop --release`), with PGO
#                                 (make run)
#   tools/pgo.sh bench            make the benchmarks' profile; print the
#                                 environment `cargo bench` builds with
#                                 (in target/pgo/bench, or target/pgo/NAME
#                                 with SATCP_PGO_BENCH_DIR=NAME: a build
#                                 with other profile settings, such as
#                                 tools/flamegraph.sh's line tables, then
#                                 does not rebuild make bench's)
#
# PGO takes three steps: build instrumented, run the training workload
# (satcp_core::pgo_training: what users run, none of the benchmark
# scenarios; for the extension also the reproductions' --quick runs and a
# slice of make run's runs with other seeds) in
# that build, build again with what it counted. The training
# runs in the very build the profile is for (the extension, the benchmark
# binaries): a profile names functions by symbols that carry a hash of the
# crate graph, which differs between the two. The profile is made afresh
# on every build, so it always matches the code. Each build has its own
# target directory under target/pgo/ (the flags differ, and cargo would
# otherwise rebuild every dependency whenever it switches between them).
#
# PGO needs the compiler's own llvm-profdata (rustup's llvm-tools
# component, installed here when missing). Where it cannot be had, or with
# SATCP_PGO=0, everything builds without PGO: results are the same either
# way (PGO moves and inlines code; no floating-point licence is involved),
# only the speed differs.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=$1

profdata_tool() {
    [ "${SATCP_PGO:-1}" != 0 ] || return 1
    local host tool
    host=$(rustc -vV | sed -n 's/^host: //p')
    tool="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
    if [ ! -x "$tool" ] && command -v rustup >/dev/null 2>&1; then
        timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
    fi
    [ -x "$tool" ] && echo "$tool"
}

note() { echo "pgo: $*" >&2; }

# The extension's training also runs what make run runs, reduced: every
# reproduction and compare with --quick (some 20 s of simulation; their
# own outputs, in a temporary directory, are thrown away), two at a time.
# The paper set's models (RED with ECN, the router functions, reordering,
# the priority queue, the TCP-R and Peach families) then weigh in the
# profile as they do in make run: TCP-R's simulations 8-10 % faster than
# with pgo_training alone, Peach's some 6 %
# (docs/decisions/0012-profile-guided-optimisation.md). Then every 20th of
# make run's own runs at full length, with other seeds
# (tools/pgo_paper_runs.py): their steady state, which the short --quick
# runs hardly reach; make run's cores some 2-3 % faster again.
train_on_reproductions() {
    local venv=$1 tmp names
    # Those without a reduced set (baseline: under a second) run whole.
    names=$("$venv/bin/python" -c 'import satcp.reproduce as r
print("\n".join(n + (" --quick" if e.quick else "") for n, e in r.REGISTRY.items()))')
    # Made once the names are known, so that no failure before leaves it.
    tmp=$(mktemp -d)
    note "training on the reproductions: $(echo $names) compare --quick"
    # xargs appends a line's words (a name, maybe --quick) to the command.
    export PGO_PYTHON="$venv/bin/python" PGO_OUT="$tmp"
    if ! { printf '%s\n' "$names" |
        xargs -P2 -L1 sh -c '"$PGO_PYTHON" -m satcp reproduce "$@" --out "$PGO_OUT/$1"' sh &&
        "$venv/bin/python" -m satcp compare --quick --out "$tmp/compare"; } >"$tmp/log" 2>&1; then
        tail -20 "$tmp/log" >&2
        rm -rf "$tmp"
        note "a training run failed"
        return 1
    fi
    rm -rf "$tmp"
}

mkdir -p target/pgo
# Where the instrumented build writes its counts: a fixed directory per
# build, emptied before each training, so that RUSTFLAGS stay the same from
# one build to the next and cargo rebuilds only what changed (a fresh
# temporary directory made it rebuild every dependency every time).
raw_dir() { local d="$PWD/target/pgo/$1.raw"; rm -rf "$d"; mkdir -p "$d"; echo "$d"; }

case "$mode" in
extension)
    venv=$(cd "$2" && pwd)
    raw=$(raw_dir extension)
    develop() { VIRTUAL_ENV=$venv "$venv/bin/maturin" develop --release --quiet; }
    if ! tool=$(profdata_tool); then
        note "off (SATCP_PGO=0 or no llvm-profdata): the extension is built without it"
        develop
        exit 0
    fi
    RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR=target/pgo/extension-gen develop
    "$venv/bin/python" -c 'from satcp import _core; print("pgo: training,", _core._pgo_training(), "events")' >&2
    train_on_reproductions "$venv"
    "$venv/bin/python" tools/pgo_paper_runs.py 20
    "$tool" merge -o target/pgo/extension.profdata "$raw"
    RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/extension.profdata" CARGO_TARGET_DIR=target/pgo/extension develop
    note "the extension is built with target/pgo/extension.profdata"
    ;;
bench)
    if ! tool=$(profdata_tool); then
        note "off (SATCP_PGO=0 or no llvm-profdata): the benchmarks are built without it"
        exit 0
    fi
    dir=target/pgo/${SATCP_PGO_BENCH_DIR:-bench}
    raw=$(raw_dir "${SATCP_PGO_BENCH_DIR:-bench}")
    export CARGO_TARGET_DIR=$dir-gen
    RUSTFLAGS="-Cprofile-generate=$raw" cargo bench --quiet -p satcp-core --bench summary --no-run
    bin=$(RUSTFLAGS="-Cprofile-generate=$raw" cargo bench -p satcp-core --bench summary --no-run --message-format=json 2>/dev/null |
        python3 -c 'import sys, json; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')
    "$bin" --train >&2
    "$tool" merge -o "$dir.profdata" "$raw"
    note "the benchmarks are built with $dir.profdata"
    # Absolute: criterion writes its reports under the target directory,
    # relative to the crate it runs in.
    echo "RUSTFLAGS=-Cprofile-use=$PWD/$dir.profdata CARGO_TARGET_DIR=$PWD/$dir"
    ;;
*)
    echo "usage: tools/pgo.sh extension VENV | bench" >&2
    exit 2
    ;;
esac
