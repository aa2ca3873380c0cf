"""Plausible wrong answers to notebook 01's exercises; each must fail its check."""

RIGHT = {"w.t()": False, "w.view(8, 16)": False, "w.to(torch.float32)": True,
         "w.requires_grad_()": True, "w + 0": False, "w64.float()": False,
         "w64.double()": True, "wT.contiguous()": False, "wT.float()": True, "wT.t()": False}


def predictions_with(**changes) -> str:
    """Code for exercise 1: the right dict with some entries changed (by the expression's
    position in RIGHT, e1 ... e10, since an expression is no Python name), then the check."""
    keys = list(RIGHT)
    answer = dict(RIGHT)
    for k, v in changes.items():
        answer[keys[int(k[1:]) - 1]] = v
    body = ", ".join(f"{k!r}: {v}" for k, v in answer.items())
    return f"predictions = {{{body}}}\ncheck_same_object(predictions)\n"


def all_of(value: str) -> str:
    return predictions_with(**{f"e{i}": value for i in range(1, 11)})


WRONG = [
    ("check_same_object", "a new tensor every time: everything False", all_of("False"),
     r"^4 of 10 predictions are wrong: w.to\(torch.float32\), w.requires_grad_\(\), "
     r"w64.double\(\), wT.float\(\)\nw.to\(torch.float32\): w is already float32, so there "
     r"is nothing to do: it returns w itself\nFor the others, test each one with `is`"),
    ("check_same_object", "the same tensor every time: everything True", all_of("True"),
     r"^6 of 10 predictions are wrong: w.t\(\), w.view\(8, 16\), w \+ 0, w64.float\(\), "
     r"wT.contiguous\(\), wT.t\(\)\nw.t\(\): a new tensor object"),
    ("check_same_object", "section 4's float() and contiguous() taken as rules",
     predictions_with(e6="True", e8="True"),
     r"^2 of 10 predictions are wrong: w64.float\(\), wT.contiguous\(\)\n"
     r"w64.float\(\): w64 is float64, so it converts: a new float32 tensor\n"
     r"wT.contiguous\(\): wT, a transposed view, is not contiguous, so this copies it"),
    ("check_same_object", "a view taken for the tensor itself",
     predictions_with(e1="True", e2="True", e10="True"),
     r"^3 of 10 predictions are wrong: w.t\(\), w.view\(8, 16\), wT.t\(\)\n"
     r"w.t\(\): a new tensor object, a view of w's numbers"),
    ("check_same_object", "a view with w's own shape taken for w", predictions_with(e2="True"),
     r"^1 of 10 predictions is wrong: w.view\(8, 16\)\nw.view\(8, 16\): a view is a new "
     r"tensor object sharing w's numbers, even with w's own shape$"),
    ("check_same_object", "only methods ending in _ return the tensor itself",
     predictions_with(e3="False", e7="False", e9="False"),
     r"^3 of 10 predictions are wrong: w.to\(torch.float32\), w64.double\(\), wT.float\(\)"),
    ("check_same_object", "an in-place method taken for a copy", predictions_with(e4="False"),
     r"w.requires_grad_\(\): a method ending in _ works in place and returns its tensor"),
    ("check_same_object", "+ 0 taken for a no-op", predictions_with(e5="True"),
     r"w \+ 0: arithmetic makes a new tensor, even when the numbers come out the same"),
    ("check_same_object", "a transposed tensor's float() taken for a copy",
     predictions_with(e9="False"),
     r"wT.float\(\): wT is already float32 \(transposed or not\), so it returns wT itself"),
    ("check_same_object", "the template's ... left in", predictions_with(e1="..."),
     r"^w.t\(\): you left the template's ...; predict True or False$"),
    ("check_same_object", "predictions written as strings", predictions_with(e3="'True'"),
     r"^w.to\(torch.float32\): you wrote 'True', a string; predict True or False, "
     r"without quotes$"),
    ("check_same_object", "1 and 0 for True and False", predictions_with(e4="1"),
     r"^w.requires_grad_\(\): you wrote 1; predict True or False$"),
    ("check_same_object", "an expression left out", """
predictions = {"w.t()": False, "w.view(8, 16)": False, "w.to(torch.float32)": True,
               "w + 0": False, "w64.float()": False, "w64.double()": True,
               "wT.contiguous()": False, "wT.float()": True, "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.requires_grad_\(\)\nCopy the keys from the template: each "
     r"expression as written there$"),
    ("check_same_object", "a key written another way", """
predictions = {"w.T": False, "w.view(8, 16)": False, "w.to(torch.float32)": True,
               "w.requires_grad_()": True, "w + 0": False, "w64.float()": False,
               "w64.double()": True, "wT.contiguous()": False, "wT.float()": True,
               "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.t\(\)"),
    ("check_same_object", "a set of the expressions that are the tensor itself", """
check_same_object({"w.to(torch.float32)", "w.requires_grad_()", "w64.double()",
                   "wT.float()"})
""", r"^answer with a dict mapping each expression to True or False.*not a set$"),
    ("check_same_object", "a list of predictions in the template's order", """
check_same_object([False, False, True, True, False, False, True, False, True, False])
""", r"^answer with a dict .*not a list$"),
    ("check_same_object", "section 4's name w1 kept in the keys", """
predictions = {"w1.t()": False, "w1.view(8, 16)": False, "w1.to(torch.float32)": True,
               "w1.requires_grad_()": True, "w1 + 0": False, "w64.float()": False,
               "w64.double()": True, "wT.contiguous()": False, "wT.float()": True,
               "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.t\(\), w.view\(8, 16\), .*w \+ 0\n"
     r"The exercise's float32 tensor is w, not section 4's w1: copy the keys from the "
     r"template$"),
    ("check_sigmoid_grad", "forgot the upstream out.g", """
def sigmoid_grad(inp, out):
    inp.g = out * (1 - out)
check_sigmoid_grad(sigmoid_grad)
""", r"^your inp.g differs from autograd's gradient in 24 of 24 entries, on case 1 of 3 "
     r"\(a float64 inp of shape \(6, 4\)\)\n.*left out out.g(.|\n)*Largest difference"),
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
""", r"^your inp.g differs from autograd's gradient in 24 of 24 entries, on case 1 of 3 "
     r"\(a float64 inp of shape \(6, 4\)\)\nLargest difference: 2 in inp"),
     # no diagnosis: no mistake of the list was made
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
""", r"raised RuntimeError: (mm: )?mat1 and mat2 shapes cannot be multiplied.*\n"
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
""", r"^your inp.g differs from the finite-difference gradient in 10 of 10 entries(.|\n)*"
     r"left out the 1/N"),
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
""", r"took the sign of inp alone, leaving out targ"),
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
""", r"in 6 of 6 entries, on case 2 of 3 \(a float32 batch of 6 rows\)\n"
     r"Your result is what you get if you divided by 10, a fixed number, where "
     r"N = inp.shape\[0\] is 6 here"),
    ("check_mae_grad", "N typed in as the notebook's 256 rows", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / 256
check_mae_grad(mae_grad)
""", r"on case 1 of 3 \(a float64 batch of 10 rows\)\n.*you divided by 256, a fixed number"),
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
""", r"\nYour result is what you get if you multiplied the gradient by an extra factor of "
     r"2\.\n"),
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
