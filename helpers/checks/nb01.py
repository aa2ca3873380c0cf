"""Checks for the exercises of notebook 01, forward and backward by hand.

Each check builds its own data, runs the learner's answer on several cases,
and compares with a reference it computes itself (autograd, finite
differences) from copies taken before the answer runs.
"""

from __future__ import annotations

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

__all__ = ["check_mae_grad", "check_shapes", "check_sigmoid_grad"]

NAMES = ("inp", "l1", "out", "w1", "b1", "w2", "b2")
BIASES = ("b1", "b2")


def _grad_of(t: torch.Tensor, who: str, returned: Any) -> torch.Tensor:
    """`t.g` as a floating-point tensor of `t`'s shape, or a sentence saying what it is."""
    if not isinstance(getattr(t, "g", None), torch.Tensor) and isinstance(returned, torch.Tensor):
        raise CheckFailed(f"{who} returned a tensor but did not set inp.g: the backward "
                          f"functions of this notebook store the gradient, inp.g = ...")
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


# -- Exercise 1 -------------------------------------------------------------------------------

def _shape(value: Any, name: str) -> tuple[int, ...]:
    """The learner's entry as a tuple of ints, or a sentence saying what it is instead."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes, float)):
        raise CheckFailed(f"{name}: you wrote {value!r}; a shape is a tuple of ints, "
                          f"such as (2, 3) or (4,)")
    if isinstance(value, int):
        raise CheckFailed(f"{name}: you wrote {value!r}, an int; a shape is a tuple of ints. "
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
        return f"; you gave the transpose of {name}'s shape"
    if name in BIASES and said == (n, *shape):
        return (f"; {name} is one vector shared by all {n} rows, so its gradient sums the "
                f"rows' contributions and has no batch axis")
    if len(shape) == 2 and said == shape[:-1] and shape[-1] == 1:
        return f"; {name} has a column axis of size 1, and so does its gradient"
    if said == () and shape == (1,):
        return f"; () is the shape of a scalar, but {name} is a vector of one entry"
    return ""


@exercise_check
def check_shapes(answer: Mapping) -> None:
    """Exercise 1: the shape of every gradient for N=32, n_in=5, nh=7.

    Requires a dict (any mapping) with an entry for each of inp, l1, out, w1,
    b1, w2, b2, each a tuple of ints (a list or a `torch.Size` is accepted
    too). The right shapes are found by autograd on a network of those sizes.
    Extra entries are ignored; every wrong entry is reported.
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
        raise CheckFailed("\n".join(
            [f"{len(wrong)} of {len(NAMES)} shapes are wrong: {', '.join(wrong)}"]
            + [f"{name}: you said {said[name]}, but its gradient has shape {actual[name]}, "
               f"the shape of {name} itself" + _shape_mistake(name, said[name], actual[name], n)
               for name in wrong]))
    passed(f"all {len(NAMES)} gradient shapes are right")


# -- Exercise 2 -------------------------------------------------------------------------------

# (shape, dtype, scale of the inputs): a float64 batch, a single row, a float32 batch with
# inputs far enough out that the sigmoid saturates
SIGMOID_CASES = [((6, 4), torch.float64, 2.5), ((1, 5), torch.float32, 1.5),
                 ((16, 3), torch.float32, 4.0)]


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
        returned = call_answer(sigmoid_grad, inp, out, what=who,
                               hint="it is called as sigmoid_grad(inp, out), with out.g set; "
                                    "it should set inp.g")
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
        returned = call_answer(mae_grad, inp, targ, what=who,
                               hint="it is called as mae_grad(inp, targ), inp of shape (N, 1) "
                                    "and targ of shape (N,); it should set inp.g")
        expect_unchanged(before, who)
        _expect_requires_grad(inp, False, "inp", who)
        _expect_requires_grad(targ, False, "targ", who)
        ours = _grad_of(inp, who, returned)
        d = (p.squeeze(-1) - t).unsqueeze(-1)
        mistakes = {
            "you forgot the 1/N of the mean": {"inp": d.sign()},
            "you left out the target: sign(inp) instead of sign(inp - targ)":
                {"inp": p.sign() / n},
            "you subtracted the wrong way round: targ - inp": {"inp": -d.sign() / n},
            "you used the MSE's gradient, 2 (inp - targ) / N": {"inp": 2 * d / n},
        }
        expect_close({"inp": ours}, {"inp": ref},
                     f"on a batch of {n} rows ({dtype_name(inp)}), inp.g should be "
                     f"sign(inp - targ) / N, shaped (N, 1)", mistakes=mistakes)
    passed(f"mae_grad matches finite differences on {len(MAE_CASES)} batches "
           f"and leaves inp and targ alone")
