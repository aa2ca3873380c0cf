"""Checks for the exercises of notebook 02, layers as objects.

The module holds its own copies of the notebook's `Module` layers (`Module`,
`MatmulLin`, `ReluModule`, `MseModule`) and of `Chain`, so that no check depends
on a class or tensor the notebook defines or later changes. A learner's
`Sigmoid` may subclass either the notebook's `Module` or this one: the checks
only call a layer and its `backward`, exactly as `Chain` does.
"""

from __future__ import annotations

import torch

from helpers.checks import call_answer, expect_close, read_g
from helpers.data import make_weights, synthetic_regression
from helpers.numerical import autograd_grads

__all__ = ["Module", "check_chain_ok", "check_outer_bytes", "check_sigmoid"]


# -- the notebook's layers, copied (section 6; MatmulLin from section 7) -------------------

# recap of 02 §6
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


# recap of 02 §7
class MatmulLin(Module):
    def __init__(self, w, b):
        self.w, self.b = w, b

    def forward(self, inp):
        return inp @ self.w + self.b

    def bwd(self, out, inp):
        inp.g = out.g @ self.w.t()
        self.w.g = inp.t() @ out.g
        self.b.g = out.g.sum(0)


# recap of 02 §6
class ReluModule(Module):
    def forward(self, inp):
        return inp.clamp_min(0.)

    def bwd(self, out, inp):
        inp.g = (inp > 0).float() * out.g


class MseModule(Module):
    def forward(self, inp, targ):
        return (inp.squeeze(-1) - targ).pow(2).mean()

    def bwd(self, out, inp, targ):
        inp.g = 2. * (inp.squeeze(-1) - targ).unsqueeze(-1) / targ.shape[0]


# recap of 02 §3 (the notebook's Chain inherits __call__ and backward from the question's Model)
class Chain:
    """The question's `Model`, given its layers and its loss."""

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


def _data(dtype=torch.float32):
    """A small batch and fresh weights, built anew for every check (16 rows, 8 -> 6 -> 1)."""
    inp, targ = synthetic_regression(n=16, n_in=8, seed=2, dtype=dtype)
    return (inp, targ, *make_weights(8, 6, seed=2, dtype=dtype))


def _names(model) -> str:
    return ", ".join(type(layer).__name__ for layer in [*model.layers, model.loss])


# -- Exercise 1 -----------------------------------------------------------------------------

class CopyOut(ReluModule):
    """A ReLU that stores its output but returns a copy: breaks the link to the next layer."""

    def __call__(self, *args):
        return super().__call__(*args).clone()


class CopyLast(MatmulLin):
    """A linear layer that returns a copy (`* 1`): breaks the link to the loss."""

    def __call__(self, *args):
        return super().__call__(*args) * 1


def check_chain_ok(chain_ok) -> None:
    """Exercise 1: `chain_ok(model)` tells a whole chain of objects from two broken ones."""
    inp, targ, w1, b1, w2, b2 = _data()
    cases = [
        ([MatmulLin(w1, b1), ReluModule(), MatmulLin(w2, b2)], True,
         "a whole chain",
         "every layer's .out is the very object the next layer stored as .args[0], and the "
         "last layer's .out is model.loss.args[0]; compare each pair of objects with `is`"),
        ([MatmulLin(w1, b1), CopyOut(), MatmulLin(w2, b2)], False,
         "a chain whose ReLU returns a copy of the output it stored",
         "the copy has equal values but is another object, so the next layer stores a "
         "different object from relu.out: compare the objects with `is`; equal values are "
         "not enough"),
        ([MatmulLin(w1, b1), ReluModule(), CopyLast(w2, b2)], False,
         "a chain whose last layer returns a copy",
         "the loss stores another object than layers[-1].out: does your chain_ok check the "
         "link from the last layer to model.loss too?"),
    ]
    for layers, expected, case, advice in cases:
        model = Chain(layers, MseModule())
        model(inp, targ)
        got = call_answer(chain_ok, model, what="your chain_ok",
                          hint="a Module layer stores its input in layer.args (a tuple: the "
                               "input is layer.args[0]) and its output in layer.out; the loss "
                               "is model.loss")
        if not isinstance(got, bool):
            raise AssertionError(
                "chain_ok should return True or False, got "
                + ("None: did you forget `return`?" if got is None else
                   f"a {type(got).__name__}: combine the links with all(...)")
            )
        if got is not expected:
            raise AssertionError(
                f"chain_ok returned {got} for {case} ({_names(model)}): {advice}"
            )
    print("chain_ok: all 3 cases right")


# -- Exercise 2 -----------------------------------------------------------------------------

def check_sigmoid(Sigmoid) -> None:
    """Exercise 2: a `Module` subclass `Sigmoid`, between two linear layers, matches autograd."""
    if not isinstance(Sigmoid, type):
        raise AssertionError(
            "pass the class itself, check_sigmoid(Sigmoid), not an instance or a function "
            f"(got a {type(Sigmoid).__name__})"
        )
    inp, targ, w1, b1, w2, b2 = _data(torch.float64)
    sig = call_answer(Sigmoid, what="Sigmoid()",
                      hint="a Module subclass needs no __init__: Sigmoid() takes no arguments")
    lin1, lin2, loss = MatmulLin(w1, b1), MatmulLin(w2, b2), MseModule()

    l1 = lin1(inp)
    out = call_answer(sig, l1, what="your Sigmoid's forward pass",
                      hint="write forward(self, inp) returning torch.sigmoid(inp); the Module "
                           "base class stores it and returns it")
    if not isinstance(out, torch.Tensor) or out.shape != l1.shape:
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else f"a {type(out).__name__}"
        raise AssertionError(
            f"your Sigmoid returned {got}, but it should return a tensor of its input's "
            f"shape {tuple(l1.shape)}"
        )
    expect_close({"sigmoid(x)": out}, {"sigmoid(x)": torch.sigmoid(l1)},
                 "your forward pass should compute 1 / (1 + exp(-x))")
    if getattr(sig, "out", None) is not out:
        raise AssertionError(
            "your Sigmoid returned another object than the one it stored as self.out, so the "
            ".g that the next layer writes never reaches its backward: subclass Module and "
            "write only forward and bwd"
        )

    loss(lin2(out), targ)
    loss.backward()
    lin2.backward()
    if not callable(getattr(sig, "backward", None)):
        raise AssertionError("your Sigmoid has no backward method: subclass Module, which has one")
    call_answer(sig.backward, what="your Sigmoid's backward",
                hint="Module.backward calls self.bwd(self.out, *self.args): write "
                     "bwd(self, out, inp), which reads out.g and sets inp.g")
    g = read_g(l1, "inp", "your Sigmoid's bwd")
    upstream = out.g.detach().clone()
    ref = autograd_grads(lambda x: (torch.sigmoid(x) * upstream).sum(), {"x": l1})["x"]
    expect_close({"inp.g": g}, {"inp.g": ref},
                 "inp.g should be out.g * out * (1 - out), the chain rule through the sigmoid "
                 "(out already holds sigmoid(x); inp holds x itself)")

    lin1.backward()
    tensors = dict(inp=inp, w1=w1, b1=b1, w2=w2, b2=b2)

    def loss_fn(inp, w1, b1, w2, b2):
        return ((torch.sigmoid(inp @ w1 + b1) @ w2 + b2).squeeze(-1) - targ).pow(2).mean()

    ours = {name: read_g(t, name, "the backward pass") for name, t in tensors.items()}
    expect_close(ours, autograd_grads(loss_fn, tensors),
                 "with your Sigmoid between two linear layers, the gradients")
    print("Sigmoid: forward, inp.g and all five gradients match autograd")


# -- Exercise 3 -----------------------------------------------------------------------------

MNIST_LAYER = (784, 50)


def _mnist_bytes(n: int) -> int:
    return n * MNIST_LAYER[0] * MNIST_LAYER[1] * 4


def check_outer_bytes(outer_bytes, max_rows) -> None:
    """Exercise 3: `outer_bytes(N, n_in, n_out, dtype)` and the largest batch under 1 GB."""
    hint = "it takes N, n_in, n_out and dtype (default torch.float32) and returns a number"
    for N, n_in, n_out, dtype in [(3, 5, 2, torch.float32), (4, 3, 7, torch.float64),
                                  (2, 6, 3, torch.float16)]:
        tmp = torch.zeros(N, n_in, 1, dtype=dtype) * torch.zeros(N, 1, n_out, dtype=dtype)
        expected, numel = tmp.numel() * tmp.element_size(), tmp.numel()
        got = call_answer(outer_bytes, N, n_in, n_out, dtype, what="your outer_bytes", hint=hint)
        if got == expected:
            continue
        if got == numel:
            why = "that is the number of entries; multiply by the bytes of one entry"
        elif got == 8 * expected:
            why = "that is bits, not bytes: a byte has 8 bits"
        elif got == 4 * numel:
            why = f"that counts 4 bytes an entry, true of float32 only, not of {dtype}"
        else:
            why = f"the temporary has N * n_in * n_out = {numel} entries"
        raise AssertionError(
            f"outer_bytes({N}, {n_in}, {n_out}, {dtype}) returned {got!r}, but that temporary "
            f"takes {expected} bytes: {why} (torch.finfo(dtype).bits // 8 bytes each)"
        )
    got = call_answer(outer_bytes, 50_000, *MNIST_LAYER, what="outer_bytes(50_000, 784, 50)",
                      hint="give dtype a default: dtype=torch.float32")
    if got != _mnist_bytes(50_000):
        raise AssertionError(
            f"outer_bytes(50_000, 784, 50) returned {got!r}, but the MNIST temporary takes "
            f"{_mnist_bytes(50_000):,} bytes (7.84 GB): is dtype's default torch.float32?"
        )
    if isinstance(max_rows, bool) or not isinstance(max_rows, int):
        raise AssertionError(
            f"max_rows should be a whole number of rows (an int), got {max_rows!r}: "
            "use // or int() rather than /"
        )
    if _mnist_bytes(max_rows) > 1e9:
        raise AssertionError(
            f"max_rows = {max_rows} does not fit: its temporary takes {_mnist_bytes(max_rows):,} "
            "bytes, more than 1 GB (10**9 bytes). Round down, not up or to the nearest"
        )
    if _mnist_bytes(max_rows + 1) <= 1e9:
        raise AssertionError(
            f"max_rows = {max_rows} fits, but so does {max_rows + 1} "
            f"({_mnist_bytes(max_rows + 1):,} bytes): find the largest N that fits in 10**9 bytes"
        )
    print(f"outer_bytes right; at most {max_rows} rows fit in 1 GB")
