#!/usr/bin/env bash
# Flame graphs of the benchmark scenarios (docs/performance.md, "Where the
# time goes"). Not part of make test: it needs perf, and a machine that
# lets it sample.
#
#   tools/flamegraph.sh [SCENARIO ...]     default: a_thesis_ftp_50MB c_large_window_60s
#
# For each scenario, in docs/perf/: flame-SCENARIO.svg (the event loop's
# samples, inlined functions as frames of their own) and
# flame-SCENARIO.txt (the same as a table: each function's share of the
# loop, inclusive and self). The binary profiled is the benchmark's own
# PGO build (tools/pgo.sh), with line tables added so that inlined code
# is named; the tables move nothing else in the code. It is built in
# target/pgo/flame, apart from make bench's.
#
# Needs perf (Debian: apt-get install linux-perf) and inferno's
# inferno-collapse-perf and inferno-flamegraph (installed here with
# `cargo install --locked inferno` when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(a_thesis_ftp_50MB c_large_window_60s)

if ! command -v perf >/dev/null; then
    echo "flamegraph: perf not found (Debian: apt-get install linux-perf)" >&2
    exit 2
fi
if ! command -v inferno-flamegraph >/dev/null; then
    cargo install --locked --quiet inferno
fi

export CARGO_PROFILE_BENCH_DEBUG=line-tables-only SATCP_PGO_BENCH_DIR=flame
# Without PGO (SATCP_PGO=0) pgo.sh prints nothing: still a target
# directory of its own.
pgo_env="CARGO_TARGET_DIR=$PWD/target/flame $(tools/pgo.sh bench)"
bin=$(env $pgo_env cargo bench -p satcp-core --bench summary --no-run --message-format=json 2>/dev/null |
    python3 -c 'import sys, json; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/perf
for s in "${scenarios[@]}"; do
    # About a second of samples: enough repetitions of the scenario. (An
    # unknown name: the binary says which are known, exit status 2.)
    line=$("$bin" --one "$s" 1) || exit 2
    read -r _ events wall _ <<<"$line"
    runs=$(python3 -c "print(max(1, round(1.0 / max($wall, 1e-4))))")
    echo "flamegraph: $s, $events events, $runs runs" >&2
    perf record -q -e cpu-clock -F 10000 --call-graph dwarf,8192 -o "$tmp/perf.data" \
        "$bin" --one "$s" "$runs" >/dev/null
    perf script -i "$tmp/perf.data" 2>/dev/null | inferno-collapse-perf >"$tmp/all.folded"
    title="$s: $events events per run, $runs runs (satcp summary benchmark, PGO build)"
    python3 tools/flame_fold.py "$tmp/all.folded" "$tmp/loop.folded" "docs/perf/flame-$s.txt" --title "$title"
    inferno-flamegraph --title "$title" --width 1600 <"$tmp/loop.folded" >"docs/perf/flame-$s.svg"
    echo "flamegraph: docs/perf/flame-$s.svg, docs/perf/flame-$s.txt" >&2
done
