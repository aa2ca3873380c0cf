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
  tools/course_url.py, the tool that writes the real URL in;
- alone, with no REPO either: Run All stops at that cell, whose only output is
  one instruction (where to get the course's zip), with no traceback and no path.

Where it installs, the cell shows nothing at all (no pip chatter, and no "you may
need to restart the kernel": nothing was imported yet, nothing needs a restart).

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


def launch_index(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if "launch" in c.metadata.get("tags", []))


def run(path: pathlib.Path, kernel: str) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name=kernel,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"
              and "raises-exception" not in c.metadata.get("tags", [])]
    assert not errors, errors
    said = nb.cells[launch_index(nb)].outputs
    assert not said, f"the launch cell, installing, shows {said}"


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


def alone_notebook(tmp_path: pathlib.Path):
    """Notebook 01 alone in a folder, with no REPO, its outputs cleared."""
    alone = tmp_path / "alone"
    alone.mkdir()
    nb = course_url.with_url(json.loads((ROOT / "notebooks" / NOTEBOOK).read_text()), "")
    nb = nbformat.reads(json.dumps(nb), as_version=4)   # sources as strings
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb, alone


def check_instruction(shown: str, tmp_path: pathlib.Path):
    assert shown.startswith("This notebook needs the rest of the course: download\n"
                            f"{course_zip.NAME} (\"Download the course\" on every page"), shown
    assert shown.endswith("notebooks/ folder."), shown
    assert len(shown.splitlines()) <= 4 and all(len(x) <= 79 for x in shown.splitlines())
    for leak in ("Traceback", "Error", "File ", "line ", str(tmp_path), str(ROOT), "/home",
                 "/tmp", "\x1b["):
        assert leak not in shown, f"the instruction shows {leak!r}: {shown}"


def run_all_as_jupyterlab(nb, kernel: str, cwd: pathlib.Path, late: bool) -> dict:
    """Run All as JupyterLab does it: one execute_request per code cell, all made at
    once (one header date), stop_on_error but for cells tagged raises-exception.
    With `late`, the first reply comes back before the others reach the kernel (on
    a busy machine they do: the kernel has stopped dropping its queue by then).
    Returns {cell index: (reply status, [output messages])}."""
    import queue

    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name=kernel, cwd=str(cwd))
    try:
        requests = {}
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                raises = "raises-exception" in cell.metadata.get("tags", [])
                requests[i] = kc.session.msg("execute_request", {
                    "code": cell.source, "silent": False, "store_history": True,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": not raises})
        first = min(requests)
        for msg in requests.values():
            msg["header"]["date"] = requests[first]["header"]["date"]
        cell_of = {msg["header"]["msg_id"]: i for i, msg in requests.items()}
        replies, outputs = {}, {i: [] for i in requests}

        def collect(until: int):
            while len(replies) < until:
                reply = kc.get_shell_msg(timeout=120)
                if reply["parent_header"].get("msg_id") in cell_of:
                    replies[cell_of[reply["parent_header"]["msg_id"]]] = reply["content"]

        for i, msg in requests.items():
            kc.shell_channel.send(msg)
            if late and i == first:
                collect(1)
        collect(len(requests))
        while True:                                   # every output, by cell
            try:
                msg = kc.get_iopub_msg(timeout=3)
            except queue.Empty:
                break
            i = cell_of.get(msg["parent_header"].get("msg_id"))
            if i is not None and msg["msg_type"] in (
                    "stream", "error", "display_data", "execute_result"):
                outputs[i].append(msg)
        return {i: (replies[i]["status"], outputs[i], replies[i]) for i in requests}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.parametrize("late", [False, True], ids=["together", "late"])
def test_run_all_in_jupyterlab_stops_at_the_instruction(bare_kernel, tmp_path, late):
    """A notebook alone, Run All as JupyterLab sends it. The launch cell fails with
    the instruction as its traceback (all JupyterLab shows of an error); every other
    cell shows nothing: dropped by the kernel (stop_on_error), or, when it reached the
    kernel after that, run empty by the launch cell's input transformer."""
    nb, alone = alone_notebook(tmp_path)
    ran = run_all_as_jupyterlab(nb, bare_kernel, alone, late)
    launch = launch_index(nb)
    status, outputs, reply = ran.pop(launch)
    assert status == "error" and [m["msg_type"] for m in outputs] == ["error"], outputs
    check_instruction("\n".join(outputs[0]["content"]["traceback"]), tmp_path)
    shown = {i: [m["content"] for m in out] for i, (_, out, _) in ran.items() if out}
    assert not shown, f"cells after the launch cell showed: {shown}"
    if late:
        statuses = {status for status, _, _ in ran.values()}
        assert statuses == {"ok"}, f"late cells: {statuses} (expected: run empty)"


def test_a_notebook_alone_without_a_url_stops_with_one_instruction(bare_kernel, tmp_path):
    """No course around it, no REPO: Run All cell by cell (nbclient, which stops at
    the first error) stops at the launch cell. Its only output is an error
    whose traceback is the instruction alone (IPython shows what the exception's
    `_render_traceback_` returns; JupyterLab shows an error's traceback lines and
    nothing else): the zip's name and where the site links it. No cell after it ran."""
    from nbclient.exceptions import CellExecutionError

    nb, alone = alone_notebook(tmp_path)
    with pytest.raises(CellExecutionError):
        NotebookClient(nb, timeout=120, kernel_name=bare_kernel,
                       resources={"metadata": {"path": str(alone)}}).execute()
    launch = launch_index(nb)
    outputs = nb.cells[launch].outputs
    assert [o.output_type for o in outputs] == ["error"], outputs
    check_instruction("\n".join(outputs[0].traceback), tmp_path)   # what JupyterLab shows
    ran = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and i != launch
           and (c.outputs or c.execution_count)]
    assert not ran, f"Run All went on past the launch cell: cells {ran} ran"
    assert not _has("helpers", tmp_path)
