"""Plausible wrong answers to notebook 04's exercises; each must fail its check.

And the automatic mutants of the solutions that are right answers too (EQUIVALENT).
"""

SHARE = """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in {uses}:
        h = (h @ ({pick}).T + b).clamp(min=0)
    loss = {loss}
    {ret}
check_share(share)
"""
RIGHT = dict(uses="range(1, k + 1)", pick="W if use == i else W.detach()",
             loss="((model.output_linear(h) - targ) ** 2).sum()",
             ret="return torch.autograd.grad(loss, W)[0]")

W3 = """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W1 = W0 - lr * g0
    return {answer}
check_w3(predict_w3)
"""

WRONG = [
    ("check_share", "nothing detached: the whole .grad", SHARE.format(**{**RIGHT, "pick": "W"}),
     r"is the whole gradient, the sum over all 3 uses\nYour result is what you get if you held "
     r"no use fixed", ("whole",)),
    ("check_share", "detached use i instead of the others",
     SHARE.format(**{**RIGHT, "pick": "W.detach() if use == i else W"}),
     r"is the sum of the other uses' shares, without use 1's\n.*you detached use i and kept "
     r"the others", ("others",)),
    ("check_share", "uses counted from 0", SHARE.format(**{**RIGHT, "uses": "range(k)"}),
     r"k=3, i=1\) is the share of use 2\n.*you numbered the uses from 0 \(range\(k\)\); number "
     r"them 1 to k", ("from_0",)),
    ("check_share", "uses counted from the output end",
     SHARE.format(**{**RIGHT, "uses": "range(k, 0, -1)"}),
     r"k=3, i=1\) is the share of use 3\n.*you numbered the uses from the output end",
     ("reversed",)),
    ("check_share", "mean instead of the summed squared error",
     SHARE.format(**{**RIGHT, "loss": "((model.output_linear(h) - targ) ** 2).mean()"}),
     r"times 0.0417\nYour result is what you get if you took the mean of the squared errors",
     ("mean",)),
    ("check_share", "use numbers compared with `is`",
     SHARE.format(**{**RIGHT, "pick": "W if use is i else W.detach()"}),
     r"k=260, i=258\) raised RuntimeError: .*\nyou compared use numbers with `is`: two equal "
     r"ints above 256 are different objects in Python; compare numbers with ==", ("is",)),
    ("check_share", "backward, then the weight's .grad",
     SHARE.format(**{**RIGHT, "ret": "loss.backward()\n    return W.grad"}),
     r"k=3, i=1\) is use 1's share plus the .grad W held before\nYour result is what you get "
     r"if you returned W.grad after a backward\(\), which adds into the .grad", ("old_grad",)),
    ("check_share", "the model's .grad cleared, then backward",
     SHARE.format(**{**RIGHT, "ret": "W.grad = None\n    loss.backward()\n    return W.grad"}),
     r"k=3, i=1\) changed model.input_linear.weight.grad\ntorch.autograd.grad\(loss, W\) "
     r"returns the gradient without touching any .grad", ()),
    ("check_share", "zero_grad, backward, only W.grad put back", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    old = W.grad.clone()
    model.zero_grad()
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        h = (h @ (W if use == i else W.detach()).T + b).clamp(min=0)
    ((model.output_linear(h) - targ) ** 2).sum().backward()
    g = W.grad.clone()
    W.grad = old
    return g
check_share(share)
""", r"k=3, i=1\) changed model.input_linear.weight.grad\n", ()),
    ("check_share", "no ReLU after the middle layer", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        h = h @ (W if use == i else W.detach()).T + b
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"should be dL/dW with W held fixed in every use but use 1\nLargest difference", ()),
    ("check_share", "targ changed in place by the loss",
     SHARE.format(**{**RIGHT, "loss": "(targ.sub_(model.output_linear(h)) ** 2).sum()"}),
     r"changed targ in place", ()),
    ("check_share", "the share by hand, transposed", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight.detach(), model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        z = h @ W.T + b
        if use == i:
            a, z_i = h.detach(), z
        h = z.clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    dz = torch.autograd.grad(loss, z_i)[0]
    return a.T @ dz
check_share(share)
""", r"is the transpose of use 1's share\n.*nn.Linear stores its weight as \(out, in\)",
     ("transposed",)),
    ("check_share", "returned the loss instead of a gradient", """
def share(model, x, targ, k, i):
    h = model.input_linear(x).clamp(min=0)
    for _ in range(k):
        h = model.middle_linear(h).clamp(min=0)
    return ((model.output_linear(h) - targ) ** 2).sum()
check_share(share)
""", r"shaped like middle_linear.weight\) has shape \(\), expected \(6, 6\)", ()),
    ("check_share", "no return", SHARE.format(**{**RIGHT, "ret": "torch.autograd.grad(loss, W)"}),
     r"should be a tensor, but it is None", ()),
    ("check_share", "a forward hook on the layer, never removed", """
def share(model, x, targ, k, i):
    mid = model.middle_linear
    calls = []
    mid.register_forward_hook(lambda m, args, out: calls.append((args[0], out)))
    h = model.input_linear(x).clamp(min=0)
    for _ in range(k):
        h = mid(h).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    a, z = calls[i - 1]
    (dz,) = torch.autograd.grad(loss, z)
    return dz.T @ a
check_share(share)
""", r"k=3, i=1\) left a hook on model.middle_linear: remove each hook you register", ()),
    ("check_share", "a new leaf put in the model in place of W", """
def share(model, x, targ, k, i):
    mid = model.middle_linear
    W = mid.weight = nn.Parameter(mid.weight.detach().clone())
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        h = (h @ (W if use == i else W.detach()).T + mid.bias).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"k=3, i=1\) replaced model.middle_linear.weight with another tensor", ()),
    ("check_share", "zero_grad() first, then autograd.grad",
     SHARE.format(**{**RIGHT,
                     "ret": "model.zero_grad()\n    return torch.autograd.grad(loss, W)[0]"}),
     r"k=3, i=1\) set to None model.input_linear.weight.grad\ntorch.autograd.grad\(loss, W\) "
     r"returns the gradient without touching any .grad", ()),
    ("check_share", "torch.no_grad() for the other uses", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        if use == i:
            h = (h @ W.T + b).clamp(min=0)
        else:
            with torch.no_grad():
                h = (h @ W.T + b).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"k=3, i=1\) raised RuntimeError: .*not have been used in the graph.*\nNo path led from the "
     r"loss back to W: either W was held fixed in every use, use i too, or the graph was cut",
     ("no_path",)),
    ("check_share", "every use detached, use i too",
     SHARE.format(**{**RIGHT, "pick": "W.detach()"}),
     r"k=3, i=1\) raised RuntimeError: .*\nNo path led from the loss back to W: either W was "
     r"held fixed in every use", ('no_path',)),
    ("check_share", "autograd.grad called, then W.grad returned",
     SHARE.format(**{**RIGHT, "ret": "torch.autograd.grad(loss, W)\n    return W.grad"}),
     r"k=3, i=1\) is the .grad middle_linear.weight held before your call\n.*you returned "
     r"W.grad, the .grad of an earlier backward", ("stale_grad",)),
    ("check_share", "the notebook's size, 100, hard-coded", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        Wu = W if use == i else W.detach()
        h = (h @ Wu.T.reshape(100, 100) + b).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"raised RuntimeError: shape '\[100, 100\]' is invalid for input of size 36\n"
     r"The check's DynamicNets are small \(6 or 7 hidden units, not the notebook's 100\)",
     ("size_100",)),
    ("check_w3", "the buffer updated in step 0 too: v0 = momentum * g0 + g0",
     W3.format(answer="W0 - lr * (1 + momentum) * g0 if set_to_none "
                      "else W0 - lr * (1 + momentum) * (1 + momentum + momentum ** 2) * g0"),
     r"set_to_none=True\) is W0 - 1.9 \* lr \* g0;.*\n.*your step 0 made the buffer momentum "
     r"\* g0 \+ g0; SGD starts it as v0 = g0", ("v0",)),
    ("check_w3", "the two branches swapped",
     W3.format(answer="W1 - lr * (momentum + momentum ** 2) * g0 if set_to_none else W1"),
     r"set_to_none=True\) is W0 - 2.71 \* lr \* g0;.*\n.*you swapped the branches",
     ("swapped",)),
    ("check_w3", "a None gradient still moves it through momentum, in both steps",
     W3.format(answer="W1 - lr * (momentum + momentum ** 2) * g0"),
     r"set_to_none=True\) is W0 - 2.71 \* lr \* g0;.*\n.*its .grad is None at depth 0 and SGD "
     r"skips the weight", ("none_moves",)),
    ("check_w3", "a None gradient still moves it through momentum, in step 1",
     W3.format(answer="W1 - lr * momentum * g0 if set_to_none "
                      "else W1 - lr * (momentum + momentum ** 2) * g0"),
     r"set_to_none=True\) is W0 - 1.9 \* lr \* g0; .*\n.*a depth-0 step moved the weight on "
     r"momentum with set_to_none=True", ("none_moves_once",)),
    ("check_w3", "dampened: the buffer starts as (1 - momentum) * g0",
     W3.format(answer="W0 - lr * (1 - momentum) * g0"),
     r"set_to_none=True\) is W0 - 0.1 \* lr \* g0; torch.optim.SGD gives W0 - lr \* g0\n"
     r"Largest difference", ()),
    ("check_w3", "a zero gradient does not move the weight", W3.format(answer="W1"),
     r"is W0 - lr \* g0; torch.optim.SGD gives W0 - 2.71 \* lr \* g0\n.*steps 1 and 2 skipped "
     r"the weight with set_to_none=False too; its .grad is a zero tensor", ("zeros_skip",)),
    ("check_w3", "one momentum step only: step 2 forgotten",
     W3.format(answer="W1 if set_to_none else W1 - lr * momentum * g0"),
     r"False\) is W0 - 1.9 \* lr \* g0; torch.optim.SGD gives W0 - 2.71 \* lr \* g0\n.*step 2 "
     r"did not move the weight", ("no_step_2",)),
    ("check_w3", "momentum not compounded: step 2 moves by momentum * g0 again",
     W3.format(answer="W1 if set_to_none else W1 - 2 * lr * momentum * g0"),
     r"is W0 - 2.8 \* lr \* g0;.*\n.*step 2 moved the weight by lr \* momentum \* g0, as step 1 "
     r"did; but the buffer decays in every step", ("no_decay_2",)),
    ("check_w3", "the buffer decayed twice in step 2: momentum ** 3",
     W3.format(answer="W1 if set_to_none else W1 - lr * (momentum + momentum ** 3) * g0"),
     r"False\) is W0 - 2.63 \* lr \* g0; torch.optim.SGD gives W0 - 2.71 \* lr \* g0\nLargest",
     ()),
    ("check_w3", "momentum buffer never decayed",
     W3.format(answer="W1 if set_to_none else W1 - 2 * lr * g0"),
     r"is W0 - 3 \* lr \* g0;.*\n.*steps 1 and 2 moved it by lr \* g0 each: as if the buffer "
     r"never decayed, or g0 were their gradient", ("no_decay",)),
    ("check_w3", "g0 used again in steps 1 and 2", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W, v = W0 - lr * g0, g0
    if set_to_none:
        return W
    for _ in range(2):
        v = momentum * v + g0
        W = W - lr * v
    return W
check_w3(predict_w3)
""", r"is W0 - 5.61 \* lr \* g0;.*\n.*you used g0 as the gradient of steps 1 and 2 too",
     ("g0_again",)),
    ("check_w3", "step 0 forgotten",
     W3.format(answer="W0 if set_to_none else W0 - lr * (momentum + momentum ** 2) * g0"),
     r"set_to_none=True\) is W0; torch.optim.SGD gives W0 - lr \* g0\n.*you left out step 0",
     ("no_step_0",)),
    ("check_w3", "momentum applied in step 0 already",
     W3.format(answer="W0 - lr * momentum * g0"),
     r"set_to_none=True\) is W0 - 0.9 \* lr \* g0; torch.optim.SGD gives W0 - lr \* g0\n"
     r"Largest", ()),
    ("check_w3", "a step up the gradient",
     W3.format(answer="W0 + lr * g0 if set_to_none "
                      "else W0 + lr * (1 + momentum + momentum ** 2) * g0"),
     r"is W0 \+ lr \* g0; .*\n.*the weight moved up the gradient", ("up",)),
    ("check_w3", "the notebook's learning rate, 1e-4, written in",
     W3.format(answer="W0 - 1e-4 * g0 if set_to_none "
                      "else W0 - 1e-4 * (1 + momentum + momentum ** 2) * g0"),
     r"True\) is W0 - 0.001 \* lr \* g0;.*\n.*you wrote in lr=0.0001, the notebook's: use the "
     r"lr argument", ("lr",)),
    ("check_w3", "the notebook's momentum, 0.9, written in",
     W3.format(answer="W1 if set_to_none else W1 - lr * (0.9 + 0.9 ** 2) * g0"),
     r"momentum=0.5, set_to_none=False\) is W0 - 2.71 \* lr \* g0; torch.optim.SGD gives "
     r"W0 - 1.75 \* lr \* g0\n.*you wrote in momentum=0.9, the notebook's", ("momentum",)),
    ("check_w3", "W0 updated in place", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W0 -= lr * g0
    if not set_to_none:
        W0 -= lr * (momentum + momentum ** 2) * g0
    return W0
check_w3(predict_w3)
""", r"changed W0 in place; it should only read it", ()),
    ("check_w3", "a list instead of a tensor", W3.format(answer="W1.tolist()"),
     r"should be a tensor, but it is a list", ()),
    ("check_w3", "the weight in the momentum buffer instead of the gradient",
     W3.format(answer="W1 if set_to_none else W1 - lr * (momentum + momentum ** 2) * W1"),
     r"False\) is not a move of W0 along g0, as SGD's steps are\nLargest", ()),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_share", "F.mse_loss, a mean", SHARE.format(**{
        **RIGHT, "loss": "torch.nn.functional.mse_loss(model.output_linear(h), targ)"}),
     r"is use 1's share times 0.0417\n.*you took the mean of the squared errors", ("mean",)),
    ("check_share", "zero_grad, backward, then W.grad", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    model.zero_grad()
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        h = (h @ (W if use == i else W.detach()).T + b).clamp(min=0)
    ((model.output_linear(h) - targ) ** 2).sum().backward()
    return W.grad
check_share(share)
""", r"k=3, i=1\) changed model.input_linear.weight.grad\n", ()),
    ("check_share", "W's requires_grad switched use by use", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        W.requires_grad_(use == i)
        h = (h @ W.T + b).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"raised RuntimeError: One of the differentiated Tensors does not require grad\nthe tensor "
     r"you asked autograd for the gradient of does not require grad", ("no_requires_grad",)),
    ("check_share", "h detached in the other uses instead of W", """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in range(1, k + 1):
        if use == i:
            h = (h @ W.T + b).clamp(min=0)
        else:
            h = (h.detach() @ W.T + b).clamp(min=0)
    loss = ((model.output_linear(h) - targ) ** 2).sum()
    return torch.autograd.grad(loss, W)[0]
check_share(share)
""", r"^your share\(model, x, targ, k=3, i=1\) is the share of use 3\nYour result is what you "
     r"get if you detached h, not W: use i's path to L is cut\.\n",
     ("h_detached",)),
    ("check_share", "h detached in the other uses, as one expression", SHARE.format(**{
        **RIGHT, "pick": "W"}).replace("(h @", "((h if use == i else h.detach()) @"),
     r"is the share of use 3\n.*you detached h, not W: use i's path to L is cut", ("h_detached",)),
    ("check_w3", "set_to_none taken to skip step 0 too", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    if set_to_none:
        return W0
    return W0 - lr * g0 * (1 + momentum + momentum ** 2)
check_w3(predict_w3)
""", r"set_to_none=True\) is W0; torch.optim.SGD gives W0 - lr \* g0\nLargest", ()),
    ("check_w3", "a real SGD on W0 itself", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W = W0.requires_grad_()
    opt = torch.optim.SGD([W], lr=lr, momentum=momentum)
    for g in (g0, None, None):
        opt.zero_grad(set_to_none=set_to_none)
        if g is not None:
            W.grad = g.clone()
        opt.step()
    return W.detach().clone()
check_w3(predict_w3)
""", r"changed W0 in place; it should only read it", ()),
    ("check_w3", "the buffer decayed once too often", """
def predict_w3(W0, g0, lr, momentum, set_to_none):
    W1 = W0 - lr * g0
    if set_to_none:
        return W1
    return W1 - lr * momentum ** 2 * g0 - lr * momentum ** 3 * g0
check_w3(predict_w3)
""", r"False\) is W0 - 2.54 \* lr \* g0; torch.optim.SGD gives W0 - 2.71 \* lr \* g0\nLargest",
     ()),
]

EQUIVALENT = {
    (1, "line 3, in-place twin: model.input_linear(x).clamp(min=0) -> "
        "model.input_linear(x).clamp_(min=0)"):
        "clamps a fresh intermediate that nothing else holds (addmm saves its inputs, not "
        "its output): the same values and the same gradient",
    (1, "line 5, in-place twin: (h @ (W if use == i else W.detach()).T + b).clamp(min=0) -> "
        "(h @ (W if use == i else W.detach()).T + b).clamp_(min=0)"):
        "clamps a fresh intermediate that nothing else holds (add saves nothing): the same "
        "values and the same gradient",
    (1, "line 6, swap operands: model.output_linear(h) - targ -> targ - model.output_linear(h)"):
        "(targ - out) ** 2 is (out - targ) ** 2: the same loss, to the last bit",
    (1, "line 7, change a number: 0 -> -1"):
        "autograd.grad(loss, W) returns a 1-tuple, whose [-1] is its [0]",
}
