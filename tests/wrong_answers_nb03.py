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
""", r"should return out_g \* \(1 - out\*\*2\)(.|\n)*you left out out_g"),
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
""", r"should return out_g \* \(1 - out\*\*2\)(.|\n)*derivative with the input"),
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
""", r"your backward raised ValueError(.|\n)*Nothing was saved(.|\n)*ctx.save_for_backward"),
    ("check_accumulate_grads", "forgot zero_grad: the old gradient stays", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"the old gradient stayed in .grad(.|\n)*net.zero_grad\(\)"),
    ("check_accumulate_grads", "each chunk's loss not weighted", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"did not weight each chunk's loss \(a mean over its rows\) by its share of the "
     r"rows, len\(x\) / len\(inp\)"),
    ("check_accumulate_grads", "zero_grad inside the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net.zero_grad()
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"cleared the gradients between chunks"),
    ("check_accumulate_grads", "one backward on the whole batch", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    net(inp, targ).backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"once$"),
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
     r"nn.Linear\(n_in, nh\) holds w1.t\(\), \(7, 5\)"),
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
""", r"make_sequential raised RuntimeError(.|\n)*under torch.no_grad\(\)"),
    ("check_sequential", "parameters that share the caller's memory", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    seq[0].weight, seq[0].bias = nn.Parameter(w1.t()), nn.Parameter(b1)
    seq[2].weight, seq[2].bias = nn.Parameter(w2.t()), nn.Parameter(b2)
    return seq
check_sequential(make_sequential)
""", r"shares their memory"),
    ("check_sequential", "biases left at their random start", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    with torch.no_grad():
        seq[0].weight.copy_(w1.t())
        seq[2].weight.copy_(w2.t())
    return seq
check_sequential(make_sequential)
""", r"output differs from lin -> relu -> lin"),
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
""", r"Your result is what you get if you used the sigmoid's derivative"),
    ("check_tanh_fn", "backward returns out_g unchanged", """
class TanhFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return torch.tanh(inp)

    @staticmethod
    def backward(ctx, out_g):
        return out_g
check_tanh_fn(TanhFn)
""", r"you returned out_g without tanh's derivative"),
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
""", r"your forward changed x in place"),
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
""", r"your backward changed out in place"),
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
""", r"does not require grad"),
    ("check_tanh_fn", "an nn.Module instead of a Function", """
class TanhFn(nn.Module):
    def forward(self, inp):
        return torch.tanh(inp)
check_tanh_fn(TanhFn)
""", r"derived from torch.autograd.Function, but it is the class TanhFn, derived from Module"),
    ("check_accumulate_grads", "every backward on the whole batch, divided by n_chunks", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(inp, targ) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"every backward carried the whole batch's loss"),
    ("check_accumulate_grads", "split(n_chunks): chunks of n_chunks rows", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.split(n_chunks), targ.split(n_chunks)):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"16 times\ninp.split\(3\) makes chunks of 3 rows"),
    ("check_accumulate_grads", "the chunk losses summed, one backward", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    total = 0
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        total = total + net(x, y) * len(x) / len(inp)
    total.backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, 3 in all, but backward reached the weights "
     r"once$"),
    ("check_accumulate_grads", "zero_grad after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.zero_grad()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=3 \(48 rows\), every \.grad ends as None\nDid you clear the "
     r"gradients after the backward calls, not before them\?$"),
    ("check_accumulate_grads", "zero_grad(set_to_none=False) after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.zero_grad(set_to_none=False)
check_accumulate_grads(accumulate_grads)
""", r"you cleared the gradients after the backward calls, not before them"),
    ("check_accumulate_grads", "took an optimizer step too", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    torch.optim.SGD(net.parameters(), lr=0.1).step()
check_accumulate_grads(accumulate_grads)
""", r"changed the values of lin1.weight; it should leave the weights to the optimizer"),
    ("check_accumulate_grads", "froze the weights after the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x) / len(inp)).backward()
    net.requires_grad_(False)
check_accumulate_grads(accumulate_grads)
""", r"switched requires_grad of lin1.weight; leave it as it was"),
    ("check_accumulate_grads", "the same first chunk every time", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    x, y = inp.chunk(n_chunks)[0], targ.chunk(n_chunks)[0]
    for _ in range(n_chunks):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"\.grad is not the full-batch gradient"),
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
""", r"has requires_grad=False"),
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
""", r"output differs from lin -> relu -> lin"),
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
""", r"you put w1 into the layer as it is, not transposed"),
    ("check_sequential", ".data pointing at the caller's tensors", """
def make_sequential(w1, b1, w2, b2):
    (n_in, nh), n_out = w1.shape, w2.shape[1]
    seq = nn.Sequential(nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
    seq[0].weight.data, seq[0].bias.data = w1.t(), b1
    seq[2].weight.data, seq[2].bias.data = w2.t(), b2
    return seq
check_sequential(make_sequential)
""", r"a step on the model changed the weights passed in"),
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
""", r"building the model changed w1 in place"),
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
""", r"register 4 parameters"),
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
""", r"should return an nn.Sequential, not a ModuleList"),
    ("check_sequential", ".contiguous() taken for a copy", """
def make_sequential(w1, b1, w2, b2):
    lin1, lin2 = nn.Linear(*w1.shape), nn.Linear(*w2.shape)
    lin1.weight = nn.Parameter(w1.t().clone())
    lin1.bias = nn.Parameter(b1.clone())
    lin2.weight = nn.Parameter(w2.t().contiguous())  # (1, nh): already contiguous, no copy
    lin2.bias = nn.Parameter(b2.clone())
    return nn.Sequential(lin1, nn.ReLU(), lin2)
check_sequential(make_sequential)
""", r"a step on the model changed the weights passed in: the model shares their memory"),
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
""", r"a.grad was computed with the other call's output: your backward used another call's "
     r"saved output. Keep what backward needs in ctx"),
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
     r"input's dtype"),
    ("check_accumulate_grads", "torch.autograd.grad: nothing stored in .grad", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    params = list(net.parameters())
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        grads = torch.autograd.grad(net(x, y) * len(x) / len(inp), params)
check_accumulate_grads(accumulate_grads)
""", r"is None, and no backward filled it: torch.autograd.grad returns gradients without "
     r"storing them in .grad; call loss.backward\(\)"),
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
""", r"with n_in=5, nh=7, make_sequential returned the model it returned for an earlier call"),
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
""", r"a model that shares parameters with the model of an earlier call"),
    ("check_accumulate_grads", "a hook on every parameter scales the gradient, never removed", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for p in net.parameters():
        p.register_hook(lambda g: g / n_chunks)
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"left a hook on lin1.weight: remove each hook you register \(handle.remove\(\)\)"),
    ("check_accumulate_grads", "a forward hook divides each loss, left on the model", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    net.register_forward_hook(lambda module, args, loss: loss / n_chunks)
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"^your accumulate_grads left a hook on the model: remove each hook you register"),
    ("check_accumulate_grads", "the number of chunks written in", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(3), targ.chunk(3)):
        (net(x, y) / 3).backward()
check_accumulate_grads(accumulate_grads)
""", r"reached the weights 3 times\nand 3 times with n_chunks=2 too: is the number "
     r"of chunks written in\? Split with inp.chunk\(n_chunks\)"),
    ("check_accumulate_grads", "a number of chunks written in, wrong from the first case", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(4), targ.chunk(4)):
        (net(x, y) / 4).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=3 \(48 rows\) expected one backward per chunk, 3 in all, but "
     r"backward reached the weights 4 times\nand 4 times with n_chunks=2 too: is the "
     r"number of chunks written in\?"),
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
     r"for w1 of shape \(3, 9\)\nAre the sizes written in\? Take them from the weights"),
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
     r"Are the sizes written in\? Take them from the weights"),
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
""", r"raised RuntimeError(.|\n)*nn.Linear\(n_in, nh\) holds w1.t\(\), \(7, 5\), and "
     r"nn.Linear\(nh, n_out\) holds w2.t\(\), \(1, 7\)"),
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
""", r"your forward, raised TypeError(.|\n)*Hint: TanhFn.apply\(x\) calls forward\(x\) when "
     r"TanhFn has a setup_context"),
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
""", r"Your result is what you get if you wrote the derivative with the input"),
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
""", r"Nothing was saved, so ctx.saved_tensors is empty in backward"),
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
""", r"broadcast shape(.|\n)*nn.Linear\(nh, n_out\) holds w2.t\(\), \(1, 7\)"),
    ("check_accumulate_grads", ".grad divided by n_chunks after every chunk", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
        for p in net.parameters():
            p.grad /= n_chunks
check_accumulate_grads(accumulate_grads)
""", r"you divided the .grad by n_chunks after every chunk"),
    ("check_accumulate_grads", "each chunk's loss divided by its number of rows", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) / len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"you divided each chunk's loss by its number of rows; it is a mean over them already, "
     r"multiply it by len\(x\) / len\(inp\)"),
    ("check_accumulate_grads", "one loss, backward once per chunk", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    loss = net(inp, targ)
    for _ in range(n_chunks):
        (loss / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"raised RuntimeError: Trying to backward through the graph a second time(.|\n)*"
     r"compute each chunk's loss, net\(x, y\), inside the loop"),
    ("check_accumulate_grads", "each chunk's loss divided by n_chunks: unequal chunks", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6, \.grad is not the full-batch gradient(.|\n)*you divided by n_chunks, "
     r"which weights the 5-row chunk like the 9-row ones; weight each chunk's loss by "
     r"len\(x\) / len\(inp\)"),
    ("check_accumulate_grads", "the summed .grad divided by n_chunks at the end", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
    with torch.no_grad():
        for p in net.parameters():
            p.grad /= n_chunks
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6, \.grad is not the full-batch gradient(.|\n)*you divided by n_chunks"),
    ("check_accumulate_grads", "chunks of len(inp) // n_chunks rows, by slicing", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    size = len(inp) // n_chunks
    for i in range(0, len(inp), size):
        x, y = inp[i:i + size], targ[i:i + size]
        (net(x, y) * len(x) / len(inp)).backward()
check_accumulate_grads(accumulate_grads)
""", r"^with n_chunks=6 \(50 rows\) expected one backward per chunk, 6 in all, but backward "
     r"reached the weights 7 times$"),
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
""", r"^your backward changed out_g in place; it should only read it"),
    ("check_accumulate_grads", "each chunk's weight upside down, len(inp) / len(x)", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(inp) / len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"multiplied each chunk's loss by len\(inp\) / len\(x\), upside down"),
    ("check_accumulate_grads", "each chunk's loss times len(x), never divided", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * len(x)).backward()
check_accumulate_grads(accumulate_grads)
""", r"multiplied each chunk's loss by len\(x\) but did not divide by len\(inp\)"),
    ("check_accumulate_grads", "integer division: len(x) // len(inp) is 0", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) * (len(x) // len(inp))).backward()
check_accumulate_grads(accumulate_grads)
""", r"every backward added zeros into \.grad(.|\n)*len\(x\) // len\(inp\) is 0"),
    ("check_accumulate_grads", "zero_grad after the loop, run through the template",
     through_template(ZERO_GRAD_AFTER_THE_LOOP),
     r"^with n_chunks=3 \(48 rows\), every \.grad ends as None\nDid you clear the "
     r"gradients after the backward calls, not before them\?$"),
]
