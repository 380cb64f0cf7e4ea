# Two entry points for people (see README): `make demo` and `make test`.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
DB      ?= data/logml.duckdb
STAMP   := $(VENV)/.installed

.PHONY: demo test lint setup bench capture clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## Run the nightly job over the embedded sample fleet.
demo: $(STAMP)
	$(BIN)/logml nightly data/raw --db $(DB)
	@echo "warehouse: $(DB)   (try: $(BIN)/logml templates --top 10, $(BIN)/logml runs --limit 10)"

lint: $(STAMP)
	$(BIN)/ruff check pipeline tests bench scenarios

## Everything CI proves: lint and the test suite.
test: $(STAMP) lint
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/ingest.py

capture: $(STAMP)
	$(BIN)/python scenarios/capture.py

clean:
	rm -rf $(DB) $(DB).wal $(DB).lock reports mlflow.db
