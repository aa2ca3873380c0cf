"""What a learner sees in a real Jupyter kernel: short, path-free tracebacks
(`%load_ext helpers.errors`) and a failed check's sentence with the learner's own line.

One kernel for the whole file (starting one costs a few seconds).
"""

from __future__ import annotations

import os
import re

import pytest

PATHS = re.compile(r"site-packages|/home/|/root/|/Users/|/tmp/|ipykernel_\d+|\.venv|"
                   r"helpers/checks|File \"/")
ANSI = re.compile(r"\x1b\[[0-9;]*m")

pytestmark = pytest.mark.skipif(os.environ.get("ATEN_CPU_CAPABILITY") is not None,
                                reason="once is enough")


@pytest.fixture(scope="module")
def run():
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3")

    def execute(code):
        """{'error': (ename, evalue, traceback text), 'stdout': ..., 'stderr': ...}."""
        sent, out = kc.execute(code), {"stdout": "", "stderr": ""}
        while True:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != sent:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "error":
                out["error"] = (content["ename"], content["evalue"],
                                ANSI.sub("", "\n".join(content["traceback"])))
            elif kind == "stream":
                out[content["name"]] += content["text"]
            elif kind == "status" and content["execution_state"] == "idle":
                return out

    yield execute
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_a_torch_error_shows_the_learners_lines_and_the_message_only(run):
    assert "error" not in run("%load_ext helpers.errors\nimport torch")
    out = run("a = torch.ones(3, requires_grad=True)\n"
              "def twice(loss):\n"
              "    loss.backward()\n"
              "    loss.backward()\n"
              "twice((a * a).sum())")
    ename, evalue, tb = out["error"]
    assert ename == "RuntimeError" and "second time" in evalue
    assert "Cell In[" in tb and "----> 5 twice((a * a).sum())" in tb
    assert "----> 4     loss.backward()" in tb
    assert not PATHS.search(tb), tb
    assert len(tb.splitlines()) < 20, tb


def test_a_warning_is_one_line_without_a_path(run):
    out = run("b = torch.ones(2, requires_grad=True) * 2\nb.grad")
    assert out["stderr"].startswith("UserWarning: The .grad attribute of a Tensor"), out
    assert out["stderr"].count("\n") == 1 and not PATHS.search(out["stderr"]), out


def test_anomaly_detection_shows_the_forward_line_only(run):
    out = run("w = torch.ones(2, requires_grad=True)\n"
              "with torch.autograd.set_detect_anomaly(True):\n"
              "    y = (w * w).sum()\n"
              "    with torch.no_grad():\n"
              "        w.mul_(2)\n"
              "    y.backward()")
    assert out["error"][0] == "RuntimeError" and "version 1" in out["error"][1]
    lines = out["stderr"].splitlines()
    assert lines[:2] == ["UserWarning: Error detected in MulBackward0.",
                         "Traceback of forward call that caused the error:"], out
    assert lines[2].startswith("  Cell In[") and lines[2].endswith("], line 3"), out
    assert lines[3:] == ["    y = (w * w).sum()"], out
    assert not PATHS.search(out["stderr"]), out


def test_unload_restores_ipythons_traceback(run):
    out = run("%unload_ext helpers.errors\ntwice((a * a).sum())")
    assert "site-packages" in out["error"][2] or "torch" in out["error"][2]
    assert "error" not in run("%load_ext helpers.errors")


def test_a_failed_check_shows_its_sentence_not_its_source(run):
    wrong = ("from helpers.checks.nb01 import check_mae_grad\n"
             "def mae_grad(inp, targ):\n"
             "    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1)\n"
             "check_mae_grad(mae_grad)\n")
    _, _, shown = run(wrong)["error"]
    assert "Check failed" in shown and "inp.g" in shown, shown
    assert "def check_" not in shown and not PATHS.search(shown), shown
    assert len(shown.splitlines()) <= 3, shown


def test_the_learners_error_in_a_check_shows_the_cell_line(run):
    raising = ("def mae_grad(inp, targ):\n"
               "    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / undefined_name\n"
               "check_mae_grad(mae_grad)\n")
    _, _, shown = run(raising)["error"]
    assert "`undefined_name` is not defined in this kernel" in shown, shown
    assert re.search(r"Raised at Cell In\[\d+\], line 2, in mae_grad: inp.g = ", shown), shown
    assert not PATHS.search(shown), shown
    assert len(shown.splitlines()) <= 3 and len(shown.splitlines()[-1]) <= 79, shown


def test_a_check_module_loads_the_short_tracebacks_after_a_restart(run):
    assert "error" not in run("%unload_ext helpers.errors\n"
                              "import sys\n"
                              "for m in [m for m in sys.modules if 'helpers.checks' in m]:\n"
                              "    del sys.modules[m]\n"
                              "from helpers.checks.nb01 import check_mae_grad")
    out = run("def f():\n    loss.backward()\n\nloss = (a * a).sum()\nloss.backward()\nf()")
    assert "Cell In[" in out["error"][2] and not PATHS.search(out["error"][2])
