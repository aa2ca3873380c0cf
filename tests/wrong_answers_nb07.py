"""Plausible wrong answers to notebook 07's exercises; each must fail its check.

And the automatic mutants of the solutions that are right answers too (EQUIVALENT).
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
BOTH = WHAT.format("False", 4) + r" and random\.seed\(2\)"
INSIDE = (r"\nHere the depth is drawn inside the checkpointed function, so the rerun in "
          r"backward draws another one \(section 1\): draw it once, before checkpoint\Z")

NO_INPUT = (r": no input of checkpoint required grad\nWith use_reentrant=True, checkpoint's "
            r"output requires grad only if an input does, and x does not: checkpoint from "
            r"input_linear's output\Z")

DDP = """
def ddp_grad(model, batches, depths):
    w = model.middle_linear.weight
    total = {start}
    for (x, y), depth in zip(batches, depths):
        loss = {loss}
        g = torch.autograd.grad(loss, w{unused})[0]
        {add}
    return {result}
check_ddp_grad(ddp_grad)
"""
DDP_RIGHT = dict(start="torch.zeros_like(w)", loss="((model(x, depth) - y) ** 2).sum()",
                 unused=", allow_unused=True",
                 add="if g is not None:\n            total += g",
                 result="total / len(batches)")


def ddp(**change):
    return DDP.format(**{**DDP_RIGHT, **change})


DDP_WHAT = r"\Ayour ddp_grad\(model, batches, depths=\[{}\]\)"
DDP_WRONG = DDP_WHAT.format("1, 3, 2") + (r" does not give what DDP gives every rank: wrong "
                                         r"for middle_linear\.weight\.grad\n")
NONE_GRAD = (r"\na rank at depth 0 never uses middle_linear, so it has no gradient of its "
             r"own \(None\): count it as zeros")

WRONG = [
    ("check_checkpointed", "the whole net checkpointed: its forward draws the depth", """
def forward_checkpointed(net, x, use_reentrant):
    return checkpoint(net, x, use_reentrant=use_reentrant)
check_checkpointed(forward_checkpointed)
""", BOTH + r": backward raised CheckpointError, and drew from "
     r"Python's random again" + INSIDE, ('inside',)),
    ("check_checkpointed", "the depth drawn inside the checkpointed function", """
def forward_checkpointed(net, x, use_reentrant):
    def middle(h):
        for _ in range(random.randint(0, 3)):
            h = net.middle_linear(h).clamp(min=0)
        return h

    h = net.input_linear(x).clamp(min=0)
    return net.output_linear(checkpoint(middle, h, use_reentrant=use_reentrant))
check_checkpointed(forward_checkpointed)
""", BOTH + r": backward raised CheckpointError, and drew from Python's random again" +
     INSIDE, ('inside',)),
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
""", BOTH + r": backward raised CheckpointError, and drew from Python's random again" +
     INSIDE, ('inside',)),
    ("check_checkpointed", "no checkpoint at all", forward(middle="middle(h)"),
     BOTH + r": backward never ran middle_linear again, so its uses "
     r"are not under checkpoint; run them in checkpoint\(f, h, \.\.\., "
     r"use_reentrant=use_reentrant\)\Z", ()),
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
""", WHAT.format("False", 9) + r" and random\.seed\(5\): backward ran middle_linear again 2 "
     r"of its 5 uses; put "
     r"every use under checkpoint\Z", ()),
    ("check_checkpointed", "use_reentrant=True written in",
     forward(middle="checkpoint(middle, h, use_reentrant=True)"),
     WHAT.format("False", 4) + r" ran the reentrant kind of checkpoint \(its graph has a "
     r"CheckpointFunctionBackward node\): pass use_reentrant=use_reentrant on to "
     r"checkpoint\Z", ()),
    ("check_checkpointed", "use_reentrant left out (the reentrant kind, with a warning)",
     forward(middle="checkpoint(middle, h)"),
     WHAT.format("False", 4) + r" ran the reentrant kind of checkpoint(.|\n)*\Z", ()),
    ("check_checkpointed", "use_reentrant=False written in",
     forward(middle="checkpoint(middle, h, use_reentrant=False)"),
     WHAT.format("True", 4) + r" ran the non-reentrant kind of checkpoint \(its graph has "
     r"no CheckpointFunctionBackward node\): pass use_reentrant=use_reentrant on to "
     r"checkpoint\Z", ()),
    ("check_checkpointed", "the whole net checkpointed from x, depth passed in", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)
    return checkpoint(net, x, depth, use_reentrant=use_reentrant)
check_checkpointed(forward_checkpointed)
""", WHAT.format("True", 4) + NO_INPUT, ()),
    ("check_checkpointed", "input_linear and the middle checkpointed from x (the "
     "Solution's warning)", """
def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)

    def first_and_middle(x):
        h = net.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h = net.middle_linear(h).clamp(min=0)
        return h

    h = checkpoint(first_and_middle, x, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", WHAT.format("True", 4) + NO_INPUT, ()),
    ("check_checkpointed", "the depth from torch.randint",
     forward(depth="int(torch.randint(0, 4, ()))"),
     WHAT.format("False", 4) + r" drew nothing from Python's random: draw the depth as "
     r"DynamicNet does, random\.randint\(0, 3\), once a call\Z", ()),
    ("check_checkpointed", "a fixed depth", forward(depth="2"),
     r"drew nothing from Python's random", ()),
    ("check_checkpointed", "random.randint(0, 2): the same state, another depth",
     forward(depth="random.randint(0, 2)"),
     WHAT.format("False", 4) + r" never ran middle_linear, but random\.randint\(0, 3\) drew "
     r"depth 1: run it depth times\Z", ()),
    ("check_checkpointed", "section 1's middle, which uses the notebook's own net", """
import torch
from helpers.ddp import DynamicNet
other = DynamicNet(6, 5, 2)


def middle(h, depth):
    for _ in range(depth):
        h = other.middle_linear(h).clamp(min=0)
    return h


def forward_checkpointed(net, x, use_reentrant):
    depth = random.randint(0, 3)
    h = net.input_linear(x).clamp(min=0)
    h = checkpoint(middle, h, depth, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r" ran the middle_linear of another net, not the one it was "
     r"given", ()),
    ("check_checkpointed", "random.randint(0, 4)", forward(depth="random.randint(0, 4)"),
     WHAT.format("False", 5) + r" did not draw from Python's random as one "
     r"random\.randint\(0, 3\) does: draw the depth so, once a call\Z", ()),
    ("check_checkpointed", "the depth drawn twice", forward(
        depth="random.randint(0, 3)\n    random.randint(0, 3)"),
     r"did not draw from Python's random as one random\.randint\(0, 3\) does", ()),
    ("check_checkpointed", "one use too many", forward(uses="depth + 1"),
     WHAT.format("False", 4) + r" ran middle_linear twice, but random\.randint\(0, 3\) "
     r"drew depth 1: run it depth times\Z", ()),
    ("check_checkpointed", "input_linear's output detached before checkpoint",
     forward(first="net.input_linear(x).clamp(min=0).detach()"),
     BOTH + r" does not give net\(x\)'s outputs and gradients at depths 1 and 0: wrong for "
     r"input_linear\.weight, input_linear\.bias\nYour result is what you get if "
     r"input_linear's output was cut from the graph", ("detached",)),
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
     r"\(detach\(\) or no_grad\)", ('detached',)),
    ("check_checkpointed", "everything under no_grad", """
def forward_checkpointed(net, x, use_reentrant):
    with torch.no_grad():
        return net(x)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r" returned an output that does not require grad: was it "
     r"computed under torch\.no_grad\(\)\?\Z", ()),
    ("check_checkpointed", "no ReLU after middle_linear",
     forward(layer="net.middle_linear(h)"),
     BOTH + r" does not give net\(x\)'s outputs and gradients at depths 1 and 0: wrong for "
     r"first call's output, ", ()),
    ("check_checkpointed", "the middle's output returned, not the net's",
     forward(last="h"),
     WHAT.format("False", 4) + r" returned a tensor of shape \(4, 5\); net\(x\) gives "
     r"\(4, 2\), output_linear's output\Z", ()),
    ("check_checkpointed", "nothing returned", forward(last="None"),
     r"should return net's output, a tensor, but it returned None", ()),
    ("check_checkpointed", "the layers called through their weights", forward(
        layer="torch.nn.functional.linear(h, net.middle_linear.weight, "
              "net.middle_linear.bias).clamp(min=0)"),
     r"never called net\.middle_linear: call it as a module, net\.middle_linear\(h\); the "
     r"check counts its calls", ()),
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
""", r"left a hook on net.middle_linear", ()),
    ("check_checkpointed", "the arguments in another order", """
def forward_checkpointed(x, net, use_reentrant):
    return net(x)
check_checkpointed(forward_checkpointed)
""", WHAT.format("False", 4) + r" raised TypeError: 'Tensor' object is not callable\na "
     r"tensor was called like a module: the arguments come in the order \(net, x, "
     r"use_reentrant\)\Z", ('order',)),
]

WRONG += [
    ("check_ddp_grad", "the ranks' gradients summed", ddp(result="total"),
     DDP_WRONG + r"Your result is what you get if you summed the ranks' gradients without "
     r"dividing by the number of ranks\.\n", ('summed',)),
    ("check_ddp_grad", "divided by the ranks that used the layer",
     ddp(result="total / sum(d > 0 for d in depths)"),
     DDP_WHAT.format("2, 0, 1") + r" does not give what DDP gives every rank: wrong for "
     r"middle_linear\.weight\.grad\nYour result is what you get if you divided by the "
     r"ranks that used middle_linear; DDP divides by all of them \(a rank that skipped it "
     r"adds zeros\)\.\n", ('used',)),
    ("check_ddp_grad", "divided by 2, the notebook's two ranks", ddp(result="total / 2"),
     DDP_WRONG + r"Your result is what you get if you divided by 2, not by the number of "
     r"ranks, len\(batches\)\.\n", ('two',)),
    ("check_ddp_grad", "divided by the number of rows", """
def ddp_grad(model, batches, depths):
    w, total, rows = model.middle_linear.weight, 0, 0
    for (x, y), depth in zip(batches, depths):
        loss = ((model(x, depth) - y) ** 2).sum()
        total = total + torch.autograd.grad(loss, w, materialize_grads=True)[0]
        rows += len(x)
    return total / rows
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you divided by the number of rows, not by "
     r"the number of ranks\.\n", ('rows',)),
    ("check_ddp_grad", "each rank weighted by its share of the rows", """
def ddp_grad(model, batches, depths):
    w, total = model.middle_linear.weight, 0
    rows = sum(len(x) for x, _ in batches)
    for (x, y), depth in zip(batches, depths):
        loss = ((model(x, depth) - y) ** 2).sum()
        g = torch.autograd.grad(loss, w, materialize_grads=True)[0]
        total = total + g * len(x) / rows
    return total
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you weighted each rank by its share of the "
     r"rows; DDP gives every rank the same weight, 1/len\(batches\)\.\n", ('weighted',)),
    ("check_ddp_grad", "all the rows as one batch at rank 0's depth, divided", """
def ddp_grad(model, batches, depths):
    x = torch.cat([x for x, _ in batches])
    y = torch.cat([y for _, y in batches])
    loss = ((model(x, depths[0]) - y) ** 2).sum() / len(batches)
    return torch.autograd.grad(loss, model.middle_linear.weight)[0]
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you ran all the ranks' rows as one batch "
     r"at rank 0's depth, then divided; each rank runs its own rows at its own depth\.\n",
     ('one_batch_divided',)),
    ("check_ddp_grad", "all the rows as one batch at rank 0's depth", """
def ddp_grad(model, batches, depths):
    x = torch.cat([x for x, _ in batches])
    y = torch.cat([y for _, y in batches])
    loss = ((model(x, depths[0]) - y) ** 2).sum()
    return torch.autograd.grad(loss, model.middle_linear.weight)[0]
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you ran all the ranks' rows as one batch "
     r"at rank 0's depth; each rank runs its own rows at its own depth\.\n", ('one_batch',)),
    ("check_ddp_grad", "rank 0's gradient only", """
def ddp_grad(model, batches, depths):
    x, y = batches[0]
    loss = ((model(x, depths[0]) - y) ** 2).sum()
    return torch.autograd.grad(loss, model.middle_linear.weight)[0]
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you returned rank 0's own gradient; DDP "
     r"gives every rank the mean over the ranks\.\n", ('rank_0',)),
    ("check_ddp_grad", "zero_grad() before each rank's backward: the last rank's only", """
def ddp_grad(model, batches, depths):
    for (x, y), depth in zip(batches, depths):
        model.zero_grad()
        ((model(x, depth) - y) ** 2).sum().backward()
    g = model.middle_linear.weight.grad.clone()
    model.zero_grad()
    return g
check_ddp_grad(ddp_grad)
""", DDP_WRONG + r"Your result is what you get if you returned the last rank's own gradient",
     ("last_rank",)),
    ("check_ddp_grad", "the mean squared error as the loss",
     ddp(loss="((model(x, depth) - y) ** 2).mean()"),
     DDP_WRONG + r"Your result is what you get if each rank's loss was the mean of the "
     r"squared errors; the ranks here sum them, as the notebook does\.\n", ('mean_loss',)),
    ("check_ddp_grad", "mse_loss, its default reduction the mean",
     ddp(loss="torch.nn.functional.mse_loss(model(x, depth), y)"),
     r"if each rank's loss was the mean of the squared errors", ('mean_loss',)),
    ("check_ddp_grad", "each loss halved as in the notebook's replay, and the sum divided "
     "too", ddp(loss="((model(x, depth) - y) ** 2).sum() / len(batches)"),
     DDP_WRONG + r"Your result is what you get if you divided by the number of ranks twice "
     r"\(in each loss and again at the end\)\.\n", ('twice',)),
    ("check_ddp_grad", "the notebook's replay, .grad left written", """
def ddp_grad(model, batches, depths):
    for (x, y), depth in zip(batches, depths):
        (((model(x, depth) - y) ** 2).sum() / len(batches)).backward()
    return model.middle_linear.weight.grad
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" left a tensor in model\.input_linear\.weight\.grad, "
     r"which was None\nleave every \.grad as it was, None: torch\.autograd\.grad writes none, "
     r"and model\.zero_grad\(\) sets them back\Z", ()),
    ("check_ddp_grad", "the .grad zeroed, not set to None, after copying it", """
def ddp_grad(model, batches, depths):
    for (x, y), depth in zip(batches, depths):
        ((model(x, depth) - y) ** 2).sum().backward()
    g = model.middle_linear.weight.grad / len(batches)
    model.zero_grad(set_to_none=False)
    return g
check_ddp_grad(ddp_grad)
""", r" left a tensor in model\.input_linear\.weight\.grad, which was None\nleave every "
     r"\.grad as it was, None", ()),
    ("check_ddp_grad", "a step taken after the backward passes", """
def ddp_grad(model, batches, depths):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for (x, y), depth in zip(batches, depths):
        (((model(x, depth) - y) ** 2).sum() / len(batches)).backward()
    g = model.middle_linear.weight.grad.clone()
    opt.step()
    opt.zero_grad()
    return g
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" changed the values of model\.input_linear\.weight: "
     r"leave the weights as they were\Z", ()),
    ("check_ddp_grad", "autograd.grad without allow_unused", ddp(
        unused="", add="total += g"),
     DDP_WHAT.format("2, 0, 1") + r" raised RuntimeError: .*appears to not have been used "
     r"in the graph\.\na rank at depth 0 never uses middle_linear, so autograd\.grad "
     r"refuses: pass allow_unused=True \(it gives None, which counts as zeros\)\Z", ('unused',)),
    ("check_ddp_grad", "None added to the total", ddp(add="total += g"),
     DDP_WHAT.format("2, 0, 1") + r" raised TypeError: .*NoneType'" + NONE_GRAD + r"\Z", ('none',)),
    ("check_ddp_grad", ".grad read at a rank that skipped the layer", """
def ddp_grad(model, batches, depths):
    total = 0
    for (x, y), depth in zip(batches, depths):
        ((model(x, depth) - y) ** 2).sum().backward()
        total = total + model.middle_linear.weight.grad.clone()
        model.zero_grad()
    return total / len(batches)
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("2, 0, 1") + r" raised AttributeError: 'NoneType' object has no "
     r"attribute 'clone'" + NONE_GRAD + r"\Z", ('none',)),
    ("check_ddp_grad", "the total made of the notebook's size", ddp(start="torch.zeros(5, 5)"),
     DDP_WHAT.format("0, 2") + r" raised RuntimeError: The size of tensor a \(5\) must "
     r"match the size of tensor b \(4\).*\na tensor of a fixed shape met middle_linear\."
     r"weight's gradient: make it of the weight's shape \(e\.g\. torch\.zeros_like\(w\)\), "
     r"whatever the net\Z", ('size',)),
    ("check_ddp_grad", "DDP itself, without a process group", """
def ddp_grad(model, batches, depths):
    model = torch.nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    for (x, y), depth in zip(batches, depths):
        ((model(x, depth) - y) ** 2).sum().backward()
    return model.module.middle_linear.weight.grad
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" raised ValueError: Default process group has not "
     r"been initialized.*\nDDP needs a process group: compute here, in one process and "
     r"without DDP, what DDP gives every rank\Z", ('process_group',)),
    ("check_ddp_grad", "the model's own random depth", ddp(
        loss="((model(x) - y) ** 2).sum()"),
     DDP_WHAT.format("1, 3, 2") + r" drew from Python's random \(model\(x\) draws a "
     r"depth\): run rank r at its depth, model\(x, depths\[r\]\)\Z", ()),
    ("check_ddp_grad", "every rank's gradient, in a list", """
def ddp_grad(model, batches, depths):
    w = model.middle_linear.weight
    return [torch.autograd.grad(((model(x, d) - y) ** 2).sum(), w, materialize_grads=True)[0]
            for (x, y), d in zip(batches, depths)]
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" should return a tensor, middle_linear\.weight's "
     r"gradient, but it returned a list", ()),
    ("check_ddp_grad", "the bias's gradient", ddp(
        start="torch.zeros_like(model.middle_linear.bias)",
        loss="((model(x, depth) - y) ** 2).sum()\n        w = model.middle_linear.bias"),
     DDP_WHAT.format("1, 3, 2") + r" returned a tensor of shape \(5,\); middle_linear\."
     r"weight, and its gradient, have shape \(5, 5\)\Z", ()),
    ("check_ddp_grad", "the arguments in another order", """
def ddp_grad(batches, depths, model):
    return model.middle_linear.weight
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" raised AttributeError: 'list' object has no attribute "
     r"'middle_linear'\nsomething other than the model was used as one: the arguments come "
     r"in the order \(model, batches, depths\)\Z", ('not_model',)),
]

# Unseen answers, written as new learners write them (issue 30's trial).
WRONG += [
    ("check_checkpointed", "the middle's loop variable returned: unbound at depth 0", forward(
        layer="net.middle_linear(h).clamp(min=0)\n            out = h").replace(
        "        return h\n", "        return out\n"),
     r"after random\.seed\(2\) raised UnboundLocalError: cannot access local variable 'out' "
     r"where it is not associated with a value\n`out` is a variable of your own function",
     ("unbound",)),
    ("check_checkpointed", "the depth passed on to a middle that takes h alone", forward(
        middle="checkpoint(middle, h, depth, use_reentrant=use_reentrant)"),
     WHAT.format("False", 4) + r" raised TypeError: forward_checkpointed\.<locals>\.middle\(\) "
     r"takes 1 positional argument but 2 were given\Z", ()),
    ("check_checkpointed", "the depth kept in a global, read by the rerun", """
DEPTH = 0


def middle(net, h):
    for _ in range(DEPTH):
        h = net.middle_linear(h).clamp(min=0)
    return h


def forward_checkpointed(net, x, use_reentrant):
    global DEPTH
    DEPTH = random.randint(0, 3)
    h = net.input_linear(x).clamp(min=0)
    h = checkpoint(middle, net, h, use_reentrant=use_reentrant)
    return net.output_linear(h)
check_checkpointed(forward_checkpointed)
""", BOTH + r", one backward through both outputs, raised CheckpointError: .*\nthe rerun in "
     r"backward read the depth your second call wrote into a global", ("global",)),
    ("check_checkpointed", "what checkpoint returns left unused", forward(
        middle="checkpoint(middle, h, use_reentrant=use_reentrant)\n    h = h"
    ).replace("    h = checkpoint(middle", "    out = checkpoint(middle").replace(
        "    h = h\n", ""),
     BOTH + r": middle_linear ran in the forward, but the outputs do not depend on it: was "
     r"what checkpoint returned used\?\Z", ()),
    ("check_checkpointed", "one use too few", forward(uses="depth - 1"),
     WHAT.format("False", 4) + r" never ran middle_linear, but random\.randint\(0, 3\) drew "
     r"depth 1: run it depth times\Z", ()),
    ("check_ddp_grad", "requires_grad switched off the other weights", """
def ddp_grad(model, batches, depths):
    for name, p in model.named_parameters():
        p.requires_grad_(name == "middle_linear.weight")
    w = model.middle_linear.weight
    total = torch.zeros_like(w)
    for (x, y), d in zip(batches, depths):
        g = torch.autograd.grad(((model(x, d) - y) ** 2).sum(), w, allow_unused=True)[0]
        total += 0 if g is None else g
    return total / len(batches)
check_ddp_grad(ddp_grad)
""", DDP_WHAT.format("1, 3, 2") + r" switched off model\.input_linear\.weight\.requires_grad",
     ()),
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
    (2, "line 5, swap operands: model(x, depth) - y -> y - model(x, depth)"):
        "the difference is squared: (y - out) ** 2 is (out - y) ** 2, and so is its gradient",
    (2, "line 6, change a number: 0 -> -1"):
        "torch.autograd.grad returns a tuple of one gradient, the one input's: [-1] is [0]",
    (2, "line 7, change a comparison: g is not None -> g != None"):
        "a tensor compared with None by != gives True, None != None False: the same test",
}
