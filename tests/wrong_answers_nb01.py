"""Plausible wrong answers to notebook 01's exercises; each must fail its check."""

WRONG = [
    ("check_shapes", "weight shape transposed", """
shapes = {"inp": (32, 5), "l1": (32, 7), "out": (32, 1), "w1": (7, 5), "b1": (7,),
          "w2": (7, 1), "b2": (1,)}
check_shapes(shapes)
""", r"w1: you said \(7, 5\), but its gradient has shape \(5, 7\)"),
    ("check_shapes", "bias gradient kept per row", """
shapes = {"inp": (32, 5), "l1": (32, 7), "out": (32, 1), "w1": (5, 7), "b1": (32, 7),
          "w2": (7, 1), "b2": (1,)}
check_shapes(shapes)
""", r"b1: you said \(32, 7\)"),
    ("check_shapes", "an entry left out", """
check_shapes({"inp": (32, 5), "w1": (5, 7), "b1": (7,), "w2": (7, 1), "b2": (1,)})
""", r"no entry for l1, out"),
    ("check_sigmoid_grad", "forgot the upstream out.g", """
def sigmoid_grad(inp, out):
    inp.g = out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"inp.g should be out.g \* out \* \(1 - out\)"),
    ("check_sigmoid_grad", "returned the gradient instead of setting inp.g", """
def sigmoid_grad(inp, out):
    return out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"did not set inp.g"),
    ("check_mae_grad", "forgot the 1/N of the mean", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1)
check_mae_grad(mae_grad)
""", r"sign\(inp - targ\) / N"),
    ("check_mae_grad", "no squeeze: the (N, N) broadcast", """
def mae_grad(inp, targ):
    inp.g = (inp - targ).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"inp.g has shape \(10, 10\)"),
]
