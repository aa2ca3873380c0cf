"""Time every notebook against an import-only floor.

    python tools/bench.py

Each notebook runs in a fresh kernel (nothing is written back). The floor is
the same number of fresh kernels that only import torch, numpy, matplotlib and
helpers: the cost no notebook can avoid. The ratio total/floor says how much
the lessons themselves cost on top of starting Python and PyTorch; "x floor"
says it for each notebook (targets: 1.5 in all, 2 for any one notebook). "x its
floor" counts in what a notebook cannot avoid either: torch imports torch._dynamo
(about 2 s) when the first optimizer is built or DDP wraps a model.
"""

from __future__ import annotations

import os
import pathlib
import platform
import re
import time

import nbformat
import torch
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
IMPORTS = "import matplotlib.pyplot as plt\nimport numpy\nimport torch\n\nimport helpers"
# torch imports torch._dynamo (about 2 s) the first time an optimizer is built or DDP
# wraps a model: a notebook that teaches optimizer.step() pays it, whatever it does.
DYNAMO = re.compile(r"torch\.optim\.|DistributedDataParallel|ddp\.launch")


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
    dynamo_nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        IMPORTS + "\nimport torch._dynamo")])
    floors = [execute(floor_nb, ROOT / "notebooks") for _ in paths]
    floor = sum(floors)
    one = floor / len(paths)                       # one import-only kernel
    uses = [bool(DYNAMO.search("".join(c.source for c in nbformat.read(p, as_version=4).cells
                                       if c.cell_type == "code"))) for p in paths]
    with_dynamo = sum(execute(dynamo_nb, ROOT / "notebooks") for u in uses if u) / max(
        sum(uses), 1)
    own = [with_dynamo if u else one for u in uses]
    total = sum(s for _, s in rows)

    width = max(len(name) for name, _ in rows)
    print(f"{'notebook'.ljust(width)}  seconds  x floor  x its floor")
    for (name, seconds), its in zip(rows, own):
        print(f"{name.ljust(width)}  {seconds:7.2f}  {seconds / one:7.2f}  {seconds / its:7.2f}")
    print(f"{'total'.ljust(width)}  {total:7.2f}")
    print(f"{f'floor ({len(paths)} import-only kernels)'.ljust(width)}  {floor:7.2f}")
    print(f"{'ratio total/floor'.ljust(width)}  {total / floor:7.2f}")
    print(f"{'floors with torch._dynamo where used'.ljust(width)}  {sum(own):7.2f}")
    print(f"{'ratio total/those floors'.ljust(width)}  {total / sum(own):7.2f}")
    print(
        f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, torch {torch.__version__}"
    )


if __name__ == "__main__":
    main()
