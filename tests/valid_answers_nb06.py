"""Right answers to notebook 06's exercises, written differently from the solutions.

Each must pass its check.
"""

VALID = [
    ("check_tbptt", "torch.optim.SGD, split, zero_grad and step, prints", """
def train_tbptt(W, xs, targs, k, lr):
    opt = torch.optim.SGD([W], lr=lr)
    h, losses = torch.zeros(xs.shape[1:]), []
    for x, targ in zip(xs.split(k), targs.split(k)):
        h = h.detach()
        loss = 0
        for x_t, targ_t in zip(x, targ):
            h = torch.tanh(x_t + h @ W)
            loss = loss + (h - targ_t).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        print(f"chunk of {len(x)} steps: loss {loss.item():.4f}")
    return losses
check_tbptt(train_tbptt)
"""),
    ("check_tbptt", "a step counter, detached at the end of a chunk, grad zeroed in place", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses, loss = torch.zeros_like(xs[0]), [], 0
    for t in range(len(xs)):
        h = (xs[t] + torch.matmul(h, W)).tanh()
        loss = loss + torch.sum((h - targs[t]) ** 2)
        if (t + 1) % k == 0 or t == len(xs) - 1:
            if W.grad is not None:
                W.grad.zero_()
            loss.backward()
            with torch.no_grad():
                W.sub_(lr * W.grad)
            losses.append(loss.detach())
            h, loss = h.detach(), 0
    return losses
check_tbptt(train_tbptt)
"""),
    ("check_tbptt", "torch.autograd.grad, a list of per-step losses stacked, a tuple", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = xs[0] * 0, ()
    for start in range(0, xs.shape[0], k):
        h = h.detach().clone()
        per_step = []
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h @ W)
            per_step.append(((h - targ_t) ** 2).sum())
        loss = torch.stack(per_step).sum()
        (g,) = torch.autograd.grad(loss, W)
        with torch.no_grad():
            W.add_(g, alpha=-lr)
        losses += (float(loss),)
    return losses
check_tbptt(train_tbptt)
"""),
    ("check_broken_nodes", "recursion with a set of seen nodes", """
def broken_nodes(loss):
    seen, broken = set(), []

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        saved = [n for n in dir(node) if n.startswith("_saved_")]
        ok = True
        for name in saved:
            try:
                getattr(node, name)
            except RuntimeError as e:
                ok = ok and "inplace" not in str(e)
        if not ok:
            broken.append(node.name())
        for f, _ in node.next_functions:
            visit(f)

    visit(loss.grad_fn)
    return broken
check_broken_nodes(broken_nodes)
"""),
    ("check_broken_nodes", "contextlib.suppress in a helper, any() over the saved names", """
import contextlib


def unreadable(node, name):
    with contextlib.suppress(RuntimeError):
        getattr(node, name)
        return False
    return True


def broken_nodes(loss):
    broken, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        saved = [n for n in dir(node) if n.startswith("_saved_")]
        if any(unreadable(node, name) for name in saved):
            broken.append(node.name())
        stack.extend(f for f, _ in node.next_functions if f)
    return broken
check_broken_nodes(broken_nodes)
"""),
    ("check_broken_nodes", "a queue, any() over the saved attributes, a tuple", """
import collections


def readable(node, name):
    try:
        getattr(node, name)
        return True
    except RuntimeError:
        return False


def broken_nodes(loss):
    queue, seen, broken = collections.deque([loss.grad_fn]), {loss.grad_fn}, []
    while queue:
        node = queue.popleft()
        if any(not readable(node, n) for n in dir(node) if n.startswith("_saved_")):
            broken.append(node.name())
        for f, _ in node.next_functions:
            if f is not None and f not in seen:
                seen.add(f)
                queue.append(f)
    print(len(seen), "nodes")
    return tuple(broken)
check_broken_nodes(broken_nodes)
"""),
    ("check_make_sgd", "nn.ModuleList's parameters()", """
def make_sgd(modules, lr):
    return torch.optim.SGD(nn.ModuleList(modules).parameters(), lr=lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
    ("check_make_sgd", "a loop that skips a tensor seen by identity", """
def make_sgd(modules, lr):
    once = []
    for m in modules:
        for p in m.parameters():
            if not any(p is q for q in once):
                once.append(p)
    return torch.optim.SGD(once, lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
    ("check_make_sgd", "a set of tensors", """
def make_sgd(modules, lr):
    params = set()
    for m in modules:
        params.update(m.parameters())
    return torch.optim.SGD(list(params), lr=lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
    ("check_make_sgd", "one group per module, ids for the ones already taken", """
def make_sgd(modules, lr):
    taken, groups = set(), []
    for m in modules:
        fresh = [p for p in m.parameters() if id(p) not in taken]
        taken.update(id(p) for p in fresh)
        if fresh:
            groups.append({"params": fresh})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_tbptt", "torch.optim.SGD, split, a walrus in a sum", """
def train_tbptt(W, xs, targs, k, lr):
    opt = torch.optim.SGD([W], lr=lr)
    h, losses = torch.zeros_like(xs[0]), []
    for chunk_x, chunk_t in zip(xs.split(k), targs.split(k)):
        h = h.detach()
        loss = sum(((h := torch.tanh(x + h @ W)) - t).pow(2).sum()
                   for x, t in zip(chunk_x, chunk_t))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses
check_tbptt(train_tbptt)
"""),
    ("check_tbptt", "W.data updated, the losses kept as tensors", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        h = h.detach()
        loss = 0
        for t in range(start, min(start + k, len(xs))):
            h = torch.tanh(xs[t] + h @ W)
            loss = loss + ((h - targs[t]) ** 2).sum()
        W.grad = None
        loss.backward()
        W.data -= lr * W.grad
        losses.append(loss)
    return losses
check_tbptt(train_tbptt)
"""),
    ("check_broken_nodes", "recursion, any error caught", """
def broken_nodes(loss):
    broken, seen = [], set()
    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        bad = False
        for a in dir(node):
            if a.startswith("_saved_"):
                try:
                    getattr(node, a)
                except Exception:
                    bad = True
        if bad:
            broken.append(node.name())
        for f, _ in node.next_functions:
            visit(f)
    visit(loss.grad_fn)
    return broken
check_broken_nodes(broken_nodes)
"""),
    ("check_make_sgd", "a set of tensors", """
def make_sgd(modules, lr):
    params = set()
    for m in modules:
        params.update(m.parameters())
    return torch.optim.SGD(list(params), lr=lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
    ("check_make_sgd", "nn.ModuleList's parameters", """
def make_sgd(modules, lr):
    return torch.optim.SGD(nn.ModuleList(modules).parameters(), lr=lr, momentum=0.9)
check_make_sgd(make_sgd)
"""),
]
