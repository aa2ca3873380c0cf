"""Checks for the exercises of notebook 05, shared weights by hand. The module carries its
own copy of the notebook's tape and its ops and of `DynamicModel` with `LinShared` (in
`__all__`, for the check cells); every check compares with autograd on two problems of its
own, whose ReLU, `torch.relu`, has the notebook's slope 0 at 0."""

from __future__ import annotations

import functools
from collections import deque, namedtuple
from types import SimpleNamespace

import torch

from helpers.checks import (
    CheckFailed,
    Mistake,
    a_type,
    call_answer,
    dtype_name,
    exercise_check,
    expect_callable,
    expect_tensor,
    expect_unchanged,
    judge,
    snapshot,
)
from helpers.compare import compare
from helpers.numerical import autograd_grads

__all__ = ["DynamicModel", "LinShared", "OverwritingTape", "Tape", "add", "check_relu_shared",
           "check_residual", "check_tied", "lin", "mse", "relu"]


# -- recap of 05 §2: the tape and its ops ------------------------------------------------

Record = namedtuple("Record", "op out inputs backward")


class Tape:
    """One record per op call; backward walks them in reverse and adds into `.g`."""

    def __init__(self):
        self.records = []

    def record(self, op, out, inputs, backward):
        self.records.append(Record(op, out, inputs, backward))
        return out

    def send(self, t, g):
        t.g += g

    def start(self, loss):
        for rec in self.records:
            for t in (rec.out, *rec.inputs):
                t.g = torch.zeros_like(t)
        loss.g = torch.ones_like(loss)

    def backward(self, loss):
        if not self.records:
            raise RuntimeError("the tape is empty: run a forward pass first "
                               "(backward consumes it)")
        self.start(loss)
        with torch.no_grad():     # .g holds numbers: build no autograd graph
            while self.records:   # newest first: all users of rec.out are done
                rec = self.records.pop()
                for t, g in zip(rec.inputs, rec.backward(rec.out.g)):
                    self.send(t, g)


class OverwritingTape(Tape):
    """05 §3's tape with the lesson-8 habit: `send` assigns, so a tensor keeps one share."""

    def send(self, t, g):
        t.g = g


def lin(tape, x, w, b):
    out = x @ w + b
    return tape.record("lin", out, (x, w, b), lambda g: (g @ w.t(), x.t() @ g, g.sum(0)))


def relu(tape, x):
    out = x.clamp_min(0.)
    return tape.record("relu", out, (x,), lambda g: (torch.where(x > 0, g, 0),))


def mse(tape, pred, targ):
    diff = pred.squeeze(-1) - targ
    return tape.record("mse", diff.pow(2).mean(), (pred,),
                       lambda g: (g * 2. * diff.unsqueeze(-1) / len(targ),))


def add(tape, x, y):
    return tape.record("add", x + y, (x, y), lambda g: (g, g))


# -- recap of 05 §1: the lesson-8 style model --------------------------------------------

class Relu:
    def __call__(self, inp):
        self.inp, self.out = inp, inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = torch.where(self.inp > 0, self.out.g, 0)


class Mse:
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        self.out = (inp.squeeze(-1) - targ).pow(2).mean()
        return self.out

    def backward(self):
        diff = self.inp.squeeze(-1) - self.targ
        self.inp.g = 2. * diff.unsqueeze(-1) / self.targ.shape[0]


class LinShared:
    """The notebook's `LinShared`: one (inp, out) record per call, `+=` into the weights' `.g`."""

    def __init__(self, w, b):
        self.w, self.b = w, b
        self.calls = []

    def __call__(self, inp):
        out = inp @ self.w + self.b
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = out.g @ self.w.t()
        self.w.g += inp.t() @ out.g
        self.b.g += out.g.sum(0)


class DynamicModel:
    """The notebook's `DynamicModel(params, Lin, Relu)`: layers rebuilt by each forward pass."""

    def __init__(self, params, Lin, Relu=Relu):
        self.params, self.Relu, self.loss = params, Relu, Mse()
        self.input_linear = Lin(params["w_in"], params["b_in"])
        self.middle_linear = Lin(params["w_mid"], params["b_mid"])
        self.output_linear = Lin(params["w_out"], params["b_out"])

    def __call__(self, x, targ, depth):
        self.layers = [self.input_linear, self.Relu()]
        for _ in range(depth):
            self.layers += [self.middle_linear, self.Relu()]
        self.layers.append(self.output_linear)
        for layer in self.layers:
            x = layer(x)
        return self.loss(x, targ)

    def backward(self):
        for p in self.params.values():
            p.g = torch.zeros_like(p)
        self.loss.backward()
        for layer in reversed(self.layers):
            layer.backward()


# -- data, references, reading .g ----------------------------------------------------------
PROBLEMS = ((32, 4, 6), (9, 3, 5))  # (n, n_in, nh): two sizes, each with its own seed


def _problem(seed, n, n_in, nh):
    """Fresh float64 inputs, targets and DynamicNet weights (w as (in, out)), nonzero biases."""
    g = torch.Generator().manual_seed(seed)

    def rand(*shape, scale=1.0):
        return scale * torch.randn(*shape, generator=g, dtype=torch.float64)

    inp, targ = rand(n, n_in), rand(n)
    params = {"w_in": rand(n_in, nh, scale=n_in ** -0.5), "b_in": rand(nh, scale=0.1),
              "w_mid": rand(nh, nh, scale=nh ** -0.5), "b_mid": rand(nh, scale=0.1),
              "w_out": rand(nh, 1, scale=nh ** -0.5), "b_out": rand(1, scale=0.1)}
    return inp, targ, params


def _reference(forward, inp, targ, params):
    """autograd's gradients of mse(forward(inp, **params), targ), for inp and every weight."""
    def loss_fn(inp, **p):
        return (forward(inp, **p).squeeze(-1) - targ).pow(2).mean()
    return autograd_grads(loss_fn, {"inp": inp, **params})


def _dynamicnet(depth, residual=False):
    """DynamicNet's forward at `depth`, plain or with residual middle blocks."""
    def forward(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
        h = torch.relu(inp @ w_in + b_in)
        for _ in range(depth):
            h = torch.relu((h if residual else 0) + h @ w_mid + b_mid)
        return h @ w_out + b_out
    return forward


def _grads(x, params, who):
    """{name: .g} for the input and every parameter; a .g never set counts as zero."""
    out = {}
    for name, t in {"inp": x, **params}.items():
        g = getattr(t, "g", None)
        g = torch.zeros_like(t) if g is None else g
        if not isinstance(g, torch.Tensor) or g.shape != t.shape:
            raise CheckFailed(f"after {who}, {name}.g is not a tensor of {name}'s shape "
                              f"{tuple(t.shape)}")
        out[name] = g
    return out


def _off_tape(records, leaves):
    """(index, op, input) of the first record whose input no record computed, or None."""
    made = [rec.out for rec in records]
    for i, rec in enumerate(records):
        for t in rec.inputs:
            if not any(t is m for m in made[:i]) and not any(t is leaf for leaf in leaves):
                return i, rec.op, t
    return None


def _made_off_tape(t, known):
    """Which plain torch operation of tensors on the tape (`known`) gives `t`, or None."""
    def same(a, b):
        return b is not None and a.shape == b.shape and torch.allclose(a.double(), b.double())

    def plus(a, b):
        try:
            return a + b
        except RuntimeError:  # shapes that do not broadcast
            return None
    if not isinstance(t, torch.Tensor):
        return None
    for k in known:
        if same(t, k):
            return ("it equals a tensor on the tape but is another object (a .clone() or a "
                    ".detach())")
        if k.dim() == 2 and same(t, k.t()):
            return "a plain .t() (or .T) of a tensor on the tape made it"
        if same(t, k.clamp_min(0)):
            return "torch.relu (or clamp) of a tensor on the tape made it"
    if any(same(t, plus(a, b)) for j, a in enumerate(known) for b in known[j:]):
        return "a plain + of two tensors on the tape made it"
    return None


# -- exercise 1 ---------------------------------------------------------------------------
CALLED = "it is called as layer(inp) and returns the ReLU of inp"
_X1, _X2, _G1, _G2 = torch.tensor([[[-1, 0, 3], [2, -4, 0]], [[4, -5, 0], [0, 6, -7]], [
    [1, 2, 3], [4, 5, 6]], [[-7, 8, -9], [10, -11, 12]]], dtype=torch.float64)  # 2 inputs, 2 out.g


class _ReluShared:
    """The right ReluShared, or a mistaken one: records popped from the `front`, the latest
    call handled `again` and again, another `mask`."""
    front, again, mask = False, False, "gt"

    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls[-1] if self.again else self.calls.pop(0 if self.front else -1)
        inp.g = {"gt": (inp > 0) * out.g, "ge": (inp >= 0) * out.g, "none": out.g,
                 "only": (inp > 0).float()}[self.mask]


RELU = [Mistake(key, says, gives=lambda c, f=flags: _relu_trial(
    type("ReluShared", (_ReluShared,), f), c, {})) for key, says, flags in [
    ("front", "you popped the records from the front: backward runs in reverse, the latest "
     "record first, list.pop() (not pop(0))", dict(front=True)),
    ("again", "each backward handled the latest call again: keep one (inp, out) record per "
     "call, and let each backward pop the latest one and work on that record", dict(again=True)),
    ("ge", "you passed out.g where the input is exactly 0 too: use inp > 0 (slope 0 at 0, as "
     "relu and torch.relu)", dict(mask="ge")),
    ("no_mask", "you passed out.g on everywhere, with no mask: the ReLU's slope is 0 where its "
     "input is not positive", dict(mask="none")),
    ("mask_only", "you set inp.g to the mask alone, without out.g", dict(mask="only"))]]


def _relu_trial(ReluShared, c, seen: dict) -> dict:
    """Case "hand": two calls of one object on inputs with exact zeros, then two backwards:
    each call's inp.g after each backward (zeros where none is set); else `_relu_model`."""
    if c != "hand":
        return _relu_model(ReluShared, c, seen)
    x1, x2 = _X1.clone(), _X2.clone()
    layer = call_answer(ReluShared, what="ReluShared()",
                        hint="it is called with no argument: ReluShared()")
    if not callable(layer) or not callable(getattr(layer, "backward", None)):
        raise CheckFailed("ReluShared() should give a layer object that can be called on a "
                          "tensor and has a backward() method; it gave " + a_type(layer))
    outs = [call_answer(layer, x, what="calling your ReluShared object", hint=CALLED, keep={
        f"the {which} call's inp": x}, allow=("*.g",)) for which, x in zip(("first", "second"),
                                                                         (x1, x2))]
    for which, x, o in (("first", x1, outs[0]), ("second", x2, outs[1])):
        expect_tensor(o, f"what your object returned for the {which} call", tuple(x.shape))
        if not torch.equal(o.double(), x.clamp_min(0.)):
            raise CheckFailed(f"the {which} call returned the wrong values: layer(inp) should "
                              "return the ReLU of inp, inp.clamp_min(0.)")
        if o.dtype != x.dtype:
            raise CheckFailed(f"the {which} call returned {dtype_name(o.dtype)} for a "
                              f"{dtype_name(x.dtype)} inp; a layer keeps its input's dtype (the "
                              "next layer multiplies it with float64 weights)")
    outs[0].g, outs[1].g = _G1.clone(), _G2.clone()
    upstream = snapshot(**{"the first call's out": outs[0], "the second call's out": outs[1]})
    held = {_reaches(vars(layer) if hasattr(layer, "__dict__") else {}, o) for o in outs}
    got = {}
    for n in (1, 2):
        try:
            call_answer(layer.backward, what=f"the {('first', 'second')[n - 1]} backward of "
                        "your ReluShared object", hint="it is called as layer.backward(), "
                        "after out.g has been set")
        except CheckFailed:
            if held == {"a copy"}:
                raise CheckFailed("your ReluShared object returned another object than the "
                                  "one it recorded (it keeps a tensor equal to what it "
                                  "returned, but not that tensor), so the out.g that the next "
                                  "layer sets on what it returned never reaches its backward: "
                                  "record the very tensor you return") from None
            raise
        expect_unchanged(upstream, "your backward")
        for k, x in ((2, x2), (1, x1)):
            g = getattr(x, "g", None)
            got[f"call {k}'s inp.g after backward {n}"] = g.clone() if isinstance(
                g, torch.Tensor) else 0 * x
            if isinstance(g, torch.Tensor) and g.is_floating_point() and \
                    torch.finfo(g.dtype).eps > torch.finfo(x.dtype).eps:
                seen["low"] = (g.dtype, x.dtype)
    for g in got.values():
        if g.shape != x1.shape:
            raise CheckFailed(f"inp.g has shape {tuple(g.shape)}, but a gradient has the shape "
                              f"of its tensor: {tuple(x1.shape)}")
    return got


def _relu_model(ReluShared, c, seen: dict) -> dict:
    """DynamicModel at depth c[2], one object for every ReLU use: every gradient."""
    seed, (n, n_in, nh), depth = c
    inp, targ, params = _problem(seed, n, n_in, nh)
    shared = call_answer(ReluShared, what="ReluShared()")
    model = DynamicModel(params, LinShared, Relu=lambda: shared)
    x = inp.clone()
    every = f"at depth {depth}, with your object as every ReLU"
    before = snapshot(x=x, p=params)
    call_answer(model, x, targ, depth, what=f"the forward pass {every}", hint=CALLED)
    try:
        call_answer(model.backward, what=f"the backward pass {every}", hint="each ReLU use "
                    "calls layer.backward() once, in reverse order of the calls")
    except CheckFailed:
        if "low" in seen:
            low, dtype = (dtype_name(t) for t in seen["low"])
            raise CheckFailed(
                f"the backward pass {every}, failed: your backward sets inp.g {low} while inp "
                f"is {dtype} (seen in the calls by hand)\nThe layer before the ReLU multiplies "
                f"it with {dtype} weights, and a matmul refuses mixed dtypes: a gradient keeps "
                f"its tensor's dtype (torch.where(inp > 0, out.g, 0) does)", "dtype") from None
        raise
    expect_unchanged(before, "the pass with your object", allow=("*.g",))
    return _grads(x, params, f"backward at depth {depth}")


def _relu_what(c, got):
    if c != "hand":
        return (f"with one ReluShared object for every ReLU use, at depth {c[2]} (batch of "
                f"{c[1][0]}, {c[1][2]} hidden units) the gradients differ from autograd's")
    unset = {k: not g.any() for k, g in got.items()}
    if unset["call 2's inp.g after backward 1"]:
        return ("after two calls, the first backward " + (
            "handled the first call, not the latest." if not unset[
                "call 1's inp.g after backward 1"] else
            "did not set inp.g of the latest call's input."))
    if unset["call 1's inp.g after backward 2"]:
        return "after two calls and two backwards, the first call's inp.g is missing."
    return ("inp.g should be torch.where(inp > 0, out.g, 0): out.g where the input was "
            "positive, 0 elsewhere.")


@exercise_check
def check_relu_shared(ReluShared) -> str:
    """Exercise 1: one `ReluShared` object serves every ReLU use: by hand on two calls with exact
    zeros, then in `DynamicModel` at depths 0-3."""
    expect_callable(ReluShared, "ReluShared")
    if not isinstance(ReluShared, type) and callable(getattr(ReluShared, "backward", None)):
        raise CheckFailed("you passed a ReluShared object: pass the class `ReluShared`, not an "
                          "instance\nThe check makes its own objects: "
                          "check_relu_shared(ReluShared), without ()")
    cases = ["hand"] + [(seed, p, d) for seed, p in zip((5, 11), PROBLEMS) for d in range(4)]
    seen: dict = {}
    judge(cases, lambda c: _relu_trial(ReluShared, c, seen), lambda c: _relu_trial(
        _ReluShared, c, {}) if c == "hand" else _reference(_dynamicnet(c[2]), *_problem(
            c[0], *c[1])), _relu_what, RELU, ReluShared)
    return "one ReluShared object serves every use; gradients match autograd at depths 0-3"


def _reaches(root, t) -> str | None:
    """"the tensor" when `root` holds `t` itself (in lists, tuples, dicts), "a copy" when it
    holds only tensors equal to it, else None."""
    todo, found = [root], None
    while todo:
        item = todo.pop()
        if isinstance(item, torch.Tensor) and item is t:
            return "the tensor"
        if isinstance(item, torch.Tensor) and item.shape == t.shape and torch.equal(item, t):
            found = "a copy"
        todo += item.values() if isinstance(item, dict) else item if isinstance(
            item, (list, tuple, deque)) else []
    return found


# -- exercises 2 and 3: functions that record on a tape ------------------------------------
TAPE = [
    Mistake("name:params", "`params` is the notebook's dict of weights: use `p`, the dict the "
            "check passes to your function"),
    Mistake("name:inp", "`inp` is the notebook's data: use `x`, the input the check passes to "
            "your function"),
    Mistake("name:targ", "your function returns the prediction; the check adds the loss itself"),
    Mistake("op_call", "The tape's ops take the tape first: lin(tape, x, w, b), relu(tape, x), "
            "add(tape, x, y)", raises=(TypeError, r"^(lin|relu|add|mse)\(\)")),
    Mistake("record_call", "tape.record takes four arguments: the op's name, its output, the "
            "tuple of its inputs, and the function that turns out.g into one gradient per "
            "input", raises=(TypeError, r"^(Tape\.)?record\(\)")),
]


def _on_tape(answer, tail, c, ops, tape_class=Tape) -> dict:
    """`answer(tape, p, x, *tail)` on a fresh tape, then its backward: every .g (where they
    differ from autograd's, an input no op on the tape computed is named)."""
    inp, targ, params = _problem(*c.problem)
    for p in params.values():
        p.g = None
    tape, x = tape_class(), inp.clone()
    pred = call_answer(answer, tape, params, x, *tail, what=c.who, hint=c.hint, mistakes=TAPE,
                       keep=dict(x=x, p=params), allow=("*.g",))
    if isinstance(pred, torch.Tensor) and pred.dim() == 0:
        raise CheckFailed(f"{c.who} returned a single number: it should return the prediction, "
                          f"of shape {(len(inp), 1)}; the check adds the loss itself")
    expect_tensor(pred, f"what {c.who} returned", (len(inp), 1))
    if not tape.records:
        raise CheckFailed(f"after {c.who} returned, the tape the check gave it held no records"
                          "\nRecord every op on that tape, the `tape` argument (not on a Tape() "
                          "of your own), and leave its backward to the check")
    loss = mse(tape, pred, targ)
    records = list(tape.records)
    call_answer(tape.backward, loss, what=f"the tape's backward after {c.who}",
                hint="every op on the tape must return one gradient per input",
                keep=dict(x=x, p=params), allow=("*.g",))
    ours = _grads(x, params, f"the tape's backward after {c.who}")
    found = None if compare(ours, c.right()).ok else _off_tape(records, [x, *params.values()])
    if found is not None:
        i, op, t = found
        where = ("the prediction you returned was not computed by an op on the tape"
                 if i == len(records) - 1 else
                 f"the {op} record #{i} takes an input that no op on the tape computed")
        made = _made_off_tape(t, [rec.out for rec in records[:i]] + [x, *params.values()])
        why = (f"That tensor: {made}; a torch operation outside the tape's ops is not "
               "recorded, so no gradient flows back through it" if made else
               "Was it computed by a plain torch operation, or recorded on another Tape? "
               "Neither sends a gradient back through this tape")
        raise CheckFailed(f"{c.what}: {where}\n{why}\nRecord every op on the tape your "
                          f"function is given, with {ops}")
    return ours


# -- exercise 2 ---------------------------------------------------------------------------
def _residual(block="residual", more=0):
    """The residual DynamicNet on a tape, or (`block`, `more` blocks) a mistaken one."""
    def forward(tape, p, x, depth):
        h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
        for _ in range(depth + more):
            z = lin(tape, h, p["w_mid"], p["b_mid"])
            if block == "plain":
                h = relu(tape, z)
            elif block == "relu before the sum":
                h = add(tape, h, relu(tape, z))
            else:
                h = add(tape, h, z) if block == "no relu" else relu(tape, add(tape, h, z))
        return lin(tape, h, p["w_out"], p["b_out"])
    return lambda c: _on_tape(forward, (c.depth,), c, "", c.cls)


RESIDUAL = [
    Mistake("relu_first", "you put the ReLU before the sum; each block must be "
            "relu(h_relu + lin(h_relu))", gives=_residual("relu before the sum")),
    Mistake("no_relu", "you left out the ReLU after the sum", gives=_residual("no relu")),
    Mistake("no_skip", "you left out the skip connection: h_relu itself must be added to the "
            "middle layer's output", gives=_residual("plain")),
    Mistake("more", "your loop ran one block too many (depth + 1)", gives=_residual(more=1)),
    Mistake("fewer", "your loop ran one block too few (depth - 1)", gives=_residual(more=-1)),
]
OVERWRITES = ("a tape keeps only the last share a tensor is sent (t.g = g): from depth 1 each "
              "h_relu gets two, from the add and from the middle lin")


def _keeps_one_share(tape_class) -> bool:
    """True when a tape of `tape_class` gives b = a + a the gradient 1 instead of 2."""
    tape, a = tape_class(), torch.tensor(1.0, dtype=torch.float64)
    try:
        tape.backward(add(tape, a, a))
    except Exception:  # noqa: BLE001 -- a tape that breaks here is not the `=` mistake
        return False
    g = getattr(a, "g", None)
    return isinstance(g, torch.Tensor) and g.numel() == 1 and float(g) == 1.0


def _case(problem, forward, **more):
    """A case: `c.right()`, autograd's gradients of `forward`; `c.reference(f)`, of f."""
    c = SimpleNamespace(problem=problem, **more)
    c.reference = lambda f: _reference(f, *_problem(*problem))
    c.right = functools.partial(c.reference, forward)
    return c


@exercise_check
def check_residual(residual_dynamicnet, tape_class=Tape) -> str:
    """Exercise 2: DynamicNet with residual middle blocks, on a tape of `tape_class`: the
    tape's backward against autograd at depths 0-3, on `Tape`, then on `tape_class`."""
    expect_callable(residual_dynamicnet, "residual_dynamicnet")
    if not (isinstance(tape_class, type) and all(callable(getattr(tape_class, m, None))
                                                 for m in ("record", "backward"))):
        raise CheckFailed("the second argument should be a tape class, such as Tape or "
                          "OverwritingTape; you passed " + (
                              "a tape object (pass the class, without ())"
                              if callable(getattr(tape_class, "record", None)) else
                              "a class without record() and backward()"
                              if isinstance(tape_class, type) else a_type(tape_class)))
    name = tape_class.__name__
    cases = [_case((seed, *p), _dynamicnet(d, residual=True), depth=d, cls=cls, what=(
        f"{'' if cls is Tape else f'on {name}, '}at depth {d} (batch of {p[0]}, {p[2]} hidden "
        f"units) {'the ' if cls is Tape else ''}gradients differ from autograd's"),
        who=f"your residual_dynamicnet at depth {d}", hint="it is called as residual_dynamicnet("
        "tape, p, x, depth), with p the dict of weights, and returns the prediction")
             for cls in ((Tape,) if tape_class is Tape else (Tape, tape_class))
             for seed, p in zip((6, 12), PROBLEMS) for d in range(4)]
    tape = [Mistake("tape_class", OVERWRITES if _keeps_one_share(tape_class) else
                    f"your function is right, and {name} is not: it passed on the course's "
                    f"Tape", gives=_residual())] * (tape_class is not Tape)
    judge(cases, lambda c: _on_tape(residual_dynamicnet, (c.depth,), c, "the tape's lin, relu "
                                    "and add(tape, x, y)", c.cls),
          lambda c: c.right(), lambda c, _: c.what, [*RESIDUAL, *tape], residual_dynamicnet)
    return f"residual DynamicNet on {name} matches autograd at depths 0-3"


# -- exercise 3 ---------------------------------------------------------------------------
def _tied(untied=False, swapped=False, no_last_relu=False):
    def forward(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
        w_tied = w_mid if untied else w_mid.t()
        first, second = (w_tied, w_mid) if swapped else (w_mid, w_tied)
        h = torch.relu(inp @ w_in + b_in)
        h = torch.relu(h @ first + b_mid)
        h = h @ second + b_mid
        h = h if no_last_relu else torch.relu(h)
        return h @ w_out + b_out
    return forward


TIED = [
    Mistake("untied", "you used w_mid untransposed in the third layer",
            gives=lambda c: c.reference(_tied(untied=True))),
    Mistake("swapped", "you used the two w_mid layers in the other order (the transposed one "
            "first)", gives=lambda c: c.reference(_tied(swapped=True))),
    Mistake("no_last_relu", "you left out the ReLU after the third layer",
            gives=lambda c: c.reference(_tied(no_last_relu=True))),
]


@exercise_check
def check_tied(transpose, tied_net) -> str:
    """Exercise 3: a `transpose` op (x.t(), its backward out.g transposed), and a net using
    w_mid twice, once transposed: on two tensors, then against autograd."""
    expect_callable(transpose, "transpose")
    expect_callable(tied_net, "tied_net")
    gen = torch.Generator().manual_seed(3)
    for shape in ((2, 3), (4, 1)):
        _check_transpose(transpose, shape, gen)
    cases = [_case((seed, *p), _tied(), who="your tied_net", what=f"the tied network's gradients "
                   f"(batch of {p[0]}, {p[2]} hidden units) differ from autograd's",
                   hint="it is called as tied_net(tape, p, x), with p the dict of weights, and "
                        "returns the prediction") for seed, p in zip((7, 13), PROBLEMS)]
    judge(cases, lambda c: _on_tape(tied_net, (), c, "your transpose(tape, x), and lin and relu"),
          lambda c: c.right(), lambda c, _: c.what, TIED, tied_net)
    return "transpose is right, and the tied network on the tape matches autograd"


def _check_transpose(transpose, shape, gen):
    tape = Tape()
    x = torch.randn(*shape, generator=gen, dtype=torch.float64)
    out = call_answer(transpose, tape, x, what="your transpose", mistakes=TAPE,
                      hint="it is called as transpose(tape, x) and returns x's transpose, "
                           "recorded on the tape", keep=dict(x=x))
    expect_tensor(out, f"transpose(tape, x) for an x of shape {shape}", shape[::-1])
    if not torch.equal(out.double(), x.t()):
        raise CheckFailed("transpose(tape, x) returned the wrong values: it should return x.t()")
    rec = tape.records[0] if len(tape.records) == 1 else None
    if rec is None or len(rec.inputs) != 1 or rec.inputs[0] is not x or rec.out is not out:
        raise CheckFailed("transpose should record exactly one op on the tape, with x as its "
                          "only input and the tensor it returns as its output")
    g = torch.randn(*shape[::-1], generator=gen, dtype=torch.float64)
    sent = call_answer(rec.backward, g, what="your transpose's backward",
                       hint="it is called with out.g and returns a tuple with one gradient, for x",
                       keep={"out.g": g})
    if not isinstance(sent, (tuple, list)) or len(sent) != 1:
        raise CheckFailed("transpose's backward should return a tuple with one gradient, (g_x,)")
    grad = expect_tensor(sent[0], "the gradient your transpose's backward sends to x")
    if grad.shape != x.shape or not torch.allclose(grad.double(), g.t()):
        raise CheckFailed(
            "transpose's backward sends the wrong gradient to x: entry (i, j) of x is entry "
            "(j, i) of the output, so x gets out.g transposed"
            + (f" (yours has out.g's shape {tuple(g.shape)}, x has {tuple(x.shape)})"
               if grad.shape == g.shape else ""))
