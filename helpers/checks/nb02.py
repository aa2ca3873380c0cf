"""Checks for the exercises of notebook 02, layers as objects.

The module holds its own copies of the notebook's `Module` layers (`Module`,
`Lin`, `Relu`, `Mse`, section 4) and a `Chain` (the question's `Model`, given
its layers), so that no check depends on a class or tensor the notebook
defines or later changes. A learner's `Mul` may subclass either the
notebook's `Module` or this one, or none: the checks only call a layer and its
`backward`, exactly as `Model` does.

The Exercises section imports what its answers use from here (`Module`,
`torch`), so that it runs after a kernel restart, and `small_chain()`, a
model to try Exercise 1's `chain_ok` on by hand.
"""

from __future__ import annotations

import torch

from helpers.checks import (
    CheckFailed,
    call_answer,
    dtype_name,
    exercise_check,
    expect_callable,
    expect_close,
    expect_int,
    expect_tensor,
    expect_unchanged,
    passed,
    read_g,
    snapshot,
)
from helpers.data import make_weights, synthetic_regression
from helpers.numerical import autograd_grads

__all__ = ["Module", "check_chain_ok", "check_mul", "check_outer_bytes", "small_chain",
           "torch"]


# -- the notebook's layers, copied (section 4) ----------------------------------------------

# recap of 02 §4
class Module:
    """Stores the inputs in `self.args` and the output in `self.out`, and returns that output."""

    def __call__(self, *args):
        self.args = args
        self.out = self.forward(*args)
        return self.out

    def forward(self, *args):
        raise NotImplementedError

    def backward(self):
        self.bwd(self.out, *self.args)


# recap of 02 §4
class Lin(Module):
    def __init__(self, w, b):
        self.w, self.b = w, b

    def forward(self, inp):
        return inp @ self.w + self.b

    def bwd(self, out, inp):
        inp.g = out.g @ self.w.t()
        self.w.g = inp.t() @ out.g
        self.b.g = out.g.sum(0)


# recap of 02 §4
class Relu(Module):
    def forward(self, inp):
        return inp.clamp_min(0.)

    def bwd(self, out, inp):
        inp.g = torch.where(inp > 0, out.g, 0)


class Mse(Module):
    def forward(self, inp, targ):
        return (inp.squeeze(-1) - targ).pow(2).mean()

    def bwd(self, out, inp, targ):
        inp.g = 2. * (inp.squeeze(-1) - targ).unsqueeze(-1) / targ.shape[0]


class Chain:
    """The question's `Model` (02 §2), given its layers and its loss."""

    def __init__(self, layers, loss):
        self.layers, self.loss = layers, loss

    def __call__(self, x, targ):
        for layer in self.layers:
            x = layer(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for layer in reversed(self.layers):
            layer.backward()


# -- Exercise 1 -----------------------------------------------------------------------------

def _handing_on(cls, kind):
    """A subclass of layer `cls` that stores its output but hands the next layer `kind` of it.

    kind "copy": `out.clone()` (equal values, another object); "view": `out.view(out.shape)`
    (the same memory, another object).
    """
    def __call__(self, *args):
        out = cls.__call__(self, *args)
        return out.clone() if kind == "copy" else out.view(out.shape)

    return type(cls.__name__, (cls,), {"__call__": __call__})


# (hidden widths, broken link, how): link k joins layers[k] to the next layer (or the loss)
_CHAINS = [
    ((6,), None, None),
    ((6,), 0, "copy"),
    ((6,), 1, "copy"),
    ((6,), 2, "copy"),
    ((6,), 1, "view"),
    ((5, 4), None, None),
    ((5, 4), 3, "view"),
    ((), None, None),
    ((), 0, "copy"),
]


def _links(widths) -> int:
    """How many links a chain through `widths` has: one a layer (the last one to the loss)."""
    return 2 * len(widths) + 1


# What each mistake answers on each chain, given (links, broken, kind); the learner's
# answers on all nine chains are compared with these, to name a mistake only when the
# answer behaves exactly as that mistake does.
_MISTAKES = {
    "you compared values (torch.equal, ==): a copy has equal values, yet is another "
    "object, with its own .g; use `is`":
        lambda n, k, kind: True,
    "you compared memory (data_ptr): a view shares it, yet is another object, with its "
    "own .g; use `is`":
        lambda n, k, kind: k is None or kind == "view",
    "you left out the last link, the last layer's .out to model.loss.args[0]":
        lambda n, k, kind: k is None or k == n - 1,
    "you skipped the first link, layers[0].out to layers[1].args[0]":
        lambda n, k, kind: k is None or k == 0,
    "you tested only the link to the loss; the links between layers count too":
        lambda n, k, kind: k is None or k != n - 1,
    "you returned True when any link holds; a chain is whole when all do":
        lambda n, k, kind: k is None or n > 1,
    "you returned the opposite verdict, False for every whole chain":
        lambda n, k, kind: k is not None,
    "you compared other pairs than a layer's .out and the next one's .args[0] "
    "(args is a tuple)":
        lambda n, k, kind: False,
}


def _chain(widths, broken, kind, seed):
    """A `Chain` of Lin/Relu layers through `widths`, run forward on fresh data."""
    g = torch.Generator().manual_seed(seed)
    n_in = 3 + seed % 4
    inp = torch.randn(7 + seed, n_in, generator=g)
    targ = torch.randn(7 + seed, generator=g)
    sizes, layers = [n_in, *widths, 1], []
    for k, (a, b) in enumerate(zip(sizes, sizes[1:])):
        if k:
            layers.append(Relu())
        layers.append(Lin(torch.randn(a, b, generator=g), torch.randn(b, generator=g)))
    if broken is not None:
        layer = layers[broken]
        layer.__class__ = _handing_on(type(layer), kind)
    model = Chain(layers, Mse())
    model(inp, targ)
    return model


def small_chain(broken=False):
    """A `Lin -> Relu -> Lin -> Mse` chain that has run forward, to try `chain_ok` on by hand.

    broken=True: the `Relu` hands the second `Lin` a copy of its output (equal values,
    another object), so the chain is not whole.
    """
    return _chain((6,), 1 if broken else None, "copy", seed=0)


def _describe_chain(model, broken, kind) -> str:
    names = " -> ".join(type(layer).__name__ for layer in [*model.layers, model.loss])
    if broken is None:
        return f"a whole chain, {names}"
    nxt = "model.loss" if broken == len(model.layers) - 1 else f"layers[{broken + 1}]"
    what = "a copy of its output" if kind == "copy" else "a view of its output"
    return f"{names}, where layers[{broken}] hands {nxt} {what}"


def _stored(model):
    """The objects each layer and the loss hold, to tell later whether chain_ok changed them."""
    return [(layer, layer.out, layer.args) for layer in [*model.layers, model.loss]]


def _tensors(model):
    """{place: tensor} for every tensor the model holds: outputs, inputs, weights."""
    found = {}
    for k, layer in enumerate([*model.layers, model.loss]):
        where = "model.loss" if layer is model.loss else f"layers[{k}]"
        found[f"{where}.out"] = layer.out
        found.update({f"{where}.args[{j}]": t for j, t in enumerate(layer.args)})
        for name in ("w", "b"):
            if isinstance(getattr(layer, name, None), torch.Tensor):
                found[f"{where}.{name}"] = getattr(layer, name)
    return found


def _attributes(model):
    """Each tensor of the model with a copy of its values and of its attributes (`.g`, ...)."""
    return [(place, t, t.detach().clone(), dict(vars(t))) for place, t in _tensors(model).items()]


def _expect_untouched(attributes) -> None:
    for place, t, value, attrs in attributes:
        now = vars(t)
        added = [name for name in now if name not in attrs]
        changed = [name for name in attrs if name not in now or now[name] is not attrs[name]]
        if added or changed:
            name = (added or changed)[0]
            raise AssertionError(
                f"your chain_ok changed the model: {place} "
                + (f"has a new attribute .{name}" if added else f"had its .{name} changed")
                + ("; chain_ok should only look, not run model.backward(), which writes .g"
                   if name == "g" else "; chain_ok should only look")
            )
        if not torch.equal(t.detach(), value):
            raise AssertionError(f"your chain_ok changed the values of {place} in place; "
                                 "chain_ok should only look")


def _numpy(value) -> bool:
    return type(value).__module__.split(".")[0] == "numpy"


def _as_bool(got):
    """`got` as a Python bool if it is one: a Python or NumPy bool, or a 0-d bool tensor."""
    if isinstance(got, bool):
        return got
    if _numpy(got) and getattr(getattr(got, "dtype", None), "kind", "") == "b" \
            and getattr(got, "ndim", 1) == 0:
        return bool(got)
    if isinstance(got, torch.Tensor) and got.dtype == torch.bool and got.dim() == 0:
        return bool(got.item())
    what = "None (a function with no `return` gives None)" if got is None else \
        f"{got!r}, of type {type(got).__name__}"
    raise AssertionError("chain_ok should return True or False, got " + what)


# Errors a learner's chain_ok raises that the notebook has taught: (type, text, diagnosis).
_CHAIN_ERRORS = [
    (RuntimeError, "ambiguous", "== compares two tensors entry by entry and gives a tensor; "
                                "whether two names are one object is asked with `is`"),
]
# The question's layers store their input as `.inp`; a Module layer keeps it in `.args`.
_READ_INP = ("chain_ok read layer.inp, which Module layers do not have:\n"
             "they keep their inputs in layer.args, and the input is layer.args[0]")


def _call_chain_ok(chain_ok, model):
    try:
        return call_answer(chain_ok, model, what="your chain_ok",
                           hint="it is called as chain_ok(model), with one argument")
    except CheckFailed as e:
        cause, message = e.__cause__, str(e)
        if isinstance(cause, AttributeError) and getattr(cause, "name", None) == "inp" \
                and hasattr(getattr(cause, "obj", None), "args"):
            raise CheckFailed(_READ_INP) from None     # says where: no frame
        for kind, text, diagnosis in _CHAIN_ERRORS:
            if isinstance(cause, kind) and text in str(cause) and "\n" not in message:
                raise CheckFailed(f"{message}\n{diagnosis}", e.learner_frames) from None
        raise


@exercise_check
def check_chain_ok(chain_ok) -> None:
    """Exercise 1: `chain_ok(model)` tells whole chains of objects from broken ones.

    Runs `chain_ok` on nine models of `Module` layers (one, three or five
    layers, each with `.layers` and `.loss`, like `Model`) that have run
    forward: three whole ones and six with one broken link, first, middle or
    last (to the loss), broken by a copy or by a view (same memory, another
    object).

    Requires: True exactly when every layer's `.out` *is* the object the next
    layer stored as `.args[0]` and the last layer's `.out` is
    `model.loss.args[0]`, else False (a Python or NumPy bool, or a 0-d bool
    tensor); the model left as it was (no layer's `.out` or `.args` replaced;
    no tensor of the model, output, input or weight, given a new attribute
    such as the `.g` a backward writes, or changed). An answer that reads the
    question's `layer.inp` is told where a `Module` layer keeps its input
    (`layer.args[0]`). A wrong verdict names the first chain judged wrong
    and, when the answers on all nine chains are exactly those of a known
    mistake (values, memory, a link left out, `any`, other pairs), that
    mistake. Leaves free: how the links are walked (zip,
    indices, a loop with an early return) and how identity is tested (`is`,
    `id(a) == id(b)`).
    """
    expect_callable(chain_ok, "chain_ok")
    answers = []
    for seed, (widths, broken, kind) in enumerate(_CHAINS):
        model = _chain(widths, broken, kind, seed)
        before, attributes = _stored(model), _attributes(model)
        got = _call_chain_ok(chain_ok, model)
        for layer, out, args in before:
            if layer.out is not out or layer.args is not args:
                raise AssertionError(
                    f"your chain_ok changed the model: {type(layer).__name__}.out or .args "
                    "holds another object after the call; chain_ok should only look"
                )
        _expect_untouched(attributes)
        answers.append((_as_bool(got), model))
    wrong = [(got, model, case) for (got, model), case in zip(answers, _CHAINS)
             if got is not (case[1] is None)]
    if not wrong:
        passed(f"chain_ok: all {len(_CHAINS)} chains judged right")
        return
    got, model, (_, broken, kind) = wrong[0]
    seen = [got for got, _ in answers]
    matched = [mistake for mistake, says in _MISTAKES.items()
               if seen == [says(_links(w), k, h) for w, k, h in _CHAINS]]
    second = ("All nine verdicts fit this mistake: " + "; or ".join(matched)
              if matched else f"It judged {len(wrong)} of the {len(_CHAINS)} chains wrong.")
    raise AssertionError(f"chain_ok returned {got} for {_describe_chain(model, broken, kind)}"
                         f"\n{second}")


# -- Exercise 2 -----------------------------------------------------------------------------

# (seed, shape, dtype, what b is, whether the inputs carry a stale .g from an earlier run)
_MUL_CASES = [
    (3, (5, 3), torch.float32, "other", False),
    (4, (4, 6), torch.float64, "other", True),
    (5, (6, 2), torch.float32, "same", False),
    (6, (3, 5), torch.float64, "same", True),
    (7, (4, 4), torch.float32, "view", True),
    (8, (2, 7), torch.float64, "copy", False),
]

_PAIRS = {"other": "two tensors", "view": "a tensor and its view",
          "copy": "a tensor and its copy"}
_STALE = ("you added the shares to the .g left from an earlier run: give each .g a zero "
          "start before the backward pass")
_TWO_OBJECTS = {"view": "a view of a", "copy": "a copy of a"}
_NO_G = "+= needs a .g to add to: give each .g a zero start before the backward pass"


def _new_mul(Mul):
    layer = call_answer(Mul, what="Mul()",
                        hint="it is called as Mul(), with no arguments: a Module subclass "
                             "needs no __init__")
    if not callable(layer):
        raise AssertionError(
            f"Mul() made {type(layer).__name__!r} object, which cannot be called as a layer: "
            "subclass Module (it has __call__ and backward) and write forward and bwd"
        )
    return layer


def _mul_forward(layer, a, b, shape):
    """Run the layer forward on (a, b); check it returns a * b, the object it keeps as .out."""
    before = snapshot(a=a, b=b)
    out = call_answer(layer, a, b, what="your Mul's forward pass",
                      hint="a layer with two inputs is called as layer(a, b); Module.__call__ "
                           "calls self.forward(a, b), stores what it returns as self.out and "
                           "returns it")
    expect_unchanged(before, "your Mul's forward pass", g=False)
    if out is None and "__call__" in vars(type(layer)):
        raise AssertionError("your Mul's __call__ returned None: return what "
                             "super().__call__(a, b) returns, the output it stored")
    expect_tensor(out, "what your Mul returned", shape)
    if out.dtype != a.dtype:
        raise AssertionError(f"your Mul returned {out.dtype} for {a.dtype} inputs; a layer "
                             "keeps its inputs' dtype")
    a0, b0 = before["a"][1], before["b"][1]
    expect_close({"a * b": out}, {"a * b": a0 * b0},
                 "your Mul's forward pass should return a * b",
                 mistakes={"you added a and b instead of multiplying them": {"a * b": a0 + b0}})
    if getattr(layer, "out", None) is not out:
        raise AssertionError(
            "your Mul returned another object than its self.out, so the next layer's .g "
            "never reaches its backward: subclass Module, write forward and bwd"
        )
    return out, a0, b0


def _mul_backward(layer):
    if not callable(getattr(layer, "backward", None)):
        raise AssertionError("your Mul has no backward method: subclass Module, which has one")
    try:
        call_answer(layer.backward, what="your Mul's backward",
                    hint="it is called as layer.backward(); Module.backward calls "
                         "self.bwd(self.out, *self.args), i.e. bwd(self, out, a, b)")
    except CheckFailed as e:
        cause, message = e.__cause__, str(e)
        if isinstance(cause, AttributeError) and "attribute 'g'" in str(cause) \
                and "\n" not in message:
            raise CheckFailed(f"{message}\n{_NO_G}", e.learner_frames) from None
        raise


def _mul_case(Mul, seed, shape, dtype, how, stale):
    gen = torch.Generator().manual_seed(seed)

    def randn():
        return torch.randn(*shape, generator=gen, dtype=dtype)

    a = randn()
    b = {"other": randn, "same": lambda: a, "view": lambda: a.view(shape),
         "copy": lambda: a.clone()}[how]()
    old = {}
    if stale:
        for name, t in (("a", a), ("b", b)):
            old[name] = randn()
            t.g = old[name].clone()        # an answer's += may change t.g in place
    layer = _new_mul(Mul)
    out, a0, b0 = _mul_forward(layer, a, b, shape)

    up = randn()
    out.g = up
    upstream, inputs = snapshot(out=out), snapshot(a=a, b=b)
    _mul_backward(layer)
    expect_unchanged(upstream, "your Mul's backward")
    expect_unchanged(inputs, "your Mul's backward", g=False)

    if how == "same":
        share = up * a0
        what = "for Mul()(x, x), x.g should be 2 * out.g * x, its share as a plus its share as b"
        mistakes = {"the second share replaced the first: here a and b are one tensor, "
                    "with one .g": {"x.g": share},
                    "you left out the upstream gradient out.g": {"x.g": 2 * a0}}
        if stale:
            mistakes[_STALE] = {"x.g": old["a"] + 2 * share}
        expect_close({"x.g": read_g(a, "x", "your Mul's backward")}, {"x.g": 2 * share},
                     what, mistakes=mistakes)
        return
    ours = {"a.g": read_g(a, "a", "your Mul's backward"),
            "b.g": read_g(b, "b", "your Mul's backward")}
    ref = {"a.g": up * b0, "b.g": up * a0}
    mistakes = {"you swapped the shares: a.g is out.g * b, b.g is out.g * a":
                {"a.g": up * a0, "b.g": up * b0},
                "you left out the upstream gradient out.g": {"a.g": b0, "b.g": a0}}
    if stale:
        mistakes[_STALE] = {"a.g": old["a"] + ref["a.g"], "b.g": old["b"] + ref["b.g"]}
    if how == "other":        # (for a view or a copy, the mistake below gives these numbers)
        both = ref["a.g"] + ref["b.g"]
        mistakes["a.g and b.g are one object (a.g = b.g = torch.zeros_like(a) does "
                 "that), so each share lands in both: give each its own zeros"] = {
            "a.g": both, "b.g": both}
    if how in _TWO_OBJECTS:
        mistakes[f"you took a and b for one tensor: b is {_TWO_OBJECTS[how]}, yet "
                 "another object, with its own .g; test with `is`"] = {
            "a.g": 2 * ref["a.g"], "b.g": 2 * ref["b.g"]}
    expect_close(ours, ref, f"for Mul()(a, b) on {_PAIRS[how]}, a.g should be out.g * b "
                 "and b.g out.g * a", mistakes=mistakes)


_NETWORK = "where h feeds two Muls (h * h * h)"


def _mul_network(Mul, seed=9):
    """`Lin -> Mul(h, h) -> Mul(q, h) -> Lin -> Mse`: h feeds two Muls; every gradient
    against autograd."""
    inp, targ = synthetic_regression(n=12, n_in=5, seed=seed, dtype=torch.float64)
    w1, b1, w2, b2 = make_weights(5, 6, seed=seed, dtype=torch.float64)
    lin1, square, cube = Lin(w1, b1), _new_mul(Mul), _new_mul(Mul)
    lin2, loss = Lin(w2, b2), Mse()
    h = lin1(inp)
    q, _, _ = _mul_forward(square, h, h, tuple(h.shape))
    r, _, _ = _mul_forward(cube, q, h, tuple(h.shape))
    loss(lin2(r), targ)
    loss.backward()
    lin2.backward()
    _mul_backward(cube)
    _mul_backward(square)
    g = read_g(h, "h", "your Mul's backward")
    if torch.finfo(g.dtype).eps > torch.finfo(h.dtype).eps:
        raise AssertionError(
            f"{_NETWORK}, your Mul's backward left h.g {dtype_name(g)}, h being "
            f"{dtype_name(h)}: the Lin before it cannot multiply mixed dtypes.\n"
            f"torch.zeros_like(a) keeps a's dtype; torch.zeros(a.shape) is float32")
    up = r.g                                  # what the second Lin's backward sent back
    expect_close({"h.g": g}, {"h.g": 3 * h * h * up},
                 f"{_NETWORK}, h.g should be the sum of their shares",
                 mistakes={"your backward replaced h.g (zeroed it, or used =) after the "
                           "other Mul had added its share: zero each .g before the backward "
                           "pass":
                           {"h.g": 2 * h * h * up}})
    lin1.backward()
    tensors = dict(inp=inp, w1=w1, b1=b1, w2=w2, b2=b2)

    def loss_fn(inp, w1, b1, w2, b2):
        h = inp @ w1 + b1
        return (((h * h * h) @ w2 + b2).squeeze(-1) - targ).pow(2).mean()

    ours = {name: read_g(t, name, "the backward pass") for name, t in tensors.items()}
    expect_close(ours, autograd_grads(loss_fn, tensors), f"{_NETWORK}, the gradients")


@exercise_check
def check_mul(Mul) -> None:
    """Exercise 2: a layer class `Mul` with two inputs, `a * b`, whose shares add up.

    Runs `Mul()(a, b)` forward and backward on six pairs (float32 and
    float64, several shapes): two tensors; one tensor twice, `Mul()(x, x)`;
    a tensor and its view (same memory, another object); a tensor and its
    copy; three of them with a stale `.g` on the inputs from an earlier run.
    Then runs `Lin -> Mul(h, h) -> Mul(q, h) -> Lin -> Mse`, where h feeds two
    Muls and the second one's backward runs first, and compares h.g (the sum
    of both shares) and all five gradients with autograd.

    Requires: `Mul()` with no arguments; calling it on (a, b) returns a * b,
    the very object it stores as `self.out`, and leaves the values of a and b
    as they were; its `backward()` leaves `a.g == out.g * b` and
    `b.g == out.g * a` when a and b are two objects (whatever they held
    before the call), `x.g == 2 * out.g * x` when they are one, adds to a
    share that another layer's backward wrote on the same tensor after the
    call, and leaves `out` and `out.g` as they were; in the network, `h.g` at
    least as precise as `h` (float64). So zeroing `.g` inside `bwd`, or
    assigning a share with `=`, is rejected (the network erases a share).
    Leaves free: where the zero start is given (overriding `__call__`, in
    `forward`, a layer without the `Module` base), how it is made
    (`zeros_like`, `a * 0`, ...), `+=` or `a.g = a.g + ...`.
    """
    if not isinstance(Mul, type):
        raise AssertionError(
            "pass the class itself, check_mul(Mul), not an instance or a function "
            f"(got {'None' if Mul is None else 'a ' + type(Mul).__name__})"
        )
    for case in _MUL_CASES:
        _mul_case(Mul, *case)
    _mul_network(Mul)
    passed(f"Mul: right on {len(_MUL_CASES)} pairs, Mul()(x, x) included, and "
           "where h feeds two Muls")


# -- Exercise 3 -----------------------------------------------------------------------------

MNIST_LAYER = (784, 50)


def _mnist_bytes(n: int) -> int:
    return n * MNIST_LAYER[0] * MNIST_LAYER[1] * 4


@exercise_check
def check_outer_bytes(outer_bytes, max_rows) -> None:
    """Exercise 3: `outer_bytes(N, n_in, n_out, dtype)` and the largest batch under 1 GB.

    Requires: `outer_bytes` returns the bytes of the (N, n_in, n_out) temporary
    (as measured on a real one) for float16, bfloat16, float32 and float64,
    with float32 as the default dtype; `max_rows` is an int (a Python or
    NumPy int, or a 0-d integer tensor), the largest N whose 784 -> 50 float32
    temporary takes at most 10**9 bytes. A float, even a whole one, is refused
    with a sentence. Leaves free: how the bytes an entry are found (itemsize,
    element_size, finfo bits), an int or a whole float from outer_bytes, how
    max_rows is found (//, floor, a search, NumPy).
    """
    hint = "it is called as outer_bytes(N, n_in, n_out, dtype) and returns a number"
    for N, n_in, n_out, dtype in [(3, 5, 2, torch.float32), (4, 3, 7, torch.float64),
                                  (2, 6, 3, torch.float16), (5, 2, 9, torch.bfloat16)]:
        tmp = torch.zeros(N, n_in, 1, dtype=dtype) * torch.zeros(N, 1, n_out, dtype=dtype)
        expected, numel = tmp.numel() * tmp.element_size(), tmp.numel()
        got = call_answer(outer_bytes, N, n_in, n_out, dtype, what="your outer_bytes", hint=hint)
        if got == expected:
            continue
        size = tmp.element_size()
        if got == numel:
            why = f"that is the number of entries; times {size} bytes each"
        elif got == 8 * expected:
            why = "that is bits, not bytes: a byte has 8 bits"
        elif got == 4 * numel:
            why = f"that counts 4 bytes an entry; {dtype} has {size}"
        else:
            why = f"{numel} entries (N * n_in * n_out) of {size} bytes"
        raise AssertionError(
            f"outer_bytes({N}, {n_in}, {n_out}, {dtype}) returned {got!r}, not "
            f"{expected} bytes: {why}"
        )
    got = call_answer(outer_bytes, 50_000, *MNIST_LAYER, what="outer_bytes(50_000, 784, 50)",
                      hint="it is called without dtype here, so dtype needs a default: "
                           "dtype=torch.float32")
    if got != _mnist_bytes(50_000):
        raise AssertionError(
            f"outer_bytes(50_000, 784, 50) returned {got!r}, not "
            f"{_mnist_bytes(50_000):,} bytes: float32 is the default dtype"
        )
    if isinstance(max_rows, float) and max_rows.is_integer():
        raise AssertionError(
            f"max_rows is the float {max_rows!r}, not an int: arithmetic with a float "
            "(1e9 is one) gives a float; use int(...), or 10**9"
        )
    if isinstance(max_rows, float):
        raise AssertionError(
            f"max_rows is {max_rows!r}, a fraction of a row, not an int: round down "
            "with int(...), or // on ints"
        )
    rows = expect_int(max_rows, "max_rows, a number of rows,")
    if _mnist_bytes(rows) > 1e9:
        raise AssertionError(
            f"max_rows = {rows} does not fit: {_mnist_bytes(rows):,} bytes, over 1 GB "
            "(10**9 bytes)"
        )
    if _mnist_bytes(rows + 1) <= 1e9:
        raise AssertionError(
            f"max_rows = {rows} fits, but so does {rows + 1} "
            f"({_mnist_bytes(rows + 1):,} bytes): find the largest N that fits"
        )
    passed(f"outer_bytes right; at most {rows} rows fit in 1 GB")
