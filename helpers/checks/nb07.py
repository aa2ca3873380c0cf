"""Checks for the exercises of notebook 07, DynamicNet checkpointed and on two processes.

The checks build their own small `DynamicNet`s from seeded generators, seed Python's
`random` themselves (and put the learner's random state back afterwards), and run no
process: they take milliseconds.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from helpers.checks._old import (
    CheckFailed,
    _describe,
    _first_sentence,
    call_answer,
    exercise_check,
    expect_close,
    expect_model_unchanged,
    expect_unchanged,
    passed,
    snapshot,
    snapshot_model,
)
from helpers.ddp import DynamicNet

__all__ = ["DynamicNet", "check_checkpointed", "check_ddp_grad", "checkpoint", "nn",
           "random", "torch"]

# (seed of `random`, the depth it draws, (D_in, H, D_out)): every depth, two sizes; at
# seed 4 a second draw gives another depth (2), at seed 5 random.randint(0, 4) gives 4.
_CASES = [(4, 1, (6, 5, 2)), (9, 3, (7, 4, 3)), (2, 0, (6, 5, 2)), (5, 2, (7, 4, 3))]
_PARAMS = ("input_linear.weight", "input_linear.bias", "middle_linear.weight",
           "middle_linear.bias", "output_linear.weight", "output_linear.bias")


def _build(seed: int, sizes: tuple[int, int, int]):
    """A DynamicNet, inputs and targets, from torch's generator seeded `seed` (the
    learner's torch random state is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(100 + seed)
        net = DynamicNet(*sizes)
        x = torch.randn(4, sizes[0])
        y = torch.randn(4, sizes[2])
    return net, x, y


def _grads(net: nn.Module, loss: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Every parameter's gradient (zeros where there is none): from `loss` by
    autograd.grad, or (no loss) from `.grad`."""
    params = dict(net.named_parameters())
    if loss is None:
        got = [params[n].grad for n in _PARAMS]
    else:
        got = torch.autograd.grad(loss, [params[n] for n in _PARAMS], allow_unused=True)
    return {n: torch.zeros_like(params[n]) if g is None else g.detach()
            for n, g in zip(_PARAMS, got)}


def _reference(net: nn.Module, x, y, depth: int, detach: bool = False) -> dict[str, Any]:
    """The output and gradients of `net(x, depth)`, the plain forward (`detach`: with
    input_linear's output detached, a diagnosed mistake)."""
    h = net.input_linear(x).clamp(min=0)
    h = h.detach() if detach else h
    for _ in range(depth):
        h = net.middle_linear(h).clamp(min=0)
    out = net.output_linear(h)
    return {"output": out.detach(), **_grads(net, ((out - y) ** 2).sum())}


def _has_node(out: torch.Tensor, name: str) -> bool:
    """Whether `out`'s graph holds a node called `name`."""
    seen, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node.name() == name:
            return True
        stack.extend(f for f, _ in node.next_functions)
    return False


_NO_INPUT = "None of the inputs have requires_grad=True"
_FROM_X = ("With use_reentrant=True, checkpoint's output requires grad only if an input "
           "does, and x does not: checkpoint from input_linear's output")
_SECTION_1 = ("the depth is drawn inside the checkpointed function, so the rerun in "
              "backward draws another one (section 1): draw it once, before checkpoint")


@exercise_check
def check_checkpointed(forward_checkpointed: Callable[..., Any]) -> None:
    """Exercise 1: `forward_checkpointed(net, x, use_reentrant)`, DynamicNet's forward
    with the uses of `middle_linear` under `checkpoint`.

    Requires: the output of `net(x)`, where the depth is drawn as DynamicNet draws it
    (one `random.randint(0, 3)` a call), and every parameter's gradient through it
    equal to the plain forward's at that depth; backward draws nothing more from
    `random` and runs `middle_linear` again, once per use (its uses are under
    checkpoint); with `use_reentrant=True` the reentrant kind runs (its graph has a
    CheckpointFunctionBackward node), with False the non-reentrant kind (none); the
    net (parameters, hooks, attributes) and `x` are left as they were.
    Cases: seeds of `random` giving each depth 0 to 3, two sizes of net, both kinds.
    Leaves free: checkpointing the middle part as one call or each use on its own,
    or (non-reentrant only) more of the forward; a closure or an argument for the
    depth; `clamp(min=0)` or `relu()`; `random.randint(0, 3)` or
    `random.choice(range(4))`; the middle layer must be called as a module,
    `net.middle_linear(h)` (the check counts its calls).
    """
    state = random.getstate()
    try:
        for seed, depth, sizes in _CASES:
            for kind in (False, True):
                _one_case(forward_checkpointed, seed, depth, sizes, kind)
    finally:
        random.setstate(state)
    passed("net(x)'s output and gradients at every depth, both kinds, with the middle "
           "rerun in backward")


def _one_case(answer: Callable[..., Any], seed: int, depth: int,
              sizes: tuple[int, int, int], kind: bool) -> None:
    net, x, y = _build(seed, sizes)
    calls: list[bool] = []
    handle = net.middle_linear.register_forward_pre_hook(lambda m, i: calls.append(True))
    try:
        random.seed(seed)
        assert random.randint(0, 3) == depth, "the check's own cases are off"
        drawn_once = random.getstate()
        ref = _reference(net, x, y, depth)
        before, data = snapshot_model(net), snapshot(x=x)
        what = (f"your forward_checkpointed(net, x, use_reentrant={kind}) after "
                f"random.seed({seed})")
        random.seed(seed)
        calls.clear()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = call_answer(answer, net, x, kind, what=what,
                              hint="it is called as forward_checkpointed(net, x, "
                                   "use_reentrant): net is a DynamicNet, x a batch of inputs, "
                                   "use_reentrant True or False; it returns net's output",
                              errors={(TypeError, "'Tensor' object is not callable"):
                                      "a tensor was called like a module: the arguments come "
                                      "in the order (net, x, use_reentrant)"})
        for w in seen:   # passed on, for exercise_check to judge
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        no_input = any(_NO_INPUT in str(w.message) for w in seen)
        _expect_output(out, x, y, what)
        _expect_one_draw(drawn_once, seed, what)
        forward_calls = len(calls)
        bypassed = forward_calls == 0 and depth and torch.allclose(out, ref["output"])
        if forward_calls == 0 and depth and not bypassed:
            raise CheckFailed(f"{what} never called the middle_linear of the net it was "
                              f"given, but random.randint(0, 3) drew depth {depth}: run "
                              f"net.middle_linear depth times, on the net passed in")
        if forward_calls != depth and not bypassed:
            raise CheckFailed(f"{what} ran middle_linear {forward_calls} times, but "
                              f"random.randint(0, 3) drew depth {depth}: run it depth "
                              f"times")
        if kind and no_input:
            raise CheckFailed(f"{what}: no input of checkpoint required grad\n{_FROM_X}")
        if not out.requires_grad:
            raise CheckFailed(f"{what} returned an output that does not require grad: "
                              f"was it computed under torch.no_grad()?")
        if depth and _has_node(out, "CheckpointFunctionBackward") != kind:
            ran = "reentrant" if kind is False else "non-reentrant"
            raise CheckFailed(f"{what} ran the {ran} kind of checkpoint (its graph "
                              f"{'has a' if kind is False else 'has no'} "
                              f"CheckpointFunctionBackward node): pass "
                              f"use_reentrant=use_reentrant on to checkpoint")
        _expect_backward(out, y, what, calls, forward_calls, depth)
        expect_unchanged(data, what, g=False)
        expect_model_unchanged(before, net, what)
        mistakes = {"input_linear's output was cut from the graph (detach() or no_grad), "
                    "so input_linear got no gradient":
                    _reference(net, x, y, depth, detach=True)}
        expect_close({"output": out.detach(), **_grads(net)}, ref,
                     f"{what} does not give net(x)'s output and gradients at depth "
                     f"{depth}", mistakes=mistakes)
    finally:
        handle.remove()


def _expect_output(out: Any, x: torch.Tensor, y: torch.Tensor, what: str) -> None:
    if not isinstance(out, torch.Tensor):
        raise CheckFailed(f"{what} should return net's output, a tensor, but it returned "
                          f"{_describe(out)}")
    if out.shape != y.shape:
        raise CheckFailed(f"{what} returned a tensor of shape {tuple(out.shape)}; net(x) "
                          f"gives {tuple(y.shape)}, output_linear's output")


def _expect_one_draw(drawn_once: tuple, seed: int, what: str) -> None:
    """Python's random is where one random.randint(0, 3) leaves it."""
    now = random.getstate()
    if now == drawn_once:
        return
    random.seed(seed)
    if now == random.getstate():
        raise CheckFailed(f"{what} drew nothing from Python's random: draw the depth as "
                          f"DynamicNet does, random.randint(0, 3), once a call")
    raise CheckFailed(f"{what} did not draw from Python's random as one "
                      f"random.randint(0, 3) does: draw the depth so, once a call")


def _expect_backward(out: torch.Tensor, y: torch.Tensor, what: str, calls: list,
                     forward_calls: int, depth: int) -> None:
    """Backward runs, draws nothing from random, and runs middle_linear again."""
    before = random.getstate()
    try:
        ((out - y) ** 2).sum().backward()
    except RuntimeError as e:
        if random.getstate() != before:
            raise CheckFailed(f"{what}: backward raised {type(e).__name__}, and drew "
                              f"from Python's random again\nHere {_SECTION_1}") from None
        raise CheckFailed(f"{what}: backward through its output raised "
                          f"{type(e).__name__}: {_first_sentence(str(e))}") from None
    if random.getstate() != before:
        raise CheckFailed(f"{what}: backward drew from Python's random again\n"
                          f"Here {_SECTION_1}")
    again = len(calls) - forward_calls
    if depth and forward_calls == 0:
        raise CheckFailed(f"{what} never called net.middle_linear: call it as a module, "
                          f"net.middle_linear(h); the check counts its calls")
    if depth and again == 0:
        raise CheckFailed(f"{what}: backward never ran middle_linear again, so its uses "
                          f"are not under checkpoint; run them in checkpoint(f, h, ..., "
                          f"use_reentrant=use_reentrant)")
    if again < depth:
        raise CheckFailed(f"{what}: backward ran middle_linear again {again} of its "
                          f"{depth} uses; put every use under checkpoint")


# Exercise 2: (depth of each rank, rows of each rank, (D_in, H, D_out)). The first case
# has three ranks that all use middle_linear (a hard-coded 2 shows); the second a rank
# at depth 0 (dividing by the ranks that used it shows); the third rank 0 at depth 0,
# two ranks, another size. Batch sizes differ between ranks.
_DDP_CASES = [((1, 3, 2), (4, 3, 5), (6, 5, 2)), ((2, 0, 1), (5, 4, 3), (6, 5, 2)),
              ((0, 2), (6, 2), (7, 4, 3))]
_DDP_SEED = 7      # the seed of `random` while the answer runs: its draws are not the depths


def _ddp_build(case: int, sizes: tuple[int, int, int], rows: tuple[int, ...]):
    """A DynamicNet and one (inputs, targets) batch a rank, from a seeded generator (the
    learner's torch random state is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(200 + case)
        net = DynamicNet(*sizes)
        batches = [(torch.randn(n, sizes[0]), torch.randn(n, sizes[2])) for n in rows]
    return net, batches


def _own_grad(net: nn.Module, x: torch.Tensor, y: torch.Tensor, depth: int,
              mean: bool = False) -> torch.Tensor:
    """One rank's own gradient of middle_linear.weight (zeros at depth 0), from the
    notebook's summed loss (`mean`: the mean of the squared errors, a diagnosed mistake)."""
    h = net.input_linear(x).clamp(min=0)
    for _ in range(depth):
        h = net.middle_linear(h).clamp(min=0)
    errors = (net.output_linear(h) - y) ** 2
    w = net.middle_linear.weight
    g, = torch.autograd.grad(errors.mean() if mean else errors.sum(), w, allow_unused=True)
    return torch.zeros_like(w) if g is None else g


_NONE_GRAD = ("a rank at depth 0 never uses middle_linear, so it has no gradient of its "
              "own (None): count it as zeros")


@exercise_check
def check_ddp_grad(ddp_grad: Callable[..., Any]) -> None:
    """Exercise 2: `ddp_grad(model, batches, depths)`, the `middle_linear.weight.grad`
    every rank holds after one backward under DDP with find_unused_parameters=True, rank
    r running `((model(x, depths[r]) - y) ** 2).sum()` on `batches[r] = (x, y)`, computed
    in one process.

    Requires: the mean over all ranks of each rank's own gradient (zeros for a rank at
    depth 0); `model` left as it was (parameters, hooks, attributes) with no `.grad`
    written (every `.grad` is None before and after); the batches unchanged; nothing
    drawn from Python's `random`.
    Cases: three ranks all using the layer, three with one at depth 0, two with rank 0
    at depth 0; batch sizes that differ between ranks; two sizes of net. At least one
    rank uses middle_linear in every case (none would leave `.grad` None).
    Leaves free: autograd.grad (allow_unused or materialize_grads) or backward into
    `.grad` then cleared; a copy of the model; a sum then a division or a mean of
    stacked gradients; each loss divided by the number of ranks.
    """
    state = random.getstate()
    try:
        for case, (depths, rows, sizes) in enumerate(_DDP_CASES):
            _ddp_case(ddp_grad, case, list(depths), rows, sizes)
    finally:
        random.setstate(state)
    passed("every rank's middle_linear.weight.grad: the mean over all ranks, zeros "
           "counted")


def _ddp_case(answer: Callable[..., Any], case: int, depths: list[int],
              rows: tuple[int, ...], sizes: tuple[int, int, int]) -> None:
    net, batches = _ddp_build(case, sizes, rows)
    n, used = len(depths), sum(d > 0 for d in depths)
    own = [_own_grad(net, x, y, d) for (x, y), d in zip(batches, depths)]
    means = [_own_grad(net, x, y, d, mean=True) for (x, y), d in zip(batches, depths)]
    total = sum(own)
    ref = total / n
    before = snapshot_model(net)
    data = snapshot(**{f"batches[{r}][{i}]": t for r, batch in enumerate(batches)
                       for i, t in enumerate(batch)})
    what = f"your ddp_grad(model, batches, depths={depths})"
    random.seed(_DDP_SEED)
    drew = random.getstate()
    out = call_answer(
        answer, net, batches, depths, what=what,
        hint="it is called as ddp_grad(model, batches, depths): model is a DynamicNet, "
             "batches a list of (x, y) pairs, depths a list of ints, one of each a rank",
        errors={(RuntimeError, "appears to not have been used in the graph"):
                "a rank at depth 0 never uses middle_linear, so autograd.grad refuses: "
                "pass allow_unused=True (it gives None, which counts as zeros)",
                (TypeError, "NoneType"): _NONE_GRAD,
                (AttributeError, "'NoneType'"): _NONE_GRAD,
                (RuntimeError, "must match the size of tensor"):
                "a tensor of a fixed shape met middle_linear.weight's gradient: make it "
                "of the weight's shape (e.g. torch.zeros_like(w)), whatever the net",
                (AttributeError, "object has no attribute 'middle_linear'"):
                "something other than the model was used as one: the arguments come in the "
                "order (model, batches, depths)",
                (ValueError, "process group has not been initialized"):
                "DDP needs a process group: compute here, in one process and without "
                "DDP, what DDP gives every rank"})
    if not isinstance(out, torch.Tensor):
        raise CheckFailed(f"{what} should return a tensor, middle_linear.weight's "
                          f"gradient, but it returned {_describe(out)}")
    h = sizes[1]
    if out.shape != (h, h):
        raise CheckFailed(f"{what} returned a tensor of shape {tuple(out.shape)}; "
                          f"middle_linear.weight, and its gradient, have shape {(h, h)}")
    written = [name for name, p in net.named_parameters() if p.grad is not None]
    if written:
        raise CheckFailed(f"{what} left a tensor in model.{written[0]}.grad: leave "
                          f"every .grad as it was, None (torch.autograd.grad writes none; "
                          f"model.zero_grad() sets them back to None)")
    expect_model_unchanged(before, net, what, values=False)
    changed = [n for n, (p, value, *_) in before["params"].items()
               if not torch.equal(p.detach(), value)]
    if changed:
        raise CheckFailed(f"{what} changed the values of model.{changed[0]}: leave the "
                          f"weights as they were (one backward under DDP writes .grad "
                          f"only; the step comes after)")
    expect_unchanged(data, what, g=False)
    if random.getstate() != drew:
        raise CheckFailed(f"{what} drew from Python's random (model(x) draws a depth): "
                          f"run rank r at its depth, model(x, depths[r])")
    mistakes = {"you summed the ranks' gradients without dividing by the number of "
                "ranks": total,
                "each rank's loss was the mean of the squared errors; the ranks here "
                "sum them, as the notebook does": sum(means) / n,
                "you divided by the number of ranks twice (in each loss and again at "
                "the end)": total / n ** 2}
    if used != n:
        mistakes["you divided by the ranks that used middle_linear; DDP divides by "
                  "all of them (a rank that skipped it adds zeros)"] = total / used
    if n != 2 and used != 2:
        mistakes["you divided by 2, not by the number of ranks, len(batches)"] = total / 2
    mistakes["you divided by the number of rows, not by the number of ranks"] = \
        total / sum(rows)
    mistakes["you weighted each rank by its share of the rows; DDP gives every rank the "
              "same weight, 1/len(batches)"] = sum(g * r for g, r in zip(own, rows)) / sum(rows)
    if depths[0]:
        xs, ys = (torch.cat(part) for part in zip(*batches))
        one = _own_grad(net, xs, ys, depths[0])
        mistakes["you ran all the ranks' rows as one batch at rank 0's depth; each rank "
                  "runs its own rows at its own depth"] = one
        mistakes["you ran all the ranks' rows as one batch at rank 0's depth, then "
                  "divided; each rank runs its own rows at its own depth"] = one / n
    for r, g in enumerate(own):
        mistakes[f"you returned rank {r}'s own gradient; DDP gives every rank the "
                     f"mean over the ranks"] = g
    name = "middle_linear.weight.grad"
    expect_close({name: out.detach()}, {name: ref},
                 f"{what} does not give what DDP gives every rank",
                 mistakes={k: {name: v} for k, v in mistakes.items()})
