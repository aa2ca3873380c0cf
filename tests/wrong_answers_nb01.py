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
     r"is nothing to do: it returns w itself\nFor the others, test each one with `is`", ()),
    ("check_same_object", "the same tensor every time: everything True", all_of("True"),
     r"^6 of 10 predictions are wrong: w.t\(\), w.view\(8, 16\), w \+ 0, w64.float\(\), "
     r"wT.contiguous\(\), wT.t\(\)\nw.t\(\): a new tensor object", ()),
    ("check_same_object", "section 4's float() and contiguous() taken as rules",
     predictions_with(e6="True", e8="True"),
     r"^2 of 10 predictions are wrong: w64.float\(\), wT.contiguous\(\)\n"
     r"w64.float\(\): w64 is float64, so it converts: a new float32 tensor\n"
     r"wT.contiguous\(\): wT, a transposed view, is not contiguous, so this copies it", ()),
    ("check_same_object", "a view taken for the tensor itself",
     predictions_with(e1="True", e2="True", e10="True"),
     r"^3 of 10 predictions are wrong: w.t\(\), w.view\(8, 16\), wT.t\(\)\n"
     r"w.t\(\): a new tensor object, a view of w's numbers", ()),
    ("check_same_object", "a view with w's own shape taken for w", predictions_with(e2="True"),
     r"^1 of 10 predictions is wrong: w.view\(8, 16\)\nw.view\(8, 16\): a view is a new "
     r"tensor object sharing w's numbers, even with w's own shape$", ()),
    ("check_same_object", "only methods ending in _ return the tensor itself",
     predictions_with(e3="False", e7="False", e9="False"),
     r"^3 of 10 predictions are wrong: w.to\(torch.float32\), w64.double\(\), wT.float\(\)", ()),
    ("check_same_object", "an in-place method taken for a copy", predictions_with(e4="False"),
     r"w.requires_grad_\(\): a method ending in _ works in place and returns its tensor", ()),
    ("check_same_object", "+ 0 taken for a no-op", predictions_with(e5="True"),
     r"w \+ 0: arithmetic makes a new tensor, even when the numbers come out the same", ()),
    ("check_same_object", "a transposed tensor's float() taken for a copy",
     predictions_with(e9="False"),
     r"wT.float\(\): wT is already float32 \(transposed or not\), so it returns wT itself", ()),
    ("check_same_object", "the template's ... left in", predictions_with(e1="..."),
     r"^w.t\(\): you left the template's ...; predict True or False$", ()),
    ("check_same_object", "predictions written as strings", predictions_with(e3="'True'"),
     r"^w.to\(torch.float32\): you wrote 'True', a string; predict True or False, "
     r"without quotes$", ()),
    ("check_same_object", "1 and 0 for True and False", predictions_with(e4="1"),
     r"^w.requires_grad_\(\): you wrote 1; predict True or False$", ()),
    ("check_same_object", "an expression left out", """
predictions = {"w.t()": False, "w.view(8, 16)": False, "w.to(torch.float32)": True,
               "w + 0": False, "w64.float()": False, "w64.double()": True,
               "wT.contiguous()": False, "wT.float()": True, "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.requires_grad_\(\)\nCopy the keys from the template: each "
     r"expression as written there$", ()),
    ("check_same_object", "a key written another way", """
predictions = {"w.T": False, "w.view(8, 16)": False, "w.to(torch.float32)": True,
               "w.requires_grad_()": True, "w + 0": False, "w64.float()": False,
               "w64.double()": True, "wT.contiguous()": False, "wT.float()": True,
               "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.t\(\)", ()),
    ("check_same_object", "a set of the expressions that are the tensor itself", """
check_same_object({"w.to(torch.float32)", "w.requires_grad_()", "w64.double()",
                   "wT.float()"})
""", r"^answer with a dict mapping each expression to True or False.*not a set$", ()),
    ("check_same_object", "a list of predictions in the template's order", """
check_same_object([False, False, True, True, False, False, True, False, True, False])
""", r"^answer with a dict .*not a list$", ()),
    ("check_same_object", "section 4's name w1 kept in the keys", """
predictions = {"w1.t()": False, "w1.view(8, 16)": False, "w1.to(torch.float32)": True,
               "w1.requires_grad_()": True, "w1 + 0": False, "w64.float()": False,
               "w64.double()": True, "wT.contiguous()": False, "wT.float()": True,
               "wT.t()": False}
check_same_object(predictions)
""", r"^your dict has no entry for w.t\(\), w.view\(8, 16\), .*w \+ 0\n"
     r"The exercise's float32 tensor is w, not section 4's w1: copy the keys from the "
     r"template$", ()),
    ("check_linear_grad", "section 3's lin_grad copied: both transposes on the wrong side", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your gradients differ from autograd's on case 1 of 3 \(w of shape \(4, 4\), square; "
     r"5 rows; float64\): wrong for inp.g, w.g\nYour result is what you get if you used "
     r"section 3's lin_grad, written for a layer inp @ w, where this layer computes "
     r"inp @ w.t\(\)\.\nLargest difference: ", ('lin_grad',)),
    ("check_linear_grad", "w.g transposed (section 3's product)", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for w.g\nYour result is what you get if you computed w.g as inp.t\(\) @ out.g: "
     r"that is the gradient of w.t\(\), with w's shape only because w is square\.\n", ('w_t',)),
    ("check_linear_grad", "inp.g = out.g @ w.t(), section 3's product", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for inp.g\nYour result is what you get if you multiplied out.g by w.t\(\) for "
     r"inp.g, as section 3 does", ('inp_t',)),
    ("check_linear_grad", "inp.t() @ out.g reshaped to w's shape", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = (inp.t() @ out.g).reshape(w.shape)
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for w.g\nYour result is what you get if you computed w.g as inp.t\(\) @ out.g, "
     r"the gradient of w.t\(\), and reshaped it to w's shape: a reshape keeps the order",
     ('w_t_reshape',)),
    ("check_linear_grad", "the bias gradient averaged over the rows", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.mean(0)
check_linear_grad(linear_grad)
""", r"wrong for b.g\nYour result is what you get if you averaged b.g over the rows \(divided "
     r"by N\), where each row's share adds up", ('mean_b',)),
    ("check_linear_grad", "w.g and b.g divided by N", """
def linear_grad(inp, out, w, b):
    n = inp.shape[0]
    inp.g = out.g @ w
    w.g = out.g.t() @ inp / n
    b.g = out.g.sum(0) / n
check_linear_grad(linear_grad)
""", r"wrong for w.g, b.g\nYour result is what you get if you averaged w.g and b.g over the "
     r"rows", ('mean_wb',)),
    ("check_linear_grad", "section 3 copied, and b.g averaged", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.mean(0)
check_linear_grad(linear_grad)
""", r"wrong for inp.g, w.g, b.g\nYour result is what you get if you used section 3's "
     r"lin_grad and averaged b.g over the rows\.\n", ('lin_grad_mean',)),
    ("check_linear_grad", "the bias gradient not summed", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g
check_linear_grad(linear_grad)
""", r"^b.g has shape \(5, 4\), but a gradient has the shape of its tensor: \(4,\)$", ()),
    ("check_linear_grad", "the bias gradient summed over the features", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum(1)
check_linear_grad(linear_grad)
""", r"^b.g has shape \(5,\), but a gradient has the shape of its tensor: \(4,\)$", ()),
    ("check_linear_grad", "the bias gradient summed to one number", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum()
check_linear_grad(linear_grad)
""", r"^b.g has shape \(\), but a gradient has the shape of its tensor: \(4,\)$", ()),
    ("check_linear_grad", "b.g forgotten", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
check_linear_grad(linear_grad)
""", r"^your linear_grad did not set b.g to a tensor$", ()),
    ("check_linear_grad", "w.g = out.g @ inp: the shapes do not fit", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad raised RuntimeError: (mm: )?mat1 and mat2 shapes cannot be multiplied "
     r"\(5x4 and 5x4\)\nHere inp is \(5, 4\), w \(4, 4\), out and out.g \(5, 4\): each "
     r"gradient has the shape of its tensor$", ('shapes',)),
    ("check_linear_grad", "the gradients returned, not stored", """
def linear_grad(inp, out, w, b):
    return out.g @ w, out.g.t() @ inp, out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad returned tensors but did not set inp.g\nThe backward functions of "
     r"this notebook store each gradient: inp.g = ..., w.g = ..., b.g = ...$", ('returned',)),
    ("check_linear_grad", "section 3's lin_grad called on w.t() (after a restart)", """
def linear_grad(inp, out, w, b):
    lin_grad(inp, out, w.t(), b)
check_linear_grad(linear_grad)
""", r"raised NameError: name 'lin_grad' is not defined\nlin_grad is section 3's function",
     ('name:lin_grad',)),
    ("check_linear_grad", "section 3's lin_grad called on w.t(): w.g lands on the view", """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
def linear_grad(inp, out, w, b):
    lin_grad(inp, out, w.t(), b)
check_linear_grad(linear_grad)
""", r"^your linear_grad did not set w.g to a tensor\nSection 3's lin_grad sets the .g of the "
     r"tensor you pass it, and w.t\(\) is a new view object, not w \(section 4\)$",
     ('lin_grad_view',)),
    ("check_linear_grad", "w transposed in place", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.t_()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad changed w in place", ()),
    ("check_linear_grad", "out.g transposed in place", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t_() @ inp
    b.g = out.g.sum(1)
check_linear_grad(linear_grad)
""", r"^your linear_grad changed out.g in place; it should only read it", ()),
    ("check_linear_grad", "the gradient written into out.g", """
def linear_grad(inp, out, w, b):
    out.g = out.g @ w
    inp.g = out.g
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"^your linear_grad replaced out.g with another tensor: leave it as it was$", ()),
    ("check_linear_grad", "the parameters in another order", """
def linear_grad(out, inp, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"raised AttributeError: 'Tensor' object has no attribute 'g'\nOnly out.g exists when the "
     r"check calls linear_grad\(inp, out, w, b\), in that order", ('g_missing',)),
    ("check_linear_grad", "w.g accumulated with += before it exists", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g += out.g.t() @ inp
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"raised AttributeError.*\ninp.g, w.g and b.g do not exist until your code sets them: "
     r"create them with =, not \+=$", ('g_add',)),
    ("check_linear_grad", "autograd on the caller's tensors", """
def linear_grad(inp, out, w, b):
    for t in (inp, w, b):
        t.requires_grad_()
    inp.g, w.g, b.g = torch.autograd.grad(inp @ w.t() + b, (inp, w, b), out.g)
check_linear_grad(linear_grad)
""", r"^your linear_grad switched on inp.requires_grad; leave it as it was \(for autograd, "
     r"work on a copy: x.detach\(\).requires_grad_\(\)\)$", ()),
    ("check_linear_grad", "a wrong number of parameters", """
def linear_grad(inp, out, w):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp
check_linear_grad(linear_grad)
""", r"^your linear_grad cannot be called this way(.|\n)*called as linear_grad\(inp, out, w, b\)",
     ('call',)),
    ("check_mae_grad", "requires_grad switched on for the caller's inp, then backward", """
def mae_grad(inp, targ):
    inp.requires_grad_()
    (inp.squeeze(-1) - targ).abs().mean().backward()
    inp.g = inp.grad
check_mae_grad(mae_grad)
""", r"your mae_grad switched on inp.requires_grad", ()),
    ("check_mae_grad", "forgot the 1/N of the mean", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1)
check_mae_grad(mae_grad)
""", r"^your inp.g differs from the finite-difference gradient in 10 of 10 entries(.|\n)*"
     r"left out the 1/N", ('no_mean',)),
    ("check_mae_grad", "divided by the number of columns", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[1]
check_mae_grad(mae_grad)
""", r"left out the 1/N of the mean \(or divided by inp.shape\[1\], which is 1\)", ('no_mean',)),
    ("check_mae_grad", "no squeeze: the (N, N) broadcast", """
def mae_grad(inp, targ):
    inp.g = (inp - targ).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"inp.g has shape \(10, 10\)(.|\n)*broadcast", ('broadcast',)),
    ("check_mae_grad", "the (N, N) broadcast summed back to (N, 1)", """
def mae_grad(inp, targ):
    inp.g = (inp - targ).sign().sum(1, keepdim=True) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*without squeeze\(-1\), the \(N, N\) broadcast of section 1, then summed it back",
     ('summed',)),
    ("check_mae_grad", "forgot the target", """
def mae_grad(inp, targ):
    inp.g = inp.sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"took the sign of inp alone, leaving out targ", ('sign_inp',)),
    ("check_mae_grad", "subtracted the wrong way round", """
def mae_grad(inp, targ):
    inp.g = (targ - inp.squeeze(-1)).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"wrong way round", ('reversed',)),
    ("check_mae_grad", "the MSE's gradient", """
def mae_grad(inp, targ):
    inp.g = 2 * (inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"used the MSE's gradient", ('mse',)),
    ("check_mae_grad", "forgot to put the column back", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"inp.g has shape \(10,\)(.|\n)*unsqueeze\(-1\)", ('column',)),
    ("check_mae_grad", "subtracted in place from inp", """
def mae_grad(inp, targ):
    inp.g = inp.sub_(targ.unsqueeze(-1)).sign() / inp.shape[0]
check_mae_grad(mae_grad)
""", r"changed inp in place", ()),
    ("check_mae_grad", "N written as a number", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / 10
check_mae_grad(mae_grad)
""", r"in 6 of 6 entries, on case 2 of 3 \(a float32 batch of 6 rows\)\n"
     r"Your result is what you get if you divided by 10, a fixed number, where "
     r"N = inp.shape\[0\] changes from batch to batch", ('fixed:10',)),
    ("check_mae_grad", "N typed in as the notebook's 256 rows", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / 256
check_mae_grad(mae_grad)
""", r"on case 1 of 3 \(a float64 batch of 10 rows\)\n.*you divided by 256, a fixed number",
     ('fixed:256',)),
    ("check_mae_grad", "N used but never defined", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / N
check_mae_grad(mae_grad)
""", r"raised NameError: name 'N' is not defined\nN is not defined inside your function: "
     r"the number of rows is inp.shape\[0\]", ('name:N',)),
    ("check_mae_grad", "sign called as a plain function", """
def mae_grad(inp, targ):
    inp.g = sign(inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised NameError(.|\n)*write torch.sign\(u\) or u.sign\(\)", ('name:sign',)),
    ("check_mae_grad", "the MSE's factor 2 kept", """
def mae_grad(inp, targ):
    inp.g = 2 * (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\nYour result is what you get if you multiplied the gradient by an extra factor of "
     r"2\.\n", ('factor:2',)),
    ("check_mae_grad", "inp.g accumulated with += before it exists", """
def mae_grad(inp, targ):
    inp.g += (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised AttributeError.*\ninp.g does not exist until your code sets it: create it with "
     r"inp.g = ..., not \+=$", ('g_add',)),
    ("check_mae_grad", "the gradient read from targ.g", """
def mae_grad(inp, targ):
    inp.g = targ.g * (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"raised AttributeError.*\nNo tensor has a .g when the check calls mae_grad\(inp, targ\)",
     ('g_missing',)),
    ("check_mae_grad", "|u| itself instead of its derivative", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).abs().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*you used \|inp - targ\|, the loss's own terms", ('abs',)),
    ("check_mae_grad", "a 0/1 mask instead of the sign", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) > targ).float().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"\n.*you used \(inp > targ\), which is 0 or 1", ('mask',)),
    ("check_mae_grad", "returned the gradient instead of setting inp.g", """
def mae_grad(inp, targ):
    return (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / inp.shape[0]
check_mae_grad(mae_grad)
""", r"returned a tensor but did not set inp.g", ('returned',)),
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

# Unseen answers, written as new learners write them (issue 30's trial).
SETUP = """
w = torch.randn(8, 16)
w64 = torch.randn(8, 16, dtype=torch.float64)
wT = torch.randn(16, 8).t()
w.g = w64.g = wT.g = "mine"
"""
WRONG += [
    ("check_same_object", "each prediction tested with `is` between .data accesses", SETUP + """
predictions = {
    "w.t()": w.t().data is w.data, "w.view(8, 16)": w.view(8, 16).data is w.data,
    "w.to(torch.float32)": w.to(torch.float32).data is w.data,
    "w.requires_grad_()": w.requires_grad_().data is w.data, "w + 0": (w + 0).data is w.data,
    "w64.float()": w64.float().data is w64.data, "w64.double()": w64.double().data is w64.data,
    "wT.contiguous()": wT.contiguous().data is wT.data, "wT.float()": wT.float().data is wT.data,
    "wT.t()": wT.t().data is wT.data,
}
check_same_object(predictions)
""", r"^4 of 10 predictions are wrong: .*\nyou tested with `is` between .data accesses: .data "
     r"makes a new tensor at every access, so `x.data is w.data` is never True; test x is w\n"
     r"w.to\(torch.float32\): w is already float32", ("data_is",)),
    ("check_same_object", "to() and contiguous() taken to copy always", """
predictions = {"w.t()": False, "w.view(8, 16)": False, "w.to(torch.float32)": False,
               "w.requires_grad_()": True, "w + 0": False, "w64.float()": False,
               "w64.double()": False, "wT.contiguous()": True, "wT.float()": False,
               "wT.t()": False}
check_same_object(predictions)
""", r"^4 of 10 predictions are wrong: w.to\(torch.float32\), w64.double\(\), "
     r"wT.contiguous\(\), wT.float\(\)\n.*\nFor the others, test each one with `is`", ()),
    ("check_same_object", "yes and no written as strings", """
predictions = {"w.t()": "no", "w.view(8, 16)": "no", "w.to(torch.float32)": "yes",
               "w.requires_grad_()": "yes", "w + 0": "no", "w64.float()": "no",
               "w64.double()": "yes", "wT.contiguous()": "no", "wT.float()": "yes",
               "wT.t()": "no"}
check_same_object(predictions)
""", r"^w.t\(\): you wrote 'no', a string; predict True or False, without quotes$", ()),
    ("check_same_object", "the transpose of a transpose taken for the tensor itself", """
predictions = {"w.t()": False, "w.view(8,16)": False, "w.to(torch.float32)": True,
               "w.requires_grad_()": True, "w+0": False, "w64.float()": False,
               "w64.double()": True, "wT.contiguous()": False, "wT.float()": True,
               "wT.t()": True}  # the transpose of the transpose is the original
check_same_object(predictions)
""", r"^1 of 10 predictions is wrong: wT.t\(\)\nwT.t\(\): a new view object", ()),
    ("check_linear_grad", "autograd on the given tensors, all three switched on", """
def linear_grad(inp, out, w, b):
    inp.requires_grad_(True)
    w.requires_grad_(True)
    b.requires_grad_(True)
    o = inp @ w.t() + b
    o.backward(out.g)
    inp.g, w.g, b.g = inp.grad, w.grad, b.grad
check_linear_grad(linear_grad)
""", r"^your linear_grad switched on inp.requires_grad", ()),
    ("check_linear_grad", "out.g transposed in place, then used as it is", """
def linear_grad(inp, out, w, b):
    g = out.g
    inp.g = g @ w
    g.t_()
    w.g = g @ inp
    b.g = g.sum(1)
check_linear_grad(linear_grad)
""", r"^your linear_grad changed out.g in place", ()),
    ("check_mae_grad", "the slope written u / |u|, without the mean", """
def mae_grad(inp, targ):
    u = inp.squeeze(-1) - targ
    inp.g = (u / u.abs()).unsqueeze(-1)
check_mae_grad(mae_grad)
""", r"\nYour result is what you get if you left out the 1/N of the mean", ("no_mean",)),
    ("check_mae_grad", "a loop whose if and elif miss some rows", """
def mae_grad(inp, targ):
    rows = []
    for i in range(len(targ)):
        d = inp[i, 0] - targ[i]
        if d > 0:
            s = 1.0
        elif d < -10:
            s = -1.0
        rows.append(s / len(targ))
    inp.g = torch.tensor(rows, dtype=inp.dtype).unsqueeze(-1)
check_mae_grad(mae_grad)
""", r"raised UnboundLocalError: cannot access local variable 's' where it is not associated "
     r"with a value\n`s` is a variable of your own function, read before any line assigned "
     r"it", ("unbound",)),
    ("check_mae_grad", "N, undefined, on a line with a trailing comment", """
def mae_grad(inp, targ):
    n = inp.shape[0]
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / N        # divide by the rows
check_mae_grad(mae_grad)
""", r"raised NameError: name 'N' is not defined\nN is not defined inside your function",
     ("name:N",)),
    ("check_linear_grad", "w.g averaged over the rows", """
def linear_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = out.g.t() @ inp / len(inp)
    b.g = out.g.sum(0)
check_linear_grad(linear_grad)
""", r"wrong for w.g\nYour result is what you get if you averaged w.g over the rows", ("mean_w",)),
    ("check_mae_grad", "n, the notebook's name, used inside", """
def mae_grad(inp, targ):
    inp.g = (inp.squeeze(-1) - targ).sign().unsqueeze(-1) / n
check_mae_grad(mae_grad)
""", r"raised NameError: name 'n' is not defined\nn is not defined inside your function",
     ("name:n",)),
]
