"""Notebook 01 runs in a kernel that has only torch, numpy and matplotlib.

`make test-bare` builds that venv (`.bare/`: torch, numpy, matplotlib and
ipykernel, nothing of the course) and points BARE_PYTHON at its python. The
notebook's first cell (tag `launch`) must then install the course's helpers by
itself, as it would in Colab or in VS Code with a plain kernel, on both of its
paths:

- from the course the website offers as a zip (tools/course_zip.py, the archive
  `make site` puts on the site): unzipped, its notebooks find `../helpers` and
  install the course from there. This proves the download works;
- with no course around it (a notebook opened alone, as Colab opens one from
  the repository): from its REPO line, `pip install git+REPO`. The test makes
  a git repository of the unzipped course and sets REPO to its file:// URL with
  tools/course_url.py, the tool that writes the real URL in.

Without BARE_PYTHON the tests are skipped, so `make test` stays fast.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import zipfile

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course_url  # noqa: E402
import course_zip  # noqa: E402

NOTEBOOK = "01_forward_backward_by_hand.ipynb"
BARE = os.environ.get("BARE_PYTHON")

pytestmark = pytest.mark.skipif(not BARE, reason="run `make test-bare` (needs the bare venv)")


def _has(module: str, cwd: pathlib.Path = ROOT / "notebooks") -> bool:
    code = f"import importlib.util as u, sys; sys.exit(u.find_spec({module!r}) is None)"
    # From a neutral folder: in the repository root, ./helpers would be found as it stands.
    return subprocess.run([BARE, "-c", code], cwd=cwd).returncode == 0


def _installed_from(tmp_path: pathlib.Path) -> str:
    """Where the bare venv's helpers package lives (asked from a neutral folder)."""
    done = subprocess.run([BARE, "-c", "import helpers; print(helpers.__file__)"],
                          cwd=tmp_path, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def bare_kernel(tmp_path, monkeypatch):
    """A kernelspec for the bare python, whose venv has no course in it."""
    subprocess.run([BARE, "-m", "pip", "uninstall", "-y", "-q", "g-to-grad"],
                   capture_output=True)                # a bare kernel, every time
    assert not _has("helpers"), "the bare venv must not have the course's helpers"
    for module in ("torch", "numpy", "matplotlib", "ipykernel"):
        assert _has(module), f"the bare venv lacks {module}"
    for module in ("nbval", "pytest", "jupyterlab"):
        assert not _has(module), f"the bare venv should not have {module}"
    spec = tmp_path / "kernels" / "bare"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [BARE, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "bare", "language": "python",
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    yield "bare"
    subprocess.run([BARE, "-m", "pip", "uninstall", "-y", "-q", "g-to-grad"],
                   capture_output=True)


def run(path: pathlib.Path, kernel: str) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name=kernel,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"
              and "raises-exception" not in c.metadata.get("tags", [])]
    assert not errors, errors


@pytest.fixture
def unzipped(tmp_path) -> pathlib.Path:
    """The course as the website offers it, downloaded and unzipped."""
    archive = tmp_path / course_zip.NAME
    course_zip.build(archive)
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp_path / "download")
    return tmp_path / "download" / course_zip.TOP


def test_notebook_runs_from_the_course_zip(bare_kernel, unzipped, tmp_path):
    run(unzipped / "notebooks" / NOTEBOOK, bare_kernel)
    assert _has("helpers", tmp_path), "the first cell should have installed the course's helpers"
    where = _installed_from(tmp_path)
    assert "site-packages" in where and not where.startswith(str(ROOT / "helpers")), (
        f"helpers came from {where}, not installed from the unzipped course")


def test_notebook_alone_installs_from_the_repository_url(bare_kernel, unzipped, tmp_path):
    repo = unzipped                                   # the course, as a git repository
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.org",
           "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "course"]):
        subprocess.run(git + args, cwd=repo, check=True, capture_output=True)
    alone = tmp_path / "alone" / "notebook"           # no ../helpers here
    alone.mkdir(parents=True)
    nb = json.loads((repo / "notebooks" / NOTEBOOK).read_text(encoding="utf-8"))
    url = repo.as_uri()                               # file:///.../g-to-grad
    (alone / NOTEBOOK).write_text(course_url.dumps(course_url.with_url(nb, url)),
                                  encoding="utf-8")
    assert course_url.notebook_url(json.loads((alone / NOTEBOOK).read_text())) == url
    run(alone / NOTEBOOK, bare_kernel)
    assert _has("helpers", tmp_path), "the first cell should have installed helpers from REPO"


def test_a_notebook_alone_without_a_url_says_where_to_get_the_course(bare_kernel, tmp_path):
    """No course around it, no REPO: the first cell prints one sentence, no traceback."""
    alone = tmp_path / "alone"
    alone.mkdir()
    nb = course_url.with_url(json.loads((ROOT / "notebooks" / NOTEBOOK).read_text()), "")
    nb = nbformat.reads(json.dumps(nb), as_version=4)   # sources as strings
    nb.cells = nb.cells[:3]                           # the launch cell is cell 2
    NotebookClient(nb, timeout=120, kernel_name=bare_kernel,
                   resources={"metadata": {"path": str(alone)}}).execute()
    outputs = nb.cells[2].outputs
    assert [o.output_type for o in outputs] == ["stream"], outputs
    said = outputs[0].text.strip()
    assert said.startswith("This notebook needs the rest of the course: download "
                           "g-to-grad.zip") and "\n" not in said, said
    assert not _has("helpers", tmp_path)
