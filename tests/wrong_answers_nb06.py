"""Plausible wrong answers to notebook 06's exercises; each must fail its check.

And the automatic mutants of the solutions that are right answers too (EQUIVALENT).
"""

TBPTT = """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        {start}
        loss = 0
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h @ W)
            loss = {loss}
        {clear}
        loss.backward({backward})
        {update}
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
"""
RIGHT = dict(start="h = h.detach()", loss="loss + ((h - targ_t) ** 2).sum()",
             clear="W.grad = None", backward="",
             update="with torch.no_grad():\n            W -= lr * W.grad")


def tbptt(**change):
    return TBPTT.format(**{**RIGHT, **change})


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
    ("check_tbptt", "h carried with its graph: backward runs into the freed chunk",
     tbptt(start="pass"),
     r"\Ayour train_tbptt\(W, xs, targs, k=3, lr=0.05\) raised RuntimeError: "
     r"Trying to backward through the graph a second time \(or directly access saved "
     r"tensors after they have already been freed\)\.\nh still carries the graph of the "
     r"previous chunk, whose backward freed it: carry h.detach\(\) into the next chunk "
     r"\(section 3\)\Z", ('backward_twice',)),
    ("check_tbptt", "retain_graph=True instead of detach: W changed since it was saved",
     tbptt(start="pass", backward="retain_graph=True"),
     r"raised RuntimeError: one of the variables needed for gradient computation has been "
     r"modified by an inplace operation(.|\n)*\nW, which the previous chunk's nodes saved, "
     r"was changed by the update: instead of retaining the graph, carry h.detach\(\)",
     ('inplace_saved',)),
    ("check_tbptt", "h reset at every chunk", tbptt(start="h = torch.zeros_like(xs[0])"),
     r"Your result is what you get if you started every chunk from h = 0", ('h0',)),
    ("check_tbptt", "W.grad never cleared", tbptt(clear="pass"),
     r"Your result is what you get if W.grad was never cleared", ('not_cleared',)),
    ("check_tbptt", "the update recorded by autograd",
     tbptt(update="W -= lr * W.grad"),
     r"raised RuntimeError: a leaf Variable that requires grad is being used in an in-place "
     r"operation.\nthe update of W, a leaf that requires grad, was recorded: run it under "
     r"torch.no_grad\(\) \(section 4\)\Z", ('leaf_inplace',)),
    ("check_tbptt", "W rebound out of place: the next chunk's loss is not recorded",
     tbptt(update="with torch.no_grad():\n            W = W - lr * W.grad"),
     r"the loss was not recorded by autograd: it must come from the W you were given; "
     r"W = W - ... makes a new tensor", ('no_grad_fn',)),
    ("check_tbptt", "moved up the gradient",
     tbptt(update="with torch.no_grad():\n            W += lr * W.grad"),
     r"Your result is what you get if you moved W up the gradient", ('up',)),
    ("check_tbptt", "the loss of the chunk's last step only",
     tbptt(loss="((h - targ_t) ** 2).sum()"),
     r"Your result is what you get if the loss was taken at the chunk's last step only",
     ('last_only',)),
    ("check_tbptt", "h detached at every step", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        loss = 0
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h.detach() @ W)
            loss = loss + ((h - targ_t) ** 2).sum()
        W.grad = None
        loss.backward()
        with torch.no_grad():
            W -= lr * W.grad
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
""", r"Your result is what you get if h was detached at every step", ('every_step',)),
    ("check_tbptt", "a mean per step", tbptt(loss="loss + ((h - targ_t) ** 2).mean()"),
     r"Your result is what you get if each step's loss was a mean", ('mean',)),
    ("check_tbptt", "the shorter last chunk dropped",
     tbptt().replace("range(0, len(xs), k)", "range(0, len(xs) - k + 1, k)"),
     r"returned 2 losses; a stream of 7 steps in chunks of 3 has 3 chunks \(the last of "
     r"1 step\): one loss a chunk\Z", ()),
    ("check_tbptt", "k chunks instead of chunks of k steps", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = torch.zeros_like(xs[0]), []
    for x, targ in zip(xs.chunk(k), targs.chunk(k)):
        h = h.detach()
        loss = 0
        for x_t, targ_t in zip(x, targ):
            h = torch.tanh(x_t + h @ W)
            loss = loss + ((h - targ_t) ** 2).sum()
        W.grad = None
        loss.backward()
        with torch.no_grad():
            W -= lr * W.grad
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
""", r"returned 2 losses; a stream of 6 steps in chunks of 2 has 3 chunks: one loss a "
     r"chunk\nxs.chunk\(2\) makes 2 chunks; chunks of 2 steps each are xs.split\(2\)", ()),
    ("check_tbptt", "autograd.grad, then W rebound to a new leaf", """
def train_tbptt(W, xs, targs, k, lr):
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        h = h.detach()
        loss = 0
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h @ W)
            loss = loss + ((h - targ_t) ** 2).sum()
        (g,) = torch.autograd.grad(loss, W)
        W = (W - lr * g).detach().requires_grad_()
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
""", r"trained a new tensor, not the W it was given: W = \.\.\. rebinds the name; update W "
     r"in place", ('rebound',)),
    ("check_tbptt", "zero_grad between backward and step: the step moves nothing", """
def train_tbptt(W, xs, targs, k, lr):
    opt = torch.optim.SGD([W], lr=lr)
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        h = h.detach()
        loss = 0
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h @ W)
            loss = loss + ((h - targ_t) ** 2).sum()
        loss.backward()
        opt.zero_grad()
        opt.step()
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
""", r"trains differently: wrong for losses, W\nYour result is what you get if W never moved: "
     r"the update is missing, or the gradient was cleared before it used it", ("still",)),
    ("check_tbptt", "W.grad = None between backward and the update",
     tbptt(clear="", update="W.grad = None\n        with torch.no_grad():\n"
                            "            W -= lr * W.grad"),
     r"raised TypeError: unsupported operand type\(s\) for \*: 'float' and 'NoneType'\.?\n"
     r"a \.grad was None when the update read it: clear it before backward\(\), not "
     r"between backward\(\) and the update\Z", ('none_read',)),
    ("check_tbptt", "W rebound out of place, without no_grad",
     tbptt(update="W = W - lr * W.grad"),
     r"read \.grad of a tensor that is not a leaf, which is None: if it was W, W = W - \.\.\. "
     r"made it a new tensor; update W in place under torch.no_grad\(\) \(section 4\)\Z",
     ('nonleaf_grad',)),
    ("check_tbptt", "a chunk sliced xs[start:k]: empty after the first",
     tbptt().replace("zip(xs[start:start + k], targs[start:start + k])",
                     "zip(xs[start:k], targs[start:k])"),
     r"raised AttributeError: 'int' object has no attribute 'backward'\.?\n"
     r"the loss was still the number 0 at backward\(\): a chunk had no steps, or the "
     r"loop never added into loss\Z", ('zero_loss',)),
    ("check_tbptt", "W.grad zeroed in place, but not yet there before the first backward",
     tbptt(clear="W.grad.zero_()"),
     r"raised AttributeError: 'NoneType' object has no attribute 'zero_'\.?\n"
     r"a \.grad is None until a backward fills it: zero it only when it is not None, or "
     r"set W.grad = None instead\Z", ('zero_none',)),
    ("check_tbptt", "W.grad zeroed in place between backward and the update",
     tbptt(clear="", update="W.grad.zero_()\n        with torch.no_grad():\n"
                            "            W -= lr * W.grad"),
     r"\nYour result is what you get if W never moved", ("still",)),
    ("check_tbptt", "torch.optim.SGD with the tutorial's momentum", """
def train_tbptt(W, xs, targs, k, lr):
    opt = torch.optim.SGD([W], lr=lr, momentum=0.9)
    h, losses = torch.zeros_like(xs[0]), []
    for start in range(0, len(xs), k):
        h = h.detach()
        loss = 0
        for x_t, targ_t in zip(xs[start:start + k], targs[start:start + k]):
            h = torch.tanh(x_t + h @ W)
            loss = loss + ((h - targ_t) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
check_tbptt(train_tbptt)
""", r"Your result is what you get if the update used momentum 0.9, where plain SGD was asked",
     ('momentum',)),
    ("check_tbptt", "h's shape hard-coded to the first stream", tbptt().replace(
        "torch.zeros_like(xs[0]), []", "torch.zeros(2, 3), []"),
     r"raised RuntimeError: (.|\n)*\nThe sizes change from case to case: take h's shape "
     r"from xs \(torch.zeros_like\(xs\[0\]\)\)\Z", ('sizes',)),
    ("check_tbptt", "the losses not returned", tbptt().replace("return losses", "pass"),
     r"^your train_tbptt\(W, xs, targs, k=3, lr=0.05\) returned None\nIt should return the 3 "
     r"chunks' losses, a list of numbers \(loss.item\(\)\)$", ()),
    ("check_tbptt", "xs changed in place", tbptt().replace(
        "h = torch.tanh(x_t + h @ W)", "h = torch.tanh(x_t.mul_(0.5) + h @ W)"),
     r"changed xs in place", ()),
    ("check_broken_nodes", "a node counted once per path to it",
     broken(skip="pass"), r"once for each path that reaches it", ('paths',)),
    ("check_broken_nodes", "nodes told apart by name: one of two MmBackward0 never seen",
     broken(skip="if node.name() in seen:\n            continue\n        seen.add(node.name())"),
     r"\nYour result is what you get if nodes are told apart by name\(\): two nodes can "
     r"share one: list a name once per broken node, and remember nodes, not names, as "
     r"seen\.\Z", ('by_name',)),
    ("check_broken_nodes", "the names deduplicated with a set", broken(result="list(set(broken))"),
     r"returned \['ExpBackward0', 'MulBackward0'\], expected \['ExpBackward0', 'MulBackward0', "
     r"'MulBackward0'\]\nYour result is what you get if nodes are told apart by name\(\)",
     ('by_name',)),
    ("check_broken_nodes", "only _saved_self, _other and _result read: addmm's mat1 missed",
     broken().replace('if name.startswith("_saved_"):',
                      'if name in ("_saved_self", "_saved_other", "_saved_result"):'),
     r"returned \['ReluBackward0'\], expected \['AddmmBackward0', 'ReluBackward0'\]\Z", ()),
    ("check_broken_nodes", "None in next_functions followed",
     broken().replace("for f, _ in node.next_functions if f)", "for f, _ in node.next_functions)"),
     r"raised AttributeError: 'NoneType' object has no attribute '(_|\w)+'\.?\n"
     r"next_functions holds None for an input that needs no gradient: skip it "
     r"\(if f is not None\)\Z", ('none_next',)),
    ("check_broken_nodes", "a node listed once per broken saved tensor",
     broken(found="broken.append(node.name())"), r"once for each of its saved tensors",
     ('per_tensor',)),
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
""", r"every node with a _saved_ attribute \(a saved size counts too\), not only those",
     ('attr_any',)),
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
""", r"every node that saved a tensor, not only those", ('saved_any',)),
    ("check_broken_nodes", "contextlib.suppress with the two returns swapped", """
import contextlib


def unreadable(node, name):
    with contextlib.suppress(RuntimeError):
        getattr(node, name)
        return True
    return False


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
""", r"returned \['MulBackward0', 'SumBackward0'\], expected \['SigmoidBackward0'\]", ()),
    ("check_broken_nodes", "the saved attributes read without catching the error", """
def broken_nodes(loss):
    broken, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_") and getattr(node, name) is None:
                broken.append(node.name())
        stack.extend(f for f, _ in node.next_functions if f)
    return broken
check_broken_nodes(broken_nodes)
""", r"\Ayour broken_nodes\(loss\), for the sigmoid of section 2, raised RuntimeError: one "
     r"of the variables needed for gradient computation has been modified by an inplace "
     r"operation(.|\n)*\nreading a saved tensor that was changed raises this error: catch "
     r"it \(try: \.\.\. except RuntimeError:\) and list that node as broken\Z", ('inplace_saved',)),
    ("check_broken_nodes", "a set of names", broken(result="set(broken)"),
     r"returned a set; return a list, one entry per node", ()),
    ("check_broken_nodes", "only the last node looked at", broken(result="broken[:1]"),
     r"expected \['ExpBackward0', 'MulBackward0'\]", ()),
    ("check_broken_nodes", "the walk starts at the loss node's inputs, skipping the loss's node",
     broken().replace("stack = [], set(), [loss.grad_fn]",
                      "stack = [], set(), [f for f, _ in loss.grad_fn.next_functions if f]"),
     r"returned \['ExpBackward0'\], expected \['DotBackward0', 'ExpBackward0'\]\n"
     r"Your result is what you get if your walk skipped the loss's own node, loss.grad_fn",
     ('root',)),
    ("check_broken_nodes", "found by running backward", """
def broken_nodes(loss):
    try:
        loss.backward()
    except RuntimeError as e:
        return [str(e).split("output 0 of ")[1].split(",")[0]]
    return []
check_broken_nodes(broken_nodes)
""", r"ran a backward through the loss\nbroken_nodes must not call backward", ("backward",)),
    ("check_broken_nodes", "backward called to find the broken node, uncaught", """
def broken_nodes(loss):
    loss.backward()
    return []
check_broken_nodes(broken_nodes)
""", r"\Ayour broken_nodes\(loss\), for the sigmoid of section 2, raised RuntimeError: one "
     r"of the variables needed for gradient computation has been modified by an inplace "
     r"operation(.|\n)*\nYour function called backward, which raised this error: "
     r"broken_nodes must not call backward; read each node's _saved_ attributes instead\Z",
     ('backward',)),
    ("check_broken_nodes", "backward with retain_graph=True, to keep the graph", """
def broken_nodes(loss):
    loss.backward(retain_graph=True)
    return []
check_broken_nodes(broken_nodes)
""", r"\nYour function called backward, which raised this error: broken_nodes must not "
     r"call backward", ('backward',)),
    ("check_make_sgd", "one parameter group a module: a tied tensor in two groups",
     SGD.format(body="return torch.optim.SGD([{\"params\": m.parameters()} for m in modules], "
                     "lr=lr)"),
     r"raised ValueError: some parameters appear in more than one parameter group\.?\n"
     r"a tied tensor in two parameter groups is refused \(section 6\): list each tensor "
     r"once, in one group\Z", ('groups',)),
    ("check_make_sgd", "the modules' parameters, concatenated",
     SGD.format(body="return torch.optim.SGD(params, lr=lr, momentum=0.9)"),
     r"holds emb.weight 2 times, so each step would move it 2 times", ()),
    ("check_make_sgd", "duplicates removed by value",
     SGD.format(body="""once = []
    for p in params:
        if not any(q.shape == p.shape and torch.equal(q, p) for q in once):
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"does not hold b.weight: it has the same values as another parameter, but it is "
     r"another tensor", ()),
    ("check_make_sgd", "duplicates removed by name",
     SGD.format(body="""named = {n: p for m in modules for n, p in m.named_parameters()}
    return torch.optim.SGD(named.values(), lr=lr, momentum=0.9)"""),
     r"does not hold", ()),
    ("check_make_sgd", "duplicates skipped with `not in` a list: == on tensors",
     SGD.format(body="""once = []
    for p in params:
        if p not in once:
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"raised RuntimeError: The size of tensor a \(\d\) must match(.|\n)*Your code raised it "
     r"in an `in` test: `in` on a list of tensors compares them with ==, elementwise; "
     r"compare identities", ('in_test',)),
    ("check_make_sgd", "duplicates skipped with `in` a slice, in a comprehension",
     SGD.format(body="""once = [p for i, p in enumerate(params) if p not in params[:i]]
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"Your code raised it in an `in` test", ('in_test',)),
    ("check_make_sgd", "duplicates skipped with any(p == q): == compares values",
     SGD.format(body="""once = []
    for p in params:
        if not any(p == q for q in once):
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"raised RuntimeError: Boolean value of Tensor with more than one value is ambiguous\n"
     r"A tensor was used as True or False: == between tensors compares them entry by entry",
     ('ambiguous',)),
    ("check_make_sgd", "no momentum",
     SGD.format(body="return torch.optim.SGD(list(dict.fromkeys(params)), lr=lr)"),
     r"has a group with lr=0.1 and momentum=0; expected lr=0.1 and momentum=0.9", ()),
    ("check_make_sgd", "a tied weight untied: a copy of it put in the module", SGD.format(
        body="""for m in modules:
        if isinstance(m, nn.Linear) and m.weight.shape[0] != m.weight.shape[1]:
            m.weight = nn.Parameter(m.weight.detach().clone())
    return torch.optim.SGD(nn.ModuleList(modules).parameters(), lr=lr, momentum=0.9)"""),
     r"replaced head.weight with another tensor: leave it as it was", ()),
    ("check_make_sgd", "a hook left on a module", SGD.format(
        body="""modules[0].register_forward_hook(lambda m, i, o: None)
    return torch.optim.SGD(list(dict.fromkeys(params)), lr=lr, momentum=0.9)"""),
     r"left a hook on emb: remove each hook", ()),
    ("check_make_sgd", "the parameters returned, not an optimizer",
     SGD.format(body="return list(dict.fromkeys(params))"),
     r"should return a torch.optim.SGD, but it returned a list\Z", ()),
    ("check_make_sgd", "Adam", SGD.format(
        body="return torch.optim.Adam(list(dict.fromkeys(params)), lr=lr)"),
     r"should return a torch.optim.SGD, but it returned an Adam", ()),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_tbptt", "W rebound to a new leaf after each update", tbptt(
        clear="", update="W = (W - lr * W.grad).detach().requires_grad_()"),
     r"trained a new tensor, not the W it was given: W = ... rebinds the name", ("rebound",)),
    ("check_tbptt", "h reset at every chunk, with k = 1 among the cases", tbptt(
        start="h = torch.zeros_like(xs[0])"),
     r"\nYour result is what you get if you started every chunk from h = 0", ("h0",)),
    ("check_broken_nodes", "backward tried and its error message read", BROKEN.replace(
        "{skip}", "").format(**{**RIGHT_BROKEN, "skip": ""}).replace(
        "    broken, seen, stack = [], set(), [loss.grad_fn]", """    try:
        loss.backward(retain_graph=True)
        return []
    except RuntimeError as e:
        return [str(e).split("output 0 of ")[1].split("]")[0]]
    broken, seen, stack = [], set(), [loss.grad_fn]"""),
     r"ran a backward through the loss\nbroken_nodes must not call backward", ("backward",)),
    ("check_broken_nodes", "only _saved_self and _saved_other read", BROKEN.replace(
        "for name in dir(node):", 'for name in ("_saved_self", "_saved_other"):').replace(
        "if name.startswith(\"_saved_\"):", "if hasattr(node, name):").format(**RIGHT_BROKEN),
     r"for the sigmoid of section 2, returned \[\], expected \['SigmoidBackward0'\]$", ()),
    ("check_make_sgd", "duplicates skipped by an `is` between .data accesses",
     SGD.format(body="""once = []
    for p in params:
        if not any(p.data is q.data for q in once):
            once.append(p)
    return torch.optim.SGD(once, lr=lr, momentum=0.9)"""),
     r"holds emb.weight 2 times.*\nYou compared .data with `is`: .data makes a new tensor at "
     r"every access", ("data_is",)),
]

EQUIVALENT = {
    (1, "line 2, change a number: 0 -> 1"):
        "torch.zeros_like(xs[1]) has the shape of xs[0]: every step of a stream has one shape",
    (1, "line 2, change a number: 0 -> -1"):
        "torch.zeros_like(xs[-1]) has the shape of xs[0]: every step of a stream has one shape",
    (1, "line 7, in-place twin: torch.tanh(x_t + h @ W) -> torch.tanh_(x_t + h @ W)"):
        "tanh_ changes the fresh sum x_t + h @ W, which no node saved (add saves nothing): "
        "the same values and the same gradient",
    (1, "line 8, swap operands: h - targ_t -> targ_t - h"):
        "(targ_t - h) ** 2 is (h - targ_t) ** 2: the same loss and the same gradient",
}
