"""Plausible wrong answers to notebook 04's exercises; each must fail its check."""

SHARE = """
def share(model, x, targ, k, i):
    W, b = model.middle_linear.weight, model.middle_linear.bias
    h = model.input_linear(x).clamp(min=0)
    for use in {uses}:
        h = (h @ ({pick}).T + b).clamp(min=0)
    loss = {loss}
    return torch.autograd.grad(loss, W)[0]
check_share(share)
"""
RIGHT = dict(uses="range(1, k + 1)", pick="W if use == i else W.detach()",
             loss="((model.output_linear(h) - targ) ** 2).sum()")

W2 = """
def predict_w2(W0, g0, lr, momentum, set_to_none):
    W1 = W0 - lr * g0
    return {answer}
check_w2(predict_w2)
"""

WRONG = [
    ("check_share", "nothing detached: the whole .grad", SHARE.format(**{**RIGHT, "pick": "W"}),
     r"is the whole gradient, the sum over all 3 uses"),
    ("check_share", "detached use i instead of the others",
     SHARE.format(**{**RIGHT, "pick": "W.detach() if use == i else W"}),
     r"you detached use 1 and kept the others"),
    ("check_share", "uses counted from 0", SHARE.format(**{**RIGHT, "uses": "range(k)"}),
     r"k=3, i=1\) is the share of use 2: number the uses 1 to k"),
    ("check_share", "mean instead of the summed squared error",
     SHARE.format(**{**RIGHT, "loss": "((model.output_linear(h) - targ) ** 2).mean()"}),
     r"use the summed squared error"),
    ("check_share", "returned the loss instead of a gradient", """
def share(model, x, targ, k, i):
    h = model.input_linear(x).clamp(min=0)
    for _ in range(k):
        h = model.middle_linear(h).clamp(min=0)
    return ((model.output_linear(h) - targ) ** 2).sum()
check_share(share)
""", r"returned a tensor of shape \(\); a share of dL/dW has the shape of middle_linear.weight"),
    ("check_w2", "a zero gradient does not move the weight", W2.format(answer="W1"),
     r"with set_to_none=False its .grad is a zero tensor, an ordinary gradient"),
    ("check_w2", "a None gradient still moves it through momentum",
     W2.format(answer="W1 - lr * momentum * g0"),
     r"with set_to_none=True its .grad is None at depth 0, and SGD skips"),
    ("check_w2", "momentum buffer not decayed in step 1",
     W2.format(answer="W1 if set_to_none else W1 - lr * g0"),
     r"the buffer decays first: v1 = momentum \* v0 \+ 0"),
    ("check_w2", "step 0 forgotten",
     W2.format(answer="W0 if set_to_none else W0 - lr * momentum * g0"),
     r"is W0: step 0, at depth 2, does move the weight"),
    ("check_w2", "momentum applied in step 0 already",
     W2.format(answer="W0 - lr * momentum * g0 if set_to_none else W0 - lr * momentum * g0 * 1.9"),
     r"step 0 starts the buffer as v0 = g0"),
]
