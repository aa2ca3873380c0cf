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
    ("check_chain_ok", "a NumPy bool from np.all", """
import numpy as np


def chain_ok(model):
    seq = [*model.layers, model.loss]
    return np.all([a.out is b.args[0] for a, b in zip(seq, seq[1:])])
check_chain_ok(chain_ok)
"""),
    ("check_chain_ok", "the objects a layer received, compared with what the last returned", """
def chain_ok(model):
    returned = [layer.out for layer in model.layers]
    received = [layer.args[0] for layer in model.layers[1:]] + [model.loss.args[0]]
    return all(r is s for r, s in zip(returned, received))
check_chain_ok(chain_ok)
"""),
    # -- Exercise 2: Mul ---------------------------------------------------------------------
    ("check_mul", "zero start in forward, += in bwd", """
class Mul(Module):
    def forward(self, a, b):
        a.g = torch.zeros_like(a)
        b.g = torch.zeros_like(b)
        return torch.mul(a, b)

    def bwd(self, out, a, b):
        a.g += out.g * b
        b.g += out.g * a
check_mul(Mul)
"""),
    ("check_mul", "zeros of a's shape and dtype in __call__, then a.g = a.g + ...", """
class Mul(Module):
    def __call__(self, a, b):
        a.g = torch.zeros(a.shape, dtype=a.dtype)
        b.g = torch.zeros(b.shape, dtype=b.dtype)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g = a.g + out.g * b
        b.g = b.g + out.g * a
check_mul(Mul)
"""),
    ("check_mul", "no Module base: zero start when called, shares added in backward", """
class Mul:
    def __call__(self, a, b):
        self.a, self.b = a, b
        for t in (a, b):
            t.g = a * 0
        self.out = a * b
        return self.out

    def backward(self):
        self.a.g += self.out.g * self.b
        self.b.g += self.out.g * self.a
        print("shares added")
check_mul(Mul)
"""),
    ("check_mul", "both shares computed first, then added", """
class Mul(Module):
    def __call__(self, a, b):
        a.g, b.g = a.new_zeros(a.shape), b.new_zeros(b.shape)
        return super().__call__(a, b)

    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        share_a, share_b = out.g * b, out.g * a
        a.g.add_(share_a)
        b.g.add_(share_b)
check_mul(Mul)
"""),
    # -- Exercise 3: outer_bytes ------------------------------------------------------------
    ("check_outer_bytes", "element_size and 10**9 //", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.empty(0, dtype=dtype).element_size()
max_rows = 10**9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "bits / 8, a float number of bytes, and math.floor", """
import math


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits / 8
max_rows = math.floor(1e9 / outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "a search for the largest N", """
import math


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return math.prod((N, n_in, n_out)) * dtype.itemsize
max_rows = 0
while outer_bytes(max_rows + 1, 784, 50) <= 1e9:
    max_rows += 1
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "a NumPy int64, from NumPy arithmetic", """
import numpy as np


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return np.prod([N, n_in, n_out]) * dtype.itemsize
max_rows = np.int64(10**9) // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "int(...) around a NumPy division", """
import numpy as np


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return int(np.prod([N, n_in, n_out])) * torch.finfo(dtype).bits // 8
max_rows = int(np.int64(10**9) // outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
"""),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_chain_ok", "a copy of the list, indices, an early return", """
def chain_ok(model):
    layers = model.layers + [model.loss]
    for i in range(len(layers) - 1):
        if not (layers[i].out is layers[i + 1].args[0]):
            return False
    return True
check_chain_ok(chain_ok)
"""),
    ("check_chain_ok", "id() and data_ptr() together", """
def chain_ok(model):
    seq = [*model.layers, model.loss]
    return all(id(a.out) == id(b.args[0]) for a, b in zip(seq, seq[1:])) and \\
        all(a.out.data_ptr() == b.args[0].data_ptr() for a, b in zip(seq, seq[1:]))
check_chain_ok(chain_ok)
"""),
    ("check_mul", "zero start in forward, a.g = a.g + ...", """
class Mul(Module):
    def forward(self, a, b):
        a.g = a * 0
        b.g = b * 0
        return a * b
    def bwd(self, out, a, b):
        a.g = a.g + out.g * b
        b.g = b.g + out.g * a
check_mul(Mul)
"""),
    ("check_outer_bytes", "finfo bits, and int of a float floor division", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.finfo(dtype).bits // 8
max_rows = int(1e9 // outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
"""),
    ("check_outer_bytes", "element_size of an empty tensor", """
def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return N * n_in * n_out * torch.empty(0, dtype=dtype).element_size()
max_rows = 10**9 // outer_bytes(1, 784, 50)
check_outer_bytes(outer_bytes, max_rows)
"""),
]
