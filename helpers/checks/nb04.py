"""Checks for the exercises of notebook 04, DynamicNet: one layer, many uses.

Each check builds its own small `DynamicNet` (8 rows, 5 inputs, 6 hidden units,
3 outputs, float64, weights drawn from a seeded generator), so it runs in
milliseconds and never reads a notebook global.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from helpers.checks import call_answer, expect_close
from helpers.compare import compare

__all__ = ["check_share", "check_w2"]

N, D_IN, H, D_OUT = 8, 5, 6, 3


class DynamicNet(nn.Module):
    """The notebook's DynamicNet, with the depth always given."""

    def __init__(self, d_in: int, h: int, d_out: int):
        super().__init__()
        self.input_linear = nn.utils.skip_init(nn.Linear, d_in, h, dtype=torch.float64)
        self.middle_linear = nn.utils.skip_init(nn.Linear, h, h, dtype=torch.float64)
        self.output_linear = nn.utils.skip_init(nn.Linear, h, d_out, dtype=torch.float64)

    def forward(self, x: torch.Tensor, depth: int) -> torch.Tensor:
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


def _fresh() -> DynamicNet:
    """The same small model every time (a seeded generator; the global RNG is not touched)."""
    g = torch.Generator().manual_seed(4)
    model = DynamicNet(D_IN, H, D_OUT)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64) * 0.6 + 0.1)
    return model


def _data() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(5)
    return (torch.randn(N, D_IN, generator=g, dtype=torch.float64),
            torch.randn(N, D_OUT, generator=g, dtype=torch.float64))


def _sse(out: torch.Tensor, targ: torch.Tensor) -> torch.Tensor:
    return ((out - targ) ** 2).sum()


def _untied_shares(x: torch.Tensor, targ: torch.Tensor, k: int) -> list[torch.Tensor]:
    """Use i's share of dL/dW: the gradient of the i-th of k untied copies of middle_linear."""
    model = _fresh()
    copies = [copy.deepcopy(model.middle_linear) for _ in range(k)]
    h = model.input_linear(x).clamp(min=0)
    for layer in copies:
        h = layer(h).clamp(min=0)
    loss = _sse(model.output_linear(h), targ)
    return list(torch.autograd.grad(loss, [c.weight for c in copies]))


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and compare({"t": a}, {"t": b}).ok


def _as_weight_grad(got: object, what: str) -> torch.Tensor:
    if not isinstance(got, torch.Tensor):
        raise AssertionError(f"{what} should return a tensor, the gradient of "
                             f"middle_linear.weight; it returned a {type(got).__name__}")
    if tuple(got.shape) != (H, H):
        raise AssertionError(f"{what} returned a tensor of shape {tuple(got.shape)}; a share of "
                             f"dL/dW has the shape of middle_linear.weight, {(H, H)}")
    return got.detach()


def check_share(share) -> None:
    """Exercise 1: `share(model, x, targ, k, i)`, use i's share of dL/dW (W detached elsewhere)."""
    x, targ = _data()
    for k in (3, 2, 1):
        ref = _untied_shares(x, targ, k)
        full = sum(ref)
        for i in range(1, k + 1):
            what = f"your share(model, x, targ, k={k}, i={i})"
            got = _as_weight_grad(call_answer(
                share, _fresh(), x.clone(), targ.clone(), k, i, what=what,
                hint="run the forward pass at depth k by hand, with middle_linear.weight "
                     "detached in every use except use i (an error that a tensor was not used in "
                     "the graph means that W was detached in all k uses)"), what)
            if _close(got, ref[i - 1]):
                continue
            if k > 1 and _close(got, full):
                raise AssertionError(
                    f"{what} is the whole gradient, the sum over all {k} uses: detach the weight "
                    f"in every use except use {i}")
            if k > 1 and _close(got, full - ref[i - 1]):
                raise AssertionError(
                    f"{what} is the sum of the OTHER uses' shares: you detached use {i} and kept "
                    f"the others; it is the other way round")
            for j in range(1, k + 1):
                if j != i and _close(got, ref[j - 1]):
                    raise AssertionError(
                        f"{what} is the share of use {j}: number the uses 1 to k, in the order "
                        f"of the forward pass")
            scale = (got * ref[i - 1]).sum() / (ref[i - 1] ** 2).sum()
            if abs(scale.item()) > 1e-6 and _close(got, scale * ref[i - 1]):
                raise AssertionError(
                    f"{what} is use {i}'s share times {scale.item():.3g}: use the summed squared "
                    f"error, ((out - targ) ** 2).sum(), the notebook's criterion")
            expect_close({f"use {i} of {k}": got}, {f"use {i} of {k}": ref[i - 1]},
                         f"{what} should be dL/dW with W detached in every use but use {i}")
    print("every use's share matches its untied copy, at depths 1 to 3")


def _two_steps(lr: float, momentum: float, set_to_none: bool):
    """W0, g0 (step 0, depth 2) and W2 (after step 1, depth 0), run with torch.optim.SGD."""
    x, targ = _data()
    model = _fresh()
    w = model.middle_linear.weight
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    w0 = w.detach().clone()
    for depth in (2, 0):
        optimizer.zero_grad(set_to_none=set_to_none)
        _sse(model(x, depth), targ).backward()
        if depth == 2:
            g0 = w.grad.clone()
        optimizer.step()
    return w0, g0, w.detach().clone()


def check_w2(predict_w2) -> None:
    """Exercise 2: `predict_w2(W0, g0, lr, momentum, set_to_none)`, W2 after depths 2 then 0."""
    for lr, momentum in ((0.1, 0.9), (0.05, 0.5)):
        for set_to_none in (True, False):
            w0, g0, w2 = _two_steps(lr, momentum, set_to_none)
            what = (f"your predict_w2(W0, g0, lr={lr}, momentum={momentum}, "
                    f"set_to_none={set_to_none})")
            got = call_answer(predict_w2, w0.clone(), g0.clone(), lr, momentum, set_to_none,
                              what=what, hint="it receives tensors and numbers; return a tensor")
            if not isinstance(got, torch.Tensor) or got.shape != w0.shape:
                raise AssertionError(
                    f"{what} should return a tensor shaped like W0, {tuple(w0.shape)}")
            got = got.detach()
            if _close(got, w2):
                continue
            w1 = w0 - lr * g0
            if _close(got, w0):
                raise AssertionError(f"{what} is W0: step 0, at depth 2, does move the weight")
            if set_to_none and _close(got, w1 - lr * momentum * g0):
                raise AssertionError(
                    f"{what} moved the weight in step 1, but with set_to_none=True its .grad is "
                    f"None at depth 0, and SGD skips a parameter without a gradient: W2 = W1")
            if not set_to_none and _close(got, w1):
                raise AssertionError(
                    f"{what} left the weight at W1, but with set_to_none=False its .grad is a zero "
                    f"tensor, an ordinary gradient: the buffer becomes momentum * v0 + 0, and the "
                    f"weight moves by lr times that")
            if not set_to_none and _close(got, w1 - lr * g0):
                raise AssertionError(f"{what} moved by lr * v0 again; the buffer decays "
                                     f"first: v1 = momentum * v0 + 0")
            expect_close({"W2": got}, {"W2": w2},
                         f"{what} is wrong; step 0 starts the buffer as v0 = g0 and moves "
                         f"W1 = W0 - lr * v0; then ask what step 1 does with its .grad")
    print("predict_w2 matches torch.optim.SGD, with set_to_none True and False")
