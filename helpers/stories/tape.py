"""Notebook 05's step-through: a tape's records, then its backward, with autograd's order.

    tape = Tape()                              # the notebook's own tape and ops
    loss = mse(tape, dynamicnet_on_tape(tape, one, x, 2), y)
    ran = node_order(loss)                     # autograd's backward, its nodes in order
    with watch_tape(tape) as run:              # the tape's backward, each pop and +=
        tape.backward(loss)
    tape_story(run, ran, names={"x": x, **one})

`watch_tape` wraps one tape object while the block runs (and puts it back
after): its ``start`` and ``send`` methods, and the ``pop`` of its ``records``
list. It keeps the records as they were when the block began (the forward
pass, in creation order) and logs, in order, the start (every ``.g`` it set),
each record popped, and each share sent with the ``.g`` it left. The tape needs
a ``records`` list of records with ``op``, ``out`` and ``inputs``, and the
methods ``start(loss)``, ``send(t, g)`` and ``backward(loss)``, as notebook
05's ``Tape`` has.

`tape_story` draws that log, one number per tensor (build the example from
1-element tensors, with exact values): a table of the tensors, the records
appearing in creation order (a frame a layer: a record, with a one-input op on
its output), then ``start``, then one frame per record popped,
with each ``+=`` into a ``.g`` (which tensor, what share, and the running ``.g``
where the share was added to an earlier one). A colour key tops each frame.
Under the table, autograd's own backward for the same computation (`ran`, from
``helpers.graph.node_order``, which ran before the tape's), aligned to the
tape's pops: the popped record's own node (``out.grad_fn``) as ``#i``, and
indented under it the other nodes its op made and each ``AccumulateGrad``,
tagged with the ``.grad`` it sets; a leaf that does not require grad, sent a
share on the tape, is said to get nothing. Where the tape added a share into a
leaf's ``.g`` whose ``AccumulateGrad`` runs only later, the caption says that
autograd waits for the leaf's other uses. The frame
is 360 units wide with every label at 13 units, so that a phone shows it at
about 13 px. Nothing is placed by hand: rows, values, shares and order all come
from the recorded objects.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import torch

from helpers.stepper import MAX_CAPTION, Canvas, Stepper

__all__ = ["TapeRun", "tape_story", "watch_tape"]


@dataclass
class TapeRun:
    """What `watch_tape` recorded.

    `records` are the tape's records when the block began, oldest first.
    `events` are, in order: ``("start", loss, {id(t): t.g})`` once ``start``
    returned; ``("pop", i)`` when record ``i`` (of `records`) was popped;
    ``("send", t, share, g_after)`` when a share was sent to tensor `t`
    (copies of the share and of ``t.g`` after the send).
    """

    records: list
    events: list = field(default_factory=list)


class _LoggedList(list):
    """A list whose ``pop`` tells `log` which item it removed."""

    def __init__(self, items, log):
        super().__init__(items)
        self._log = log

    def pop(self, *args):
        item = super().pop(*args)
        self._log(item)
        return item


def _copy(v):
    return v.detach().clone() if isinstance(v, torch.Tensor) else v


@contextlib.contextmanager
def watch_tape(tape) -> Iterator[TapeRun]:
    """Log `tape`'s ``start``, each record it pops and each share it sends, in order."""
    missing = [m for m in ("start", "send", "backward") if not callable(getattr(tape, m, None))]
    if not isinstance(getattr(tape, "records", None), list) or missing:
        raise TypeError(f"watch_tape needs a tape (a records list, start, send and backward), "
                        f"got a {type(tape).__name__}")
    if not tape.records:
        raise ValueError("the tape is empty: run the forward pass on it before watch_tape")
    run = TapeRun(records=list(tape.records))
    own = {m: vars(tape)[m] for m in ("start", "send") if m in vars(tape)}
    original_list = tape.records
    start, send = tape.start, tape.send

    def logged_start(loss, *args, **kwargs):
        result = start(loss, *args, **kwargs)
        seen = {}
        for rec in run.records:
            for t in (rec.out, *rec.inputs):
                seen.setdefault(id(t), _copy(getattr(t, "g", None)))
        run.events.append(("start", loss, seen))
        return result

    def logged_send(t, g, *args, **kwargs):
        result = send(t, g, *args, **kwargs)
        run.events.append(("send", t, _copy(g), _copy(getattr(t, "g", None))))
        return result

    def log_pop(rec):
        i = next((k for k, r in enumerate(run.records) if r is rec), None)
        run.events.append(("pop", i))

    tape.start, tape.send = logged_start, logged_send
    tape.records = _LoggedList(original_list, log_pop)
    try:
        yield run
    finally:
        original_list[:] = list(tape.records)
        tape.records = original_list
        for m in ("start", "send"):
            if m in own:
                setattr(tape, m, own[m])
            else:
                delattr(tape, m)


def _num(v) -> str:
    """One number as short text: whole numbers without a decimal point."""
    x = float(v.detach().reshape(-1)[0]) if isinstance(v, torch.Tensor) else float(v)
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.3g}"


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _node_name(node) -> str:
    return node.name().split("::")[-1]


def _short(caption: str, fallback: str) -> str:
    if len(caption) <= MAX_CAPTION:
        return caption
    return fallback if len(fallback) <= MAX_CAPTION else fallback[:MAX_CAPTION - 1] + "…"


def tape_story(run: TapeRun, ran: list, names: Mapping[str, torch.Tensor], *,
               title: str = "The tape: forward, then backward newest first, "
                            "with autograd") -> Stepper:
    """Draw `run` (from `watch_tape`) and `ran` (from ``node_order``), one frame an event.

    `names` names the tensors no record made (``{"x": x, "w_in": w_in, ...}``);
    record ``i``'s output is ``#i``. Every tensor on the tape must hold one number.
    """
    if not isinstance(run, TapeRun) or not any(e[0] == "pop" for e in run.events):
        raise ValueError("tape_story needs what watch_tape recorded around a tape.backward(loss)")
    if not isinstance(ran, list) or not ran or not all(callable(getattr(n, "name", None))
                                                       for n in ran):
        raise ValueError("ran must be the list of nodes that node_order(loss) returned")
    if not isinstance(names, Mapping):
        raise TypeError(f"names must map names to tensors, got a {type(names).__name__}")
    for k, t in names.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"names[{k!r}] is a {type(t).__name__}, not a tensor")
    records = run.records

    # Every tensor a row, in the order it first appeared: a leaf just before the
    # first record that uses it, then that record's output.
    made = {id(rec.out): i for i, rec in enumerate(records)}
    by_id = {id(t): k for k, t in names.items()}
    label: dict[int, str] = {}
    rows: list[tuple[torch.Tensor, str, str, int | None]] = []   # tensor, name, made by, rec
    first_row: list[int] = []                  # record i: its first new row
    for i, rec in enumerate(records):
        first_row.append(len(rows))
        args = []
        for j, t in enumerate(rec.inputs):
            if id(t) not in label:
                if id(t) in made and made[id(t)] < i:
                    label[id(t)] = f"#{made[id(t)]}"
                elif id(t) in by_id:
                    label[id(t)] = by_id[id(t)]
                    rows.append((t, by_id[id(t)], "leaf", None))
                else:
                    raise ValueError(f"record #{i} ({rec.op})'s input {j} is neither in names "
                                     "nor made by an earlier record: name it in names")
            args.append(label[id(t)])
        label[id(rec.out)] = f"#{i}"
        rows.append((rec.out, f"#{i}", f"{rec.op}({', '.join(args)})", i))
    for t, name, _, _ in rows:
        if not isinstance(t, torch.Tensor) or t.numel() != 1:
            shape = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise ValueError(f"tape_story draws one number per tensor, but {name} has shape "
                             f"{shape}: build the example from 1-element tensors")
    row_of = {id(t): r for r, (t, *_) in enumerate(rows)}

    # Autograd's nodes: each record's own node, the other nodes its op made, leaves.
    own = {id(rec.out.grad_fn): i for i, rec in enumerate(records)
           if rec.out.grad_fn is not None}
    if not own:
        raise ValueError("no record's output has a grad_fn: give the leaves requires_grad=True, "
                         "so that autograd builds the same computation")
    owner: dict[int, int] = dict(own)
    for i, rec in enumerate(records):
        stack = [rec.out.grad_fn]
        while stack:
            node = stack.pop()
            for nxt, _ in getattr(node, "next_functions", ()):
                if nxt is None or id(nxt) in own or hasattr(nxt, "variable"):
                    continue
                if id(nxt) not in owner:
                    owner[id(nxt)] = i
                    stack.append(nxt)
    items: list[tuple[str, str, int | None]] = []        # kind (own, leaf, other), text, row
    group: list[int | None] = []
    for node in ran:
        if id(node) in own:
            items.append(("own", f"#{own[id(node)]} {_node_name(node)}", None))
        elif hasattr(node, "variable"):
            items.append(("leaf", _node_name(node), row_of.get(id(node.variable))))
        else:
            items.append(("other", _node_name(node), None))
        group.append(owner.get(id(node), group[-1] if group else None))
    runs_of: dict[int, int] = {}                 # leaf row: how often its node ran
    for kind, _, r in items:
        if kind == "leaf" and r is not None:
            runs_of[r] = runs_of.get(r, 0) + 1
    n_sends: dict[int, int] = {}                 # row: how many shares the tape sent it
    for e in run.events:
        if e[0] == "send" and id(e[1]) in row_of:
            n_sends[row_of[id(e[1])]] = n_sends.get(row_of[id(e[1])], 0) + 1

    # The backward, one step a pop: the shares the tape sent, and the nodes autograd
    # ran for the same record (its own node, then up to the last node its op made).
    steps: list[tuple[int, list, list[int]]] = []        # record, sends, new items
    start = None
    shown = 0
    for e in run.events:
        if e[0] == "start":
            start = e
        elif e[0] == "pop":
            if e[1] is None:
                raise ValueError("the tape popped a record it did not hold when watch_tape began")
            last = max((k for k, gr in enumerate(group) if gr == e[1]), default=shown - 1)
            steps.append((e[1], [], list(range(shown, max(shown, last + 1)))))
            shown = max(shown, last + 1)
        elif e[0] == "send" and steps:
            if id(e[1]) not in row_of:
                raise ValueError(f"record #{steps[-1][0]} sent a share to a tensor not on the "
                                 "tape")
            steps[-1][1].append(e[1:])
    if start is None:
        raise ValueError("tape_story needs the start that tape.backward(loss) runs")
    _, loss, seen = start
    if id(loss) not in row_of or seen.get(id(loss)) is None:
        raise ValueError("tape.backward(loss) got a loss that no record on the tape made")

    def no_node(i: int) -> list[str]:            # leaves sent a share autograd never needs
        return [f"{label[id(t)]} does not require grad: autograd skips it"
                for t in dict.fromkeys(records[i].inputs)
                if id(t) in by_id and not t.requires_grad]

    # A frame 360 units wide, text at 13: a colour key, the table, autograd's nodes under it.
    width, y_head, row_h, line_h = 360, 60, 19, 17
    top = y_head + 6
    xn, xm, xv, xg, xgr = 6, 54, 232, 290, 352
    panel = top + len(rows) * row_h + 8

    def summed(new: list[int]) -> list[int]:     # leaf rows whose one AccumulateGrad run,
        return [r for kind, _, r in (items[k] for k in new)       # shown here, adds up
                if kind == "leaf" and r is not None and runs_of[r] == 1
                and n_sends.get(r, 0) > 1]            # several shares the tape sent

    n_lines = max([len(new) + len(no_node(i)) + bool(summed(new)) for i, _, new in steps]
                  + [2])
    height = panel + 18 + n_lines * line_h + 10
    key = [[("blue", "on the tape"), ("grey faint", "popped"), ("grey", "leaf")],
           [("orange hot", "this step's record"), ("orange", "got a share")]]

    def draw(n_rows: int, g: dict[int, str], hot_rows: dict[int, str], hot_g: set[int],
             popped: set[int], grads: dict[int, str], lines=None) -> Canvas:
        pic = Canvas(width, height)
        for k, line in enumerate(key):           # the colour key, two lines
            x = xn
            for look, text in line:
                pic.box(x, 4 + 18 * k, 14, 13, cls=look)
                pic.text(x + 18, 15 + 18 * k, text)
                x += 18 + 6.4 * len(text) + 18
        pic.text(xn, y_head - 5, "tensor", cls="bold")
        pic.text(xm, y_head - 5, "made by", cls="bold")
        pic.text(xv, y_head - 5, "value", cls="bold", anchor="end")
        pic.text(xg, y_head - 5, ".g", cls="bold red", anchor="end")
        pic.text(xgr, y_head - 5, ".grad", cls="bold", anchor="end")
        for r in range(n_rows):
            t, name, how, rec = rows[r]
            y = top + r * row_h
            if rec is None:
                look = "grey"
            elif rec in popped:
                look = "grey faint"
            else:
                look = "blue"
            look = hot_rows.get(r, look)
            pic.box(2, y, width - 4, row_h - 2, cls=look)
            base = y + 13
            pic.text(xn, base, name, cls="bold")
            pic.text(xm, base, how, cls="grey" if rec is None else "")
            pic.text(xv, base, _num(t), anchor="end")
            if r in g:
                pic.text(xg, base, g[r], cls="red" + (" hot" if r in hot_g else ""),
                         anchor="end")
            if r in grads:
                pic.text(xgr, base, grads[r], anchor="end")
        pic.line(2, panel - 3, width - 2, panel - 3, cls="grey faint", arrow=False)
        if lines is None:
            pic.text(xn, panel + 13, "autograd's own backward shows here, pop by pop",
                     cls="grey")
            return pic
        pic.text(xn, panel + 13, "autograd's run, aligned to the tape's pops:", cls="bold")
        if lines:                                # what ran for this pop: on orange
            pic.box(2, panel + 18, width - 4, len(lines) * line_h + 6, cls="orange")
        for k, (text, look) in enumerate(lines):
            pic.text(xn + (4 if look == "own" else 16), panel + 18 + (k + 1) * line_h, text,
                     cls={"own": "bold", "leaf": "red"}.get(look, "grey"))
        return pic

    frames = []
    popped: set[int] = set()
    g: dict[int, str] = {}
    uses: dict[int, int] = {}
    # One forward frame a layer: a record, and a one-input op on its output (a ReLU
    # after a lin, the loss after the last lin) join one frame.
    groups: list[list[int]] = []
    for i, rec in enumerate(records):
        if (groups and len(groups[-1]) == 1 and len(rec.inputs) == 1
                and rec.inputs[0] is records[i - 1].out):
            groups[-1].append(i)
        else:
            groups.append([i])
    for group in groups:
        said, made_here, nth = [], [], {}
        for i in group:
            rec = records[i]
            for t in dict.fromkeys(id(t) for t in rec.inputs):
                k = sum(1 for u in rec.inputs if id(u) == t)
                before = uses.get(t, 0)
                uses[t] = before + k
                if before + k > 1:
                    nm = label[t]
                    if k == 1:                   # the nth use: one phrase per n
                        nth.setdefault(_ordinal(before + 1), []).append(nm)
                    else:
                        said.append(f"{nm} used twice here" if k == 2 and not before else
                                    f"{nm} used {before + k} times so far")
            made_here.append(f"#{i} = {rows[row_of[id(rec.out)]][2]} = {_num(rec.out)}")
        last = row_of[id(records[group[-1]].out)]
        hot = {r: "orange hot" for r in range(first_row[group[0]], last + 1)
               if rows[r][3] is not None}        # the records made now; a leaf stays grey
        caption = f"Forward, on the tape: {', '.join(made_here)}"
        said += [f"{nms[0]}'s {n} use" if len(nms) == 1 else
                 f"{n} use of {', '.join(nms[:-1])} and {nms[-1]}" for n, nms in nth.items()]
        caption = _short(caption + "".join(f"; {s}" for s in said), caption)
        frames.append((draw(last + 1, g, hot, set(), popped, {}), caption))

    for r, (t, *_) in enumerate(rows):
        if seen.get(id(t)) is not None:
            g[r] = _num(seen[id(t)])
    frames.append((draw(len(rows), g, {row_of[id(loss)]: "orange hot"}, {row_of[id(loss)]},
                        popped, {}),
                   f"Backward: start sets every .g on the tape to 0, then "
                   f"{label[id(loss)]}.g (the loss's) to {_num(seen[id(loss)])}"))

    grads: dict[int, str] = {}
    shown_runs: dict[int, int] = {}
    sent: dict[int, int] = {}                    # row: shares the tape sent it so far
    for i, sends, new in steps:
        rec = records[i]
        lines, filled = [], []
        for k in new:
            kind, text, r = items[k]
            if kind == "leaf" and r is not None:
                shown_runs[r] = shown_runs.get(r, 0) + 1
                leaf, name = rows[r][0], rows[r][1]
                text = f"{text} → {name}.grad"
                if shown_runs[r] == runs_of[r] and leaf.grad is not None:
                    grads[r] = _num(leaf.grad)       # its .grad once its last run is shown
                    text += f" = {grads[r]}"
                    filled.append(f"{name}.grad")
            lines.append((text, kind))
        if summed(new):
            lines.append(("each set once, on the sum of its shares" if len(summed(new)) > 1
                          else "set once, on the sum of its shares", "other"))
        lines += [(text, "other") for text in no_node(i)]
        hot_g = set()
        parts = []
        for t, share, after in sends:
            r = row_of[id(t)]
            sent[r] = sent.get(r, 0) + 1
            g[r] = _num(after)
            hot_g.add(r)                         # the running .g, where it adds to a share
            parts.append(f"{label[id(t)]}.g += {_num(share)}"
                         + (f" → {g[r]}" if sent[r] > 1 else ""))
        # A leaf the tape sent a share whose AccumulateGrad runs later: autograd waits.
        held = [r for r in dict.fromkeys(row_of[id(t)] for t, _, _ in sends)
                if rows[r][3] is None and rows[r][0].requires_grad and r not in grads]
        left = {n_sends[r] - sent[r] for r in held}     # shares still to come, per leaf
        tail = f"; autograd sets {', '.join(filled)}" if filled else ""
        if held:
            more = (f"{min(left)} more use{'s' * (min(left) > 1)}" if len(left) == 1
                    else "more uses")
            nms = [rows[r][1] for r in held]
            tail += f"; autograd waits for {more} of " + (
                nms[0] if len(nms) == 1 else f"{', '.join(nms[:-1])} and {nms[-1]}")
        sends_text = ", ".join(parts)
        head = f"Pop #{i} ({rec.op}, #{i}.g = {g.get(row_of[id(rec.out)], '?')}): {sends_text}"
        short = f"Pop #{i} ({rec.op}): {sends_text}"
        caption = _short(head + tail, _short(short + tail, head))
        hot = {row_of[id(t)]: "orange" for t in rec.inputs} | {row_of[id(rec.out)]: "orange hot"}
        frames.append((draw(len(rows), g, hot, hot_g, popped, grads, lines), caption))
        popped.add(i)
    return Stepper(frames, title=title)
