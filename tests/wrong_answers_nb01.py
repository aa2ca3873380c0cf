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
    ("check_linear_grad", "section 3's lin_grad copied: both transposes on the wrong side", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your gradients differ from autograd's on case 1 of 3 \(w of shape \(4, 4\), square; "
     r"5 rows; float64\): wrong for inp.g, w.g\nYour result is what you get if you used "
     r"section 3's lin_grad, written for a layer inp @ w, where this layer computes "
     r"inp @ w.t\(\)\.\nLargest difference: "),
    ("check_linear_grad", "w.g transposed (section 3's product)", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for w.g\nYour result is what you get if you computed w.g as inp.t\(\) @ out.g: "
     r"that is the gradient of w.t\(\), with w's shape only because w is square\.\n"),
    ("check_linear_grad", "inp.g = out.g @ w.t(), section 3's product", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for inp.g\nYour result is what you get if you multiplied out.g by w.t\(\) for "
     r"inp.g, as section 3 does"),
    ("check_linear_grad", "inp.t() @ out.g reshaped to w's shape", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = (inp.t() @ out.g).reshape(w.shape)
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for w.g\nYour result is what you get if you computed w.g as inp.t\(\) @ out.g"),
    ("check_linear_grad", "the bias gradient averaged over the rows", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.mean(0)
check_linear_grad(linear_grad)
""", r"wrong for b.g\nYour result is what you get if you averaged over the rows \(divided by "
     r"N\), where each row's share adds up"),
    ("check_linear_grad", "w.g and b.g divided by N", """
def linear_grad(inp, out, w, b):
    n = inp.shape[0]
    inp.g = out.g @ w
    w.g = out.g.t() @ inp / n
    b.g = out.g.sum(0) / n
check_linear_grad(linear_grad)
""", r"wrong for w.g, b.g\nYour result is what you get if you averaged over the rows"),
    ("check_linear_grad", "section 3 copied, and b.g averaged", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.mean(0)
check_linear_grad(linear_grad)
""", r"wrong for inp.g, w.g, b.g\nYour result is what you get if you used section 3's "
     r"lin_grad(.)*, and if you averaged over the rows"),
    ("check_linear_grad", "the bias gradient not summed", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g
check_linear_grad(linear_grad)
""", r"^b.g has shape \(5, 4\), but a gradient has the shape of its tensor: \(4,\)$"),
    ("check_linear_grad", "the bias gradient summed over the features", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum(1)
check_linear_grad(linear_grad)
""", r"^b.g has shape \(5,\), but a gradient has the shape of its tensor: \(4,\)$"),
    ("check_linear_grad", "the bias gradient summed to one number", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum()
check_linear_grad(linear_grad)
""", r"^b.g has shape \(\), but a gradient has the shape of its tensor: \(4,\)$"),
    ("check_linear_grad", "b.g forgotten", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
check_linear_grad(linear_grad)
""", r"^your linear_grad did not set b.g to a tensor$"),
    ("check_linear_grad", "w.g = out.g @ inp: the shapes do not fit", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad raised RuntimeError: (mm: )?mat1 and mat2 shapes cannot be multiplied "
     r"\(5x4 and 5x4\)\nHere inp is \(5, 4\), w \(4, 4\), out and out.g \(5, 4\): each "
     r"gradient has the shape of its tensor$"),
    ("check_linear_grad", "the gradients returned, not stored", """
def linear_grad(inp, out, w, b):
    return out.g @ w, out.g.t() @ inp, out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad returned tensors but did not set inp.g\nThe backward functions of "
     r"this notebook store each gradient: inp.g = ..., w.g = ..., b.g = ...$"),
    ("check_linear_grad", "section 3's lin_grad called on w.t() (after a restart)", """
def linear_grad(inp, out, w, b):
    lin_grad(inp, out, w.t(), b)
check_linear_grad(linear_grad)
""", r"raised NameError: name 'lin_grad' is not defined\nlin_grad is section 3's function"),
    ("check_linear_grad", "section 3's lin_grad called on w.t(): w.g lands on the view", """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
def linear_grad(inp, out, w, b):
    lin_grad(inp, out, w.t(), b)
check_linear_grad(linear_grad)
""", r"^your linear_grad did not set w.g to a tensor\nSection 3's lin_grad sets the .g of the "
     r"tensor you pass it, and w.t\(\) is a new view object, not w \(section 4\)$"),
    ("check_linear_grad", "w transposed in place", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.t_()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad changed w in place"),
    ("check_linear_grad", "out.g transposed in place", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t_() @ inp
    b.g = out.g.sum(1)
check_linear_grad(linear_grad)
""", r"^your linear_grad changed out.g; it should only read it$"),
    ("check_linear_grad", "the gradient written into out.g", """
def linear_grad(inp, out, w, b):
    out.g = out.g @ w
    inp.g = out.g
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"changed out.g; it should only read it"),
    ("check_linear_grad", "the parameters in another order", """
def linear_grad(out, inp, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"raised AttributeError: 'Tensor' object has no attribute 'g'\nOnly out.g exists when the "
     r"check calls linear_grad\(inp, out, w, b\), in that order"),
    ("check_linear_grad", "w.g accumulated with += before it exists", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g += out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"raised AttributeError.*\ninp.g, w.g and b.g do not exist until your code sets them: "
     r"create them with =, not \+=$"),
    ("check_linear_grad", "autograd on the caller's tensors", """
def linear_grad(inp, out, w, b):
    for t in (inp, w, b):
        t.requires_grad_()
    inp.g, w.g, b.g = torch.autograd.grad(inp @ w.t() + b, (inp, w, b), out.g)
check_linear_grad(linear_grad)
""", r"^your linear_grad switched on inp.requires_grad; it should leave inp as it was"),
    ("check_linear_grad", "a wrong number of parameters", """
def linear_grad(inp, out, w):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
check_linear_grad(linear_grad)
""", r"^your linear_grad cannot be called this way(.|\n)*called as linear_grad\(inp, out, w, b\)"),
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
