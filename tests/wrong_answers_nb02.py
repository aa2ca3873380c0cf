"""Plausible wrong answers to notebook 02's exercises; each must fail its check."""

_MUL_FORWARD = '''
class Mul(Module):
    def forward(self, a, b):
        return a * b
'''

WRONG = [
    # -- Exercise 1: chain_ok ---------------------------------------------------------------
    ("check_chain_ok", "equal values instead of the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(torch.equal(a.out, b.args[0]) for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for Lin -> Relu -> Lin -> Mse, where layers\[0\] hands layers\[1\] a "
     r"copy of its output\nAll nine verdicts fit this mistake: you compared values "
     r"\(torch.equal, ==\): a\ncopy has equal values, yet is another object", ("values",)),
    ("check_chain_ok", "equal values with == and .all()", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(bool((a.out == b.args[0]).all()) for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"\nAll nine verdicts fit this mistake: you compared values", ('values',)),
    ("check_chain_ok", "== between two tensors, as if it were is", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out == b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"your chain_ok raised RuntimeError: Boolean value of Tensor .*\n== compares two "
     r"tensors entry by entry .*`is`", ('ambiguous',)),
    ("check_chain_ok", "the link to the loss left out", """
def chain_ok(model):
    seq = model.layers
    return all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[2\] hands model.loss a copy.*\n.*you left out "
     r"the last link", ('last',)),
    ("check_chain_ok", "the first link skipped", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0] for a, b in zip(seq[1:], seq[2:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[0\] hands layers\[1\] a copy.*\n.*you "
     r"skipped the first link", ('first',)),
    ("check_chain_ok", "same memory (data_ptr) taken for the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out.data_ptr() == b.args[0].data_ptr() for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[1\] hands layers\[2\] a view of its output\n"
     r".*you compared memory \(data_ptr\): a view\nshares it, yet is another object", ('memory',)),
    ("check_chain_ok", "only the link to the loss", """
def chain_ok(model):
    return model.layers[-1].out is model.loss.args[0]
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[0\] hands layers\[1\] a copy.*\n.*you tested "
     r"only the link to the loss", ('loss_only',)),
    ("check_chain_ok", "any link instead of every link", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return any(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"\n.*you returned True when any link holds", ('any',)),
    ("check_chain_ok", "is, but on the wrong pairs: each layer with itself", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(layer.out is layer.args[0] for layer in seq)
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs than a layer's\n"
     r"\.out and the next one's \.args\[0\]", ('pairs',)),
    ("check_chain_ok", "is, but against the args tuple", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs .*\n.*\(args is a "
     r"tuple\)$", ('pairs',)),
    ("check_chain_ok", "is, but each layer with the one two places on", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0] for a, b in zip(seq, seq[2:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\nIt judged 3 of the 9 chains wrong\.$", ()),
    ("check_chain_ok", "the verdict inverted", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return not all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you returned the opposite verdict", ('inverted',)),
    ("check_chain_ok", "the question's .inp, which Module layers do not have", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.inp for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"^your chain_ok raised AttributeError: 'Relu' object has no attribute 'inp'\nModule "
     r"layers keep their inputs in layer.args, not layer.inp \(the question's layers\): the "
     r"input is layer.args\[0\]$", ("inp",)),
    ("check_chain_ok", "the question's .inp, by index, the loss last", """
def chain_ok(model):
    for k in range(len(model.layers) - 1):
        if model.layers[k].out is not model.layers[k + 1].inp:
            return False
    return model.layers[-1].out is model.loss.inp
check_chain_ok(chain_ok)
""", r"^your chain_ok raised AttributeError: .*\nModule layers keep their inputs in "
     r"layer.args, not layer.inp", ("inp",)),
    ("check_chain_ok", ".inp asked of a tensor, not of a layer: not the question's .inp", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0].inp for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"^your chain_ok raised AttributeError: 'Tensor' object has no attribute 'inp'$", ()),
    ("check_chain_ok", "links read the wrong way round", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.args[0] is b.out for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs", ('pairs',)),
    ("check_chain_ok", "a list of links instead of one answer", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return [a.out is b.args[0] for a, b in zip(seq, seq[1:])]
check_chain_ok(chain_ok)
""", r"should return True or False, got \[True, True, True\], of type list", ()),
    ("check_chain_ok", "no return", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"should return True or False, got None", ()),
    ("check_chain_ok", "repairs the chain instead of judging it", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    for a, b in zip(seq, seq[1:]):
        b.args = (a.out, *b.args[1:])
    return True
check_chain_ok(chain_ok)
""", r"^your chain_ok replaced model.layers\[1\].args with another object: leave it as it "
     r"was$", ()),
    ("check_chain_ok", "judged by running model.backward(), which writes .g", """
def chain_ok(model):
    try:
        model.backward()
    except AttributeError:
        return False
    return True
check_chain_ok(chain_ok)
""", r"^your chain_ok set model.layers\[0\].w.g; it should only read the tensors it is "
     r"given\nchain_ok should only look, not run model.backward\(\), which writes .g$", ()),
    ("check_chain_ok", "each output tagged with a marker attribute", """
def chain_ok(model):
    for i, layer in enumerate(model.layers):
        layer.out.mark = i
    seq = [*model.layers, model.loss]
    return all(getattr(b.args[0], "mark", None) == i for i, b in enumerate(seq[1:]))
check_chain_ok(chain_ok)
""", r"^your chain_ok added model.layers\[0\].out.mark: leave it as it was$", ()),
    ("check_chain_ok", "a tensor of link verdicts, not one", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return torch.tensor([a.out is b.args[0] for a, b in zip(seq, seq[1:])])
check_chain_ok(chain_ok)
""", r"should return True or False, got tensor\(\[True, True, True\]\), of type Tensor", ()),
    # -- Exercise 2: Mul ---------------------------------------------------------------------
    ("check_mul", "zeroed in bwd, then += (erases another layer's share)", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = torch.zeros_like(a)
        b.g = torch.zeros_like(b)
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"^where h feeds two Muls \(h \* h \* h\), h.g should be the sum of their shares: "
     r"wrong for h.g\nYour result is what you get if your backward replaced h.g \(zeroed it, or "
     r"used = for a share\) after the other Mul had added its share", ("zero_bwd",)),
    ("check_mul", "a is b tested, = otherwise", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a is b:
            a.g = 2 * out.g * a
        else:
            a.g = out.g * b
            b.g = out.g * a
check_mul(Mul)
""", r"h.g should be the sum of their shares.*\n.*replaced h.g \(zeroed it, or used = for",
     ("zero_bwd",)),
    ("check_mul", "zero start in __call__, but the first share assigned", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = torch.zeros_like(a)
        b.g = torch.zeros_like(b)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g = out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"h.g should be the sum of their shares.*\n.*used = for a share\) after the other Mul",
     ("zero_bwd",)),
    ("check_mul", "no Module base: shares summed per object, then assigned", """
class Mul:
    def __call__(self, a, b):
        self.a, self.b = a, b
        self.out = a * b
        return self.out

    def backward(self):
        total = {}
        for t, share in ((self.a, self.out.g * self.b), (self.b, self.out.g * self.a)):
            total[id(t)] = total.get(id(t), 0) + share
            t.g = total[id(t)]
check_mul(Mul)
""", r"h.g should be the sum of their shares.*\n.*replaced h.g", ('zero_bwd',)),
    ("check_mul", "zero start in backward, just before bwd: still during the backward pass", """
class Mul(Module):
    def forward(self, a, b):
        return a * b

    def backward(self):
        a, b = self.args
        a.g, b.g = torch.zeros_like(a), torch.zeros_like(b)
        super().backward()

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"h.g should be the sum of their shares.*\n.*your backward replaced h.g \(zeroed it",
     ('zero_bwd',)),
    ("check_mul", "zeros of a.shape in __call__: a float32 .g for float64 tensors", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = torch.zeros(a.shape)
        b.g = torch.zeros(b.shape)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"h \* h\), your Mul's backward left h.g float32, h being float64: the Lin before it "
     r"cannot multiply mixed dtypes.\ntorch.zeros_like\(a\) keeps a's dtype", ('zeros_dtype',)),
    ("check_mul", "one zero tensor for both .g", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = b.g = torch.zeros_like(a)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"on two tensors.*\nYour result is what you get if a.g and b.g are one object",
     ('one_zeros',)),
    ("check_mul", "__call__ without return", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = torch.zeros_like(a)
        b.g = torch.zeros_like(b)
        super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"your Mul's __call__ returned None: return what super\(\)\.__call__\(a, b\) returns", ()),
    ("check_mul", "= for both shares", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = out.g * b
        b.g = out.g * a
check_mul(Mul)
""", r"for Mul\(\)\(x, x\).*\nYour result is what you get if a share replaced what was in "
     r".g \(= instead of \+=\): where a and b are one tensor, or h feeds two Muls",
     ("replaced",)),
    ("check_mul", "zeroes b.g after adding a's share", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = torch.zeros_like(a)
        a.g += out.g * b
        b.g = torch.zeros_like(b)
        b.g += out.g * a
check_mul(Mul)
""", r"Your result is what you get if a share replaced what was in .g", ("replaced",)),
    ("check_mul", "+= onto whatever .g was there, never zeroed", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = getattr(a, "g", 0) + out.g * b
        b.g = getattr(b, "g", 0) + out.g * a
check_mul(Mul)
""", r"for Mul\(\)\(a, b\) on two tensors.*\nYour result is what you get if you added the "
     r"shares to the .g left from an earlier run", ('stale',)),
    ("check_mul", "zero start only where no .g is yet, in bwd", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if not hasattr(a, "g"):
            a.g = torch.zeros_like(a)
        if not hasattr(b, "g"):
            b.g = torch.zeros_like(b)
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"on two tensors.*\nYour result is what you get if you added the shares to the .g left "
     r"from an earlier run", ('stale',)),
    ("check_mul", "+= with no .g to add to", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"your Mul's backward raised AttributeError.*no attribute 'g'\n\+= needs a .g to add "
     r"to: give each .g a zero start before the backward pass", ('no_g',)),
    ("check_mul", "zero start for a only", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = torch.zeros_like(a)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"your Mul's backward raised AttributeError.*\n\+= needs a .g to add to", ('no_g',)),
    ("check_mul", "one tensor told by equal values", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if torch.equal(a, b):
            a.g = b.g = 2 * out.g * a
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"on a tensor and its view.*\nYour result is what you get if you took a and b for one "
     r"tensor when their values are equal", ("equal",)),
    ("check_mul", "one tensor told by data_ptr", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a.data_ptr() == b.data_ptr():
            a.g = 2 * out.g * a
            b.g = 2 * out.g * b
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"on a tensor and its view.*\n.*when they share memory: a view is another object, with "
     r"its own .g; test with `is`", ("ptr",)),
    ("check_mul", "shares swapped", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = out.g * a
        b.g = out.g * b
check_mul(Mul)
""", r"Your result is what you get if you swapped the shares \(a.g is out.g \* b, b.g is "
     r"out.g \* a\), and assigned them with =", ("swapped=",)),
    ("check_mul", "upstream out.g left out", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g, b.g = b.clone(), a.clone()
check_mul(Mul)
""", r"Your result is what you get if you left out the upstream gradient out.g, and assigned",
     ("no_up=",)),
    ("check_mul", "x.g doubled in place on the upstream out.g", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a is b:
            a.g = out.g
            a.g *= 2 * a
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"your Mul's backward changed out.g in place; it should only read it", ()),
    ("check_mul", "the product computed in place on a", """
class Mul(Module):
    def forward(self, a, b):
        return a.mul_(b)

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"your Mul's forward pass changed a in place", ()),
    ("check_mul", "a + b in the forward pass", """
class Mul(Module):
    def forward(self, a, b):
        return a + b

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"should return a \* b.*\nYour result is what you get if you added a and b", ('plus',)),
    ("check_mul", "bwd given one input only", _MUL_FORWARD + """
    def bwd(self, out, a):
        a.g = out.g * a
check_mul(Mul)
""", r"your Mul's backward raised TypeError.*\nHint: .*bwd\(self, out, a, b\)", ('call',)),
    ("check_mul", "a layer that returns a copy of what it stored", _MUL_FORWARD + """
    def __call__(self, a, b):
        return super().__call__(a, b).clone()

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"returned another object than its self.out", ()),
    ("check_mul", "an instance passed instead of the class", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul())
""", r"pass the class itself, check_mul\(Mul\)", ()),
    # -- Exercise 3: outer_bytes ------------------------------------------------------------
    ("check_outer_bytes", "counted entries, not bytes", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"returned 30, not 120 bytes\nYour result is what you get if you counted the entries",
     ("entries",)),
    ("check_outer_bytes", "4 bytes an entry whatever the dtype", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * 4
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"torch.float64\) returned 336, not 672 bytes\n.*you counted 4 bytes an entry, "
     r"float32's, whatever the dtype", ("four",)),
    ("check_outer_bytes", "bits instead of bytes", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"you counted bits, not bytes", ("bits",)),
    ("check_outer_bytes", "the element size of a float32 tensor, whatever the dtype", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.zeros(1).element_size()
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"4 bytes an entry, float32's, whatever the dtype", ("four",)),
    ("check_outer_bytes", "no default dtype", """
def outer_bytes(N, n_in, n_out, dtype):
    return N * n_in * n_out * dtype.itemsize
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"outer_bytes\(50_000, 784, 50\) cannot be called this way: .*'dtype'\nHint: .*"
     r"dtype=torch.float32", ('call',)),
    ("check_outer_bytes", "max_rows divided with /, a fraction of a row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 1e9 / outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is 6377\.55.*, a fraction of a row", ()),
    ("check_outer_bytes", "max_rows a float from 1e9 // ...", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 1e9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is the float 6377\.0, not an int: arithmetic with a float .*int\(\.\.\.\)", ()),
    ("check_outer_bytes", "max_rows a NumPy float from np.floor", """
import numpy as np


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = np.floor(10**9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is the float np.float64\(6377\.0\), not an int", ()),
    ("check_outer_bytes", "max_rows rounded to the nearest row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = round(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6378 does not fit: .*over 1 GB", ()),
    ("check_outer_bytes", "a GiB (2**30 bytes) taken for a GB", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 2**30 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6847 does not fit", ()),
    ("check_outer_bytes", "max_rows well below the limit", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 10**9 // outer_bytes(1, 784, 50) - 1
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6376 fits, but so does 6377", ()),
    ("check_outer_bytes", "a trailing comma makes max_rows a tuple", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 10**9 // outer_bytes(1, 784, 50),
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows, a number of rows, should be an int, but it is a tuple \(\(6377,\)\)", ()),
    ("check_outer_bytes", "max_rows as a string", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = "6377"
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows, a number of rows, should be an int, but it is a str \('6377'\)", ()),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_chain_ok", "an `is` between two .data accesses", """
def chain_ok(model):
    seq = list(model.layers) + [model.loss]
    return all(a.out.data is b.args[0].data for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain.*\nAll nine verdicts fit this mistake: you compared "
     r".data with `is`: each .data is\na new tensor, so `a.data is b.data` is never True; use "
     r"the tensors$", ("data_is",)),
    ("check_chain_ok", "the loss appended to model.layers itself (a name for the same list)", """
def chain_ok(model):
    seq = model.layers
    seq.append(model.loss)
    for a, b in zip(seq, seq[1:]):
        if a.out is not b.args[0]:
            return False
    return True
check_chain_ok(chain_ok)
""", r"^your chain_ok changed the list model.layers \(it held 3 items, now 4\): a name given "
     r"to it is that same list; work on a copy", ()),
    ("check_chain_ok", "the layers' links only, not the loss's", """
def chain_ok(model):
    ls = model.layers
    return all(ls[i].out is ls[i+1].args[0] for i in range(len(ls) - 1))
check_chain_ok(chain_ok)
""", r"\nAll nine verdicts fit this mistake: you left out the last link", ("last",)),
    ("check_chain_ok", "backward run to see where .g flows", """
def chain_ok(model):
    model.loss.backward()
    for layer in reversed(model.layers):
        layer.backward()
    return all(hasattr(l.args[0], "g") for l in model.layers)
check_chain_ok(chain_ok)
""", r"^your chain_ok set model.layers\[0\].w.g; it should only read", ()),
    ("check_mul", "the shares swapped, added with +=", """
class Mul(Module):
    def __call__(self, a, b):
        a.g, b.g = torch.zeros_like(a), torch.zeros_like(b)
        return super().__call__(a, b)
    def forward(self, a, b):
        return a * b
    def bwd(self, out, a, b):
        a.g += out.g * a
        b.g += out.g * b
check_mul(Mul)
""", r"on two tensors.*\nYour result is what you get if you swapped the shares: a.g is out.g",
     ("swapped",)),
    ("check_mul", "out.g left out, added with +=", """
class Mul(Module):
    def __call__(self, a, b):
        a.g, b.g = torch.zeros_like(a), torch.zeros_like(b)
        return super().__call__(a, b)
    def forward(self, a, b):
        return a * b
    def bwd(self, out, a, b):
        a.g += b
        b.g += a
check_mul(Mul)
""", r"\nYour result is what you get if you left out the upstream gradient out.g\.",
     ("no_up",)),
    ("check_mul", "zeroed in forward only where no .g is yet", """
class Mul(Module):
    def forward(self, a, b):
        if not hasattr(a, "g"): a.g = torch.zeros_like(a)
        if not hasattr(b, "g"): b.g = torch.zeros_like(b)
        return a * b
    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"\nYour result is what you get if you added the shares to the .g left from an earlier run",
     ("stale",)),
    ("check_mul", "2 * out.g * a when a is b, = otherwise", """
class Mul(Module):
    def forward(self, a, b):
        return a * b
    def bwd(self, out, a, b):
        if a is b:
            a.g = 2 * out.g * a
        else:
            a.g = out.g * b
            b.g = out.g * a
check_mul(Mul)
""", r"where h feeds two Muls.*\n.*your backward replaced h.g", ("zero_bwd",)),
    ("check_outer_bytes", "4 bytes an entry, and max_rows from it", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * 4
max_rows = 10**9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"you counted 4 bytes an entry", ("four",)),
]

EQUIVALENT = {
    (2, "line 5, swap two arguments: super().__call__(a, b) -> super().__call__(b, a)"):
        "forward(b, a) is b * a = a * b, and bwd(out, b, a) gives each input the same share",
    (3, "line 5, swap two arguments: outer_bytes(1, 784, 50) -> outer_bytes(784, 1, 50)"):
        "a (784, 1, 50) temporary has as many bytes as a (1, 784, 50) one: same max_rows",
}
