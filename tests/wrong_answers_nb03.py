"""Plausible wrong answers to notebook 03's exercises; each must fail its check."""

import json
import pathlib

NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "03_autograd.ipynb"


def through_template(answer: str) -> str:
    """`answer`, then Exercise 1's template cell below its `def`, uncommented: the
    lines a learner runs as written (they try the answer on `small_net()`, then
    call the check), so the template itself must let a wrong answer reach the check."""
    cell = next("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]
                if "".join(c["source"]).startswith("# def accumulate_grads("))
    lines = [line[2:] for line in cell.splitlines()]
    start = lines.index("") + 1  # the template's lines after its def
    return answer + "\n".join(lines[start:]) + "\n"


ZERO_GRAD_AFTER_THE_LOOP = """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.zero_grad()
"""

WRONG = [
    ("check_tanh_fn", "forgot the upstream gradient out_g", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return 1 - out**2
check_tanh_fn(TanhFn)
""", r"should return out_g \* \(1 - out\*\*2\)(.|\n)*you left out out_g", ('no_up',)),
    ("check_tanh_fn", "derivative written with the input, not the output", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return torch.tanh(inp)

    @staticmethod
    def backward(ctx, out_g):
        (inp,) = ctx.saved_tensors
        return out_g * (1 - inp**2)
check_tanh_fn(TanhFn)
""", r"should return out_g \* \(1 - out\*\*2\)(.|\n)*derivative with the input", ('input',)),
    ("check_tanh_fn", "nothing saved for backward", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return torch.tanh(inp)

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"your backward raised ValueError(.|\n)*Nothing was saved(.|\n)*ctx.save_for_backward",
     ('nothing_saved:ValueError',)),
    ("check_accumulate_grads", "forgot zero_grad: the old gradient stays", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"the old gradient stayed in .grad(.|\n)*net.zero_grad\(\)", ('stale',)),
    ("check_accumulate_grads", "each chunk's loss not weighted", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"did not weight each chunk's loss \(a mean over its rows\) by its share of the "
     r"rows, len\(x\) / len\(inp\)", ('unweighted',)),
    ("check_accumulate_grads", "zero_grad inside the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net.zero_grad()
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"cleared the gradients between chunks", ('between',)),
    ("check_accumulate_grads", "one backward on the whole batch", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    net(inp, targ).backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"once\nYour result is what you get if you called backward once, on the whole batch",
     ("once",)),
    ("check_sequential", "missing transpose", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1)
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2)
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"make_sequential raised RuntimeError(.|\n)*nn.Linear stores its weight as \(out, in\): "
     r"nn.Linear\(n_in, nh\) holds w1.t\(\), and", ("layout",)),
    ("check_sequential", "copied without torch.no_grad()", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    seq[0].weight.copy_(w1.t())
    seq[0].bias.copy_(b1)
    seq[2].weight.copy_(w2.t())
    seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"make_sequential raised RuntimeError(.|\n)*under torch.no_grad\(\)", ('leaf_inplace',)),
    ("check_sequential", "parameters that share the caller's memory", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    seq[0].weight, seq[0].bias = nn.Parameter(w1.t()), nn.Parameter(b1)
    seq[2].weight, seq[2].bias = nn.Parameter(w2.t()), nn.Parameter(b2)
    return seq
check_sequential(make_sequential)
""", r"shares their memory", ()),
    ("check_sequential", "biases left at their random start", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[2].weight.copy_(w2.t())
    return seq
check_sequential(make_sequential)
""", r"^with n_in=5, nh=7 your model differs from lin -> relu -> lin", ()),
    ("check_tanh_fn", "the sigmoid's derivative, copied from notebook 01", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * out * (1 - out)
check_tanh_fn(TanhFn)
""", r"Your result is what you get if you used the sigmoid's derivative", ('sigmoid',)),
    ("check_tanh_fn", "backward returns out_g unchanged", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return torch.tanh(inp)

    @staticmethod
    def backward(ctx, out_g):
        return out_g
check_tanh_fn(TanhFn)
""", r"you returned out_g without tanh's derivative", ('identity',)),
    ("check_tanh_fn", "forward works in place on the input", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = inp.tanh_()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"TanhFn\.apply\(x\) changed x in place", ()),
    ("check_tanh_fn", "backward squares the saved output in place", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out.pow_(2))
check_tanh_fn(TanhFn)
""", r"your backward changed out in place", ()),
    ("check_tanh_fn", "the output marked non-differentiable", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        ctx.save_for_backward(out)
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"does not require grad", ()),
    ("check_tanh_fn", "an nn.Module instead of a Function", """
class TanhFn(torch.nn.Module):
    def forward(self, inp):
        return torch.tanh(inp)
check_tanh_fn(TanhFn)
""", r"derived from torch.autograd.Function, but it is the class TanhFn, derived from Module", ()),
    ("check_accumulate_grads", "every backward on the whole batch, divided by n_chunks", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(inp, targ) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"every backward carried the whole batch's loss", ()),
    ("check_accumulate_grads", "split(n_chunks): chunks of n_chunks rows", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.split(n_chunks), targ.split(n_chunks)):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"16 times\nYour result is what you get if inp.split\(n\) makes chunks of n rows",
     ("split",)),
    ("check_accumulate_grads", "the chunk losses summed, one backward", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    total = 0
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        total = total + net(x, y) * len(x) / len(inp)
    total.backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"once\n", ("once",)),
    ("check_accumulate_grads", "zero_grad after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.zero_grad()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=3 \(48 rows\), every \.grad ends as None\nDid you clear the "
     r"gradients after the backward calls, not before them\?$", ('after',)),
    ("check_accumulate_grads", "zero_grad(set_to_none=False) after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.zero_grad(set_to_none=False)
check_accumulate_grads(accumulate_grads)
""", r"you cleared the gradients after the backward calls, not before them", ('after',)),
    ("check_accumulate_grads", "took an optimizer step too", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    torch.optim.SGD(net.parameters(), lr=0.1).step()
check_accumulate_grads(accumulate_grads)
""", r"^your accumulate_grads changed the values of net.lin1.weight: leave the weights as they "
     r"were$", ()),
    ("check_accumulate_grads", "froze the weights after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.requires_grad_(False)
check_accumulate_grads(accumulate_grads)
""", r"switched off net.lin1.weight.requires_grad; leave it as it was", ()),
    ("check_accumulate_grads", "the same first chunk every time", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    x, y = inp.chunk(n_chunks)[0], targ.chunk(n_chunks)[0]
    for _ in range(n_chunks):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"\.grad is not the full-batch gradient", ()),
    ("check_sequential", "parameters frozen (requires_grad off)", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq.requires_grad_(False)
check_sequential(make_sequential)
""", r"has requires_grad=False", ()),
    ("check_sequential", "biases zeroed instead of copied", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.zero_()
        seq[2].weight.copy_(w2.t())
        seq[2].bias.zero_()
    return seq
check_sequential(make_sequential)
""", r"^with n_in=5, nh=7 your model differs from lin -> relu -> lin", ()),
    ("check_sequential", "reshape where a transpose belongs", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.reshape(nh, n_in))
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.reshape(n_out, nh))
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"\nYour result is what you get if you reshaped \(or viewed\) w1, which keeps its memory "
     r"order: the transpose is w1.t\(\)\.\n", ("reshaped",)),
    ("check_sequential", ".data pointing at the caller's tensors", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    seq[0].weight.data, seq[0].bias.data = w1.t(), b1
    seq[2].weight.data, seq[2].bias.data = w2.t(), b2
    return seq
check_sequential(make_sequential)
""", r"a step on the model changed the weights passed in", ()),
    ("check_sequential", "transposed the caller's weight in place", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t_())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"your make_sequential changed w1 in place", ()),
    ("check_sequential", "layers without bias", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh, bias=False), nn.ReLU(),
                        nn.Linear(nh, n_out, bias=False))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[2].weight.copy_(w2.t())
    return seq
check_sequential(make_sequential)
""", r"register 4 parameters", ()),
    ("check_sequential", "a ModuleList instead of a Sequential", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.ModuleList([nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out)])
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"should return an nn.Sequential, not a ModuleList", ()),
    ("check_sequential", ".contiguous() taken for a copy", """
def make_sequential(w1, b1, w2, b2):
    lin1, lin2 = nn.Linear(*w1.shape), nn.Linear(*w2.shape)
    lin1.weight = nn.Parameter(w1.t().clone())
    lin1.bias = nn.Parameter(b1.clone())
    lin2.weight = nn.Parameter(w2.t().contiguous())  # (1, nh): already contiguous, no copy
    lin2.bias = nn.Parameter(b2.clone())
    return nn.Sequential(lin1, nn.ReLU(), lin2)
check_sequential(make_sequential)
""", r"a step on the model changed the weights passed in: the model shares their memory", ()),
    ("check_tanh_fn", "the output kept on the class, shared by every call", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp)
        TanhFn.saved = out
        return out

    @staticmethod
    def backward(ctx, out_g):
        return out_g * (1 - TanhFn.saved**2)
check_tanh_fn(TanhFn)
""", r"a gradient was computed with the other call's output: keep what backward needs in ctx",
     ("class_state",)),
    ("check_tanh_fn", "forward in float32", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.tanh(inp.float())
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"TanhFn.apply\(x\) returned torch.float32 for a torch.float64 x; tanh keeps its "
     r"input's dtype", ()),
    ("check_accumulate_grads", "torch.autograd.grad: nothing stored in .grad", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    params = list(net.parameters())
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        grads = torch.autograd.grad(net(x, y) * len(x) / len(inp), params)
check_accumulate_grads(accumulate_grads)
""", r"is None, and no backward filled it: torch.autograd.grad returns gradients without "
     r"storing them in .grad; call loss.backward\(\)", ()),
    ("check_sequential", "a model cached by shape, returned again for new weights", """
_cache = {}


def make_sequential(w1, b1, w2, b2):
    key = tuple(w1.shape)
    if key not in _cache:
        (n_in, nh), n_out = w1.shape, w2.shape[1]
        seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
        with torch.no_grad():
            seq[0].weight.copy_(w1.t())
            seq[0].bias.copy_(b1)
            seq[2].weight.copy_(w2.t())
            seq[2].bias.copy_(b2)
        _cache[key] = seq
    return _cache[key]
check_sequential(make_sequential)
""", r"with n_in=5, nh=7, make_sequential returned the model it returned for an earlier call", ()),
    ("check_sequential", "layers cached by shape, wrapped in a new Sequential", """
_layers = {}


def make_sequential(w1, b1, w2, b2):
    key = tuple(w1.shape)
    if key not in _layers:
        (n_in, nh), n_out = w1.shape, w2.shape[1]
        _layers[key] = (nn.Linear(n_in, nh), nn.Linear(nh, n_out))
    lin1, lin2 = _layers[key]
    with torch.no_grad():
        lin1.weight.copy_(w1.t())
        lin1.bias.copy_(b1)
        lin2.weight.copy_(w2.t())
        lin2.bias.copy_(b2)
    return nn.Sequential(lin1, nn.ReLU(), lin2)
check_sequential(make_sequential)
""", r"a model that shares parameters with the model of an earlier call", ()),
    ("check_accumulate_grads", "a hook on every parameter scales the gradient, never removed", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for p in net.parameters():
        p.register_hook(lambda g: g / n_chunks)
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"left a hook on net.lin1.weight: remove each hook you register \(handle.remove\(\)\)",
     ()),
    ("check_accumulate_grads", "a forward hook divides each loss, left on the model", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    net.register_forward_hook(lambda module, args, loss: loss / n_chunks)
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"^your accumulate_grads left a hook on net: remove each hook you register", ()),
    ("check_accumulate_grads", "the number of chunks written in", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(3), targ.chunk(3)):
        (net(x, y) / 3).backward()
check_accumulate_grads(accumulate_grads)
""", r"reached the weights 3 times\nYour result is what you get if the number of chunks is "
     r"written in \(3\): split with inp.chunk\(n_chunks\)", ("fixed:3",)),
    ("check_accumulate_grads", "a number of chunks written in, wrong from the first case", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(4), targ.chunk(4)):
        (net(x, y) / 4).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=3 \(48 rows\) expected one backward per chunk, 3 in all, but "
     r"backward reached the weights 4 times\nYour result is what you get if the number of "
     r"chunks is written in \(4\)", ('fixed:4',)),
    ("check_sequential", "the sizes of the check's first case written in", """
def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 1))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"^your make_sequential works for w1 of shape \(5, 7\), as in an earlier case, but not "
     r"for w1 of shape \(3, 9\)\nAre the sizes written in\? Take them from the weights",
     ('sizes',)),
    ("check_sequential", "the notebook's sizes written in, transposes right", """
def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"works for w1 of shape \(8, 16\), the notebook's, but not for w1 of shape \(5, 7\)\n"
     r"Are the sizes written in\? Take them from the weights", ('sizes',)),
    ("check_sequential", "nn.Linear(nh, n_in): the layer built the wrong way round", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(nh, n_in), nn.ReLU(), nn.Linear(n_out, nh))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"raised RuntimeError(.|\n)*nn.Linear\(n_in, nh\) holds w1.t\(\), and "
     r"nn.Linear\(nh, n_out\) holds w2.t\(\)$", ('layout',)),
    ("check_tanh_fn", "forward(ctx, inp) kept beside a setup_context", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return torch.tanh(inp)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"TanhFn.apply\(x\) raised TypeError(.|\n)*Hint: TanhFn.apply\(x\) calls forward\(x\) when "
     r"TanhFn has a setup_context", ('call',)),
    ("check_tanh_fn", "setup_context saves the input, backward reads it as the output", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"Your result is what you get if you wrote the derivative with the input", ('input',)),
    ("check_tanh_fn", "setup_context that saves nothing", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"Nothing was saved, so ctx.saved_tensors is empty in backward",
     ('nothing_saved:ValueError',)),
    ("check_sequential", "the first weight transposed, the second not", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2)
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"broadcast shape(.|\n)*nn.Linear\(nh, n_out\) holds w2.t\(\)", ('layout',)),
    ("check_accumulate_grads", ".grad divided by n_chunks after every chunk", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
        for p in net.parameters():
            p.grad /= n_chunks
check_accumulate_grads(accumulate_grads)
""", r"you divided the .grad by n_chunks after every chunk", ('divided_each',)),
    ("check_accumulate_grads", "each chunk's loss divided by its number of rows", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) / len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"you divided each chunk's loss by its number of rows; it is a mean over them already, "
     r"multiply it by len\(x\) / len\(inp\)", ('mean_again',)),
    ("check_accumulate_grads", "one loss, backward once per chunk", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    loss = net(inp, targ)
    for _ in range(n_chunks):
        (loss / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"raised RuntimeError: Trying to backward through the graph a second time(.|\n)*"
     r"compute each chunk's loss, net\(x, y\), inside the loop", ('backward_twice',)),
    ("check_accumulate_grads", "each chunk's loss divided by n_chunks: unequal chunks", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6, \.grad is not the full-batch gradient(.|\n)*you divided by n_chunks "
     r"\(each chunk's loss, or the summed .grad\), which weights a short last chunk like the "
     r"others", ('n_chunks',)),
    ("check_accumulate_grads", "the summed .grad divided by n_chunks at the end", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
    with torch.no_grad():
        for p in net.parameters():
            p.grad /= n_chunks
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6, \.grad is not the full-batch gradient(.|\n)*you divided by n_chunks",
     ('n_chunks',)),
    ("check_accumulate_grads", "chunks of len(inp) // n_chunks rows, by slicing", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    size = len(inp) // n_chunks
    for i in range(0, len(inp), size):
        x, y = inp[i:i + size], targ[i:i + size]
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6 \(50 rows\) expected one backward per chunk, 6 in all, but backward "
     r"reached the weights 7 times$", ()),
    ("check_tanh_fn", "backward multiplies out_g in place", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g.mul_(1 - out**2)
check_tanh_fn(TanhFn)
""", r"^your backward changed out_g in place; it should only read it", ()),
    ("check_accumulate_grads", "each chunk's weight upside down, len(inp) / len(x)", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(inp) / len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"multiplied each chunk's loss by len\(inp\) / len\(x\), upside down", ('inverted',)),
    ("check_accumulate_grads", "each chunk's loss times len(x), never divided", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"multiplied each chunk's loss by len\(x\) but did not divide by len\(inp\)", ('rows',)),
    ("check_accumulate_grads", "integer division: len(x) // len(inp) is 0", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * (len(x) // len(inp))).backward()
check_accumulate_grads(accumulate_grads)
""", r"\nYour result is what you get if each chunk's loss was multiplied by 0: len\(x\) // "
     r"len\(inp\) is 0", ('zero_share',)),
    ("check_accumulate_grads", "zero_grad after the loop, run through the template",
     through_template(ZERO_GRAD_AFTER_THE_LOOP),
     r"^with n_chunks=3 \(48 rows\), every \.grad ends as None\nDid you clear the "
     r"gradients after the backward calls, not before them\?$", ('after',)),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_sequential", "each bias copied into the other layer", """
def make_sequential(w1, b1, w2, b2):
    n_in, nh = w1.shape
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, 1))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b2)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b1)
    return seq
check_sequential(make_sequential)
""", r"raised RuntimeError: output with shape \[1\] doesn't match the broadcast shape \[7\]\n"
     r"a bias went into a layer of another size", ("bias_layer",)),
    ("check_sequential", "the second layer's bias left at its random start", """
def make_sequential(w1, b1, w2, b2):
    n_in, nh = w1.shape
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, 1))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
    return seq
check_sequential(make_sequential)
""", r"^with n_in=5, nh=7 your model differs from lin -> relu -> lin with the weights passed "
     r"in: wrong for out, w1, b1, w2, b2\nLargest difference", ()),
    ("check_sequential", "the weights loaded untransposed with load_state_dict", """
def make_sequential(w1, b1, w2, b2):
    seq = nn.Sequential(nn.Linear(*w1.shape), nn.ReLU(), nn.Linear(*w2.shape))
    seq.load_state_dict({"0.weight": w1.clone(), "0.bias": b1.clone(),
                         "2.weight": w2.clone(), "2.bias": b2.clone()})
    return seq
check_sequential(make_sequential)
""", r"raised RuntimeError: Error\(s\) in loading state_dict for Sequential: size mismatch for "
     r"0.weight: copying a param with shape torch.Size\(\[5, 7\]\).*\nnn.Linear stores its "
     r"weight as \(out, in\)", ("layout",)),
    ("check_accumulate_grads", "requires_grad switched off the biases", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for name, p in net.named_parameters():
        p.requires_grad_("weight" in name)
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"^your accumulate_grads switched off net.lin1.bias.requires_grad", ()),
    ("check_tanh_fn", "setup_context saves the tuple of inputs", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs)
    @staticmethod
    def backward(ctx, out_g):
        inp, = ctx.saved_tensors
        return out_g * (1 - torch.tanh(inp) ** 2)
check_tanh_fn(TanhFn)
""", r"^TanhFn.apply\(x\) raised TypeError: save_for_backward can only save variables, but "
     r"argument 0 is of type tuple\nctx.save_for_backward takes tensors, not the tuple `inputs`",
     ("saved_tuple",)),
    ("check_tanh_fn", "tanh taken again of the saved output", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, out_g):
        out, = ctx.saved_tensors
        return out_g * (1 - torch.tanh(out) ** 2)
check_tanh_fn(TanhFn)
""", r"\nYour result is what you get if you took tanh of the saved output again",
     ("tanh_twice",)),
    ("check_tanh_fn", "the saved output read as a list, one element too many", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return torch.tanh(inp)
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, out_g):
        out, extra = ctx.saved_tensors
        return out_g * (1 - out ** 2)
check_tanh_fn(TanhFn)
""", r"raised ValueError: not enough values to unpack \(expected 2, got 1\)$", ()),
    ("check_tanh_fn", "nothing saved, the output read from ctx.saved_tensors[0]", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return torch.tanh(inp)
    @staticmethod
    def backward(ctx, out_g):
        return out_g * (1 - ctx.saved_tensors[0] ** 2)
check_tanh_fn(TanhFn)
""", r"raised IndexError.*\nNothing was saved", ("nothing_saved:IndexError",)),
    ("check_accumulate_grads", "neither cleared nor weighted", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"\nYour result is what you get if you neither cleared the old gradient first nor "
     r"weighted", ("stale_unweighted",)),
    ("check_sequential", "w1 viewed as (nh, n_in), w2 transposed", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.view(nh, n_in))
        seq[0].bias.copy_(b1)
        seq[2].weight.copy_(w2.t())
        seq[2].bias.copy_(b2)
    return seq
check_sequential(make_sequential)
""", r"\n.*you reshaped \(or viewed\) w1, which keeps its memory order", ("reshaped",)),
    ("check_tanh_fn", "tanh_ in forward: the input changed in place and returned", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return inp.tanh_()
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"raised RuntimeError: An? input that has been returned as-is as output is being saved for "
     r"backward\.\nforward changed inp in place; change no tensor in place: use "
     r"torch.tanh\(inp\)$", ("inplace",)),
    ("check_tanh_fn", "tanh_ in a forward(ctx, inp): x changed in place", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return torch.tanh_(inp)
    @staticmethod
    def backward(ctx, out_g):
        (t,) = ctx.saved_tensors
        return out_g * (1 - t**2)
check_tanh_fn(TanhFn)
""", r"^TanhFn.apply\(x\) changed x in place; it should only read it", ()),
    ("check_tanh_fn", "the input returned as it is, and saved: not in place, no tanh", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(inp):
        return inp
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, out_g):
        (out,) = ctx.saved_tensors
        return out_g * (1 - out**2)
check_tanh_fn(TanhFn)
""", r"raised RuntimeError: An? input that has been returned as-is as output is being saved for "
     r"backward\.$", ()),
]
