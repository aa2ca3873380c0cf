"""Checks for the exercises of notebook 05, shared weights by hand.

The module carries its own copy of the notebook's tape (`Tape`, `lin`, `relu`,
`add`, `mse`) and of its lesson-8 style `DynamicModel`, so that a check never
depends on the notebook's globals. A solution may use the tape and its ops:
they are in `__all__`.
"""

from __future__ import annotations

from collections import namedtuple

import torch

from helpers.checks import call_answer, expect_close
from helpers.numerical import autograd_grads

__all__ = ["Tape", "add", "check_relu_shared", "check_residual", "check_tied", "lin", "mse",
           "relu"]

NAMES = ("inp", "w_in", "b_in", "w_mid", "b_mid", "w_out", "b_out")


# -- the notebook's tape, section 2 -------------------------------------------------------

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

    def backward(self, loss):
        if not self.records:
            raise RuntimeError("the tape is empty: run a forward pass first (backward consumes it)")
        for rec in self.records:
            for t in (rec.out, *rec.inputs):
                t.g = torch.zeros_like(t)
        loss.g = torch.ones_like(loss)
        while self.records:
            rec = self.records.pop()
            for t, g in zip(rec.inputs, rec.backward(rec.out.g)):
                self.send(t, g)


def lin(tape, x, w, b):
    out = x @ w + b
    return tape.record("lin", out, (x, w, b), lambda g: (g @ w.t(), x.t() @ g, g.sum(0)))


def relu(tape, x):
    out = x.clamp_min(0.)
    return tape.record("relu", out, (x,), lambda g: ((x > 0).float() * g,))


def add(tape, x, y):
    return tape.record("add", x + y, (x, y), lambda g: (g, g))


def mse(tape, pred, targ):
    out = (pred.squeeze(-1) - targ).pow(2).mean()
    n = targ.shape[0]
    return tape.record("mse", out, (pred,),
                       lambda g: (g * 2. * (pred.squeeze(-1) - targ).unsqueeze(-1) / n,))


# -- the notebook's lesson-8 style model, section 1 ---------------------------------------

class _LinShared:
    def __init__(self, w, b):
        self.w, self.b, self.calls = w, b, []

    def __call__(self, inp):
        out = inp @ self.w + self.b
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = out.g @ self.w.t()
        self.w.g += inp.t() @ out.g
        self.b.g += out.g.sum(0)


class _Mse:
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        return (inp.squeeze(-1) - targ).pow(2).mean()

    def backward(self):
        self.inp.g = 2. * (self.inp.squeeze(-1) - self.targ).unsqueeze(-1) / self.targ.shape[0]


class _DynamicModel:
    """The notebook's `DynamicModel(params, LinShared, Relu)`: layers rebuilt per forward pass."""

    def __init__(self, params, make_relu):
        self.params, self.make_relu, self.loss = params, make_relu, _Mse()
        self.input_linear = _LinShared(params["w_in"], params["b_in"])
        self.middle_linear = _LinShared(params["w_mid"], params["b_mid"])
        self.output_linear = _LinShared(params["w_out"], params["b_out"])

    def __call__(self, x, targ, depth):
        self.layers = [self.input_linear, self.make_relu()]
        for _ in range(depth):
            self.layers += [self.middle_linear, self.make_relu()]
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


# -- data, reference gradients, reading .g ----------------------------------------------

def _problem(seed=5, n=32, n_in=4, nh=6):
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
    """autograd's gradients of mse(forward(inp, **params), targ), named like NAMES."""
    def loss_fn(inp, **p):
        return (forward(inp, **p).squeeze(-1) - targ).pow(2).mean()
    return autograd_grads(loss_fn, {"inp": inp, **params})


def _dynamicnet(depth, residual=False):
    def forward(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
        h = (inp @ w_in + b_in).clamp(min=0)
        for _ in range(depth):
            z = h @ w_mid + b_mid
            h = (h + z if residual else z).clamp(min=0)
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
            raise AssertionError(f"after {who}, {name}.g is not a tensor of {name}'s shape "
                                 f"{tuple(t.shape)}")
        out[name] = g
    return out


def _uses(tape, t):
    return sum(any(x is t for x in rec.inputs) for rec in tape.records)


def _same(g, values):
    """True when `g` is a tensor holding exactly `values` (exact small numbers, any float dtype)."""
    want = torch.tensor(values, dtype=torch.float64)
    return isinstance(g, torch.Tensor) and g.shape == want.shape and torch.equal(g.double(), want)


# -- exercise 1 ---------------------------------------------------------------------------

POP_HINT = ("did you pop the latest record? Backward visits the calls in reverse, so "
            "backward must take the most recent (inp, out): self.calls.pop(), not pop(0) "
            "or calls[-1]")


def check_relu_shared(ReluShared) -> None:
    """Exercise 1: one `ReluShared` object serves every ReLU use of DynamicModel, depths 0-3."""
    relu_obj = call_answer(ReluShared, what="ReluShared()",
                           hint="__init__ takes no argument besides self and starts a list")
    x1 = torch.tensor([[-1.0, 2.0, 3.0]], dtype=torch.float64)
    x2 = torch.tensor([[4.0, -5.0, 6.0]], dtype=torch.float64)
    calling = dict(what="calling your ReluShared object",
                   hint="__call__(inp) computes out = inp.clamp_min(0.), remembers (inp, out) "
                        "and returns out")
    o1, o2 = call_answer(relu_obj, x1, **calling), call_answer(relu_obj, x2, **calling)
    for x, o in ((x1, o1), (x2, o2)):
        if not _same(o, x.clamp_min(0.).tolist()):
            raise AssertionError("your ReluShared object should return inp.clamp_min(0.)")
    o2.g = torch.tensor([[10.0, 20.0, 30.0]], dtype=torch.float64)
    call_answer(relu_obj.backward, what="the first backward of your ReluShared", hint=POP_HINT)
    if getattr(x1, "g", None) is not None:
        raise AssertionError("the first backward after two calls set the FIRST call's inp.g: "
                             + POP_HINT)
    if not isinstance(getattr(x2, "g", None), torch.Tensor):
        raise AssertionError("the first backward after two calls should set inp.g of the "
                             "latest call's input (it set nothing): " + POP_HINT)
    if not _same(x2.g, [[10.0, 0.0, 30.0]]):
        raise AssertionError("inp.g should be (inp > 0) * out.g: the gradient passes where "
                             "the input was positive and is 0 elsewhere")
    o1.g = torch.tensor([[7.0, 8.0, 9.0]], dtype=torch.float64)
    call_answer(relu_obj.backward, what="the second backward of your ReluShared",
                hint="keep one (inp, out) record per call in a list, and pop one per backward")
    if not _same(getattr(x1, "g", None), [[0.0, 8.0, 9.0]]):
        raise AssertionError("after two calls and two backwards, the first call's inp.g is "
                             "missing or wrong: keep one (inp, out) record per call (a list), "
                             "not only the last call, and pop the latest one in each backward")

    inp, targ, params = _problem()
    shared = call_answer(ReluShared, what="ReluShared()")
    for depth in range(4):
        model, x = _DynamicModel(params, lambda: shared), inp.clone()
        call_answer(model, x, targ, depth, what=f"the forward pass at depth {depth}")
        call_answer(model.backward, what=f"the backward pass at depth {depth}", hint=POP_HINT)
        expect_close(_grads(x, params, f"backward at depth {depth}"),
                     _reference(_dynamicnet(depth), inp, targ, params),
                     f"with one ReluShared object for every use, at depth {depth} the "
                     "gradients differ from autograd (" + POP_HINT + ")")
    print("one ReluShared object serves every use; gradients match autograd at depths 0-3")


# -- exercise 2 ---------------------------------------------------------------------------

def check_residual(residual_dynamicnet) -> None:
    """Exercise 2: DynamicNet with residual middle blocks, on the tape, against autograd."""
    inp, targ, params = _problem(seed=6)
    for depth in range(4):
        for p in params.values():
            p.g = None
        tape, x = Tape(), inp.clone()
        pred = call_answer(residual_dynamicnet, tape, params, x, depth,
                           what=f"your residual_dynamicnet at depth {depth}",
                           hint="it is called as residual_dynamicnet(tape, params, x, depth) "
                                "and uses the tape's ops: lin(tape, ...), relu(tape, ...), "
                                "add(tape, ...)")
        if not isinstance(pred, torch.Tensor) or pred.shape != (inp.shape[0], 1):
            raise AssertionError("residual_dynamicnet should return the output layer's "
                                 f"prediction, shaped ({inp.shape[0]}, 1)")
        n_add = sum(rec.op == "add" for rec in tape.records)
        if n_add != depth:
            raise AssertionError(
                f"at depth {depth} your tape holds {n_add} add records, expected {depth} (one "
                "per residual block): add h_relu and the middle layer's output with the tape's "
                "add(tape, x, y); a plain + is not recorded, so no gradient flows through it")
        if _uses(tape, params["w_mid"]) != depth:
            raise AssertionError(f"at depth {depth} the middle layer (w_mid) should be used "
                                 f"{depth} times, once per block")
        call_answer(tape.backward, mse(tape, pred, targ),
                    what=f"the tape's backward at depth {depth}",
                    hint="every op on the tape must return one gradient per input")
        expect_close(_grads(x, params, f"backward at depth {depth}"),
                     _reference(_dynamicnet(depth, residual=True), inp, targ, params),
                     f"at depth {depth} the gradients differ from autograd's: each block is "
                     "h_relu = relu(h_relu + lin(h_relu, w_mid, b_mid)), the ReLU after the sum")
    print("residual DynamicNet on the tape matches autograd at depths 0-3")


# -- exercise 3 ---------------------------------------------------------------------------

def _tied(inp, w_in, b_in, w_mid, b_mid, w_out, b_out):
    h = (inp @ w_in + b_in).clamp(min=0)
    h = (h @ w_mid + b_mid).clamp(min=0)
    h = (h @ w_mid.t() + b_mid).clamp(min=0)            # the tied use
    return h @ w_out + b_out


def check_tied(transpose, tied_net) -> None:
    """Exercise 3: a `transpose` op, and a net that uses w_mid twice, once transposed."""
    tape, x = Tape(), torch.zeros(2, 3)
    out = call_answer(transpose, tape, x, what="your transpose",
                      hint="return tape.record('transpose', x.t(), (x,), lambda g: (...,))")
    if not isinstance(out, torch.Tensor) or out.shape != (3, 2):
        raise AssertionError("transpose(tape, x) should return x.t(), shaped (3, 2) for a (2, 3) x")
    if len(tape.records) != 1 or [id(t) for t in tape.records[0].inputs] != [id(x)]:
        raise AssertionError("transpose should record exactly one op on the tape, with x as its "
                             "only input")
    g = torch.arange(6.).reshape(3, 2)
    sent = call_answer(tape.records[0].backward, g, what="your transpose's backward",
                       hint="it receives out.g and returns a tuple with one gradient, for x")
    if not isinstance(sent, (tuple, list)) or len(sent) != 1:
        raise AssertionError("transpose's backward should return a tuple with one gradient, (g_x,)")
    if not _same(sent[0], g.t().tolist()):
        raise AssertionError("transpose's backward sends the wrong gradient to x: entry (i, j) of "
                             "x is entry (j, i) of the output, so x gets g.t()")

    inp, targ, params = _problem(seed=7)
    for p in params.values():
        p.g = None
    tape, x = Tape(), inp.clone()
    pred = call_answer(tied_net, tape, params, x, what="your tied_net",
                       hint="it is called as tied_net(tape, params, x)")
    if not isinstance(pred, torch.Tensor) or pred.shape != (inp.shape[0], 1):
        raise AssertionError(f"tied_net should return the prediction, shaped ({inp.shape[0]}, 1)")
    w_mid = params["w_mid"]
    if not any([id(t) for t in rec.inputs] == [id(w_mid)] for rec in tape.records):
        raise AssertionError("no record on the tape transposes w_mid: write "
                             "transpose(tape, params['w_mid']), not params['w_mid'].t(), or that "
                             "use's share never reaches w_mid.g")
    call_answer(tape.backward, mse(tape, pred, targ), what="the tape's backward",
                hint="every op on the tape must return one gradient per input")
    expect_close(_grads(x, params, "backward"), _reference(_tied, inp, targ, params),
                 "the tied network's gradients differ from autograd's: input layer, a layer with "
                 "w_mid, a layer with w_mid transposed (both with b_mid), a ReLU after each, "
                 "then the output layer")
    print("the tied network on the tape matches autograd")
