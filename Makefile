# From `.g` to `.grad` -- one command to study, one to test.
#   make lab        set up .venv and open JupyterLab on notebooks/
#   make test       set up .venv, lint, unit tests and nbval (strict) on every notebook
#   make notebooks  re-execute every notebook in place, fresh kernel, top to bottom
#   make bench      time every notebook against an import-only floor
# TORCH is the torch requirement pip installs; CI pins the CPU build, e.g.
#   make test TORCH=torch==2.13.0

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch>=2.1,<3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install lab test unit lint notebooks bench clean

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "$(TORCH)" -e ".[test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# Localhost only, token authentication on (the login link is printed).
# --allow-root only when run as root (containers), where Jupyter refuses otherwise.
lab: install
	$(BIN)/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 \
		$(if $(filter 0,$(shell id -u)),--allow-root)

test: install lint
	$(BIN)/python -m pytest

unit: install
	$(BIN)/python -m pytest tests

lint: install
	$(BIN)/ruff check helpers tests notebooks tools

notebooks: install
	$(BIN)/python tools/run_notebooks.py

bench: install
	$(BIN)/python tools/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
