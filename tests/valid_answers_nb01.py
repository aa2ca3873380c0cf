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
    ("check_linear_grad", "einsum", """
def linear_grad(inp, out, w, b):
    inp.g = torch.einsum("no,oi->ni", out.g, w)
    w.g = torch.einsum("no,ni->oi", out.g, inp)
    b.g = torch.einsum("no->o", out.g)
check_linear_grad(linear_grad)
"""),
    ("check_linear_grad", "section 3's products transposed back, .T and sum(dim=0)", """
def linear_grad(inp, out, w, b):
    inp.g = (w.T @ out.g.T).T
    w.g = (inp.T @ out.g).T
    b.g = out.g.sum(dim=0)
check_linear_grad(linear_grad)
"""),
    ("check_linear_grad", "lesson 8's outer products, summed over the rows", """
def linear_grad(inp, out, w, b):
    inp.g = torch.mm(out.g, w)
    w.g = (out.g.unsqueeze(-1) * inp.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
"""),
    ("check_linear_grad", "a loop over the rows in float64, with a print and a return", """
def linear_grad(inp, out, w, b):
    gw = torch.zeros(w.shape, dtype=torch.float64)
    for i in range(inp.shape[0]):
        gw += torch.outer(out.g[i].double(), inp[i].double())
    inp.g = out.g.double() @ w.double()
    w.g, b.g = gw, out.g.double().sum(0)
    print("linear_grad ran on", tuple(inp.shape))
    return inp.g, w.g, b.g
check_linear_grad(linear_grad)
"""),
    ("check_linear_grad", "autograd on detached copies", """
def linear_grad(inp, out, w, b):
    x, v, c = (t.detach().requires_grad_() for t in (inp, w, b))
    (x @ v.t() + c).backward(out.g)
    inp.g, w.g, b.g = x.grad, v.grad, c.grad
check_linear_grad(linear_grad)
"""),
    ("check_linear_grad", "section 3's lin_grad on w.t(), then its gradient transposed back", """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
def linear_grad(inp, out, w, b):
    wt = w.t()
    lin_grad(inp, out, wt, b)
    w.g = wt.g.t()
check_linear_grad(linear_grad)
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

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_same_object", "hasattr(.g) on each expression, evaluated", """
w = torch.randn(8, 16)
w64 = torch.randn(8, 16, dtype=torch.float64)
wT = torch.randn(16, 8).t()
w.g = w64.g = wT.g = "mine"
exprs = ["w.t()", "w.view(8, 16)", "w.to(torch.float32)", "w.requires_grad_()", "w + 0",
         "w64.float()", "w64.double()", "wT.contiguous()", "wT.float()", "wT.t()"]
predictions = {e: hasattr(eval(e), "g") for e in exprs}
check_same_object(predictions)
"""),
    ("check_mae_grad", "a bare squeeze()", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze() - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
"""),
    ("check_mae_grad", "torch.where with ints, divided by len(targ)", """
def mae_grad(inp, targ):
    diff = inp.squeeze(-1) - targ
    inp.g = torch.where(diff > 0, 1, -1).unsqueeze(-1) / len(targ)
check_mae_grad(mae_grad)
"""),
]
