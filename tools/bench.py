"""Time every notebook against an import-only floor.

    python tools/bench.py

Each notebook runs in a fresh kernel (nothing is written back). The floor is
the same number of fresh kernels that only import torch, numpy, matplotlib and
helpers: the cost no notebook can avoid. The ratio total/floor says how much
the lessons themselves cost on top of starting Python and PyTorch; "x floor"
says it for each notebook (targets: 1.5 in all, 2 for any one notebook).
"""

from __future__ import annotations

import os
import pathlib
import platform
import time

import nbformat
import torch
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
IMPORTS = "import matplotlib.pyplot as plt\nimport numpy\nimport torch\n\nimport helpers"


def execute(nb: nbformat.NotebookNode, cwd: pathlib.Path) -> float:
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return time.perf_counter() - start


def main() -> None:
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    rows = [(p.name, execute(nbformat.read(p, as_version=4), p.parent)) for p in paths]
    floor_nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(IMPORTS)])
    floor = sum(execute(floor_nb, ROOT / "notebooks") for _ in paths)
    total = sum(s for _, s in rows)
    one = floor / len(paths)                       # one import-only kernel

    width = max(len(name) for name, _ in rows)
    print(f"{'notebook'.ljust(width)}  seconds  x floor")
    for name, seconds in rows:
        print(f"{name.ljust(width)}  {seconds:7.2f}  {seconds / one:7.2f}")
    print(f"{'total'.ljust(width)}  {total:7.2f}")
    print(f"{f'floor ({len(paths)} import-only kernels)'.ljust(width)}  {floor:7.2f}")
    print(f"{'ratio total/floor'.ljust(width)}  {total / floor:7.2f}")
    print(
        f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, torch {torch.__version__}"
    )


if __name__ == "__main__":
    main()
