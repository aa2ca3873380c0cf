"""Checks for the exercises of notebook 07: DynamicNets of their own from seeded
generators; Python's `random` seeded by the checks and put back afterwards."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import torch
import torch._dynamo  # noqa: F401 -- what torch imports at the first checkpoint: paid here
from torch import nn
from torch.utils.checkpoint import checkpoint

from helpers.checks import (
    CheckFailed,
    Mistake,
    call_answer,
    code_uses,
    describe,
    exercise_check,
    expect_unchanged,
    judge,
    param_grads,
    snapshot,
)
from helpers.ddp import DynamicNet

__all__ = ["DynamicNet", "check_checkpointed", "check_ddp_grad", "checkpoint", "nn",
           "random", "torch"]

def _build(seed: int, sizes: tuple[int, int, int], rows=(4,)):
    """A DynamicNet and one (inputs, targets) batch per entry of `rows`, from torch's
    generator seeded `seed` (the learner's torch random state is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = DynamicNet(*sizes)
        return net, [(torch.randn(n, sizes[0]), torch.randn(n, sizes[2])) for n in rows]


# --------------------------------------------------------------------------- exercise 1
# (seed of `random` and the depth it draws) for the first call, then for the second, on one
# net of (D_in, H, D_out): every depth; the second call's depth is the smaller, so a rerun
# that reads it instead of its own call's is caught. At seed 4 a second draw gives 2.
_CASES = [((4, 1), (2, 0), (6, 5, 2)), ((9, 3), (5, 2), (7, 4, 3))]
_NO_INPUT = "None of the inputs have requires_grad=True"
_INSIDE = ("Here the depth is drawn inside the checkpointed function, so the rerun in backward "
           "draws another one (section 1): draw it once, before checkpoint")


def _middle(net, h, depth):
    for _ in range(depth):
        h = net.middle_linear(h).clamp(min=0)
    return h


def _reference(c, detach=False):
    """Both calls' outputs and the gradients of their summed loss, the plain forward at each
    call's depth (`detach`: input_linear's output cut)."""
    net, [(x, y)] = _build(c.seeds[0], c.sizes)
    outs = []
    for depth in c.depths:
        h = net.input_linear(x).clamp(min=0)
        outs.append(net.output_linear(_middle(net, h.detach() if detach else h, depth)))
    sum(((o - y) ** 2).sum() for o in outs).backward()
    return {"first call's output": outs[0].detach(), "second call's output": outs[1].detach(),
            **param_grads(net)}


def _detached(c):
    """input_linear's output detached: no gradient reaches input_linear, and the reentrant
    kind, given no input that requires grad, returns an output that requires none."""
    if c.kind and c.depths[0]:
        raise RuntimeError("no input of checkpoint requires grad")
    return _reference(c, detach=True)


CHECKPOINTED = [
    Mistake("detached", "input_linear's output was cut from the graph (detach() or no_grad), "
            "so input_linear got no gradient", gives=_detached),
    Mistake("global", "the rerun in backward read the depth your second call wrote into "
            "a global: keep each call's depth in the call (a local the checkpointed function "
            "closes over, or an argument)", raises=(RuntimeError, "number of tensors"),
            seen=lambda a: code_uses(a, op="STORE_GLOBAL")),
    Mistake("order", "a tensor was called like a module: the arguments come in the order (net, "
            "x, use_reentrant)", raises=(TypeError, "'Tensor' object is not callable")),
]


def _call(answer, net, x, y, c, seed, depth, calls, others):
    """One call after random.seed(seed): its output, checked (one draw, the uses, the kind),
    and whether it bypassed the module (the output right, middle_linear never called)."""
    what = f"your forward_checkpointed(net, x, use_reentrant={c.kind}) after random.seed({seed})"
    random.seed(seed)
    assert random.randint(0, 3) == depth, "the check's own cases are off"
    drawn = random.getstate()
    random.seed(seed)
    fresh, n0, m0 = random.getstate(), len(calls), len(others)
    seen: list = []
    out = call_answer(answer, net, x, c.kind, what=what, mistakes=CHECKPOINTED, warned=seen,
                      hint="it is called as forward_checkpointed(net, x, use_reentrant): net is "
                           "a DynamicNet, x a batch of inputs, use_reentrant True or False; it "
                           "returns net's output")
    if not isinstance(out, torch.Tensor):
        raise CheckFailed(f"{what} should return net's output, a tensor, but it returned "
                          f"{describe(out)}")
    if out.shape != y.shape:
        raise CheckFailed(f"{what} returned a tensor of shape {tuple(out.shape)}; net(x) gives "
                          f"{tuple(y.shape)}, output_linear's output")
    now = random.getstate()
    if now != drawn:
        raise CheckFailed(f"{what} drew nothing from Python's random: draw the depth as "
                          f"DynamicNet does, random.randint(0, 3), once a call"
                          if now == fresh else
                          f"{what} did not draw from Python's random as one "
                          f"random.randint(0, 3) does: draw the depth so, once a call")
    ran = len(calls) - n0
    with torch.no_grad():   # the plain forward's output, though middle_linear never ran as a
        bypassed = depth and not ran and not len(others) > m0 and torch.allclose(   # module
            out, net.output_linear(_middle(net, net.input_linear(x).clamp(min=0), depth)))
    if ran != depth and len(others) > m0:
        raise CheckFailed(f"{what} ran the middle_linear of another net, not the one it was "
                          f"given: run net.middle_linear depth times, on the net passed in")
    if ran != depth and not bypassed:
        did = ("never ran middle_linear" if not ran else "ran middle_linear "
               + {1: "once", 2: "twice"}.get(ran, f"{ran} times"))
        raise CheckFailed(f"{what} {did}, but random.randint(0, 3) drew depth {depth}: run it "
                          f"depth times")
    if c.kind and any(_NO_INPUT in str(w.message) for w in seen):
        raise CheckFailed(f"{what}: no input of checkpoint required grad\nWith "
                          f"use_reentrant=True, checkpoint's output requires grad only if an "
                          f"input does, and x does not: checkpoint from input_linear's output")
    if not out.requires_grad:
        raise CheckFailed(f"{what} returned an output that does not require grad: was it "
                          f"computed under torch.no_grad()?")
    if depth and _has_node(out, "CheckpointFunctionBackward") != c.kind:
        raise CheckFailed(f"{what} ran the {'non-reentrant' if c.kind else 'reentrant'} kind "
                          f"of checkpoint (its graph {'has no' if c.kind else 'has a'} "
                          f"CheckpointFunctionBackward node): pass use_reentrant=use_reentrant "
                          f"on to checkpoint")
    return out, bypassed


def _has_node(out: torch.Tensor, name: str) -> bool:
    seen, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(f for f, _ in node.next_functions)
    return any(node.name() == name for node in seen)


def _ckpt_trial(answer, c):
    # torch 2.9's non-reentrant checkpoint leaves its saved-tensor hooks pushed when the
    # checkpointed function raised, until the generator holding them is collected: an
    # earlier failed attempt would run its function in this rerun. Collect it first.
    gc.collect()
    net, [(x, y)] = _build(c.seeds[0], c.sizes)
    calls, others = [], []
    mine = set(net.modules())
    with (net.middle_linear.register_forward_pre_hook(lambda m, i: calls.append(1)),
          nn.modules.module.register_module_forward_hook(
              lambda m, i, o: others.append(m) if isinstance(m, nn.Linear) and m not in mine
              else None)):
        before = snapshot(net=net, x=x)
        outs, bypassed = zip(*(_call(answer, net, x, y, c, seed, depth, calls, others)
                               for seed, depth in zip(c.seeds, c.depths)))
        state, n0 = random.getstate(), len(calls)
        try:
            call_answer(lambda: sum(((o - y) ** 2).sum() for o in outs).backward(),
                        what=f"{c.what}, one backward through both outputs,",
                        mistakes=CHECKPOINTED, code=answer)
        except CheckFailed as e:
            if random.getstate() != state:
                raise CheckFailed(f"{c.what}: backward raised {type(e.__cause__).__name__}, and "
                                  f"drew from Python's random again\n{_INSIDE}", "inside") from None
            raise
        if random.getstate() != state:
            raise CheckFailed(f"{c.what}: backward drew from Python's random again\n{_INSIDE}",
                              "inside")
        again = len(calls) - n0
        if any(bypassed):
            raise CheckFailed(f"{c.what} never called net.middle_linear: call it as a module, "
                              f"net.middle_linear(h); the check counts its calls")
        if sum(c.depths) and not again and net.middle_linear.weight.grad is None:
            raise CheckFailed(f"{c.what}: middle_linear ran in the forward, but the outputs do "
                              f"not depend on it: was what checkpoint returned used?")
        if sum(c.depths) and not again:
            raise CheckFailed(f"{c.what}: backward never ran middle_linear again, so its uses "
                              f"are not under checkpoint; run them in checkpoint(f, h, ..., "
                              f"use_reentrant=use_reentrant)")
        if again < sum(c.depths):
            raise CheckFailed(f"{c.what}: backward ran middle_linear again {again} of its "
                              f"{sum(c.depths)} uses; put every use under checkpoint")
        expect_unchanged(before, c.what, allow=("*.grad",))
    return {"first call's output": outs[0].detach(), "second call's output": outs[1].detach(),
            **param_grads(net)}


@exercise_check
def check_checkpointed(forward_checkpointed: Callable[..., Any]) -> str:
    """Exercise 1: `forward_checkpointed(net, x, use_reentrant)`, middle_linear's uses under
    `checkpoint`: two calls (two seeds, two depths) before one backward, both kinds."""
    state = random.getstate()
    cases = [SimpleNamespace(seeds=(a[0], b[0]), depths=(a[1], b[1]), sizes=sizes, kind=kind,
                             what=f"your forward_checkpointed(net, x, use_reentrant={kind}) "
                                  f"after random.seed({a[0]}) and random.seed({b[0]})")
             for a, b, sizes in _CASES for kind in (False, True)]
    try:
        judge(cases, lambda c: _ckpt_trial(forward_checkpointed, c), _reference,
              lambda c, _: f"{c.what} does not give net(x)'s outputs and gradients at depths "
                           f"{c.depths[0]} and {c.depths[1]}", CHECKPOINTED, forward_checkpointed)
    finally:
        random.setstate(state)
    return ("net(x)'s output and gradients at every depth, both kinds, with the middle rerun "
           "in backward")


# --------------------------------------------------------------------------- exercise 2
# (depth of each rank, rows of each rank, (D_in, H, D_out)): three ranks that all use
# middle_linear (a hard-coded 2 shows); a rank at depth 0 (dividing by the ranks that used
# it shows); rank 0 at depth 0, two ranks, another size. Batch sizes differ between ranks.
_DDP_CASES = [((1, 3, 2), (4, 3, 5), (6, 5, 2)), ((2, 0, 1), (5, 4, 3), (6, 5, 2)),
              ((0, 2), (6, 2), (7, 4, 3))]
_DDP_SEED = 7      # the seed of `random` while the answer runs: its draws are not the depths


def _own(net, x, y, depth, mean=False) -> torch.Tensor:
    """One rank's own gradient of middle_linear.weight (zeros at depth 0), from the summed
    loss (`mean`: the mean of the squared errors)."""
    errors = (net.output_linear(_middle(net, net.input_linear(x).clamp(min=0), depth)) - y) ** 2
    w = net.middle_linear.weight
    g, = torch.autograd.grad(errors.mean() if mean else errors.sum(), w, allow_unused=True)
    return torch.zeros_like(w) if g is None else g


def _ddp_case(i, depths, rows, sizes):
    net, batches = _build(200 + i, sizes, rows)
    own = [_own(net, x, y, d) for (x, y), d in zip(batches, depths)]
    means = [_own(net, x, y, d, mean=True) for (x, y), d in zip(batches, depths)]
    return SimpleNamespace(i=i, depths=list(depths), rows=rows, sizes=sizes, n=len(rows),
                           own=own, total=sum(own), means=means,
                           one=_own(net, *(torch.cat(part) for part in zip(*batches)), depths[0]),
                           what=f"your ddp_grad(model, batches, depths={list(depths)})")


def _g(value):
    return {"middle_linear.weight.grad": value}


def _one(c, n=1):
    if not c.depths[0]:
        raise RuntimeError("rank 0 at depth 0: middle_linear not used in the graph")
    return _g(c.one / n)


DDP = [
    Mistake("summed", "you summed the ranks' gradients without dividing by the number of "
            "ranks", gives=lambda c: _g(c.total)),
    Mistake("mean_loss", "each rank's loss was the mean of the squared errors; the ranks here "
            "sum them, as the notebook does", gives=lambda c: _g(sum(c.means) / c.n)),
    Mistake("twice", "you divided by the number of ranks twice (in each loss and again at the "
            "end)", gives=lambda c: _g(c.total / c.n ** 2)),
    Mistake("used", "you divided by the ranks that used middle_linear; DDP divides by all of "
            "them (a rank that skipped it adds zeros)",
            gives=lambda c: _g(c.total / sum(d > 0 for d in c.depths))),
    Mistake("two", "you divided by 2, not by the number of ranks, len(batches)",
            gives=lambda c: _g(c.total / 2)),
    Mistake("rows", "you divided by the number of rows, not by the number of ranks",
            gives=lambda c: _g(c.total / sum(c.rows))),
    Mistake("weighted", "you weighted each rank by its share of the rows; DDP gives every rank "
            "the same weight, 1/len(batches)",
            gives=lambda c: _g(sum(g * r for g, r in zip(c.own, c.rows)) / sum(c.rows))),
    Mistake("one_batch", "you ran all the ranks' rows as one batch at rank 0's depth; each "
            "rank runs its own rows at its own depth", gives=_one),
    Mistake("one_batch_divided", "you ran all the ranks' rows as one batch at rank 0's depth, "
            "then divided; each rank runs its own rows at its own depth",
            gives=lambda c: _one(c, c.n)),
    Mistake("rank_0", "you returned rank 0's own gradient; DDP gives every rank the mean over "
            "the ranks", gives=lambda c: _g(c.own[0]) if c.depths[0] else _one(c)),
    Mistake("last_rank", "you returned the last rank's own gradient; DDP gives every rank the "
            "mean over the ranks", gives=lambda c: _g(c.own[-1])),
    Mistake("unused", "a rank at depth 0 never uses middle_linear, so autograd.grad refuses: "
            "pass allow_unused=True (it gives None, which counts as zeros)",
            raises=(RuntimeError, "appears to not have been used in the graph")),
    Mistake("none", "a rank at depth 0 never uses middle_linear, so it has no gradient of its "
            "own (None): count it as zeros", raises=((TypeError, AttributeError), "NoneType")),
    Mistake("size", "a tensor of a fixed shape met middle_linear.weight's gradient: make it of "
            "the weight's shape (e.g. torch.zeros_like(w)), whatever the net",
            raises=(RuntimeError, "must match the size of tensor")),
    Mistake("not_model", "something other than the model was used as one: the arguments come "
            "in the order (model, batches, depths)",
            raises=(AttributeError, "object has no attribute 'middle_linear'")),
    Mistake("process_group", "DDP needs a process group: compute here, in one process and "
            "without DDP, what DDP gives every rank",
            raises=(ValueError, "process group has not been initialized")),
]


def _ddp_trial(answer, c):
    net, batches = _build(200 + c.i, c.sizes, c.rows)
    before = snapshot(model=net, batches=batches)
    random.seed(_DDP_SEED)
    drew = random.getstate()
    out = call_answer(answer, net, batches, list(c.depths), what=c.what, mistakes=DDP,
                      hint="it is called as ddp_grad(model, batches, depths): model is a "
                           "DynamicNet, batches a list of (x, y) pairs, depths a list of ints, "
                           "one of each a rank")
    if not isinstance(out, torch.Tensor):
        raise CheckFailed(f"{c.what} should return a tensor, middle_linear.weight's gradient, "
                          f"but it returned {describe(out)}")
    h = c.sizes[1]
    if out.shape != (h, h):
        raise CheckFailed(f"{c.what} returned a tensor of shape {tuple(out.shape)}; "
                          f"middle_linear.weight, and its gradient, have shape {(h, h)}")
    expect_unchanged(before, c.what, grad="leave every .grad as it was, None: "
                     "torch.autograd.grad writes none, and model.zero_grad() sets them back")
    if random.getstate() != drew:
        raise CheckFailed(f"{c.what} drew from Python's random (model(x) draws a depth): run "
                          f"rank r at its depth, model(x, depths[r])")
    return _g(out.detach())


@exercise_check
def check_ddp_grad(ddp_grad: Callable[..., Any]) -> str:
    """Exercise 2: `ddp_grad(model, batches, depths)`, the middle_linear.weight.grad every rank
    holds under DDP (find_unused_parameters=True): three sets of ranks, one at depth 0."""
    state = random.getstate()
    try:
        judge([_ddp_case(i, *case) for i, case in enumerate(_DDP_CASES)],
              lambda c: _ddp_trial(ddp_grad, c), lambda c: _g(c.total / c.n),
              lambda c, _: f"{c.what} does not give what DDP gives every rank", DDP, ddp_grad)
    finally:
        random.setstate(state)
    return "every rank's middle_linear.weight.grad: the mean over all ranks, zeros counted"
