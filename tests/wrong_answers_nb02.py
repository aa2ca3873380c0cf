"""Plausible wrong answers to notebook 02's exercises; each must fail its check."""

WRONG = [
    # -- Exercise 1: chain_ok ---------------------------------------------------------------
    ("check_chain_ok", "equal values instead of the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(torch.equal(a.out, b.args[0]) for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for a chain .*hands layers\[1\] a copy .*one object \(`is`\)"),
    ("check_chain_ok", "the link to the loss left out", """
def chain_ok(model):
    seq = model.layers
    return all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for a chain .*layers\[2\] hands model.loss a copy"),
    ("check_chain_ok", "the first link skipped", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.args[0] for a, b in zip(seq[1:], seq[2:]))
check_chain_ok(chain_ok)
""", r"returned True for a chain .*whose layers\[0\] hands layers\[1\] a copy"),
    ("check_chain_ok", "same memory (data_ptr) taken for the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out.data_ptr() == b.args[0].data_ptr() for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned True for a chain .*a view of its output \(the same memory, equal data_ptr"),
    ("check_chain_ok", "only the link to the loss", """
def chain_ok(model):
    return model.layers[-1].out is model.loss.args[0]
check_chain_ok(chain_ok)
""", r"returned True for a chain .*layers\[0\] hands layers\[1\] a copy"),
    ("check_chain_ok", "the question's .inp, which Module layers do not have", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.out is b.inp for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"your chain_ok raised AttributeError.*\nHint: .*layer.args\[0\]"),
    ("check_chain_ok", "links read the wrong way round", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(a.args[0] is b.out for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returned False for a whole chain"),
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
    # -- Exercise 2: Sigmoid ----------------------------------------------------------------
    ("check_sigmoid", "forgot the upstream out.g", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = out * (1 - out)
check_sigmoid(Sigmoid)
""", r"inp.g should be out.g \* sigmoid'\(x\).*\nYour result is what you get if you left out "
     r"the upstream gradient out.g"),
    ("check_sigmoid", "sigma'(x) written with x instead of sigma(x)", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = inp * (1 - inp) * out.g
check_sigmoid(Sigmoid)
""", r"Your result is what you get if you used inp \(x itself\) where out"),
    ("check_sigmoid", "sign flipped in sigma'", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = out * (out - 1) * out.g
check_sigmoid(Sigmoid)
""", r"Your result is what you get if you wrote out - 1 where 1 - out belongs"),
    ("check_sigmoid", "sigmoid applied twice in bwd", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        s = torch.sigmoid(out)
        inp.g = s * (1 - s) * out.g
check_sigmoid(Sigmoid)
""", r"inp.g should be out.g \* sigmoid'\(x\)[^\n]*: wrong for inp.g\n(?!Your result)"),
    ("check_sigmoid", "returned the gradient instead of setting inp.g", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        return out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"your Sigmoid's backward did not set inp.g"),
    ("check_sigmoid", "a sign lost in the forward pass", """
class Sigmoid(Module):
    def forward(self, inp):
        return 1 / (1 + torch.exp(inp))

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"forward pass should return sigmoid\(x\).*\nYour result is what you get if you wrote "
     r"exp\(x\) where exp\(-x\) belongs"),
    ("check_sigmoid", "sigmoid in place on the input", """
class Sigmoid(Module):
    def forward(self, inp):
        return inp.sigmoid_()

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"your Sigmoid's forward pass changed inp in place"),
    ("check_sigmoid", "upstream out.g overwritten in place, then copied to inp.g", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        out.g.mul_(out * (1 - out))
        inp.g = out.g.clone()
check_sigmoid(Sigmoid)
""", r"your Sigmoid's backward changed out.g; it should only read it"),
    ("check_sigmoid", "inp.g made the same object as out.g, then scaled in place", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = out.g
        inp.g *= out * (1 - out)
check_sigmoid(Sigmoid)
""", r"your Sigmoid's backward changed out.g"),
    ("check_sigmoid", "forward in float64 whatever the input", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp.double())

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"your Sigmoid returned torch.float64 for a torch.float32 input"),
    ("check_sigmoid", "bwd named backward, overriding Module.backward", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def backward(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"your Sigmoid's backward raised TypeError.*\nHint: .*bwd\(self, out, inp\)"),
    ("check_sigmoid", "a layer that returns a copy of what it stored", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def __call__(self, inp):
        return super().__call__(inp).clone()

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"returned another object than the one it stored as self.out"),
    ("check_sigmoid", "an instance passed instead of the class", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid())
""", r"pass the class itself"),
    # -- Exercise 3: outer_bytes ------------------------------------------------------------
    ("check_outer_bytes", "counted entries, not bytes", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"returned 30, but that temporary takes 120 bytes: that is the number of entries"),
    ("check_outer_bytes", "4 bytes an entry whatever the dtype", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * 4
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"torch.float64\) returned 336, .*4 bytes an entry, true of float32 only"),
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
""", r"4 bytes an entry, true of float32 only"),
    ("check_outer_bytes", "no default dtype", """
def outer_bytes(N, n_in, n_out, dtype):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = 6377
check_outer_bytes(outer_bytes, max_rows)
""", r"raised TypeError.*\nHint: .*dtype=torch.float32"),
    ("check_outer_bytes", "max_rows divided with /, a fraction of a row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = 1e9 / outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is 6377\.55.*, a fraction of a row"),
    ("check_outer_bytes", "max_rows a float from 1e9 // ...", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = 1e9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows is the float 6377\.0; .*with / and with // alike.*int\(\.\.\.\)"),
    ("check_outer_bytes", "max_rows rounded to the nearest row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = round(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6378 does not fit: .*more than 1 GB"),
    ("check_outer_bytes", "a GiB (2**30 bytes) taken for a GB", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = 2**30 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6847 does not fit"),
    ("check_outer_bytes", "max_rows well below the limit", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = int(1e9 // outer_bytes(1, 784, 50)) - 1
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6376 fits, but so does 6377"),
    ("check_outer_bytes", "max_rows as a string", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = "6377"
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows should be a whole number of rows, an int; got a str \('6377'\)"),
]

EQUIVALENT = {
    (3, "line 5, swap two arguments: outer_bytes(1, 784, 50) -> outer_bytes(784, 1, 50)"):
        "a (784, 1, 50) temporary has as many bytes as a (1, 784, 50) one: same max_rows",
}
