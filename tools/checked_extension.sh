#!/usr/bin/env bash
# Builds the extension with debug assertions and overflow checks, optimised,
# into DIR/python: a copy of python/ with that build as satcp/_core, for a
# process run with PYTHONPATH=DIR/python (make fuzz-scenarios-checked). The
# venv's own build is left alone.
#
# The checks catch at their source what a release build lets through to
# show far away, or not at all: a packet released twice or read after its
# release (net::packet's pool), arithmetic that overflows, and each
# endpoint's transport invariants after every call (tcp::invariants).
#
#     tools/checked_extension.sh VENV DIR
set -euo pipefail
venv=$(cd "$1" && pwd)
dir=$2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/python" "$dir/wheel"
CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true \
CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true \
CARGO_PROFILE_RELEASE_LTO=false \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
CARGO_TARGET_DIR="$dir/target" \
    "$venv/bin/maturin" build --release --quiet -i "$venv/bin/python" -o "$dir/wheel"
cp -r python "$dir/python"
rm -f "$dir"/python/satcp/_core*.so
"$venv/bin/python" - "$dir" <<'PY'
import sys, zipfile
from pathlib import Path
d = Path(sys.argv[1])
(wheel,) = (d / "wheel").glob("*.whl")
with zipfile.ZipFile(wheel) as z:
    (so,) = [n for n in z.namelist() if n.startswith("satcp/_core")]
    (d / "python" / so).write_bytes(z.read(so))
print(f"checked extension: {d / 'python' / so}")
PY
