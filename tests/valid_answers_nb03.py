"""Right answers to notebook 03's exercises, written unlike the solutions; each must pass."""

import re

from wrong_answers_nb03 import NOTEBOOK, through_template

_SHOWN = re.search(r"# should show (tensor\(\[[^\]]*\])",
                   NOTEBOOK.read_text()).group(1)  # what the template says it prints

VALID = [
    ("check_tanh_fn", "saves the input and recomputes tanh in backward", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return torch.tanh(inp)

    @staticmethod
    def backward(ctx, out_g):
        (inp,) = ctx.saved_tensors
        return out_g * (1 - torch.tanh(inp) ** 2)
check_tanh_fn(TanhFn)
"""),
    ("check_tanh_fn", "setup_context, (1 - out)(1 + out)", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return inp.tanh()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, out_g):
        out, = ctx.saved_tensors
        return out_g * (1 - out) * (1 + out)
check_tanh_fn(TanhFn)
"""),
    ("check_tanh_fn", "float64 arithmetic in backward, a print, output kept on ctx", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.out = torch.tanh(inp)
        return ctx.out

    @staticmethod
    def backward(ctx, out_g):
        print("backward of tanh")
        g = out_g.double() - out_g.double() * ctx.out.double() ** 2
        return g.to(out_g.dtype)
check_tanh_fn(TanhFn)
"""),
    ("check_accumulate_grads", ".grad = None by hand, backward(gradient=1/n)", """
def accumulate_grads(net, inp, targ, n_chunks):
    for p in net.parameters():
        p.grad = None
    for x, y in zip(torch.chunk(inp, n_chunks), torch.chunk(targ, n_chunks)):
        loss = net(x, y)
        loss.backward(torch.tensor(len(x) / len(inp), dtype=loss.dtype))
check_accumulate_grads(accumulate_grads)
"""),
    ("check_accumulate_grads", "zeros kept, chunks in reverse, weighted by rows", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad(set_to_none=False)
    chunks = list(zip(inp.chunk(n_chunks), targ.chunk(n_chunks)))
    for x, y in reversed(chunks):
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
"""),
    ("check_accumulate_grads", "all chunk losses first, then one backward each, with prints", """
def accumulate_grads(net, inp, targ, n_chunks):
    for p in net.parameters():
        if p.grad is not None:
            p.grad.zero_()
    chunks = zip(inp.chunk(n_chunks), targ.chunk(n_chunks))
    losses = [net(x, y) * (x.shape[0] / inp.shape[0]) for x, y in chunks]
    for i, loss in enumerate(losses):
        print(f"chunk {i}: loss {loss.item():.4f}")
        loss.backward()
check_accumulate_grads(accumulate_grads)
"""),
    ("check_accumulate_grads", "row sums accumulated, divided by len(inp) at the end", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x)).backward()
    with torch.no_grad():
        for p in net.parameters():
            p.grad /= len(inp)
check_accumulate_grads(accumulate_grads)
"""),
    ("check_accumulate_grads", "torch.autograd.grad, summed into .grad by hand", """
def accumulate_grads(net, inp, targ, n_chunks):
    params = list(net.parameters())
    for p in params:
        p.grad = None
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        grads = torch.autograd.grad(net(x, y) * len(x) / len(inp), params)
        for p, g in zip(params, grads):
            p.grad = g if p.grad is None else p.grad + g
check_accumulate_grads(accumulate_grads)
"""),
    ("check_sequential", "an OrderedDict and load_state_dict", """
from collections import OrderedDict


def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(OrderedDict(
        lin1=nn.Linear(w1.shape[0], w1.shape[1]),
        relu=nn.ReLU(),
        lin2=nn.Linear(w2.shape[0], w2.shape[1]),
    ))
    seq.load_state_dict({"lin1.weight": w1.t(), "lin1.bias": b1,
                         "lin2.weight": w2.t(), "lin2.bias": b2})
    return seq
check_sequential(make_sequential)
"""),
    ("check_sequential", "new nn.Parameters of copies, an in-place ReLU", """
def make_sequential(w1, b1, w2, b2):
    lin1, lin2 = nn.Linear(*w1.shape), nn.Linear(*w2.shape)
    lin1.weight = nn.Parameter(w1.t().clone())
    lin1.bias = nn.Parameter(b1.clone())
    lin2.weight = nn.Parameter(w2.T.clone())
    lin2.bias = nn.Parameter(b2.detach().clone())
    return nn.Sequential(lin1, nn.ReLU(inplace=True), lin2)
check_sequential(make_sequential)
"""),
    ("check_sequential", "copy_ into .data, a print", """
def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(nn.Linear(len(w1), len(b1)), nn.ReLU(), nn.Linear(len(w2), len(b2)))
    for layer, w, b in ((seq[0], w1, b1), (seq[2], w2, b2)):
        layer.weight.data.copy_(w.t())
        layer.bias.data.copy_(b)
    print(seq)
    return seq
check_sequential(make_sequential)
"""),
    ("check_accumulate_grads", "hooks that scale each share, removed before returning", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    share = [1.0]
    handles = [p.register_hook(lambda g: g * share[0]) for p in net.parameters()]
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        share[0] = len(x) / len(inp)
        net(x, y).backward()
    for handle in handles:
        handle.remove()
check_accumulate_grads(accumulate_grads)
"""),
    ("check_tanh_fn", "setup_context keeps the output on ctx, backward returns a spare None", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.out = output

    @staticmethod
    def backward(ctx, out_g):
        return out_g * (1 - ctx.out**2), None
check_tanh_fn(TanhFn)
"""),
    ("check_sequential", "sizes from the biases, layers built then assembled", """
def make_sequential(w1, b1, w2, b2):
    layers = [nn.Linear(w.shape[0], len(b)) for w, b in ((w1, b1), (w2, b2))]
    for layer, w, b in zip(layers, (w1, w2), (b1, b2)):
        with torch.no_grad():
            layer.weight[:] = w.T
            layer.bias[:] = b
    return nn.Sequential(layers[0], nn.ReLU(), layers[1])
check_sequential(make_sequential)
"""),
    ("check_accumulate_grads", "the solution run through the template, its print too",
     through_template("""
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
""") + f"assert str(net.lin2.bias.grad).startswith({_SHOWN!r})\n"),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_accumulate_grads", "each chunk's share given to backward as its gradient", """
def accumulate_grads(net, inp, targ, n_chunks):
    for p in net.parameters():
        p.grad = None
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward(torch.tensor(len(x) / len(inp), dtype=inp.dtype))
check_accumulate_grads(accumulate_grads)
"""),
    ("check_sequential", "load_state_dict of transposed copies", """
def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(nn.Linear(w1.shape[0], w1.shape[1]), nn.ReLU(),
                        nn.Linear(w2.shape[0], w2.shape[1]))
    seq.load_state_dict({"0.weight": w1.t().clone(), "0.bias": b1.clone(),
                         "2.weight": w2.t().clone(), "2.bias": b2.clone()})
    return seq
check_sequential(make_sequential)
"""),
    ("check_tanh_fn", "forward(ctx, inp) that saves, no setup_context", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        ctx.save_for_backward(out)
        return out
    @staticmethod
    def backward(ctx, out_g):
        out, = ctx.saved_tensors
        return out_g * (1 - out * out)
check_tanh_fn(TanhFn)
"""),
    ("check_tanh_fn", "the input saved, 1 / cosh**2", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return inp.tanh()
    @staticmethod
    def setup_context(ctx, inputs, output):
        (inp,) = inputs
        ctx.save_for_backward(inp)
    @staticmethod
    def backward(ctx, out_g):
        (inp,) = ctx.saved_tensors
        return out_g / torch.cosh(inp) ** 2
check_tanh_fn(TanhFn)
"""),
]
