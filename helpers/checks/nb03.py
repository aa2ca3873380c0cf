"""Checks for the exercises of notebook 03, the same network with autograd."""

from __future__ import annotations

import torch
from torch import nn

from helpers.checks import call_answer, expect_close
from helpers.compare import compare
from helpers.data import make_weights, synthetic_regression

__all__ = ["check_accumulate_grads", "check_sequential", "check_tanh_fn"]

WEIGHT_NAMES = ("w1", "b1", "w2", "b2")


def check_tanh_fn(TanhFn) -> None:
    """Exercise 1: `TanhFn`, an `autograd.Function` for tanh; checked by autograd and gradcheck."""
    if not (isinstance(TanhFn, type) and issubclass(TanhFn, torch.autograd.Function)):
        raise AssertionError("TanhFn should be a class derived from torch.autograd.Function")
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 4, generator=g, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(6, 4, generator=g, dtype=torch.float64)  # dL/d(out), not all ones
    out = call_answer(TanhFn.apply, x, what="TanhFn.apply (your forward)",
                      hint="forward(ctx, inp) computes torch.tanh(inp) and returns it")
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        raise AssertionError("your forward should return torch.tanh(inp), a tensor shaped like inp")
    expect_close({"out": out}, {"out": torch.tanh(x.detach())},
                 "your forward should return torch.tanh(inp)")
    call_answer(lambda: (out * upstream).sum().backward(), what="your backward",
                hint="save the output in forward with ctx.save_for_backward(out); in backward "
                     "read it with (out,) = ctx.saved_tensors and return one gradient")
    if x.grad is None:
        raise AssertionError("your backward returned None: return the gradient of inp")
    ref = torch.autograd.grad((torch.tanh(x) * upstream).sum(), x)[0]
    expect_close({"inp": x.grad}, {"inp": ref},
                 "your backward should return out_g * (1 - out**2): the gradient it receives "
                 "times tanh's derivative, written with the saved output")
    if not torch.autograd.gradcheck(TanhFn.apply, (x.detach().clone().requires_grad_(),),
                                    raise_exception=False):
        raise AssertionError("gradcheck disagrees with your backward")
    print("TanhFn matches torch.tanh and passes gradcheck")


class _Model(nn.Module):
    """Notebook 03's section-3 `Model`: lin -> relu -> lin, returning the MSE loss."""

    def __init__(self, n_in: int, nh: int):
        super().__init__()
        self.lin1, self.relu, self.lin2 = nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, 1)

    def forward(self, inp: torch.Tensor, targ: torch.Tensor) -> torch.Tensor:
        return nn.functional.mse_loss(self.lin2(self.relu(self.lin1(inp))).squeeze(-1), targ)


def _net(stale: tuple | None = None) -> _Model:
    """The course weights (n_in=8, nh=16) in a `_Model`, float64; `stale` data leave a .grad."""
    net = _Model(8, 16).double()
    w1, b1, w2, b2 = make_weights(8, 16, seed=0, dtype=torch.float64)
    with torch.no_grad():
        for p, w in zip(net.parameters(), (w1.t(), b1, w2.t(), b2)):
            p.copy_(w)
    if stale is not None:
        net(*stale).backward()  # "the previous step": its gradients are still in .grad
    return net


def _grads(net: nn.Module) -> dict[str, torch.Tensor]:
    return {name: p.grad.clone() for name, p in net.named_parameters()}


def _batch_grads(inp: torch.Tensor, targ: torch.Tensor, scale: float = 1.0) -> dict:
    net = _net()
    (scale * net(inp, targ)).backward()
    return _grads(net)


def check_accumulate_grads(accumulate_grads) -> None:
    """Exercise 2: clear the old gradients, then one `backward` per chunk adds up the batch's."""
    inp, targ = synthetic_regression(n=64, n_in=8, seed=2, dtype=torch.float64)
    stale = synthetic_regression(n=64, n_in=8, seed=3, dtype=torch.float64)
    old = _grads(_net(stale))
    full = _batch_grads(inp, targ)
    for n_chunks in (4, 8):
        net = _net(stale)
        calls = []
        net.lin1.weight.register_hook(calls.append)  # fires once per backward that reaches it
        call_answer(accumulate_grads, net, inp, targ, n_chunks, what="your accumulate_grads",
                    hint="net(x, y) returns the loss of rows x against targets y; call "
                         "backward on each chunk's loss")
        if len(calls) != n_chunks:
            raise AssertionError(
                f"with n_chunks={n_chunks} expected one backward per chunk, but backward "
                f"reached the weights {len(calls)} time(s)")
        missing = [name for name, p in net.named_parameters() if p.grad is None]
        if missing:
            raise AssertionError(
                f"after your function the .grad of {', '.join(missing)} is None: did you clear "
                "the gradients after the backward calls instead of before them?")
        got = _grads(net)
        if compare(got, full).ok:
            print(f"n_chunks={n_chunks}: every .grad is the full-batch gradient")
            continue
        last = _batch_grads(inp.chunk(n_chunks)[-1], targ.chunk(n_chunks)[-1], 1 / n_chunks)
        plus_old = {k: full[k] + old[k] for k in full}
        times_n = {k: n_chunks * full[k] for k in full}
        diagnoses = [
            (plus_old, "each .grad still holds the old gradient it came with: clear the "
                       "gradients once (net.zero_grad()) before the first chunk"),
            (times_n, f"each .grad is {n_chunks} times the full-batch gradient: each chunk's "
                      "loss is a mean over the chunk only, so divide it by n_chunks"),
            ({k: times_n[k] + old[k] for k in full},
             f"each .grad is the old gradient plus {n_chunks} times the full-batch one: clear "
             "the gradients first, and divide each chunk's loss by n_chunks"),
            (last, "only the last chunk's share is left: you cleared the gradients between "
                   "chunks; clear them once, before the loop"),
        ]
        for expected, message in diagnoses:
            if compare(got, expected).ok:
                raise AssertionError(f"with n_chunks={n_chunks}: {message}")
        expect_close(got, full, f"with n_chunks={n_chunks} the accumulated .grad is not the "
                                "full-batch gradient")


def check_sequential(make_sequential) -> None:
    """Exercise 3: an `nn.Sequential` holding copies of our weights, in `(out, in)` layout."""
    n_in, nh = 5, 7  # not square: a missing transpose changes the shape
    inp, targ = synthetic_regression(n=64, n_in=n_in, seed=4)
    ws = dict(zip(WEIGHT_NAMES, make_weights(n_in, nh, seed=4)))
    originals = {name: t.clone() for name, t in ws.items()}
    seq = call_answer(make_sequential, *ws.values(), what="your make_sequential",
                      hint="nn.Linear stores its weight as (out, in): copy w1.t() into it, "
                           "under torch.no_grad()")
    if not isinstance(seq, nn.Sequential):
        raise AssertionError(f"make_sequential should return an nn.Sequential, not a "
                             f"{type(seq).__name__}")
    if not all(torch.equal(ws[k], originals[k]) for k in ws):
        raise AssertionError("building the model changed the weights passed in")
    linears = [m for m in seq if isinstance(m, nn.Linear)]
    if len(linears) != 2 or len(list(seq.parameters())) != 4:
        raise AssertionError("the model should hold two nn.Linear layers (with a ReLU between "
                             "them) and so register 4 parameters")
    (lin1, lin2) = linears
    mine = {"w1": lin1.weight.t(), "b1": lin1.bias, "w2": lin2.weight.t(), "b2": lin2.bias}
    for name, p in mine.items():
        if p.shape != ws[name].shape:
            raise AssertionError(
                f"{name}: the layer's parameter, in our layout, has shape {tuple(p.shape)}, "
                f"ours has {tuple(ws[name].shape)}")
    out = call_answer(seq, inp, what="your model", hint="nn.Linear(n_in, nh), nn.ReLU(), "
                      "nn.Linear(nh, 1)")
    leaves = {name: t.clone().requires_grad_() for name, t in ws.items()}
    ref_out = (inp @ leaves["w1"] + leaves["b1"]).clamp_min(0) @ leaves["w2"] + leaves["b2"]
    if not isinstance(out, torch.Tensor) or out.shape != ref_out.shape:
        raise AssertionError(f"your model should map a batch (N, {n_in}) to predictions "
                             f"(N, 1): lin -> relu -> lin, nothing else")
    expect_close({"out": out}, {"out": ref_out},
                 "your model's output differs from lin -> relu -> lin with the weights passed "
                 "in: did you copy all four (each weight transposed)?")
    nn.MSELoss()(out.squeeze(-1), targ).backward()
    (ref_out.squeeze(-1) - targ).pow(2).mean().backward()
    grads = {"w1": lin1.weight.grad.t(), "b1": lin1.bias.grad,
             "w2": lin2.weight.grad.t(), "b2": lin2.bias.grad}
    expect_close(grads, {name: t.grad for name, t in leaves.items()},
                 "the model's gradients differ from the network written as functions")
    torch.optim.SGD(seq.parameters(), lr=0.1).step()
    if not all(torch.equal(ws[k], originals[k]) for k in ws):
        raise AssertionError("a step on the model changed the weights passed in: the model "
                             "shares their memory; copy them into its own parameters "
                             "(copy_ under torch.no_grad())")
    print("your nn.Sequential computes our network, with gradients to match, and owns its weights")
