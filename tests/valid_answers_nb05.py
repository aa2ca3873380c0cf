"""Right answers to notebook 05's exercises, written differently from the solutions.

Each must pass its check.
"""

VALID = [
    # -- exercise 1 ----------------------------------------------------------------------
    ("check_relu_shared", "zeroes inp.g in __call__ and adds in backward (LinShared's habit)",
     """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        inp.g = torch.zeros_like(inp)
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        inp.g += (inp > 0).float() * out.g
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "the mask from the output, torch.where, torch.relu", """
class ReluShared():
    def __init__(self):
        self.records = []

    def __call__(self, inp):
        out = torch.relu(inp)
        self.records.append((inp, out))
        return out

    def backward(self):
        inp, out = self.records.pop()
        inp.g = torch.where(out > 0, out.g, torch.zeros_like(out.g))
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "a stack of closures, newest at the front", """
class ReluShared():
    def __init__(self):
        self.pending = []

    def __call__(self, inp):
        out = inp.clamp(min=0)

        def backward():
            print("relu backward")
            inp.g = out.g.masked_fill(inp <= 0, 0.)
        self.pending.insert(0, backward)
        return out

    def backward(self):
        self.pending.pop(0)()
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "the mask in inp's dtype, the records in a dict by call number", """
class ReluShared():
    def __init__(self):
        self.records, self.n = {}, 0

    def __call__(self, inp):
        out = torch.relu(inp)
        self.records[self.n] = (inp, out)
        self.n += 1
        return out

    def backward(self):
        self.n -= 1
        inp, out = self.records.pop(self.n)
        inp.g = (inp > 0).to(inp.dtype) * out.g
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "the lesson's mask, (inp > 0).float() * out.g", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = (inp > 0).float() * out.g
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "a bool mask times out.g, and torch.where(..., 1, 0)", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp(min=0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        mask = (inp > 0) if len(self.calls) % 2 else torch.where(inp > 0, 1, 0)
        inp.g = mask * out.g
check_relu_shared(ReluShared)
"""),
    # -- exercise 2 ----------------------------------------------------------------------
    ("check_residual", "nested in one line per block, with the params dict", """
def residual_dynamicnet(tape, params, x, depth):
    w_in, b_in = params["w_in"], params["b_in"]
    w_mid, b_mid = params["w_mid"], params["b_mid"]
    h = relu(tape, lin(tape, x, w_in, b_in))
    for _ in range(depth):
        h = relu(tape, add(tape, lin(tape, h, w_mid, b_mid), h))
    return lin(tape, h, params["w_out"], params["b_out"])
check_residual(residual_dynamicnet)
"""),
    ("check_residual", "on a tape of its own whose send adds without +=", """
class MyTape(Tape):
    def send(self, t, g):
        t.g = t.g + g


def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        z = lin(tape, h_relu, p["w_mid"], p["b_mid"])
        h_relu = relu(tape, add(tape, z, h_relu))
    return lin(tape, h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, MyTape)
"""),
    ("check_residual", "an add op of its own, and a while loop", """
def plus(tape, a, b):
    return tape.record("plus", a + b, (a, b), lambda g: (g.clone(), g.clone()))


def residual_dynamicnet(tape, p, x, depth):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    k = 0
    while k < depth:
        h = relu(tape, plus(tape, h, lin(tape, h, p["w_mid"], p["b_mid"])))
        k += 1
    out = lin(tape, h, p["w_out"], p["b_out"])
    print("depth", depth, "records", len(tape.records))
    return out
check_residual(residual_dynamicnet)
"""),
    # -- exercise 3 ----------------------------------------------------------------------
    ("check_tied", ".T in both directions, local names", """
def transpose(tape, x):
    out = x.T
    return tape.record("T", out, (x,), lambda g: (g.T,))


def tied_net(tape, p, x):
    w, b = p["w_mid"], p["b_mid"]
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, w, b))
    w_t = transpose(tape, w)
    h = relu(tape, lin(tape, h, w_t, b))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
"""),
    ("check_tied", "transpose(0, 1) and permute, contiguous copies, a loop", """
def transpose(tape, x):
    out = x.transpose(0, 1).contiguous()
    return tape.record("transpose", out, (x,),
                       lambda g: (g.permute(1, 0).contiguous(),))


def tied_net(tape, p, x):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for w in (p["w_mid"], transpose(tape, p["w_mid"])):
        h = relu(tape, lin(tape, h, w, p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
"""),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_relu_shared", "a deque, torch.relu, a float mask times out.g", """
from collections import deque


class ReluShared:
    def __init__(self):
        self.stack = deque()
    def __call__(self, inp):
        out = torch.relu(inp)
        self.stack.append((inp, out))
        return out
    def backward(self):
        inp, out = self.stack.pop()
        inp.g = (inp > 0).double() * out.g
check_relu_shared(ReluShared)
"""),
    ("check_relu_shared", "the records in a list on the class, shared by every object", """
class ReluShared():
    calls = []
    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out
    def backward(self):
        inp, out = self.calls.pop()
        inp.g = torch.where(inp > 0, out.g, 0)
check_relu_shared(ReluShared)
"""),
    ("check_residual", "the sum's operands swapped, recorded by an op of its own", """
def residual_dynamicnet(tape, p, x, depth):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for d in range(depth):
        z = lin(tape, h, p["w_mid"], p["b_mid"])
        s = tape.record("plus", z + h, (z, h), lambda g: (g, g))
        h = relu(tape, s)
    return lin(tape, h, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, Tape)
"""),
    ("check_tied", "permute and .T", """
def transpose(tape, x):
    y = x.permute(1, 0)
    return tape.record("T", y, (x,), lambda g: (g.T,))
def tied_net(tape, p, x):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, p["w_mid"], p["b_mid"]))
    wt = transpose(tape, p["w_mid"])
    h = relu(tape, lin(tape, h, wt, p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
"""),
]
