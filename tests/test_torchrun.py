"""helpers/train_ddp.py as a learner runs it: the torchrun command notebook 07 shows,
and `main` on more ranks than two (several machines give it a larger WORLD_SIZE).

A file of its own: the torchrun run starts fresh processes that import torch (seconds),
so that pytest's other worker runs tests/test_ddp.py meanwhile.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import subprocess
import sys

from helpers import ddp, train_ddp

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "07_dynamicnet_on_two_processes.ipynb"
TORCHRUN = re.compile(r"torchrun --standalone --nproc-per-node=2\s+helpers/train_ddp\.py")


def runs_main(rank, world_size):
    """train_ddp.main() in a rank that ddp.launch started (the same environment
    variables torchrun sets): what it prints.

    `train`'s frame is kept to the rank's end, as ddp.launch keeps its function's (see
    helpers/ddp.py's `_rank`): in a forked rank, freeing the model as `train` returns
    can deadlock in gloo's teardown (about half the runs here, torch 2.13)."""
    kept, out = [], io.StringIO()

    def keep(frame, event, arg):
        if event == "call" and frame.f_code is train_ddp.train.__code__:
            kept.append(frame)

    sys.setprofile(keep)
    try:
        with contextlib.redirect_stdout(out):
            train_ddp.main()
    finally:
        sys.setprofile(None)
    return out.getvalue()


def test_torchrun_runs_the_script_the_notebook_shows():
    """Notebook 07 §2 shows the torchrun command line that runs helpers/train_ddp.py, and
    what it prints: run exactly that, in fresh processes, and compare what the ranks print
    (each line whole) with the notebook's text block, digits included (699.2, 295.9), and
    with `main` run by ddp.launch."""
    prose = " ".join("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]
                     if c["cell_type"] == "markdown")
    shown = TORCHRUN.findall(prose)
    assert shown, "notebook 07 no longer shows the torchrun command line"
    assert " ".join(shown[0].split()) in " ".join(train_ddp.__doc__.split())
    command = [str(pathlib.Path(sys.executable).with_name("torchrun")), *shown[0].split()[1:]]
    # as a learner's shell runs it: OMP_NUM_THREADS unset (torchrun says it sets it), and
    # unbuffered output, where a print of several parts would make several writes
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180,
                         env={**env, "PYTHONUNBUFFERED": "1"})
    # what the ranks themselves said, without torchrun's log lines and traceback
    said = [line for line in run.stderr.splitlines()
            if not re.match(r"[WEI]\d{4} |\s|Traceback|torch\.distributed", line)]
    assert run.returncode == 0, "\n".join(said)[-2000:]
    want = "".join(ddp.launch(runs_main, timeout=120).results())
    # (torch 2.9's gloo also prints "[Gloo] Rank 0 is connected to ..." on stdout)
    printed = [line for line in run.stdout.splitlines() if line.startswith("rank ")]
    assert sorted(printed) == sorted(want.splitlines())
    block = re.search(r"```text\n((?:rank .*\n)+)```", prose)
    assert block, "notebook 07 no longer shows what the torchrun run prints"
    assert sorted(block.group(1).splitlines()) == sorted(printed)
    assert len(want.splitlines()) == 6 and want.count("None") == 2       # step 2, no rank
    assert "did not find any unused parameters" in run.stderr            # the docstring's
    assert "Setting OMP_NUM_THREADS environment variable" in run.stderr  # and torchrun's


def test_main_gives_every_rank_its_depths_whatever_the_world_size():
    """On several machines WORLD_SIZE is larger than 2: every rank trains, and all hold
    the same gradients at every step (rank 0 alone uses middle_linear at step 1)."""
    printed = ddp.launch(runs_main, nprocs=3, timeout=120).results()
    lines = [text.splitlines() for text in printed]
    assert [len(ls) for ls in lines] == [3, 3, 3]
    for rank, ls in enumerate(lines):
        assert [line.split(":", 1)[1] for line in ls] == [
            line.split(":", 1)[1] for line in lines[0]], rank
        assert ls[0].startswith(f"rank {rank}, step 0:")
    assert "sums to" in lines[0][1] and lines[0][2].endswith("None")
