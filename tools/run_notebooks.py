"""Re-execute notebooks in place, each in a fresh kernel, top to bottom.

    python tools/run_notebooks.py                 # every notebook in notebooks/
    python tools/run_notebooks.py notebooks/01_*.ipynb

Outputs are replaced by those of the clean run, execution counts become
1..n, and per-run metadata (timings) is dropped, so a committed notebook
always shows what `pytest --nbval` will reproduce. The launch cell's REPO
line is set to the course's repository URL (tools/course_url.py).
"""

from __future__ import annotations

import pathlib
import sys
import time

import course_url
import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def run(path: pathlib.Path) -> float:
    nb = nbformat.read(path, as_version=4)
    course_url.with_url(nb, course_url.repository_url())
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return seconds


def coalesce_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks into one output, as nbval compares them.

    How a kernel splits a cell's prints into messages depends on timing; joined, the
    stored notebook is the same run after run.
    """
    merged: list = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.output_type == "stream" and prev is not None
                and prev.output_type == "stream" and prev.name == out.name):
            prev.text += out.text
        else:
            merged.append(out)
    return merged


def main(args: list[str]) -> None:
    paths = [pathlib.Path(a) for a in args] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"{path.name}: {run(path.resolve()):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
