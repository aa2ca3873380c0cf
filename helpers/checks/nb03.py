"""Checks for the exercises of notebook 03, the same network with autograd.

Exercise 1, `check_accumulate_grads`: gradient accumulation over chunks of a batch.
Exercise 2, `check_sequential`: our weights in an `nn.Sequential`, `(out, in)` layout.
Exercise 3, `check_tanh_fn`: a `torch.autograd.Function` for tanh.

`small_net()` is exported too: a net and a batch to try an Exercise 1 answer on.
The check-import cells bring `torch` and `nn` with plain imports.
"""

from __future__ import annotations

import torch
from torch import nn

from helpers.checks import (
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
from helpers.data import make_weights, synthetic_regression

__all__ = ["check_accumulate_grads", "check_sequential", "check_tanh_fn", "small_net"]

WEIGHT_NAMES = ("w1", "b1", "w2", "b2")


def _is_close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-6,
                                                 atol=1e-9 * max(b.abs().max().item(), 1.0))


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, type):
        bases = ", ".join(b.__name__ for b in value.__bases__ if b is not object)
        return f"the class {value.__name__}" + (f", derived from {bases}" if bases else "")
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


# ---------------------------------------------------------------- exercise 1

class _Model(nn.Module):
    """Notebook 03's section-4 `Model`: lin -> relu -> lin, returning the MSE loss."""

    def __init__(self, n_in: int, nh: int):
        super().__init__()
        self.lin1, self.relu, self.lin2 = nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, 1)

    def forward(self, inp: torch.Tensor, targ: torch.Tensor) -> torch.Tensor:
        out = self.lin2(self.relu(self.lin1(inp)))
        return nn.functional.mse_loss(out.squeeze(-1), targ)


def _net(n_in: int, nh: int, seed: int, stale: tuple | None = None) -> _Model:
    """Seeded weights and random biases in a float64 `_Model`; `stale` data leave a .grad."""
    net = _Model(n_in, nh).double()
    w1, _, w2, _ = make_weights(n_in, nh, seed=seed, dtype=torch.float64)
    g = torch.Generator().manual_seed(seed)
    b1, b2 = (0.1 * torch.randn(n, generator=g, dtype=torch.float64) for n in (nh, 1))
    with torch.no_grad():
        for p, w in zip(net.parameters(), (w1.t(), b1, w2.t(), b2)):
            p.copy_(w)
    if stale is not None:
        net(*stale).backward()  # "the previous step": its gradients are still in .grad
    return net


def _grads(net: nn.Module, inp=None, targ=None, scale: float = 1.0) -> dict:
    """The `.grad` of every parameter of `net`, after a backward of `scale * net(inp, targ)`."""
    if inp is not None:
        (scale * net(inp, targ)).backward()
    return {name: p.grad.detach().clone() for name, p in net.named_parameters()}


ACCUMULATE_CASES = (  # (seed, rows, n_in, nh, n_chunks): never n_chunks**2 rows
    (2, 48, 8, 16, 3),
    (5, 48, 8, 16, 4),
    (7, 50, 5, 7, 6),  # chunks of 9, 9, 9, 9, 9 and 5 rows: equal weights are wrong
)


def small_net() -> tuple[_Model, torch.Tensor, torch.Tensor]:
    """(net, inp, targ): the first case's float64 net (8 inputs, 16 hidden units),
    with a previous step's gradients in its `.grad`s, and its 48 rows, to try an
    answer on. `net(inp, targ)` returns the mean squared error."""
    seed, rows, n_in, nh, _ = ACCUMULATE_CASES[0]
    stale = synthetic_regression(n=rows, n_in=n_in, seed=seed + 50, dtype=torch.float64)
    inp, targ = synthetic_regression(n=rows, n_in=n_in, seed=seed, dtype=torch.float64)
    return _net(n_in, nh, seed, stale), inp, targ


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


@exercise_check
def check_accumulate_grads(accumulate_grads) -> None:
    """Exercise 1: clear the old gradients, then one `backward` per chunk.

    Requires, on three nets and batches (48 rows in 3 and in 4 chunks, 50 rows
    in 6 chunks of 9 and 5 rows), each net arriving with a previous step's
    gradients in `.grad`: exactly one `backward` per chunk of
    `inp.chunk(n_chunks)`, each carrying that chunk's share (its mean loss
    times `len(x) / len(inp)`, or all of them scaled alike; seen by a hook on
    the first weight); in the end every `.grad` is the full-batch gradient
    (dividing by `n_chunks` is wrong for the uneven chunks); the model as it
    was (`expect_model_unchanged`: the same parameters, values and
    `requires_grad`, no hook left on a parameter or module, no attribute
    added), `inp` and `targ` too. Leaves free: how the gradients are cleared
    (`zero_grad()`, with or without `set_to_none`, or by hand), the order of
    the chunks, how the share is scaled (the loss, `backward`'s `gradient`
    argument, a hook removed afterwards, or the summed `.grad` divided at the
    end), extra prints. A wrong number of `backward` calls is tried with
    another `n_chunks`: a count that does not follow it is named a number
    written in.
    """
    for seed, rows, n_in, nh, n_chunks in ACCUMULATE_CASES:
        _check_accumulate_case(accumulate_grads, seed, rows, n_in, nh, n_chunks)
    passed("each backward added one chunk's share; .grad is the full-batch gradient")


def _check_accumulate_case(accumulate_grads, seed: int, rows: int, n_in: int, nh: int,
                           n_chunks: int) -> None:
    case = f"with n_chunks={n_chunks} ({rows} rows)"
    inp, targ = synthetic_regression(n=rows, n_in=n_in, seed=seed, dtype=torch.float64)
    stale = synthetic_regression(n=rows, n_in=n_in, seed=seed + 50, dtype=torch.float64)
    net = _net(n_in, nh, seed, stale)
    old = _grads(net)
    model_before = snapshot_model(net)  # before the check's own hooks
    full = _grads(_net(n_in, nh, seed), inp, targ)
    chunks = list(zip(inp.chunk(n_chunks), targ.chunk(n_chunks)))
    sizes = [len(x) for x, _ in chunks]
    means = [_grads(_net(n_in, nh, seed), x, y) for x, y in chunks]  # unscaled
    shares = [{k: v * size / rows for k, v in m.items()} for m, size in zip(means, sizes)]
    before = snapshot(inp=inp, targ=targ)
    weight = net.lin1.weight
    seen, grad_before = [], []  # per backward: its gradient, and .grad before it is added
    filled = {}  # backward -> what it added into .grad (not for torch.autograd.grad)

    def record(g: torch.Tensor) -> None:  # before the answer's own hooks, if any
        seen.append(g.detach().clone())
        grad_before.append(None if weight.grad is None else weight.grad.detach().clone())

    def added(p: torch.Tensor) -> None:  # after them: what reached .grad
        old = grad_before[-1]
        filled[len(seen) - 1] = p.grad.detach() - (0 if old is None else old)

    hooks = [weight.register_hook(record),  # once per backward reaching it
             weight.register_post_accumulate_grad_hook(added)]
    try:
        call_answer(accumulate_grads, net, inp, targ, n_chunks, what="your accumulate_grads",
                    hint="accumulate_grads(net, inp, targ, n_chunks) is called with a "
                         "model whose net(x, y) returns the loss of rows x against "
                         "targets y",
                    errors={"backward_twice": (
                        "backward ran twice through one graph, whose saved values the "
                        "first backward had freed (notebook 03 §3): compute each chunk's loss, "
                        "net(x, y), inside the loop")})
    finally:
        for hook in hooks:
            hook.remove()
    expect_unchanged(before, "your accumulate_grads")
    expect_model_unchanged(model_before, net, "your accumulate_grads")
    if len(seen) != n_chunks:
        why = ""
        if len(seen) == rows // n_chunks and len(seen) > 1:
            why = (f"\ninp.split({n_chunks}) makes chunks of {n_chunks} rows; "
                   f"inp.chunk({n_chunks}) makes {n_chunks} chunks")
        elif len(seen) > 1 and (probe := _backward_count(
                accumulate_grads, n_chunks, len(seen)))[1] == len(seen):
            why = (f"\nand {_times(len(seen))} with n_chunks={probe[0]} too: is the number "
                   "of chunks written in? Split with inp.chunk(n_chunks)")
        raise CheckFailed(
            f"{case} expected one backward per chunk, {n_chunks} in all, but backward "
            f"reached the weights {_times(len(seen))}{why}")
    missing = [name for name, p in net.named_parameters() if p.grad is None]
    if missing and not filled:
        raise CheckFailed(
            f"{case}: after your function the .grad of {', '.join(missing)} is None, and "
            "no backward filled it: torch.autograd.grad returns gradients without storing "
            "them in .grad; call loss.backward(), which adds into .grad")
    if missing:
        which = ("every .grad" if len(missing) == len(list(net.parameters()))
                 else f"the .grad of {', '.join(missing)}")
        raise CheckFailed(
            f"{case}, {which} ends as None\nDid you clear the gradients after the "
            "backward calls, not before them?")
    if all(not g.any() for g in filled.values()) and filled:
        raise CheckFailed(
            f"{case}: every backward added zeros into .grad: each chunk's loss was "
            "multiplied by 0 (note that len(x) // len(inp) is 0: use /)")
    unweighted = {k: sum(m[k] for m in means) for k in full}
    divided_each_time = {k: torch.zeros_like(v) for k, v in full.items()}
    for m in means:  # .grad /= n_chunks after each chunk's unscaled backward
        divided_each_time = {k: (v + m[k]) / n_chunks for k, v in divided_each_time.items()}
    expect_close(_grads(net), full, f"with n_chunks={n_chunks}, .grad is not the "
                                    "full-batch gradient", mistakes={
        "the old gradient stayed in .grad: call net.zero_grad() once, before the "
        "loop": {k: full[k] + old[k] for k in full},
        "you did not weight each chunk's loss (a mean over its rows) by its share "
        "of the rows, len(x) / len(inp)": unweighted,
        "you neither cleared the old gradient first nor weighted each chunk's "
        "loss by len(x) / len(inp)": {k: unweighted[k] + old[k] for k in full},
        f"you divided by n_chunks, which weights the {sizes[-1]}-row chunk like the "
        f"{sizes[0]}-row ones; weight each chunk's loss by len(x) / len(inp)": {
            k: unweighted[k] / n_chunks for k in full},
        "you cleared the gradients between chunks; clear them once, before the "
        "loop": shares[-1],
        "you cleared the gradients after the backward calls, not before them": {
            k: torch.zeros_like(v) for k, v in full.items()},
        "you divided the .grad by n_chunks after every chunk, which shrinks the "
        "earlier shares again and again; weight each chunk's loss instead": divided_each_time,
        "you multiplied each chunk's loss by len(inp) / len(x), upside down: its "
        "share of the rows is len(x) / len(inp)": {
            k: sum(m[k] * rows / size for m, size in zip(means, sizes)) for k in full},
        "you multiplied each chunk's loss by len(x) but did not divide by "
        "len(inp)": {k: rows * full[k] for k in full},
        "you divided each chunk's loss by its number of rows; it is a mean over them "
        "already, multiply it by len(x) / len(inp)": {
            k: sum(m[k] / size for m, size in zip(means, sizes)) for k in full},
    })
    carried = [filled.get(i, g) for i, g in enumerate(seen)]
    _expect_one_share_per_backward(carried, [s["lin1.weight"] for s in shares],
                                   full["lin1.weight"], case)


def _backward_count(accumulate_grads, *avoid: int) -> tuple[int, int | None]:
    """(n, how often backward reaches the weights when the answer gets n_chunks=n).

    n is another number of chunks than those in `avoid`. A count that stays the
    same whatever n_chunks is, is a number written in. The count is None when
    the answer fails on this call.
    """
    n_chunks = next(n for n in (2, 5, 8) if n not in avoid)
    inp, targ = synthetic_regression(n=40, n_in=8, seed=11, dtype=torch.float64)
    net, seen = _net(8, 16, 11), []
    hook = net.lin1.weight.register_hook(lambda g: seen.append(1))
    try:
        call_answer(accumulate_grads, net, inp, targ, n_chunks, what="your accumulate_grads")
    except CheckFailed:
        return n_chunks, None
    finally:
        hook.remove()
    return n_chunks, len(seen)


def _factor(g: torch.Tensor, share: torch.Tensor) -> float | None:
    """c > 0 with g == c * share (up to rounding), or None."""
    c = ((g * share).sum() / (share * share).sum()).item()
    return c if c > 0 and _is_close(g, c * share) else None


def _expect_one_share_per_backward(seen: list, shares: list, whole: torch.Tensor,
                                   case: str) -> None:
    """Each backward's gradient on lin1.weight is one chunk's share, each chunk once.

    One common factor is allowed: an answer may divide the summed .grad by
    n_chunks at the end instead of dividing each chunk's loss.
    """
    left, factor = list(range(len(shares))), None
    for call, g in enumerate(seen, 1):
        for i in left:
            c = _factor(g, shares[i])
            if c is not None and (factor is None or abs(c - factor) <= 1e-6 * factor):
                factor = c
                left.remove(i)
                break
        else:
            if all(_factor(h, whole) is not None for h in seen):
                raise CheckFailed(
                    f"{case}: the .grad adds up, but every backward carried the whole "
                    "batch's loss; each should carry its own chunk's loss, net(x, y) "
                    "on that chunk's rows")
            raise CheckFailed(
                f"{case}: the .grad adds up, but backward {call} carried no chunk's "
                "share (the gradient of one chunk's loss, scaled like the others); "
                "split with inp.chunk(n_chunks), one backward per chunk")


# ---------------------------------------------------------------- exercise 2

SEQUENTIAL_CASES = (  # (seed, n_in, nh): not square, then square (a transpose hides),
    (4, 5, 7),          # then the first shapes again, with other values (no cached model)
    (6, 3, 9),
    (8, 6, 6),
    (9, 5, 7),
)
NOTEBOOK_SIZES = (8, 16)  # n_in, nh of the notebook: what a hard-coded answer assumes


def _weights(n_in: int, nh: int, seed: int) -> dict[str, torch.Tensor]:
    """Our layout, (in, out); random biases (make_weights starts them at zero)."""
    w1, _, w2, _ = make_weights(n_in, nh, seed=seed)
    g = torch.Generator().manual_seed(seed)
    b1, b2 = (0.1 * torch.randn(n, generator=g) for n in (nh, 1))
    return dict(zip(WEIGHT_NAMES, (w1, b1, w2, b2)))


def _forward(inp: torch.Tensor, w1, b1, w2, b2) -> torch.Tensor:
    return (inp @ w1 + b1).clamp_min(0) @ w2 + b2


@exercise_check
def check_sequential(make_sequential) -> None:
    """Exercise 2: an `nn.Sequential` holding copies of our weights, in `(out, in)` layout.

    Requires, for four sets of weights (5 -> 7, 3 -> 9, 6 -> 6, then 5 -> 7
    again with other values; biases not zero): a new `nn.Sequential` on each
    call (no model or parameter of an earlier call) with two `nn.Linear` layers
    and 4 parameters that require grad, whose output on a batch is
    lin -> relu -> lin with the weights passed in, and whose gradients under
    `nn.MSELoss` match that network's; the tensors passed in keep their values
    and `requires_grad`, when the model is built and after an SGD step on it.
    Leaves free: how the weights get in (`copy_` under `no_grad`, new
    `nn.Parameter`s of copies, `load_state_dict`), layer names, `nn.ReLU` or
    `nn.ReLU(inplace=True)`, extra prints. Sizes written in are named as such,
    before any other diagnosis: when the first case fails, the answer is tried
    at the notebook's sizes (8 -> 16); when a later case fails on a size
    mismatch, an earlier case of other sizes has passed.
    """
    built: list = []
    worked: list[tuple[int, int]] = []  # (n_in, nh) of the cases passed so far
    for seed, n_in, nh in SEQUENTIAL_CASES:
        try:
            built.append(_check_sequential_case(make_sequential, seed, n_in, nh, built))
            worked.append((n_in, nh))
        except CheckFailed as e:
            other = [shape for shape in worked if shape != (n_in, nh)]
            if other and isinstance(e, _SizeMismatch):
                where = f"{other[0]}, as in an earlier case,"
            elif not built and _works_at_notebook_sizes(make_sequential):
                where = f"{NOTEBOOK_SIZES}, the notebook's,"
            else:
                raise
            raise CheckFailed(
                f"your make_sequential works for w1 of shape {where} but not for w1 of "
                f"shape {(n_in, nh)}\nAre the sizes written in? Take them from the "
                "weights: (n_in, nh), n_out = w1.shape, w2.shape[1]",
                e.learner_frames) from None
    passed("your nn.Sequential matches our network, gradients too, and owns its "
           "weights")


class _SizeMismatch(CheckFailed):
    """The answer raised on a size mismatch (a weight copied into a layer of another shape)."""


def _works_at_notebook_sizes(make_sequential) -> bool:
    """True when the answer passes a case of the notebook's own sizes."""
    try:
        _check_sequential_case(make_sequential, 0, *NOTEBOOK_SIZES, [])
    except CheckFailed:
        return False
    return True


def _check_sequential_case(make_sequential, seed: int, n_in: int, nh: int,
                           built: list) -> nn.Sequential:
    case = f"with n_in={n_in}, nh={nh}"
    inp, targ = synthetic_regression(n=32, n_in=n_in, seed=seed)
    ws = _weights(n_in, nh, seed)
    before = snapshot(**ws)
    try:
        seq = call_answer(make_sequential, *ws.values(), what="your make_sequential",
                          hint="make_sequential(w1, b1, w2, b2) gets our weights, w1 "
                               "shaped (n_in, nh); nn.Linear stores its weight as "
                               "(out, in)")
    except CheckFailed as e:
        cause = str(e.__cause__)
        if "leaf Variable that requires grad" in cause:
            raise CheckFailed(f"{e}\nA parameter requires grad, and autograd refuses "
                              "in-place writes into it unless they run under "
                              "torch.no_grad()", e.learner_frames) from None
        if isinstance(e.__cause__, RuntimeError) and any(
                text in cause for text in ("must match the size", "size mismatch",
                                           "match the broadcast shape")):
            raise _SizeMismatch(
                f"{e}\nnn.Linear stores its weight as (out, in): nn.Linear(n_in, nh) holds "
                f"w1.t(), ({nh}, {n_in}), and nn.Linear(nh, n_out) holds w2.t(), (1, {nh})",
                e.learner_frames) from None
        raise
    expect_unchanged(before, "building the model")
    if any(t.requires_grad for t in ws.values()):
        raise CheckFailed("building the model switched on requires_grad of a tensor "
                          "passed in; only the model's own parameters need it")
    if not isinstance(seq, nn.Sequential):
        raise CheckFailed("make_sequential should return an nn.Sequential, not "
                          f"{_kind(seq)}")
    linears = [m for m in seq if isinstance(m, nn.Linear)]
    params = list(seq.parameters())
    if len(linears) != 2 or len(params) != 4:
        raise CheckFailed("the model should hold two nn.Linear layers (with a ReLU "
                          "between them) and so register 4 parameters")
    old = {id(p) for m in built for p in m.parameters()}
    if any(seq is m for m in built) or any(id(p) in old for p in params):
        raise CheckFailed(
            f"{case}, make_sequential returned "
            + ("the model it returned for an earlier call" if any(seq is m for m in built)
               else "a model that shares parameters with the model of an earlier call")
            + ": each call should build a new model holding the weights passed in (a "
              "cached model keeps the old weights, and training one trains the other)")
    lin1, lin2 = linears
    mine = {"w1": lin1.weight.t(), "b1": lin1.bias, "w2": lin2.weight.t(),
            "b2": lin2.bias}
    for name, p in mine.items():
        if p.shape != ws[name].shape:
            raise CheckFailed(
                f"{case}, {name}: the layer's parameter, in our layout, has shape "
                f"{tuple(p.shape)}, ours has {tuple(ws[name].shape)}")
    if not all(p.requires_grad for p in params):
        raise CheckFailed("a parameter of your model has requires_grad=False, so "
                          "training could not update it; leave nn.Linear's "
                          "parameters as they are created")
    out = call_answer(seq, inp, what="your model",
                      hint="the model is called on a batch (N, n_in)")
    leaves = {name: t.clone().requires_grad_() for name, t in ws.items()}
    ref_out = _forward(inp, **leaves)
    expect_tensor(out, f"{case} your model's output", tuple(ref_out.shape))
    reshaped = dict(ws, w1=ws["w1"].reshape(nh, n_in).t())
    expect_close({"out": out}, {"out": ref_out},
                 f"{case} your model's output differs from lin -> relu -> lin with "
                 "the weights passed in",
                 mistakes={"you put w1 into the layer as it is, not transposed":
                           {"out": _forward(inp, **reshaped)}})
    if not out.requires_grad:
        raise CheckFailed("your model's output does not require grad: no backward "
                          "can reach its parameters")
    call_answer(lambda: nn.MSELoss()(out.squeeze(-1), targ).backward(),
                what="a backward through your model")
    (ref_out.squeeze(-1) - targ).pow(2).mean().backward()
    grads = {"w1": lin1.weight.grad.t(), "b1": lin1.bias.grad,
             "w2": lin2.weight.grad.t(), "b2": lin2.bias.grad}
    expect_close(grads, {name: t.grad for name, t in leaves.items()},
                 f"{case} the model's gradients differ from the network written as "
                 "functions")
    with torch.no_grad():  # one SGD step on the model
        for p in params:
            p -= 0.1 * p.grad
    if any(not torch.equal(ws[k], before[k][1]) for k in ws):
        raise CheckFailed("a step on the model changed the weights passed in: the "
                          "model shares their memory; copy them into its own "
                          "parameters (copy_ under torch.no_grad())")
    return seq


# ---------------------------------------------------------------- exercise 3

TANH_CASES = (  # (seed, shape, dtype): a matrix, a vector in float32, a 3-d tensor
    (3, (6, 4), torch.float64),
    (4, (7,), torch.float32),
    (5, (2, 3, 4), torch.float64),
)


@exercise_check
def check_tanh_fn(TanhFn) -> None:
    """Exercise 3: `TanhFn`, a `torch.autograd.Function` for tanh.

    Requires, on three tensors (shapes (6, 4), (7,) and (2, 3, 4), float64 and
    float32, values in both tanh tails): `TanhFn.apply(x)` returns
    `torch.tanh(x)` and leaves `x` (values and `requires_grad`) as it was; a
    `backward` through it, `out.backward(out_g)`, gives
    `x.grad == out_g * (1 - tanh(x)**2)` for an upstream gradient `out_g` that
    is not all ones, and leaves `out_g` and the forward's output unchanged;
    two calls then one backward,
    `(TanhFn.apply(a) * ua + TanhFn.apply(b) * ub).sum().backward()`, give
    each input its own gradient (what a call saves belongs to that call: its
    `ctx`, not the class); `gradcheck` passes. Leaves free: what is saved (the
    output, or the input and tanh recomputed) and how (`save_for_backward`, a
    `setup_context`), how the derivative is written, the dtype the backward
    computes in, extra prints.
    """
    if not (isinstance(TanhFn, type) and issubclass(TanhFn, torch.autograd.Function)):
        raise CheckFailed("TanhFn should be a class derived from "
                          f"torch.autograd.Function, but it is {_kind(TanhFn)}")
    for seed, shape, dtype in TANH_CASES:
        _check_tanh_case(TanhFn, seed, shape, dtype)
    _check_tanh_two_calls(TanhFn)
    x = torch.randn(2, 3, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    ok = call_answer(lambda: torch.autograd.gradcheck(
        TanhFn.apply, (x.requires_grad_(),), raise_exception=False),
        what="gradcheck on your TanhFn")
    if not ok:
        raise CheckFailed("gradcheck disagrees with your backward on a float64 tensor")
    passed("TanhFn matches torch.tanh and its gradient, and passes gradcheck")


def _check_tanh_case(TanhFn, seed: int, shape: tuple, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(seed)
    x = (2 * torch.randn(shape, generator=g, dtype=dtype)).requires_grad_()
    upstream = torch.randn(shape, generator=g, dtype=dtype)  # dL/d(out)
    case = f"on a {dtype} tensor of shape {shape}"
    before = snapshot(x=x)
    out = call_answer(TanhFn.apply, x, what="TanhFn.apply(x), your forward,",
                      hint="TanhFn.apply(x) calls forward(x) when TanhFn has a "
                           "setup_context, forward(ctx, x) when it has none")
    expect_unchanged(before, "your forward")
    if not x.requires_grad:
        raise CheckFailed("your forward switched off x.requires_grad; it should "
                          "only read x")
    expect_tensor(out, f"what TanhFn.apply(x) returned {case}", shape)
    if out.dtype != x.dtype:
        raise CheckFailed(f"TanhFn.apply(x) returned {out.dtype} for a {dtype} x; tanh keeps "
                          "its input's dtype: compute torch.tanh(inp) as it is")
    tanh = torch.tanh(before["x"][1])
    expect_close({"out": out}, {"out": tanh},
                 f"{case} your forward should return torch.tanh(inp)")
    if not out.requires_grad:
        raise CheckFailed("TanhFn.apply(x) returned a tensor that does not require "
                          "grad, so no backward can reach your backward: return "
                          "the result of forward as it is")
    after_forward = snapshot(out=out, out_g=upstream)  # backward gets upstream as out_g
    saved = len(getattr(out.grad_fn, "saved_tensors", ()))
    try:
        call_answer(lambda: out.backward(upstream), what="your backward",
                    hint="backward(ctx, out_g) receives the gradient of the output and "
                         "returns the gradient of inp")
    except CheckFailed as e:
        if saved == 0 and isinstance(e.__cause__, (ValueError, IndexError)):
            raise CheckFailed(f"{e}\nNothing was saved, so ctx.saved_tensors is empty "
                              "in backward: save the output with ctx.save_for_backward "
                              "in setup_context (or in forward)", e.learner_frames) from None
        raise
    expect_unchanged(after_forward, "your backward")
    if x.grad is None:
        raise CheckFailed("your backward returned None: return the gradient of inp")
    up = upstream.double()
    t = tanh.double()
    expect_close(
        {"inp": x.grad}, {"inp": up * (1 - t**2)},
        f"{case} your backward should return out_g * (1 - out**2)",
        mistakes={
            "you left out out_g, the gradient backward receives": {"inp": 1 - t**2},
            "you wrote the derivative with the input, 1 - inp**2": {
                "inp": up * (1 - before["x"][1].double() ** 2)},
            "you returned out_g without tanh's derivative": {"inp": up},
            "you used the sigmoid's derivative, out * (1 - out)": {
                "inp": up * t * (1 - t)},
        })


def _check_tanh_two_calls(TanhFn) -> None:
    """Two applies, then one backward: each call's backward must use its own saved tensors."""
    g = torch.Generator().manual_seed(7)
    a, b = ((2 * torch.randn(3, 5, generator=g, dtype=torch.float64)).requires_grad_()
            for _ in range(2))
    ua, ub = (torch.randn(3, 5, generator=g, dtype=torch.float64) for _ in range(2))
    call_answer(lambda: (TanhFn.apply(a) * ua + TanhFn.apply(b) * ub).sum().backward(),
                what="two calls of TanhFn.apply, then one backward,",
                hint="(TanhFn.apply(a) * ua + TanhFn.apply(b) * ub).sum().backward(): each "
                     "call's backward receives that call's out_g")
    ta, tb = torch.tanh(a.detach()), torch.tanh(b.detach())
    ours = {"a": a.grad, "b": b.grad}
    if any(v is None for v in ours.values()):
        raise CheckFailed("after two calls of TanhFn.apply and one backward, a.grad or b.grad "
                          "is None: your backward should return the gradient of inp")
    ref = {"a": ua * (1 - ta**2), "b": ub * (1 - tb**2)}
    swapped = {"a": ua * (1 - tb**2), "b": ub * (1 - ta**2)}
    crossed = [n for n in ours if _is_close(ours[n], swapped[n])
               and not _is_close(ours[n], ref[n])]
    if crossed:
        raise CheckFailed(
            f"after TanhFn.apply(a) and TanhFn.apply(b), then one backward, {crossed[0]}.grad "
            "was computed with the other call's output: your backward used another call's "
            "saved output. Keep what backward needs in ctx (ctx.save_for_backward(out)), "
            "which belongs to one call, not on the class or in a global")
    expect_close(ours, ref, "after TanhFn.apply(a) and TanhFn.apply(b), then one backward, "
                 "each input's gradient should be out_g * (1 - tanh(inp)**2) with its own "
                 "call's out_g and output")
