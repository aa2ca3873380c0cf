# From `.g` to `.grad` -- one command to study, one to test.
#   make lab          set up .venv and open JupyterLab on notebooks/
#   make test         set up .venv, lint, unit tests and nbval (strict) on every notebook
#   make test-cpus    the same, with the notebooks run four times: on this CPU's own kernels,
#                     forced to AVX2 and to plain (no-SIMD) kernels, and with MKL's AVX2
#                     matrix products, as other CPUs round
#   make test-matrix  nbval under the oldest and the newest torch the course supports
#   make test-bare    notebook 01 in a kernel with only torch, numpy and matplotlib, with and
#                     without the course around it
#   make notebooks    re-execute every notebook in place, fresh kernel, top to bottom
#   make bench        time every notebook against an import-only floor
#   make site         the course as a static website in _site/ (committed outputs, no re-run),
#                     with the whole course as a zip to download; installs the course first
#   make test-site    build the site and check every page in headless Chromium
# TORCH is the torch requirement pip installs; CI pins the CPU build, e.g.
#   make test TORCH=torch==2.13.0
# TORCH_INDEX, when set, is the package index torch (alone) comes from, e.g. PyTorch's
# CPU wheels on Linux:  make lab TORCH_INDEX=https://download.pytorch.org/whl/cpu

PYTHON ?= python3
VENV   ?= .venv
MATRIX_DIR ?= .matrix
TORCH  ?= torch>=2.9,<2.16
TORCH_INDEX ?=
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Two workers, a file at a time each: a notebook's cells run in order in one kernel
# (nbval), and a test file's module-wide fixture (a kernel, a browser) starts once.
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadfile

.PHONY: install lab test test-cpus test-matrix unit lint notebooks bench clean
.PHONY: site test-site test-bare

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The first install downloads a few hundred MB (torch's CPU build, JupyterLab, ...) or,
# where pip's default torch is a CUDA build (Linux x86-64), a few GB: pip shows each
# download with its size and a progress bar.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "== Installing the course into $(VENV)/: $(TORCH)$(if $(TORCH_INDEX), from $(TORCH_INDEX)), numpy, matplotlib, JupyterLab, pytest, nbval and helpers/."
	@echo "== The first time this downloads a few hundred MB, or a few GB where pip's default torch is a CUDA build (Linux x86-64; see README for the CPU build)."
	$(if $(TORCH_INDEX),$(BIN)/python -m pip install "$(TORCH)" --index-url "$(TORCH_INDEX)")
	$(BIN)/python -m pip install "$(TORCH)" -e ".[lab,test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# Localhost only, token authentication on (the login link is printed).
# --allow-root only when run as root (containers), where Jupyter refuses otherwise.
# tools/lab_overrides.json: no pop-up asking about Jupyter news, no update check.
lab: install
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp tools/lab_overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	$(BIN)/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 \
		$(if $(filter 0,$(shell id -u)),--allow-root)

test: install lint
	$(PYTEST)

# ATEN_CPU_CAPABILITY picks torch's CPU kernels: "avx2" and "default" (no SIMD)
# round like other machines do, so outputs that only this CPU reproduces fail here.
# It does not reach MKL's matrix products: MKL_ENABLE_INSTRUCTIONS=AVX2 makes them
# take an AVX2-only CPU's path (on an AVX-512 machine), another order of sums.
test-cpus: install lint
	$(BIN)/python -m pytest tests
	@echo "== notebooks, this CPU's own kernels"
	env -u ATEN_CPU_CAPABILITY $(PYTEST) notebooks
	@echo "== notebooks, ATEN_CPU_CAPABILITY=avx2"
	ATEN_CPU_CAPABILITY=avx2 $(PYTEST) notebooks
	@echo "== notebooks, ATEN_CPU_CAPABILITY=default"
	ATEN_CPU_CAPABILITY=default $(PYTEST) notebooks
	@echo "== notebooks, MKL_ENABLE_INSTRUCTIONS=AVX2 (MKL's matrix products as on an AVX2-only CPU)"
	MKL_ENABLE_INSTRUCTIONS=AVX2 $(PYTEST) notebooks

test-matrix:
	PYTHON=$(PYTHON) MATRIX_DIR=$(MATRIX_DIR) tools/test_matrix.sh

unit: install
	$(BIN)/python -m pytest tests

# Notebook code fits the site's text column: 79 characters (tests/test_notebook_shape.py
# checks the printed outputs too).
lint: install
	$(BIN)/ruff check helpers tests tools
	$(BIN)/ruff check --line-length 79 notebooks

notebooks: install
	$(BIN)/python tools/run_notebooks.py

bench: install
	$(BIN)/python tools/bench.py

clean:
	rm -rf $(VENV) $(MATRIX_DIR) $(BARE) $(SITE_DIR) .pytest_cache .ruff_cache

# The course website (website/build.py): Sphinx + MyST-NB render the committed
# notebooks with their outputs, nothing is executed, and the course goes on it as a
# zip (tools/course_zip.py). Its tools are the `site` extra, installed on top of the
# course's own install (`install`: torch as TORCH and TORCH_INDEX say, so on Linux
# `make site TORCH_INDEX=https://download.pytorch.org/whl/cpu` gets torch's CPU build).
# The repository URL its launch buttons use is pyproject's [project.urls] Repository
# (tools/course_url.py).
SITE_DIR   ?= _site
SITE_STAMP := $(VENV)/.installed-site

$(SITE_STAMP): pyproject.toml $(STAMP)
	@echo "== Installing the website's tools into $(VENV)/: Sphinx, MyST-NB, sphinx-book-theme, MathJax (sphinx-mathjax-offline), sphinx-copybutton, Beautiful Soup."
	@echo "== The first time this downloads about 25 MB; torch is the course's own, already installed."
	$(BIN)/python -m pip install -e ".[site]"
	touch $(SITE_STAMP)

site: $(SITE_STAMP)
	@echo "== Building the website in $(SITE_DIR)/ from the committed notebooks (nothing is re-executed)."
	$(BIN)/python website/build.py $(SITE_DIR)

# Never skips: a missing chromium (Debian: apt-get install chromium) fails. Every page
# at 1280 px (light and dark), 1920 px and 390 px (light and dark, every figure tapped),
# and a second build with a made-up repository URL for the launch buttons: every
# tests/test_site*.py file, in one browser (tests/site_fixtures.py); about two minutes.
# SITE_SCREENSHOTS=DIR keeps a screenshot of every page.
test-site: install site
	SITE_DIR=$(SITE_DIR) SITE_TEST_REQUIRED=1 $(BIN)/python -m pytest -p no:xdist $(wildcard tests/test_site*.py)

# A venv with only torch (TORCH, from TORCH_INDEX if set), numpy, matplotlib and
# ipykernel: notebook 01's first cell must install the course's helpers there by itself
# (tests/test_bare_kernel.py), from the course's zip unzipped (what the site offers)
# and, for a notebook alone, from its REPO line (a git URL; the test uses a file://
# repository made of the zip); alone with neither, Run All stops at that cell with one
# instruction.
BARE ?= .bare
BARE_STAMP := $(BARE)/.installed

$(BARE_STAMP):
	test -x $(BARE)/bin/python || $(PYTHON) -m venv $(BARE)
	@echo "== Installing a bare kernel into $(BARE)/: $(TORCH)$(if $(TORCH_INDEX), from $(TORCH_INDEX)), numpy, matplotlib, ipykernel (as many MB as the first install's torch)."
	$(if $(TORCH_INDEX),$(BARE)/bin/python -m pip install "$(TORCH)" --index-url "$(TORCH_INDEX)")
	$(BARE)/bin/python -m pip install "$(TORCH)" numpy matplotlib ipykernel
	touch $(BARE_STAMP)

test-bare: install $(BARE_STAMP)
	BARE_PYTHON=$(abspath $(BARE))/bin/python $(BIN)/python -m pytest -p no:xdist tests/test_bare_kernel.py
