# The two README commands.  Both build .venv from scratch on a fresh machine.
# Building from source needs a Rust toolchain (cargo) besides Python 3.11.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The test and Spark extras (pytest, mypy, Playwright, PySpark): `make test` only, so the
# demo's environment holds only what the demo runs.
TEST_STAMP := $(VENV)/.installed-test
# The compiled core, built by maturin into ofc_stats/ (an editable install).
CORE_SOURCES := $(shell find rust -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock
CORE := ofc_stats/.core-built
# The one Python the bindings are built for (no spurious rebuilds), and a clear
# error instead of maturin fetching a toolchain when cargo is missing.
export PYO3_PYTHON := $(abspath $(BIN)/python)
export MATURIN_NO_INSTALL_RUST := 1

.PHONY: demo test lint typecheck install test-install dev clean browser cargo-test docs

$(BIN)/python:
	@command -v cargo >/dev/null || { echo "building ofc-stats needs a Rust toolchain (cargo): https://rustup.rs"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip wheel 'maturin>=1.9.4,<2'
	$(BIN)/python -m pip install --quiet --no-build-isolation -e .
	touch $(STAMP) $(CORE)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[test,spark]'
	touch $(TEST_STAMP) $(CORE)

# The release extension again whenever the Rust sources change (cargo rebuilds only what changed).
$(CORE): $(STAMP) $(CORE_SOURCES)
	$(BIN)/maturin develop --quiet --release --skip-install
	touch $(CORE)

install: $(CORE)

test-install: $(TEST_STAMP) $(CORE)

# Faster edit-compile cycles: the optimised, incremental dev-release profile.
dev: $(STAMP)
	$(BIN)/maturin develop --quiet --profile dev-release --skip-install

demo: install
	rm -rf out/demo-data
	$(BIN)/ofc-stats score --format table data/sample-hands.jsonl
	$(BIN)/ofc-stats import --quiet --data out/demo-data data/sim-open.jsonl data/sim-app.hh
	$(BIN)/ofc-stats audit --data out/demo-data --out out/demo-audit.csv
	$(BIN)/ofc-stats report --data out/demo-data --out out/demo-report.html
	@echo "audit mismatches: out/demo-audit.csv"
	@echo "open the report in a browser: out/demo-report.html"
	@echo "the command is $(BIN)/ofc-stats (or run 'source $(BIN)/activate' to type ofc-stats)"

lint: test-install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	cargo fmt --all --check
	cargo clippy --quiet --workspace --all-targets -- -D warnings

typecheck: test-install
	$(BIN)/mypy
	$(BIN)/python -m mypy.stubtest ofc_stats._core

# The core's own tests (plain Rust, no Python needed).
cargo-test:
	cargo test --quiet -p ofc-core

# Debian's chromium lets tests/test_browser.py drive the report page through
# Playwright (pip's playwright, from the test extra, uses this browser: no
# download).  Best effort: without root or apt the test is skipped, not failed.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get install -y -q chromium >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 \
	  && apt-get install -y -q chromium >/dev/null 2>&1)); } || echo "chromium not installed: the browser test will be skipped"

test: lint typecheck cargo-test browser
	$(BIN)/python -m pytest

# docs/cli.md is made from every command's --help, and docs/architecture.md's module list
# from the modules (tests/test_docs.py checks both).
docs: install
	$(BIN)/python -m ofc_stats.cli.reference > docs/cli.md
	$(BIN)/python -m ofc_stats.cli.reference --modules

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache target ofc_stats/_core*.so $(CORE)
