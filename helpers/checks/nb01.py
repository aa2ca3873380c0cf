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
    _close,
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
__all__ = ["check_linear_grad", "check_mae_grad", "check_same_object"]


def _grad_of(t: torch.Tensor, who: str, returned: Any, name: str = "inp",
             all_g: str = "inp.g") -> torch.Tensor:
    """`t.g` as a floating-point tensor of `t`'s shape, or a sentence saying what it is.
    `all_g` names every `.g` the answer should set."""
    gave = isinstance(returned, torch.Tensor) or (
        isinstance(returned, (tuple, list)) and returned
        and all(isinstance(r, torch.Tensor) for r in returned))
    if not isinstance(getattr(t, "g", None), torch.Tensor) and gave:
        tensors = "a tensor" if isinstance(returned, torch.Tensor) else "tensors"
        names = all_g.replace(" and ", ", ").split(", ")
        raise CheckFailed(f"{who} returned {tensors} but did not set {name}.g\nThe backward "
                          f"functions of this notebook store "
                          f"{'each gradient' if len(names) > 1 else 'the gradient'}: "
                          + ", ".join(f"{x} = ..." for x in names))
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
    return read_g(t, name, who)


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


def _call(answer, *args, what: str, hint: str, errors: Mapping[str, str], no_g: str,
          adds: str = "inp.g does not exist until your code sets it: create it with "
                      "inp.g = ..., not +=", matmul: str | None = None) -> Any:
    """`call_answer`, plus diagnoses of this notebook's own: a `.g` read before anything set
    it (`no_g` says which exist; `adds` when the answer has `x.g += ...`), and a matrix
    product whose shapes do not fit (`matmul` says the shapes)."""
    try:
        return call_answer(answer, *args, what=what, hint=hint, errors=errors)
    except CheckFailed as e:
        cause, said = e.__cause__, None
        if "\n" in str(e):
            raise
        if isinstance(cause, RuntimeError) and "cannot be multiplied" in str(cause):
            said = matmul
        elif isinstance(cause, AttributeError) and "attribute 'g'" in str(cause):
            said = adds if _adds_to_g(answer) else no_g
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

# (rows, in_features, out_features, dtype): a square w first, where a wrong transpose keeps
# every shape right and only the values show it; then a layer 3 -> 5 in float32 and a single
# row. The row counts differ from both sizes, so a sum over the wrong axis has a wrong shape.
LINEAR_CASES = [(5, 4, 4, torch.float64), (6, 3, 5, torch.float32), (1, 4, 2, torch.float64)]

# names a learner may take for granted, and where they are
LINEAR_NAMES = {
    "name:lin_grad": "lin_grad is section 3's function (for a layer inp @ w), not defined in "
                     "this kernel: write the three products in linear_grad itself",
}


def _linear_case(n: int, n_in: int, n_out: int, dtype: torch.dtype, g: torch.Generator):
    """inp (n, n_in), w (n_out, n_in), b (n_out,), out = inp @ w.t() + b with a random out.g."""
    inp, w, b, up = (torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
                     for shape in ((n, n_in), (n_out, n_in), (n_out,), (n, n_out)))
    out = inp @ w.t() + b
    out.g = up
    return inp, out, w, b


def _linear_mistake(ours: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor],
                    x: torch.Tensor, w: torch.Tensor, up: torch.Tensor) -> dict[str, dict]:
    """The diagnosed mistakes that give exactly `ours` (one sentence naming each), as a
    `mistakes=` entry for `expect_close`; {} when a gradient is wrong some other way."""
    n, square = x.shape[0], w.shape[0] == w.shape[1]
    found = {name: "right" for name in ours}
    candidates = {"inp.g": {"section 3": up @ w.t() if square else None},
                  "w.g": {"section 3": x.t() @ up if square else None,
                          "mean": ref["w.g"] / n},
                  "b.g": {"mean": ref["b.g"] / n}}
    for name, g in ours.items():
        if _close(g, ref[name], ref[name]):
            continue
        found[name] = next((tag for tag, r in candidates[name].items() if _close(g, r, r)), None)
        if found[name] is None:
            return {}
    said = []
    if found["inp.g"] == found["w.g"] == "section 3":
        said.append("you used section 3's lin_grad, written for a layer inp @ w, where "
                    "this layer computes inp @ w.t()")
    elif found["w.g"] == "section 3":
        said.append("you computed w.g as inp.t() @ out.g: that is the gradient of w.t(), "
                    "with w's shape only because w is square")
    elif found["inp.g"] == "section 3":
        said.append("you multiplied out.g by w.t() for inp.g, as section 3 does for a layer "
                    "inp @ w; this layer's forward multiplies by w.t()")
    if "mean" in (found["w.g"], found["b.g"]):
        said.append("you averaged over the rows (divided by N), where each row's share adds "
                    "up, as section 2 found")
    return {", and if ".join(said): dict(ours)} if said else {}


@exercise_check
def check_linear_grad(linear_grad) -> None:
    """Exercise 2: `linear_grad(inp, out, w, b)` sets `inp.g`, `w.g` and `b.g` from `out.g`
    for nn.Linear's layer, `out = inp @ w.t() + b`, with `w` of shape (out, in).

    Called on three layers: a square w (4 x 4, 5 rows, float64) first, then 3 -> 5 (6 rows,
    float32) and 4 -> 2 on a single row (float64); random inputs, weights, biases and
    upstream gradients `out.g`. Requires the three gradients to equal autograd's within the
    rounding of the less precise of the case's dtype and the gradient's, and `inp`, `out`,
    `w`, `b`, `out.g` and their `requires_grad` left as they were. Leaves free how they are
    computed (matmul with either transpose, einsum, a loop of outer products, autograd on
    detached copies, float64), and what the function returns or prints. Diagnoses section
    3's products (a transposed `w.g`, `out.g @ w.t()` for `inp.g`, both) on the square case,
    where the shapes cannot show them, and an average over the rows where they add up.
    """
    who = "your linear_grad"
    g = torch.Generator().manual_seed(4)
    for i, (n, n_in, n_out, dtype) in enumerate(LINEAR_CASES, 1):
        inp, out, w, b = _linear_case(n, n_in, n_out, dtype, g)
        before = snapshot(inp=inp, out=out, w=w, b=b)
        x, wd, bd = (t.detach().double().requires_grad_() for t in (inp, w, b))
        up = out.g.double()
        ref = dict(zip(("inp.g", "w.g", "b.g"),
                       torch.autograd.grad(x @ wd.t() + bd, (x, wd, bd), up)))
        shapes = (f"Here inp is {tuple(inp.shape)}, w {tuple(w.shape)}, out and out.g "
                  f"{tuple(out.shape)}: each gradient has the shape of its tensor")
        returned = _call(linear_grad, inp, out, w, b, what=who,
                         hint="it is called as linear_grad(inp, out, w, b), with out.g set; "
                              "it should set inp.g, w.g and b.g", errors=LINEAR_NAMES,
                         no_g="Only out.g exists when the check calls linear_grad(inp, out, "
                              "w, b), in that order: read out.g, set inp.g, w.g and b.g",
                         adds="inp.g, w.g and b.g do not exist until your code sets them: "
                              "create them with =, not +=", matmul=shapes)
        expect_unchanged(before, who)
        for t, name in ((inp, "inp"), (out, "out"), (w, "w"), (b, "b")):
            _expect_requires_grad(t, False, name, who)
        if not hasattr(w, "g") and "lin_grad" in getattr(
                getattr(linear_grad, "__code__", None), "co_names", ()):
            raise CheckFailed(f"{who} did not set w.g to a tensor\nSection 3's lin_grad "
                              f"sets the .g of the tensor you pass it, and w.t() is a new "
                              f"view object, not w (section 4)")
        ours = {f"{name}.g": _grad_of(t, who, returned, name, "inp.g, w.g and b.g")
                for t, name in ((inp, "inp"), (w, "w"), (b, "b"))}
        what = (f"your gradients differ from autograd's on case {i} of {len(LINEAR_CASES)} "
                f"(w of shape {tuple(w.shape)}{', square' if n_in == n_out else ''}; "
                f"{n} row{'s' if n > 1 else ''}; {dtype_name(dtype)})")
        expect_close(ours, {k: r.to(dtype) for k, r in ref.items()}, what,
                     mistakes=_linear_mistake(ours, ref, x.detach(), wd.detach(), up))
    passed(f"linear_grad matches autograd on {len(LINEAR_CASES)} layers and leaves inp, out, "
           f"w and b alone")


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
    `inp.g` (judged, as in `check_linear_grad`, within the rounding of the
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
    passed(f"mae_grad matches finite differences on {len(MAE_CASES)} batches, "
           f"leaves inp and targ alone")
