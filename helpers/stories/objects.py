"""Notebook 02's step-through: lesson 8's layers and the tensor objects they hold.

    with watch_layers(Lin, Relu, Mse) as events:    # record, then run as usual
        model(xb, yb)
        model.backward()
    layer_story(events, names=dict(xb=xb, yb=yb, w1=w1, b1=b1, w2=w2, b2=b2))

`watch_layers` wraps the classes' ``__call__`` and ``backward`` while the block
runs (and puts them back after): each call and each backward of any instance is
recorded, in order, with the objects involved and which of them carried a
``.g``; what a layer printed is kept, not shown. `layer_story` draws the
record, one frame an event: every tensor object a box, every layer a box whose
attributes (``inp``, ``out``, ``w``, ...) are arrows to the boxes they name.
The boxes appear in the order the forward pass made them; then each backward
reads ``out.g`` through one arrow and sets ``.g`` through others. Nothing is
placed by hand: boxes, arrows and ``.g`` come from the objects the layers held.
A forward pass and its backward may be recorded in two blocks, one list each:
``layer_story(events + more)`` draws them as one record.

Three things a learner asks about are drawn from the record as well:

- the **AttributeError**: the call whose ``out`` the first backward writes on
  (the question's last ``Lin``, whose ``out`` the loss stores) is marked with
  the error that reading ``out.g`` would get there, because no backward has set
  it; the caption quotes the last line that call printed, hidden while recorded
  (the question's guard: "out.g dne yet");
- the **old out** of that call: the tensor its layer held as ``out`` before
  the call, from the previous forward pass (recorded as `Event.before`), drawn
  from that frame on in a row of its own, with the ``.g`` it had ("never got a
  .g" if none), and no arrow (no layer names it any more);
- a ``.g`` **left from an earlier pass** (long-lived tensors keep theirs: the
  batch, the weights) is drawn dashed and grey until this pass replaces it.

A legend at the bottom explains the two dashed looks in the frames that show
them: a dashed box (a ``.g`` left from an earlier pass) and the red dashed arrow
(the ``out.g`` this backward reads).

The layers must keep their tensors as attributes (lesson 8's ``self.inp``,
``self.out``, ``self.w``); the first argument of a call is its flowing input.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import torch

from helpers.stepper import Canvas, Stepper

__all__ = ["Event", "layer_story", "watch_layers"]


@dataclass
class Event:
    """One recorded call (``kind="call"``) or backward (``kind="backward"``) of `layer`.

    For a call, `args` are its arguments and `out` what it returned; `had_g`
    holds the ids of the tensors involved (the arguments, `out`, the layer's
    tensor attributes) that carried a ``.g`` when the call returned. For a
    backward, `wrote` are the tensors whose ``.g`` it set or changed, and `read`
    is ``layer.out`` if that held a ``.g`` when the backward began. `before` is
    what ``layer.out`` held before a call (None if nothing: the first call), also
    in `had_g` if it carried a ``.g``. `printed` is what the layer printed meanwhile.
    """

    kind: str
    layer: object
    args: tuple = ()
    out: object = None
    had_g: frozenset = frozenset()
    wrote: list = field(default_factory=list)
    read: object = None
    printed: str = ""
    before: object = None


def _g_state(t: object) -> object:
    g = getattr(t, "g", None)
    return None if g is None else (id(g), getattr(g, "_version", None))


def _tensors(*objects: object) -> list[torch.Tensor]:
    """The distinct tensors among `objects`, in order."""
    seen: dict[int, torch.Tensor] = {}
    for t in objects:
        if isinstance(t, torch.Tensor):
            seen.setdefault(id(t), t)
    return list(seen.values())


def _tensors_of(events: list[Event]) -> list[torch.Tensor]:
    return _tensors(*(t for e in events for t in (*e.args, e.out, *vars(e.layer).values())))


@contextlib.contextmanager
def watch_layers(*classes: type) -> Iterator[list[Event]]:
    """Record every ``__call__`` and ``backward`` of instances of `classes`, in order."""
    if not classes or not all(isinstance(c, type) for c in classes):
        got = ", ".join(type(c).__name__ for c in classes) or "nothing"
        raise TypeError("watch_layers needs the layer classes, e.g. watch_layers(Lin, Relu, "
                        f"Mse); got {got}")
    for c in classes:
        if not callable(getattr(c, "backward", None)):
            raise TypeError(f"{c.__name__} needs a __call__ and a backward method")
    events: list[Event] = []
    saved = {c: (c.__dict__.get("__call__"), c.__dict__.get("backward")) for c in classes}

    def wrap_call(original):
        def __call__(self, *args, **kwargs):
            before = getattr(self, "out", None)        # the last call's out, if any
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                out = original(self, *args, **kwargs)
            involved = _tensors(*args, out, before, *vars(self).values())
            had_g = frozenset(id(t) for t in involved if hasattr(t, "g"))
            events.append(Event("call", self, args, out, had_g, printed=printed.getvalue(),
                                before=before))
            return out
        return __call__

    def wrap_backward(original):
        def backward(self, *args, **kwargs):
            known = _tensors_of([*events, Event("call", self)])
            before = {id(t): _g_state(t) for t in known}
            out = getattr(self, "out", None)
            read = out if hasattr(out, "g") else None
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                result = original(self, *args, **kwargs)
            wrote = [t for t in known if _g_state(t) != before[id(t)]]
            events.append(Event("backward", self, wrote=wrote, read=read,
                                printed=printed.getvalue()))
            return result
        return backward

    for c in classes:
        c.__call__ = wrap_call(c.__call__)
        c.backward = wrap_backward(c.backward)
    try:
        yield events
    finally:
        for c, (call, backward) in saved.items():
            for name, original in (("__call__", call), ("backward", backward)):
                if original is None:
                    delattr(c, name)
                else:
                    setattr(c, name, original)


def _layer_names(events: list[Event]) -> dict[int, str]:
    """lin1, relu, lin2, mse: the class name in lower case, numbered where repeated."""
    layers: list[object] = []
    for e in events:
        if all(e.layer is not known for known in layers):
            layers.append(e.layer)
    kinds = [type(layer).__name__.lower() for layer in layers]
    names, count = {}, {}
    for layer, k in zip(layers, kinds):
        count[k] = count.get(k, 0) + 1
        names[id(layer)] = f"{k}{count[k]}" if kinds.count(k) > 1 else k
    return names


def _shape(t: torch.Tensor) -> str:
    return str(tuple(t.shape)).replace(",)", ")") if t.dim() else "scalar"


def _attrs(layer: object) -> dict[int, str]:
    """id of each tensor the layer holds -> the attribute naming it (the first, if several)."""
    found: dict[int, str] = {}
    for a, v in vars(layer).items():
        if isinstance(v, torch.Tensor):
            found.setdefault(id(v), a)
    return found


def _fit(caption: str, *extras: str) -> str:
    """`caption` plus the `extras` that still fit the stepper's one line (120 characters),
    or its first 119 characters and an ellipsis."""
    for extra in extras:
        if len(caption + extra) <= 120:
            caption += extra
    return caption if len(caption) <= 120 else caption[:119] + "\u2026"


# Layout, in SVG units (a frame is 360 wide): parameters, layers, tensor objects.
_PX, _PW, _LX, _LW, _TX, _TW = 2, 50, 80, 86, 236, 122
_TOP, _ROW, _BH, _PH = 30, 64, 40, 19


def layer_story(events: list[Event], names: Mapping[str, torch.Tensor] | None = None, *,
                title: str | None = None) -> Stepper:
    """Draw recorded `events` (from `watch_layers`) as a step-through, one frame an event.

    `names` gives some tensors a name (``{"xb": xb, "w1": w1}``); the others are
    numbered T1, T2, ... in the order the forward pass made them (T0 if the
    batch has no name). The title says which layers ran, e.g. "Lin → Relu →
    Lin → Mse: forward, then backward", unless `title` is given.
    """
    if not isinstance(events, list) or not events or not all(isinstance(e, Event) for e in events):
        raise ValueError("layer_story needs the list that watch_layers recorded, with events in it")
    names = dict(names or {})
    for k, t in names.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"names[{k!r}] is a {type(t).__name__}, not a tensor")
    calls = [e for e in events if e.kind == "call"]
    if not calls or not calls[0].args or not isinstance(calls[0].args[0], torch.Tensor):
        raise ValueError("layer_story needs a recorded forward pass: a layer called on a tensor "
                         "inside the watch_layers block")
    if title is None:
        title = " \u2192 ".join(type(e.layer).__name__ for e in calls) + (
            ": forward, then backward" if len(calls) < len(events) else ": forward")
    by_id = {id(t): k for k, t in names.items()}
    lname = _layer_names(events)

    # Rows: every call puts its layer on a row, its output on the next tensor row;
    # a layer's other tensors (w, b, targ) go on its left, in the parameter column.
    tname: dict[int, str] = {}
    order: list[torch.Tensor] = []                 # the flowing tensors, in order
    params: dict[int, list[torch.Tensor]] = {}     # per layer: its other tensors
    first_g: dict[int, bool] = {}                  # had a .g when first seen
    for e in calls:
        flowing = _tensors(e.args[0] if e.args else None, e.out)
        for t in flowing:
            if id(t) not in tname:
                tname[id(t)] = by_id.get(id(t), f"T{len(order)}")
                order.append(t)
        params[id(e.layer)] = [v for v in _tensors(*vars(e.layer).values())
                               if all(v is not f for f in flowing)]
        for t in [*flowing, *params[id(e.layer)]]:
            tname.setdefault(id(t), by_id.get(id(t), f"P{len(tname)}"))
            first_g.setdefault(id(t), id(t) in e.had_g)
    holders: dict[int, list[tuple[object, str]]] = {}   # tensor id -> (layer, attribute)
    for e in calls:
        for k, a in _attrs(e.layer).items():
            holders.setdefault(k, []).append((e.layer, a))
    # The question's moment: the call whose out the first backward sets .g on.
    first_back = next((e for e in events if e.kind == "backward"), None)
    asked = next((e for e in calls if first_back is not None and id(e.out) not in e.had_g
                  and any(e.out is t for t in first_back.wrote)), None)
    # Its old out, replaced by that call: a row of its own under the others.
    old = asked.before if asked is not None else None
    if not isinstance(old, torch.Tensor) or id(old) in tname or id(old) in holders:
        old = None
    if old is not None:
        tname[id(old)] = by_id.get(id(old), f"old {lname[id(asked.layer)]}.out")
        first_g[id(old)] = id(old) in asked.had_g
        order.append(old)
    tensor_y = {id(t): _TOP + i * _ROW for i, t in enumerate(order)}
    layer_y = {id(e.layer): _TOP + _ROW // 2 + i * _ROW for i, e in enumerate(calls)}
    height = _TOP + _ROW * len(order) - _ROW + _BH + 40      # room for two legend lines

    def draw(seen: set[int], g: dict[int, str], called: set[int], hot: dict[str, str],
             error: int | None = None) -> Canvas:
        """g: tensor id -> "old" (an earlier pass's .g) or the shape of this pass's .g.
        hot: what this frame changed, key -> look ("t:<id>" a box, "a:<layer>:<attr>"
        an arrow, "l:<layer>" a layer)."""
        pic = Canvas(360, height)
        pic.text(_LX + _LW / 2, 14, "layers", cls="bold", anchor="middle")
        pic.text(_TX + _TW / 2, 14, "tensor objects", cls="bold", anchor="middle")
        for e in calls:
            lid = id(e.layer)
            if lid not in called:
                continue
            y, attrs = layer_y[lid], _attrs(e.layer)
            look = "orange " + hot.get(f"l:{lid}", "")
            pic.box(_LX, y - _BH / 2, _LW, _BH, cls=look)    # two lines of full-size text
            pic.text(_LX + _LW / 2, y - 3, lname[lid], cls=look, anchor="middle")
            pic.text(_LX + _LW / 2, y + 13, type(e.layer).__name__ + "()", cls=look,
                     anchor="middle")
            for i, t in enumerate(params[lid]):            # w, b, targ: left of the layer
                py, k = y - _BH / 2 + i * (_PH + 3), id(t)
                look = hot.get(f"a:{lid}:{attrs[k]}", "")
                state = g.get(k)
                colour = "grey dashed" if state == "old" else "red" if state else "grey"
                pic.box(_PX, py, _PW, _PH, "", cls=f"{colour} {look}")
                pic.text(_PX + _PW / 2, py + 13.5, tname[k] + (" .g" if state else ""),
                         cls=f"{colour.split()[0]} {look}", anchor="middle")
                pic.line(_LX, py + _PH / 2, _PX + _PW + 1, py + _PH / 2,
                         cls=(look or "grey"))
                pic.text((_LX + _PX + _PW) / 2, py + _PH / 2 - 4.5, attrs[k],
                         cls="grey", anchor="middle")
            for k, attr in attrs.items():                  # inp, out: the flowing tensors
                if k not in tensor_y or k not in seen:
                    continue
                ty = tensor_y[k] + _BH / 2
                look = hot.get(f"a:{lid}:{attr}", "")
                x0, x1 = _LX + _LW, _TX - 2
                pic.line(x0, y, x1, ty, cls=look or "blue")
                cls = look or "blue"
                if ty <= y:                # going up: the label above the line, near the layer
                    at = 0.28
                    pic.text(x0 + at * (x1 - x0), y + at * (ty - y) - 7, attr, cls=cls,
                             anchor="middle")
                else:                      # going down: below the layer, left of the line
                    base = y + _BH / 2 + 13
                    top = base - 10                     # where the letters start
                    pic.text(x0 + (top - y) * (x1 - x0) / (ty - y) - 9, base, attr, cls=cls,
                             anchor="end")
        for t in order:
            k = id(t)
            if k not in seen:
                continue
            state = g.get(k)
            sub, cls = (("old .g", "grey dashed") if state == "old"
                        else (f".g {state}", "red") if state
                        else ("never got a .g" if t is old else "no .g", "blue"))
            look, x, y = f"{cls} {hot.get(f't:{k}', '')}", _TX + _TW / 2, tensor_y[k]
            pic.box(_TX, y, _TW, _BH, cls=look)            # two lines of full-size text
            pic.text(x, y + 17, f"{tname[k]} {_shape(t)}", cls=look, anchor="middle")
            pic.text(x, y + 33, sub, cls=look, anchor="middle")
            if k == error:
                pic.text(_TX + _TW, tensor_y[k] + _BH + 14, "reading out.g: AttributeError",
                         cls="red bold", anchor="end")
            if t is old:                                   # no arrow: say whose it was
                for i, line in enumerate((f"{lname[id(asked.layer)]}.out of the previous forward:",
                                          "no layer names it now")):
                    pic.text(_TX - 8, y + 17 + 16 * i, line, cls="grey", anchor="end")
        legend = (["dashed box: a .g left from an earlier pass"] if "old" in g.values()
                  else [])
        if any("red dashed" in look for look in hot.values()):
            legend.append("red dashed arrow: the out.g this backward reads")
        for i, line in enumerate(reversed(legend)):
            pic.text(2, height - 4 - 16 * i, line, cls="grey")
        return pic

    rank = {k: i for i, k in enumerate(tname)}     # the order the forward pass met them
    frames = []
    seen: set[int] = set()
    g: dict[int, str] = {}
    setter: dict[int, str] = {}          # tensor id -> the backward that set its .g
    called: set[int] = set()

    def appear(ts: list[torch.Tensor]) -> None:
        for t in ts:
            if id(t) not in seen and id(t) not in g and first_g.get(id(t)):
                g[id(t)] = "old"
            seen.add(id(t))

    first = calls[0].args[0]
    appear([first])
    frames.append((draw(seen, g, called, {f"t:{id(first)}": "hot"}),
                   f"Forward pass. The batch {tname[id(first)]} goes in: one tensor object."))
    for e in events:
        lid, name, attrs = id(e.layer), lname[id(e.layer)], _attrs(e.layer)
        if e.kind == "call":
            called.add(lid)
            appear([*_tensors(*e.args[:1], e.out), *params[lid],
                    *([old] if e is asked and old is not None else [])])
            hot = {f"l:{lid}": "hot", f"t:{id(e.out)}": "hot"}
            hot |= {f"a:{lid}:{a}": "blue hot" for a in attrs.values()}
            i, o = tname[id(e.args[0])], tname[id(e.out)]
            shown = ", ".join(tname.get(id(a), type(a).__name__) for a in e.args)
            others = [(layer, a) for layer, a in holders.get(id(e.args[0]), [])
                      if layer is not e.layer and a == "out"]
            for layer, a in others:            # the same object's other name
                hot[f"a:{id(layer)}:{a}"] = "blue hot"
            if e is asked:
                said = [line for line in e.printed.splitlines() if line.strip()]
                caption = _fit(f"{name}({shown}) makes a new {o} as out: reading out.g "
                               "here would raise AttributeError",
                               f" (the print, hidden, says {said[-1].strip()!r})" if said
                               else ", as nothing set it yet")
            elif others:
                caption = (f"{name}({shown}) stores {i} as inp: {lname[id(others[0][0])]}.out "
                           f"and {name}.inp name one object. Its out: a new {o}")
            else:
                caption = (f"{name}({shown}) stores {i} as inp and makes a new tensor, {o}, "
                           "kept as out")
            frames.append((draw(seen, g, called, hot, id(e.out) if e is asked else None),
                           _fit(caption)))
        else:
            hot = {f"l:{lid}": "hot"}
            lead = "Backward pass. " if e is first_back else ""
            for t in e.wrote:
                gt = getattr(t, "g", None)
                g[id(t)] = _shape(gt) if isinstance(gt, torch.Tensor) else "set"
                hot[f"t:{id(t)}"] = "hot"
                if id(t) in attrs:
                    hot[f"a:{lid}:{attrs[id(t)]}"] = "red hot"
                for layer, a in holders.get(id(t), []):    # where the next backward reads it
                    if layer is not e.layer and a == "out":
                        hot[f"a:{id(layer)}:{a}"] = "blue hot"
            told = sorted(e.wrote, key=lambda t: rank.get(id(t), len(rank)))
            wrote = ", ".join(f"{attrs[id(t)]} ({tname[id(t)]})" if id(t) in attrs
                              else tname.get(id(t), "another tensor") for t in told)
            if e.read is not None and id(e.read) in attrs:
                r = id(e.read)
                hot[f"a:{lid}:{attrs[r]}"] = "red dashed hot"
                source = f"set by {setter[r]}" if r in setter else "left from an earlier pass"
                caption = (f"{lead}{name}.backward() reads out.g, {tname[r]}'s, {source}. "
                           f"It sets .g on {wrote}")
            elif len(e.wrote) == 1 and id(e.wrote[0]) in attrs:
                t = e.wrote[0]
                keeps = [f"the object {lname[id(layer)]} keeps as {a}"
                         for layer, a in holders.get(id(t), []) if layer is not e.layer]
                caption = _fit(f"{lead}{name}.backward() sets {attrs[id(t)]}.g: .g on "
                               f"{tname[id(t)]}",
                               f", {keeps[0]}" if keeps else "")
            else:
                caption = f"{lead}{name}.backward() sets .g on {wrote}"
            for t in e.wrote:
                setter[id(t)] = name
            frames.append((draw(seen, g, called, hot), _fit(caption)))
    return Stepper(frames, title=title)
