#!/usr/bin/env bash
# Run the test suite (strict nbval on every notebook, the helpers' tests, every
# exercise check on its solution, wrong answers and valid variants) under each torch
# release at the ends of the range the course supports, each in a venv of its own.
# The automatic mutants of the solutions are left to `make test`: they test the
# checks' strength, which no torch release changes, and cost the most.
#   tools/test_matrix.sh                      # the two ends, 2.9.1 and 2.15.0
#   tools/test_matrix.sh torch==2.12.0 ...    # any releases
# The venvs stay in $MATRIX_DIR (default .matrix/), so a second run installs
# nothing but the course package itself (re-pointed at this checkout each run).
# PIP_CONSTRAINT=/dev/null: some machines cap torch with a pip constraint file;
# the matrix must test the release that a plain `pip install` gives users.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
MATRIX_DIR="${MATRIX_DIR:-.matrix}"
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("torch==2.9.1" "torch==2.15.0")
want="$(sha256sum < pyproject.toml | cut -c1-16)"

for spec in "${specs[@]}"; do
    venv="$MATRIX_DIR/${spec//[^A-Za-z0-9.]/-}"
    [ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv"
    if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$want" ]; then
        echo "== installing $spec into $venv"
        PIP_CONSTRAINT=/dev/null "$venv/bin/python" -m pip install -qq --progress-bar off \
            "$spec" -e ".[test]"
        "$venv/bin/python" -m ipykernel install --sys-prefix --name python3 >/dev/null
        echo "$want" > "$venv/.installed"
    else
        "$venv/bin/python" -m pip install -qq --no-deps -e .
    fi
    echo "== $spec: $("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)')"
    "$venv/bin/python" -m pytest -q -n 2 --dist loadfile -k "not mutant"
done
