"""Plausible wrong answers to notebook 05's exercises; each must fail its check."""

WRONG = [
    ("check_relu_shared", "pops from the front of the list", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop(0)
        inp.g = (inp > 0).float() * out.g
check_relu_shared(ReluShared)
""", r"did you pop the latest record\?"),
    ("check_relu_shared", "reads the latest record without popping it", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls[-1]
        inp.g = (inp > 0).float() * out.g
check_relu_shared(ReluShared)
""", r"pop the latest one in each backward"),
    ("check_relu_shared", "the lesson's Relu: one stored call", """
class ReluShared():
    def __call__(self, inp):
        self.inp, self.out = inp, inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = (self.inp > 0).float() * self.out.g
check_relu_shared(ReluShared)
""", r"keep one \(inp, out\) record per call \(a list\)"),
    ("check_relu_shared", "forgot to multiply by out.g", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = (inp > 0).float()
check_relu_shared(ReluShared)
""", r"inp.g should be \(inp > 0\) \* out.g"),
    ("check_residual", "a plain + instead of the tape's add", """
def residual_dynamicnet(tape, params, x, depth):
    h_relu = relu(tape, lin(tape, x, params["w_in"], params["b_in"]))
    for _ in range(depth):
        h_relu = relu(tape, h_relu + lin(tape, h_relu, params["w_mid"], params["b_mid"]))
    return lin(tape, h_relu, params["w_out"], params["b_out"])
check_residual(residual_dynamicnet)
""", r"a plain \+ is not recorded"),
    ("check_residual", "the ReLU before the sum", """
def residual_dynamicnet(tape, params, x, depth):
    h_relu = relu(tape, lin(tape, x, params["w_in"], params["b_in"]))
    for _ in range(depth):
        h_relu = add(tape, h_relu, relu(tape, lin(tape, h_relu, params["w_mid"], params["b_mid"])))
    return lin(tape, h_relu, params["w_out"], params["b_out"])
check_residual(residual_dynamicnet)
""", r"at depth 1 the gradients differ from autograd's: .*the ReLU after the sum"),
    ("check_tied", "transpose's backward returns g unchanged", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g,))


def tied_net(tape, params, x):
    h = relu(tape, lin(tape, x, params["w_in"], params["b_in"]))
    h = relu(tape, lin(tape, h, params["w_mid"], params["b_mid"]))
    h = relu(tape, lin(tape, h, transpose(tape, params["w_mid"]), params["b_mid"]))
    return lin(tape, h, params["w_out"], params["b_out"])
check_tied(transpose, tied_net)
""", r"transpose's backward sends the wrong gradient to x"),
    ("check_tied", "w_mid.t() not recorded on the tape", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g.t(),))


def tied_net(tape, params, x):
    h = relu(tape, lin(tape, x, params["w_in"], params["b_in"]))
    h = relu(tape, lin(tape, h, params["w_mid"], params["b_mid"]))
    h = relu(tape, lin(tape, h, params["w_mid"].t(), params["b_mid"]))
    return lin(tape, h, params["w_out"], params["b_out"])
check_tied(transpose, tied_net)
""", r"no record on the tape transposes w_mid"),
    ("check_tied", "the tied layer without the transpose", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g.t(),))


def tied_net(tape, params, x):
    h = relu(tape, lin(tape, x, params["w_in"], params["b_in"]))
    h = relu(tape, lin(tape, h, params["w_mid"], params["b_mid"]))
    h = relu(tape, lin(tape, h, params["w_mid"], params["b_mid"]))
    return lin(tape, h, params["w_out"], params["b_out"])
check_tied(transpose, tied_net)
""", r"no record on the tape transposes w_mid"),
]
