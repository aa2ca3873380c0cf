"""Right answers to notebook 07's exercises, written differently from the solution.

Each must pass its check.
"""

VALID = [
    ("check_checkpointed", "the depth as an argument of the checkpointed function", """
def forward_checkpointed(net, x, use_reentrant):
    def middle(h, depth):
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return h

    depth = random.randint(0, 3)
    h = net.input_linear(x).clamp(min=0)
    return net.output_linear(checkpoint(middle, h, depth, use_reentrant=use_reentrant))
check_checkpointed(forward_checkpointed)
"""),
    ("check_checkpointed", "each use checkpointed on its own, relu, random.choice", """
def forward_checkpointed(net, x, use_reentrant):
    h = net.input_linear(x).relu()
    for _ in range(random.choice(range(4))):
        h = checkpoint(lambda t: net.middle_linear(t).relu(), h,
                       use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
"""),
    ("check_checkpointed", "functools.partial, a keyword argument, prints", """
import functools


def run_middle(layer, h, depth):
    for _ in range(depth):
        h = torch.clamp(layer(h), min=0)
    return h


def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)
    print("depth", depth)
    part = functools.partial(run_middle, net.middle_linear, depth=depth)
    h = checkpoint(part, net.input_linear(x).clamp(min=0),
                   use_reentrant=use_reentrant, preserve_rng_state=False)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
"""),
    ("check_checkpointed", "the middle and the last layer checkpointed together", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)

    def rest(h):
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return net.output_linear(h)

    return checkpoint(rest, net.input_linear(x).clamp(min=0),
                      use_reentrant=use_reentrant)
check_checkpointed(forward_checkpointed)
"""),
    ("check_ddp_grad", "materialize_grads, the mean of the stacked gradients", """
def ddp_grad(model, batches, depths):
    w = model.middle_linear.weight
    grads = []
    for (x, y), depth in zip(batches, depths):
        loss = ((model(x, depth) - y) ** 2).sum()
        grads.append(torch.autograd.grad(loss, w, materialize_grads=True)[0])
    return torch.stack(grads).mean(0)
check_ddp_grad(ddp_grad)
"""),
    ("check_ddp_grad", "the notebook's replay into .grad, copied, then cleared", """
def ddp_grad(model, batches, depths):
    for (x, y), depth in zip(batches, depths):
        (((model(x, depth) - y) ** 2).sum() / len(batches)).backward()
    g = model.middle_linear.weight.grad
    model.zero_grad()
    return g
check_ddp_grad(ddp_grad)
"""),
    ("check_ddp_grad", "a copy of the model, rows summed with mse_loss", """
import copy

import torch.nn.functional as F


def ddp_grad(model, batches, depths):
    twin = copy.deepcopy(model)
    for (x, y), depth in zip(batches, depths):
        F.mse_loss(twin(x, depth), y, reduction="sum").backward()
    return twin.middle_linear.weight.grad / len(depths)
check_ddp_grad(ddp_grad)
"""),
    ("check_ddp_grad", "ranks at depth 0 skipped, the division by all of them", """
def ddp_grad(model, batches, depths):
    w = model.middle_linear.weight
    total = 0
    for (x, y), depth in zip(batches, depths):
        if depth == 0:
            continue
        out = model(x, depth)
        total = total + torch.autograd.grad((out - y).pow(2).sum(), w)[0]
    return total / len(batches)
check_ddp_grad(ddp_grad)
"""),
    ("check_ddp_grad", "one autograd.grad through the mean of the ranks' losses", """
def ddp_grad(model, batches, depths):
    losses = [((model(x, d) - y) ** 2).sum() for (x, y), d in zip(batches, depths)]
    return torch.autograd.grad(sum(losses) / len(losses), model.middle_linear.weight)[0]
check_ddp_grad(ddp_grad)
"""),
]

# Unseen answers, written as new learners write them (issue 30's trial).
VALID += [
    ("check_checkpointed", "each use under a checkpoint of its own, relu", """
def forward_checkpointed(net, x, use_reentrant):
    h = net.input_linear(x).relu()
    for _ in range(random.randint(0, 3)):
        h = checkpoint(lambda t: net.middle_linear(t).relu(), h, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
"""),
    ("check_ddp_grad", "backward into .grad, read, then zero_grad", """
def ddp_grad(model, batches, depths):
    w = model.middle_linear.weight
    for (x, y), d in zip(batches, depths):
        ((model(x, d) - y) ** 2).sum().backward()
    g = w.grad / len(batches)
    model.zero_grad()
    return g
check_ddp_grad(ddp_grad)
"""),
]
