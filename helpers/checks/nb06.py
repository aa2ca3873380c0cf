"""Checks for the exercises of notebook 06, when backward refuses: tensors, graphs and
modules of their own, from seeded generators."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import torch
import torch._dynamo  # noqa: F401 -- what torch imports at the first optimizer: paid here
from torch import nn

from helpers.checks import (
    CheckFailed,
    Either,
    Mistake,
    a_type,
    call_answer,
    code_uses,
    describe,
    exercise_check,
    expect_close,
    expect_unchanged,
    judge,
    snapshot,
)

__all__ = ["check_broken_nodes", "check_make_sgd", "check_tbptt", "nn", "torch"]


def _seeded(build: Callable[..., Any], seed: int):
    """`build(g)` with a generator seeded `seed`; nn's initialisers draw from a forked
    global RNG, so the learner's random state is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build(torch.Generator().manual_seed(seed))


# --------------------------------------------------------------------------- exercise 1
# (seed, T time steps, k steps a chunk, sequences side by side, n, lr): a ragged last
# chunk, chunks of 2, k = 1, one chunk longer than the stream; sizes differ.
_TBPTT_CASES = [(0, 7, 3, 2, 3, 0.05), (1, 6, 2, 1, 4, 0.1), (2, 4, 1, 3, 2, 0.1),
                (3, 5, 8, 2, 3, 0.05)]


def _stream(seed: int, steps: int, n_seq: int, n: int):
    """A square W (a leaf that requires grad), inputs and targets (steps, n_seq, n)."""
    g = torch.Generator().manual_seed(seed)
    w = (0.6 * torch.randn(n, n, generator=g)).requires_grad_()
    xs = torch.randn(steps, n_seq, n, generator=g)
    targs = 0.5 * torch.randn(steps, n_seq, n, generator=g) + 0.2
    return w, xs, targs


def _tbptt(c, carry: bool = True, clear: bool = True, sign: float = 1.0,
           last_only: bool = False, every_step: bool = False, mean: bool = False,
           momentum: float = 0.0) -> dict[str, torch.Tensor]:
    """Losses and trained W of truncated BPTT in chunks of k; the keywords make mistakes."""
    w0, xs, targs = _stream(*c[:1], c[1], *c[3:5])
    w = w0.detach().clone().requires_grad_()
    h, losses, step, velocity = torch.zeros_like(xs[0]), [], None, None
    for x, targ in zip(xs.split(c[2]), targs.split(c[2])):
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
            w -= sign * c[5] * step
        losses.append(loss.item())
    return {"losses": torch.tensor(losses), "W": w.detach()}


_ZERO = ("the loss was still the number 0 at backward(): a chunk had no steps, or the loop "
         "never added into loss")
TBPTT = [
    Mistake("h0", "you started every chunk from h = 0 instead of carrying h over",
            gives=lambda c: _tbptt(c, carry=False)),
    Mistake("not_cleared", "W.grad was never cleared, so each update used the sum of all the "
            "chunks' gradients so far", gives=lambda c: _tbptt(c, clear=False)),
    Mistake("up", "you moved W up the gradient (W += ...) instead of down",
            gives=lambda c: _tbptt(c, sign=-1.0)),
    Mistake("last_only", "the loss was taken at the chunk's last step only, not summed over "
            "its steps", gives=lambda c: _tbptt(c, last_only=True)),
    Mistake("every_step", "h was detached at every step, so the gradient crossed one step "
            "only", gives=lambda c: _tbptt(c, every_step=True)),
    Mistake("mean", "each step's loss was a mean, not a sum, of its squares",
            gives=lambda c: _tbptt(c, mean=True)),
    Mistake("momentum", "the update used momentum 0.9, where plain SGD was asked",
            gives=lambda c: _tbptt(c, momentum=0.9)),
    Mistake("still", "W never moved: the update is missing, or the gradient was cleared before "
            "it used it (clear it before backward(), not between backward() and the update)",
            gives=lambda c: _tbptt(c, sign=0.0)),
    Mistake("backward_twice", "h still carries the graph of the previous chunk, whose backward "
            "freed it: carry h.detach() into the next chunk (section 3)"),
    Mistake("inplace_saved", "W, which the previous chunk's nodes saved, was changed by the "
            "update: instead of retaining the graph, carry h.detach() (section 3)"),
    Mistake("leaf_inplace", "the update of W, a leaf that requires grad, was recorded: run it "
            "under torch.no_grad() (section 4)"),
    Mistake("no_grad_fn", "the loss was not recorded by autograd: it must come from the W you "
            "were given; W = W - ... makes a new tensor, so update W in place under "
            "torch.no_grad() (section 4)"),
    Mistake("nonleaf_grad", "your code read .grad of a tensor that is not a leaf, which is "
            "None: if it was W, W = W - ... made it a new tensor; update W in place under "
            "torch.no_grad() (section 4)"),
    Mistake("zero_none", "a .grad is None until a backward fills it: zero it only when it is "
            "not None, or set W.grad = None instead",
            raises=(AttributeError, "'NoneType' object has no attribute 'zero_'")),
    Mistake("none_read", "a .grad was None when the update read it: clear it before "
            "backward(), not between backward() and the update", raises=(TypeError, "NoneType")),
    Mistake("zero_loss", _ZERO,
            raises=(AttributeError, "'(int|float)' object has no attribute 'backward'")),
]
_SIZES = Mistake("sizes", "The sizes change from case to case: take h's shape from xs "
                 "(torch.zeros_like(xs[0]))",
                 raises=(RuntimeError, "must match the size|cannot be multiplied|size mismatch"))


def _as_losses(result: Any, xs: torch.Tensor, k: int, what: str) -> torch.Tensor:
    chunks = len(xs.split(k))
    if not isinstance(result, (list, tuple)):
        raise CheckFailed(f"{what} returned {describe(result)}\nIt should return the "
                          f"{chunks} chunks' losses, a list of numbers (loss.item())")
    if len(result) != chunks:
        last = len(xs) - (chunks - 1) * k
        raise CheckFailed(
            f"{what} returned {len(result)} losses; a stream of {len(xs)} steps in chunks of "
            f"{k} has {chunks} chunks" + (f" (the last of {last} step{'s' * (last > 1)})"
                                          if last < k else "") + ": one loss a chunk"
            + (f"\nxs.chunk({k}) makes {k} chunks; chunks of {k} steps each are xs.split({k})"
               if len(result) == len(xs.chunk(k)) != chunks else ""))
    values = []
    for v in result:
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            values.append(v.detach().reshape(()).item())
        elif hasattr(v, "item") and getattr(v, "size", 0) == 1 or isinstance(v, (int, float)) \
                and not isinstance(v, bool):
            values.append(float(v))
        else:
            raise CheckFailed(f"{what} should return a list of numbers (loss.item()), but one "
                              f"entry is {describe(v)}")
    return torch.tensor(values)


def _tbptt_trial(train_tbptt, c) -> dict[str, torch.Tensor]:
    w, xs, targs = _stream(c[0], c[1], c[3], c[4])
    w0, k, lr = w.detach().clone(), c[2], c[5]
    data = snapshot(xs=xs, targs=targs)
    what = f"your train_tbptt(W, xs, targs, k={k}, lr={lr})"
    result = call_answer(train_tbptt, w, xs, targs, k, lr, what=what,
                         mistakes=[*TBPTT, *[_SIZES] * (c is not _TBPTT_CASES[0])],
                         hint="it is called as train_tbptt(W, xs, targs, k, lr): W is a leaf "
                              "that requires grad, xs and targs tensors of shape (steps, "
                              "sequences, n); it returns a list of losses")
    losses = _as_losses(result, xs, k, what)
    expect_unchanged(data, what)
    if not (w.is_leaf and w.requires_grad):
        raise CheckFailed(f"{what} left W a tensor that is not a leaf that requires grad; "
                          f"update it in place under torch.no_grad() (section 4)")
    right = _tbptt(c)["losses"]
    if torch.equal(w.detach(), w0) and len(losses) > 1 and torch.allclose(
            losses.double(), right.double(), rtol=1e-4, atol=1e-6):
        raise CheckFailed(f"{what} trained a new tensor, not the W it was given: W = ... rebinds "
                          f"the name; update W in place (W -= ... under torch.no_grad(), section "
                          f"4)", "rebound")
    return {"losses": losses, "W": w.detach()}


@exercise_check
def check_tbptt(train_tbptt: Callable[..., Any]) -> str:
    """Exercise 1: `train_tbptt(W, xs, targs, k, lr)`, truncated BPTT, on four streams (a short
    last chunk, k = 1, one chunk longer than the stream): the losses and the trained W."""
    judge(_TBPTT_CASES, lambda c: _tbptt_trial(train_tbptt, c), _tbptt,
          lambda c, _: f"your train_tbptt(W, xs, targs, k={c[2]}, lr={c[5]}) trains "
                       f"differently", TBPTT, train_tbptt)
    return "every chunk trains on its own steps only, in all four streams"


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
                ok, other = (ok + 1, other) if isinstance(value, torch.Tensor) else (ok, other + 1)
    return ok, bad, other


def _walk(loss, once: bool = True, by_name: bool = False, take: int = -1,
          at_push: bool = False) -> list:
    """loss's graph's nodes: each once, or (`once=False`) once per path to it; (`by_name`)
    told apart by name(), taken from the end (`take`) or front, marked seen at `push`."""
    def key(n):
        return n.name() if by_name else n
    nodes, seen, todo = [], {key(loss.grad_fn)} if at_push else set(), [loss.grad_fn]
    while todo:
        node = todo.pop(take)
        if once and not at_push and key(node) in seen:
            continue
        seen.add(key(node))
        nodes.append(node)
        for f, _ in node.next_functions:
            if f is not None and not (at_push and key(f) in seen):
                seen.add(key(f)) if at_push else None
                todo.append(f)
    return nodes


def _names(nodes, saved=lambda n: _saved_broken(n)[1]) -> list[str]:
    return sorted(n.name() for n in nodes for _ in range(saved(n) and 1))


BROKEN = [
    Mistake("root", "your walk skipped the loss's own node, loss.grad_fn",
            gives=lambda c: _names(n for n in _walk(c.loss) if n is not c.loss.grad_fn)),
    Mistake("paths", "you counted a node once for each path that reaches it; visit each node "
            "once", gives=lambda c: _names(_walk(c.loss, once=False))),
    Mistake("per_tensor", "you listed a node once for each of its saved tensors that changed; "
            "list each node once",
            gives=lambda c: sorted(n.name() for n in _walk(c.loss)
                                   for _ in range(_saved_broken(n)[1]))),
    Mistake("saved_any", "you listed every node that saved a tensor, not only those whose "
            "saved tensor was changed",
            gives=lambda c: _names(_walk(c.loss), lambda n: sum(_saved_broken(n)[:2]))),
    Mistake("attr_any", "you listed every node with a _saved_ attribute (a saved size counts "
            "too), not only those whose saved tensor was changed",
            gives=lambda c: _names(_walk(c.loss), lambda n: sum(_saved_broken(n)))),
    Mistake("by_name", "nodes are told apart by name(): two nodes can share one: list a name "
            "once per broken node, and remember nodes, not names, as seen",
            gives=lambda c: Either([sorted(set(_names(_walk(c.loss))))] + [
                _names(_walk(c.loss, by_name=True, take=t, at_push=p))
                for t in (-1, 0) for p in (False, True)])),
    Mistake("inplace_saved", "reading a saved tensor that was changed raises this error: catch "
            "it (try: ... except RuntimeError:) and list that node as broken"),
    Mistake("none_next", "next_functions holds None for an input that needs no gradient: skip "
            "it (if f is not None)",
            raises=(AttributeError, "'NoneType' object has no attribute")),
]


def _graph(i: int, g: torch.Generator):
    """Graph i of `_GRAPHS`: (loss, the tensors it was made from)."""
    a = torch.randn(4 if i in (1, 6) else 3, generator=g).requires_grad_()
    if i in (1, 4, 6):
        b = a.exp()
        loss = {1: (b * b).sum(), 4: (b * a + b * a.flip(0)).sum(), 6: b.dot(b)}[i]
        b.add_(1)           # saved by exp (its output), and by the muls or dot that follow
    elif i == 2:
        lin1, lin2, x = nn.Linear(4, 3), nn.Linear(3, 2), torch.randn(5, 4, generator=g)
        r = lin1(x).relu()
        loss, a = lin2(r).pow(2).sum(), x
        r.mul_(0.5)         # saved by relu (its output) and lin2's addmm (its input)
    elif i == 3:
        w, v = (torch.randn(3, k, generator=g).requires_grad_() for k in (3, 2))
        a = torch.randn(4, 3, generator=g).requires_grad_()   # so that a @ w saves w
        loss = (torch.tanh(a @ w) @ v).sum()
        with torch.no_grad():
            w -= 0.1        # an update: breaks the first mm, not the second
    else:
        b = a.sigmoid() if i == 0 else a * 3
        b.mul_(2)           # saved by the sigmoid; or changed before anyone saved it
        loss = b.sum() if i == 0 else (b * a).sum()
    return loss, {"a": a}


_GRAPHS = ["the sigmoid of section 2", "exp, then its output times itself",
           "two linear layers, a ReLU output changed", "a weight updated after the forward pass",
           "one tensor saved by two nodes of the same name",
           "a tensor changed before any node saved it",
           "a dot product whose own node saved the changed tensor"]
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


def _ran_backward(error: BaseException | None) -> bool:
    """True when `error` was raised inside torch's backward, which the answer called."""
    frames = traceback.extract_tb(error.__traceback__) if error is not None else []
    return any(f.name in ("backward", "grad", "_engine_run_backward")
               and os.path.abspath(f.filename).startswith(_TORCH) for f in frames)


def _broken_trial(broken_nodes, c) -> list[str]:
    data, ran = snapshot(**c.inputs), []
    try:
        with c.loss.grad_fn.register_prehook(lambda g: ran.append(1)):   # a backward starts here
            result = call_answer(broken_nodes, c.loss, what=c.what, mistakes=BROKEN,
                                 hint="it is called as broken_nodes(loss) and returns a list of "
                                      "node names, such as 'SigmoidBackward0'")
    except CheckFailed as failure:
        if _ran_backward(failure.__cause__):
            raise CheckFailed(f"{str(failure).splitlines()[0]}\nYour function called backward, "
                              f"which raised this error: broken_nodes must not call backward; "
                              f"read each node's _saved_ attributes instead", "backward",
                              frames=failure.learner_frames) from None
        raise
    if ran:
        raise CheckFailed(f"{c.what} ran a backward through the loss\nbroken_nodes must not call "
                          f"backward; read each node's _saved_ attributes instead", "backward")
    if isinstance(result, (set, frozenset)):
        raise CheckFailed(f"{c.what} returned a set; return a list, one entry per node: two "
                          f"different nodes can have the same name")
    if not isinstance(result, (list, tuple)) or not all(isinstance(s, str) for s in result):
        raise CheckFailed(f"{c.what} should return a list of node names (strings, from "
                          f"node.name()), but it returned {describe(result)}")
    expect_unchanged(data, c.what)
    if _names(_walk(c.loss)) != c.right:
        raise CheckFailed(f"{c.what} changed the graph (did it call backward?); it should only "
                          f"read it")
    return sorted(result)


def _graph_case(i: int, label: str):
    loss, inputs = _seeded(lambda g: _graph(i, g), 10 + i)
    return SimpleNamespace(loss=loss, inputs=inputs, right=_names(_walk(loss)),
                           what=f"your broken_nodes(loss), for {label},")


@exercise_check
def check_broken_nodes(broken_nodes: Callable[..., Any]) -> str:
    """Exercise 2: `broken_nodes(loss)`, the name of each node a mutation broke, once, without
    a backward: seven graphs (`_GRAPHS`)."""
    judge([_graph_case(i, label) for i, label in enumerate(_GRAPHS)],
          lambda c: _broken_trial(broken_nodes, c), lambda c: c.right,
          lambda c, got: f"{c.what} returned {got}, expected {c.right}", BROKEN, broken_nodes)
    return "every broken node found, once each, in all seven graphs"


# --------------------------------------------------------------------------- exercise 3
def _modules(i: int, g):
    """Case i of `_SGD_CASES`: (the list given, {name: each module once})."""
    if i == 0:
        emb, head = nn.Embedding(7, 3), nn.Linear(3, 7)
        head.weight = emb.weight                   # tied
        return [emb, head], {"emb": emb, "head": head}
    if i == 1:
        first, mid, last = nn.Linear(4, 3), nn.Linear(3, 3), nn.Linear(3, 2)
        return [first, mid, mid, mid, last], {"first": first, "mid": mid, "last": last}
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.load_state_dict(a.state_dict())              # equal values, different tensors
    return [a, b, a], {"a": a, "b": b}


_SGD_CASES = [("an embedding tied to its output layer", 0.1), ("a layer listed three times", 0.05),
              ("two layers with equal weights, one listed twice", 0.2)]
_MOMENTUM = 0.9
SGD = [
    Mistake("in_test", "Your code raised it in an `in` test: `in` on a list of tensors compares "
            "them with ==, elementwise; compare identities (id(p) or `any(p is q for q in "
            "...)`)", raises=(RuntimeError, "must match the size|ambiguous"), op="CONTAINS_OP"),
    Mistake("ambiguous", "A tensor was used as True or False: == between tensors compares them "
            "entry by entry; compare identities (p is q, or id(p))",
            raises=(RuntimeError, "Boolean value of Tensor")),
    Mistake("groups", "a tied tensor in two parameter groups is refused (section 6): list each "
            "tensor once, in one group", raises=(ValueError, "more than one parameter group")),
]


def _sgd_case(make_sgd, i, label, lr) -> None:
    modules, named = _seeded(lambda g: _modules(i, g), 20 + i)
    params: dict[str, torch.Tensor] = {}
    for m_name, m in named.items():   # each tensor once, under its first name
        params |= {f"{m_name}.{n}": p for n, p in m.named_parameters()
                   if not any(q is p for q in params.values())}
    what = f"your make_sgd(modules, lr={lr}), for {label},"
    optimizer = call_answer(make_sgd, list(modules), lr, what=what, mistakes=SGD, keep=named,
                            hint="it is called as make_sgd(modules, lr) with a list of modules, "
                                 "and returns a torch.optim.SGD")
    if not isinstance(optimizer, torch.optim.SGD):
        raise CheckFailed(f"{what} should return a torch.optim.SGD, but it returned "
                          f"{a_type(optimizer)}")
    held = [p for group in optimizer.param_groups for p in group["params"]]
    for name, p in params.items():
        count = sum(q is p for q in held)
        twin = any(q is not p and q.shape == p.shape and torch.equal(q, p)
                   for q in params.values())
        if count == 0:
            raise CheckFailed(f"{what} does not hold {name}" + (
                ": it has the same values as another parameter, but it is another tensor "
                "(compare tensors by identity, not by value)" if twin else ""))
        if count > 1:
            data_is = code_uses(make_sgd, attr="data", op="IS_OP")
            raise CheckFailed(f"{what} holds {name} {count} times, so each step would move it "
                              f"{count} times: list every tensor once" + (
                                  "\nYou compared .data with `is`: .data makes a new tensor at "
                                  "every access, so `p.data is q.data` is never True; compare p "
                                  "is q" if data_is else ""), *["data_is"] * data_is)
    if len(held) != len(params):
        raise CheckFailed(f"{what} holds {len(held) - len(params)} tensor(s) that are not "
                          f"parameters of these modules")
    for group in optimizer.param_groups:
        if group.get("lr") != lr or group.get("momentum") != _MOMENTUM:
            raise CheckFailed(f"{what} has a group with lr={group.get('lr')} and momentum="
                              f"{group.get('momentum')}; expected lr={lr} and momentum="
                              f"{_MOMENTUM}")
    g = torch.Generator().manual_seed(30 + i)
    start = {name: p.detach().clone() for name, p in params.items()}
    grads = [{name: torch.randn(p.shape, generator=g) for name, p in params.items()}
             for _ in range(2)]
    for step in grads:
        for name, p in params.items():
            p.grad = step[name].clone()
        optimizer.step()
    ref = {name: p0 - lr * grads[0][name] - lr * (_MOMENTUM * grads[0][name] + grads[1][name])
           for name, p0 in start.items()}
    expect_close({name: p.detach() for name, p in params.items()}, ref,
                 f"{what} does not step as SGD with momentum {_MOMENTUM}")


@exercise_check
def check_make_sgd(make_sgd: Callable[..., Any]) -> str:
    """Exercise 3: `make_sgd(modules, lr)`, an SGD with momentum 0.9 holding every parameter
    once, by identity: tied, listed three times, equal values (`_SGD_CASES`); two steps."""
    for i, case in enumerate(_SGD_CASES):
        _sgd_case(make_sgd, i, *case)
    return "every parameter held once, and stepped once a step, in all three cases"
