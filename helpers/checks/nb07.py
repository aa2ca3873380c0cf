"""Checks for the exercise of notebook 07, DynamicNet checkpointed and on two processes.

The check builds its own small `DynamicNet`s from seeded generators, seeds Python's
`random` itself (and puts the learner's random state back afterwards), and runs no
process: it takes milliseconds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from helpers.checks import (
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

__all__ = ["DynamicNet", "check_checkpointed", "checkpoint", "nn", "random", "torch"]

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
        out = call_answer(answer, net, x, kind, what=what,
                          hint="it is called as forward_checkpointed(net, x, "
                               "use_reentrant): net is a DynamicNet, x a batch of inputs, "
                               "use_reentrant True or False; it returns net's output",
                          errors={(TypeError, "'Tensor' object is not callable"):
                                  "a tensor was called like a module: the arguments come "
                                  "in the order (net, x, use_reentrant)"})
        _expect_output(out, x, y, what)
        _expect_one_draw(drawn_once, seed, what)
        forward_calls = len(calls)
        bypassed = forward_calls == 0 and depth and torch.allclose(out, ref["output"])
        if forward_calls != depth and not bypassed:
            raise CheckFailed(f"{what} ran middle_linear {forward_calls} times, but "
                              f"random.randint(0, 3) drew depth {depth}: run it depth "
                              f"times")
        if not out.requires_grad:
            if kind:
                raise CheckFailed(
                    f"{what} returned an output that does not require grad\nWith "
                    f"use_reentrant=True, checkpoint's output requires grad only if an "
                    f"input does, and x does not: checkpoint from input_linear's output")
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
