"""The Exercises in a real kernel, as a learner runs them (issue 30).

- Run All with every solution pasted into its answer cell reaches the last cell: the
  notebook's set-up cells, then every cell from `## Exercises` on, in one fresh kernel,
  and none raises but those tagged `raises-exception` (JupyterLab's Run All runs on past
  them). The lesson cells in between are nbval's: it runs every one of them in order and
  fails on any that raises untagged, and pasting the solutions changes none of them.
- Each verdict takes under a second and imports none of what torch imports lazily and
  slowly (sympy, torch's symbolic shapes, torch._dynamo): the check cell's import pays
  for them, so the first verdict after a restart is as quick as the others.
- After a restart (`%reset -f`, the checks' modules imported anew), each exercise's check
  cell alone, then its solution, prints the solution's ✓.

One kernel a notebook, a few seconds each.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from test_exercises import CHECK_CELL, NOTEBOOKS, SOLUTION

pytestmark = pytest.mark.skipif(os.environ.get("ATEN_CPU_CAPABILITY") is not None,
                                reason="once is enough")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What torch imports lazily and slowly (seconds, not the few small modules a release may
# load on first use: torch 2.15 loads torch.fx.experimental._constant_symnode, 0.1 ms).
HEAVY = re.compile(r"^(sympy|mpmath|torch\._dynamo|torch\._inductor|"
                   r"torch\.fx\.experimental\.symbolic_shapes)(\.|$)")
VERDICT_SECONDS = 1.0
TIMED = """import sys as _sys, time as _time
_before, _t0 = set(_sys.modules), _time.perf_counter()
{code}
_seconds = _time.perf_counter() - _t0
print(f"{{_seconds:.3f}}", *sorted(m for m in set(_sys.modules) - _before))
"""
RESTART = """%reset -f
import sys
for name in [m for m in sys.modules if m.startswith("helpers.checks")]:
    del sys.modules[name]
"""


def run_all(path) -> list[tuple[str, str, list[str]]]:
    """(kind, source, tags) of the code cells Run All runs, solutions pasted: the set-up
    (until the first section), then the Exercises, where each exercise's first answer cell
    (the one after its check cell) holds the solution; kind "check", "solution", "cell"."""
    out, solutions, part, after_check = [], [], "set-up", False
    for c in json.loads(path.read_text())["cells"]:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown":
            part = ("exercises" if re.search(r"^## Exercises", text, re.M) else
                    "lesson" if re.search(r"^## \d", text, re.M) and part == "set-up" else part)
            solutions += SOLUTION.findall(text)
            continue
        if part == "lesson":
            continue
        tags = c.get("metadata", {}).get("tags", [])
        kind = "solution" if after_check else "check" if CHECK_CELL.search(text) else "cell"
        out.append((kind, text, tags))
        after_check = kind == "check"
    fill = iter(solutions)
    return [(kind, next(fill) if kind == "solution" else text, tags) for kind, text, tags in out]


class Kernel:
    def __init__(self):
        from jupyter_client.manager import start_new_kernel
        self.km, self.kc = start_new_kernel(kernel_name="python3")

    def run(self, code: str) -> dict:
        """{'error': (ename, evalue, traceback), 'stdout': ...} of one cell."""
        sent, out = self.kc.execute(code), {"stdout": ""}
        while True:
            msg = self.kc.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != sent:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "error":
                out["error"] = (content["ename"], content["evalue"],
                                ANSI.sub("", "\n".join(content["traceback"])))
            elif kind == "stream" and content["name"] == "stdout":
                out["stdout"] += content["text"]
            elif kind == "status" and content["execution_state"] == "idle":
                return out

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def verdict(kernel: Kernel, solution: str, where: str) -> None:
    """Run a solution, timed: it prints its ✓, quickly, importing nothing heavy."""
    out = kernel.run(TIMED.format(code=solution))
    assert "error" not in out, f"{where}: {out['error'][2]}"
    said, timing = out["stdout"].rstrip("\n").rsplit("\n", 1)
    seconds, *imported = timing.split()
    assert said.startswith("✓ ") and "\n" not in said, f"{where}: {out['stdout']!r}"
    assert float(seconds) < VERDICT_SECONDS, f"{where}: the verdict took {seconds} s: {said}"
    heavy = [m for m in imported if HEAVY.match(m)]
    assert not heavy, f"{where}: the verdict imported {heavy[:3]}: let the check cell do it"


# Half the notebooks here, half in test_restart_b.py: two files, so that the two test
# workers (pytest-xdist, --dist loadfile) each start half the kernels.
HALF = NOTEBOOKS[0::2]


def check_run_all_and_restart(path):
    cells = run_all(path)
    kernel = Kernel()
    try:
        for n, (kind, code, tags) in enumerate(cells):
            if kind == "solution":
                verdict(kernel, code, f"{path.name}, Run All with the solutions pasted")
                continue
            out = kernel.run(code)
            if "error" in out and "raises-exception" not in tags:
                pytest.fail(f"{path.name}: Run All with the solutions pasted stopped at a "
                            f"{kind} cell ({n} of {len(cells)}):\n{out['error'][2]}")
        for n, (kind, check, _) in enumerate(cells):
            if kind == "check":
                assert "error" not in kernel.run(RESTART)
                out = kernel.run(check)
                assert "error" not in out and not out["stdout"], \
                    f"{path.name}: the check cell alone, after a restart: {out}"
                verdict(kernel, cells[n + 1][1], f"{path.name}, after a restart")
    finally:
        kernel.close()


@pytest.mark.parametrize("path", HALF, ids=lambda p: p.name[:2])
def test_run_all_with_the_solutions_and_each_exercise_after_a_restart(path):
    check_run_all_and_restart(path)
