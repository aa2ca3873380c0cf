"""Plausible wrong answers to notebook 05's exercises; each must fail its check."""

RELU_SHARED = """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = {forward}
        self.calls.append((inp, out))
        return out

    def backward(self):
        inp, out = {pop}
        {grad}
check_relu_shared(ReluShared)
"""


def relu_shared(forward="inp.clamp_min(0.)", pop="self.calls.pop()",
                grad="inp.g = torch.where(inp > 0, out.g, 0)"):
    return RELU_SHARED.format(forward=forward, pop=pop, grad=grad)


RESIDUAL = """
def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        z = lin(tape, h_relu, p["w_mid"], p["b_mid"])
        {block}
    return lin(tape, h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet)
"""

TIED = """
def transpose(tape, x):
    return tape.record("transpose", {forward}, (x,), {backward})


def tied_net(tape, p, x):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, p["w_mid"], p["b_mid"]))
    h = relu(tape, lin(tape, h, {tied}, p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
"""


def tied(forward="x.t()", backward="lambda g: (g.t(),)", tied='transpose(tape, p["w_mid"])'):
    return TIED.format(forward=forward, backward=backward, tied=tied)


WRONG = [
    # -- exercise 1 ----------------------------------------------------------------------
    ("check_relu_shared", "pops from the front of the list",
     relu_shared(pop="self.calls.pop(0)"),
     r"the first backward handled the first call, not the latest\.\n.*list.pop\(\) "
     r"\(not pop\(0\)\)", ("front",)),
    ("check_relu_shared", "passes an instance, not the class",
     relu_shared().replace("check_relu_shared(ReluShared)", "check_relu_shared(ReluShared())"),
     r"^you passed a ReluShared object: pass the class `ReluShared`, not an instance\n", ()),
    ("check_relu_shared", "reads the latest record without popping it",
     relu_shared(pop="self.calls[-1]"),
     r"the first call's inp.g is missing\.\nYour result is what you get if each backward "
     r"handled the latest call again", ("again",)),
    ("check_relu_shared", "records in a dict by call number, never deleted", """
class ReluShared():
    def __init__(self):
        self.calls = {}

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls[len(self.calls)] = (inp, out)
        return out

    def backward(self):
        inp, out = self.calls[max(self.calls)]
        inp.g = torch.where(inp > 0, out.g, 0)
check_relu_shared(ReluShared)
""", r"\n.*each backward handled the latest call again", ("again",)),
    ("check_relu_shared", "pops a record, but reads the last call's attributes", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        self.inp, self.out = inp, inp.clamp_min(0.)
        self.calls.append((self.inp, self.out))
        return self.out

    def backward(self):
        self.calls.pop()
        self.inp.g = torch.where(self.inp > 0, self.out.g, 0)
check_relu_shared(ReluShared)
""", r"\n.*each backward handled the latest call again: keep one \(inp, out\) record per "
     r"call, and let each backward pop the latest one and work on that record", ("again",)),
    ("check_relu_shared", "the lesson's Relu: one stored call", """
class ReluShared():
    def __call__(self, inp):
        self.inp, self.out = inp, inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = torch.where(self.inp > 0, self.out.g, 0)
check_relu_shared(ReluShared)
""", r"\n.*each backward handled the latest call again: keep one \(inp, out\) record per "
     r"call", ("again",)),
    ("check_relu_shared", "forgot to multiply by out.g",
     relu_shared(grad="inp.g = (inp > 0).float()"),
     r"(?s)inp.g should be torch.where\(inp > 0, out.g, 0\).*you set inp.g to the mask alone",
     ("mask_only",)),
    ("check_relu_shared", "passes the gradient at exactly 0 too",
     relu_shared(grad="inp.g = (inp >= 0).float() * out.g"),
     r"you passed out.g where the input is exactly 0 too: use inp > 0", ("ge",)),
    ("check_relu_shared", "no mask at all",
     relu_shared(grad="inp.g = out.g"),
     r"you passed out.g on everywhere, with no mask", ("no_mask",)),
    ("check_relu_shared", "the ReLU computed in place on its input",
     relu_shared(forward="inp.clamp_min_(0.)"),
     r"changed the first call's inp in place", ()),
    ("check_relu_shared", "masks out.g in place and hands it on",
     relu_shared(grad="out.g *= (inp > 0).float(); inp.g = out.g"),
     r"your backward changed the second call's out.g", ()),
    ("check_relu_shared", "adds into an inp.g that nobody created",
     relu_shared(grad="inp.g += (inp > 0).float() * out.g"),
     r"first backward of your ReluShared object raised AttributeError", ()),
    ("check_relu_shared", "the gradient where the OUTPUT is at least 0 (always true)",
     relu_shared(grad="inp.g = (out >= 0).float() * out.g"),
     r"you passed out.g on everywhere, with no mask", ("no_mask",)),
    ("check_relu_shared", "__call__ forgets to return out", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = (inp > 0).float() * out.g
check_relu_shared(ReluShared)
""", r"what your object returned for the first call should be a tensor, but it is None", ()),
    ("check_relu_shared", "inp.g cast to float32, for float64 tensors",
     relu_shared(grad="inp.g = ((inp > 0) * out.g).float()"),
     r"(?s)backward pass at depth 0.*failed: your backward sets inp.g float32 while inp is "
     r"float64.*a gradient keeps its tensor's dtype", ('dtype',)),
    ("check_relu_shared", "returns a copy of what it recorded", """
class ReluShared():
    def __init__(self):
        self.calls = []

    def __call__(self, inp):
        out = inp.clamp_min(0.)
        self.calls.append((inp, out))
        return out.clone()

    def backward(self):
        inp, out = self.calls.pop()
        inp.g = (inp > 0).float() * out.g
check_relu_shared(ReluShared)
""", r"returned another object than the one it recorded", ()),
    ("check_relu_shared", "the output computed in float32",
     relu_shared(forward="inp.float().clamp_min(0.)"),
     r"the first call returned float32 for a float64 inp; a layer keeps its input's dtype", ()),
    # -- exercise 2 ----------------------------------------------------------------------
    ("check_residual", "torch.relu, off the tape, around the tape's add",
     RESIDUAL.format(block="h_relu = torch.relu(add(tape, h_relu, z))"),
     r"(?s)at depth 1 .*takes an input that no op on the tape computed\nThat tensor: torch.relu "
     r"\(or clamp\) of a tensor on the tape made it.*with the tape's lin, relu and add", ()),
    ("check_residual", "a plain + instead of the tape's add",
     RESIDUAL.format(block="h_relu = relu(tape, h_relu + z)"),
     r"(?s)record #\d takes an input that no op on the tape computed\nThat tensor: a plain \+ "
     r"of two tensors on the tape made it; .*is not recorded.*lin, relu and add\(tape, x, y\)", ()),
    ("check_residual", "the ReLU before the sum",
     RESIDUAL.format(block="h_relu = add(tape, h_relu, relu(tape, z))"),
     r"(?s)at depth 1 .*differ from autograd's: .*you put the ReLU before the sum",
     ('relu_first',)),
    ("check_residual", "no ReLU after the sum",
     RESIDUAL.format(block="h_relu = add(tape, h_relu, z)"),
     r"(?s)at depth 1 .*you left out the ReLU after the sum", ('no_relu',)),
    ("check_residual", "no skip connection: the plain DynamicNet",
     RESIDUAL.format(block="h_relu = relu(tape, z)"),
     r"(?s)at depth 1 .*you left out the skip connection", ('no_skip',)),
    ("check_residual", "adds in place into the recorded h_relu",
     RESIDUAL.format(block="h_relu += z\n        h_relu = relu(tape, h_relu)"),
     r"(?s)at depth 1 .*the gradients differ from autograd's: wrong for", ()),
    ("check_residual", "returns the ReLU of the output layer",
     RESIDUAL.replace('return lin(tape, h_relu, p["w_out"], p["b_out"])',
                      'return relu(tape, lin(tape, h_relu, p["w_out"], p["b_out"]))')
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"(?s)at depth 0 .*the gradients differ from autograd's", ()),
    ("check_residual", "the prediction squeezed to (n,)",
     RESIDUAL.replace('return lin(tape, h_relu, p["w_out"], p["b_out"])',
                      'return lin(tape, h_relu, p["w_out"], p["b_out"]).squeeze(-1)')
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"has shape \(32,\), expected \(32, 1\)", ()),
    ("check_residual", "records on a Tape() of its own",
     RESIDUAL.replace("    h_relu = relu(tape, lin(",
                      "    tape = Tape()\n    h_relu = relu(tape, lin(")
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"the tape the check gave it held no records\nRecord every op on that tape.*not on a "
     r"Tape\(\) of your own", ()),
    ("check_residual", "runs the tape's backward itself",
     RESIDUAL.replace('    return lin(tape, h_relu, p["w_out"], p["b_out"])',
                      '    pred = lin(tape, h_relu, p["w_out"], p["b_out"])\n'
                      '    tape.backward(pred.sum())\n    return pred')
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"held no records\n.*leave its backward to the check", ()),
    ("check_residual", "the middle blocks on a second tape", """
def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    inner = Tape()
    for _ in range(depth):
        z = lin(inner, h_relu, p["w_mid"], p["b_mid"])
        h_relu = relu(inner, add(inner, h_relu, z))
    return lin(tape, h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet)
""", r"(?s)at depth 1 .*the lin record #2 takes an input that no op on the tape computed\n"
     r"Was it computed by a plain torch operation, or recorded on another Tape\?", ()),
    ("check_residual", "the tape's relu called without the tape",
     RESIDUAL.format(block="h_relu = relu(add(tape, h_relu, z))"),
     r"raised TypeError: relu\(\) missing 1 required positional argument: 'x'\n"
     r"The tape's ops take the tape first: lin\(tape, x, w, b\), relu\(tape, x\)", ('op_call',)),
    ("check_residual", "the notebook's params instead of p",
     RESIDUAL.replace('lin(tape, x, p["w_in"], p["b_in"])',
                      'lin(tape, x, params["w_in"], params["b_in"])')
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"NameError: name 'params' is not defined\n`params` is the notebook's dict of weights: "
     r"use `p`", ('name:params',)),
    ("check_residual", "returns the loss, not the prediction",
     RESIDUAL.replace('    return lin(tape, h_relu, p["w_out"], p["b_out"])',
                      '    pred = lin(tape, h_relu, p["w_out"], p["b_out"])\n'
                      '    return mse(tape, pred, x[:, 0])')
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"returned a single number: it should return the prediction, of shape \(32, 1\)", ()),
    ("check_residual", "one residual block too many",
     RESIDUAL.replace("range(depth)", "range(depth + 1)")
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"(?s)at depth 0 .*your loop ran one block too many", ('more',)),
    ("check_residual", "one residual block too few",
     RESIDUAL.replace("range(depth)", "range(depth - 1)")
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"(?s)at depth 1 .*your loop ran one block too few", ('fewer',)),
    ("check_residual", "the right function, on OverwritingTape",
     RESIDUAL.replace("check_residual(residual_dynamicnet)",
                      "check_residual(residual_dynamicnet, OverwritingTape)")
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"^on OverwritingTape, at depth 1 .*wrong for inp, w_in, b_in\nYour result is what you get "
     r"if a tape keeps only the last share a tensor is sent \(t.g = g\): from depth 1 each "
     r"h_relu gets two", ("tape_class",)),
    ("check_residual", "a tape of one's own whose send assigns", """
class MyTape(Tape):
    def send(self, t, g):
        t.g = g.clone()


def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        h_relu = relu(tape, add(tape, h_relu, lin(tape, h_relu, p["w_mid"], p["b_mid"])))
    return lin(tape, h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, MyTape)
""", r"^on MyTape, at depth 1 .*\n.*a tape keeps only the last share a tensor is sent",
     ("tape_class",)),
    ("check_residual", "a tape of one's own that runs the records oldest first", """
class MyTape(Tape):
    def backward(self, loss):
        self.start(loss)
        for rec in self.records:
            for t, g in zip(rec.inputs, rec.backward(rec.out.g)):
                self.send(t, g)


def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        z = lin(tape, h_relu, p["w_mid"], p["b_mid"])
        h_relu = relu(tape, add(tape, h_relu, z))
    return lin(tape, h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, MyTape)
""", r"^on MyTape, at depth 0 .*\nYour result is what you get if your function is right, and "
     r"MyTape is not: it passed on the course's Tape", ("tape_class",)),
    ("check_residual", "a Tape object passed, not the class",
     RESIDUAL.replace("check_residual(residual_dynamicnet)",
                      "check_residual(residual_dynamicnet, Tape())")
     .format(block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"the second argument should be a tape class.*a tape object \(pass the class, without "
     r"\(\)\)", ()),
    ("check_residual", "the residual function on OverwritingTape, and no skip connection",
     RESIDUAL.replace("check_residual(residual_dynamicnet)",
                      "check_residual(residual_dynamicnet, OverwritingTape)")
     .format(block="h_relu = relu(tape, z)"),
     r"(?s)^at depth 1 .*you left out the skip connection", ('no_skip',)),
    # -- exercise 3 ----------------------------------------------------------------------
    ("check_tied", "transpose's backward returns g unchanged",
     tied(backward="lambda g: (g,)"),
     r"transpose's backward sends the wrong gradient to x.*yours has out.g's shape", ()),
    ("check_tied", "w_mid.t() not recorded on the tape",
     tied(tied='p["w_mid"].t()'),
     r"the lin record #4 takes an input that no op on the tape computed\nThat tensor: a plain "
     r"\.t\(\) \(or \.T\) of a tensor on the tape made it", ()),
    ("check_tied", "the tied layer without the transpose",
     tied(tied='p["w_mid"]'),
     r"you used w_mid untransposed in the third layer", ('untied',)),
    ("check_tied", "transpose's forward forgets to transpose",
     tied(forward="x"),
     r"transpose\(tape, x\) for an x of shape \(2, 3\) has shape \(2, 3\), expected \(3, 2\)", ()),
    ("check_tied", "transpose's backward returns a bare tensor, not a tuple",
     tied(backward="lambda g: g.t()"),
     r"should return a tuple with one gradient", ()),
    ("check_tied", "transpose transposes x in place",
     tied(forward="x.t_()"),
     r"your transpose changed x in place", ()),
    ("check_tied", "transpose's backward transposes out.g in place",
     tied(backward="lambda g: (g.t_(),)"),
     r"your transpose's backward changed out.g in place", ()),
    ("check_tied", "torch.relu, off the tape, after the tied layer", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g.t(),))


def tied_net(tape, p, x):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, p["w_mid"], p["b_mid"]))
    h = torch.relu(lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
""", r"lin record #6 takes an input that no op on the tape computed\nThat tensor: torch.relu "
     r"\(or clamp\)", ()),
    ("check_tied", "a copy of the prediction returned", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g.t(),))


def tied_net(tape, p, x):
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, p["w_mid"], p["b_mid"]))
    h = relu(tape, lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"]).clone()
check_tied(transpose, tied_net)
""", r"the prediction you returned was not computed by an op on the tape\nThat tensor: it "
     r"equals a tensor on the tape but is another object", ()),
    ("check_tied", "tape.record called without the backward function",
     TIED.replace(", {backward})", ")").format(forward="x.t()", tied='transpose(tape, p["w_mid"])'),
     r"Tape.record\(\) missing 1 required positional argument: 'backward'\ntape.record takes "
     r"four arguments", ('record_call',)),
    ("check_tied", "the transposed layer first, the plain one second",
     tied().replace('lin(tape, h, p["w_mid"], p["b_mid"])', "FIRST")
     .replace('lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"])',
              'lin(tape, h, p["w_mid"], p["b_mid"])')
     .replace("FIRST", 'lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"])'),
     r"you used the two w_mid layers in the other order", ('swapped',)),
    ("check_tied", "no ReLU after the transposed layer",
     tied().replace('relu(tape, lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"]))',
                    'lin(tape, h, transpose(tape, p["w_mid"]), p["b_mid"])'),
     r"you left out the ReLU after the third layer", ('no_last_relu',)),
    ("check_tied", "transpose records a copy as its input",
     tied(forward="x.t()", backward="lambda g: (g.t(),)").replace("(x,)", "(x.clone(),)"),
     r"with x as its only input", ()),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_residual", "the loop's last output returned: unbound at depth 0", """
def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        z = lin(tape, h_relu, p["w_mid"], p["b_mid"])
        out = relu(tape, add(tape, h_relu, z))
        h_relu = out
    return lin(tape, out, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, Tape)
""", r"at depth 0 raised UnboundLocalError: cannot access local variable 'out' where it is not "
     r"associated with a value\n`out` is a variable of your own function, read before any "
     r"line assigned it", ("unbound",)),
    ("check_residual", "the tape's ops called without the tape", """
def residual_dynamicnet(tape, p, x, depth):
    h_relu = relu(lin(x, p["w_in"], p["b_in"]))
    for _ in range(depth):
        h_relu = relu(add(h_relu, lin(h_relu, p["w_mid"], p["b_mid"])))
    return lin(h_relu, p["w_out"], p["b_out"])
check_residual(residual_dynamicnet, Tape)
""", r"raised TypeError: lin\(\) missing 1 required positional argument: 'b'\nThe tape's ops "
     r"take the tape first", ("op_call",)),
    ("check_residual", "the notebook's inp instead of x", RESIDUAL.replace(
        'lin(tape, x, p["w_in"]', 'lin(tape, inp, p["w_in"]').format(
        block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"NameError: name 'inp' is not defined\n`inp` is the notebook's data: use `x`",
     ("name:inp",)),
    ("check_residual", "the loss taken inside, with the notebook's targ", RESIDUAL.replace(
        '    return lin(tape, h_relu, p["w_out"], p["b_out"])',
        '    return mse(tape, lin(tape, h_relu, p["w_out"], p["b_out"]), targ)').format(
        block="h_relu = relu(tape, add(tape, h_relu, z))"),
     r"NameError: name 'targ' is not defined\nyour function returns the prediction; the check "
     r"adds the loss itself", ("name:targ",)),
    ("check_tied", "the transpose in both w_mid layers", """
def transpose(tape, x):
    return tape.record("transpose", x.t(), (x,), lambda g: (g.t(),))
def tied_net(tape, p, x):
    wt = transpose(tape, p["w_mid"])
    h = relu(tape, lin(tape, x, p["w_in"], p["b_in"]))
    h = relu(tape, lin(tape, h, wt, p["b_mid"]))
    h = relu(tape, lin(tape, h, wt, p["b_mid"]))
    return lin(tape, h, p["w_out"], p["b_out"])
check_tied(transpose, tied_net)
""", r"^the tied network's gradients \(batch of 32, 6 hidden units\) differ from autograd's: "
     r"wrong for", ()),
    ("check_tied", "the transposed use's tensor detached, then recorded", tied(
        tied='transpose(tape, p["w_mid"].detach())'),
     r"the transpose record #4 takes an input that no op on the tape computed\nThat tensor: it "
     r"equals a tensor on the tape but is another object \(a .clone\(\) or a .detach\(\)\)", ()),
]

EQUIVALENT: dict[tuple[int, str], str] = {}
