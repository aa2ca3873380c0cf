"""Plausible wrong answers to notebook 06's exercises; each must fail its check.

And the automatic mutants of the solutions that are right answers too (EQUIVALENT).
"""

CARRIED = """
def train_carried(W, batches, lr):
    h, losses = torch.zeros(len(W)), []
    for x, targ in batches:
        {start}
        for x_t in x:
            h = torch.tanh(x_t + h @ W)
        loss = {loss}
        {clear}
        loss.backward({backward})
        {update}
        losses.append(loss.item())
    return losses
check_carried(train_carried)
"""
RIGHT = dict(start="h = h.detach()", loss="((h - targ) ** 2).sum()", clear="W.grad = None",
             backward="", update="with torch.no_grad():\n            W -= lr * W.grad")


def carried(**change):
    return CARRIED.format(**{**RIGHT, **change})


BROKEN = """
def broken_nodes(loss):
    broken, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        {skip}
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    getattr(node, name)
                except RuntimeError:
                    {found}
        stack.extend(f for f, _ in node.next_functions if f)
    return {result}
check_broken_nodes(broken_nodes)
"""
RIGHT_BROKEN = dict(skip="if node in seen:\n            continue",
                    found="broken.append(node.name())\n                    break",
                    result="broken")


def broken(**change):
    return BROKEN.format(**{**RIGHT_BROKEN, **change})


SGD = """
def make_sgd(modules, lr):
    params = [p for m in modules for p in m.parameters()]
    {body}
check_make_sgd(make_sgd)
"""

WRONG = [
    ("check_carried", "h carried with its graph: backward runs into the freed batch",
     carried(start="pass"), r"raised RuntimeError: Trying to backward through the graph a "
                            r"second time"),
    ("check_carried", "retain_graph=True instead of detach: W changed since it was saved",
     carried(start="pass", backward="retain_graph=True"),
     r"raised RuntimeError: one of the variables needed for gradient computation has been "
     r"modified by an inplace operation"),
    ("check_carried", "h reset at every batch", carried(start="h = torch.zeros(len(W))"),
     r"Your result is what you get if you started every batch from h = 0"),
    ("check_carried", "W.grad never cleared", carried(clear="pass"),
     r"Your result is what you get if W.grad was never cleared"),
    ("check_carried", "the update recorded by autograd",
     carried(update="W -= lr * W.grad"),
     r"raised RuntimeError: a leaf Variable that requires grad is being used in an in-place "
     r"operation"),
    ("check_carried", "W rebound out of place: the caller's W never moves",
     carried(update="with torch.no_grad():\n            W = W - lr * W.grad"),
     r"does not require grad"),
    ("check_carried", "moved up the gradient",
     carried(update="with torch.no_grad():\n            W += lr * W.grad"),
     r"Your result is what you get if you moved W up the gradient"),
    ("check_carried", "a loss at every time step", """
def train_carried(W, batches, lr):
    h, losses = torch.zeros(len(W)), []
    for x, targ in batches:
        h = h.detach()
        loss = 0
        for x_t in x:
            h = torch.tanh(x_t + h @ W)
            loss = loss + ((h - targ) ** 2).sum()
        W.grad = None
        loss.backward()
        with torch.no_grad():
            W -= lr * W.grad
        losses.append(loss.item())
    return losses
check_carried(train_carried)
""", r"does not train like truncated backprop through time: wrong for losses, W"),
    ("check_carried", "the losses not returned", carried().replace("return losses", "pass"),
     r"should return a list of the 3 batches' losses, but it returned None"),
    ("check_broken_nodes", "a node counted once per path to it",
     broken(skip="pass"), r"once for each path that reaches it"),
    ("check_broken_nodes", "a node listed once per broken saved tensor",
     broken(found="broken.append(node.name())"), r"once for each of its saved tensors"),
    ("check_broken_nodes", "every node that saved something", """
def broken_nodes(loss):
    broken, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if any(name.startswith("_saved_") for name in dir(node)):
            broken.append(node.name())
        stack.extend(f for f, _ in node.next_functions if f)
    return broken
check_broken_nodes(broken_nodes)
""", r"every node with a _saved_ attribute \(a saved size counts too\), not only those"),
    ("check_broken_nodes", "every node that saved a tensor, changed or not", """
def broken_nodes(loss):
    broken, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    value = getattr(node, name)
                except RuntimeError:
                    value = torch.zeros(1)
                if isinstance(value, torch.Tensor):
                    broken.append(node.name())
                    break
        stack.extend(f for f, _ in node.next_functions if f)
    return broken
check_broken_nodes(broken_nodes)
""", r"every node that saved a tensor, not only those"),
    ("check_broken_nodes", "a set of names", broken(result="set(broken)"),
     r"returned a set; return a list, one entry per node"),
    ("check_broken_nodes", "only the last node looked at", broken(result="broken[:1]"),
     r"expected \['ExpBackward0', 'MulBackward0'\]"),
    ("check_broken_nodes", "the walk starts at the loss node's inputs, skipping the loss's node",
     broken().replace("stack = [], set(), [loss.grad_fn]",
                      "stack = [], set(), [f for f, _ in loss.grad_fn.next_functions if f]"),
     r"returned \['ExpBackward0'\], expected \['DotBackward0', 'ExpBackward0'\]\n"
     r"Your result is what you get if your walk skipped the loss's own node, loss.grad_fn"),
    ("check_broken_nodes", "found by running backward", """
def broken_nodes(loss):
    try:
        loss.backward()
    except RuntimeError as e:
        return [str(e).split("output 0 of ")[1].split(",")[0]]
    return []
check_broken_nodes(broken_nodes)
""", r"changed the graph \(did it call backward\?\)"),
    ("check_make_sgd", "the modules' parameters, concatenated",
     SGD.format(body="return torch.optim.SGD(params, lr=lr, momentum=0.9)"),
     r"holds emb.weight 2 times, so each step would move it 2 times"),
    ("check_make_sgd", "duplicates removed by value",
     SGD.format(body="""once = []
    for p in params:
        if not any(q.shape == p.shape and torch.equal(q, p) for q in once):
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"does not hold b.weight: it has the same values as another parameter, but it is "
     r"another tensor"),
    ("check_make_sgd", "duplicates removed by name",
     SGD.format(body="""named = {n: p for m in modules for n, p in m.named_parameters()}
    return torch.optim.SGD(named.values(), lr=lr, momentum=0.9)"""),
     r"does not hold"),
    ("check_make_sgd", "duplicates skipped with `not in` a list: == on tensors",
     SGD.format(body="""once = []
    for p in params:
        if p not in once:
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"raised RuntimeError: The size of tensor a \(\d\) must match(.|\n)*Your code raised it "
     r"in an `in` test: `in` on a list of tensors compares them with ==, elementwise; "
     r"compare identities"),
    ("check_make_sgd", "duplicates skipped with `in` a slice, in a comprehension",
     SGD.format(body="""once = [p for i, p in enumerate(params) if p not in params[:i]]
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"Your code raised it in an `in` test"),
    ("check_make_sgd", "duplicates skipped with any(p == q): == compares values",
     SGD.format(body="""once = []
    for p in params:
        if not any(p == q for q in once):
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"raised RuntimeError: (.|\n)*Hint: it is called as make_sgd\(modules, lr\) with a "
     r"list of modules, and returns a torch.optim.SGD\Z"),
    ("check_make_sgd", "no momentum",
     SGD.format(body="return torch.optim.SGD(list(dict.fromkeys(params)), lr=lr)"),
     r"has a group with lr=0.1 and momentum=0; expected lr=0.1 and momentum=0.9"),
    ("check_make_sgd", "the parameters returned, not an optimizer",
     SGD.format(body="return list(dict.fromkeys(params))"),
     r"should return a torch.optim.SGD, but it returned a list"),
    ("check_make_sgd", "Adam", SGD.format(
        body="return torch.optim.Adam(list(dict.fromkeys(params)), lr=lr)"),
     r"should return a torch.optim.SGD, but it returned an Adam"),
]

EQUIVALENT = {
    (1, "line 6, in-place twin: torch.tanh(x_t + h @ W) -> torch.tanh_(x_t + h @ W)"):
        "tanh_ changes the fresh sum x_t + h @ W, which no node saved (add saves nothing): "
        "the same values and the same gradient",
    (1, "line 7, swap operands: h - targ -> targ - h"):
        "(targ - h) ** 2 is (h - targ) ** 2: the same loss and the same gradient",
}
