"""Notebook 04's step-through: one weight, k uses, k shares, one ``.grad``, one step.

    with watch_shares(model, "middle_linear", optimizer) as record:
        optimizer.zero_grad()
        criterion(model(inp, depth=3), targ).backward()
        optimizer.step()
    share_story(record, row=1, cols=range(4, 12))

`watch_shares` hooks, while the block runs (and removes every hook after):

- a forward hook on the layer: each call is a *use*; its output's ``grad_fn``
  is that use's node, and the node on that use's path to the weight (for
  ``nn.Linear``, the ``TBackward0`` of ``weight.T``) gets a hook of its own,
  found by walking ``next_functions`` down to the weight's ``AccumulateGrad``;
- those path nodes' hooks: each records its use's *share* of the weight's
  gradient when backward runs the node, so the shares are kept in the order
  they reached the weight's node;
- the weight's tensor hook (what its ``AccumulateGrad`` node is about to add,
  and whether ``.grad`` was ``None``) and its post-accumulate hook (``.grad``
  after each write);
- the optimizer's step hooks: the weight before and after ``step()``, and the
  weight's state in the optimizer (its momentum buffer).

`share_story` draws that record, one frame an event: the uses' nodes (the
forward pass), each share as it arrived with the input buffer's running sum,
``.grad`` as its node set it, then the step (in grey: no use's colour) and the
optimizer's *momentum* buffer, always named so (the node's is the *input* buffer). Bars
show a few entries of the weight's matrices (`row`, `cols`), rounded to whole
units. Every label is 13 units high (no small text), so that a phone shows it
at 12 px.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import torch
from torch import nn

from helpers.stepper import Canvas, Stepper

__all__ = ["SharesRecord", "Step", "Use", "share_story", "watch_shares"]


@dataclass
class Use:
    """One call of the layer: `node` made its output, `path` leads on to the weight."""

    number: int
    node: str
    path: str
    accumulator: object


@dataclass
class Step:
    """One ``optimizer.step()``: the weight before and after, its optimizer state after,
    and whether that state held a momentum buffer before."""

    before: torch.Tensor
    after: torch.Tensor
    state: dict
    lr: float
    had_buffer: bool = False


@dataclass
class SharesRecord:
    """What `watch_shares` saw, in order.

    `uses`, the layer's calls in forward order; `arrivals`, ``(use number,
    share)`` pairs in the order the shares reached the weight's node;
    `hook_runs`, what the weight's tensor hook received, one tensor a run;
    `grad_was_none`, whether ``.grad`` was ``None`` at its first run;
    `grad_writes`, ``.grad`` after each write; `steps`, one per
    ``optimizer.step()``.
    """

    name: str
    shape: tuple
    uses: list[Use] = field(default_factory=list)
    arrivals: list[tuple[int, torch.Tensor]] = field(default_factory=list)
    hook_runs: list[torch.Tensor] = field(default_factory=list)
    grad_was_none: bool | None = None
    grad_writes: list[torch.Tensor] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


def _weight_edges(start, stop, weight: torch.Tensor) -> list[tuple[object, int, object]]:
    """(node, index, AccumulateGrad) for every edge from this use's nodes to `weight`'s
    node: a walk down from `start` that does not enter `stop` (the input's node)."""
    found, stack, seen = [], [start], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn is stop or fn in seen:
            continue
        seen.add(fn)
        for i, (nxt, _) in enumerate(fn.next_functions):
            if getattr(nxt, "variable", None) is weight:
                found.append((fn, i, nxt))
            elif nxt is not None and not hasattr(nxt, "variable"):
                stack.append(nxt)
    return found


@contextlib.contextmanager
def watch_shares(model: nn.Module, name: str,
                 optimizer: torch.optim.Optimizer | None = None) -> Iterator[SharesRecord]:
    """Record the uses of ``model.<name>``, the shares of its weight's gradient as they
    arrive, what lands in ``.grad``, and each ``optimizer.step()``."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"watch_shares needs the model, an nn.Module, not a "
                        f"{type(model).__name__}: watch_shares(model, 'middle_linear')")
    if not isinstance(name, str):
        raise TypeError(f"watch_shares needs the layer's name as a string, got {name!r}")
    try:
        layer = model.get_submodule(name)
    except AttributeError:
        raise ValueError(f"the model has no layer named {name!r}") from None
    weight = getattr(layer, "weight", None)
    if not (isinstance(weight, torch.Tensor) and weight.requires_grad):
        raise ValueError(f"{name} has no weight that requires grad")
    if optimizer is not None:
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer is a {type(optimizer).__name__}, not a "
                            "torch.optim.Optimizer")
        if not any(p is weight for g in optimizer.param_groups for p in g["params"]):
            raise ValueError(f"the optimizer does not hold {name}.weight")

    record = SharesRecord(f"{name}.weight", tuple(weight.shape))
    handles = []

    def on_call(module, args, output):
        number = len(record.uses) + 1
        node = getattr(output, "grad_fn", None)
        stop = getattr(args[0], "grad_fn", None) if args else None
        edges = _weight_edges(node, stop, weight) if node is not None else []
        if not edges:
            raise RuntimeError(f"{name}'s call {number} made no path to {name}.weight "
                               "(was it called under torch.no_grad()?)")
        path, _, acc = edges[0]
        record.uses.append(Use(number, node.name(), path.name(), acc))
        for fn, i, _ in edges:
            def on_share(grad_inputs, grad_outputs, i=i):
                record.arrivals.append((number, grad_inputs[i].detach().clone()))
            handles.append(fn.register_hook(on_share))

    def on_sum(grad):
        if not record.hook_runs:
            record.grad_was_none = weight.grad is None
        record.hook_runs.append(grad.detach().clone())

    def on_grad(param):
        record.grad_writes.append(param.grad.detach().clone())

    before = []

    def on_step_pre(opt, args, kwargs):
        had = opt.state.get(weight, {}).get("momentum_buffer") is not None
        before.append((weight.detach().clone(), had))

    def on_step(opt, args, kwargs):
        lr = next(g["lr"] for g in opt.param_groups if any(p is weight for p in g["params"]))
        state = {k: v.detach().clone() if isinstance(v, torch.Tensor) else v
                 for k, v in opt.state.get(weight, {}).items()}
        was, had = before.pop()
        record.steps.append(Step(was, weight.detach().clone(), state, float(lr), had))

    handles += [layer.register_forward_hook(on_call), weight.register_hook(on_sum),
                weight.register_post_accumulate_grad_hook(on_grad)]
    if optimizer is not None:
        handles += [optimizer.register_step_pre_hook(on_step_pre),
                    optimizer.register_step_post_hook(on_step)]
    try:
        yield record
    finally:
        for handle in handles:
            handle.remove()


# ---------------------------------------------------------------------------------------
# Drawing. One frame 360 units wide: the nodes on top, then .grad and the optimizer's
# state, then two bar panels: the shares, and their running sum (.grad, the move).
# Every label is in the canvas's 13-unit font: no `small` text.

_LOOKS = ("blue", "orange", "green")      # use 1, 2, 3 (then again)
_X0, _X1 = 56, 352                        # the bar panels' horizontal extent
_HALF = 36                                # a bar at the panel's full scale, in units


def _nice(top: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is at least `top`."""
    if top <= 0 or not math.isfinite(top):
        return 1.0
    e = math.floor(math.log10(top))
    return next(m * 10.0 ** e for m in (1, 2, 5, 10) if m * 10.0 ** e >= top * (1 - 1e-9))


def _shape(shape: tuple) -> str:
    return str(tuple(shape)).replace(",)", ")")


def share_story(record: SharesRecord, *, row: int = 0, cols: Iterable[int] = range(8),
                title: str | None = None) -> Stepper:
    """Draw what `watch_shares` recorded, one frame an event: the uses, the shares as
    they arrived (entries ``[row, cols]`` as bars), ``.grad``, and the step."""
    if not isinstance(record, SharesRecord):
        raise TypeError(f"share_story needs the record watch_shares gave, not a "
                        f"{type(record).__name__}")
    name, shape = record.name, record.shape
    layer = name.rsplit(".", 1)[0]
    if not record.uses:
        raise ValueError(f"no call of {layer} was recorded: run a forward pass that "
                         "uses it inside watch_shares")
    if len(record.hook_runs) != 1 or len(record.arrivals) != len(record.uses):
        raise ValueError(f"record one backward through every use of {name}: "
                         f"{len(record.uses)} uses, {len(record.arrivals)} shares arrived, "
                         f"{len(record.hook_runs)} runs of its node")
    if len(record.steps) > 1:
        raise ValueError(f"record at most one optimizer.step(), not {len(record.steps)}")
    if len(shape) != 2 or isinstance(row, bool) or not (isinstance(row, int)
                                                        and 0 <= row < shape[0]):
        raise ValueError(f"row must be a row of {name}, shaped {_shape(shape)}, got {row!r}")
    cols = list(cols)
    if not cols or len(cols) > 8 or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < shape[1]
            for c in cols):
        raise ValueError(f"cols must be 1 to 8 columns of {name}, shaped {_shape(shape)}, "
                         f"got {cols!r}")

    def entries(t: torch.Tensor) -> list[float]:
        return [float(v) for v in t[row, cols].tolist()]

    k = len(record.uses)
    order = [use for use, _ in record.arrivals]
    shares = {use: entries(s) for use, s in record.arrivals}
    running, buffers = None, []
    for _, s in record.arrivals:               # the input buffer, in the order of arrival
        running = s.clone() if running is None else running + s
        buffers.append(entries(running))
    was_none = record.grad_was_none
    grad = record.grad_writes[-1] if record.grad_writes else record.hook_runs[0]
    unit = _nice(max(abs(v) for vals in [*shares.values(), *buffers, entries(grad)]
                     for v in vals))
    step = record.steps[0] if record.steps else None
    move = entries(step.after - step.before) if step else []
    move_unit = _nice(max(map(abs, move))) if any(move) else 1.0
    buf = step.state.get("momentum_buffer") if step else None
    if step is None:
        momentum_label = ("", "")
    elif buf is None:                                  # plain SGD: never a buffer
        momentum_label = ("no momentum buffer", "no momentum buffer")
    else:                                              # (before the step, after it)
        momentum_label = ("momentum buffer: " + ("last step's" if step.had_buffer
                                                 else "none yet"),
                          "momentum buffer = .grad" if torch.equal(buf, grad)
                          else "momentum buffer updated")
    acc = record.uses[0].accumulator
    one_node = all(u.accumulator is acc for u in record.uses)
    node = type(acc).__name__
    width = (_X1 - _X0) / len(cols)
    look = {u.number: _LOOKS[(u.number - 1) % len(_LOOKS)] for u in record.uses}
    uw = min(108.0, (344 - 8 * (k - 1)) / k)          # a use's column
    pw = min(100.0, uw)                                # its path node's box
    ax, ay, aw = 50.0, 112.0, 260.0                    # the AccumulateGrad box
    first = record.uses[0]
    kinds = {u.node for u in record.uses}
    if len(cols) == 1:
        where = f"row {row}, column {cols[0]}"
    elif cols == list(range(cols[0], cols[-1] + 1)):
        where = f"row {row}, columns {cols[0]}–{cols[-1]}"
    else:
        where = f"row {row}, columns " + ", ".join(map(str, cols))

    def panel(pic: Canvas, y: float, text: str, u: float) -> float:
        """A panel's title at y, its zero line, dashed lines at +-u; returns the zero line."""
        pic.text(8, y, text)
        base = y + 14 + _HALF
        pic.line(_X0, base, _X1, base, cls="grey", arrow=False)
        for sign in (1, -1):
            pic.line(_X0, base - sign * _HALF, _X1, base - sign * _HALF,
                     cls="grey dashed faint", arrow=False)
            pic.text(_X0 - 4, base - sign * _HALF + 4, f"{sign * u:g}", cls="grey",
                     anchor="end")
        return base

    def draw(arrived: int, stage: str) -> Canvas:
        """stage: "forward", "arrive", "grad" or "step"."""
        pic = Canvas(360, 430)
        new = order[arrived - 1] if stage == "arrive" else None
        pic.text(8, 15, f"{first.node}: one node per call" if len(kinds) == 1
                 else "one node per call", cls="grey")
        for j, use in enumerate(record.uses):
            x, c = 8 + j * (uw + 8), look[use.number]
            got = use.number in order[:arrived]
            hot = " hot" if stage == "forward" or use.number == new else ""
            pic.box(x, 22, uw, 26, f"use {use.number}", cls=c + hot)
            mid, tx = x + uw / 2, ax + aw * (j + 0.5) / k
            pic.line(mid, 48, mid, 59, cls=c)
            pic.box(mid - pw / 2, 60, pw, 24, use.path if pw >= 96
                    else use.path.replace("Backward0", "…"),
                    cls=c + (" hot" if use.number == new else ""))
            pic.line(mid, 84, tx, ay - 1,
                     cls=c + (" hot" if use.number == new else "" if got else " dashed"))
            if got:          # beside the arrow's middle, on the side it leans away from
                left = tx > mid + 4
                pic.text(mid - 7 if left else mid + 7, 102, f"share {use.number}",
                         cls=c + (" bold" if use.number == new else ""),
                         anchor="end" if left else "start")
        done = stage in ("grad", "step")
        red = "red" + (" hot" if stage == "grad" else "")
        pic.box(ax, ay, aw, 40, "", cls=red)
        pic.text(ax + aw / 2, ay + 16, node if one_node else f"{node} nodes", cls=red,
                 anchor="middle")
        pic.text(ax + aw / 2, ay + 33, f"{name} {_shape(shape)}", cls="red",
                 anchor="middle")
        # .grad, then the optimizer's state for the weight.
        pic.box(8, 166, 140, 26, "", cls=red if done else "grey")
        pic.text(78, 184, (".grad = the sum" if was_none else ".grad += the sum")
                 if done else
                 f".grad: {'None' if was_none else 'as before'}",
                 cls="bold" if stage == "grad" else "", anchor="middle")
        if done:
            pic.line(ax + 30, ay + 40, 78, 165, cls=red)
        if step is not None:
            stepped = stage == "step"
            pic.box(156, 166, 196, 26, "", cls="grey" + (" hot" if stepped else ""))
            pic.text(254, 184, momentum_label[stepped], cls="bold" if stepped else "",
                     anchor="middle")
            if stepped:
                pic.line(148, 179, 155, 179, cls="grey hot")
        # Panel A: the shares that arrived, one bar each, grouped by column.
        base = panel(pic, 212, f"each share that arrived: {where}", unit)
        bw = min(10.0, (width - 6) / k)
        for use in record.uses:
            if use.number not in order[:arrived]:
                continue
            off = (use.number - 1 - (k - 1) / 2) * bw
            for j, v in enumerate(shares[use.number]):
                pic.bar(_X0 + (j + 0.5) * width + off - bw / 2, base, bw, v * _HALF / unit,
                        cls=look[use.number])
        # Panel B: the input buffer's running sum, then .grad, then the step's move.
        if stage == "step":
            text, vals, u, cls = "the step: weight after − before", move, move_unit, "grey"
        elif stage == "grad":          # .grad = the buffer: say the bars did not change
            text = f"{name}.grad" + (" = input buffer" if was_none else "")
            vals, u, cls = entries(grad), unit, "red"
        else:
            text, vals, u, cls = ("input buffer: the shares added so far",
                                  buffers[arrived - 1] if arrived else [], unit, "grey")
        base = panel(pic, 322, text, u)
        for j, v in enumerate(vals):
            pic.bar(_X0 + (j + 0.3) * width, base, width * 0.4, v * _HALF / u, cls=cls)
        for j, c in enumerate(cols):
            pic.text(_X0 + (j + 0.5) * width, 424, str(c), cls="grey", anchor="middle")
        return pic

    nodes = len({id(u.accumulator) for u in record.uses})
    if k == 1:
        made = (f"Forward: 1 call of {layer} makes an {first.node} node; its {first.path} "
                f"node leads to the weight's {node} node")
    else:
        made = (f"Forward: {k} calls of {layer} make {k} {first.node} nodes; their "
                f"{first.path} nodes lead to "
                + (f"one {node} node" if nodes == 1 else f"{nodes} {node} nodes"))
    frames = [(draw(0, "forward"), made)]
    for j, use in enumerate(order):
        if j == 0:
            cap = (f"Backward: use {use}'s share arrives first; the {node} node keeps it "
                   "in its input buffer until the node runs")
        elif j < k - 1:
            cap = f"Use {use}'s share arrives; the input buffer adds it to what it holds"
        else:
            cap = f"Use {use}'s share arrives last; the input buffer now holds the sum of all {k}"
        frames.append((draw(j + 1, "arrive"), cap))
    frames.append((draw(k, "grad"),
                   f"The {node} node runs once: the weight's hook fires once; .grad "
                   + ("(None until now) becomes that sum: same bars" if was_none
                      else "adds that sum")))
    if step is not None:
        axis = f" (axis ±{move_unit:g}, not ±{unit:g})" if move_unit != unit else ""
        if buf is None:
            cap = f"optimizer.step(): {name} moves once{axis}"
        else:
            tol = 8 * torch.finfo(step.before.dtype).eps * float(step.before.abs().max())
            by = torch.allclose(step.after - step.before, -step.lr * buf, rtol=1e-2, atol=tol)
            if torch.equal(buf, grad):    # the move is .grad's frame, scaled: say which
                cap = ("optimizer.step(): momentum buffer = .grad, so the weight moves once"
                       + (f", by −lr × frame {k + 2}'s bars" if by else ""))
            else:
                cap = ("optimizer.step(): the momentum buffer takes in .grad; the weight "
                       "moves once" + (", by −lr × buffer" if by else ""))
            cap += axis
        frames.append((draw(k, "step"), cap))
    return Stepper(frames, title=title or f"One backward through {k} uses of {name}, "
                   "then one step")
