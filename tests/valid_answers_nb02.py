"""Right answers to notebook 02's exercises, written differently from the solutions."""

VALID = [
    # -- Exercise 1: chain_ok ---------------------------------------------------------------
    ("check_chain_ok", "indices and an early return", """
def chain_ok(model):
    layers = model.layers
    for k in range(len(layers) - 1):
        if layers[k].out is not layers[k + 1].args[0]:
            return False
    return layers[-1].out is model.loss.args[0]
check_chain_ok(chain_ok)
"""),
    ("check_chain_ok", "id() instead of is", """
def chain_ok(model):
    seq = model.layers + [model.loss]
    return all(id(a.out) == id(b.args[0]) for a, b in zip(seq[:-1], seq[1:]))
check_chain_ok(chain_ok)
"""),
    ("check_chain_ok", "not any broken link, with a print", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    broken = [k for k in range(1, len(seq)) if seq[k].args[0] is not seq[k - 1].out]
    print("broken links:", broken)
    return not broken
check_chain_ok(chain_ok)
"""),
    # -- Exercise 2: Sigmoid ----------------------------------------------------------------
    ("check_sigmoid", "the formula, and sigmoid recomputed in bwd", """
class Sigmoid(Module):
    def forward(self, inp):
        return 1 / (1 + torch.exp(-inp))

    def bwd(self, out, inp):
        s = torch.sigmoid(inp)
        inp.g = out.g * s * (1 - s)
check_sigmoid(Sigmoid)
"""),
    ("check_sigmoid", "out - out**2", """
class Sigmoid(Module):
    def forward(self, inp):
        return inp.sigmoid()

    def bwd(self, out, inp):
        inp.g = out.g * (out - out ** 2)
check_sigmoid(Sigmoid)
"""),
    ("check_sigmoid", "no Module base: its own __call__ and backward", """
class Sigmoid:
    def __call__(self, inp):
        self.inp = inp
        self.out = torch.sigmoid(inp)
        return self.out

    def backward(self):
        self.inp.g = self.out.g * self.out * (1 - self.out)
check_sigmoid(Sigmoid)
"""),
    ("check_sigmoid", "a new Module with its own __init__", """
class Sigmoid(Module):
    def __init__(self):
        self.calls = 0

    def forward(self, inp):
        self.calls += 1
        return torch.sigmoid(inp)

    def bwd(self, out, inp):
        grad = out.g.clone()
        grad *= out * (1 - out)
        inp.g = grad
check_sigmoid(Sigmoid)
"""),
    # -- Exercise 3: outer_bytes ------------------------------------------------------------
    ("check_outer_bytes", "element_size and 10**9 //", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.empty(0, dtype=dtype).element_size()
max_rows = 10**9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "bits / 8, a float number of bytes, and math.floor", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits / 8
max_rows = math.floor(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "a search for the largest N", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return math.prod((N, n_in, n_out)) * dtype.itemsize
max_rows = 0
while outer_bytes(max_rows + 1, 784, 50) <= 1e9:
    max_rows += 1
check_outer_bytes(outer_bytes, max_rows)
"""),
]
