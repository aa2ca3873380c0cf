"""Right answers to notebook 04's exercises, written differently from the solutions.

Each must pass its check.
"""

VALID = [
    ("check_share", "F.linear and relu, W detached once, criterion from nn", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    W_fixed = W.detach()
    h = torch.relu(model.input_linear(x))
    for use in range(k):
        h = torch.relu(nn.functional.linear(h, W if use + 1 == i else W_fixed, b))
    loss = nn.MSELoss(reduction="sum")(model.output_linear(h), targ)
    (grad,) = torch.autograd.grad(loss, [W])
    print("share of use", i, "of", k)
    return grad
check_share(share)
"""),
    ("check_share", "the model's own layer for use i, by hand for the others", """
def share(model, x, targ, k, i):
    mid = model.middle_linear
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        if use == i:
            h = mid(h).clamp(min=0)
        else:
            h = (h @ mid.weight.detach().T + mid.bias).clamp(min=0)
    loss = (model.output_linear(h) - targ).pow(2).sum()
    return torch.autograd.grad(loss, mid.weight)[0]
check_share(share)
"""),
    ("check_share", "the formula: (dL/dz_i)^T a_(i-1), dL/dz_i from autograd", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight.detach(), model.middle_linear.bias.detach()
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        z = h @ W.T + b
        if use == i:
            a, z_i = h, z
        h = z.clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    dz = torch.autograd.grad(loss, z_i)[0]
    return dz.T @ a
check_share(share)
"""),
    ("check_share", "untied copies, as in section 3, and autograd.grad", """
import copy

def share(model, x, targ, k, i):
    copies = [copy.deepcopy(model.middle_linear) for _ in range(k)]
    h = model.input_linear(x).clamp(min=0)
    for layer in copies:
        h = layer(h).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, copies[i - 1].weight)[0]
check_share(share)
"""),
    ("check_share", "float32 copies of the model, F.linear, a float64 W's gradient", """
def share(model, x, targ, k, i):
    F = torch.nn.functional
    mid = model.middle_linear
    W32 = mid.weight.float()           # the gradient flows back through the cast
    h = model.input_linear(x).clamp(min=0).float()
    for use in range(1, k + 1):
        w = W32 if use == i else mid.weight.detach().float()
        h = F.relu(F.linear(h, w, mid.bias.detach().float()))
    out = F.linear(h, model.output_linear.weight.detach().float(),
                   model.output_linear.bias.detach().float())
    loss = nn.MSELoss(reduction="sum")(out, targ.float())
    return torch.autograd.grad(loss, mid.weight)[0]
check_share(share)
"""),
    ("check_share", "everything in float32, the share returned in float32", """
def share(model, x, targ, k, i):
    F = torch.nn.functional
    mid = model.middle_linear
    W = mid.weight.detach().float().requires_grad_()
    W_fixed = mid.weight.detach().float()
    h = F.relu(F.linear(x.float(), model.input_linear.weight.detach().float(),
                        model.input_linear.bias.detach().float()))
    for use in range(1, k + 1):
        h = F.relu(F.linear(h, W if use == i else W_fixed, mid.bias.detach().float()))
    out = F.linear(h, model.output_linear.weight.detach().float(),
                   model.output_linear.bias.detach().float())
    return torch.autograd.grad(((out - targ.float()) ** 2).sum(), W)[0]
check_share(share)
"""),
    ("check_share", "a forward hook for each use's input and output, removed after", """
def share(model, x, targ, k, i):
    mid = model.middle_linear
    calls = []
    handle = mid.register_forward_hook(lambda m, args, out: calls.append((args[0], out)))
    h = model.input_linear(x).clamp(min=0)
    for _ in range(k):
        h = mid(h).clamp(min=0)
    handle.remove()
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    a, z = calls[i - 1]
    (dz,) = torch.autograd.grad(loss, z)
    return dz.T @ a
check_share(share)
"""),
    ("check_share", "W.data for the other uses, and the bias detached there too", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        if use == i:
            h = torch.relu(h @ W.T + b)
        else:
            h = torch.relu(h @ W.data.T + b.detach())
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W, create_graph=True)[0]
check_share(share)
"""),
    ("check_w3", "one expression", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    return W0 - lr * g0 * (1 if set_to_none else 1 + momentum + momentum ** 2)
check_w3(predict_w3)
"""),
    ("check_w3", "a geometric series", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    steps = 1 if set_to_none else 3
    return W0 - lr * sum(momentum ** t for t in range(steps)) * g0
check_w3(predict_w3)
"""),
    ("check_w3", "SGD with momentum written out, step by step", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W, buf = W0.clone(), None
    zero = None if set_to_none else torch.zeros_like(g0)
    for g in [g0, zero, zero]:
        if g is None:            # no gradient: SGD skips the parameter
            continue
        buf = g.clone() if buf is None else momentum * buf + g
        W = W - lr * buf
    return W
check_w3(predict_w3)
"""),
    ("check_w3", "the buffer named, float32 arithmetic", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    v0 = g0.float()
    W1 = W0.float() - lr * v0
    if set_to_none:
        return W1
    v1 = momentum * v0 + torch.zeros_like(v0)
    W2 = W1 - lr * v1
    v2 = momentum * v1
    return W2 - lr * v2
check_w3(predict_w3)
"""),
    ("check_w3", "a real SGD optimizer on a copy of W0", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    p = W0.clone().requires_grad_()
    opt = torch.optim.SGD([p], lr=lr, momentum=momentum)
    p.grad = g0.clone()
    opt.step()
    for _ in range(2):
        opt.zero_grad(set_to_none=set_to_none)
        opt.step()
    return p.detach()
check_w3(predict_w3)
"""),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_share", "F.linear, the bias detached too", """
import torch.nn.functional as F


def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = F.relu(model.input_linear(x))
    for use in range(1, k + 1):
        if use == i:
            h = F.relu(F.linear(h, W, b))
        else:
            h = F.relu(F.linear(h, W.detach(), b.detach()))
    loss = (model.output_linear(h) - targ).pow(2).sum()
    (g,) = torch.autograd.grad(loss, [W])
    return g
check_share(share)
"""),
    ("check_w3", "a loop over the steps with a buffer", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W, buf = W0.clone(), None
    for step, g in enumerate([g0, None, None]):
        if g is None:
            if set_to_none:
                continue
            g = torch.zeros_like(W0)
        buf = g.clone() if buf is None else momentum * buf + g
        W = W - lr * buf
    return W
check_w3(predict_w3)
"""),
    ("check_w3", "torch.optim.SGD on a copy", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W = W0.detach().clone().requires_grad_()
    opt = torch.optim.SGD([W], lr=lr, momentum=momentum)
    for step in range(3):
        opt.zero_grad(set_to_none=set_to_none)
        if step == 0:
            W.grad = g0.clone()
        opt.step()
    return W.detach()
check_w3(predict_w3)
"""),
]
