"""Checks for the exercises of notebook 04, DynamicNet: one layer, many uses.

Each check builds its own small `DynamicNet`s (a few rows, inputs and hidden
units, float64, weights drawn from seeded generators), so it runs in
milliseconds and never reads a notebook global.
"""

from __future__ import annotations

import re

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from helpers.checks._old import (
    CheckFailed,
    call_answer,
    exercise_check,
    expect_close,
    expect_model_unchanged,
    expect_tensor,
    expect_unchanged,
    passed,
    snapshot,
    snapshot_model,
)
from helpers.compare import compare

# What the check cells import (torch itself comes from a plain `import torch`): the checks
# and a small DynamicNet to try an answer on.
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


def _untied_shares(model, x, targ, k: int) -> list[torch.Tensor]:
    """Use i's share of dL/dW: the gradient of the i-th of k untied copies of the weight."""
    mid = model.middle_linear
    copies = [mid.weight.detach().clone().requires_grad_() for _ in range(k)]
    with torch.enable_grad():
        h = model.input_linear(x).clamp(min=0)
        for w in copies:
            h = nn.functional.linear(h, w, mid.bias.detach()).clamp(min=0)
        loss = _sse(model.output_linear(h), targ)
        return list(torch.autograd.grad(loss, copies))


def _close(a: torch.Tensor, b: torch.Tensor, low: torch.dtype = torch.float64) -> bool:
    """`a` equals `b` within the rounding of `low`, the least precise dtype used."""
    return a.shape == b.shape and compare({"t": a}, {"t": b.to(low)}).ok


class _LowestPrecision(TorchFunctionMode):
    """Notes the least precise float dtype of the tensors an answer's torch calls return."""

    def __init__(self):
        super().__init__()
        self.low = torch.float64

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.is_floating_point() \
                    and torch.finfo(t.dtype).eps > torch.finfo(self.low).eps:
                self.low = t.dtype
        return out


def _model_state(model) -> dict:
    """Every parameter's values, .grad and requires_grad, to see that an answer left them."""
    return {name: (p.detach().clone(), None if p.grad is None else p.grad.clone(),
                   p.requires_grad) for name, p in model.named_parameters()}


def _expect_model_unchanged(model, before: dict, made_of: dict, who: str) -> None:
    """The model as `_model_state` and `snapshot_model` saw it: parameters with their
    values, `.grad` and `requires_grad`; the same layers and tensors; no hook left."""
    params = dict(model.named_parameters())
    for name, (_, _, requires_grad) in before.items():
        if name in params and params[name].requires_grad != requires_grad:
            raise CheckFailed(f"{who} switched requires_grad of {name}; it should only read "
                              f"the model (detach a copy of the weight instead)")
    expect_model_unchanged(made_of, model, who, values=False)
    for name, (value, grad, _) in before.items():
        p = params[name]
        if not torch.equal(p.detach(), value):
            raise CheckFailed(f"{who} changed the values of {name}; it should only read "
                              f"the model")
        same_grad = (p.grad is None and grad is None) or (
            p.grad is not None and grad is not None and torch.equal(p.grad, grad))
        if same_grad:
            continue
        if grad is not None and (p.grad is None or not p.grad.any()):
            cleared = "set to None" if p.grad is None else "zeroed"
            raise CheckFailed(
                f"{who} {cleared} {name}.grad, which held an earlier backward's gradient. "
                f"Leave the model as it was: torch.autograd.grad(loss, W) needs no "
                f"zero_grad() and touches no .grad")
        raise CheckFailed(
            f"{who} changed {name}.grad: a backward() adds into the model's .grad. "
            f"Leave the model as it was: torch.autograd.grad(loss, W) returns the "
            f"gradient without touching any .grad")


def _diagnose_share(got, ref, i, k, n_out, old_grad, what, low) -> None:
    """Raise the sentence for a recognised mistake, or the comparison table."""
    share, full = ref[i - 1], sum(ref)
    if not got.abs().max() > 0:
        raise CheckFailed(f"{what} is all zeros: no gradient reached W. Either W was held "
                          f"fixed in every use, use {i} too, or the graph was cut on the way "
                          f"(torch.no_grad(), a detached h)")
    if _close(got, old_grad, low):
        raise CheckFailed(
            f"{what} is the .grad middle_linear.weight held before your call, from an "
            f"earlier backward: torch.autograd.grad returns the new gradient ([0] of its "
            f"tuple) and writes no .grad")
    if _close(got, share + old_grad, low):
        raise CheckFailed(   # three lines of at most 79 columns, printed
            f"{what} includes an old .grad:\n"
            f"it is use {i}'s share plus the .grad W held before: backward() adds into "
            f".grad.\ntorch.autograd.grad(loss, W) returns the gradient alone, and writes "
            f"no .grad")
    if k > 1 and _close(got, full, low):
        raise CheckFailed(f"{what} is the whole gradient, the sum over all {k} uses: hold "
                          f"the weight fixed (W.detach()) in every use except use {i}")
    if k > 1 and _close(got, full - share, low):
        raise CheckFailed(f"{what} is the sum of the OTHER uses' shares: you detached use "
                          f"{i} and kept the others; it is the other way round")
    for j in range(1, k + 1):
        if j != i and _close(got, ref[j - 1], low):
            raise CheckFailed(f"{what} is the share of use {j}\nNumber the uses 1 to k, in "
                              f"the order of the forward pass.")
    if _close(got, share.T, low):
        raise CheckFailed(f"{what} is the transpose of use {i}'s share: nn.Linear stores "
                          f"its weight as (out, in), and so does its gradient")
    scale = ((got * share).sum() / (share ** 2).sum()).item()
    if abs(scale) > 1e-6 and _close(got, scale * share, low):
        why = ("you took the mean of the squared errors; the notebook's criterion sums them, "
               "((out - targ) ** 2).sum()" if _close(got, share / n_out, low)
               else "check the loss: the summed squared error, ((out - targ) ** 2).sum()")
        raise CheckFailed(f"{what} is use {i}'s share times {scale:.3g}: {why}")
    expect_close({f"use {i} of {k}": got}, {f"use {i} of {k}": share.to(low)},
                 f"{what} should be dL/dW with W held fixed in every use but use {i}")


def _call_share(share, model, x, targ, k, i):
    """(what, the answer's share, the least precise float dtype it computed in)."""
    what = f"your share(model, x, targ, k={k}, i={i})"
    h = model.middle_linear.weight.shape[0]
    try:
        with _LowestPrecision() as seen:
            got = call_answer(share, model, x, targ, k, i, what=what,
                              hint="it is called with the check's small DynamicNet, its "
                                   "input, its targets, the depth k, and a use number i "
                                   "from 1 to k")
    except CheckFailed as e:   # the notebook's H = 100 written into the answer
        if "\n" not in str(e) and re.search(r"\b(100|1000)\b", str(e)):
            raise CheckFailed(f"{e}\nThe check's DynamicNets are small ({h} hidden units, "
                              f"not the notebook's 100): take every size from the model "
                              f"or its tensors", e.learner_frames) from None
        raise
    got = expect_tensor(got, f"{what} (use {i}'s share of dL/dW, shaped like "
                             f"middle_linear.weight)", (h, h))
    if not got.is_floating_point():
        raise CheckFailed(f"{what} is a tensor of {got.dtype}; a gradient holds real numbers "
                          f"(a float dtype)")
    low = got.dtype if torch.finfo(got.dtype).eps > torch.finfo(seen.low).eps else seen.low
    return what, got.detach(), low


@exercise_check
def check_share(share) -> None:
    """Exercise 1: `share(model, x, targ, k, i)`, use i's share of dL/dW.

    Requires: for every depth k and use i (numbered 1 to k in the order of the
    forward pass), the gradient of the summed squared error with respect to
    ``middle_linear.weight`` when only use i depends on it, as a tensor shaped
    like the weight; and the model (weights, their ``.grad`` and
    ``requires_grad``, its layers, hooks and attributes), ``x`` and ``targ``
    left as they were. The model handed to it holds a ``.grad`` from an
    earlier backward on other data at another depth, as during training, so
    that a ``.grad`` overwritten shows.
    Cases: one model shape at depths 1 to 3, another at depths 2 and 3, every use, and a deep model
    (depth 260), whose use numbers go above Python's cached small ints.
    Leaves free: how the other uses are held fixed (``W.detach()``, a copy),
    ``torch.autograd.grad`` or a backward on copies, ``@`` or ``F.linear``,
    the float dtype (an answer that computes in float32, or returns float32,
    is judged within float32's rounding), extra prints.
    """
    cases = [(_SMALL, (3, 2, 1), None), (_OTHER, (3, 2), None), (_DEEP, (260,), (258, 260))]
    for shape, depths, uses in cases:
        for k in depths:
            model, x, targ = _model(*shape, deep=uses is not None)
            # a .grad from an earlier backward, on other data at another depth (an answer
            # that overwrites any .grad with its own backward cannot write it back unseen)
            _sse(model(0.5 - x.flip(0), k - 1 or 2), targ.flip(0)).backward()
            old_grad = model.middle_linear.weight.grad.clone()
            ref = _untied_shares(model, x, targ, k)
            before, data = _model_state(model), snapshot(x=x, targ=targ)
            made_of = snapshot_model(model)
            for i in uses or range(1, k + 1):
                what, got, low = _call_share_deep(share, model, x, targ, k, i,
                                                  uses is not None)
                expect_unchanged(data, what)
                if not _close(got, ref[i - 1], low):
                    _diagnose_share(got, ref, i, k, targ.numel(), old_grad, what, low)
                _expect_model_unchanged(model, before, made_of, what)
    passed("every use's share matches its untied copy, and the model is left as it was")


def _call_share_deep(share, model, x, targ, k, i, deep):
    """`_call_share`; at depth 260, a weight detached in every use is named as such."""
    try:
        what, got, low = _call_share(share, model, x, targ, k, i)
    except CheckFailed as e:
        if deep and "not have been used in the graph" in str(e):
            raise CheckFailed(
                f"your share(model, x, targ, k={k}, i={i}) held W fixed in every use, use "
                f"{i} too, though it was right at depths 1 to 3. Do you compare use numbers "
                f"with `is`? Two equal ints above 256 are different objects in Python: "
                f"compare numbers with ==", e.learner_frames) from None
        if "not have been used in the graph" in str(e) and "\n" not in str(e):
            raise CheckFailed(
                f"{e}\nNo path led from the loss back to W: either W was held fixed in every "
                f"use, use {i} too, or the graph was cut on the way (torch.no_grad(), a "
                f"detached h); W.detach() in the other uses keeps h in the graph",
                e.learner_frames) from None
        raise
    if deep and not got.abs().max() > 0:
        raise CheckFailed(
            f"{what} is all zeros, though your function was right at depths 1 to 3: W was "
            f"held fixed in every use. Do you compare use numbers with `is`? Two equal ints "
            f"above 256 are different objects in Python: compare numbers with ==")
    return what, got, low


# (model shape, lr, momentum) for exercise 2: two shapes, three settings.
_W3_CASES = [(_SMALL, 0.1, 0.9), (_SMALL, 0.05, 0.5), (_OTHER, 0.2, 0.3)]
_DEPTHS = (2, 0, 0)                        # steps 0, 1 and 2
_NOTEBOOK_LR, _NOTEBOOK_MOMENTUM = 1e-4, 0.9


def _three_steps(shape, lr: float, momentum: float, set_to_none: bool):
    """W0, g0 (step 0, depth 2) and W3 (after steps 1 and 2, at depth 0), run with
    torch.optim.SGD."""
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


def _moves(got, w0, g0, lr) -> float | None:
    """c when `got` is W0 - c * lr * g0 (within rounding); else None."""
    step = lr * g0
    c = ((w0 - got) * step).sum() / (step ** 2).sum()
    if not torch.isfinite(c):
        return None
    c = c.item()
    return c if _close(got, w0 - c * step) else None


def _as_move(c: float) -> str:
    """'W0 - 1.9 * lr * g0', written the way the exercise's formulas are (3 digits)."""
    if abs(c) < 5e-4:
        return "W0"
    size = "" if abs(abs(c) - 1) < 5e-4 else f"{abs(c):.3g} * "
    return f"W0 {'-' if c > 0 else '+'} {size}lr * g0"


def _sgd_c(momentum: float, set_to_none: bool) -> float:
    """The right c: step 0 moves W by lr * g0; with zeros, steps 1 and 2 by momentum (**2)."""
    return 1.0 if set_to_none else 1 + momentum + momentum ** 2


def _diagnose_w3(got, w0, g0, w3, lr, momentum, set_to_none, what) -> None:
    """Say what the answer's W3 is, as a move along g0, and name every mistake that gives it.

    The check tries set_to_none=True before False on each setting, so a False case
    is only reached with an answer whose True case (step 0 alone) was right.
    """
    c, right = _moves(got, w0, g0, lr), _sgd_c(momentum, set_to_none)
    if c is None:
        expect_close({"W3": got}, {"W3": w3},
                     f"{what} is not a move of W0 along g0, as SGD's steps are")
        return
    said = f"{what} is {_as_move(c)}; torch.optim.SGD gives {_as_move(right)}"
    mu = f"{momentum:g}"

    def near(x: float) -> bool:
        return abs(c - x) < 1e-4 * max(1.0, abs(x))

    if near(0):
        why = "the weight did not move, but step 0, at depth 2, moves it by lr * v0 = lr * g0"
    elif near(-right):
        why = "the weight moved up the gradient: SGD moves it by -lr * v, against it"
    elif near(right * _NOTEBOOK_LR / lr):
        why = (f"that is the right move for lr={_NOTEBOOK_LR:g}, the notebook's: use the "
               f"lr argument")
    elif momentum != _NOTEBOOK_MOMENTUM and near(_sgd_c(_NOTEBOOK_MOMENTUM, set_to_none)):
        why = (f"that is the right W3 for momentum={_NOTEBOOK_MOMENTUM:g}, the notebook's: "
               f"use the momentum argument")
    elif set_to_none and near(1 + momentum + momentum ** 2):
        why = (f"that is lr * g0, then {mu} and {momentum ** 2:g} times lr * g0: steps 1 and 2 "
               f"moved it on momentum, but with set_to_none=True its .grad is None at depth 0 "
               f"and SGD skips the weight")
    elif set_to_none and near(1 + momentum):
        why = (f"that is lr * g0 plus {mu} * lr * g0: either a depth-0 step moved it on "
               f"momentum, but with set_to_none=True its .grad is None there and SGD skips "
               f"it; or step 0 moved it by more than lr * v0, with v0 = g0")
    elif not set_to_none and near(1):
        why = ("that is W1, as if steps 1 and 2 skipped the weight; with set_to_none=False "
               "its .grad is a zero tensor, and the buffer momentum * v0 + 0 still moves it")
    elif not set_to_none and near(1 + momentum):
        why = ("that is W2: step 2 did not move it. At depth 0 again, its .grad is zeros "
               "again, and the buffer, decayed once more (v2 = momentum * v1), moves it")
    elif not set_to_none and near(1 + 2 * momentum):
        why = ("step 2 moved it by lr * momentum * g0, as step 1 did; but the buffer decays "
               "in every step: v2 = momentum * v1 = momentum**2 * g0")
    elif not set_to_none and near(3):
        why = ("steps 1 and 2 moved it by lr * g0 each: as if the buffer never decayed, or "
               "as if g0 were their gradient; at depth 0 it is zeros: v = momentum * v + 0")
    elif not set_to_none and near(3 + 2 * momentum + momentum ** 2):
        why = ("as if g0 were also the gradient of steps 1 and 2: at depth 0 it is zeros, "
               "so the buffer only decays, v = momentum * v + 0")
    else:
        raise CheckFailed(said)
    raise CheckFailed(f"{said}\n{why[0].upper()}{why[1:]}")


@exercise_check
def check_w3(predict_w3) -> None:
    """Exercise 2: `predict_w3(W0, g0, lr, momentum, set_to_none)`, W3 after depths 2, 0, 0.

    Requires: the weight after step 2 as torch.optim.SGD makes it (step 0 at
    depth 2, steps 1 and 2 at depth 0, each after ``zero_grad(set_to_none=...)``),
    for both values of `set_to_none`, two weight shapes and three settings of
    `lr` and `momentum`; `W0` and `g0` left as they were. Leaves free: how it
    is computed (formulas, a loop over steps, a momentum buffer variable, a
    real optimizer on a copy), the float dtype, extra prints.
    """
    for shape, lr, momentum in _W3_CASES:
        for set_to_none in (True, False):
            w0, g0, w3 = _three_steps(shape, lr, momentum, set_to_none)
            what = (f"your predict_w3(W0, g0, lr={lr}, momentum={momentum}, "
                    f"set_to_none={set_to_none})")
            args = snapshot(W0=w0.clone(), g0=g0.clone())
            got = call_answer(predict_w3, args["W0"][0], args["g0"][0], lr, momentum,
                              set_to_none, what=what,
                              hint="it receives W0 and g0 (tensors), lr and momentum "
                                   "(floats) and set_to_none (a bool); return a tensor")
            got = expect_tensor(got, f"{what} (W3, shaped like W0)", tuple(w0.shape))
            expect_unchanged(args, what)
            got = got.detach()
            if not _close(got, w3):
                _diagnose_w3(got, w0, g0, w3, lr, momentum, set_to_none, what)
    passed("predict_w3 matches torch.optim.SGD, with set_to_none True and False")
