"""Checks for the exercises of notebook 06, when backward refuses.

Every check builds its own small tensors, graphs and modules from seeded
generators, so it runs in milliseconds and never reads a notebook global.
"""

from __future__ import annotations

import dis
import os
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from helpers.checks import (
    _HELPERS,
    _LIBRARY,
    CheckFailed,
    _describe,
    call_answer,
    exercise_check,
    expect_close,
    expect_unchanged,
    passed,
    snapshot,
)

__all__ = ["check_broken_nodes", "check_carried", "check_make_sgd"]


# --------------------------------------------------------------------------- exercise 1

# (seed, n, time steps per batch, batches, lr): sizes, lengths and rates differ.
_CARRIED_CASES = [(0, 3, 4, 3, 0.1), (1, 5, 2, 4, 0.05), (2, 4, 6, 2, 0.2), (3, 2, 3, 5, 0.1)]


def _rnn_problem(seed: int, n: int, steps: int, n_batches: int):
    """A square W (a leaf that requires grad) and (x, targ) batches, from one generator."""
    g = torch.Generator().manual_seed(seed)
    w = (0.6 * torch.randn(n, n, generator=g)).requires_grad_()
    batches = [(torch.randn(steps, n, generator=g), 0.5 * torch.randn(n, generator=g) + 0.2)
               for _ in range(n_batches)]
    return w, batches


def _rnn_reference(w0: torch.Tensor, batches, lr: float, carry: bool = True,
                   clear: bool = True, sign: float = 1.0) -> dict[str, torch.Tensor]:
    """Losses and trained W of section 4's net; the keywords make the diagnosed mistakes."""
    w = w0.detach().clone().requires_grad_()
    h, losses, step = torch.zeros(len(w)), [], None
    for x, targ in batches:
        h = h.detach() if carry else torch.zeros(len(w))
        for x_t in x:
            h = torch.tanh(x_t + h @ w)
        loss = ((h - targ) ** 2).sum()
        (grad,) = torch.autograd.grad(loss, w)
        step = grad if clear or step is None else step + grad
        with torch.no_grad():
            w -= sign * lr * step
        losses.append(loss.item())
    return {"losses": torch.tensor(losses), "W": w.detach()}


def _as_losses(result: Any, n_batches: int, what: str) -> torch.Tensor:
    if not isinstance(result, (list, tuple)):
        raise CheckFailed(f"{what} should return a list of the {n_batches} batches' losses, "
                          f"but it returned {_describe(result)}")
    if len(result) != n_batches:
        raise CheckFailed(f"{what} returned {len(result)} losses for {n_batches} batches: "
                          f"one loss a batch")
    values = []
    for v in result:
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            values.append(v.detach().reshape(()).item())
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            values.append(float(v))
        else:
            raise CheckFailed(f"{what} should return a list of numbers (loss.item()), but "
                              f"one entry is {_describe(v)}")
    return torch.tensor(values)


@exercise_check
def check_carried(train_carried: Callable[..., Any]) -> None:
    """Exercise 1: `train_carried(W, batches, lr)`, truncated backprop through time.

    Requires: for each batch in order, h runs on from the previous batch's last
    value (zero before the first), the loss ``((h - targ) ** 2).sum()`` of the
    batch's last h, the gradient of W from this batch alone, and one plain SGD
    update of W in place; the list of the batches' losses returned; W still the
    same leaf that requires grad; the batches left as they were.
    Cases: four problems with different sizes, lengths, batch counts and rates.
    Leaves free: where h is detached (at the start or the end of a batch),
    ``W.grad = None``, ``zero_()`` or ``torch.autograd.grad``, ``torch.optim.SGD``
    or an update by hand, losses as floats or one-element tensors, prints.
    """
    for seed, n, steps, n_batches, lr in _CARRIED_CASES:
        w, batches = _rnn_problem(seed, n, steps, n_batches)
        w0 = w.detach().clone()
        ref = _rnn_reference(w0, batches, lr)
        mistakes = {
            "you started every batch from h = 0 instead of carrying h over":
                _rnn_reference(w0, batches, lr, carry=False),
            "W.grad was never cleared, so each update used the sum of all the batches' "
            "gradients so far": _rnn_reference(w0, batches, lr, clear=False),
            "you moved W up the gradient (W += ...) instead of down":
                _rnn_reference(w0, batches, lr, sign=-1.0),
        }
        data = snapshot(**{f"{name}{i}": t for i, (x, targ) in enumerate(batches)
                           for name, t in (("x", x), ("targ", targ))})
        what = f"your train_carried(W, batches, lr={lr}) on {n_batches} batches, n = {n}"
        result = call_answer(
            train_carried, w, batches, lr, what=what,
            hint="it is called as train_carried(W, batches, lr): W is a leaf that requires "
                 "grad, batches a list of (x, targ) pairs; it returns a list of losses")
        losses = _as_losses(result, n_batches, what)
        expect_unchanged(data, what, g=False)
        if not (w.is_leaf and w.requires_grad):
            raise CheckFailed(f"{what} left W a tensor that is not a leaf that requires grad; "
                              f"update it in place under torch.no_grad()")
        if torch.equal(w.detach(), w0):
            raise CheckFailed(f"{what} did not change the W it was given: update that tensor "
                              f"in place (W -= ..., under torch.no_grad()), do not rebind "
                              f"the name W")
        expect_close({"losses": losses, "W": w.detach()}, ref,
                     f"{what} does not train like truncated backprop through time",
                     mistakes=mistakes)
    passed("the carried hidden state trains batch after batch, like truncated BPTT")


# --------------------------------------------------------------------------- exercise 2


def _saved_broken(node) -> tuple[int, int, int]:
    """What reading `node`'s ``_saved_*`` attributes gives: (tensors that can be read,
    tensors that raise, attributes that hold no tensor: sizes, dims, scalars, None)."""
    ok = bad = other = 0
    for name in dir(node):
        if name.startswith("_saved_"):
            try:
                value = getattr(node, name)
            except RuntimeError:
                bad += 1
            else:
                if isinstance(value, torch.Tensor):
                    ok += 1
                else:
                    other += 1
    return ok, bad, other


def _walk(loss: torch.Tensor, once: bool = True) -> list:
    """The nodes of loss's graph: each once, or (`once=False`) once per path to it."""
    nodes, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if once and node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack.extend(f for f, _ in node.next_functions if f is not None)
    return nodes


def _broken_reference(loss: torch.Tensor) -> dict[str, list[str]]:
    """The right answer, and the answers of the diagnosed mistakes, as sorted names."""
    unique, every = _walk(loss), _walk(loss, once=False)
    counts = {node: _saved_broken(node) for node in unique}
    return {
        "right": sorted(n.name() for n in unique if counts[n][1]),
        "without the root":
            sorted(n.name() for n in unique if counts[n][1] and n is not loss.grad_fn),
        "once per path to it": sorted(n.name() for n in every if counts[n][1]),
        "once per saved tensor that changed":
            sorted(n.name() for n in unique for _ in range(counts[n][1])),
        "every node that saved a tensor":
            sorted(n.name() for n in unique if counts[n][0] + counts[n][1]),
        "every node with a _saved_ attribute": sorted(n.name() for n in unique if sum(counts[n])),
    }


def _seeded(build: Callable[..., Any], seed: int):
    """`build(g)` with a generator seeded `seed`; nn's initialisers draw from a forked
    global RNG, so the learner's random state is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build(torch.Generator().manual_seed(seed))


def _case_sigmoid(g):
    a = torch.randn(3, generator=g).requires_grad_()
    b = a.sigmoid()
    b.mul_(2)                             # saved by the sigmoid (its output)
    return b.sum(), {"a": a}


def _case_square(g):
    a = torch.randn(4, generator=g).requires_grad_()
    b = a.exp()
    c = b * b
    b.add_(1)                             # saved by exp (output) and mul (both factors)
    return c.sum(), {"a": a}


def _case_layers(g):
    lin1, lin2 = nn.Linear(4, 3), nn.Linear(3, 2)
    x = torch.randn(5, 4, generator=g)
    r = lin1(x).relu()
    out = lin2(r)
    r.mul_(0.5)                           # saved by relu (output) and lin2's addmm (input)
    return out.pow(2).sum(), {"x": x}


def _case_weight(g):
    w = torch.randn(3, 3, generator=g).requires_grad_()
    v = torch.randn(3, 2, generator=g).requires_grad_()
    x = torch.randn(4, 3, generator=g).requires_grad_()   # so that x @ w saves w
    out = torch.tanh(x @ w) @ v
    with torch.no_grad():
        w -= 0.1                          # an update: breaks the first mm, not the second
    return out.sum(), {"x": x, "v": v}


def _case_twins(g):
    a = torch.randn(3, generator=g).requires_grad_()
    b = a.exp()
    p, q = b * a, b * a.flip(0)           # two mul nodes save b
    b.add_(1)
    return (p + q).sum(), {"a": a}


def _case_harmless(g):
    a = torch.randn(3, generator=g).requires_grad_()
    c = a * 3
    c.add_(1)                             # changed before anyone saved it
    return (c * a).sum(), {"a": a}


def _case_root(g):
    a = torch.randn(4, generator=g).requires_grad_()
    b = a.exp()
    loss = b.dot(b)                       # the loss's own node saves b
    b.add_(1)                             # breaks it, and exp (its output)
    return loss, {"a": a}


_BROKEN_CASES = [("the sigmoid of section 2", _case_sigmoid),
                 ("exp, then its output times itself", _case_square),
                 ("two linear layers, a ReLU output changed", _case_layers),
                 ("a weight updated after the forward pass", _case_weight),
                 ("one tensor saved by two nodes of the same name", _case_twins),
                 ("a tensor changed before any node saved it", _case_harmless),
                 ("a dot product whose own node saved the changed tensor", _case_root)]


@exercise_check
def check_broken_nodes(broken_nodes: Callable[..., Any]) -> None:
    """Exercise 2: `broken_nodes(loss)`, the names of the nodes a mutation broke.

    Requires: a list (or tuple) of strings, the ``name()`` of every node of the
    graph that has a saved tensor changed in place since it was saved, one
    entry per node (two nodes may share a name), each node counted once however
    many paths reach it; the graph and the tensors left as they were (no
    backward). Cases: seven graphs, including one where nothing is broken, one
    with two broken nodes of the same name, one (a weight updated after the
    forward pass) where an intact node has the same name as a broken one, and
    one where the loss's own node, ``loss.grad_fn``, is broken.
    Leaves free: the order, how the graph is walked (stack, queue, recursion),
    how a broken saved tensor is detected.
    """
    for i, (label, build) in enumerate(_BROKEN_CASES):
        loss, inputs = _seeded(build, 10 + i)
        answers = _broken_reference(loss)
        data = snapshot(**inputs)
        what = f"your broken_nodes(loss), for {label},"
        result = call_answer(broken_nodes, loss, what=what,
                             hint="it is called as broken_nodes(loss) and returns a list of "
                                  "node names, such as 'SigmoidBackward0'")
        if isinstance(result, (set, frozenset)):
            raise CheckFailed(f"{what} returned a set; return a list, one entry per node: "
                              f"two different nodes can have the same name")
        if not isinstance(result, (list, tuple)) or not all(isinstance(s, str) for s in result):
            raise CheckFailed(f"{what} should return a list of node names (strings, from "
                              f"node.name()), but it returned {_describe(result)}")
        expect_unchanged(data, what, g=False)
        try:
            after = _broken_reference(loss)["right"]
        except RuntimeError:
            after = None
        if after != answers["right"]:
            raise CheckFailed(f"{what} changed the graph (did it call backward?); it "
                              f"should only read it")
        got = sorted(result)
        if got == answers["right"]:
            continue
        message = f"{what} returned {got}, expected {answers['right']}"
        hints = {"without the root": "your walk skipped the loss's own node, "
                                     "loss.grad_fn",
                 "once per path to it": "you counted a node once for each path that reaches "
                                        "it; visit each node once",
                 "once per saved tensor that changed": "you listed a node once for each of "
                                                       "its saved tensors that changed; list "
                                                       "each node once",
                 "every node that saved a tensor": "you listed every node that saved a "
                                                   "tensor, not only those whose saved "
                                                   "tensor was changed",
                 "every node with a _saved_ attribute": "you listed every node with a "
                                                        "_saved_ attribute (a saved size "
                                                        "counts too), not only those whose "
                                                        "saved tensor was changed"}
        for mistake, hint in hints.items():
            if got == answers[mistake] != answers["right"]:
                message += f"\nYour result is what you get if {hint}."
                break
        raise CheckFailed(message)
    passed("every broken node found, once each, in all seven graphs")


# --------------------------------------------------------------------------- exercise 3


def _tied_embedding(g):
    emb, head = nn.Embedding(7, 3), nn.Linear(3, 7)
    head.weight = emb.weight
    return [emb, head], {"emb.weight": emb.weight, "head.bias": head.bias}


def _reused_layer(g):
    first, mid, last = nn.Linear(4, 3), nn.Linear(3, 3), nn.Linear(3, 2)
    modules = [first, mid, mid, mid, last]         # mid reused, as DynamicNet does
    return modules, {f"{name}.{k}": p for name, m in (("first", first), ("mid", mid),
                                                      ("last", last))
                     for k, p in m.named_parameters()}


def _equal_twins(g):
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.load_state_dict(a.state_dict())              # equal values, different tensors
    return [a, b, a], {"a.weight": a.weight, "a.bias": a.bias, "b.weight": b.weight,
                       "b.bias": b.bias}


_SGD_CASES = [("an embedding tied to its output layer", _tied_embedding, 0.1),
              ("a layer listed three times", _reused_layer, 0.05),
              ("two layers with equal weights, one listed twice", _equal_twins, 0.2)]
_MOMENTUM = 0.9


_BY_VALUE = ("Boolean value of Tensor with more than one value is ambiguous",
             "must match the size of tensor")


def _raised_by_in_test(error: BaseException | None) -> bool:
    """True when `error` is what ``==`` between two tensors raises (their sizes differ, or
    the elementwise result cannot be a bool), and the learner's innermost frame was
    running an ``in`` test (a ``CONTAINS_OP``) when it was raised."""
    if not isinstance(error, RuntimeError) or not any(t in str(error) for t in _BY_VALUE):
        return False
    learner, tb = None, error.__traceback__
    while tb is not None:
        if not os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(
                (_HELPERS, *_LIBRARY)):
            learner = tb
        tb = tb.tb_next
    if learner is None:
        return False
    ran = [i for i in dis.get_instructions(learner.tb_frame.f_code)
           if i.offset <= learner.tb_lasti]
    return bool(ran) and ran[-1].opname == "CONTAINS_OP"


def _held(optimizer: torch.optim.Optimizer) -> list:
    return [p for group in optimizer.param_groups for p in group["params"]]


@exercise_check
def check_make_sgd(make_sgd: Callable[..., Any]) -> None:
    """Exercise 3: `make_sgd(modules, lr)`, an SGD holding every parameter once.

    Requires: a ``torch.optim.SGD`` whose groups hold every parameter of the
    modules exactly once (by identity: two tensors with equal values are two
    parameters), and nothing else, with learning rate `lr` and momentum 0.9; two
    steps that move every parameter as plain SGD with that momentum does; the
    modules left as they were. Cases: an embedding tied to its output layer, a
    layer listed three times, two layers with equal weights (one listed twice).
    Leaves free: the order, one group or several, how duplicates are removed.
    """
    for i, (label, build, lr) in enumerate(_SGD_CASES):
        modules, params = _seeded(build, 20 + i)
        g = torch.Generator().manual_seed(30 + i)
        data = snapshot(**params)
        what = f"your make_sgd(modules, lr={lr}), for {label},"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # a duplicate is diagnosed below
            try:
                optimizer = call_answer(make_sgd, list(modules), lr, what=what,
                                        hint="it is called as make_sgd(modules, lr) with a "
                                             "list of modules, and returns a torch.optim.SGD")
            except CheckFailed as failure:
                if not _raised_by_in_test(failure.__cause__):
                    raise
                raise CheckFailed(
                    f"{failure}\nYour code raised it in an `in` test: `in` on a list of "
                    f"tensors compares them with ==, elementwise; compare identities "
                    f"(id(p) or `any(p is q for q in ...)`)", failure.learner_frames) from None
        if not isinstance(optimizer, torch.optim.SGD):
            raise CheckFailed(f"{what} should return a torch.optim.SGD, but it returned "
                              f"{_describe(optimizer)}")
        expect_unchanged(data, what, g=False)
        held = _held(optimizer)
        for name, p in params.items():
            count = sum(q is p for q in held)
            if count == 0:
                twin = any(q is not p and q.shape == p.shape and torch.equal(q, p)
                           for q in params.values())
                raise CheckFailed(
                    f"{what} does not hold {name}"
                    + (": it has the same values as another parameter, but it is another "
                       "tensor (compare tensors by identity, not by value)" if twin else ""))
            if count > 1:
                raise CheckFailed(f"{what} holds {name} {count} times, so each step would "
                                  f"move it {count} times: list every tensor once")
        if len(held) != len(params):
            raise CheckFailed(f"{what} holds {len(held) - len(params)} tensor(s) that are "
                              f"not parameters of these modules")
        for group in optimizer.param_groups:
            if group.get("lr") != lr or group.get("momentum") != _MOMENTUM:
                raise CheckFailed(f"{what} has a group with lr={group.get('lr')} and "
                                  f"momentum={group.get('momentum')}; expected lr={lr} and "
                                  f"momentum={_MOMENTUM}")
        start = {name: p.detach().clone() for name, p in params.items()}
        grads = [{name: torch.randn(p.shape, generator=g) for name, p in params.items()}
                 for _ in range(2)]
        for step in grads:
            for name, p in params.items():
                p.grad = step[name].clone()
            optimizer.step()
        ref = {}
        for name, p0 in start.items():
            v0, g1 = grads[0][name], grads[1][name]
            ref[name] = p0 - lr * v0 - lr * (_MOMENTUM * v0 + g1)
        expect_close({name: p.detach() for name, p in params.items()}, ref,
                     f"{what} does not step as SGD with momentum {_MOMENTUM}")
    passed("every parameter held once, and stepped once a step, in all three cases")
