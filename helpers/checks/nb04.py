"""Checks for the exercises of notebook 04, DynamicNet: one layer, many uses. Each builds
small float64 `DynamicNet`s of its own; a wrong result is described (another use's share, a
move of W0 along g0), and blamed on a mistake only when it fits every case."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import torch
import torch._dynamo  # noqa: F401 -- what torch imports at the first optimizer: paid here
from torch import nn
from torch.overrides import TorchFunctionMode

from helpers.checks import (
    CheckFailed,
    Mistake,
    call_answer,
    code_uses,
    exercise_check,
    expect_tensor,
    expect_unchanged,
    judge,
    snapshot,
)
from helpers.compare import compare

__all__ = ["check_share", "check_w3", "small_dynamicnet"]


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


# (rows, inputs, hidden, outputs, seed): two shapes; the third case is deep, and
# its middle layer keeps activations alive through hundreds of uses.
_SMALL, _OTHER, _DEEP = (8, 5, 6, 3, 4), (5, 4, 7, 2, 11), (5, 4, 6, 2, 8)


def _model(n: int, d_in: int, h: int, d_out: int, seed: int, deep: bool = False):
    """A DynamicNet, an input batch and targets, all from one seeded generator."""
    g = torch.Generator().manual_seed(seed)
    model = DynamicNet(d_in, h, d_out)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64) * 0.6 + 0.1)
        if deep:   # about half the identity plus a little noise, and a positive bias
            mid = model.middle_linear
            mid.weight.mul_(0.25).add_(0.5 * torch.eye(h, dtype=torch.float64))
            mid.bias.abs_().add_(0.3)
    x = torch.randn(n, d_in, generator=g, dtype=torch.float64)
    targ = torch.randn(n, d_out, generator=g, dtype=torch.float64) + 0.5
    return model, x, targ


def small_dynamicnet():
    """(model, x, targ): one of the checks' small DynamicNets (float64, 6 hidden units;
    `model(x, depth)` needs the depth), with an input batch and targets, to try an answer on."""
    return _model(*_SMALL)


def _sse(out: torch.Tensor, targ: torch.Tensor) -> torch.Tensor:
    return ((out - targ) ** 2).sum()


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and compare({"t": a}, {"t": b.to(a.dtype)}).ok


class _LowestPrecision(TorchFunctionMode):
    """Notes the least precise float dtype of the tensors an answer's torch calls return."""
    low = torch.float64

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.is_floating_point() \
                    and torch.finfo(t.dtype).eps > torch.finfo(self.low).eps:
                self.low = t.dtype
        return out


# -- Exercise 1 -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _shares(shape, k: int):
    """(the .grad an earlier backward left, each use's share of dL/dW) for a model of
    `shape` at depth k: the share of use i is the gradient of the i-th of k untied copies."""
    model, x, targ = _model(*shape, deep=k > 3)
    _sse(model(0.5 - x.flip(0), k - 1 or 2), targ.flip(0)).backward()
    mid = model.middle_linear
    copies = [mid.weight.detach().clone().requires_grad_() for _ in range(k)]
    h = model.input_linear(x).clamp(min=0)
    for w in copies:
        h = nn.functional.linear(h, w, mid.bias.detach()).clamp(min=0)
    return mid.weight.grad.clone(), torch.autograd.grad(_sse(model.output_linear(h), targ), copies)


def _use(c, j):
    """Use j's share, or (no use j) the error of a gradient that reached W by no path."""
    if not 1 <= j <= c.k:
        raise RuntimeError("W held fixed in every use")
    return {"share": c.shares[j - 1]}


SHARE = [
    Mistake("whole", "you held no use fixed: hold the weight fixed (W.detach()) in every use "
            "except use i", gives=lambda c: {"share": sum(c.shares)}),
    Mistake("others", "you detached use i and kept the others; it is the other way round",
            gives=lambda c: _use(c, 0) if c.k == 1 else {
                "share": sum(c.shares) - c.shares[c.i - 1]}),
    Mistake("h_detached", "you detached h, not W: use i's path to L is cut", gives=lambda c: {
        "share": c.shares[-1] + (c.shares[-2] if c.i == c.k > 1 else 0)}),
    Mistake("from_0", "you numbered the uses from 0 (range(k)); number them 1 to k, in the "
            "order of the forward pass", gives=lambda c: _use(c, c.i + 1)),
    Mistake("reversed", "you numbered the uses from the output end; number them 1 to k, in "
            "the order of the forward pass", gives=lambda c: _use(c, c.k + 1 - c.i)),
    Mistake("mean", "you took the mean of the squared errors; the notebook's criterion sums "
            "them, ((out - targ) ** 2).sum()",
            gives=lambda c: {"share": c.shares[c.i - 1] / c.outputs}),
    Mistake("old_grad", "you returned W.grad after a backward(), which adds into the .grad W "
            "held before; torch.autograd.grad(loss, W) returns the gradient alone",
            gives=lambda c: {"share": c.shares[c.i - 1] + c.old}),
    Mistake("stale_grad", "you returned W.grad, the .grad of an earlier backward: "
            "torch.autograd.grad returns the new gradient ([0] of its tuple) and writes no .grad",
            gives=lambda c: {"share": c.old}),
    Mistake("transposed", "nn.Linear stores its weight as (out, in), and so does its "
            "gradient: yours is transposed", gives=lambda c: {"share": c.shares[c.i - 1].T}),
    Mistake("is", "you compared use numbers with `is`: two equal ints above 256 are different "
            "objects in Python; compare numbers with ==",
            raises=(RuntimeError, "not have been used in the graph"),
            seen=lambda a: code_uses(a, op="IS_OP")),
    Mistake("no_requires_grad", "the tensor you asked autograd for the gradient of does not "
            "require grad: hold W fixed with W.detach(), a copy, and leave W's requires_grad on",
            raises=(RuntimeError, "does not require grad")),
    Mistake("no_path", "No path led from the loss back to W: either W was held fixed in every "
            "use, use i too, or the graph was cut on the way (torch.no_grad(), a detached h); "
            "W.detach() in the other uses keeps h in the graph",
            raises=(RuntimeError, "not have been used in the graph")),
    Mistake("size_100", "The check's DynamicNets are small (6 or 7 hidden units, not the "
            "notebook's 100): take every size from the model or its tensors",
            raises=(RuntimeError, ""), seen=lambda a: {100, 1000} & set(
                getattr(getattr(a, "__code__", None), "co_consts", ()))),
]


def _observe(c, got) -> str:
    """What the answer's share is, when the check can tell: another use's share, a sum."""
    got, share, full = got["share"], c.shares[c.i - 1], sum(c.shares)
    seen = [("is all zeros: no gradient reached W", torch.zeros_like(share)),
            ("is the .grad middle_linear.weight held before your call", c.old),
            (f"is use {c.i}'s share plus the .grad W held before", share + c.old),
            (f"is the whole gradient, the sum over all {c.k} uses", full),
            (f"is the sum of the other uses' shares, without use {c.i}'s", full - share),
            *((f"is the share of use {j}", s) for j, s in enumerate(c.shares, 1) if j != c.i),
            (f"is the transpose of use {c.i}'s share", share.T)]
    said = next((text for text, t in seen if _close(got, t)), None)
    scale = ((got * share).sum() / (share ** 2).sum()).item()
    if said is None and abs(scale) > 1e-6 and _close(got, scale * share):
        said = f"is use {c.i}'s share times {scale:.3g}"
    return c.what + " " + (said or f"should be dL/dW with W held fixed in every use but use {c.i}")


def _share_trial(share, c, changed: list):
    model, x, targ = _model(*c.shape, deep=c.k > 3)
    _sse(model(0.5 - x.flip(0), c.k - 1 or 2), targ.flip(0)).backward()   # an old .grad
    before = snapshot(model=model, x=x, targ=targ)
    with _LowestPrecision() as seen:
        got = call_answer(share, model, x, targ, c.k, c.i, what=c.what, mistakes=(
            SHARE if c.k > 3 else [m for m in SHARE if m.key != "is"]),
            hint="it is called with the check's small DynamicNet, its input, its targets, the "
                 "depth k, and a use number i from 1 to k")
    got = expect_tensor(got, f"{c.what} (use {c.i}'s share of dL/dW, shaped like "
                             f"middle_linear.weight)", tuple(c.old.shape))
    if not got.is_floating_point():
        raise CheckFailed(f"{c.what} is a tensor of {got.dtype}; a gradient holds real numbers "
                          f"(a float dtype)")
    try:
        expect_unchanged(before, c.what, grad="torch.autograd.grad(loss, W) returns the "
                         "gradient without touching any .grad; leave the model as it was")
    except CheckFailed as e:   # said after the numbers, which tell more
        changed.append(e)
    low = got.dtype if torch.finfo(got.dtype).eps > torch.finfo(seen.low).eps else seen.low
    return {"share": got.detach().to(low)}


@exercise_check
def check_share(share) -> str:
    """Exercise 1: `share(model, x, targ, k, i)`, use i's share of dL/dW: every use at depths
    1 to 3 on two shapes, and at depth 260 (use numbers above Python's cached ints)."""
    cases = [SimpleNamespace(shape=shape, k=k, i=i, outputs=shape[0] * shape[3],
                             what=f"your share(model, x, targ, k={k}, i={i})")
             for shape, depths, uses in [(_SMALL, (3, 2, 1), None), (_OTHER, (3, 2), None),
                                         (_DEEP, (260,), (258, 260))]
             for k in depths for i in uses or range(1, k + 1)]
    for c in cases:
        c.old, c.shares = _shares(c.shape, c.k)
    changed: list = []
    judge(cases, lambda c: _share_trial(share, c, changed),
          lambda c: {"share": c.shares[c.i - 1]}, _observe, SHARE, share)
    if changed:
        raise changed[0]
    return "every use's share matches its untied copy, and the model is left as it was"


# -- Exercise 2 -------------------------------------------------------------------------------
# (model shape, lr, momentum) for exercise 2: two shapes, three settings.
_W3_CASES = [(_SMALL, 0.1, 0.9), (_SMALL, 0.05, 0.5), (_OTHER, 0.2, 0.3)]
_DEPTHS = (2, 0, 0)                        # steps 0, 1 and 2


@functools.lru_cache(maxsize=8)
def _three_steps(shape, lr: float, momentum: float, set_to_none: bool):
    """W0, g0 (step 0, at depth 2) and W3 (after steps 1 and 2, at depth 0) of torch.optim.SGD."""
    model, x, targ = _model(*shape)
    w = model.middle_linear.weight
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    w0 = w.detach().clone()
    for step, depth in enumerate(_DEPTHS):
        optimizer.zero_grad(set_to_none=set_to_none)
        _sse(model(x, depth), targ).backward()
        if step == 0:
            g0 = w.grad.clone()
        optimizer.step()
    return w0, g0, w.detach().clone()


def _right(lr, m, none):
    """How far SGD moves W along lr * g0: step 0 by g0, then (zeros, not None) by the
    decaying buffer, m * g0 and m**2 * g0."""
    return 1.0 if none else 1 + m + m ** 2


def _move(factor):
    """`gives` of a mistake that moves W0 by factor(lr, momentum, set_to_none) * lr * g0."""
    return lambda c: {"predict_w3": c.w0 - factor(c.lr, c.m, c.none) * c.lr * c.g0}


W3 = [
    Mistake("v0", "your step 0 made the buffer momentum * g0 + g0; SGD starts it as v0 = g0",
            gives=_move(lambda lr, m, none: (1 + m) * _right(lr, m, none))),
    Mistake("swapped", "you swapped the branches: set_to_none=True leaves .grad None at depth 0 "
            "and SGD skips the weight; False leaves zeros, and the buffer still moves it",
            gives=_move(lambda lr, m, none: _right(lr, m, not none))),
    Mistake("none_moves", "steps 1 and 2 moved the weight on momentum with set_to_none=True "
            "too; its .grad is None at depth 0 and SGD skips the weight",
            gives=_move(lambda lr, m, none: 1 + m + m ** 2)),
    Mistake("none_moves_once", "a depth-0 step moved the weight on momentum with "
            "set_to_none=True; its .grad is None there and SGD skips the weight",
            gives=_move(lambda lr, m, none: 1 + m if none else _right(lr, m, none))),
    Mistake("zeros_skip", "steps 1 and 2 skipped the weight with set_to_none=False too; its "
            ".grad is a zero tensor, and the buffer momentum * v + 0 still moves it",
            gives=_move(lambda lr, m, none: 1.0)),
    Mistake("no_step_2", "step 2 did not move the weight: at depth 0 again, its .grad is zeros "
            "again, and the buffer, decayed once more (v2 = momentum * v1), moves it",
            gives=_move(lambda lr, m, none: 1.0 if none else 1 + m)),
    Mistake("no_decay_2", "step 2 moved the weight by lr * momentum * g0, as step 1 did; but "
            "the buffer decays in every step: v2 = momentum * v1 = momentum**2 * g0",
            gives=_move(lambda lr, m, none: 1.0 if none else 1 + 2 * m)),
    Mistake("no_decay", "steps 1 and 2 moved it by lr * g0 each: as if the buffer never "
            "decayed, or g0 were their gradient; at depth 0 it is zeros: v = momentum * v + 0",
            gives=_move(lambda lr, m, none: 1.0 if none else 3.0)),
    Mistake("g0_again", "you used g0 as the gradient of steps 1 and 2 too: at depth 0 it is "
            "zeros, so the buffer only decays, v = momentum * v + 0",
            gives=_move(lambda lr, m, none: 1.0 if none else 3 + 2 * m + m ** 2)),
    Mistake("no_step_0", "you left out step 0, which, at depth 2, moves the weight by lr * v0 "
            "= lr * g0", gives=_move(lambda lr, m, none: _right(lr, m, none) - 1)),
    Mistake("up", "the weight moved up the gradient: SGD moves it by -lr * v, against it",
            gives=_move(lambda lr, m, none: -_right(lr, m, none))),
    Mistake("lr", "you wrote in lr=0.0001, the notebook's: use the lr argument",
            gives=_move(lambda lr, m, none: _right(lr, m, none) * 1e-4 / lr)),
    Mistake("momentum", "you wrote in momentum=0.9, the notebook's: use the momentum argument",
            gives=_move(lambda lr, m, none: _right(lr, 0.9, none))),
]


def _moves(c, got) -> float | None:
    """f when `got` is W0 - f * lr * g0 (within rounding); else None."""
    step = c.lr * c.g0
    f = ((c.w0 - got) * step).sum() / (step ** 2).sum()
    return f.item() if torch.isfinite(f) and _close(got, c.w0 - f.item() * step) else None


def _as_move(f: float) -> str:
    """'W0 - 1.9 * lr * g0', written the way the exercise's formulas are (3 digits)."""
    if abs(f) < 5e-4:
        return "W0"
    size = "" if abs(abs(f) - 1) < 5e-4 else f"{abs(f):.3g} * "
    return f"W0 {'-' if f > 0 else '+'} {size}lr * g0"


def _w3_what(c, got) -> str:
    f = _moves(c, got["predict_w3"])
    return c.what + (" is not a move of W0 along g0, as SGD's steps are" if f is None else
                     f" is {_as_move(f)}; torch.optim.SGD gives "
                     f"{_as_move(_right(c.lr, c.m, c.none))}")


def _w3_trial(predict_w3, c):
    args = snapshot(W0=c.w0.clone(), g0=c.g0.clone())
    got = call_answer(predict_w3, args.roots["W0"], args.roots["g0"], c.lr, c.m, c.none,
                      what=c.what, hint="it receives W0 and g0 (tensors), lr and momentum "
                                        "(floats) and set_to_none (a bool); return a tensor")
    got = expect_tensor(got, f"{c.what} (W3, shaped like W0)", tuple(c.w0.shape))
    expect_unchanged(args, c.what)
    return {"predict_w3": got.detach().double()}


@exercise_check
def check_w3(predict_w3) -> str:
    """Exercise 2: `predict_w3(W0, g0, lr, momentum, set_to_none)`, torch.optim.SGD's W3 after
    depths 2, 0, 0: both `set_to_none`, two shapes, three settings."""
    cases = []
    for shape, lr, m in _W3_CASES:
        for none in (True, False):
            w0, g0, w3 = _three_steps(shape, lr, m, none)
            cases.append(SimpleNamespace(w0=w0, g0=g0, w3=w3, lr=lr, m=m, none=none, what=(
                f"your predict_w3(W0, g0, lr={lr}, momentum={m}, set_to_none={none})")))
    judge(cases, lambda c: _w3_trial(predict_w3, c), lambda c: {"predict_w3": c.w3}, _w3_what,
          W3, predict_w3)
    return "predict_w3 matches torch.optim.SGD, with set_to_none True and False"
