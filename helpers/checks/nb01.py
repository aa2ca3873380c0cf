"""Checks for the exercises of notebook 01, forward and backward by hand.

Each check builds its own data, runs the learner's answer on several cases,
and compares with a reference it computes itself (autograd, finite
differences) from copies taken before the answer runs.
"""

from __future__ import annotations

import dis
import operator
from collections.abc import Mapping
from typing import Any

import torch

from helpers.checks import (
    CheckFailed,
    a_type,
    call_answer,
    dtype_name,
    exercise_check,
    expect_close,
    expect_unchanged,
    passed,
    read_g,
    snapshot,
)
from helpers.data import make_weights, synthetic_regression
from helpers.numerical import numerical_grads

# torch too: the check cells import it, so an answer works after a kernel restart
__all__ = ["check_mae_grad", "check_shapes", "check_sigmoid_grad", "torch"]

NAMES = ("inp", "l1", "out", "w1", "b1", "w2", "b2")
PARAMS = ("w1", "b1", "w2", "b2")


def _grad_of(t: torch.Tensor, who: str, returned: Any) -> torch.Tensor:
    """`t.g` as a floating-point tensor of `t`'s shape, or a sentence saying what it is."""
    if not isinstance(getattr(t, "g", None), torch.Tensor) and isinstance(returned, torch.Tensor):
        raise CheckFailed(f"{who} returned a tensor but did not set inp.g\nThe backward "
                          f"functions of this notebook store the gradient: inp.g = ...")
    g = getattr(t, "g", None)
    n = t.shape[0]
    if isinstance(g, torch.Tensor) and t.dim() == 2 and t.shape[1] == 1:
        if tuple(g.shape) == (n, n) and n > 1:
            raise CheckFailed(
                f"inp.g has shape {(n, n)}, but a gradient has the shape of its tensor: "
                f"{(n, 1)}\nThat is the (N, 1) - (N,) broadcast of section 1: "
                f"squeeze(-1) the prediction before subtracting targ.")
        if tuple(g.shape) == (n,):
            raise CheckFailed(
                f"inp.g has shape {(n,)}, but a gradient has the shape of its tensor: "
                f"{(n, 1)}; put the column back with unsqueeze(-1).")
    return read_g(t, "inp", who)


def _expect_requires_grad(t: torch.Tensor, was: bool, name: str, who: str) -> None:
    if t.requires_grad != was:
        raise CheckFailed(
            f"{who} switched {'on' if t.requires_grad else 'off'} {name}.requires_grad; it "
            f"should leave {name} as it was (for autograd, work on a copy: "
            f"{name}.detach().requires_grad_())")


def _adds_to_g(answer: Any) -> bool:
    """True when the answer's own code has `x.g += ...`."""
    try:
        code = list(dis.get_instructions(answer))
    except TypeError:
        return False
    return any(i.opname == "INPLACE_ADD" or (i.opname == "BINARY_OP" and i.argrepr == "+=")
               for i in code) and any(i.opname == "STORE_ATTR" and i.argval == "g" for i in code)


def _call(answer, *args, what: str, hint: str, errors: Mapping[str, str], no_g: str) -> Any:
    """`call_answer`, plus two diagnoses of this notebook's own: a `.g` read before anything
    set it (`no_g` says which exist), and `@` where the layer acts entry by entry."""
    try:
        return call_answer(answer, *args, what=what, hint=hint, errors=errors)
    except CheckFailed as e:
        cause, said = e.__cause__, None
        if "\n" in str(e):
            raise
        if isinstance(cause, RuntimeError) and "cannot be multiplied" in str(cause):
            said = "This layer acts entry by entry, so its backward multiplies entry by entry: " \
                   "* rather than @"
        elif isinstance(cause, AttributeError) and "attribute 'g'" in str(cause):
            said = ("inp.g does not exist until your code sets it: create it with "
                    "inp.g = ..., not +=") if _adds_to_g(answer) else no_g
        if said is None:
            raise
        raise CheckFailed(f"{e}\n{said}", e.learner_frames) from cause


# -- Exercise 1 -------------------------------------------------------------------------------

def _shape(value: Any, name: str) -> tuple[int, ...]:
    """The learner's entry as a tuple of ints, or a sentence saying what it is instead."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes, float)):
        raise CheckFailed(f"{name}: you wrote {value!r}; a shape is a tuple of ints, "
                          f"such as (2, 3) or (4,)")
    if isinstance(value, int):
        raise CheckFailed(f"{name}: you wrote {value!r}, an int; a shape is a tuple of ints\n"
                          f"A one-element tuple needs a comma: ({value},), while ({value}) "
                          f"is just the number {value}")
    if not isinstance(value, (tuple, list, torch.Size)):
        raise CheckFailed(f"{name}: you wrote {a_type(value)}; a shape is a tuple of ints, "
                          f"such as (2, 3) or (4,)")
    try:
        if any(isinstance(v, (bool, float)) for v in value):
            raise TypeError
        return tuple(operator.index(v) for v in value)
    except TypeError:
        raise CheckFailed(f"{name}: you wrote {tuple(value)!r}; every entry of a shape is an "
                          f"int") from None


def _shape_mistake(name: str, said: tuple, shape: tuple, n: int) -> str:
    """A diagnosed reason why `said` is not `shape`, or an empty string."""
    if len(shape) == 2 and said == shape[::-1]:
        return ": that is the transpose"
    if name in PARAMS and said == (n, *shape):
        return (f": {name} is shared by all {n} rows, so its gradient sums over them "
                f"(no batch axis)")
    if len(shape) == 2 and said == shape[:-1] and shape[-1] == 1:
        return f": {name} has a column axis of size 1, and so does its gradient"
    if said == () and shape == (1,):
        return f": () is the shape of a scalar, but {name} is a vector of one entry"
    return ""


def _wrong_shape(name: str, said: tuple, shape: tuple, n: int) -> str:
    return (f"{name}: you said {said}, but its gradient has {name}'s own shape, {shape}"
            + _shape_mistake(name, said, shape, n))


@exercise_check
def check_shapes(answer: Mapping) -> None:
    """Exercise 1: the shape of every gradient for N=32, n_in=5, nh=7.

    Requires a dict (any mapping) with an entry for each of inp, l1, out, w1,
    b1, w2, b2, each a tuple of ints (a list or a `torch.Size` is accepted
    too). The right shapes are found by autograd on a network of those sizes.
    Extra entries are ignored; every wrong entry is named, and the first two
    explained (three lines at most).
    """
    n, n_in, nh = 32, 5, 7
    # the reference first, from tensors the answer never sees
    inp, targ = synthetic_regression(n=n, n_in=n_in, seed=1)
    w1, b1, w2, b2 = (t.requires_grad_() for t in make_weights(n_in, nh, seed=1))
    inp.requires_grad_()
    l1 = inp @ w1 + b1
    out = l1.clamp_min(0) @ w2 + b2
    for t in (l1, out):
        t.retain_grad()
    (out.squeeze(-1) - targ).pow(2).mean().backward()
    tensors = dict(inp=inp, l1=l1, out=out, w1=w1, b1=b1, w2=w2, b2=b2)
    actual = {name: tuple(t.grad.shape) for name, t in tensors.items()}

    if not isinstance(answer, Mapping):
        raise CheckFailed(f"answer with a dict of shapes, such as {{'inp': (32, 5), ...}}, "
                          f"not {a_type(answer)}")
    missing = [k for k in NAMES if k not in answer]
    if missing:
        raise CheckFailed(f"your dict has no entry for {', '.join(missing)}")
    said = {name: _shape(answer[name], name) for name in NAMES}
    wrong = [name for name in NAMES if said[name] != actual[name]]
    if wrong:
        lines = [f"{len(wrong)} of {len(NAMES)} shapes "
                 f"{'is' if len(wrong) == 1 else 'are'} wrong: {', '.join(wrong)}"]
        lines += [_wrong_shape(name, said[name], actual[name], n) for name in wrong[:2]]
        if len(wrong) > 2:  # three lines at most: the first one, then the rule for the rest
            lines[2] = (f"The others too ({', '.join(wrong[1:])}): a gradient always has "
                        f"the shape of its own tensor")
        raise CheckFailed("\n".join(lines))
    passed(f"all {len(NAMES)} gradient shapes are right")


# -- Exercise 2 -------------------------------------------------------------------------------

# (shape, dtype, scale of the inputs): a float64 batch, a single row, a float32 batch with
# inputs far enough out that the sigmoid saturates
SIGMOID_CASES = [((6, 4), torch.float64, 2.5), ((1, 5), torch.float32, 1.5),
                 ((16, 3), torch.float32, 4.0)]


# names a learner may take for granted, and where they are
SIGMOID_NAMES = {
    "name:sigmoid": "This notebook defines no sigmoid function: torch.sigmoid(inp) is "
                    "one, and out already holds sigmoid(inp)",
}


@exercise_check
def check_sigmoid_grad(sigmoid_grad) -> None:
    """Exercise 2: `sigmoid_grad(inp, out)` sets `inp.g` for `out = torch.sigmoid(inp)`.

    Called on three cases (shapes (6, 4), (1, 5), (16, 3); float64 and
    float32; random inputs and random upstream gradients `out.g`). Requires
    `inp.g` to equal autograd's gradient within the rounding of the less
    precise of `inp`'s dtype and `inp.g`'s, and `inp`, `out`, `out.g` and
    their `requires_grad` left as they were. Leaves free how it is computed
    (from `out` or by recomputing the sigmoid of `inp`, in any dtype, even
    with autograd on a detached copy), the dtype of `inp.g` (a float32 `inp.g`
    for a float64 `inp` is judged at float32's rounding: nothing here uses it
    further, unlike the network stages of notebooks 02 and 05, which diagnose
    it), and what the function returns or prints.
    """
    who = "your sigmoid_grad"
    g = torch.Generator().manual_seed(3)
    for shape, dtype, scale in SIGMOID_CASES:
        inp = (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)
        out = torch.sigmoid(inp)
        out.g = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
        before = snapshot(inp=inp, out=out)
        x, s, up = (t.detach().clone().double() for t in (inp, out, out.g))
        xr = x.clone().requires_grad_()
        (ref,) = torch.autograd.grad(torch.sigmoid(xr), xr, up)
        ref = ref.to(dtype)  # judged with the case's own rounding
        returned = _call(sigmoid_grad, inp, out, what=who,
                         hint="it is called as sigmoid_grad(inp, out), with out.g set; "
                              "it should set inp.g", errors=SIGMOID_NAMES,
                         no_g="Only out.g exists when the check calls sigmoid_grad(inp, out), "
                              "in that order: read out.g, set inp.g")
        expect_unchanged(before, who)
        _expect_requires_grad(inp, False, "inp", who)
        _expect_requires_grad(out, False, "out", who)
        ours = _grad_of(inp, who, returned)
        ss = torch.sigmoid(s)
        mistakes = {
            "you left out out.g, the gradient that flows in from the layer above":
                {"inp": s * (1 - s)},
            "you used inp where out belongs (out already holds sigmoid(inp))":
                {"inp": up * x * (1 - x)},
            "you took the sigmoid of out, which already holds sigmoid(inp)":
                {"inp": up * ss * (1 - ss)},
            "you flipped the sign, e.g. (out - 1) instead of (1 - out)": {"inp": -ref},
            "you dropped the factor (1 - out)": {"inp": up * s},
            "you dropped the factor out": {"inp": up * (1 - s)},
        }
        expect_close({"inp": ours}, {"inp": ref},
                     f"on a {shape} {dtype_name(inp)} case, inp.g should be "
                     f"out.g * out * (1 - out), autograd's gradient", mistakes=mistakes)
    passed(f"sigmoid_grad matches autograd on {len(SIGMOID_CASES)} cases "
           f"and leaves inp, out and out.g alone")


# -- Exercise 3 -------------------------------------------------------------------------------

# (rows, dtype): each target 0.2–1.0 away from its prediction, on a random side, so the
# finite-difference nudges never cross the kink of |u|
MAE_CASES = [(10, torch.float64), (6, torch.float32), (1, torch.float64)]


def _mae_case(n: int, dtype: torch.dtype, g: torch.Generator):
    pred = torch.randn(n, 1, generator=g, dtype=torch.float64)
    gap = 0.2 + 0.8 * torch.rand(n, generator=g, dtype=torch.float64)
    side = torch.randint(0, 2, (n,), generator=g).double() * 2 - 1
    targ = pred.squeeze(-1) - side * gap
    return pred.to(dtype), targ.to(dtype)


MAE_NAMES = {
    **{f"name:{N}": f"{N} is not defined inside your function: the number of rows is "
                    f"inp.shape[0] (or len(targ))" for N in ("N", "n")},
    "name:sign": "There is no plain sign function here: write torch.sign(u) or u.sign()",
}


def _scale(g: Any, s: torch.Tensor) -> float | None:
    """c when `g` is c * s for one positive constant c (`s`: the signs, -1 or 1), else None."""
    if not isinstance(g, torch.Tensor) or g.shape != s.shape or not g.is_floating_point():
        return None
    c = g.detach().double() * s
    m = c.mean().item()
    return m if m > 0 and torch.allclose(c, torch.full_like(c, m), rtol=1e-4, atol=0) else None


def _scale_mistake(mae_grad, ours: torch.Tensor, s: torch.Tensor) -> dict[str, dict]:
    """When `inp.g` is sign(inp - targ) times a wrong constant: a size typed in (the constant
    stays on a batch of another size) or a wrong factor (it follows 1/N), as a mistake."""
    n, c = s.shape[0], _scale(ours, s)
    if c is None or abs(c * n - 1) < 1e-4 or abs(c - 1) < 1e-4:  # right, or no 1/N at all
        return {}
    m = n + 3  # a second size: the answer again, on a batch of its own
    inp, targ = _mae_case(m, torch.float64, torch.Generator().manual_seed(11))
    try:
        mae_grad(inp, targ)
    except Exception:  # noqa: BLE001 -- no diagnosis then; the first case's message stands
        return {}
    c2 = _scale(getattr(inp, "g", None), (inp.squeeze(-1) - targ).sign().unsqueeze(-1))
    if c2 is not None and abs(c2 / c - 1) < 1e-4 and abs(1 / c - round(1 / c)) < 1e-3 / c:
        return {f"you divided by {round(1 / c)}, a fixed number, where N = inp.shape[0] "
                f"is {n} here": {"inp": s * c}}
    if c2 is not None and abs(c2 * m / (c * n) - 1) < 1e-4:
        return {f"you multiplied sign(inp - targ) / N by {c * n:.3g}": {"inp": s * c}}
    return {}


@exercise_check
def check_mae_grad(mae_grad) -> None:
    """Exercise 3: `mae_grad(inp, targ)` sets `inp.g` for the loss mean(|inp - targ|).

    Called on three cases (10, 6 and 1 rows; float64 and float32 batches)
    with `inp` of shape (N, 1) and `targ` of shape (N,), each target 0.2–1.0
    away from its prediction, on a random side, so that no finite-difference
    nudge crosses the kink of |u|. Requires `inp.g` of shape (N, 1) equal to
    the finite-difference gradient, and `inp`, `targ` and their
    `requires_grad` left as they were. Leaves free how it is computed (sign, a
    comparison, a division by |u|, autograd on a detached copy), the dtype of
    `inp.g` (judged, as in `check_sigmoid_grad`, within the rounding of the
    less precise of `inp`'s dtype and its own), and what the function returns
    or prints.
    """
    who = "your mae_grad"
    g = torch.Generator().manual_seed(5)
    for n, dtype in MAE_CASES:
        inp, targ = _mae_case(n, dtype, g)
        before = snapshot(inp=inp, targ=targ)
        p, t = inp.detach().clone().double(), targ.detach().clone().double()
        ref = numerical_grads(lambda p, t=t: (p.squeeze(-1) - t).abs().mean(), {"p": p})["p"]
        ref = ref.to(dtype)  # judged with the case's own rounding
        returned = _call(mae_grad, inp, targ, what=who,
                         hint="it is called as mae_grad(inp, targ), inp of shape (N, 1) "
                              "and targ of shape (N,); it should set inp.g", errors=MAE_NAMES,
                         no_g="No tensor has a .g when the check calls mae_grad(inp, targ): "
                              "the loss is the last layer, nothing flows into it; set inp.g")
        expect_unchanged(before, who)
        _expect_requires_grad(inp, False, "inp", who)
        _expect_requires_grad(targ, False, "targ", who)
        ours = _grad_of(inp, who, returned)
        d = (p.squeeze(-1) - t).unsqueeze(-1)
        mistakes = {
            "you left out the 1/N of the mean (or divided by inp.shape[1], which is 1)":
                {"inp": d.sign()},
            **_scale_mistake(mae_grad, ours, d.sign()),
            "you used |inp - targ|, the loss's own terms, where its derivative "
            "sign(inp - targ) belongs": {"inp": d.abs() / n},
            "you used (inp > targ), which is 0 or 1, where sign(inp - targ) is -1 or 1":
                {"inp": (d > 0).double() / n},
            "you left out the target: sign(inp) instead of sign(inp - targ)":
                {"inp": p.sign() / n},
            "you subtracted the wrong way round: targ - inp": {"inp": -d.sign() / n},
            "you used the MSE's gradient, 2 (inp - targ) / N": {"inp": 2 * d / n},
            "you subtracted targ from inp without squeeze(-1), the (N, N) broadcast of "
            "section 1, then summed it back to (N, 1)":
                {"inp": (p - t).sign().sum(1, keepdim=True) / n},
        }
        expect_close({"inp": ours}, {"inp": ref},
                     f"on a batch of {n} rows ({dtype_name(inp)}), inp.g should be "
                     f"sign(inp - targ) / N, shaped (N, 1)", mistakes=mistakes)
    passed(f"mae_grad matches finite differences on {len(MAE_CASES)} batches "
           f"and leaves inp and targ alone")
