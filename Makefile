# Two entry points for people (see README): `make demo` and `make test`.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
DB      ?= data/logml.duckdb
STAMP   := $(VENV)/.installed

.PHONY: demo test lint setup bench profile capture clean sample train repro

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## Run the nightly job over the embedded sample fleet.
demo: $(STAMP)
	$(BIN)/logml nightly data/raw --db $(DB) --report
	@echo "warehouse: $(DB)   (try: $(BIN)/logml templates --top 10, $(BIN)/logml runs --limit 10)"

lint: $(STAMP)
	$(BIN)/ruff check pipeline tests bench scenarios scripts

## Everything CI proves: lint, the DVC pipeline on the sample fleet, the tests (notebooks included).
test: $(STAMP) lint repro
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/ingest.py

# where ingest spends its time on the 1M-line bench corpus (run `make bench` first to build it)
profile: $(STAMP)
	rm -f bench/out/profile.duckdb*
	$(BIN)/pyinstrument -r text -o bench/out/ingest-profile.txt -c \
	  "from pipeline.ingest import ingest; print(ingest('bench/out/corpus-1000000', 'bench/out/profile.duckdb').line('bench'))"
	head -60 bench/out/ingest-profile.txt

capture: $(STAMP)
	$(BIN)/python scenarios/capture.py

clean:
	rm -rf $(DB) $(DB).wal $(DB).lock $(DB:.duckdb=.events) reports mlflow.db

## Rebuild the embedded sample fleet: a simulated fleet beside the captured logs (data/raw/capture01).
sample: $(STAMP)
	rm -rf data/.sim data/raw/h[0-9]* data/raw/inventory.csv
	$(BIN)/logml simulate --hosts 8 --days 14 --start 2026-11-09 --runs-per-host-day 2.5 --seed 1 --out data/.sim
	mv data/.sim/h[0-9]* data/.sim/inventory.csv data/raw/
	mv data/.sim/labels.csv data/labeled/simulated.csv
	rm -rf data/.sim

## The reproducible pipeline (dvc.yaml): training corpus -> ingest -> train -> evaluate -> nightly + report.
repro: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" DVC_NO_ANALYTICS=1 $(BIN)/dvc repro

## Retrain the shipped model (the DVC stages up to `train`).
train: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" DVC_NO_ANALYTICS=1 $(BIN)/dvc repro train
