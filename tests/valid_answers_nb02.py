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
    ("check_chain_ok", "np.all wrapped in bool(...)", """
import numpy as np


def chain_ok(model):
    seq = [*model.layers, model.loss]
    return bool(np.all([a.out is b.args[0] for a, b in zip(seq, seq[1:])]))
check_chain_ok(chain_ok)
"""),
    # -- Exercise 2: Mul ---------------------------------------------------------------------
    ("check_mul", "a is b tested, the shares added by hand", """
class Mul(Module):
    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        if a is b:
            a.g = out.g * b + out.g * a
        else:
            a.g = out.g * b
            b.g = out.g * a
check_mul(Mul)
"""),
    ("check_mul", "zeroed in the forward pass, += in bwd", """
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
    ("check_mul", "first share assigned, second added when b is a", """
class Mul(Module):
    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g = out.g * b
        b.g = (b.g if b is a else 0) + out.g * a
check_mul(Mul)
"""),
    ("check_mul", "no Module base: shares summed per object, by id", """
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
        print("shares summed for", len(total), "object(s)")
check_mul(Mul)
"""),
    ("check_mul", "zeros of a's shape and dtype, then +=", """
class Mul(Module):
    def forward(self, a, b):
        return a * b

    def bwd(self, out, a, b):
        a.g = torch.zeros(a.shape, dtype=a.dtype)
        b.g = torch.zeros(b.shape, dtype=b.dtype)
        a.g += out.g * b
        b.g += out.g * a
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
    ("check_outer_bytes", "NumPy arithmetic, wrapped in int(...)", """
import numpy as np


def outer_bytes(N, n_in, n_out, dtype=torch.float32):
    return int(np.prod([N, n_in, n_out])) * torch.finfo(dtype).bits // 8
max_rows = int(np.int64(10**9) // outer_bytes(1, 784, 50))
check_outer_bytes(outer_bytes, max_rows)
"""),
]
