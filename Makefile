# memtracks — two commands on a fresh machine:
#   make demo   creates .venv, installs memtracks, ingests the bundled example and shows what it learned
#   make test   creates .venv with the dev extras (MCP, LangGraph, LangChain too) and runs the test suite
#   make lint   ruff check, ruff format --check and mypy
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
DEMO_DB ?= .demo/demo.db
LOCOMO ?= ../shared/data/locomo/locomo10.json

.PHONY: demo test lint format bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	@mkdir -p $(dir $(DEMO_DB)) && rm -f $(DEMO_DB)
	$(BIN)/memtracks --db $(DEMO_DB) ingest examples/demo_conversation.jsonl
	$(BIN)/memtracks --db $(DEMO_DB) show
	@for q in "Where do I live now?" "Where did I live before?" "What car do I drive?" \
	          "When was my trip to Tokyo?" "Who looks after Max while I travel?"; do \
	  echo; echo ">>> alice asks: $$q"; \
	  $(BIN)/memtracks --db $(DEMO_DB) recall "$$q" --user alice --now 2024-05-02T09:00:00+00:00; done
	@for q in "我现在住哪？" "我之前住在哪里？" "我什么时候去上海出差？" "豆豆最近怎么样？" "项目什么时候交？"; do \
	  echo; echo ">>> liming asks: $$q"; \
	  $(BIN)/memtracks --db $(DEMO_DB) recall "$$q" --user liming --now 2024-05-02T09:00:00+08:00; done

test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest -q

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check memtracks benchmarks tests
	$(BIN)/ruff format --check memtracks benchmarks tests
	$(BIN)/mypy

format: $(VENV)/.dev-installed
	$(BIN)/ruff check --fix memtracks benchmarks tests
	$(BIN)/ruff format memtracks benchmarks tests

bench: $(VENV)/.dev-installed
	$(BIN)/python benchmarks/bench_write.py --data $(LOCOMO)

clean:
	rm -rf $(VENV) .demo .pytest_cache
