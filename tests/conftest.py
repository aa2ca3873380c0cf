"""Shared test set-up: matplotlib without a screen, figures closed after each test,
and the small autograd graphs that the graph and plot tests both draw on.

Nothing heavy is imported at the top: pytest's main process loads this file too, and
under xdist it only hands tests to the workers (torch would cost it seconds)."""

import os
import sys

import pytest

# One thread for torch in the test processes (and the kernels they start, which pin it
# anyway): two workers on two cores with torch's default threads each spin against the
# other, and a 20 ms check takes most of a second.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def _close_figures():
    if "matplotlib.pyplot" not in sys.modules:
        import matplotlib

        matplotlib.use("Agg")             # no screen: figures are drawn, never shown
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def leaves(*shapes):
    """Seeded random leaf tensors that require grad, one per shape."""
    import torch

    g = torch.Generator().manual_seed(0)
    return [torch.randn(*s, generator=g).requires_grad_() for s in shapes]


def reused_linear(depth, n=4, h=3):
    """An input layer, one nn.Linear used `depth` times (with ReLU), an output layer.

    Returns the MSE loss and ``dict(model.named_parameters())``: a tiny DynamicNet.
    """
    import torch
    from torch import nn

    torch.manual_seed(0)
    first, mid, last = nn.Linear(5, h), nn.Linear(h, h), nn.Linear(h, 2)
    model = nn.ModuleDict({"first": first, "mid": mid, "last": last})
    x = torch.randn(n, 5)
    hid = first(x).clamp(min=0)
    for _ in range(depth):
        hid = mid(hid).clamp(min=0)
    loss = nn.functional.mse_loss(last(hid), torch.zeros(n, 2), reduction="sum")
    return loss, dict(model.named_parameters())


def pytest_terminal_summary(terminalreporter):
    """Kill rate of the automatic mutants of the solutions, per notebook (test_exercises)."""
    per_notebook = {}
    for status in ("passed", "failed"):
        for report in terminalreporter.stats.get(status, []):
            for key, value in getattr(report, "user_properties", []):
                if key == "mutants" and report.when == "call":
                    notebook, _, total, killed, equivalent = value
                    t = per_notebook.setdefault(notebook, [0, 0, 0])
                    t[0], t[1], t[2] = t[0] + total, t[1] + killed, t[2] + equivalent
    if per_notebook:
        terminalreporter.section("mutants of the exercise solutions")
        for notebook, (total, killed, equivalent) in sorted(per_notebook.items()):
            rate = killed / max(total - equivalent, 1)
            terminalreporter.write_line(
                f"{notebook}: {killed}/{total - equivalent} killed ({rate:.0%}), "
                f"{equivalent} listed as equivalent, {total} in all")
