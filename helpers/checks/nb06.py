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

from helpers.checks._old import (
    _HELPERS,
    _LIBRARY,
    CheckFailed,
    _describe,
    a_type,
    call_answer,
    exercise_check,
    expect_close,
    expect_model_unchanged,
    expect_unchanged,
    passed,
    snapshot,
    snapshot_model,
)

__all__ = ["check_broken_nodes", "check_make_sgd", "check_tbptt", "nn", "torch"]


# --------------------------------------------------------------------------- exercise 1

# (seed, T time steps, k steps a chunk, sequences side by side, n, lr): a ragged last
# chunk, chunks of 2, k = 1, one chunk longer than the stream; sizes differ.
_TBPTT_CASES = [(0, 7, 3, 2, 3, 0.05), (1, 6, 2, 1, 4, 0.1), (2, 4, 1, 3, 2, 0.1),
                (3, 5, 8, 2, 3, 0.05)]

_SECTION_3 = ("h still carries the graph of the previous chunk, whose backward freed it: "
              "carry h.detach() into the next chunk (section 3)")


def _stream(seed: int, steps: int, n_seq: int, n: int):
    """A square W (a leaf that requires grad), inputs and targets (steps, n_seq, n)."""
    g = torch.Generator().manual_seed(seed)
    w = (0.6 * torch.randn(n, n, generator=g)).requires_grad_()
    xs = torch.randn(steps, n_seq, n, generator=g)
    targs = 0.5 * torch.randn(steps, n_seq, n, generator=g) + 0.2
    return w, xs, targs


def _tbptt_reference(w0: torch.Tensor, xs, targs, k: int, lr: float, carry: bool = True,
                     clear: bool = True, sign: float = 1.0, last_only: bool = False,
                     every_step: bool = False, mean: bool = False,
                     momentum: float = 0.0) -> dict[str, torch.Tensor]:
    """Losses and trained W of truncated BPTT in chunks of k; the keywords make the
    diagnosed mistakes."""
    w = w0.detach().clone().requires_grad_()
    h, losses, step, velocity = torch.zeros_like(xs[0]), [], None, None
    for x, targ in zip(xs.split(k), targs.split(k)):
        h = h.detach() if carry else torch.zeros_like(xs[0])
        loss = 0
        for i, (x_t, targ_t) in enumerate(zip(x, targ)):
            h = torch.tanh(x_t + (h.detach() if every_step else h) @ w)
            if not last_only or i == len(x) - 1:
                loss = loss + (((h - targ_t) ** 2).mean() if mean else ((h - targ_t) ** 2).sum())
        (grad,) = torch.autograd.grad(loss, w)
        step = grad if clear or step is None else step + grad
        if momentum:
            velocity = step if velocity is None else momentum * velocity + step
            step = velocity
        with torch.no_grad():
            w -= sign * lr * step
        losses.append(loss.item())
    return {"losses": torch.tensor(losses), "W": w.detach()}


def _as_losses(result: Any, xs: torch.Tensor, k: int, what: str) -> torch.Tensor:
    chunks = len(xs.split(k))
    if not isinstance(result, (list, tuple)):
        raise CheckFailed(f"{what} should return a list of the {chunks} chunks' losses, "
                          f"but it returned {_describe(result)}")
    if len(result) != chunks:
        last = len(xs) - (chunks - 1) * k
        message = (f"{what} returned {len(result)} losses; a stream of {len(xs)} steps in "
                   f"chunks of {k} has {chunks} chunks"
                   + (f" (the last of {last} step{'s' * (last > 1)})" if last < k else "")
                   + ": one loss a chunk")
        if len(result) == len(xs.chunk(k)) != chunks:
            message += (f"\nxs.chunk({k}) makes {k} chunks; chunks of {k} steps each are "
                        f"xs.split({k})")
        raise CheckFailed(message)
    values = []
    for v in result:
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            values.append(v.detach().reshape(()).item())
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            values.append(float(v))
        elif hasattr(v, "item") and hasattr(v, "dtype") and getattr(v, "size", 0) == 1:
            values.append(float(v.item()))          # a NumPy number
        else:
            raise CheckFailed(f"{what} should return a list of numbers (loss.item()), but "
                              f"one entry is {_describe(v)}")
    return torch.tensor(values)


_ZERO = ("the loss was still the number 0 at backward(): a chunk had no steps, or the "
         "loop never added into loss")
_SIZES = ("must match the size", "shapes cannot be multiplied", "size mismatch")


@exercise_check
def check_tbptt(train_tbptt: Callable[..., Any]) -> None:
    """Exercise 1: `train_tbptt(W, xs, targs, k, lr)`, truncated backprop through time.

    Requires: h starts at zero (the shape of one step's input); the stream is cut
    into chunks of k steps, the last one shorter if k does not divide it; for each
    chunk in order, h runs on from the previous chunk's last value, the loss is
    ``((h - targ_t) ** 2).sum()`` summed over the chunk's steps, its gradient
    reaches W through this chunk's steps only, and one plain SGD update moves W
    in place; the list of the chunks' losses is returned; W is still the same leaf
    that requires grad; xs and targs are left as they were.
    Cases: four streams with a ragged last chunk, k = 1, one chunk longer than the
    stream, and different sizes.
    Leaves free: where h is detached (at the start or the end of a chunk),
    ``W.grad = None``, ``zero_()``, ``torch.autograd.grad`` or an optimizer, how the
    stream is cut (``split``, slices, a counter), losses as floats or one-element
    tensors, prints.
    """
    for i, (seed, steps, k, n_seq, n, lr) in enumerate(_TBPTT_CASES):
        w, xs, targs = _stream(seed, steps, n_seq, n)
        w0 = w.detach().clone()
        data = snapshot(xs=xs, targs=targs)
        what = f"your train_tbptt(W, xs, targs, k={k}, lr={lr})"
        try:
            result = call_answer(
                train_tbptt, w, xs, targs, k, lr, what=what,
                hint="it is called as train_tbptt(W, xs, targs, k, lr): W is a leaf that "
                     "requires grad, xs and targs tensors of shape (steps, sequences, n); "
                     "it returns a list of losses",
                errors={"backward_twice": _SECTION_3,
                        "inplace_saved": "W, which the previous chunk's nodes saved, was "
                                         "changed by the update: instead of retaining the "
                                         "graph, carry h.detach() (section 3)",
                        "leaf_inplace": "the update of W, a leaf that requires grad, was "
                                        "recorded: run it under torch.no_grad() (section 4)",
                        "no_grad_fn": "the loss was not recorded by autograd: it must come "
                                      "from the W you were given; W = W - ... makes a new "
                                      "tensor, so update W in place under torch.no_grad() "
                                      "(section 4)",
                        (AttributeError, "'NoneType' object has no attribute 'zero_'"):
                            "a .grad is None until a backward fills it: zero it only "
                            "when it is not None, or set W.grad = None instead",
                        "nonleaf_grad": "your code read .grad of a tensor that is not a "
                                        "leaf, which is None: if it was W, W = W - ... made "
                                        "it a new tensor; update W in place under "
                                        "torch.no_grad() (section 4)",
                        (TypeError, "'NoneType'"):
                            "a .grad was None when the update read it: clear it before "
                            "backward(), not between backward() and the update",
                        (AttributeError, "'int' object has no attribute 'backward'"): _ZERO,
                        (AttributeError, "'float' object has no attribute 'backward'"): _ZERO})
        except CheckFailed as failure:
            cause = failure.__cause__
            if i and isinstance(cause, RuntimeError) and "\n" not in str(failure) and any(
                    part in str(cause) for part in _SIZES):
                raise CheckFailed(f"{failure}\nThe sizes change from case to case: take "
                                  f"h's shape from xs (torch.zeros_like(xs[0]))",
                                  failure.learner_frames) from None
            raise
        losses = _as_losses(result, xs, k, what)
        expect_unchanged(data, what, g=False)
        if not (w.is_leaf and w.requires_grad):
            raise CheckFailed(f"{what} left W a tensor that is not a leaf that requires grad; "
                              f"update it in place under torch.no_grad() (section 4)")
        if torch.equal(w.detach(), w0):
            right = _tbptt_reference(w0, xs, targs, k, lr)["losses"]
            if len(losses) == len(right) and len(right) > 1 and torch.allclose(
                    losses.double(), right.double(), rtol=1e-4, atol=1e-6):
                raise CheckFailed(f"{what} trained a new tensor, not the W it was given: "
                                  f"W = ... rebinds the name; update W in place (W -= ... "
                                  f"under torch.no_grad(), section 4)")
            if w.grad is None or not w.grad.any():
                state = "None" if w.grad is None else "all zeros"
                raise CheckFailed(f"{what} left W as it was, and W.grad is {state}: the "
                                  f"gradient was cleared before the update used it; clear "
                                  f"it before backward(), not between backward() and the "
                                  f"update")
            raise CheckFailed(f"{what} left the W it was given as it was: update that "
                              f"tensor in place (W -= ... under torch.no_grad(), section 4)")
        mistakes = {
            "you started every chunk from h = 0 instead of carrying h over":
                _tbptt_reference(w0, xs, targs, k, lr, carry=False),
            "W.grad was never cleared, so each update used the sum of all the chunks' "
            "gradients so far": _tbptt_reference(w0, xs, targs, k, lr, clear=False),
            "you moved W up the gradient (W += ...) instead of down":
                _tbptt_reference(w0, xs, targs, k, lr, sign=-1.0),
            "the loss was taken at the chunk's last step only, not summed over its steps":
                _tbptt_reference(w0, xs, targs, k, lr, last_only=True),
            "h was detached at every step, so the gradient crossed one step only":
                _tbptt_reference(w0, xs, targs, k, lr, every_step=True),
            "each step's loss was a mean, not a sum, of its squares":
                _tbptt_reference(w0, xs, targs, k, lr, mean=True),
            "the update used momentum 0.9, where plain SGD was asked":
                _tbptt_reference(w0, xs, targs, k, lr, momentum=0.9),
        }
        expect_close({"losses": losses, "W": w.detach()},
                     _tbptt_reference(w0, xs, targs, k, lr),
                     f"{what} trains differently",
                     mistakes=mistakes)
    passed("every chunk trains on its own steps only, in all four streams")


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


def _by_name(got: list[str], loss: torch.Tensor) -> bool:
    """True when `got` is what a walk that tells nodes apart by ``name()`` returns: the
    broken names deduplicated (a set), or a walk whose seen-set holds names, depth
    first (stack or recursion) or breadth first, marking a node seen when it is taken
    or when it is queued."""
    right = _broken_reference(loss)["right"]
    if got == sorted(set(right)) != right:
        return True

    def walk(take: int, at_push: bool) -> list[str]:
        found, seen, todo = [], {loss.grad_fn.name()}, [loss.grad_fn]
        while todo:
            node = todo.pop(take)
            if not at_push:
                if node.name() in seen and node is not loss.grad_fn:
                    continue
                seen.add(node.name())
            if _saved_broken(node)[1]:
                found.append(node.name())
            for f, _ in node.next_functions:
                if f is None or (at_push and f.name() in seen):
                    continue
                if at_push:
                    seen.add(f.name())
                todo.append(f)
        return sorted(found)

    def recurse(node, seen: set, found: list) -> list:
        if node.name() not in seen:
            seen.add(node.name())
            found += [node.name()] if _saved_broken(node)[1] else []
            for f, _ in node.next_functions:
                if f is not None:
                    recurse(f, seen, found)
        return found

    walks = [walk(take, at_push) for take in (-1, 0) for at_push in (False, True)]
    return got in walks + [sorted(recurse(loss.grad_fn, set(), []))]


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


_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


def _ran_backward(error: BaseException | None) -> bool:
    """True when `error` was raised inside torch's backward (``loss.backward()`` or
    ``torch.autograd.grad``), which the answer called."""
    tb = error.__traceback__ if error is not None else None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in ("backward", "grad", "_engine_run_backward") and \
                os.path.abspath(code.co_filename).startswith(_TORCH):
            return True
        tb = tb.tb_next
    return False


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
        try:
            result = call_answer(
                broken_nodes, loss, what=what,
                hint="it is called as broken_nodes(loss) and returns a list of node names, "
                     "such as 'SigmoidBackward0'",
                errors={"inplace_saved": "reading a saved tensor that was changed raises "
                                         "this error: catch it (try: ... except "
                                         "RuntimeError:) and list that node as broken",
                        (AttributeError, "'NoneType' object has no attribute"):
                            "next_functions holds None for an input that needs no "
                            "gradient: skip it (if f is not None)"})
        except CheckFailed as failure:
            if _ran_backward(failure.__cause__):
                first = str(failure).split("\n")[0]
                raise CheckFailed(f"{first}\nYour function called backward, which raised "
                                  f"this error: broken_nodes must not call backward; read "
                                  f"each node's _saved_ attributes instead",
                                  failure.learner_frames) from None
            raise
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
        else:
            if _by_name(got, loss):
                message += ("\nYour result is what you get if nodes are told apart by "
                            "name(): two nodes can share one: list a name once per "
                            "broken node, and remember nodes, not names, as seen.")
        raise CheckFailed(message)
    passed("every broken node found, once each, in all seven graphs")


# --------------------------------------------------------------------------- exercise 3


def _tied_embedding(g):
    emb, head = nn.Embedding(7, 3), nn.Linear(3, 7)
    head.weight = emb.weight
    return [emb, head], {"emb": emb, "head": head}


def _reused_layer(g):
    first, mid, last = nn.Linear(4, 3), nn.Linear(3, 3), nn.Linear(3, 2)
    modules = [first, mid, mid, mid, last]         # mid reused, as DynamicNet does
    return modules, {"first": first, "mid": mid, "last": last}


def _equal_twins(g):
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.load_state_dict(a.state_dict())              # equal values, different tensors
    return [a, b, a], {"a": a, "b": b}


def _parameters(named: dict[str, nn.Module]) -> dict[str, torch.Tensor]:
    """{"head.weight": tensor, ...}: every module's own parameters, tied ones under each
    name, each tensor once."""
    found: dict[str, torch.Tensor] = {}
    for m_name, m in named.items():
        for p_name, p in m.named_parameters():
            if not any(q is p for q in found.values()):
                found[f"{m_name}.{p_name}"] = p
    return found


def _expect_modules_unchanged(named: dict[str, nn.Module], holders: dict[str, nn.Module],
                              made_of: dict, before: dict, who: str) -> None:
    """The modules keep their own parameter tensors (tied ones still tied), hooks and
    attributes, and their values."""
    for m_name, m in named.items():
        for p_name, p in made_of[m_name].items():
            if m._parameters.get(p_name) is not p:
                raise CheckFailed(f"{who} replaced {m_name}.{p_name} with another tensor: "
                                  f"leave the modules as they were (tied weights stay tied); "
                                  f"the optimizer only lists their parameters")
        expect_model_unchanged(before[m_name], holders[m_name], who)


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
    modules left as they were (their own parameter tensors, tied ones still tied,
    no hook or attribute added, the same values). Cases: an embedding tied to its output layer, a
    layer listed three times, two layers with equal weights (one listed twice).
    Leaves free: the order, one group or several, how duplicates are removed.
    """
    for i, (label, build, lr) in enumerate(_SGD_CASES):
        modules, named = _seeded(build, 20 + i)
        params = _parameters(named)
        made_of = {m_name: dict(m._parameters) for m_name, m in named.items()}
        holders = {m_name: nn.ModuleDict({m_name: m}) for m_name, m in named.items()}
        before = {m_name: snapshot_model(h) for m_name, h in holders.items()}
        g = torch.Generator().manual_seed(30 + i)
        what = f"your make_sgd(modules, lr={lr}), for {label},"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # a duplicate is diagnosed below
            try:
                optimizer = call_answer(make_sgd, list(modules), lr, what=what,
                                        hint="it is called as make_sgd(modules, lr) with a "
                                             "list of modules, and returns a torch.optim.SGD",
                                        errors={(ValueError, "more than one parameter group"):
                                                "a tied tensor in two parameter groups is "
                                                "refused (section 6): list each tensor once, "
                                                "in one group"})
            except CheckFailed as failure:
                if _raised_by_in_test(failure.__cause__):
                    raise CheckFailed(
                        f"{failure}\nYour code raised it in an `in` test: `in` on a list of "
                        f"tensors compares them with ==, elementwise; compare identities "
                        f"(id(p) or `any(p is q for q in ...)`)", failure.learner_frames) from None
                if "\n" not in str(failure) and "Boolean value of Tensor" in str(
                        failure.__cause__):
                    raise CheckFailed(
                        f"{failure}\nA tensor was used as True or False: == between tensors "
                        f"compares them entry by entry; compare identities (p is q, or "
                        f"id(p))", failure.learner_frames) from None
                raise
        _expect_modules_unchanged(named, holders, made_of, before, what)
        if not isinstance(optimizer, torch.optim.SGD):
            raise CheckFailed(f"{what} should return a torch.optim.SGD, but it returned "
                              f"{a_type(optimizer)}")
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
