# The two README commands.  Both build .venv from scratch on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck install clean browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	rm -rf out/demo-data
	$(BIN)/ofc-stats score --format table data/sample-hands.jsonl
	$(BIN)/ofc-stats import --quiet --data out/demo-data data/sim-open.jsonl data/sim-app.hh
	$(BIN)/ofc-stats audit --data out/demo-data --out out/demo-audit.csv
	$(BIN)/ofc-stats report --data out/demo-data --out out/demo-report.html
	@echo "audit mismatches: out/demo-audit.csv"
	@echo "open the report in a browser: out/demo-report.html"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Debian's chromium lets tests/test_browser.py drive the report page through
# Playwright (pip's playwright, from the test extra, uses this browser: no
# download).  Best effort: without root or apt the test is skipped, not failed.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get install -y -q chromium >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 \
	  && apt-get install -y -q chromium >/dev/null 2>&1)); } || echo "chromium not installed: the browser test will be skipped"

test: lint typecheck browser
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
