"""Plausible wrong answers to notebook 03's exercises; each must fail its check."""

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
""", r"should return out_g \* \(1 - out\*\*2\)"),
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
""", r"should return out_g \* \(1 - out\*\*2\)"),
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
""", r"your backward raised ValueError(.|\n)*Hint: save the output in forward"),
    ("check_accumulate_grads", "forgot zero_grad: the old gradient stays", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"still holds the old gradient(.|\n)*net.zero_grad\(\)"),
    ("check_accumulate_grads", "forgot the 1/n_chunks", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net(x, y).backward()
check_accumulate_grads(accumulate_grads)
""", r"4 times the full-batch gradient(.|\n)*divide it by n_chunks"),
    ("check_accumulate_grads", "zero_grad inside the loop", """
def accumulate_grads(net, inp, targ, n_chunks):
    for x, y in zip(inp.chunk(n_chunks), targ.chunk(n_chunks)):
        net.zero_grad()
        (net(x, y) / n_chunks).backward()
check_accumulate_grads(accumulate_grads)
""", r"only the last chunk's share is left"),
    ("check_accumulate_grads", "one backward on the whole batch", """
def accumulate_grads(net, inp, targ, n_chunks):
    net.zero_grad()
    net(inp, targ).backward()
check_accumulate_grads(accumulate_grads)
""", r"expected one backward per chunk, but backward reached the weights 1 time"),
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
""", r"make_sequential raised RuntimeError(.|\n)*Hint: nn.Linear stores its weight as \(out, in\)"),
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
]
