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
     r"\(torch.equal, ==\): a copy has equal values, yet is another object"),
    ("check_chain_ok", "equal values with == and .all()", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(bool((a.out == b.args[0]).all()) for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"\nAll nine verdicts fit this mistake: you compared values"),
    ("check_chain_ok", "== between two tensors, as if it were is", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out == b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"your chain_ok raised RuntimeError: Boolean value of Tensor .*\n== compares two "
     r"tensors entry by entry .*`is`"),
    ("check_chain_ok", "the link to the loss left out", """
def chain_ok(model):
    seq = model.layers
    return all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[2\] hands model.loss a copy.*\n.*you left out "
     r"the last link"),
    ("check_chain_ok", "the first link skipped", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0] for a, b in zip(seq[1:], seq[2:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[0\] hands layers\[1\] a copy.*\n.*you "
     r"skipped the first link"),
    ("check_chain_ok", "same memory (data_ptr) taken for the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out.data_ptr() == b.args[0].data_ptr() for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[1\] hands layers\[2\] a view of its output\n"
     r".*you compared memory \(data_ptr\): a view shares it, yet is another object"),
    ("check_chain_ok", "only the link to the loss", """
def chain_ok(model):
    return model.layers[-1].out is model.loss.args[0]
check_chain_ok(chain_ok)
""", r"returned True for .*, where layers\[0\] hands layers\[1\] a copy.*\n.*you tested "
     r"only the link to the loss"),
    ("check_chain_ok", "any link instead of every link", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return any(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"\n.*you returned True when any link holds"),
    ("check_chain_ok", "is, but on the wrong pairs: each layer with itself", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(layer.out is layer.args[0] for layer in seq)
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs than a layer's "
     r"\.out and the next one's \.args\[0\]"),
    ("check_chain_ok", "is, but against the args tuple", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs .*\(args is a "
     r"tuple\)$"),
    ("check_chain_ok", "is, but each layer with the one two places on", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0] for a, b in zip(seq, seq[2:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\nIt judged 3 of the 9 chains wrong\.$"),
    ("check_chain_ok", "the verdict inverted", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return not all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you returned the opposite verdict"),
    ("check_chain_ok", "the question's .inp, which Module layers do not have", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.inp for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"^chain_ok read layer.inp, which Module layers do not have:\nthey keep their inputs "
     r"in layer.args, and the input is layer.args\[0\]$"),
    ("check_chain_ok", "the question's .inp, by index, the loss last", """
def chain_ok(model):
    for k in range(len(model.layers) - 1):
        if model.layers[k].out is not model.layers[k + 1].inp:
            return False
    return model.layers[-1].out is model.loss.inp
check_chain_ok(chain_ok)
""", r"^chain_ok read layer.inp, which Module layers do not have:\n"),
    ("check_chain_ok", ".inp asked of a tensor, not of a layer: not the question's .inp", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0].inp for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"^your chain_ok raised AttributeError: 'Tensor' object has no attribute 'inp'$"),
    ("check_chain_ok", "links read the wrong way round", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.args[0] is b.out for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain, .*\n.*you compared other pairs"),
    ("check_chain_ok", "a list of links instead of one answer", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return [a.out is b.args[0] for a, b in zip(seq, seq[1:])]
check_chain_ok(chain_ok)
""", r"should return True or False, got \[True, True, True\], of type list"),
    ("check_chain_ok", "no return", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"should return True or False, got None"),
    ("check_chain_ok", "repairs the chain instead of judging it", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    for a, b in zip(seq, seq[1:]):
        b.args = (a.out, *b.args[1:])
    return True
check_chain_ok(chain_ok)
""", r"your chain_ok changed the model"),
    ("check_chain_ok", "judged by running model.backward(), which writes .g", """
def chain_ok(model):
    try:
        model.backward()
    except AttributeError:
        return False
    return True
check_chain_ok(chain_ok)
""", r"your chain_ok changed the model: layers\[0\]\.out has a new attribute \.g; "
     r"chain_ok should only look, not run model.backward\(\), which writes .g$"),
    ("check_chain_ok", "each output tagged with a marker attribute", """
def chain_ok(model):
    for i, layer in enumerate(model.layers):
        layer.out.mark = i
    seq = [*model.layers, model.loss]
    return all(getattr(b.args[0], "mark", None) == i for i, b in enumerate(seq[1:]))
check_chain_ok(chain_ok)
""", r"your chain_ok changed the model: layers\[0\]\.out has a new attribute \.mark"),
    ("check_chain_ok", "a tensor of link verdicts, not one", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return torch.tensor([a.out is b.args[0] for a, b in zip(seq, seq[1:])])
check_chain_ok(chain_ok)
""", r"should return True or False, got tensor\(\[True, True, True\]\), of type Tensor"),
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
     r"used =\) after the other Mul had added its share"),
    ("check_mul", "a is b tested, = otherwise", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a is b:
            a.g = 2 * out.g * a
        else:
            a.g = out.g * b
            b.g = out.g * a
check_mul(Mul)
""", r"h.g should be the sum of their shares.*\n.*replaced h.g \(zeroed it, or used =\)"),
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
""", r"h.g should be the sum of their shares.*\n.*used =\) after the other Mul"),
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
""", r"h.g should be the sum of their shares.*\n.*replaced h.g"),
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
""", r"h.g should be the sum of their shares.*\n.*your backward replaced h.g \(zeroed it"),
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
     r"cannot multiply mixed dtypes.\ntorch.zeros_like\(a\) keeps a's dtype"),
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
""", r"on two tensors.*\nYour result is what you get if a.g and b.g are one object"),
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
""", r"your Mul's __call__ returned None: return what super\(\)\.__call__\(a, b\) returns"),
    ("check_mul", "= for both shares", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = out.g * b
        b.g = out.g * a
check_mul(Mul)
""", r"for Mul\(\)\(x, x\).*\nYour result is what you get if the second share replaced the "
     r"first: here a and b are one tensor, with one .g"),
    ("check_mul", "zeroes b.g after adding a's share", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = torch.zeros_like(a)
        a.g += out.g * b
        b.g = torch.zeros_like(b)
        b.g += out.g * a
check_mul(Mul)
""", r"Your result is what you get if the second share replaced the first"),
    ("check_mul", "+= onto whatever .g was there, never zeroed", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = getattr(a, "g", 0) + out.g * b
        b.g = getattr(b, "g", 0) + out.g * a
check_mul(Mul)
""", r"for Mul\(\)\(a, b\) on two tensors.*\nYour result is what you get if you added the "
     r"shares to the .g left from an earlier run"),
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
     r"from an earlier run"),
    ("check_mul", "+= with no .g to add to", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
""", r"your Mul's backward raised AttributeError.*no attribute 'g'\n\+= needs a .g to add "
     r"to: give each .g a zero start before the backward pass"),
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
""", r"your Mul's backward raised AttributeError.*\n\+= needs a .g to add to"),
    ("check_mul", "one tensor told by equal values", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if torch.equal(a, b):
            a.g = b.g = 2 * out.g * a
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"on a tensor and its view.*\nYour result is what you get if you took a and b for one "
     r"tensor: b is a view of a"),
    ("check_mul", "one tensor told by data_ptr", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a.data_ptr() == b.data_ptr():
            a.g = 2 * out.g * a
            b.g = 2 * out.g * b
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"on a tensor and its view.*\n.*yet another object, with its own .g; test with `is`"),
    ("check_mul", "shares swapped", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g = out.g * a
        b.g = out.g * b
check_mul(Mul)
""", r"Your result is what you get if you swapped the shares"),
    ("check_mul", "upstream out.g left out", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g, b.g = b.clone(), a.clone()
check_mul(Mul)
""", r"Your result is what you get if you left out the upstream gradient out.g"),
    ("check_mul", "x.g doubled in place on the upstream out.g", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        if a is b:
            a.g = out.g
            a.g *= 2 * a
        else:
            a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"your Mul's backward changed out.g; it should only read it"),
    ("check_mul", "the product computed in place on a", """
class Mul(Module):
    def forward(self, a, b):
        return a.mul_(b)

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"your Mul's forward pass changed a in place"),
    ("check_mul", "a + b in the forward pass", """
class Mul(Module):
    def forward(self, a, b):
        return a + b

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"should return a \* b.*\nYour result is what you get if you added a and b"),
    ("check_mul", "bwd given one input only", _MUL_FORWARD + """
    def bwd(self, out, a):
        a.g = out.g * a
check_mul(Mul)
""", r"your Mul's backward raised TypeError.*\nHint: .*bwd\(self, out, a, b\)"),
    ("check_mul", "a layer that returns a copy of what it stored", _MUL_FORWARD + """
    def __call__(self, a, b):
        return super().__call__(a, b).clone()

    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul)
""", r"returned another object than its self.out"),
    ("check_mul", "an instance passed instead of the class", _MUL_FORWARD + """
    def bwd(self, out, a, b):
        a.g, b.g = out.g * b, out.g * a
check_mul(Mul())
""", r"pass the class itself, check_mul\(Mul\)"),
    # -- Exercise 3: outer_bytes ------------------------------------------------------------
    ("check_outer_bytes", "counted entries, not bytes", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"returned 30, not 120 bytes: that is the number of entries; times 4 bytes each$"),
    ("check_outer_bytes", "4 bytes an entry whatever the dtype", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * 4
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"torch.float64\) returned 336, not 672 bytes: .*4 bytes an entry; torch.float64 has 8$"),
    ("check_outer_bytes", "bits instead of bytes", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"that is bits, not bytes"),
    ("check_outer_bytes", "the element size of a float32 tensor, whatever the dtype", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.zeros(1).element_size()
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"4 bytes an entry; torch.float64 has 8"),
    ("check_outer_bytes", "no default dtype", """
def outer_bytes(N, n_in, n_out, dtype):
    return N * n_in * n_out * dtype.itemsize
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"outer_bytes\(50_000, 784, 50\) cannot be called this way: .*'dtype'\nHint: .*"
     r"dtype=torch.float32"),
    ("check_outer_bytes", "max_rows divided with /, a fraction of a row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 1e9 / outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is 6377\.55.*, a fraction of a row"),
    ("check_outer_bytes", "max_rows a float from 1e9 // ...", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 1e9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is the float 6377\.0, not an int: arithmetic with a float .*int\(\.\.\.\)"),
    ("check_outer_bytes", "max_rows a NumPy float from np.floor", """
import numpy as np


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = np.floor(10**9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is the float np.float64\(6377\.0\), not an int"),
    ("check_outer_bytes", "max_rows rounded to the nearest row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = round(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6378 does not fit: .*over 1 GB"),
    ("check_outer_bytes", "a GiB (2**30 bytes) taken for a GB", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 2**30 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6847 does not fit"),
    ("check_outer_bytes", "max_rows well below the limit", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 10**9 // outer_bytes(1, 784, 50) - 1
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6376 fits, but so does 6377"),
    ("check_outer_bytes", "a trailing comma makes max_rows a tuple", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = 10**9 // outer_bytes(1, 784, 50),
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows, a number of rows, should be an int, but it is a tuple \(\(6377,\)\)"),
    ("check_outer_bytes", "max_rows as a string", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * dtype.itemsize
max_rows = "6377"
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows, a number of rows, should be an int, but it is a str \('6377'\)"),
]

EQUIVALENT = {
    (2, "line 5, swap two arguments: super().__call__(a, b) -> super().__call__(b, a)"):
        "forward(b, a) is b * a = a * b, and bwd(out, b, a) gives each input the same share",
    (3, "line 5, swap two arguments: outer_bytes(1, 784, 50) -> outer_bytes(784, 1, 50)"):
        "a (784, 1, 50) temporary has as many bytes as a (1, 784, 50) one: same max_rows",
}
