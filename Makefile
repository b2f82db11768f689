# satcp: build, test and reproduce.
#
#   make setup   .venv with the dev tools; the package (Rust extension
#                included) installed in editable mode via `maturin develop
#                --release`: an ordinary incremental release build, the
#                fast loop after a Rust change
#   make run     the same, with the extension built with profile-guided
#                optimisation (tools/pgo.sh; SATCP_PGO=0 uses setup's
#                build), then
#                `satcp reproduce baseline` (thesis Tables 7.5, 7.8)
#                + `satcp reproduce adalr` (every TCP-ADaLR thesis experiment)
#                + `satcp reproduce peach` (every TCP-Peach paper experiment)
#                + `satcp reproduce slowstart` (every modified slow-start paper
#                experiment)
#                + `satcp reproduce tcpr` (every TCP-R with EPDN paper experiment)
#                + `satcp compare` (every variant on GEO and LEO path presets)
#                + `satcp report` (reports/index.html: all of it on one page)
#   make test    setup + Rust format/lint/tests + Python lint/tests
#   make claims-docs  rewrite the claims tables of docs/adalr-claims.md from
#                the last full run in reports/ (tools/claims_doc.py; refuses
#                a --quick run)
#   make schema  regenerate docs/scenario.schema.json and
#                docs/scenario-reference.md from the core (a test checks
#                that they are current)
#   make bench   the core's benchmarks (summary table, then criterion),
#                built with profile-guided optimisation (tools/pgo.sh)
#   make bench-cli, bench-sweep, bench-ns3  whole-process times: the satcp
#                command, sweeps of many short runs, satcp against ns-3 3.44
#                compiled as C++ (not in CI)
#   make bench-run  make run's wall and CPU time after the build, and its
#                outputs compared round by round (not in CI)
#   make bench-beam  a GEO beam of 100 to 3,000 terminals: cost per terminal
#   make validate  satcp against ns-3 3.44 under loss (own ns-3 venv; not in CI)
#   make validate-modern  CUBIC, BBR, Westwood+, Hybla and NewReno (linux
#                profile) against ns-3 3.44 on a GEO and a LEO path, lossless
#                and under random loss (own ns-3 venv; not in CI; ns-3's 154
#                runs take hours on 2 cores, Hybla's GEO runs up to 14 min
#                each; they are cached, so a rerun redoes only satcp's side)
#   make emu     satcp emulate's relay, target/release/satcp-emu (make test
#                builds it: tests/python/test_emulate.py, root, Linux)
#   make bench-emu  satcp emulate's relay: packets/s it forwards, delay
#                error at 100 Mb/s (root; tools/bench_emu.py; not in CI)
#   make validate-linux  a download simulated and emulated over the kernel's
#                reno, cubic, bbr on GEO, GEO+BER, LEO and Gilbert-Elliott paths,
#                into build/validate-linux (root; tools/validate_linux.py;
#                docs/validation-linux.md; emulated runs cached; not in CI)
#   make flamegraph  flame graphs of benchmark scenarios a and c into docs/perf/
#                (perf and inferno; not in CI: tools/flamegraph.sh)
#   make soak    the transport-invariant property test with PROPTEST_CASES
#                cases per variant configuration (default 31,000: over a
#                million in all); prints the count
#   make fuzz    the whole-scenario fuzzer (fuzz-scenarios), then cargo-fuzz
#                (nightly) on both fuzz targets, FUZZ_SECONDS each (default
#                600); prints the cases and executions
#   make fuzz-scenarios  the whole-scenario fuzzer (hypothesis, in process)
#                for FUZZ_SECONDS; prints the cases and cases/hour
#   make fuzz-scenarios-checked  the same on a build with debug assertions
#                and overflow checks (tools/checked_extension.sh)
#
# setup is incremental: the venv is re-provisioned when requirements-dev.txt
# changes and the extension is rebuilt when Rust sources, Cargo files or
# pyproject.toml change. Python sources need no rebuild: the editable
# install points at python/. The two builds of the extension are kept side
# by side (target/ext/plain, target/ext/pgo, each with a stamp that is
# newer than the sources when it is current); the one in use is copied to
# python/satcp/ and named by a stamp in .venv/. Switching between make test
# and make run copies a file and rebuilds nothing unless a source changed.

# This file, for the make it starts again (tools/bench_run.py runs
# run-steps from another directory).
THIS_MAKEFILE := $(abspath $(lastword $(MAKEFILE_LIST)))
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
VENV_ABS := $(abspath $(VENV))
DEPS_STAMP := $(VENV)/.satcp-deps.stamp
# The extension's two builds: each build stamp is newer than the sources
# when the copy of the extension beside it is current; each installed
# stamp says that this copy is the one in python/satcp/ (at most one of the
# two exists).
EXT_DIR := target/ext
PLAIN_BUILD := $(EXT_DIR)/plain.stamp
PGO_BUILD := $(EXT_DIR)/pgo.stamp
PLAIN_INSTALLED := $(VENV)/.satcp-plain.stamp
PGO_INSTALLED := $(VENV)/.satcp-pgo.stamp
# make run's build: profile-guided unless SATCP_PGO=0.
RUN_EXT := $(if $(filter 0,$(SATCP_PGO)),$(PLAIN_INSTALLED),$(PGO_INSTALLED))
RUST_SOURCES := $(shell find crates -type f \( -name '*.rs' -o -name Cargo.toml \) 2>/dev/null) \
	Cargo.toml Cargo.lock

# Build the pyo3 crate against the venv's interpreter everywhere (maturin,
# clippy), so that cargo does not rebuild pyo3 when switching between them.
export PYO3_PYTHON := $(VENV_ABS)/bin/python

.PHONY: claims-docs emu bench-emu validate-linux schema setup system-tools run test test-rust test-python lint-rust lint-python bench soak fuzz fuzz-scenarios fuzz-scenarios-checked clean validate validate-modern ns3-venv

setup: $(PLAIN_INSTALLED)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "satcp needs Python >= 3.11 (PYTHON=$(PYTHON))" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	@touch $@

# An ordinary release build: cargo rebuilds only the crates that changed.
$(PLAIN_BUILD): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml
	@rm -f $(PLAIN_INSTALLED) $(PGO_INSTALLED)
	VIRTUAL_ENV=$(VENV_ABS) $(BIN)/maturin develop --release --quiet
	@$(call keep_ext,plain)

# Profile-guided: an instrumented build, the training run, the final build
# (tools/pgo.sh; minutes rather than seconds).
$(PGO_BUILD): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml tools/pgo.sh tools/pgo_paper_runs.py
	@rm -f $(PLAIN_INSTALLED) $(PGO_INSTALLED)
	tools/pgo.sh extension $(VENV)
	@$(call keep_ext,pgo)

$(PLAIN_INSTALLED): $(PLAIN_BUILD)
	@$(call install_ext,plain,$(PGO_INSTALLED))

$(PGO_INSTALLED): $(PGO_BUILD)
	@$(call install_ext,pgo,$(PLAIN_INSTALLED))

# keep_ext,KIND: keep a copy of the extension maturin just installed in
# python/satcp/ as KIND's build, and mark it current.
keep_ext = mkdir -p $(EXT_DIR)/$(1) && rm -f $(EXT_DIR)/$(1)/_core*.so \
	&& cp python/satcp/_core*.so $(EXT_DIR)/$(1)/ && touch $(EXT_DIR)/$(1).stamp
# install_ext,KIND,OTHER_STAMP: put KIND's copy in python/satcp/ (removed
# first, so that a running process keeps the file it loaded) and say so.
install_ext = rm -f $(2) python/satcp/_core*.so \
	&& cp $(EXT_DIR)/$(1)/_core*.so python/satcp/ \
	&& echo "satcp extension: $(1) build" && touch $@

# make run's steps, the longest first, two at a time: each is a process
# whose runs use every core, so that one step's last runs and its tables
# and figures, which leave a core idle, overlap the next step's runs. The
# steps are independent; each one's output is printed when it ends
# (--output-sync), without progress bars.
RUN_STEPS := reproduce-peach reproduce-tcpr compare reproduce-adalr reproduce-slowstart \
	reproduce-pep reproduce-kuhn2013 reproduce-baseline

run: $(RUN_EXT)
	@$(MAKE) --no-print-directory -f $(THIS_MAKEFILE) run-steps
	$(BIN)/satcp report reports

# The steps alone, without the build and the report (tools/bench_run.py
# runs them with its own BIN, in a directory of its own).
.PHONY: run-steps
run-steps:
	@$(MAKE) --no-print-directory -f $(THIS_MAKEFILE) -j2 --output-sync=target $(RUN_STEPS:%=run-step-%)

# Not .PHONY (make looks for no pattern rule for a phony target); no such
# files are made, so they always run.
run-step-compare:
	$(BIN)/satcp compare
run-step-reproduce-%:
	$(BIN)/satcp reproduce $*

test: setup system-tools lint-rust test-rust lint-python test-python

# Cross-validation against ns-3 3.44 under loss (not part of `make test`):
# the PyPI ns3 package in its own venv, then satcp and ns-3 side by side
# (tools/ns3/validate_loss.py; docs/validation-ns3.md, "Under loss").
NS3_VENV := build/ns3-venv
NS3_VERSION := 3.44.post0
ns3-venv:
	@test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	@$(NS3_VENV)/bin/pip show ns3 2>/dev/null | grep -qx 'Version: $(NS3_VERSION)' \
		|| $(NS3_VENV)/bin/pip install --quiet ns3==$(NS3_VERSION)

validate: setup ns3-venv
	$(BIN)/python tools/ns3/validate_loss.py --ns3-python $(abspath $(NS3_VENV))/bin/python
	$(BIN)/python tools/ns3/validate_loss.py --ns3-python $(abspath $(NS3_VENV))/bin/python \
		--points 'BER 1e-7,BER 1e-6,BER 1e-5' --ns3-extra '--ssthresh-rule flightsize'

# The modern congestion controls against ns-3 3.44 (not part of `make
# test`): satcp's linux profile beside TcpCubic, TcpBbr, TcpWestwoodPlus,
# TcpHybla and TcpNewReno (PRR and classic recovery), and the rfc profile
# beside TcpNewReno, on a GEO and a LEO path, lossless and at packet loss
# 1e-5 and 1e-4, 5 seeds; one Markdown table, printed and written to
# build/validate-modern/summary.md (tools/ns3/validate_modern.py;
# docs/validation-ns3.md, "Modern congestion controls"). ns-3's runs are
# cached in build/validate-modern/runs/: a second call reruns only satcp.
# NS3_JOBS ns-3 processes at a time.
NS3_JOBS ?= 2
validate-modern: setup ns3-venv
	$(BIN)/python tools/ns3/validate_modern.py --ns3-python $(abspath $(NS3_VENV))/bin/python \
		--jobs $(NS3_JOBS)

# tshark reads the pcap files satcp writes (tests/python/test_pcap.py),
# headless chromium renders the HTML report (tests/python/test_html_report.py)
# and ethtool turns off the offloads of satcp emulate's veth pairs
# (tests/python/test_emulate.py); all come from Debian's packages, installed
# when missing and we may (root).
SYSTEM_TOOLS := tshark chromium ethtool
system-tools:
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >/dev/null; \
		else echo "not installed:$$missing (their tests will be skipped)"; fi; \
	fi

lint-rust: setup
	cargo fmt --all -- --check
	cargo clippy -p satcp-core -p satcp-fuzz-targets -p satcp-emu --all-targets -- -D warnings
	cargo clippy -p satcp-py --all-targets -- -D warnings

# Crate by crate: `cargo test --workspace` cannot link the pyo3 extension
# crate; its own unit tests (`--lib`, pure Rust: they call no Python) can.
# Then the fuzz targets on stable (corpus replay and pseudo-random inputs),
# and the property test once more in a debug build, where every
# debug_assert! of the TCP machinery runs on every event (docs/testing.md).
test-rust:
	cargo test -p satcp-core --release
	cargo test -p satcp-emu --release
	cargo test -p satcp-fuzz-targets --release
	cargo test -p satcp-py --release --lib
	cargo test -p satcp-core --test model every_variant

lint-python: setup
	$(BIN)/ruff check python tests tools
	$(BIN)/ruff format --check python tests tools

test-python: setup emu
	$(BIN)/pytest -q tests/python

# satcp emulate's relay (crates/satcp-emu; Linux): target/release/satcp-emu,
# where python/satcp/emulate.py looks for it first.
emu:
	cargo build --release -p satcp-emu

# The relay's real-time capacity (root; not in CI): forwarding rate at
# 1,500-byte packets, delay error at 100 Mb/s (tools/bench_emu.py).
bench-emu: setup emu
	$(BIN)/python tools/bench_emu.py

# The kernel as a reference (root; not in CI; first slice of issue 34 item
# 4): a bulk download simulated (linux profile) and emulated (the kernel's
# reno, cubic, bbr) on a GEO path, lossless and with Gilbert-Elliott bursts.
# LINUX_REPEATS kernel runs per random scenario (the median is compared).
LINUX_REPEATS ?= 3
validate-linux: setup emu
	$(BIN)/python tools/validate_linux.py --repeats $(LINUX_REPEATS)

# The scenario format's reference, generated from the schema the core
# derives from its parser's types (python/satcp/schema.py); test_schema.py
# fails when the checked-in files differ from what the build prints.
claims-docs:
	$(PYTHON) tools/claims_doc.py adalr

schema: setup
	$(BIN)/satcp schema > docs/scenario.schema.json
	$(BIN)/satcp schema --format markdown > docs/scenario-reference.md

# First a table per benchmark scenario (wall time, events, events/s,
# ns/event, peak memory: benches/summary.rs), then criterion; both built
# with profile-guided optimisation, as the extension is (tools/pgo.sh).
bench:
	pgo_env="$$(tools/pgo.sh bench)" && \
	env $$pgo_env cargo bench -p satcp-core --bench summary && \
	env $$pgo_env cargo bench -p satcp-core --bench scenarios

# Not in CI (needs perf): where the event loop's time goes, as flame
# graphs and tables in docs/perf/ (tools/flamegraph.sh).
.PHONY: flamegraph
flamegraph:
	tools/flamegraph.sh

# Not in CI: satcp against ns-3 3.44 (PyPI `ns3`, in its own venv, never in
# .venv) on the thesis FTP and the 20-flow GEO scenario, run alternately:
# satcp's core binary and `satcp run` against the ns-3 counterparts compiled
# as C++ programs against the wheel's headers and libraries (bench-ns3-cpp,
# into build/ns3-cpp); NS3_PYTHON=1 adds ns-3 driven from Python through the
# wheel's bindings (slow: seconds of start-up per run). Prints median
# whole-process and event-loop ratios and peak memory.
NS3_VENV ?= build/ns3-venv
NS3_PAIRS ?= 3
NS3_CPP := build/ns3-cpp
.PHONY: bench-ns3 bench-ns3-cpp
bench-ns3-cpp:
	@test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	@$(NS3_VENV)/bin/pip show ns3 2>/dev/null | grep -qx 'Version: $(NS3_VERSION)' \
		|| $(NS3_VENV)/bin/pip install --quiet ns3==$(NS3_VERSION)
	tools/ns3/build_cpp.sh $(NS3_VENV) $(NS3_CPP)

bench-ns3: setup bench-ns3-cpp
	pgo_env="$$(tools/pgo.sh bench)" && \
	env $$pgo_env cargo bench -p satcp-core --bench summary --no-run && \
	$(BIN)/python tools/ns3/bench_vs_ns3.py --ns3-cpp $(NS3_CPP) --satcp $(BIN)/satcp --pairs $(NS3_PAIRS) \
		$(if $(filter 1,$(NS3_PYTHON)),--ns3-python $(NS3_VENV)/bin/python) \
		--satcp-bench $$(env $$pgo_env cargo bench -p satcp-core --bench summary --no-run --message-format=json 2>/dev/null \
		| $(PYTHON) -c 'import sys, json; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')

# Not in CI: what a user waits for around the core. bench-cli: the satcp
# command's whole process (--help, validate, run --out) against the
# interpreter's start-up (tools/bench_cli.py; BEFORE=path/to/other/satcp
# adds a second executable, run alternately). bench-sweep: satcp sweep and
# run_many over SWEEP_RUNS one-second runs against the sum of the core's
# own times (tools/bench_sweep.py).
SWEEP_RUNS ?= 10000
.PHONY: bench-cli bench-sweep bench-beam bench-run
bench-cli: setup
	$(BIN)/python tools/bench_cli.py satcp=$(BIN)/satcp $(if $(BEFORE),before=$(BEFORE))

bench-sweep: setup
	$(BIN)/python tools/bench_sweep.py --runs $(SWEEP_RUNS) satcp=$(BIN)/satcp $(if $(BEFORE),before=$(BEFORE))

# Not in CI: make run's wall and CPU time after the build, RUN_ROUNDS
# rounds (BEFORE=path/to/other/satcp alternately), every round's outputs
# compared with the first's but for wall times and commit stamps
# (tools/bench_run.py; exit status 1 if they differ).
RUN_ROUNDS ?= 2
bench-run: $(RUN_EXT)
	$(BIN)/python tools/bench_run.py --rounds $(RUN_ROUNDS) satcp=$(BIN)/satcp $(if $(BEFORE),before=$(BEFORE))

# A GEO beam of 100 to 3,000 terminals (satcp.topology.geo_beam): events/s,
# ns per event, time and peak memory per terminal as the beam grows
# (tools/bench_beam.py; not in CI).
bench-beam: setup
	$(BIN)/python tools/bench_beam.py

# At least a million property-test cases: 34 variant configurations today
# (read from the registry) x PROPTEST_CASES each. SEED=n draws another set
# of cases than CI's fixed one.
PROPTEST_CASES ?= 31000
soak:
	@mkdir -p target
	PROPTEST_CASES=$(PROPTEST_CASES) $(if $(SEED),SATCP_PROPTEST_SEED=$(SEED)) cargo test -p satcp-core --release --test model \
		every_variant -- --nocapture > target/soak.log 2>&1; rc=$$?; \
		grep -E '^shard|test result|panicked' target/soak.log; \
		awk '/^shard/ { n += $$3 * $$6 } END { printf "soak: %d cases passed\n", n }' target/soak.log; \
		exit $$rc

# Long fuzzing runs; new inputs go to a scratch corpus, the repository's
# corpus (fuzz/corpus/) is only read. A crash leaves its input in
# fuzz/artifacts/: add it to fuzz/corpus/ with the fix.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := scenario_text endpoint_segments
fuzz: fuzz-scenarios
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
	rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p fuzz/scratch/$$t; \
		echo "fuzzing $$t for $(FUZZ_SECONDS) s (log: fuzz/scratch/$$t.log)"; \
		(cd fuzz && cargo +nightly fuzz run $$t scratch/$$t corpus/$$t -- \
			-max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1) \
			> fuzz/scratch/$$t.log 2>&1; rc=$$?; \
		grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' fuzz/scratch/$$t.log; \
		if [ $$rc != 0 ]; then tail -40 fuzz/scratch/$$t.log; exit 1; fi; \
	done

# Whole scenarios drawn by hypothesis over every variant, router, queue,
# application kind and schedule, some fields hostile: each is rejected with
# one line or runs within its budget holding the transport invariants
# (tests/python/scenario_fuzz.py; a fixed-seed slice runs in make test).
# SEED=n: the first batch's seed (default: random).
fuzz-scenarios: setup
	$(BIN)/python tools/fuzz_scenarios.py --seconds $(FUZZ_SECONDS) $(if $(SEED),--seed $(SEED))

# The same with the checked build (tools/checked_extension.sh): debug
# assertions, overflow checks and every endpoint's invariants after every
# call, at about a quarter of the speed.
CHECKED_DIR := target/ext/checked
fuzz-scenarios-checked: setup
	tools/checked_extension.sh $(VENV) $(CHECKED_DIR)
	PYTHONPATH=$(CHECKED_DIR)/python $(BIN)/python tools/fuzz_scenarios.py --seconds $(FUZZ_SECONDS) $(if $(SEED),--seed $(SEED))

clean:
	rm -rf $(VENV) $(EXT_DIR) python/satcp/_core*.so
