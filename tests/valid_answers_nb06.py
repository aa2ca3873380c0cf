"""Right answers to notebook 06's exercises, written differently from the solutions.

Each must pass its check.
"""

VALID = [
    ("check_carried", "torch.optim.SGD, zero_grad and step", """
def train_carried(W, batches, lr):
    opt = torch.optim.SGD([W], lr=lr)
    h, losses = torch.zeros(W.shape[0]), []
    for x, targ in batches:
        h = h.detach()
        for x_t in x:
            h = torch.tanh(x_t + h @ W)
        loss = (h - targ).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        print(f"loss {loss.item():.4f}")
    return losses
check_carried(train_carried)
"""),
    ("check_carried", "detached at the end of a batch, grad zeroed in place, tensors", """
def train_carried(W, batches, lr):
    h, losses = torch.zeros(len(W)), []
    for x, targ in batches:
        for t in range(x.shape[0]):
            h = (x[t] + h @ W).tanh()
        loss = torch.sum((h - targ) ** 2)
        if W.grad is not None:
            W.grad.zero_()
        loss.backward()
        with torch.no_grad():
            W.sub_(lr * W.grad)
        h = h.detach()
        losses.append(loss.detach())
    return losses
check_carried(train_carried)
"""),
    ("check_carried", "torch.autograd.grad, a tuple of losses", """
def train_carried(W, batches, lr):
    h, losses = torch.zeros(len(W)), ()
    for x, targ in batches:
        h = h.detach().clone()
        for x_t in x:
            h = torch.tanh(x_t + torch.mv(W.T, h))
        loss = ((h - targ) ** 2).sum()
        (g,) = torch.autograd.grad(loss, W)
        with torch.no_grad():
            W.add_(g, alpha=-lr)
        losses += (float(loss),)
    return losses
check_carried(train_carried)
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
