"""Shared test set-up: matplotlib without a screen, figures closed after each test,
and the small autograd graphs that the graph and plot tests both draw on."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def leaves(*shapes):
    """Seeded random leaf tensors that require grad, one per shape."""
    g = torch.Generator().manual_seed(0)
    return [torch.randn(*s, generator=g).requires_grad_() for s in shapes]


def reused_linear(depth, n=4, h=3):
    """An input layer, one nn.Linear used `depth` times (with ReLU), an output layer.

    Returns the MSE loss and ``dict(model.named_parameters())``: a tiny DynamicNet.
    """
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
