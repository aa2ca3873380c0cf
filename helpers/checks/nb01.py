"""Checks for the exercises of notebook 01, forward and backward by hand."""

from __future__ import annotations

import torch

from helpers.checks import call_answer, expect_close, read_g
from helpers.data import make_weights, synthetic_regression
from helpers.numerical import numerical_grads

__all__ = ["check_mae_grad", "check_shapes", "check_sigmoid_grad"]

NAMES = ("inp", "l1", "out", "w1", "b1", "w2", "b2")


def check_shapes(answer: dict) -> None:
    """Exercise 1: the gradient shapes for N=32, n_in=5, nh=7, found by autograd."""
    if not isinstance(answer, dict):
        raise AssertionError(f"answer with a dict of shapes, not a {type(answer).__name__}")
    missing = [k for k in NAMES if k not in answer]
    if missing:
        raise AssertionError(f"your dict has no entry for {', '.join(missing)}")
    inp, targ = synthetic_regression(n=32, n_in=5, seed=1)
    w1, b1, w2, b2 = (t.requires_grad_() for t in make_weights(5, 7, seed=1))
    inp.requires_grad_()
    l1 = inp @ w1 + b1
    out = l1.clamp_min(0) @ w2 + b2
    for t in (l1, out):
        t.retain_grad()
    (out.squeeze(-1) - targ).pow(2).mean().backward()
    actual = dict(inp=inp, l1=l1, out=out, w1=w1, b1=b1, w2=w2, b2=b2)
    for name in NAMES:
        said, shape = tuple(answer[name]), tuple(actual[name].grad.shape)
        assert said == shape, (
            f"{name}: you said {said}, but its gradient has shape {shape}, "
            f"the shape of {name} itself"
        )
    print("all shapes right")


def check_sigmoid_grad(sigmoid_grad) -> None:
    """Exercise 2: `sigmoid_grad(inp, out)` sets `inp.g` from `out.g`; checked by autograd."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 4, generator=g, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(6, 4, generator=g, dtype=torch.float64)
    (torch.sigmoid(x) * upstream).sum().backward()  # autograd's dL/dx for this upstream gradient
    inp, out = x.detach().clone(), torch.sigmoid(x.detach())
    out.g = upstream
    call_answer(sigmoid_grad, inp, out, what="your sigmoid_grad",
                hint="it receives inp and out; read out.g and set inp.g")
    ours = read_g(inp, "inp", "your sigmoid_grad")
    expect_close({"inp": ours}, {"inp": x.grad},
                 "inp.g should be out.g * out * (1 - out), the chain rule through the sigmoid")
    print("sigmoid_grad matches autograd")


def check_mae_grad(mae_grad) -> None:
    """Exercise 3: `mae_grad(inp, targ)` sets `inp.g` (N, 1); checked by finite differences."""
    pred = torch.linspace(-1, 1, 10, dtype=torch.float64).unsqueeze(-1)  # (10, 1)
    targ = torch.linspace(-1, 1, 10, dtype=torch.float64).flip(0) + 0.05  # never equal to pred
    call_answer(mae_grad, pred, targ, what="your mae_grad",
                hint="inp is (N, 1) and targ is (N,): squeeze(-1) before subtracting")
    ours = read_g(pred, "inp", "your mae_grad")
    numerical = numerical_grads(lambda p: (p.squeeze(-1) - targ).abs().mean(), {"p": pred})
    expect_close({"inp": ours}, {"inp": numerical["p"]},
                 "inp.g should be sign(inp - targ) / N, shaped (N, 1)")
    print("mae_grad matches finite differences")
