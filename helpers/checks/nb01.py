"""Checks for the exercises of notebook 01, forward and backward by hand.

Exercise 1's check judges predictions by `is` on tensors of its own. The
others build their own data, run the learner's function on several cases,
and compare with a reference they compute themselves (autograd, finite
differences) from copies taken before the answer runs; a wrong result is
described (which case, how many entries, by how much), never corrected by
giving the formula.
"""

from __future__ import annotations

import dis
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
from helpers.compare import compare
from helpers.numerical import numerical_grads

# the check cells import torch themselves (`import torch`): a restart is safe
__all__ = ["check_mae_grad", "check_same_object", "check_sigmoid_grad"]


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


def _expect_grad(ours: torch.Tensor, ref: torch.Tensor, against: str, case: str,
                 mistakes: Mapping[str, Mapping[str, torch.Tensor]]) -> None:
    """`expect_close` on inp.g, whose first line says what was observed, not the formula:
    how many entries differ from `against`, on which `case`."""
    row = compare({"inp": ours}, {"inp": ref})["inp"]
    if row.close:
        return
    a, b = ours.detach().double(), ref.detach().double()
    bad = int((~((a - b).abs() <= row.atol + row.rtol * b.abs())).sum())
    first = f"your inp.g differs from {against} in {bad} of {b.numel()} entries, on {case}"
    try:
        expect_close({"inp": ours}, {"inp": ref}, first, mistakes=mistakes)
    except CheckFailed as e:
        raise CheckFailed(str(e).replace(f"{first}: wrong for inp", first, 1)) from None


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

def _sources(g: torch.Generator) -> dict[str, torch.Tensor]:
    """Fresh tensors like the exercise's, each with a `.g` of its own."""
    tensors = {"w": torch.randn(8, 16, generator=g),                    # float32, contiguous
               "w64": torch.randn(8, 16, generator=g, dtype=torch.float64),
               "wT": torch.randn(16, 8, generator=g).t()}              # a transposed view
    for t in tensors.values():
        t.g = torch.zeros_like(t)
    return tensors


# (expression as the exercise writes it, the tensor it starts from, the expression itself,
# why its result is or is not that tensor). Only operations whose identity behaves the same
# on torch 2.9.1, 2.13 and 2.15; the check still judges by `is`, on its own tensors.
EXPRESSIONS = [
    ("w.t()", "w", lambda t: t["w"].t(),
     "a new tensor object, a view of w's numbers with the axes swapped"),
    ("w.view(8, 16)", "w", lambda t: t["w"].view(8, 16),
     "a view is a new tensor object sharing w's numbers, even with w's own shape"),
    ("w.to(torch.float32)", "w", lambda t: t["w"].to(torch.float32),
     "w is already float32, so there is nothing to do: it returns w itself"),
    ("w.requires_grad_()", "w", lambda t: t["w"].requires_grad_(),
     "a method ending in _ works in place and returns its tensor itself"),
    ("w + 0", "w", lambda t: t["w"] + 0,
     "arithmetic makes a new tensor, even when the numbers come out the same"),
    ("w64.float()", "w64", lambda t: t["w64"].float(),
     "w64 is float64, so it converts: a new float32 tensor"),
    ("w64.double()", "w64", lambda t: t["w64"].double(),
     "w64 is already float64, so there is nothing to do: it returns w64 itself"),
    ("wT.contiguous()", "wT", lambda t: t["wT"].contiguous(),
     "wT, a transposed view, is not contiguous, so this copies it into a new tensor"),
    ("wT.float()", "wT", lambda t: t["wT"].float(),
     "wT is already float32 (transposed or not), so it returns wT itself"),
    ("wT.t()", "wT", lambda t: t["wT"].t(),
     "a new view object, though its layout is that of the tensor wT was made from"),
]


def _key(text: Any) -> Any:
    """An expression with its spaces removed, so that "w + 0" and "w+0" are one key."""
    return "".join(text.split()) if isinstance(text, str) else text


def _prediction(value: Any, expr: str) -> bool:
    """The learner's prediction as a bool, or a sentence saying what it is instead."""
    if isinstance(value, bool) or (type(value).__module__ == "numpy"
                                   and type(value).__name__ in ("bool_", "bool")):
        return bool(value)
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.numel() == 1:
        return bool(value)
    if value is Ellipsis:
        said = "you left the template's ..."
    elif isinstance(value, str):
        said = f"you wrote {value!r}, a string; predict True or False, without quotes"
    else:
        said = f"you wrote {value!r}" if isinstance(value, (int, float, type(None))) \
            else f"you wrote {a_type(value)}"
    raise CheckFailed(f"{expr}: {said}" + ("" if isinstance(value, str) else
                                           "; predict True or False"))


@exercise_check
def check_same_object(answer: Mapping) -> None:
    """Exercise 1: for each expression, is its result the tensor it starts from (and so does
    it carry that tensor's `.g`)?

    Requires a dict (any mapping) with an entry for each expression of `EXPRESSIONS`, each
    True or False (a NumPy bool or a one-entry bool tensor is accepted too). Keys may be
    written with other spacing ("w+0"); extra entries are ignored. The truth is found by
    `is` on fresh tensors of the check's own (float32, float64 and a transposed view, each
    with a `.g`), evaluated anew on every call. Every wrong prediction is named, and the
    first ones explained (three lines at most).
    """
    g = torch.Generator().manual_seed(7)
    truth = {}
    for expr, name, f, _ in EXPRESSIONS:
        tensors = _sources(g)
        result = f(tensors)
        truth[expr] = result is tensors[name]
        if hasattr(result, "g") != truth[expr]:   # .g belongs to the object: never otherwise
            raise CheckFailed(f"{expr}: the check's own tensors behave unexpectedly on this "
                              f"torch release; please report it")
    if not isinstance(answer, Mapping):
        raise CheckFailed(f"answer with a dict mapping each expression to True or False, "
                          f"such as {{'w.t()': ..., ...}}, not {a_type(answer)}")
    given = {_key(k): v for k, v in answer.items()}
    missing = [expr for expr, *_ in EXPRESSIONS if _key(expr) not in given]
    if missing:
        as_w1 = any(_key(k).startswith("w1") for k in answer if isinstance(k, str))
        raise CheckFailed(f"your dict has no entry for {', '.join(missing)}\n"
                          + ("The exercise's float32 tensor is w, not section 4's w1: copy "
                             "the keys from the template" if as_w1 else
                             "Copy the keys from the template: each expression as written "
                             "there"))
    said = {expr: _prediction(given[_key(expr)], expr) for expr, *_ in EXPRESSIONS}
    wrong = [(expr, why) for expr, *_, why in EXPRESSIONS if said[expr] != truth[expr]]
    if wrong:
        names = ", ".join(expr for expr, _ in wrong)
        lines = [f"{len(wrong)} of {len(EXPRESSIONS)} predictions "
                 f"{'is' if len(wrong) == 1 else 'are'} wrong: {names}"]
        lines += [f"{expr}: {why}" for expr, why in wrong[:2]]
        if len(wrong) > 2:  # three lines at most: the first reason, then the way to find out
            lines[2] = ("For the others, test each one with `is`, as section 4 does: "
                        "a result has .g only if it is the tensor itself")
        raise CheckFailed("\n".join(lines))
    passed(f"all {len(EXPRESSIONS)} predictions are right: only the tensor itself "
           f"carries its .g")


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
    for i, (shape, dtype, scale) in enumerate(SIGMOID_CASES, 1):
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
            "you flipped the sign of the whole gradient": {"inp": -ref},
            "you dropped the factor (1 - out)": {"inp": up * s},
            "you dropped the factor out": {"inp": up * (1 - s)},
        }
        _expect_grad(ours, ref, "autograd's gradient", f"case {i} of "
                     f"{len(SIGMOID_CASES)} (a {dtype_name(inp)} inp of shape {shape})",
                     mistakes)
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
        return {f"you multiplied the gradient by an extra factor of {c * n:.3g}":
                {"inp": s * c}}
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
    for i, (n, dtype) in enumerate(MAE_CASES, 1):
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
            "you used |inp - targ|, the loss's own terms, instead of their slope":
                {"inp": d.abs() / n},
            "you used (inp > targ), which is 0 or 1, where the slope of |u| is -1 or 1":
                {"inp": (d > 0).double() / n},
            "you took the sign of inp alone, leaving out targ":
                {"inp": p.sign() / n},
            "you subtracted the wrong way round: targ - inp": {"inp": -d.sign() / n},
            "you used the MSE's gradient, 2 (inp - targ) / N": {"inp": 2 * d / n},
            "you subtracted targ from inp without squeeze(-1), the (N, N) broadcast of "
            "section 1, then summed it back to (N, 1)":
                {"inp": (p - t).sign().sum(1, keepdim=True) / n},
        }
        _expect_grad(ours, ref, "the finite-difference gradient", f"case {i} of "
                     f"{len(MAE_CASES)} (a {dtype_name(inp)} batch of {n} rows)", mistakes)
    passed(f"mae_grad matches finite differences on {len(MAE_CASES)} batches "
           f"and leaves inp and targ alone")
