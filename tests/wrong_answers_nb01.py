"""Plausible wrong answers to notebook 01's exercises; each must fail its check."""

SHAPES = ('{"inp": (32, 5), "l1": (32, 7), "out": (32, 1), "w1": (5, 7), "b1": (7,), '
          '"w2": (7, 1), "b2": (1,)}')


def shapes_with(**changes) -> str:
    """Code for exercise 1: the right dict with some entries changed, then the check."""
    return (f"shapes = {SHAPES}\n"
            + "".join(f"shapes[{k!r}] = {v}\n" for k, v in changes.items())
            + "check_shapes(shapes)\n")


WRONG = [
    ("check_shapes", "weight shape transposed", """
shapes = {"inp": (32, 5), "l1": (32, 7), "out": (32, 1), "w1": (7, 5), "b1": (7,),
          "w2": (7, 1), "b2": (1,)}
check_shapes(shapes)
""", r"1 of 7 shapes is wrong: w1\nw1: you said \(7, 5\), but its gradient has w1's own "
     r"shape, \(5, 7\): that is the transpose$"),
    ("check_shapes", "bias gradient kept per row", """
shapes = {"inp": (32, 5), "l1": (32, 7), "out": (32, 1), "w1": (5, 7), "b1": (32, 7),
          "w2": (7, 1), "b2": (1,)}
check_shapes(shapes)
""", r"b1: you said \(32, 7\).*no batch axis"),
    ("check_shapes", "an entry left out", """
check_shapes({"inp": (32, 5), "w1": (5, 7), "b1": (7,), "w2": (7, 1), "b2": (1,)})
""", r"no entry for l1, out"),
    ("check_shapes", "(7) without the comma is an int", shapes_with(b1="(7)"),
     r"b1: you wrote 7, an int; a shape is a tuple of ints\nA one-element tuple needs a "
     r"comma: \(7,\)"),
    ("check_shapes", "an entry left as None", shapes_with(l1="None"),
     r"l1: you wrote None; a shape is a tuple of ints"),
    ("check_shapes", "the prediction's column dropped", shapes_with(out="(32,)"),
     r"out: you said \(32,\).*column axis of size 1"),
    ("check_shapes", "two entries wrong at once", shapes_with(w2="(1, 7)", b2="(32, 1)"),
     r"2 of 7 shapes are wrong: w2, b2\n.*transpose.*\n.*no batch axis"),
    ("check_shapes", "b2 written as a scalar's shape ()", shapes_with(b2="()"),
     r"b2: you said \(\), but its gradient has b2's own shape, \(1,\): \(\) is the shape of a "
     r"scalar"),
    ("check_shapes", "w1 with a batch axis: lesson 8's per-row temporary",
     shapes_with(w1="(32, 5, 7)"), r"w1: you said \(32, 5, 7\).*shared by all 32 rows.*sums"),
    ("check_shapes", "four entries wrong: three lines, every name", shapes_with(
        inp="(5, 32)", out="(32,)", w1="(7, 5)", b1="(32, 7)"),
     r"^4 of 7 shapes are wrong: inp, out, w1, b1\ninp: .*transpose\n"
     r"The others too \(out, w1, b1\): a gradient always has the shape of its own tensor$"),
    ("check_shapes", "shapes written as strings", shapes_with(inp='"32x5"'),
     r"inp: you wrote '32x5'; a shape is a tuple of ints"),
    ("check_shapes", "a float in a shape", shapes_with(w1="(5.0, 7)"),
     r"w1: you wrote \(5.0, 7\); every entry of a shape is an int"),
    ("check_shapes", "a list of tuples instead of a dict", """
check_shapes([(32, 5), (32, 7), (32, 1), (5, 7), (7,), (7, 1), (1,)])
""", r"answer with a dict of shapes.*not a list"),
    ("check_sigmoid_grad", "forgot the upstream out.g", """
def sigmoid_grad(inp, out):
    inp.g = out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"inp.g should be out.g \* out \* \(1 - out\)(.|\n)*left out out.g"),
    ("check_sigmoid_grad", "returned the gradient instead of setting inp.g", """
def sigmoid_grad(inp, out):
    return out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"returned a tensor but did not set inp.g"),
    ("check_sigmoid_grad", "nothing set, nothing returned", """
def sigmoid_grad(inp, out):
    grad = out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"did not set inp.g to a tensor"),
    ("check_sigmoid_grad", "the sigmoid recomputed in place on inp", """
def sigmoid_grad(inp, out):
    s = inp.sigmoid_()
    inp.g = out.g * s * (1 - s)
check_sigmoid_grad(sigmoid_grad)
""", r"changed inp in place"),
    ("check_sigmoid_grad", "out.g multiplied in place", """
def sigmoid_grad(inp, out):
    inp.g = out.g
    inp.g *= out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"changed out.g; it should only read it"),
    ("check_sigmoid_grad", "out overwritten in place", """
def sigmoid_grad(inp, out):
    inp.g = out.g * out.mul_(1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"changed out in place"),
    ("check_sigmoid_grad", "inp where out belongs", """
def sigmoid_grad(inp, out):
    inp.g = out.g * inp * (1 - inp)
check_sigmoid_grad(sigmoid_grad)
""", r"used inp where out belongs"),
    ("check_sigmoid_grad", "the sigmoid applied to out again", """
def sigmoid_grad(inp, out):
    s = torch.sigmoid(out)
    inp.g = out.g * s * (1 - s)
check_sigmoid_grad(sigmoid_grad)
""", r"took the sigmoid of out"),
    ("check_sigmoid_grad", "out - 1 for 1 - out", """
def sigmoid_grad(inp, out):
    inp.g = out.g * out * (out - 1)
check_sigmoid_grad(sigmoid_grad)
""", r"flipped the sign"),
    ("check_sigmoid_grad", "the ReLU's mask copied over", """
def sigmoid_grad(inp, out):
    inp.g = out.g * (inp > 0)
check_sigmoid_grad(sigmoid_grad)
""", r"inp.g should be out.g \* out \* \(1 - out\), autograd's gradient: wrong for inp\n"
     r"Largest difference"),  # no diagnosis: no mistake of the list was made
    ("check_sigmoid_grad", "summed over the batch like a bias", """
def sigmoid_grad(inp, out):
    inp.g = (out.g * out * (1 - out)).sum(0)
check_sigmoid_grad(sigmoid_grad)
""", r"inp.g has shape \(4,\), but a gradient has the shape of its tensor: \(6, 4\)"),
    ("check_sigmoid_grad", "wrong number of parameters", """
def sigmoid_grad(out):
    out.g = out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"your sigmoid_grad cannot be called this way(.|\n)*called as sigmoid_grad\(inp, out\)"),
    ("check_sigmoid_grad", "a matrix product, as in lin_grad", """
def sigmoid_grad(inp, out):
    inp.g = out.g @ (out * (1 - out))
check_sigmoid_grad(sigmoid_grad)
""", r"raised RuntimeError: mat1 and mat2 shapes cannot be multiplied.*\n"
     r"This layer acts entry by entry.*\* rather than @$"),
    ("check_sigmoid_grad", "a sigmoid function the notebook never defined", """
def sigmoid_grad(inp, out):
    s = sigmoid(inp)
    inp.g = out.g * s * (1 - s)
check_sigmoid_grad(sigmoid_grad)
""", r"raised NameError: name 'sigmoid' is not defined\n"
     r"This notebook defines no sigmoid function: torch.sigmoid\(inp\)"),
    ("check_sigmoid_grad", "the gradient written into out.g", """
def sigmoid_grad(inp, out):
    out.g = out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"changed out.g; it should only read it"),
    ("check_sigmoid_grad", "the parameters in the other order", """
def sigmoid_grad(out, inp):
    inp.g = out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"raised AttributeError: 'Tensor' object has no attribute 'g'\n"
     r"Only out.g exists when the check calls sigmoid_grad\(inp, out\), in that order: "
     r"read out.g, set inp.g$"),
    ("check_sigmoid_grad", "inp.g accumulated with += before it exists", """
def sigmoid_grad(inp, out):
    inp.g += out.g * out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"raised AttributeError.*\ninp.g does not exist until your code sets it: create it "
     r"with inp.g = ..., not \+=$"),
    ("check_sigmoid_grad", "requires_grad switched on for the caller's inp, then autograd", """
def sigmoid_grad(inp, out):
    inp.requires_grad_()
    inp.g, = torch.autograd.grad(torch.sigmoid(inp), inp, out.g)
check_sigmoid_grad(sigmoid_grad)
""", r"your sigmoid_grad switched on inp.requires_grad; it should leave inp as it was"),
    ("check_mae_grad", "requires_grad switched on for the caller's inp, then backward", """
def mae_grad(inp, targ):
    inp.requires_grad_()
    (inp.squeeze(-1) - targ).abs().mean().backward()
    inp.g = inp.grad
check_mae_grad(mae_grad)
""", r"your mae_grad switched on inp.requires_grad"),
    ("check_mae_grad", "forgot the 1/N of the mean", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1)
check_mae_grad(mae_grad)
""", r"sign\(inp - targ\) / N(.|\n)*left out the 1/N"),
    ("check_mae_grad", "divided by the number of columns", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[1]
check_mae_grad(mae_grad)
""", r"left out the 1/N of the mean \(or divided by inp.shape\[1\], which is 1\)"),
    ("check_mae_grad", "no squeeze: the (N, N) broadcast", """
def mae_grad(inp, targ):
    inp.g = (inp - targ).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"inp.g has shape \(10, 10\)(.|\n)*broadcast"),
    ("check_mae_grad", "the (N, N) broadcast summed back to (N, 1)", """
def mae_grad(inp, targ):
    inp.g = (inp - targ).sign().sum(1, keepdim=True) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*without squeeze\(-1\), the \(N, N\) broadcast of section 1, then summed it back"),
    ("check_mae_grad", "forgot the target", """
def mae_grad(inp, targ):
    inp.g = inp.sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"left out the target"),
    ("check_mae_grad", "subtracted the wrong way round", """
def mae_grad(inp, targ):
    inp.g = (targ - inp.squeeze(-1)).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"wrong way round"),
    ("check_mae_grad", "the MSE's gradient", """
def mae_grad(inp, targ):
    inp.g = 2 * (inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"used the MSE's gradient"),
    ("check_mae_grad", "forgot to put the column back", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"inp.g has shape \(10,\)(.|\n)*unsqueeze\(-1\)"),
    ("check_mae_grad", "subtracted in place from inp", """
def mae_grad(inp, targ):
    inp.g = inp.sub_(targ.unsqueeze(-1)).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"changed inp in place"),
    ("check_mae_grad", "N written as a number", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / 10
check_mae_grad(mae_grad)
""", r"on a batch of 6 rows \(float32\), inp.g should be.*\n"
     r"Your result is what you get if you divided by 10, a fixed number, where "
     r"N = inp.shape\[0\] is 6 here"),
    ("check_mae_grad", "N typed in as the notebook's 256 rows", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / 256
check_mae_grad(mae_grad)
""", r"on a batch of 10 rows.*\n.*you divided by 256, a fixed number"),
    ("check_mae_grad", "N used but never defined", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / N
check_mae_grad(mae_grad)
""", r"raised NameError: name 'N' is not defined\nN is not defined inside your function: "
     r"the number of rows is inp.shape\[0\]"),
    ("check_mae_grad", "sign called as a plain function", """
def mae_grad(inp, targ):
    inp.g = sign(inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised NameError(.|\n)*write torch.sign\(u\) or u.sign\(\)"),
    ("check_mae_grad", "the MSE's factor 2 kept", """
def mae_grad(inp, targ):
    inp.g = 2 * (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\nYour result is what you get if you multiplied sign\(inp - targ\) / N by 2\.\n"),
    ("check_mae_grad", "inp.g accumulated with += before it exists", """
def mae_grad(inp, targ):
    inp.g += (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised AttributeError.*\ninp.g does not exist until your code sets it: create it with "
     r"inp.g = ..., not \+=$"),
    ("check_mae_grad", "the gradient read from targ.g", """
def mae_grad(inp, targ):
    inp.g = targ.g * (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised AttributeError.*\nNo tensor has a .g when the check calls mae_grad\(inp, targ\)"),
    ("check_mae_grad", "|u| itself instead of its derivative", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).abs().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*you used \|inp - targ\|, the loss's own terms"),
    ("check_mae_grad", "a 0/1 mask instead of the sign", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) > targ).float().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*you used \(inp > targ\), which is 0 or 1"),
    ("check_mae_grad", "returned the gradient instead of setting inp.g", """
def mae_grad(inp, targ):
    return (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"returned a tensor but did not set inp.g"),
]

EQUIVALENT = {
    (3, "line 2, in-place twin: (inp.squeeze(-1) - targ).sign().unsqueeze(-1) -> "
        "(inp.squeeze(-1) - targ).sign().unsqueeze_(-1)"):
        "unsqueeze_ acts on the fresh tensor sign() returned, which nothing else holds",
    (3, "line 2, in-place twin: (inp.squeeze(-1) - targ).sign() -> "
        "(inp.squeeze(-1) - targ).sign_()"):
        "sign_ acts on the fresh difference tensor, not on inp or targ",
    (3, "line 2, drop the arguments: inp.squeeze(-1) -> inp.squeeze()"):
        "for inp of shape (N, 1) a bare squeeze() differs only when N = 1, and there the "
        "0-d result broadcasts against targ (1,) back to the same (1, 1) gradient",
    (3, "line 2, drop a unary operator: -1 -> 1"):
        "squeeze(1) on an (N, 1) tensor is the same as squeeze(-1)",
    (3, "line 2, drop a unary operator: -1 -> 1 (#2)"):
        "unsqueeze(1) on an (N,) tensor is the same as unsqueeze(-1)",
}
