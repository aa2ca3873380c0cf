"""Plausible wrong answers to notebook 07's exercise; each must fail its check.

And the automatic mutants of the solution that are right answers too (EQUIVALENT).
"""

FORWARD = """
def forward_checkpointed(net, x, use_reentrant):
    depth = {depth}

    def middle(h):
        for _ in range({uses}):
            h = {layer}
        return h

    h = {first}
    h = {middle}
    return {last}
check_checkpointed(forward_checkpointed)
"""
RIGHT = dict(depth="random.randint(0, 3)", uses="depth",
             layer="net.middle_linear(h).clamp(min=0)",
             first="net.input_linear(x).clamp(min=0)",
             middle="checkpoint(middle, h, use_reentrant=use_reentrant)",
             last="net.output_linear(h)")


def forward(**change):
    return FORWARD.format(**{**RIGHT, **change})


WHAT = r"\Ayour forward_checkpointed\(net, x, use_reentrant={}\) after random\.seed\({}\)"
INSIDE = (r"\nHere the depth is drawn inside the checkpointed function, so the rerun in "
          r"backward draws another one \(section 1\): draw it once, before checkpoint\Z")

WRONG = [
    ("check_checkpointed", "the whole net checkpointed: its forward draws the depth", """
def forward_checkpointed(net, x, use_reentrant):
    return checkpoint(net, x, use_reentrant=use_reentrant)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r": backward raised CheckpointError, and drew from "
     r"Python's random again" + INSIDE),
    ("check_checkpointed", "the depth drawn inside the checkpointed function", """
def forward_checkpointed(net, x, use_reentrant):
    def middle(h):
        for _ in range(random.randint(0, 3)):
            h = net.middle_linear(h).clamp(min=0)
        return h

    h = net.input_linear(x).clamp(min=0)
    return net.output_linear(checkpoint(middle, h, use_reentrant=use_reentrant))
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r": backward drew from Python's random again" + INSIDE),
    ("check_checkpointed", "07 §1's middle with its depth left to draw inside", """
def forward_checkpointed(net, x, use_reentrant):
    def middle(h, depth=None):
        if depth is None:
            depth = random.randint(0, 3)
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return h

    h = net.input_linear(x).clamp(min=0)
    h = checkpoint(middle, h, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r": backward drew from Python's random again" + INSIDE),
    ("check_checkpointed", "no checkpoint at all", forward(middle="middle(h)"),
     WHAT.format("False", 4) + r": backward never ran middle_linear again, so its uses "
     r"are not under checkpoint; run them in checkpoint\(f, h, \.\.\., "
     r"use_reentrant=use_reentrant\)\Z"),
    ("check_checkpointed", "only the first use checkpointed", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)
    h = net.input_linear(x).clamp(min=0)
    for i in range(depth):
        if i == 0:
            h = checkpoint(lambda t: net.middle_linear(t).clamp(min=0), h,
                           use_reentrant=use_reentrant)
        else:
            h = net.middle_linear(h).clamp(min=0)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 9) + r": backward ran middle_linear again 1 of its 3 uses; put "
     r"every use under checkpoint\Z"),
    ("check_checkpointed", "use_reentrant=True written in",
     forward(middle="checkpoint(middle, h, use_reentrant=True)"),
     WHAT.format("False", 4) + r" ran the reentrant kind of checkpoint \(its graph has a "
     r"CheckpointFunctionBackward node\): pass use_reentrant=use_reentrant on to "
     r"checkpoint\Z"),
    ("check_checkpointed", "use_reentrant left out (the reentrant kind, with a warning)",
     forward(middle="checkpoint(middle, h)"),
     WHAT.format("False", 4) + r" ran the reentrant kind of checkpoint(.|\n)*\Z"),
    ("check_checkpointed", "use_reentrant=False written in",
     forward(middle="checkpoint(middle, h, use_reentrant=False)"),
     WHAT.format("True", 4) + r" ran the non-reentrant kind of checkpoint \(its graph has "
     r"no CheckpointFunctionBackward node\): pass use_reentrant=use_reentrant on to "
     r"checkpoint\Z"),
    ("check_checkpointed", "the whole net checkpointed from x, depth passed in", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)
    return checkpoint(net, x, depth, use_reentrant=use_reentrant)
check_checkpointed(forward_checkpointed)
""", WHAT.format("True", 4) + r" returned an output that does not require grad\nWith "
     r"use_reentrant=True, checkpoint's output requires grad only if an input does, and x "
     r"does not: checkpoint from input_linear's output\Z"),
    ("check_checkpointed", "the depth from torch.randint",
     forward(depth="int(torch.randint(0, 4, ()))"),
     WHAT.format("False", 4) + r" drew nothing from Python's random: draw the depth as "
     r"DynamicNet does, random\.randint\(0, 3\), once a call\Z"),
    ("check_checkpointed", "a fixed depth", forward(depth="2"),
     r"drew nothing from Python's random"),
    ("check_checkpointed", "random.randint(0, 2): the same state, another depth",
     forward(depth="random.randint(0, 2)"),
     WHAT.format("False", 4) + r" ran middle_linear 0 times, but random\.randint\(0, 3\) "
     r"drew depth 1: run it depth times\Z"),
    ("check_checkpointed", "random.randint(0, 4)", forward(depth="random.randint(0, 4)"),
     WHAT.format("False", 5) + r" did not draw from Python's random as one "
     r"random\.randint\(0, 3\) does: draw the depth so, once a call\Z"),
    ("check_checkpointed", "the depth drawn twice", forward(
        depth="random.randint(0, 3)\n    random.randint(0, 3)"),
     r"did not draw from Python's random as one random\.randint\(0, 3\) does"),
    ("check_checkpointed", "one use too many", forward(uses="depth + 1"),
     WHAT.format("False", 4) + r" ran middle_linear 2 times, but random\.randint\(0, 3\) "
     r"drew depth 1: run it depth times\Z"),
    ("check_checkpointed", "input_linear's output detached before checkpoint",
     forward(first="net.input_linear(x).clamp(min=0).detach()"),
     WHAT.format("False", 4) + r" does not give net\(x\)'s output and gradients at depth "
     r"1: wrong for input_linear\.weight, input_linear\.bias\nYour result is what you get "
     r"if input_linear's output was cut from the graph"),
    ("check_checkpointed", "the first layer under no_grad, to save memory", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)

    def middle(h):
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return h

    with torch.no_grad():
        h = net.input_linear(x).clamp(min=0)
    h = checkpoint(middle, h, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", r"Your result is what you get if input_linear's output was cut from the graph "
     r"\(detach\(\) or no_grad\)"),
    ("check_checkpointed", "everything under no_grad", """
def forward_checkpointed(net, x, use_reentrant):
    with torch.no_grad():
        return net(x)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r" returned an output that does not require grad: was it "
     r"computed under torch\.no_grad\(\)\?\Z"),
    ("check_checkpointed", "no ReLU after middle_linear",
     forward(layer="net.middle_linear(h)"),
     WHAT.format("False", 4) + r" does not give net\(x\)'s output and gradients at depth "
     r"1: wrong for output, "),
    ("check_checkpointed", "the middle's output returned, not the net's",
     forward(last="h"),
     WHAT.format("False", 4) + r" returned a tensor of shape \(4, 5\); net\(x\) gives "
     r"\(4, 2\), output_linear's output\Z"),
    ("check_checkpointed", "nothing returned", forward(last="None"),
     r"should return net's output, a tensor, but it returned None"),
    ("check_checkpointed", "the layers called through their weights", forward(
        layer="torch.nn.functional.linear(h, net.middle_linear.weight, "
              "net.middle_linear.bias).clamp(min=0)"),
     r"never called net\.middle_linear: call it as a module, net\.middle_linear\(h\); the "
     r"check counts its calls"),
    ("check_checkpointed", "a hook left on middle_linear", """
def forward_checkpointed(net, x, use_reentrant):
    net.middle_linear.register_forward_hook(lambda m, i, o: None)
    depth = random.randint(0, 3)

    def middle(h):
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return h

    h = net.input_linear(x).clamp(min=0)
    return net.output_linear(checkpoint(middle, h, use_reentrant=use_reentrant))
check_checkpointed(forward_checkpointed)
""", r"left a hook on middle_linear"),
    ("check_checkpointed", "the arguments in another order", """
def forward_checkpointed(x, net, use_reentrant):
    return net(x)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r" raised TypeError: 'Tensor' object is not callable\na "
     r"tensor was called like a module: the arguments come in the order \(net, x, "
     r"use_reentrant\)\Z"),
]

EQUIVALENT = {
    (1, "line 6, in-place twin: net.middle_linear(h).clamp(min=0) -> "
        "net.middle_linear(h).clamp_(min=0)"):
        "clamp_ changes the fresh output of middle_linear, which no node saved (its addmm "
        "saves the input and the weight): the same values and the same gradient, and the "
        "rerun does the same",
    (1, "line 9, in-place twin: net.input_linear(x).clamp(min=0) -> "
        "net.input_linear(x).clamp_(min=0)"):
        "clamp_ changes the fresh output of input_linear, which no node saved: the same "
        "values and the same gradient",
}
