"""Checks for the exercises of notebook 05, shared weights by hand.

The module carries its own copy of the notebook's code: the tape (`Tape`,
`OverwritingTape`, `lin`, `relu`, `add`, `mse`, `dynamicnet_on_tape`) and the lesson-8 style
`DynamicModel` with `LinShared`, so that a check never depends on the
notebook's globals. They are in `__all__`: after a kernel restart, the
exercise's check cell brings what its answer uses (with a plain `import torch`).

Every check runs the answer on two problems of its own (float64, different
seeds and sizes, nonzero biases) and compares with autograd. Its reference
ReLU is `torch.relu`, whose slope at exactly 0 is 0 on every torch release,
like the notebook's `relu` (`torch.where(x > 0, g, 0)`).
"""

from __future__ import annotations

import functools
from collections import deque, namedtuple

import torch

from helpers.checks._old import (
    CheckFailed,
    a_type,
    call_answer,
    dtype_name,
    exercise_check,
    expect_callable,
    expect_close,
    expect_tensor,
    expect_unchanged,
    passed,
    snapshot,
)
from helpers.compare import compare
from helpers.numerical import autograd_grads

__all__ = ["DynamicModel", "LinShared", "OverwritingTape", "Tape", "add", "check_relu_shared",
           "check_residual", "check_tied", "dynamicnet_on_tape", "lin", "mse", "relu"]


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
        while self.records:
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


def dynamicnet_on_tape(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        h_relu = relu(tape, lin(tape, h_relu, p["w_mid"], p["b_mid"]))
    return lin(tape, h_relu, p["w_out"], p["b_out"])


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


def _dynamicnet(depth, block="plain"):
    """DynamicNet's forward at `depth`; `block` says what each middle block computes."""
    blocks = {
        "plain": lambda h, z: torch.relu(z),
        "residual": lambda h, z: torch.relu(h + z),
        "relu before the sum": lambda h, z: h + torch.relu(z),
        "no relu": lambda h, z: h + z,
    }

    def forward(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
        h = torch.relu(inp @ w_in + b_in)
        for _ in range(depth):
            h = blocks[block](h, h @ w_mid + b_mid)
        return h @ w_out + b_out
    return forward


def _grads(x, params, who):
    """{name: .g} for the input and every parameter; a .g never set counts as zero."""
    out = {}
    for name, t in {"inp": x, **params}.items():
        g = getattr(t, "g", None)
        if g is None:
            g = torch.zeros_like(t)
        if not isinstance(g, torch.Tensor) or g.shape != t.shape:
            raise CheckFailed(f"after {who}, {name}.g is not a tensor of {name}'s shape "
                              f"{tuple(t.shape)}")
        out[name] = g
    return out


def _off_tape(records, leaves):
    """The first (index, op, input) of a record that takes an input no record computed, or None.

    Such an input was made by a plain torch operation (`+`, `.t()`, ...), which
    the tape does not record: no gradient flows back through it.
    """
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
            return "it equals a tensor on the tape but is another object, a copy (.clone())"
        if k.dim() == 2 and same(t, k.t()):
            return "a plain .t() (or .T) of a tensor on the tape made it"
        if same(t, k.clamp_min(0)):
            return "torch.relu (or clamp) of a tensor on the tape made it"
    if any(same(t, plus(a, b)) for j, a in enumerate(known) for b in known[j:]):
        return "a plain + of two tensors on the tape made it"
    return None


def _mask(x):
    return (x > 0).to(x.dtype)


def _g_of(t):
    g = getattr(t, "g", None)
    return g if isinstance(g, torch.Tensor) else None


def _is_zero_or_unset(t):
    g = _g_of(t)
    return getattr(t, "g", None) is None or (g is not None and not g.any())


def _equals(g, want):
    return g is not None and g.shape == want.shape and torch.allclose(g.double(), want)


# -- exercise 1 ---------------------------------------------------------------------------

CALLED = "it is called as layer(inp) and returns the ReLU of inp"


@exercise_check
def check_relu_shared(ReluShared) -> None:
    """Exercise 1: one `ReluShared` object serves every ReLU use of `DynamicModel`.

    Requires: `ReluShared()` takes no argument and gives a layer; `layer(inp)`
    returns the ReLU of `inp` without changing `inp`; each `layer.backward()`
    handles the latest call not handled yet, sets that call's `inp.g` to
    `torch.where(inp > 0, out.g, 0)` (slope 0 at exactly 0, like the
    notebook's `relu`) and leaves `out.g` as it was. Checked by hand on two
    calls whose inputs hold exact zeros, then in `DynamicModel` at depths 0-3
    on two problems, one object for every ReLU use, against autograd.

    Also requires: the output in the input's dtype, and the very tensor it
    records (a copy returned instead is diagnosed); an `inp.g` less precise
    than `inp` (float32 for float64) is diagnosed where it breaks, when the
    layer before multiplies it with float64 weights.

    Diagnosed: an instance passed instead of the class.

    Leaves free: how the calls are kept (a list of tuples, of closures, a
    stack at either end), whether `inp.g` is assigned in `backward` or zeroed
    in `__call__` and added to in `backward`, `torch.where` or a mask times
    `out.g` (any mask dtype), prints.
    """
    expect_callable(ReluShared, "ReluShared")
    if not isinstance(ReluShared, type) and callable(getattr(ReluShared, "backward", None)):
        raise CheckFailed("you passed a ReluShared object: pass the class `ReluShared`, not an "
                          "instance\nThe check makes its own objects: "
                          "check_relu_shared(ReluShared), without ()")
    layer = call_answer(ReluShared, what="ReluShared()",
                        hint="it is called with no argument: ReluShared()")
    if not callable(layer) or not callable(getattr(layer, "backward", None)):
        raise CheckFailed("ReluShared() should give a layer object that can be called on a "
                          "tensor and has a backward() method; it gave "
                          + ("None" if layer is None else f"a {type(layer).__name__}"))
    x1 = torch.tensor([[-1.0, 0.0, 3.0], [2.0, -4.0, 0.0]], dtype=torch.float64)
    x2 = torch.tensor([[4.0, -5.0, 0.0], [0.0, 6.0, -7.0]], dtype=torch.float64)
    before = snapshot(**{"the first call's inp": x1, "the second call's inp": x2})
    o1 = call_answer(layer, x1, what="calling your ReluShared object", hint=CALLED)
    o2 = call_answer(layer, x2, what="calling your ReluShared object", hint=CALLED)
    expect_unchanged(before, "calling your ReluShared object", g=False)
    for which, x, o in (("first", x1, o1), ("second", x2, o2)):
        expect_tensor(o, f"what your object returned for the {which} call", tuple(x.shape))
        if not torch.equal(o.double(), x.clamp_min(0.)):
            raise CheckFailed(f"the {which} call returned the wrong values: layer(inp) should "
                              "return the ReLU of inp, inp.clamp_min(0.)")
        if o.dtype != x.dtype:
            raise CheckFailed(f"the {which} call returned {dtype_name(o.dtype)} for a "
                              f"{dtype_name(x.dtype)} inp; a layer keeps its input's dtype (the "
                              "next layer multiplies it with float64 weights)")

    g1 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    g2 = torch.tensor([[-7.0, 8.0, -9.0], [10.0, -11.0, 12.0]], dtype=torch.float64)
    o1.g, o2.g = g1.clone(), g2.clone()
    upstream = snapshot(**{"the first call's out": o1, "the second call's out": o2})
    held_first = {_holds(layer, o1), _holds(layer, x1)}
    held = {_holds(layer, o1), _holds(layer, o2)}
    try:
        call_answer(layer.backward, what="the first backward of your ReluShared object",
                    hint="it is called as layer.backward(), after out.g has been set")
    except CheckFailed:
        if held == {"a copy"}:
            raise CheckFailed(
                "your ReluShared object returned another object than the one it recorded "
                "(it keeps a tensor equal to what it returned, but not that tensor), so the "
                "out.g that the next layer sets on what it returned never reaches its "
                "backward: record the very tensor you return") from None
        raise
    expect_unchanged(upstream, "your backward")
    if _equals(_g_of(x1), _mask(x1) * g1) and _is_zero_or_unset(x2):
        raise CheckFailed("after two calls, the first backward handled the first call, not the "
                          "latest\nBackward runs in reverse: the latest record first, "
                          "list.pop() (not pop(0))")
    if _g_of(x2) is None:
        raise CheckFailed("after two calls, the first backward did not set inp.g of the latest "
                          "call's input to a tensor")
    _expect_relu_grad(_g_of(x2), x2, g2)
    if not _is_zero_or_unset(x1):
        raise CheckFailed("after two calls, the first backward also changed inp.g of the first "
                          "call's input: it should handle the latest call only")
    first_g = x2.g
    first_value = first_g.clone()
    unpopped = _kept_in_records(layer, o2)

    call_answer(layer.backward, what="the second backward of your ReluShared object",
                hint="it is called as layer.backward(), after out.g has been set")
    expect_unchanged(upstream, "your backward")
    if _is_zero_or_unset(x1):
        again = x2.g is not first_g or not torch.equal(x2.g, first_value)
        if not again:
            why = ""
        elif unpopped:
            why = ("\nYour backward never removes the record it handled: pop it off your "
                   "records (list.pop()), so that the next backward finds the call before")
        elif "the tensor" not in held_first:
            why = ("\nYour object keeps only the last call: keep one (inp, out) record per "
                   "call (a list), and pop the latest one in each backward")
        else:
            why = ("\nEach backward should work on the record it pops, the latest call not "
                   "handled yet")
        raise CheckFailed("after two calls and two backwards, the first call's inp.g is missing"
                          + (": the second backward worked on the latest call again" + why
                             if again else ""))
    _expect_relu_grad(_g_of(x1), x1, g1)
    if not torch.equal(x2.g.double(), first_value.double()):
        raise CheckFailed("the second backward changed inp.g of the second call's input again: "
                          "each backward should handle one call")
    low = next((x for x in (x2, x1) if _less_precise(x.g, x)), None)

    for seed, (n, n_in, nh) in zip((5, 11), PROBLEMS):
        inp, targ, params = _problem(seed, n, n_in, nh)
        shared = call_answer(ReluShared, what="ReluShared()")
        for depth in range(4):
            model = DynamicModel(params, LinShared, Relu=lambda shared=shared: shared)
            x = inp.clone()
            before = snapshot(x=x, **params)
            call_answer(model, x, targ, depth, what=f"the forward pass at depth {depth}, "
                        "with your object as every ReLU", hint=CALLED)
            try:
                call_answer(model.backward, what=f"the backward pass at depth {depth}, with "
                            "your object as every ReLU", hint="each ReLU use calls "
                            "layer.backward() once, in reverse order of the calls")
            except CheckFailed:
                if low is not None:
                    raise CheckFailed(
                        f"the backward pass at depth {depth}, with your object as every ReLU, "
                        f"failed: your backward sets inp.g {dtype_name(low.g.dtype)} while inp is "
                        f"{dtype_name(low.dtype)} (seen in the calls by hand)\nThe layer before "
                        f"the ReLU multiplies it with {dtype_name(low.dtype)} weights, and a "
                        f"matmul refuses mixed dtypes: a gradient keeps its tensor's dtype "
                        f"(torch.where(inp > 0, out.g, 0) does, with no cast after it)") from None
                raise
            expect_unchanged(before, "the pass with your object", g=False)
            expect_close(_grads(x, params, f"backward at depth {depth}"),
                         _reference(_dynamicnet(depth), inp, targ, params),
                         f"with one ReluShared object for every ReLU use, at depth {depth} "
                         f"(batch of {n}, {nh} hidden units) the gradients differ from "
                         "autograd's")
    passed("one ReluShared object serves every use; gradients match autograd at depths 0-3")


def _less_precise(g, t) -> bool:
    return isinstance(g, torch.Tensor) and g.is_floating_point() and \
        torch.finfo(g.dtype).eps > torch.finfo(t.dtype).eps


def _holds(layer, t) -> str | None:
    """"the tensor" when `layer` keeps `t` itself (in an attribute, a list, a tuple, a dict
    or a closure), "a copy" when it keeps only tensors equal to `t`, else None."""
    return _reaches(vars(layer) if hasattr(layer, "__dict__") else {}, t)


def _kept_in_records(layer, t) -> bool:
    """True when `layer` still keeps `t` itself inside a list, deque or dict (its records)."""
    attributes = vars(layer).values() if hasattr(layer, "__dict__") else ()
    return any(_reaches(v, t) == "the tensor" for v in attributes
               if isinstance(v, (list, deque, dict)))


def _reaches(root, t) -> str | None:
    """`_holds`, from any object: what of `t` can be reached from `root`."""
    found, seen, todo = None, set(), [root]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, torch.Tensor):
            if item is t:
                return "the tensor"
            if item.shape == t.shape and item.dtype == t.dtype and torch.equal(item, t):
                found = "a copy"
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, deque)):
            todo.extend(item)
        elif callable(item) and getattr(item, "__closure__", None):
            for cell in item.__closure__:
                try:
                    todo.append(cell.cell_contents)
                except ValueError:  # a cell not filled yet
                    pass
    return found


def _expect_relu_grad(got, x, g):
    """`got` is where(x > 0, g, 0); else a sentence naming the mistake it matches, if any."""
    if got.shape != x.shape:
        raise CheckFailed(f"inp.g has shape {tuple(got.shape)}, but a gradient has the shape of "
                          f"its tensor: {tuple(x.shape)}")
    if _equals(got, _mask(x) * g):
        return
    message = ("inp.g should be torch.where(inp > 0, out.g, 0): out.g where the input was "
               "positive, 0 elsewhere")
    if _equals(got, (x >= 0).double() * g):
        message += ("\nYours also passes it where the input is exactly 0: use inp > 0 (slope 0 "
                    "at 0, as relu and torch.relu)")
    elif _equals(got, g):
        message += "\nYours is out.g itself, with no mask"
    elif _equals(got, _mask(x)):
        message += "\nYours is the mask alone, without out.g"
    raise CheckFailed(message)


# -- exercise 2 ---------------------------------------------------------------------------

RESIDUAL_MISTAKES = {
    "you put the ReLU before the sum; each block must be relu(h_relu + lin(h_relu))":
    "relu before the sum",
    "you left out the ReLU after the sum": "no relu",
    "you left out the skip connection: h_relu itself must be added to the middle layer's "
    "output": "plain",
}


def _residual_mistakes(depth):
    """{sentence: the keywords of `_dynamicnet` that give that mistake} at `depth`."""
    mistakes = {s: {"block": block} for s, block in RESIDUAL_MISTAKES.items()}
    mistakes["your loop ran one block too many (depth + 1)"] = {
        "depth": depth + 1, "block": "residual"}
    if depth:
        mistakes["your loop ran one block too few (depth - 1)"] = {
            "depth": depth - 1, "block": "residual"}
    return mistakes


@exercise_check
def check_residual(residual_dynamicnet, tape_class=Tape) -> None:
    """Exercise 2: DynamicNet with residual middle blocks, on a tape of `tape_class`.

    Requires: `residual_dynamicnet(tape, p, x, depth)` records on `tape` the
    input layer and its ReLU, then `depth` blocks h = relu(h + lin(h, w_mid,
    b_mid)), then the output layer, and returns the prediction (n, 1); `x` and
    the weights are left unchanged. Checked by the tape's backward at depths
    0-3 on two problems, every gradient against autograd: first on this
    module's `Tape` (the answer's own mistakes), then on `tape_class` when it
    is another class. A tape class that keeps only the last share a tensor is
    sent (`OverwritingTape`, `t.g = g`) is diagnosed: from depth 1 each h gets
    two shares, from the sum and from the middle layer.

    Leaves free: how the sum is recorded (the tape's `add` or an op of your
    own), the order of its operands, loops, local names, prints. Diagnosed:
    the ReLU misplaced or missing, no skip connection, one block too many or
    too few, ops recorded off this tape (plain torch ops, another `Tape()`),
    the tape's ops called without the tape, the loss returned.
    """
    expect_callable(residual_dynamicnet, "residual_dynamicnet")
    _expect_tape_class(tape_class)
    classes = (Tape,) if tape_class is Tape else (Tape, tape_class)
    for cls, seed, (n, n_in, nh) in [(c, *s) for c in classes for s in zip((6, 12), PROBLEMS)]:
        inp, targ, params = _problem(seed, n, n_in, nh)
        for depth in range(4):
            _run_on_tape(
                residual_dynamicnet, (depth,),
                f"your residual_dynamicnet at depth {depth}",
                "it is called as residual_dynamicnet(tape, p, x, depth), with p the dict of "
                "weights, and returns the prediction",
                (inp, targ, params),
                functools.partial(_dynamicnet, depth=depth), {"block": "residual"},
                _residual_mistakes(depth),
                f"at depth {depth} (batch of {n}, {nh} hidden units) the gradients differ "
                "from autograd's",
                "the tape's lin, relu and add(tape, x, y)",
                tape_class=cls,
            )
    passed(f"residual DynamicNet on {tape_class.__name__} matches autograd at depths 0-3")


def _expect_tape_class(tape_class):
    """`tape_class` is a class whose objects have `record` and `backward`, like `Tape`."""
    if isinstance(tape_class, type) and all(callable(getattr(tape_class, m, None))
                                            for m in ("record", "backward")):
        return
    given = ("a tape object (pass the class, without ())"
             if callable(getattr(tape_class, "record", None)) else
             "a class without record() and backward()" if isinstance(tape_class, type) else
             a_type(tape_class))
    raise CheckFailed("the second argument should be a tape class, such as Tape or "
                      f"OverwritingTape; you passed {given}")


def _keeps_one_share(tape_class) -> bool:
    """True when a tape of `tape_class` gives b = a + a the gradient 1 instead of 2."""
    tape, a = tape_class(), torch.tensor(1.0, dtype=torch.float64)
    try:
        tape.backward(add(tape, a, a))
    except Exception:  # noqa: BLE001 -- a tape that breaks here is not the `=` mistake
        return False
    g = getattr(a, "g", None)
    return isinstance(g, torch.Tensor) and g.numel() == 1 and float(g) == 1.0


# Names a learner may reach for inside an answer, and where they come from.
NAMES = {
    "name:params": "`params` is the notebook's dict of weights: use `p`, the dict the check "
                   "passes to your function",
    "name:inp": "`inp` is the notebook's data: use `x`, the input the check passes to your "
                "function",
    "name:targ": "your function returns the prediction; the check adds the loss itself",
}

# The tape's ops, as a TypeError about their arguments names them.
OPS = ("lin()", "relu()", "add()", "mse()")
OP_CALLS = "The tape's ops take the tape first: lin(tape, x, w, b), relu(tape, x), add(tape, x, y)"
RECORD = ("record()", "Tape.record()")
RECORD_CALL = ("tape.record takes four arguments: the op's name, its output, the tuple of its "
               "inputs, and the function that turns out.g into one gradient per input")


def _call(answer, *args, what, hint):
    """`call_answer`, with a wrong call of one of the tape's ops inside the answer said so."""
    try:
        return call_answer(answer, *args, what=what, hint=hint, errors=NAMES)
    except CheckFailed as e:
        cause = e.__cause__
        if isinstance(cause, TypeError) and str(cause).startswith(OPS + RECORD):
            first = str(e).split("\n")[0]
            said = RECORD_CALL if str(cause).startswith(RECORD) else OP_CALLS
            raise CheckFailed(f"{first}\n{said}", e.learner_frames) from None
        raise


def _run_on_tape(answer, tail, what, hint, problem, forward, right, mistakes, differ, ops,
                 tape_class=Tape):
    """`answer(tape, params, x, *tail)` on a fresh tape, then the tape's backward, against autograd.

    The reference is autograd's gradient through `forward(**right)`; when ours
    differs, through `forward(**kw)` for each of `mistakes` ({sentence: kw}).
    """
    inp, targ, params = problem
    ref = _reference(forward(**right), inp, targ, params)
    for p in params.values():
        p.g = None
    tape, x = tape_class(), inp.clone()
    before = snapshot(x=x, **params)
    pred = _call(answer, tape, params, x, *tail, what=what, hint=hint)
    expect_unchanged(before, what, g=False)
    if isinstance(pred, torch.Tensor) and pred.dim() == 0:
        raise CheckFailed(f"{what} returned a single number: it should return the prediction, "
                          f"of shape {(inp.shape[0], 1)}; the check adds the loss itself")
    expect_tensor(pred, f"what {what} returned", (inp.shape[0], 1))
    if not tape.records:
        raise CheckFailed(
            f"after {what} returned, the tape the check gave it held no records\n"
            "Record every op on that tape, the `tape` argument (not on a Tape() of your own), "
            "and leave its backward to the check")
    loss = mse(tape, pred, targ)
    records = list(tape.records)
    call_answer(tape.backward, loss, what=f"the tape's backward after {what}",
                hint="every op on the tape must return one gradient per input")
    expect_unchanged(before, f"the tape's backward after {what}", g=False)
    ours = _grads(x, params, f"the tape's backward after {what}")
    cmp = compare(ours, ref)
    if cmp.ok:
        return
    if tape_class is not Tape:  # the answer passed on Tape: the tape class is wrong
        name = tape_class.__name__
        why = (f"{name} keeps only the last share a tensor is sent (t.g = g), and from "
               "depth 1 each h_relu gets two: from the add and from the middle lin"
               if _keeps_one_share(tape_class) else
               f"Your function passed on the course's Tape: the difference is in {name}")
        raise CheckFailed(f"on {name}, {differ.replace('the gradients', 'gradients')}: wrong "
                          f"for {', '.join(cmp.failures)}\n{why}")
    leaves = [x, *params.values()]
    found = _off_tape(records, leaves)
    if found is not None:
        i, op, t = found
        where = ("the prediction you returned was not computed by an op on the tape"
                 if i == len(records) - 1 else
                 f"the {op} record #{i} takes an input that no op on the tape computed")
        made = _made_off_tape(t, [rec.out for rec in records[:i]] + leaves)
        why = (f"That tensor: {made}; a torch operation outside the tape's ops is "
               "not recorded, so no gradient flows back through it" if made else
               "Was it computed by a plain torch operation, or recorded on another Tape? "
               "Neither sends a gradient back through this tape")
        raise CheckFailed(f"{differ}: {where}\n{why}\nRecord every op on the tape your "
                          f"function is given, with {ops}")
    expect_close(ours, ref, differ, mistakes={
        s: _reference(forward(**kw), inp, targ, params) for s, kw in mistakes.items()})


# -- exercise 3 ---------------------------------------------------------------------------

def _tied(untied=False, detached=False, swapped=False, no_last_relu=False):
    def forward(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
        w_tied = w_mid if untied else (w_mid.detach() if detached else w_mid).t()
        first, second = (w_tied, w_mid) if swapped else (w_mid, w_tied)
        h = torch.relu(inp @ w_in + b_in)
        h = torch.relu(h @ first + b_mid)
        h = h @ second + b_mid
        h = h if no_last_relu else torch.relu(h)
        return h @ w_out + b_out
    return forward


TIED_MISTAKES = {
    "you used w_mid untransposed in the third layer": dict(untied=True),
    "the transposed use's share never reached w_mid (was w_mid.t() computed off the tape?)":
        dict(detached=True),
    "you used the two w_mid layers in the other order (the transposed one first)":
        dict(swapped=True),
    "you left out the ReLU after the third layer": dict(no_last_relu=True),
}


@exercise_check
def check_tied(transpose, tied_net) -> None:
    """Exercise 3: a `transpose` op, and a net that uses w_mid twice, once transposed.

    Requires: `transpose(tape, x)` returns `x.t()` without changing `x`, and
    records one op on `tape` with `x` as its only input and the returned
    tensor as its output, whose backward takes out.g (unchanged) and returns a
    one-gradient tuple, out.g transposed. `tied_net(tape, p, x)` records the
    input layer, a layer with w_mid, a layer with w_mid transposed (both with
    b_mid), a ReLU after each hidden layer, then the output layer, and returns
    the prediction (n, 1). Checked on two non-square tensors, then by the
    tape's backward on two problems against autograd.

    Leaves free: `.t()`, `.T`, `.transpose(0, 1)` or `.permute(1, 0)`, copies
    (`.contiguous()`), local names, prints.
    """
    expect_callable(transpose, "transpose")
    expect_callable(tied_net, "tied_net")
    gen = torch.Generator().manual_seed(3)
    for shape in ((2, 3), (4, 1)):
        _check_transpose(transpose, shape, gen)

    for seed, (n, n_in, nh) in zip((7, 13), PROBLEMS):
        inp, targ, params = _problem(seed, n, n_in, nh)
        _run_on_tape(
            tied_net, (),
            "your tied_net",
            "it is called as tied_net(tape, p, x), with p the dict of weights, and returns "
            "the prediction",
            (inp, targ, params), _tied, {}, TIED_MISTAKES,
            f"the tied network's gradients (batch of {n}, {nh} hidden units) differ from "
            "autograd's",
            "your transpose(tape, x), and lin and relu",
        )
    passed("transpose is right, and the tied network on the tape matches autograd")


def _check_transpose(transpose, shape, gen):
    tape = Tape()
    x = torch.randn(*shape, generator=gen, dtype=torch.float64)
    before = snapshot(x=x)
    out = _call(transpose, tape, x, what="your transpose",
                hint="it is called as transpose(tape, x) and returns x's transpose, "
                     "recorded on the tape")
    expect_unchanged(before, "your transpose", g=False)
    expect_tensor(out, f"transpose(tape, x) for an x of shape {shape}", shape[::-1])
    if not torch.equal(out.double(), x.t()):
        raise CheckFailed("transpose(tape, x) returned the wrong values: it should return x.t()")
    rec = tape.records[0] if len(tape.records) == 1 else None
    if rec is None or len(rec.inputs) != 1 or rec.inputs[0] is not x or rec.out is not out:
        raise CheckFailed("transpose should record exactly one op on the tape, with x as its "
                          "only input and the tensor it returns as its output")
    g = torch.randn(*shape[::-1], generator=gen, dtype=torch.float64)
    upstream = snapshot(**{"out.g": g})
    sent = call_answer(rec.backward, g, what="your transpose's backward",
                       hint="it is called with out.g and returns a tuple with one gradient, "
                            "for x")
    expect_unchanged(upstream, "your transpose's backward", g=False)
    if not isinstance(sent, (tuple, list)) or len(sent) != 1:
        raise CheckFailed("transpose's backward should return a tuple with one gradient, "
                          "(g_x,)")
    grad = expect_tensor(sent[0], "the gradient your transpose's backward sends to x")
    if grad.shape != x.shape or not torch.allclose(grad.double(), g.t()):
        raise CheckFailed(
            "transpose's backward sends the wrong gradient to x: entry (i, j) of x is entry "
            "(j, i) of the output, so x gets out.g transposed"
            + (f" (yours has out.g's shape {tuple(g.shape)}, x has {tuple(x.shape)})"
               if grad.shape == g.shape else ""))
