"""Checks for the exercises of notebook 02, layers as objects. The module holds its own copy
of the notebook's `Module` layers (section 4) and a `Chain` (the question's `Model`); a
learner's `Mul` may subclass either `Module`, or none. `small_chain()` is a model to try
Exercise 1's `chain_ok` on by hand."""

from __future__ import annotations

import numbers
import textwrap

import torch

from helpers.checks import (
    CheckFailed,
    Mistake,
    call_answer,
    code_uses,
    describe,
    dtype_name,
    exercise_check,
    expect_callable,
    expect_tensor,
    judge,
    matching,
    read_g,
)
from helpers.data import make_weights, synthetic_regression

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
    """A subclass of layer `cls` that stores its output but hands the next layer `kind` of it:
    "copy", `out.clone()` (equal values, another object); "view", `out.view(out.shape)`."""
    def __call__(self, *args):
        out = cls.__call__(self, *args)
        return out.clone() if kind == "copy" else out.view(out.shape)

    return type(cls.__name__, (cls,), {"__call__": __call__})


# (hidden widths, broken link, how): link k joins layers[k] to the next layer (or the loss)
_CHAINS = [((6,), None, None), ((6,), 0, "copy"), ((6,), 1, "copy"), ((6,), 2, "copy"),
           ((6,), 1, "view"), ((5, 4), None, None), ((5, 4), 3, "view"), ((), None, None),
           ((), 0, "copy")]


def _says(verdict):
    """`gives` of a mistake from its verdict on (links, broken link, how)."""
    return lambda case: verdict(2 * len(case[0]) + 1, case[1], case[2])


_DATA = dict(seen=lambda a: code_uses(a, attr="data", op="IS_OP"))
_NOT_DATA = dict(seen=lambda a: not code_uses(a, attr="data", op="IS_OP"))
CHAIN = [
    Mistake("values", "you compared values (torch.equal, ==): a copy has equal values, yet is "
            "another object, with its own .g; use `is`", gives=_says(lambda n, k, kind: True)),
    Mistake("memory", "you compared memory (data_ptr): a view shares it, yet is another object, "
            "with its own .g; use `is`",
            gives=_says(lambda n, k, kind: k is None or kind == "view")),
    Mistake("last", "you left out the last link, the last layer's .out to model.loss.args[0]",
            gives=_says(lambda n, k, kind: k is None or k == n - 1)),
    Mistake("first", "you skipped the first link, layers[0].out to layers[1].args[0]",
            gives=_says(lambda n, k, kind: k is None or k == 0)),
    Mistake("loss_only", "you tested only the link to the loss; the links between layers "
            "count too", gives=_says(lambda n, k, kind: k is None or k != n - 1)),
    Mistake("any", "you returned True when any link holds; a chain is whole when all do",
            gives=_says(lambda n, k, kind: k is None or n > 1)),
    Mistake("inverted", "you returned the opposite verdict, False for every whole chain",
            gives=_says(lambda n, k, kind: k is not None)),
    Mistake("data_is", "you compared .data with `is`: each .data is a new tensor, so "
            "`a.data is b.data` is never True; use the tensors",
            gives=_says(lambda n, k, kind: False), **_DATA),
    Mistake("pairs", "you compared other pairs than a layer's .out and the next one's "
            ".args[0] (args is a tuple)", gives=_says(lambda n, k, kind: False), **_NOT_DATA),
    Mistake("ambiguous", "== compares two tensors entry by entry and gives a tensor; whether "
            "two names are one object is asked with `is`", raises=(RuntimeError, "ambiguous")),
    Mistake("inp", "Module layers keep their inputs in layer.args, not layer.inp (the "
            "question's layers): the input is layer.args[0]",
            raises=(AttributeError, "object has no attribute 'inp'"),
            seen=lambda a: not code_uses(a, attr="args")),
]


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
        layers[broken].__class__ = _handing_on(type(layers[broken]), kind)
    model = Chain(layers, Mse())
    model(inp, targ)
    return model


def small_chain(broken=False):
    """A `Lin -> Relu -> Lin -> Mse` chain that has run forward, to try `chain_ok` on; with
    broken=True the `Relu` hands the second `Lin` a copy of its output: not whole."""
    return _chain((6,), 1 if broken else None, "copy", seed=0)


def _describe_chain(widths, broken, kind) -> str:
    names = " -> ".join(["Lin", *["Relu", "Lin"] * len(widths), "Mse"])
    if broken is None:
        return f"a whole chain, {names}"
    nxt = "model.loss" if broken == 2 * len(widths) else f"layers[{broken + 1}]"
    return f"{names}, where layers[{broken}] hands {nxt} a {kind} of its output"


def _as_bool(got):
    """`got` as a Python bool if it is one: a Python or NumPy bool, or a 0-d bool tensor."""
    numpy = type(got).__module__.split(".")[0] == "numpy" and getattr(
        getattr(got, "dtype", None), "kind", "") == "b" and getattr(got, "ndim", 1) == 0
    tensor = isinstance(got, torch.Tensor) and got.dtype == torch.bool and got.dim() == 0
    if isinstance(got, bool) or numpy or tensor:
        return bool(got)
    what = "None (a function with no `return` gives None)" if got is None else \
        f"{got!r}, of type {type(got).__name__}"
    raise CheckFailed("chain_ok should return True or False, got " + what)


def _chain_trial(chain_ok, seed, case):
    model = _chain(*case, seed)
    got = call_answer(chain_ok, model, what="your chain_ok", mistakes=CHAIN, keep=dict(model=model),
                      hint="it is called as chain_ok(model), with one argument",
                      g="chain_ok should only look, not run model.backward(), which writes .g")
    return _as_bool(got)


@exercise_check
def check_chain_ok(chain_ok) -> str:
    """Exercise 1: `chain_ok(model)` tells whole chains of objects from broken ones: nine
    models run forward, three whole, six with a link broken by a copy or a view."""
    expect_callable(chain_ok, "chain_ok")
    got = [_chain_trial(chain_ok, seed, case) for seed, case in enumerate(_CHAINS)]
    wrong = [(g, case) for g, case in zip(got, _CHAINS) if g is not (case[1] is None)]
    if not wrong:
        return f"chain_ok: all {len(_CHAINS)} chains judged right"
    named = matching(CHAIN, _CHAINS, got, chain_ok)
    second = textwrap.wrap("All nine verdicts fit this mistake: " + "; or ".join(
        m.says for m in named) if named else f"It judged {len(wrong)} of the 9 chains wrong.", 79)
    second = "\n".join(second) if len(second) < 3 else " ".join(second)   # 3 lines at most
    raise CheckFailed(f"chain_ok returned {wrong[0][0]} for {_describe_chain(*wrong[0][1])}"
                      f"\n{second}", *[m.key for m in named])


# -- Exercise 2 -----------------------------------------------------------------------------
# (seed, shape, dtype, what b is, whether the inputs carry a stale .g from an earlier run);
# then the network, where h feeds two Muls
_MUL_CASES = [(3, (5, 3), torch.float32, "other", False), (4, (4, 6), torch.float64, "other", True),
              (5, (6, 2), torch.float32, "same", False), (6, (3, 5), torch.float64, "same", True),
              (7, (4, 4), torch.float32, "view", True), (8, (2, 7), torch.float64, "copy", False),
              (9, None, torch.float64, "network", False)]
_PAIRS = {"other": "two tensors", "view": "a tensor and its view",
          "copy": "a tensor and its copy"}


class _Mul(Module):
    """The right Mul, or a mistaken one: where .g starts at zero (`zero`), `add` (+= or =),
    the `shares`, `one` zero tensor for both, a and b taken for one `by` values or memory."""
    zero, add, shares, one, by = "call", True, "right", False, None

    def __call__(self, a, b):
        if self.zero == "call" and self.one:
            a.g = b.g = torch.zeros_like(a)
        elif self.zero == "call":
            a.g, b.g = torch.zeros_like(a), torch.zeros_like(b)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        for t in (a, b):
            if self.zero == "bwd" or (self.zero == "missing" and not hasattr(t, "g")):
                t.g = torch.zeros_like(t)
        two = self.by == "equal" and torch.equal(a, b) or (
            self.by == "ptr" and a.data_ptr() == b.data_ptr())
        up = torch.ones_like(out.g) if self.shares == "no_up" else out.g
        for t, other in ((a, b), (b, a)):
            share = 2 * up * t if two else up * (t if self.shares == "swapped" else other)
            if self.add:
                t.g += share
            else:
                t.g = share


_ASSIGNED = ", and assigned them with =, where a .g that takes two shares needs +="
MUL = [Mistake(key, says, gives=lambda c, f=flags: _mul_trial(type("Mul", (_Mul,), f), c))
       for key, says, flags in [
    ("replaced", "a share replaced what was in .g (= instead of +=): where a and b are one "
     "tensor, or h feeds two Muls, one .g takes two shares", dict(add=False)),
    ("zero_bwd", "your backward replaced h.g (zeroed it, or used = for a share) after the "
     "other Mul had added its share: zero each .g before the backward pass, then add",
     dict(zero="bwd")),
    ("stale", "you added the shares to the .g left from an earlier run: give each .g a zero "
     "start before the backward pass", dict(zero="missing")),
    ("one_zeros", "a.g and b.g are one object (a.g = b.g = torch.zeros_like(a) does that), so "
     "each share lands in both: give each its own zeros", dict(one=True)),
    ("swapped", "you swapped the shares: a.g is out.g * b, b.g is out.g * a",
     dict(shares="swapped")),
    ("swapped=", "you swapped the shares (a.g is out.g * b, b.g is out.g * a)" + _ASSIGNED,
     dict(shares="swapped", add=False)),
    ("no_up", "you left out the upstream gradient out.g", dict(shares="no_up")),
    ("no_up=", "you left out the upstream gradient out.g" + _ASSIGNED,
     dict(shares="no_up", add=False)),
    ("equal", "you took a and b for one tensor when their values are equal: a copy or a view "
     "is another object, with its own .g; test with `is`", dict(by="equal", add=False)),
    ("ptr", "you took a and b for one tensor when they share memory: a view is another "
     "object, with its own .g; test with `is`", dict(by="ptr", add=False))]] + [
    Mistake("no_g", "+= needs a .g to add to: give each .g a zero start before the backward "
            "pass", raises=(AttributeError, "attribute 'g'"))]
MUL_FORWARD = [Mistake("plus", "you added a and b instead of multiplying them",
                       gives=lambda c: _product(c, torch.add))]


def _product(case, op):
    a, b, _ = _pair(*case)
    return {"a * b": op(a, b)}


def _new_mul(Mul):
    layer = call_answer(Mul, what="Mul()", hint="it is called as Mul(), with no arguments: a "
                                                 "Module subclass needs no __init__")
    if not callable(layer):
        raise CheckFailed(f"Mul() made {type(layer).__name__!r} object, which cannot be called "
                          "as a layer: subclass Module (it has __call__ and backward) and write "
                          "forward and bwd")
    return layer


def _mul_forward(layer, a, b):
    """The layer's output on (a, b), a tensor of a's shape and dtype."""
    out = call_answer(layer, a, b, what="your Mul's forward pass",
                      hint="a layer with two inputs is called as layer(a, b); Module.__call__ "
                           "calls self.forward(a, b), stores what it returns as self.out and "
                           "returns it", keep=dict(a=a, b=b), allow=("a.g", "b.g"))
    if out is None and "__call__" in vars(type(layer)):
        raise CheckFailed("your Mul's __call__ returned None: return what "
                          "super().__call__(a, b) returns, the output it stored")
    expect_tensor(out, "what your Mul returned", tuple(a.shape))
    if out.dtype != a.dtype:
        raise CheckFailed(f"your Mul returned {out.dtype} for {a.dtype} inputs; a layer keeps "
                          "its inputs' dtype")
    return out


def _pair(seed, shape, dtype, how, stale):
    """a, b (another tensor, a itself, a view or a copy of a), out.g; a stale .g on each."""
    gen = torch.Generator().manual_seed(seed)

    def randn():
        return torch.randn(*shape, generator=gen, dtype=dtype)

    a = randn()
    b = {"other": randn, "same": lambda: a, "view": lambda: a.view(shape),
         "copy": lambda: a.clone()}[how]()
    for t in (a, b) if stale else ():
        t.g = randn()
    return a, b, randn()


def _mul_trial(Mul, case) -> dict[str, torch.Tensor]:
    """The .g Mul's backward leaves: a.g and b.g (x.g, for Mul()(x, x)), or the network's h.g."""
    if case[3] == "network":
        return _mul_network(Mul, case[0])
    a, b, up = _pair(*case)
    layer = _new_mul(Mul)
    out = _mul_forward(layer, a, b)
    if getattr(layer, "out", None) is not out:
        raise CheckFailed("your Mul returned another object than its self.out, so the next layer's "
                          ".g never reaches its backward: subclass Module, write forward and bwd")
    out.g = up
    _mul_backward(layer, out=out, a=a, b=b)
    return ({"x.g": read_g(a, "x", "your Mul's backward")} if a is b else
            {f"{n}.g": read_g(t, n, "your Mul's backward") for n, t in (("a", a), ("b", b))})


def _mul_backward(layer, **keep):
    """The layer's backward, which leaves what `keep` holds as it was but a.g and b.g."""
    if not callable(getattr(layer, "backward", None)):
        raise CheckFailed("your Mul has no backward method: subclass Module, which has one")
    call_answer(layer.backward, what="your Mul's backward", mistakes=MUL, keep=keep,
                allow=("a.g", "b.g"), hint="it is called as layer.backward(); Module.backward "
                "calls self.bwd(self.out, *self.args), i.e. bwd(self, out, a, b)")


def _mul_network(Mul, seed):
    """`Lin -> Mul(h, h) -> Mul(q, h) -> Lin -> Mse`, the second Mul's backward first: h.g."""
    inp, targ = synthetic_regression(n=12, n_in=5, seed=seed, dtype=torch.float64)
    w1, b1, w2, b2 = make_weights(5, 6, seed=seed, dtype=torch.float64)
    lin1, square, cube, lin2, loss = Lin(w1, b1), _new_mul(Mul), _new_mul(Mul), Lin(w2, b2), Mse()
    h = lin1(inp)
    q = _mul_forward(square, h, h)
    loss(lin2(_mul_forward(cube, q, h)), targ)
    loss.backward()
    lin2.backward()
    _mul_backward(cube)
    _mul_backward(square)
    g = read_g(h, "h", "your Mul's backward")
    if torch.finfo(g.dtype).eps > torch.finfo(h.dtype).eps:
        raise CheckFailed(f"{_NETWORK}, your Mul's backward left h.g {dtype_name(g)}, h being "
                          f"{dtype_name(h)}: the Lin before it cannot multiply mixed dtypes.\n"
                          f"torch.zeros_like(a) keeps a's dtype; torch.zeros(a.shape) is float32",
                          "zeros_dtype")
    return {"h.g": g}


_NETWORK = "where h feeds two Muls (h * h * h)"


def _mul_what(case, _):
    if case[3] == "network":
        return f"{_NETWORK}, h.g should be the sum of their shares"
    if case[3] == "same":
        return "for Mul()(x, x), x.g should be 2 * out.g * x, its share as a plus its share as b"
    return f"for Mul()(a, b) on {_PAIRS[case[3]]}, a.g should be out.g * b and b.g out.g * a"


@exercise_check
def check_mul(Mul) -> str:
    """Exercise 2: a layer class `Mul` with two inputs, `a * b`, whose shares add up: six
    pairs (two tensors; one twice; a view; a copy; stale `.g`s), then h feeding two Muls."""
    if not isinstance(Mul, type):
        raise CheckFailed("pass the class itself, check_mul(Mul), not an instance or a "
                          f"function (got {'None' if Mul is None else 'a ' + type(Mul).__name__})")
    pairs = [c for c in _MUL_CASES if c[1]]
    judge(pairs, lambda c: {"a * b": _mul_forward(_new_mul(Mul), *_pair(*c)[:2])},
          lambda c: _product(c, torch.mul),
          lambda c, _: "your Mul's forward pass should return a * b", MUL_FORWARD, Mul)
    judge(_MUL_CASES, lambda c: _mul_trial(Mul, c), lambda c: _mul_trial(_Mul, c), _mul_what,
          MUL, Mul)
    return (f"Mul: right on {len(pairs)} pairs, Mul()(x, x) included, and where h feeds two Muls")


# -- Exercise 3 -----------------------------------------------------------------------------
MNIST_LAYER = (784, 50)
_BYTES_CASES = [(3, 5, 2, torch.float32), (4, 3, 7, torch.float64), (2, 6, 3, torch.float16),
                (5, 2, 9, torch.bfloat16), (50_000, *MNIST_LAYER, None)]


def _bytes(N, n_in, n_out, dtype, per=None):
    """The temporary's bytes (`per`: bytes an entry, from a real one's element size)."""
    size = torch.zeros(1, dtype=dtype or torch.float32).element_size()
    return N * n_in * n_out * (size if per is None else per(size))


BYTES = [
    Mistake("entries", "you counted the entries, N * n_in * n_out: times the bytes of one "
            "(dtype.itemsize)", gives=lambda c: _bytes(*c, per=lambda size: 1)),
    Mistake("bits", "you counted bits, not bytes: a byte has 8 bits",
            gives=lambda c: _bytes(*c, per=lambda size: 8 * size)),
    Mistake("four", "you counted 4 bytes an entry, float32's, whatever the dtype",
            gives=lambda c: _bytes(*c, per=lambda size: 4)),
]


@exercise_check
def check_outer_bytes(outer_bytes, max_rows) -> str:
    """Exercise 3: `outer_bytes(N, n_in, n_out, dtype)` in four dtypes, and `max_rows`, an int,
    the largest N whose 784 -> 50 float32 temporary fits in 10**9 bytes."""
    def trial(c):
        args = c if c[3] else c[:3]
        return call_answer(outer_bytes, *args, what=f"outer_bytes{_args(c)}", hint=(
            "it is called as outer_bytes(N, n_in, n_out, dtype) and returns a number" if c[3]
            else "it is called without dtype here, so dtype needs a default: dtype=torch.float32"))

    judge(_BYTES_CASES, trial, lambda c: _bytes(*c), lambda c, got: (
        f"outer_bytes{_args(c)} returned {got!r}, not {_bytes(*c):,} bytes"), BYTES, outer_bytes)
    if isinstance(max_rows, torch.Tensor) and max_rows.numel() == 1:
        max_rows = max_rows.item()
    if isinstance(max_rows, float):
        raise CheckFailed(
            f"max_rows is the float {max_rows!r}, not an int: arithmetic with a float (1e9 is "
            f"one) gives a float; use int(...), or 10**9" if max_rows.is_integer() else
            f"max_rows is {max_rows!r}, a fraction of a row, not an int: round down with "
            f"int(...), or // on ints")
    if not isinstance(max_rows, numbers.Integral) or type(max_rows).__name__.startswith("bool"):
        raise CheckFailed(f"max_rows, a number of rows, should be an int, but it is "
                          f"{describe(max_rows)}")
    rows = int(max_rows)
    size, more = (_bytes(n, *MNIST_LAYER, None) for n in (rows, rows + 1))   # float32
    if size > 1e9:
        raise CheckFailed(f"max_rows = {rows} does not fit: {size:,} bytes, over 1 GB (10**9 "
                          f"bytes)")
    if more <= 1e9:
        raise CheckFailed(f"max_rows = {rows} fits, but so does {rows + 1} ({more:,} bytes): "
                          f"find the largest N that fits")
    return f"outer_bytes right; at most {rows} rows fit in 1 GB"


def _args(c) -> str:
    N, n_in, n_out, dtype = c
    return f"({N:_}, {n_in}, {n_out}" + (f", {dtype})" if dtype else ")")
