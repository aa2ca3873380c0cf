"""Plausible wrong answers to notebook 02's exercises; each must fail its check."""

WRONG = [
    ("check_chain_ok", "equal values instead of the same object", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(torch.equal(a.out, b.args[0]) for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"returns a copy of the output it stored .*compare the objects with `is`"),
    ("check_chain_ok", "the link to the loss left out", """
def chain_ok(model):
    seq = model.layers
    return all(a.out is b.args[0] for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
""", r"last layer returns a copy .*link from the last layer to model.loss"),
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
""", r"should return True or False, got a list"),
    ("check_sigmoid", "forgot the upstream out.g", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = out * (1 - out)
check_sigmoid(Sigmoid)
""", r"inp.g should be out.g \* out \* \(1 - out\)"),
    ("check_sigmoid", "sigma'(x) written with x instead of sigma(x)", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        inp.g = inp * (1 - inp) * out.g
check_sigmoid(Sigmoid)
""", r"inp.g should be out.g \* out \* \(1 - out\).*inp holds x itself"),
    ("check_sigmoid", "returned the gradient instead of setting inp.g", """
class Sigmoid(Module):
    def forward(self, inp):
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        return out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"your Sigmoid's bwd did not set inp.g"),
    ("check_sigmoid", "a sign lost in the forward pass", """
class Sigmoid(Module):
    def forward(self, inp):
        return 1 / (1 + torch.exp(inp))

    def bwd(self, out, inp):
        inp.g = out * (1 - out) * out.g
check_sigmoid(Sigmoid)
""", r"forward pass should compute 1 / \(1 \+ exp\(-x\)\)"),
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
    ("check_outer_bytes", "max_rows divided with /, a fraction of a row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = 1e9 / outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows should be a whole number of rows \(an int\), got 6377\.55"),
    ("check_outer_bytes", "max_rows rounded to the nearest row", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = round(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6378 does not fit: .*more than 1 GB"),
    ("check_outer_bytes", "max_rows well below the limit", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = int(1e9 // outer_bytes(1, 784, 50)) - 1
check_outer_bytes(outer_bytes, max_rows)
""", r"max_rows = 6376 fits, but so does 6377"),
]
