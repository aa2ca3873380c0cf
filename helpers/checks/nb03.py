"""Checks for the exercises of notebook 03, the same network with autograd: gradient
accumulation (`small_net()` is a net to try an answer on), our weights in an
`nn.Sequential`, a `torch.autograd.Function` for tanh."""

from __future__ import annotations

from types import SimpleNamespace

import torch
import torch.fx.experimental.symbolic_shapes  # noqa: F401 -- what a first backward(gradient) imports
from torch import nn

from helpers.checks import (
    CheckFailed,
    Mistake,
    a_type,
    call_answer,
    code_uses,
    exercise_check,
    expect_close,
    expect_tensor,
    judge,
    param_grads,
)
from helpers.compare import compare
from helpers.data import make_weights, synthetic_regression

__all__ = ["check_accumulate_grads", "check_sequential", "check_tanh_fn", "small_net"]
_NAMES = ("w1", "b1", "w2", "b2")   # our weights, w1 and w2 laid out (in, out)


# ---------------------------------------------------------------- exercise 1
class _Model(nn.Module):
    """Notebook 03's section-4 `Model`: lin -> relu -> lin, returning the MSE loss."""

    def __init__(self, n_in: int, nh: int):
        super().__init__()
        self.lin1, self.relu, self.lin2 = nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, 1)

    def forward(self, inp: torch.Tensor, targ: torch.Tensor) -> torch.Tensor:
        out = self.lin2(self.relu(self.lin1(inp)))
        return nn.functional.mse_loss(out.squeeze(-1), targ)


def _weights(n_in: int, nh: int, seed: int, dtype=None) -> dict[str, torch.Tensor]:
    """Our layout, (in, out); random biases (make_weights starts them at zero)."""
    w1, _, w2, _ = make_weights(n_in, nh, seed=seed, dtype=dtype or torch.float32)
    g = torch.Generator().manual_seed(seed)
    b1, b2 = (0.1 * torch.randn(n, generator=g, dtype=dtype) for n in (nh, 1))
    return dict(zip(_NAMES, (w1, b1, w2, b2)))


def _net(n_in: int, nh: int, seed: int, stale: tuple | None = None) -> _Model:
    """Our float64 weights in a `_Model`, transposed into its layers; `stale` leaves a .grad."""
    net = _Model(n_in, nh).double()
    with torch.no_grad():
        for p, w in zip(net.parameters(), _weights(n_in, nh, seed, torch.float64).values()):
            p.copy_(w.t() if w.dim() == 2 else w)
    if stale is not None:
        net(*stale).backward()  # "the previous step": its gradients are still in .grad
    return net


# (seed, rows, n_in, nh, n_chunks): never n_chunks**2 rows; 50 rows in 6 chunks of 9, ..., 5
ACCUMULATE_CASES = ((2, 48, 8, 16, 3), (5, 48, 8, 16, 4), (7, 50, 5, 7, 6))


def small_net() -> tuple[_Model, torch.Tensor, torch.Tensor]:
    """(net, inp, targ): the first case's float64 net, old gradients in its `.grad`s, and its
    48 rows; `net(inp, targ)` returns the mean squared error."""
    seed, rows, n_in, nh, _ = ACCUMULATE_CASES[0]
    stale = synthetic_regression(n=rows, n_in=n_in, seed=seed + 50, dtype=torch.float64)
    inp, targ = synthetic_regression(n=rows, n_in=n_in, seed=seed, dtype=torch.float64)
    return _net(n_in, nh, seed, stale), inp, targ


def _acc_case(seed, rows, n_in, nh, n_chunks):
    """The data, the old .grad, the full-batch gradient, each chunk's mean-loss gradient."""
    inp, targ = synthetic_regression(n=rows, n_in=n_in, seed=seed, dtype=torch.float64)
    stale = synthetic_regression(n=rows, n_in=n_in, seed=seed + 50, dtype=torch.float64)
    chunks = list(zip(inp.chunk(n_chunks), targ.chunk(n_chunks)))
    means = [param_grads(_net(n_in, nh, seed), x, y) for x, y in chunks]
    sizes = [len(x) for x, _ in chunks]
    return SimpleNamespace(
        seed=seed, rows=rows, n_in=n_in, nh=nh, n=n_chunks, inp=inp, targ=targ, stale=stale,
        sizes=sizes, means=means, old=param_grads(_net(n_in, nh, seed, stale)),
        full=param_grads(_net(n_in, nh, seed), inp, targ),
        shares=[{k: v * s / rows for k, v in m.items()} for m, s in zip(means, sizes)],
        say=f"with n_chunks={n_chunks} ({rows} rows)")


def _summed(c, f):
    return {k: sum(f(m[k], s) for m, s in zip(c.means, c.sizes)) for k in c.full}


def _each_divided(c):
    g = {k: torch.zeros_like(v) for k, v in c.full.items()}
    for m in c.means:  # .grad /= n_chunks after each chunk's unscaled backward
        g = {k: (v + m[k]) / c.n for k, v in g.items()}
    return g


ACCUMULATE_COUNT = [
    Mistake("split", "inp.split(n) makes chunks of n rows; inp.chunk(n) makes n chunks",
            gives=lambda c: len(c.inp.split(c.n))),
    Mistake("once", "you called backward once, on the whole batch or on the chunks' losses "
            "summed; call it once per chunk, so that .grad adds the chunks up",
            gives=lambda c: 1),
]
ACCUMULATE = [
    Mistake("stale", "the old gradient stayed in .grad: call net.zero_grad() once, before the "
            "loop", gives=lambda c: {k: c.full[k] + c.old[k] for k in c.full}),
    Mistake("unweighted", "you did not weight each chunk's loss (a mean over its rows) by its "
            "share of the rows, len(x) / len(inp)", gives=lambda c: _summed(c, lambda g, s: g)),
    Mistake("stale_unweighted", "you neither cleared the old gradient first nor weighted each "
            "chunk's loss by len(x) / len(inp)",
            gives=lambda c: {k: v + c.old[k] for k, v in _summed(c, lambda g, s: g).items()}),
    Mistake("n_chunks", "you divided by n_chunks (each chunk's loss, or the summed .grad), "
            "which weights a short last chunk like the others; weight each chunk's loss by "
            "len(x) / len(inp)",
            gives=lambda c: _summed(c, lambda g, s: g / c.n)),
    Mistake("between", "you cleared the gradients between chunks; clear them once, before the "
            "loop", gives=lambda c: c.shares[-1]),
    Mistake("after", "you cleared the gradients after the backward calls, not before them",
            gives=lambda c: {k: torch.zeros_like(v) for k, v in c.full.items()},
            seen=lambda a: not code_uses(a, op="BINARY_OP://")),
    Mistake("divided_each", "you divided the .grad by n_chunks after every chunk, which "
            "shrinks the earlier shares again and again; weight each chunk's loss instead",
            gives=_each_divided),
    Mistake("inverted", "you multiplied each chunk's loss by len(inp) / len(x), upside down: "
            "its share of the rows is len(x) / len(inp)",
            gives=lambda c: _summed(c, lambda g, s: g * c.rows / s)),
    Mistake("rows", "you multiplied each chunk's loss by len(x) but did not divide by "
            "len(inp)", gives=lambda c: {k: c.rows * v for k, v in c.full.items()}),
    Mistake("mean_again", "you divided each chunk's loss by its number of rows; it is a mean "
            "over them already, multiply it by len(x) / len(inp)",
            gives=lambda c: _summed(c, lambda g, s: g / s)),
    Mistake("zero_share", "each chunk's loss was multiplied by 0: len(x) // len(inp) is 0; "
            "use /", gives=lambda c: {k: torch.zeros_like(v) for k, v in c.full.items()},
            seen=lambda a: code_uses(a, op="BINARY_OP://")),
    Mistake("backward_twice", "backward ran twice through one graph, whose saved values the "
            "first backward had freed (notebook 03 §3): compute each chunk's loss, net(x, y), "
            "inside the loop"),
]


def _run_accumulate(accumulate_grads, c):
    """The answer on case `c`: (net, each backward's gradient on lin1.weight, what each
    backward added into .grad)."""
    net = _net(c.n_in, c.nh, c.seed, c.stale)
    weight, seen, grad_before, filled = net.lin1.weight, [], [], {}

    def record(g):   # before the answer's own hooks, if any
        seen.append(g.detach().clone())
        grad_before.append(None if weight.grad is None else weight.grad.detach().clone())

    def added(p):    # after them: what reached .grad
        filled[len(seen) - 1] = p.grad.detach() - (0 if grad_before[-1] is None
                                                   else grad_before[-1])

    with weight.register_hook(record), weight.register_post_accumulate_grad_hook(added):
        call_answer(accumulate_grads, net, c.inp, c.targ, c.n, what="your accumulate_grads",
                    mistakes=ACCUMULATE, hint="accumulate_grads(net, inp, targ, n_chunks) is "
                    "called with a model whose net(x, y) returns the loss of rows x against "
                    "targets y", keep=dict(net=net, inp=c.inp, targ=c.targ), allow=("*.grad",))
    return net, seen, filled


def _acc_grads(accumulate_grads, c):
    net, seen, filled = _run_accumulate(accumulate_grads, c)
    missing = [name for name, p in net.named_parameters() if p.grad is None]
    if missing and not filled:
        raise CheckFailed(f"{c.say}: after your function the .grad of {', '.join(missing)} is "
                          "None, and no backward filled it: torch.autograd.grad returns "
                          "gradients without storing them in .grad; call loss.backward(), "
                          "which adds into .grad")
    if missing:
        which = ("every .grad" if len(missing) == 4 else f"the .grad of {', '.join(missing)}")
        raise CheckFailed(f"{c.say}, {which} ends as None\nDid you clear the gradients after the "
                          "backward calls, not before them?", "after")
    got = param_grads(net)
    if compare(got, c.full).ok:
        _one_share_per_backward([filled.get(i, g) for i, g in enumerate(seen)],
                                [s["lin1.weight"] for s in c.shares], c.full["lin1.weight"], c)
    return got


def _factor(g: torch.Tensor, share: torch.Tensor) -> float | None:
    """c > 0 with g == c * share (up to rounding), or None."""
    c = ((g * share).sum() / (share * share).sum()).item()
    return c if c > 0 and torch.allclose(g, c * share, rtol=1e-6, atol=1e-9 * max(
        share.abs().max().item(), 1.0)) else None


def _one_share_per_backward(seen: list, shares: list, whole: torch.Tensor, c) -> None:
    """Each backward's gradient on lin1.weight is one chunk's share, each chunk once; one
    common factor is allowed (the summed .grad divided at the end)."""
    left, factor = list(range(len(shares))), None
    for call, g in enumerate(seen, 1):
        for i in left:
            f = _factor(g, shares[i])
            if f is not None and (factor is None or abs(f - factor) <= 1e-6 * factor):
                factor = f
                left.remove(i)
                break
        else:
            if all(_factor(h, whole) is not None for h in seen):
                raise CheckFailed(f"{c.say}: the .grad adds up, but every backward carried the "
                                  "whole batch's loss; each should carry its own chunk's loss, "
                                  "net(x, y) on that chunk's rows")
            raise CheckFailed(f"{c.say}: the .grad adds up, but backward {call} carried no "
                              "chunk's share (the gradient of one chunk's loss, scaled like the "
                              "others); split with inp.chunk(n_chunks), one backward per chunk")


@exercise_check
def check_accumulate_grads(accumulate_grads) -> str:
    """Exercise 1: one backward per chunk, each its share, after clearing the old `.grad`: 48
    rows in 3 and 4 chunks, 50 in 6 (the last of 5); how it clears and scales is free."""
    cases = [_acc_case(*case) for case in ACCUMULATE_CASES]
    written = {c for c in getattr(getattr(accumulate_grads, "__code__", None), "co_consts", ())
               if isinstance(c, int) and not isinstance(c, bool) and c > 1}
    fixed = [Mistake(f"fixed:{k}", f"the number of chunks is written in ({k}): split with "
                     f"inp.chunk(n_chunks)", gives=lambda c, k=k: k) for k in sorted(written)]
    judge(cases, lambda c: len(_run_accumulate(accumulate_grads, c)[1]), lambda c: c.n,
          lambda c, got: (f"{c.say} expected one backward per chunk, {c.n} in all, but "
                          f"backward reached the weights {'once' if got == 1 else f'{got} times'}"),
          [*ACCUMULATE_COUNT, *fixed], accumulate_grads)
    judge(cases, lambda c: _acc_grads(accumulate_grads, c), lambda c: c.full,
          lambda c, _: f"with n_chunks={c.n}, .grad is not the full-batch gradient",
          ACCUMULATE, accumulate_grads)
    return "each backward added one chunk's share; .grad is the full-batch gradient"


# ---------------------------------------------------------------- exercise 2
# (seed, n_in, nh): not square, then square (a transpose hides), then 5 -> 7 again, with
# other values (no cached model)
SEQUENTIAL_CASES = ((4, 5, 7), (6, 3, 9), (8, 6, 6), (9, 5, 7))
NOTEBOOK_SIZES = (8, 16)  # n_in, nh of the notebook: what a hard-coded answer assumes
SEQUENTIAL = [
    Mistake("leaf_inplace", "a parameter requires grad, and autograd refuses in-place writes "
            "into it unless they run under torch.no_grad()",
            raises=(RuntimeError, "leaf Variable that requires grad")),
    Mistake("reshaped", "you reshaped (or viewed) w1, which keeps its memory order: the "
            "transpose is w1.t()",
            gives=lambda c: _network(c, reshape=True)),
    Mistake("layout", "nn.Linear stores its weight as (out, in): nn.Linear(n_in, nh) holds "
            "w1.t(), and nn.Linear(nh, n_out) holds w2.t()",
            raises=(RuntimeError, ""), line=r"weight|\bw[12]\b"),
    Mistake("bias_layer", "a bias went into a layer of another size: b1 has one entry per "
            "hidden unit, for the first nn.Linear; b2 one per output, for the second",
            raises=(RuntimeError, ""), line=r"bias|\bb[12]\b"),
]


def _network(c, reshape=False) -> dict[str, torch.Tensor]:
    """lin -> relu -> lin's output and gradients (MSE) in our layout, as a model holding the
    weights gives them (`reshape`: each weight reshaped into its layer, not transposed)."""
    w = {k: (c.ws[k].reshape(c.ws[k].shape[::-1]) if reshape else c.ws[k].t()).clone()
         .requires_grad_() for k in ("w1", "w2")}
    b = {k: c.ws[k].clone().requires_grad_() for k in ("b1", "b2")}
    out = (c.inp @ w["w1"].t() + b["b1"]).clamp_min(0) @ w["w2"].t() + b["b2"]
    (out.squeeze(-1) - c.targ).pow(2).mean().backward()
    return {"out": out.detach(), "w1": w["w1"].grad.t(), "b1": b["b1"].grad,
            "w2": w["w2"].grad.t(), "b2": b["b2"].grad}


def _seq_case(seed, n_in, nh):
    inp, targ = synthetic_regression(n=32, n_in=n_in, seed=seed)
    ws = _weights(n_in, nh, seed)
    return SimpleNamespace(n_in=n_in, nh=nh, inp=inp, targ=targ, ws=ws, say=f"with n_in="
                           f"{n_in}, nh={nh}", ws_copy={k: t.clone() for k, t in ws.items()})


def _build(make_sequential, c, built: list) -> nn.Sequential:
    seq = call_answer(make_sequential, *c.ws.values(), what="your make_sequential", keep=c.ws,
                      mistakes=SEQUENTIAL, hint="make_sequential(w1, b1, w2, b2) gets our "
                      "weights, w1 shaped (n_in, nh); nn.Linear stores its weight as (out, in)")
    if not isinstance(seq, nn.Sequential):
        raise CheckFailed(f"make_sequential should return an nn.Sequential, not {a_type(seq)}")
    linears, params = [m for m in seq if isinstance(m, nn.Linear)], list(seq.parameters())
    if len(linears) != 2 or len(params) != 4:
        raise CheckFailed("the model should hold two nn.Linear layers (with a ReLU between "
                          "them) and so register 4 parameters")
    old = {id(p) for m in built for p in m.parameters()}
    if any(seq is m for m in built) or any(id(p) in old for p in params):
        raise CheckFailed(
            f"{c.say}, make_sequential returned "
            + ("the model it returned for an earlier call" if any(seq is m for m in built)
               else "a model that shares parameters with the model of an earlier call")
            + ": each call should build a new model holding the weights passed in (a "
              "cached model keeps the old weights, and training one trains the other)")
    ours = dict(zip(_NAMES, (linears[0].weight.t(), linears[0].bias, linears[1].weight.t(),
                             linears[1].bias)))
    for name, p in ours.items():
        if p.shape != c.ws[name].shape:
            raise CheckFailed(f"{c.say}, {name}: the layer's parameter, in our layout, has "
                              f"shape {tuple(p.shape)}, ours has {tuple(c.ws[name].shape)}")
    if not all(p.requires_grad for p in params):
        raise CheckFailed("a parameter of your model has requires_grad=False, so training "
                          "could not update it; leave nn.Linear's parameters as they are created")
    return seq


def _seq_trial(make_sequential, c, built: list) -> dict[str, torch.Tensor]:
    seq = _build(make_sequential, c, built)
    built.append(seq)
    out = call_answer(seq, c.inp, what="your model",
                      hint="the model is called on a batch (N, n_in)")
    expect_tensor(out, f"{c.say} your model's output", (len(c.inp), 1))
    call_answer(lambda: nn.MSELoss()(out.squeeze(-1), c.targ).backward(),
                what="a backward through your model")
    lin1, lin2 = [m for m in seq if isinstance(m, nn.Linear)]
    params = [lin1.weight, lin1.bias, lin2.weight, lin2.bias]
    got = {"out": out.detach(), **dict(zip(_NAMES, (p.grad if i % 2 else p.grad.t()
                                                     for i, p in enumerate(params))))}
    with torch.no_grad():  # one SGD step on the model
        for p in params:
            p -= 0.1 * p.grad
    if any(not torch.equal(t, c.ws_copy[k]) for k, t in c.ws.items()):
        raise CheckFailed("a step on the model changed the weights passed in: the model shares "
                          "their memory; copy them into its own parameters (copy_ under "
                          "torch.no_grad())")
    return got


@exercise_check
def check_sequential(make_sequential) -> str:
    """Exercise 2: an `nn.Sequential` owning copies of our weights, (out, in): 5 -> 7, 3 -> 9,
    6 -> 6 (a missing transpose keeps the shapes), 5 -> 7 again (a new model each call)."""
    cases, built, worked = [_seq_case(*case) for case in SEQUENTIAL_CASES], [], []

    def trial(c):
        try:
            got = _seq_trial(make_sequential, c, built)
        except CheckFailed as e:
            other = [f"{s}, as in an earlier case," for s in worked if s != (c.n_in, c.nh)]
            if not (other and isinstance(e.__cause__, RuntimeError) and any(
                    t in str(e.__cause__) for t in ("size", "shape"))):
                other = [f"{NOTEBOOK_SIZES}, the notebook's,"] if not worked and _works(
                    make_sequential) else []
            if other:
                raise CheckFailed(
                    f"your make_sequential works for w1 of shape {other[0]} but not for w1 of "
                    f"shape {(c.n_in, c.nh)}\nAre the sizes written in? Take them from the "
                    f"weights: (n_in, nh), n_out = w1.shape, w2.shape[1]", "sizes",
                    frames=e.learner_frames) from None
            raise
        worked.append((c.n_in, c.nh))
        return got

    judge(cases, trial, _network, lambda c, _: f"{c.say} your model differs from lin -> relu -> "
          "lin with the weights passed in", SEQUENTIAL, make_sequential)
    return "your nn.Sequential matches our network, gradients too, and owns its weights"


def _works(make_sequential) -> bool:
    """True when the answer passes a case of the notebook's own sizes."""
    c = _seq_case(0, *NOTEBOOK_SIZES)
    try:
        return compare(_seq_trial(make_sequential, c, []), _network(c)).ok
    except CheckFailed:
        return False


# ---------------------------------------------------------------- exercise 3
# (seed, shape, dtype): a matrix, a vector in float32, a 3-d tensor
TANH_CASES = ((3, (6, 4), torch.float64), (4, (7,), torch.float32), (5, (2, 3, 4), torch.float64))


def _tanh_case(seed, shape, dtype):
    g = torch.Generator().manual_seed(seed)
    x = 2 * torch.randn(shape, generator=g, dtype=dtype)
    up = torch.randn(shape, generator=g, dtype=dtype)   # dL/d(out)
    return SimpleNamespace(x=x, up=up, t=torch.tanh(x.double()), u=up.double(), dtype=dtype,
                           say=f"on a {dtype} tensor of shape {shape}")


TANH = [
    Mistake("no_up", "you left out out_g, the gradient backward receives",
            gives=lambda c: {"inp": 1 - c.t ** 2}),
    Mistake("input", "you wrote the derivative with the input, 1 - inp**2",
            gives=lambda c: {"inp": c.u * (1 - c.x.double() ** 2)}),
    Mistake("identity", "you returned out_g without tanh's derivative",
            gives=lambda c: {"inp": c.u}),
    Mistake("sigmoid", "you used the sigmoid's derivative, out * (1 - out)",
            gives=lambda c: {"inp": c.u * c.t * (1 - c.t)}),
    Mistake("tanh_twice", "you took tanh of the saved output again: it is tanh(inp) already",
            gives=lambda c: {"inp": c.u * (1 - torch.tanh(c.t) ** 2)}),
    Mistake("inplace", "forward changed inp in place; change no tensor in place: use "
            "torch.tanh(inp)", raises=(RuntimeError, "returned as-is as output"),
            seen=lambda a: code_uses(a, attr=r"[a-z]+_")),
    Mistake("saved_tuple", "ctx.save_for_backward takes tensors, not the tuple `inputs`: "
            "unpack it, (inp,) = inputs, or save the output",
            raises=(TypeError, "save_for_backward can only save")),
    *(Mistake(f"nothing_saved:{kind.__name__}", "Nothing was saved, so ctx.saved_tensors is "
              "empty in backward: save the output with ctx.save_for_backward in setup_context "
              "(or in forward)", raises=(kind, text),
              seen=lambda a: not code_uses(a, attr="save_for_backward"))
      for kind, text in ((ValueError, "not enough values"), (IndexError, "out of range"))),
]


def _tanh_trial(TanhFn, c) -> dict[str, torch.Tensor]:
    x = c.x.clone().requires_grad_()
    out = call_answer(TanhFn.apply, x, what="TanhFn.apply(x)", mistakes=TANH, code=TanhFn,
                      hint="TanhFn.apply(x) calls forward(x) when TanhFn has a setup_context, "
                           "forward(ctx, x) when it has none", keep=dict(x=x))
    expect_tensor(out, f"what TanhFn.apply(x) returned {c.say}", tuple(x.shape))
    if out.dtype != x.dtype:
        raise CheckFailed(f"TanhFn.apply(x) returned {out.dtype} for a {c.dtype} x; tanh keeps "
                          "its input's dtype: compute torch.tanh(inp) as it is")
    expect_close({"out": out}, {"out": c.t.to(c.dtype)},
                 f"{c.say} your forward should return torch.tanh(inp)")
    if not out.requires_grad:
        raise CheckFailed("TanhFn.apply(x) returned a tensor that does not require grad, so no "
                          "backward can reach your backward: return the result of forward as it is")
    up = c.up.clone()
    call_answer(lambda: out.backward(up), what="your backward", mistakes=TANH, code=TanhFn,
                hint="backward(ctx, out_g) receives the gradient of the output and returns "
                     "the gradient of inp", keep=dict(out=out, out_g=up))  # up is its out_g
    if x.grad is None:
        raise CheckFailed("your backward returned None: return the gradient of inp")
    return {"inp": x.grad}


def _tanh_two_calls(TanhFn) -> None:
    """Two applies, then one backward: each call's backward must use its own saved tensors."""
    g = torch.Generator().manual_seed(7)
    a, b = ((2 * torch.randn(3, 5, generator=g, dtype=torch.float64)).requires_grad_()
            for _ in range(2))
    ua, ub = (torch.randn(3, 5, generator=g, dtype=torch.float64) for _ in range(2))
    call_answer(lambda: (TanhFn.apply(a) * ua + TanhFn.apply(b) * ub).sum().backward(),
                what="two calls of TanhFn.apply, then one backward,", mistakes=TANH, code=TanhFn)
    ta, tb = torch.tanh(a.detach()), torch.tanh(b.detach())
    if a.grad is None or b.grad is None:
        raise CheckFailed("after two calls of TanhFn.apply and one backward, a.grad or b.grad "
                          "is None: your backward should return the gradient of inp")
    ours, ref = {"a": a.grad, "b": b.grad}, {"a": ua * (1 - ta**2), "b": ub * (1 - tb**2)}
    swapped = {"a": ua * (1 - tb**2), "b": ub * (1 - ta**2)}
    if any(compare({n: ours[n]}, {n: swapped[n]}).ok and not compare({n: ours[n]},
                                                                      {n: ref[n]}).ok
           for n in ours):
        raise CheckFailed("after TanhFn.apply(a) and TanhFn.apply(b), then one backward, a "
                          "gradient was computed with the other call's output: keep what "
                          "backward needs in ctx (ctx.save_for_backward(out)), which belongs to "
                          "one call, not on the class or in a global", "class_state")
    expect_close(ours, ref, "after TanhFn.apply(a) and TanhFn.apply(b), then one backward, "
                 "each input's gradient should be out_g * (1 - tanh(inp)**2) with its own "
                 "call's out_g and output")


@exercise_check
def check_tanh_fn(TanhFn) -> str:
    """Exercise 3: `TanhFn`, a `torch.autograd.Function` for tanh: three shapes, float64 and
    float32; two calls before one backward; gradcheck. What it saves, and how, is free."""
    if not (isinstance(TanhFn, type) and issubclass(TanhFn, torch.autograd.Function)):
        raise CheckFailed("TanhFn should be a class derived from "
                          f"torch.autograd.Function, but it is {a_type(TanhFn)}")
    judge([_tanh_case(*c) for c in TANH_CASES], lambda c: _tanh_trial(TanhFn, c),
          lambda c: {"inp": (c.u * (1 - c.t ** 2)).to(c.dtype)},
          lambda c, _: f"{c.say} your backward should return out_g * (1 - out**2)", TANH, TanhFn)
    _tanh_two_calls(TanhFn)
    x = torch.randn(2, 3, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    ok = call_answer(lambda: torch.autograd.gradcheck(
        TanhFn.apply, (x.requires_grad_(),), raise_exception=False),
        what="gradcheck on your TanhFn")
    if not ok:
        raise CheckFailed("gradcheck disagrees with your backward on a float64 tensor")
    return "TanhFn matches torch.tanh and its gradient, and passes gradcheck"
