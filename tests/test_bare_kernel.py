"""Notebook 01 runs in a kernel that has only torch, numpy and matplotlib.

`make test-bare` builds that venv (`.bare/`: torch, numpy, matplotlib and
ipykernel, nothing of the course) and points BARE_PYTHON at its python. The
notebook's first cell must then install the course's helpers from this checkout
by itself, as it would in Colab or in VS Code with a plain kernel. Without
BARE_PYTHON the test is skipped, so `make test` stays fast.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01_forward_backward_by_hand.ipynb"
BARE = os.environ.get("BARE_PYTHON")

pytestmark = pytest.mark.skipif(not BARE, reason="run `make test-bare` (needs the bare venv)")


def _has(module: str) -> bool:
    code = f"import importlib.util as u, sys; sys.exit(u.find_spec({module!r}) is None)"
    # From a neutral folder: in the repository root, ./helpers would be found as it stands.
    return subprocess.run([BARE, "-c", code], cwd=ROOT / "notebooks").returncode == 0


def test_notebook_runs_in_a_bare_kernel(tmp_path, monkeypatch):
    subprocess.run([BARE, "-m", "pip", "uninstall", "-y", "-q", "g-to-grad"],
                   capture_output=True)                # a bare kernel, every time
    assert not _has("helpers"), "the bare venv must not have the course's helpers"
    for module in ("torch", "numpy", "matplotlib", "ipykernel"):
        assert _has(module), f"the bare venv lacks {module}"
    for module in ("nbval", "pytest", "jupyterlab"):
        assert not _has(module), f"the bare venv should not have {module}"

    spec = tmp_path / "kernels" / "bare"            # a kernelspec for the bare python
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [BARE, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "bare", "language": "python",
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="bare",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"
              and "raises-exception" not in c.metadata.get("tags", [])]
    assert not errors, errors
    assert _has("helpers"), "the first cell should have installed the course's helpers"
