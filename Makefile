# satcp: build, test and reproduce.
#
#   make setup   .venv with the dev tools; the package (Rust extension
#                included) installed in editable mode via `maturin develop`
#   make run     setup + `satcp reproduce baseline` (thesis Tables 7.5, 7.8)
#                + `satcp reproduce adalr` (every TCP-ADaLR thesis experiment)
#                + `satcp reproduce peach` (every TCP-Peach paper experiment)
#                + `satcp reproduce slowstart` (every modified slow-start paper
#                experiment)
#                + `satcp reproduce tcpr` (every TCP-R with EPDN paper experiment)
#                + `satcp compare` (every variant on GEO and LEO path presets)
#                + `satcp report` (reports/index.html: all of it on one page)
#   make test    setup + Rust format/lint/tests + Python lint/tests
#   make bench   the core's criterion benchmarks
#   make validate  satcp against ns-3 3.44 under loss (own ns-3 venv; not in CI)
#
# setup is incremental: the venv is re-provisioned when requirements-dev.txt
# changes and the extension is rebuilt when Rust sources, Cargo files or
# pyproject.toml change (stamp files in .venv/). Python sources need no
# rebuild: the editable install points at python/.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
VENV_ABS := $(abspath $(VENV))
DEPS_STAMP := $(VENV)/.satcp-deps.stamp
BUILD_STAMP := $(VENV)/.satcp-build.stamp
RUST_SOURCES := $(shell find crates -type f \( -name '*.rs' -o -name Cargo.toml \) 2>/dev/null) \
	Cargo.toml Cargo.lock

# Build the pyo3 crate against the venv's interpreter everywhere (maturin,
# clippy), so that cargo does not rebuild pyo3 when switching between them.
export PYO3_PYTHON := $(VENV_ABS)/bin/python

.PHONY: setup system-tools run test test-rust test-python lint-rust lint-python bench clean validate

setup: $(BUILD_STAMP)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "satcp needs Python >= 3.11 (PYTHON=$(PYTHON))" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	@touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml
	VIRTUAL_ENV=$(VENV_ABS) $(BIN)/maturin develop --release --quiet
	@touch $@

run: setup
	$(BIN)/satcp reproduce baseline
	$(BIN)/satcp reproduce adalr
	$(BIN)/satcp reproduce peach
	$(BIN)/satcp reproduce slowstart
	$(BIN)/satcp reproduce tcpr
	$(BIN)/satcp compare
	$(BIN)/satcp report reports

test: setup system-tools lint-rust test-rust lint-python test-python

# Cross-validation against ns-3 3.44 under loss (not part of `make test`):
# the PyPI ns3 package in its own venv, then satcp and ns-3 side by side
# (tools/ns3/validate_loss.py; docs/validation-ns3.md, "Under loss").
NS3_VENV := build/ns3-venv
NS3_VERSION := 3.44.post0
validate: setup
	@test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	@$(NS3_VENV)/bin/pip show ns3 2>/dev/null | grep -qx 'Version: $(NS3_VERSION)' \
		|| $(NS3_VENV)/bin/pip install --quiet ns3==$(NS3_VERSION)
	$(BIN)/python tools/ns3/validate_loss.py --ns3-python $(abspath $(NS3_VENV))/bin/python
	$(BIN)/python tools/ns3/validate_loss.py --ns3-python $(abspath $(NS3_VENV))/bin/python \
		--points 'BER 1e-7,BER 1e-6,BER 1e-5' --ns3-extra '--ssthresh-rule flightsize'

# tshark reads the pcap files satcp writes (tests/python/test_pcap.py) and
# headless chromium renders the HTML report (tests/python/test_html_report.py);
# both come from Debian's packages, installed when missing and we may (root).
SYSTEM_TOOLS := tshark chromium
system-tools:
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >/dev/null; \
		else echo "not installed:$$missing (their tests will be skipped)"; fi; \
	fi

lint-rust: setup
	cargo fmt --all -- --check
	cargo clippy -p satcp-core --all-targets -- -D warnings
	cargo clippy -p satcp-py -- -D warnings

# Only the core: `cargo test --workspace` cannot link the pyo3 extension crate.
test-rust:
	cargo test -p satcp-core --release

lint-python: setup
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

test-python: setup
	$(BIN)/pytest -q tests/python

# First a table per benchmark scenario (wall time, events, events/s,
# ns/event, peak memory: benches/summary.rs), then criterion.
bench:
	cargo bench -p satcp-core --bench summary
	cargo bench -p satcp-core --bench scenarios

# Not in CI: satcp against ns-3 3.44 (PyPI `ns3`, in its own venv, never in
# .venv) on the thesis FTP and the 20-flow GEO scenario, run alternately;
# prints median wall-time ratios and peak memory. Slow (minutes per ns-3 run).
NS3_VENV ?= build/ns3-venv
NS3_PAIRS ?= 3
.PHONY: bench-ns3
bench-ns3:
	@test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	@$(NS3_VENV)/bin/python -c 'import ns' 2>/dev/null || $(NS3_VENV)/bin/pip install --quiet ns3==3.44.post0
	cargo bench -p satcp-core --bench summary --no-run
	$(PYTHON) tools/ns3/bench_vs_ns3.py --ns3-python $(NS3_VENV)/bin/python --pairs $(NS3_PAIRS) \
		--satcp-bench $$(cargo bench -p satcp-core --bench summary --no-run --message-format=json 2>/dev/null \
		| $(PYTHON) -c 'import sys, json; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')

clean:
	rm -rf $(VENV) python/satcp/_core*.so
