"""Checks for the exercises of notebook 01, forward and backward by hand: predictions judged
by `is` on tensors of the check's own; gradients against autograd or finite differences."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import torch
import torch.fx.experimental.symbolic_shapes  # noqa: F401 -- what a first backward(gradient) imports

from helpers.checks import (
    CheckFailed,
    Mistake,
    a_type,
    call_answer,
    code_uses,
    dtype_name,
    exercise_check,
    judge,
    read_g,
)
from helpers.compare import compare
from helpers.numerical import numerical_grads

__all__ = ["check_linear_grad", "check_mae_grad", "check_same_object"]


def _grad_of(t: torch.Tensor, who: str, returned: Any, name: str, all_g: str) -> torch.Tensor:
    """`t.g` as a float tensor of `t`'s shape, or what it is instead (`all_g`: every `.g`)."""
    gave = isinstance(returned, torch.Tensor) or (
        isinstance(returned, (tuple, list)) and returned
        and all(isinstance(r, torch.Tensor) for r in returned))
    if not isinstance(getattr(t, "g", None), torch.Tensor) and gave:
        names = all_g.replace(" and ", ", ").split(", ")
        one = isinstance(returned, torch.Tensor)
        raise CheckFailed(f"{who} returned {'a tensor' if one else 'tensors'} but did not set "
                          f"{name}.g\nThe backward functions of this notebook store "
                          f"{'each gradient' if len(names) > 1 else 'the gradient'}: "
                          + ", ".join(f"{x} = ..." for x in names), "returned")
    g, n = getattr(t, "g", None), t.shape[0]
    if isinstance(g, torch.Tensor) and t.dim() == 2 and t.shape[1] == 1:
        if tuple(g.shape) == (n, n) and n > 1:
            raise CheckFailed(f"inp.g has shape {(n, n)}, but a gradient has the shape of its "
                              f"tensor: {(n, 1)}\nThat is the (N, 1) - (N,) broadcast of "
                              f"section 1: squeeze(-1) the prediction before subtracting targ.",
                              "broadcast")
        if tuple(g.shape) == (n,):
            raise CheckFailed(f"inp.g has shape {(n,)}, but a gradient has the shape of its "
                              f"tensor: {(n, 1)}; put the column back with unsqueeze(-1).",
                              "column")
    return read_g(t, name, who)


def _g_mistakes(no_g: str, adds: str) -> list[Mistake]:
    """A `.g` read before anything set it: with `x.g += ...` in the answer, or another."""
    return [Mistake("g_add", adds, raises=(AttributeError, "attribute 'g'"),
                    seen=lambda a: code_uses(a, attr="g", op="STORE_ATTR") and (code_uses(
                        a, op="INPLACE_ADD") or code_uses(a, op="BINARY_OP:+="))),
            Mistake("g_missing", no_g, raises=(AttributeError, "attribute 'g'"))]


# -- Exercise 1 -------------------------------------------------------------------------------
def _sources(g: torch.Generator) -> dict[str, torch.Tensor]:
    """Fresh tensors like the exercise's (float32, float64, a transposed view), each with a .g."""
    tensors = {"w": torch.randn(8, 16, generator=g), "wT": torch.randn(16, 8, generator=g).t(),
               "w64": torch.randn(8, 16, generator=g, dtype=torch.float64), "torch": torch}
    for t in list(tensors.values())[:3]:
        t.g = torch.zeros_like(t)
    return tensors


# (expression, as the exercise writes it, why its result is or is not the tensor it starts
# from). Only operations whose identity behaves the same on torch 2.9.1 to 2.15; the check
# judges by `is`, on tensors of its own.
EXPRESSIONS = [
    ("w.t()", "a new tensor object, a view of w's numbers with the axes swapped"),
    ("w.view(8, 16)", "a view is a new tensor object sharing w's numbers, even with w's own shape"),
    ("w.to(torch.float32)", "w is already float32, so there is nothing to do: it returns w itself"),
    ("w.requires_grad_()", "a method ending in _ works in place and returns its tensor itself"),
    ("w + 0", "arithmetic makes a new tensor, even when the numbers come out the same"),
    ("w64.float()", "w64 is float64, so it converts: a new float32 tensor"),
    ("w64.double()", "w64 is already float64, so there is nothing to do: it returns w64 itself"),
    ("wT.contiguous()", "wT, a transposed view, is not contiguous, so this copies it into a "
                        "new tensor"),
    ("wT.float()", "wT is already float32 (transposed or not), so it returns wT itself"),
    ("wT.t()", "a new view object, though its layout is that of the tensor wT was made from"),
]
SAME_OBJECT = [
    Mistake("data_is", "you tested with `is` between .data accesses: .data makes a new "
            "tensor at every access, so `x.data is w.data` is never True; test x is w",
            gives=lambda truth: {e: False for e in truth},
            seen=lambda code: code_uses(code, attr="data", op="IS_OP")),
]


def _key(text: Any) -> Any:
    """An expression with its spaces removed, so that "w + 0" and "w+0" are one key."""
    return "".join(text.split()) if isinstance(text, str) else text


def _prediction(value: Any, expr: str) -> bool:
    """The learner's prediction as a bool, or a sentence saying what it is instead."""
    numpy = type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")
    tensor = isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.numel() == 1
    if isinstance(value, bool) or numpy or tensor:
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
def check_same_object(answer: Mapping) -> str:
    """Exercise 1: is each expression's result the tensor it starts from (with its `.g`)? A
    mapping from each of `EXPRESSIONS` (spaced as you like) to a bool; judged by `is`."""
    g = torch.Generator().manual_seed(7)
    truth = {}
    for expr, _ in EXPRESSIONS:
        tensors = _sources(g)
        result = eval(expr, {}, tensors)   # noqa: S307 -- the check's own expressions
        truth[expr] = result is tensors[expr.split(".")[0].split(" ")[0]]
    if not isinstance(answer, Mapping):
        raise CheckFailed(f"answer with a dict mapping each expression to True or False, "
                          f"such as {{'w.t()': ..., ...}}, not {a_type(answer)}")
    given = {_key(k): v for k, v in answer.items()}
    missing = [expr for expr, _ in EXPRESSIONS if _key(expr) not in given]
    if missing:
        as_w1 = any(_key(k).startswith("w1") for k in answer if isinstance(k, str))
        raise CheckFailed(f"your dict has no entry for {', '.join(missing)}\n"
                          + ("The exercise's float32 tensor is w, not section 4's w1: copy "
                             "the keys from the template" if as_w1 else
                             "Copy the keys from the template: each expression as written there"))
    said = {expr: _prediction(given[_key(expr)], expr) for expr, _ in EXPRESSIONS}
    wrong = [(expr, why) for expr, why in EXPRESSIONS if said[expr] != truth[expr]]
    if not wrong:
        return (f"all {len(EXPRESSIONS)} predictions are right: only the tensor itself "
                f"carries its .g")
    lines = [f"{len(wrong)} of {len(EXPRESSIONS)} predictions "
             f"{'is' if len(wrong) == 1 else 'are'} wrong: {', '.join(e for e, _ in wrong)}"]
    caller = sys._getframe(2).f_code   # the learner's cell (past exercise_check's wrapper)
    named = [m for m in SAME_OBJECT if m.gives(truth) == said and m.seen(caller)]
    lines += [m.says for m in named] + [f"{expr}: {why}" for expr, why in wrong[:2]]
    if len(wrong) > 2 and not named:   # three lines at most: then the way to find out
        lines[2] = ("For the others, test each one with `is`, as section 4 does: a result "
                    "has .g only if it is the tensor itself")
    raise CheckFailed("\n".join(lines[:3]), *[m.key for m in named])


# -- Exercise 2 -------------------------------------------------------------------------------
# (rows, in_features, out_features, dtype): a square w first, where a wrong transpose keeps
# every shape right and only the values show it; then a layer 3 -> 5 in float32 and a single
# row. The row counts differ from both sizes, so a sum over the wrong axis has a wrong shape.
LINEAR_CASES = [(5, 4, 4, torch.float64), (6, 3, 5, torch.float32), (1, 4, 2, torch.float64)]
_MEAN = ("you averaged {} over the rows (divided by N), where each row's share adds up, as "
         "section 2 found")


def _shaped(c, **g) -> dict[str, torch.Tensor]:
    """A mistake's gradients, the right ones for the others; shapes that cannot be set raise."""
    out = {**c.ref, **{f"{k}.g": v for k, v in g.items()}}
    if any(out[f"{k}.g"].shape != getattr(c, k).shape for k in ("inp", "w", "b")):
        raise ValueError("a gradient of another shape")
    return out


LINEAR = [
    Mistake("lin_grad", "you used section 3's lin_grad, written for a layer inp @ w, where "
            "this layer computes inp @ w.t()",
            gives=lambda c: _shaped(c, inp=c.up @ c.wd.t(), w=c.x.t() @ c.up)),
    Mistake("w_t", "you computed w.g as inp.t() @ out.g: that is the gradient of w.t(), with "
            "w's shape only because w is square", gives=lambda c: _shaped(c, w=c.x.t() @ c.up)),
    Mistake("w_t_reshape", "you computed w.g as inp.t() @ out.g, the gradient of w.t(), and "
            "reshaped it to w's shape: a reshape keeps the order of the numbers, only a "
            "transpose swaps rows and columns",
            gives=lambda c: _shaped(c, w=(c.x.t() @ c.up).reshape(c.w.shape))),
    Mistake("inp_t", "you multiplied out.g by w.t() for inp.g, as section 3 does for a layer "
            "inp @ w; this layer's forward multiplies by w.t()",
            gives=lambda c: _shaped(c, inp=c.up @ c.wd.t())),
    Mistake("mean_b", _MEAN.format("b.g"), gives=lambda c: _shaped(c, b=c.ref["b.g"] / c.n)),
    Mistake("mean_w", _MEAN.format("w.g"), gives=lambda c: _shaped(c, w=c.ref["w.g"] / c.n)),
    Mistake("mean_wb", _MEAN.format("w.g and b.g"),
            gives=lambda c: _shaped(c, w=c.ref["w.g"] / c.n, b=c.ref["b.g"] / c.n)),
    Mistake("lin_grad_mean", "you used section 3's lin_grad and averaged b.g over the rows",
            gives=lambda c: _shaped(c, inp=c.up @ c.wd.t(), w=c.x.t() @ c.up,
                                    b=c.ref["b.g"] / c.n)),
    Mistake("name:lin_grad", "lin_grad is section 3's function (for a layer inp @ w), not "
            "defined in this kernel: write the three products in linear_grad itself"),
    *_g_mistakes("Only out.g exists when the check calls linear_grad(inp, out, w, b), in that "
                 "order: read out.g, set inp.g, w.g and b.g",
                 "inp.g, w.g and b.g do not exist until your code sets them: create them "
                 "with =, not +="),
]


def _linear_case(i: int, n: int, n_in: int, n_out: int, dtype: torch.dtype, g):
    """inp, w (out, in), b, out = inp @ w.t() + b with a random out.g; autograd's gradients."""
    inp, w, b, up = (torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
                     for shape in ((n, n_in), (n_out, n_in), (n_out,), (n, n_out)))
    out = inp @ w.t() + b
    out.g = up
    x, wd, bd = (t.detach().double().requires_grad_() for t in (inp, w, b))
    ref = dict(zip(("inp.g", "w.g", "b.g"),
                   torch.autograd.grad(x @ wd.t() + bd, (x, wd, bd), up.double())))
    return SimpleNamespace(i=i, n=n, inp=inp, out=out, w=w, b=b, x=x.detach(), up=up.double(),
                           wd=wd.detach(), ref=ref, dtype=dtype)


def _linear_trial(linear_grad, c) -> dict[str, torch.Tensor]:
    who = "your linear_grad"
    shapes = Mistake("shapes", f"Here inp is {tuple(c.inp.shape)}, w {tuple(c.w.shape)}, out "
                     f"and out.g {tuple(c.out.shape)}: each gradient has the shape of its "
                     f"tensor", raises=(RuntimeError, "cannot be multiplied"))
    returned = call_answer(linear_grad, c.inp, c.out, c.w, c.b, what=who, mistakes=[
        *LINEAR, shapes], hint="it is called as linear_grad(inp, out, w, b), with out.g set; "
                               "it should set inp.g, w.g and b.g",
        keep=dict(inp=c.inp, out=c.out, w=c.w, b=c.b), allow=("inp.g", "w.g", "b.g"))
    if not hasattr(c.w, "g") and "lin_grad" in getattr(
            getattr(linear_grad, "__code__", None), "co_names", ()):
        raise CheckFailed(f"{who} did not set w.g to a tensor\nSection 3's lin_grad sets the .g "
                          f"of the tensor you pass it, and w.t() is a new view object, not w "
                          f"(section 4)", "lin_grad_view")
    return {f"{k}.g": _grad_of(getattr(c, k), who, returned, k, "inp.g, w.g and b.g")
            for k in ("inp", "w", "b")}


@exercise_check
def check_linear_grad(linear_grad) -> str:
    """Exercise 2: `linear_grad(inp, out, w, b)` sets `inp.g`, `w.g` and `b.g` for nn.Linear's
    layer, `out = inp @ w.t() + b`: on a square w, 3 -> 5 in float32, one row."""
    g = torch.Generator().manual_seed(4)
    cases = [_linear_case(i, *case, g) for i, case in enumerate(LINEAR_CASES, 1)]
    judge(cases, lambda c: _linear_trial(linear_grad, c),
          lambda c: {k: r.to(c.dtype) for k, r in c.ref.items()},
          lambda c, _: (f"your gradients differ from autograd's on case {c.i} of {len(cases)} "
                     f"(w of shape {tuple(c.w.shape)}"
                     f"{', square' if c.w.shape[0] == c.w.shape[1] else ''}; {c.n} "
                     f"row{'s' if c.n > 1 else ''}; {dtype_name(c.dtype)})"),
          LINEAR, linear_grad)
    return (f"linear_grad matches autograd on {len(LINEAR_CASES)} layers and leaves inp, out, "
           f"w and b alone")


# -- Exercise 3 -------------------------------------------------------------------------------
# (rows, dtype): each target 0.2–1.0 away from its prediction, on a random side, so the
# finite-difference nudges never cross the kink of |u|
MAE_CASES = [(10, torch.float64), (6, torch.float32), (1, torch.float64)]


def _mae_case(i: int, n: int, dtype: torch.dtype, g: torch.Generator):
    """Predictions and targets 0.2-1.0 apart on a random side; finite differences."""
    pred = torch.randn(n, 1, generator=g, dtype=torch.float64)
    gap = 0.2 + 0.8 * torch.rand(n, generator=g, dtype=torch.float64)
    side = torch.randint(0, 2, (n,), generator=g).double() * 2 - 1
    targ = pred.squeeze(-1) - side * gap
    p, t = pred.clone(), targ.clone()
    ref = numerical_grads(lambda p, t=t: (p.squeeze(-1) - t).abs().mean(), {"p": p})["p"]
    return SimpleNamespace(i=i, n=n, inp=pred.to(dtype), targ=targ.to(dtype), p=p, t=t,
                           d=(p.squeeze(-1) - t).unsqueeze(-1), ref=ref.to(dtype), dtype=dtype)


MAE = [
    Mistake("no_mean", "you left out the 1/N of the mean (or divided by inp.shape[1], which "
            "is 1)", gives=lambda c: {"inp": c.d.sign()}),
    Mistake("abs", "you used |inp - targ|, the loss's own terms, instead of their slope",
            gives=lambda c: {"inp": c.d.abs() / c.n}),
    Mistake("mask", "you used (inp > targ), which is 0 or 1, where the slope of |u| is -1 or 1",
            gives=lambda c: {"inp": (c.d > 0).double() / c.n}),
    Mistake("sign_inp", "you took the sign of inp alone, leaving out targ",
            gives=lambda c: {"inp": c.p.sign() / c.n}),
    Mistake("reversed", "you subtracted the wrong way round: targ - inp",
            gives=lambda c: {"inp": -c.d.sign() / c.n}),
    Mistake("mse", "you used the MSE's gradient, 2 (inp - targ) / N",
            gives=lambda c: {"inp": 2 * c.d / c.n}),
    Mistake("summed", "you subtracted targ from inp without squeeze(-1), the (N, N) broadcast "
            "of section 1, then summed it back to (N, 1)",
            gives=lambda c: {"inp": (c.p - c.t).sign().sum(1, keepdim=True) / c.n}),
    *(Mistake(f"name:{n}", f"{n} is not defined inside your function: the number of rows is "
              f"inp.shape[0] (or len(targ))") for n in ("N", "n")),
    Mistake("name:sign", "There is no plain sign function here: write torch.sign(u) or u.sign()"),
    *_g_mistakes("No tensor has a .g when the check calls mae_grad(inp, targ): the loss is the "
                 "last layer, nothing flows into it; set inp.g",
                 "inp.g does not exist until your code sets it: create it with inp.g = ..., "
                 "not +="),
]


def _written_in(answer) -> list[Mistake]:
    """A number written in the answer's code (but 0 and +-1), as a size or as a factor."""
    written = {float(c) for c in getattr(getattr(answer, "__code__", None), "co_consts", ())
               if isinstance(c, (int, float)) and not isinstance(c, bool) and c not in (0, 1, -1)}
    return [m for k in written for m in (
        Mistake(f"fixed:{k:g}", f"you divided by {k:g}, a fixed number, where N = "
                f"inp.shape[0] changes from batch to batch",
                gives=lambda c, k=k: {"inp": c.d.sign() / k}),
        Mistake(f"factor:{k:g}", f"you multiplied the gradient by an extra factor of {k:g}",
                gives=lambda c, k=k: {"inp": k * c.d.sign() / c.n}))]


def _mae_trial(mae_grad, c) -> dict[str, torch.Tensor]:
    who = "your mae_grad"
    returned = call_answer(mae_grad, c.inp, c.targ, what=who, mistakes=MAE,
                           hint="it is called as mae_grad(inp, targ), inp of shape (N, 1) "
                                "and targ of shape (N,); it should set inp.g",
                           keep=dict(inp=c.inp, targ=c.targ), allow=("inp.g",))
    return {"inp": _grad_of(c.inp, who, returned, "inp", "inp.g")}


def _entries(c, got) -> str:
    row = compare(got, {"inp": c.ref})["inp"]
    a, b = got["inp"].detach().double(), c.ref.double()
    bad = int((~((a - b).abs() <= row.atol + row.rtol * b.abs())).sum())
    return (f"your inp.g differs from the finite-difference gradient in {bad} of {b.numel()} "
            f"entries, on case {c.i} of {len(MAE_CASES)} (a {dtype_name(c.dtype)} batch of "
            f"{c.n} rows)")


@exercise_check
def check_mae_grad(mae_grad) -> str:
    """Exercise 3: `mae_grad(inp, targ)` sets `inp.g` for mean(|inp - targ|): against finite
    differences on 10, 6 and 1 rows, no target within a nudge of its prediction."""
    g = torch.Generator().manual_seed(5)
    cases = [_mae_case(i, n, dtype, g) for i, (n, dtype) in enumerate(MAE_CASES, 1)]
    judge(cases, lambda c: _mae_trial(mae_grad, c), lambda c: {"inp": c.ref},
          lambda c, got: _entries(c, got), [*MAE, *_written_in(mae_grad)], mae_grad)
    return (f"mae_grad matches finite differences on {len(MAE_CASES)} batches, "
           f"leaves inp and targ alone")
