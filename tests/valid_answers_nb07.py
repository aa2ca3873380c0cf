"""Right answers to notebook 07's exercise, written differently from the solution.

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
]
