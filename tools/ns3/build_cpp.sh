#!/usr/bin/env bash
# Builds the ns-3 counterparts of satcp's benchmark scenarios as compiled C++
# programs (tools/ns3/cpp/*.cc) against the ns-3 3.44 headers and libraries
# that the PyPI wheel `ns3` ships (include/ and lib64/ in its package
# directory), with the compile definitions its libraries were built with
# (lib64/cmake/ns3/ns3Targets.cmake: the release profile, logging and
# asserts compiled in). The applications are the Python scripts' own
# (CPP_APPS of tools/ns3/thesis_ftp_ns3.py, written to satcp_apps.h), so a
# C++ program and its Python-driven twin simulate the same thing.
#
#   tools/ns3/build_cpp.sh NS3_VENV OUT_DIR     -> OUT_DIR/thesis_ftp, OUT_DIR/twenty_flows
set -euo pipefail
venv=${1:?NS3_VENV}; out=${2:?OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
purelib=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
ns3="$purelib/ns3"
test -d "$ns3/include/ns3" && test -d "$ns3/lib64" \
  || { echo "no ns-3 headers and libraries in $ns3 (pip install ns3==3.44.post0 into $venv)" >&2; exit 1; }
mkdir -p "$out"
"$venv/bin/python" - "$here" "$out/satcp_apps.h" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from thesis_ftp_ns3 import CPP_APPS  # the module imports no ns-3 at the top
text = "// Written by tools/ns3/build_cpp.sh from tools/ns3/thesis_ftp_ns3.py (CPP_APPS).\n#pragma once\n" + CPP_APPS
try:
    old = open(sys.argv[2]).read()
except OSError:
    old = None
if old != text:
    open(sys.argv[2], "w").write(text)
PY
CXX=${CXX:-g++}
DEFS="-D__LINUX__ -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE"
LIBS="-lns3.44-point-to-point -lns3.44-internet -lns3.44-traffic-control -lns3.44-bridge -lns3.44-network -lns3.44-core"
for src in "$here"/cpp/*.cc; do
  name=$(basename "$src" .cc)
  if [ -x "$out/$name" ] && [ "$out/$name" -nt "$src" ] && [ "$out/$name" -nt "$out/satcp_apps.h" ]; then
    continue
  fi
  echo "building $out/$name"
  $CXX -std=c++20 -O3 $DEFS -I"$out" -I"$ns3/include" "$src" -o "$out/$name.tmp" \
    -L"$ns3/lib64" -Wl,-rpath,"$ns3/lib64" $LIBS -lpthread
  mv "$out/$name.tmp" "$out/$name"
done
