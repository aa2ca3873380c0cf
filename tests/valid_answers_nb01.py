"""Right answers to notebook 01's exercises, written differently from the solutions."""

VALID = [
    ("check_shapes", "lists instead of tuples", """
shapes = {"inp": [32, 5], "l1": [32, 7], "out": [32, 1], "w1": [5, 7], "b1": [7],
          "w2": [7, 1], "b2": [1]}
check_shapes(shapes)
"""),
    ("check_shapes", "torch.Size values, in another order, with an extra entry", """
shapes = {"w1": torch.Size([5, 7]), "b1": torch.Size([7]), "w2": torch.Size([7, 1]),
          "b2": torch.Size([1]), "inp": torch.Size([32, 5]), "l1": torch.Size([32, 7]),
          "l2": torch.Size([32, 7]), "out": torch.Size([32, 1])}
check_shapes(shapes)
"""),
    ("check_shapes", "built with dict() from named sizes", """
N, n_in, nh = 32, 5, 7
check_shapes(dict(inp=(N, n_in), l1=(N, nh), out=(N, 1), w1=(n_in, nh), b1=(nh,),
                  w2=(nh, 1), b2=(1,)))
"""),
    ("check_sigmoid_grad", "the sigmoid recomputed from inp", """
def sigmoid_grad(inp, out):
    s = torch.sigmoid(inp)
    inp.g = out.g * s * (1 - s)
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "out - out**2, and sigma(-x) for 1 - sigma(x)", """
def sigmoid_grad(inp, out):
    inp.g = out.g * (out - out**2)
check_sigmoid_grad(sigmoid_grad)
def sigmoid_grad(inp, out):
    inp.g = out.g * torch.sigmoid(inp) * torch.sigmoid(-inp)
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "in place on its own copy, with a print and a return", """
def sigmoid_grad(inp, out):
    g = out.g.clone()
    g.mul_(out).mul_(1 - out)
    inp.g = g
    print("sigmoid_grad ran on", tuple(inp.shape))
    return g
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "the derivative written out with exp", """
def sigmoid_grad(inp, out):
    e = torch.exp(-inp)
    inp.g = out.g * e / (1 + e) ** 2
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "in float64", """
def sigmoid_grad(inp, out):
    o = out.double()
    inp.g = out.g.double() * o * (1 - o)
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "autograd inside the answer", """
def sigmoid_grad(inp, out):
    x = inp.detach().clone().requires_grad_()
    torch.sigmoid(x).backward(out.g)
    inp.g = x.grad
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_sigmoid_grad", "a float32 inp.g, also for the float64 case (float32 rounding)", """
def sigmoid_grad(inp, out):
    inp.g = (out.g * out * (1 - out)).float()
check_sigmoid_grad(sigmoid_grad)
"""),
    ("check_mae_grad", "targ unsqueezed instead of inp squeezed, len for N", """
def mae_grad(inp, targ):
    inp.g = (inp - targ.unsqueeze(-1)).sign() / len(targ)
check_mae_grad(mae_grad)
"""),
    ("check_mae_grad", "torch.sign, N as inp.numel() (N rows of one column)", """
def mae_grad(inp, targ):
    inp.g = torch.sign(inp - targ[:, None]) / inp.numel()
check_mae_grad(mae_grad)
"""),
    ("check_mae_grad", "a comparison instead of sign", """
def mae_grad(inp, targ):
    up = torch.where(inp.squeeze(-1) > targ, 1.0, -1.0)
    inp.g = up[:, None] / inp.shape[0]
check_mae_grad(mae_grad)
"""),
    ("check_mae_grad", "u / |u|, a loop over the rows, in float64", """
def mae_grad(inp, targ):
    n = inp.shape[0]
    g = torch.zeros(n, 1, dtype=torch.float64)
    for i in range(n):
        u = float(inp[i, 0]) - float(targ[i])
        g[i, 0] = u / abs(u) / n
    inp.g = g
    return g
check_mae_grad(mae_grad)
"""),
    ("check_mae_grad", "a float32 inp.g, also for the float64 batches (float32 rounding)", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().float().unsqueeze(-1) / len(inp)
check_mae_grad(mae_grad)
"""),
]
