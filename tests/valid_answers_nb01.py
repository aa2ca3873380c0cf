"""Right answers to notebook 01's exercises, written differently from the solutions."""

VALID = [
    ("check_same_object", "tested with is, the habit section 4 recommends", """
w = torch.randn(8, 16)
w64 = torch.randn(8, 16, dtype=torch.float64)
wT = torch.randn(16, 8).t()
predictions = {"w.t()": w.t() is w, "w.view(8, 16)": w.view(8, 16) is w,
               "w.to(torch.float32)": w.to(torch.float32) is w,
               "w.requires_grad_()": w.requires_grad_() is w, "w + 0": w + 0 is w,
               "w64.float()": w64.float() is w64, "w64.double()": w64.double() is w64,
               "wT.contiguous()": wT.contiguous() is wT, "wT.float()": wT.float() is wT,
               "wT.t()": wT.t() is wT}
check_same_object(predictions)
"""),
    ("check_same_object", "keys spaced differently, in another order, an extra entry", """
check_same_object({"wT.t()": False, "wT.float()": True, "wT.contiguous()": False,
                   "w64.double()": True, "w64.float()": False, "w+0": False,
                   "w.requires_grad_( )": True, "w.to(torch.float32)": True,
                   "w.view(8,16)": False, "w.t()": False, "w.float()": True})
"""),
    ("check_same_object", "hasattr(result, 'g') on tensors given a .g, with NumPy bools", """
import numpy as np
w, w64, wT = torch.randn(8, 16), torch.randn(8, 16).double(), torch.randn(16, 8).t()
for t in (w, w64, wT):
    t.g = "mine"
results = {"w.t()": w.t(), "w.view(8, 16)": w.view(8, 16),
           "w.to(torch.float32)": w.to(torch.float32),
           "w.requires_grad_()": w.requires_grad_(), "w + 0": w + 0,
           "w64.float()": w64.float(), "w64.double()": w64.double(),
           "wT.contiguous()": wT.contiguous(), "wT.float()": wT.float(), "wT.t()": wT.t()}
check_same_object({k: np.bool_(hasattr(r, "g")) for k, r in results.items()})
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
