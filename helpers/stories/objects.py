"""Notebook 02's step-through: lesson 8's layers and the tensor objects they hold.

    with watch_layers(Lin, Relu, Mse) as events:    # record, then run as usual
        model(xb, yb)
        model.backward()
    layer_story(events, names=dict(xb=xb, yb=yb, w1=w1, b1=b1, w2=w2, b2=b2))

`watch_layers` wraps the classes' ``__call__`` and ``backward`` while the block
runs (and puts them back after): each call and each backward of any instance is
recorded, in order, with the objects involved; what a backward printed is kept,
not shown. `layer_story` draws the record: every tensor object a box, every
layer a box whose attributes (``inp``, ``out``, ``w``, ...) are arrows to the
boxes they name, and frame by frame the objects as they appeared and the
``.g`` as each backward set it. Nothing is placed by hand: boxes, arrows and
``.g`` come from the objects the model really held.
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

    For a call, `args` are its arguments and `out` what it returned; `g_before`
    says whether `out` already had a ``.g`` when the call returned. For a
    backward, `wrote` are the tensors whose ``.g`` it set or changed, and `read`
    is ``layer.out`` if that held a ``.g`` when the backward began.
    """

    kind: str
    layer: object
    args: tuple = ()
    out: object = None
    g_before: bool = False
    wrote: list = field(default_factory=list)
    read: object = None
    printed: str = ""


def _g_state(t: object) -> object:
    g = getattr(t, "g", None)
    return None if g is None else (id(g), getattr(g, "_version", None))


def _tensors_of(events: list[Event]) -> list[torch.Tensor]:
    seen: dict[int, torch.Tensor] = {}
    for e in events:
        for t in (*e.args, e.out, *vars(e.layer).values()):
            if isinstance(t, torch.Tensor):
                seen.setdefault(id(t), t)
    return list(seen.values())


@contextlib.contextmanager
def watch_layers(*classes: type) -> Iterator[list[Event]]:
    """Record every ``__call__`` and ``backward`` of instances of `classes`, in order."""
    if not classes or not all(isinstance(c, type) for c in classes):
        raise TypeError("watch_layers needs the layer classes, e.g. watch_layers(Lin, Relu, Mse)")
    events: list[Event] = []
    saved = {c: (c.__dict__.get("__call__"), c.__dict__.get("backward")) for c in classes}
    for c in classes:
        if not callable(c) or not callable(getattr(c, "backward", None)):
            raise TypeError(f"{c.__name__} needs a __call__ and a backward method")

    def wrap_call(original):
        def __call__(self, *args, **kwargs):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                out = original(self, *args, **kwargs)
            events.append(Event("call", self, args, out, hasattr(out, "g"),
                                printed=printed.getvalue()))
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


def layer_story(events: list[Event], names: Mapping[str, torch.Tensor] | None = None, *,
                title: str = "One forward pass, then one backward pass") -> Stepper:
    """Draw recorded `events` (from `watch_layers`) as a step-through, one frame an event.

    `names` gives some tensors a name (``{"xb": xb, "w1": w1}``); the others are
    numbered T0, T1, ... in the order they appeared.
    """
    if not isinstance(events, list) or not events or not all(isinstance(e, Event) for e in events):
        raise ValueError("layer_story needs the list that watch_layers recorded, with events in it")
    names = dict(names or {})
    for k, t in names.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"names[{k!r}] is a {type(t).__name__}, not a tensor")
    by_id = {id(t): k for k, t in names.items()}
    lname = _layer_names(events)

    # Rows: every call puts its layer on a row, its output on the next tensor row.
    calls = [e for e in events if e.kind == "call"]
    tname: dict[int, str] = {}
    order: list[torch.Tensor] = []          # the flowing tensors, in order of appearance
    params: dict[int, list[torch.Tensor]] = {}   # per layer: its other tensor attributes
    for e in calls:
        flowing = [e.args[0], e.out] if e.args else [e.out]
        for t in flowing:
            if isinstance(t, torch.Tensor) and id(t) not in tname:
                tname[id(t)] = by_id.get(id(t), f"T{len(order)}")
                order.append(t)
        extra = [v for v in vars(e.layer).values()
                 if isinstance(v, torch.Tensor) and all(v is not f for f in flowing)]
        params[id(e.layer)] = extra
        for t in extra:
            tname.setdefault(id(t), by_id.get(id(t), f"P{len(tname)}"))

    row_h, top, bh = 64, 30, 40
    height = top + row_h * (len(calls) + 1)
    tensor_y = {id(t): top + i * row_h for i, t in enumerate(order)}
    layer_y = {id(e.layer): top + row_h // 2 + i * row_h for i, e in enumerate(calls)}
    px, pw, lx, lw, tx, tw = 2, 56, 80, 86, 238, 120

    def draw(seen: set[int], g_set: dict[int, str], called: set[int], hot: dict[str, str],
             no_g: int | None = None) -> Canvas:
        """hot: what this frame changed, key -> look ("t:<id>" a box, "a:<layer>:<attr>"
        an arrow, "l:<layer>" a layer)."""
        pic = Canvas(360, height)
        pic.text(lx + lw / 2, 14, "layers", cls="small bold", anchor="middle")
        pic.text(tx + tw / 2, 14, "tensor objects", cls="small bold", anchor="middle")
        for e in calls:
            if id(e.layer) not in called:
                continue
            y, lid = layer_y[id(e.layer)], id(e.layer)
            pic.box(lx, y - bh / 2, lw, bh, lname[lid], cls="orange " + hot.get(f"l:{lid}", ""),
                    sub=type(e.layer).__name__ + "()")
            attrs = {id(v): a for a, v in vars(e.layer).items() if isinstance(v, torch.Tensor)}
            for i, t in enumerate(params[lid]):            # w, b, targ: left of the layer
                py, k = y - bh / 2 + i * 22, id(t)
                look = hot.get(f"a:{lid}:{attrs[k]}", "")
                pic.box(px, py, pw, 19, "", cls=("red " if k in g_set else "grey ") + look)
                pic.text(px + pw / 2, py + 14, tname[k] + (" .g" if k in g_set else ""),
                         cls="small " + look, anchor="middle")
                pic.line(lx, py + 9.5, px + pw + 1, py + 9.5, cls="grey " + look)
                pic.text(lx - 4, py + 7, attrs[k], cls="small grey", anchor="end")
            for attr, v in vars(e.layer).items():           # its attributes naming a tensor
                if not isinstance(v, torch.Tensor) or id(v) not in tensor_y:
                    continue
                ty = tensor_y[id(v)] + bh / 2
                look = hot.get(f"a:{lid}:{attr}", "")
                pic.line(lx + lw, y, tx - 2, ty, cls=(look or "blue"))
                up = ty < y
                lxp, lyp = lx + lw + 0.3 * (tx - lx - lw), y + 0.3 * (ty - y)
                pic.text(lxp, lyp + (-5 if up else 13), attr,
                         cls="small " + (look or "blue"), anchor="middle")
        for t in order:
            k = id(t)
            if k not in seen:
                continue
            y = tensor_y[k]
            sub, cls = (f".g {g_set[k]}", "red") if k in g_set else ("no .g", "blue")
            label = f"{tname[k]} {_shape(t)}"
            pic.box(tx, y, tw, bh, label, cls=f"{cls} {hot.get(f't:{k}', '')}", sub=sub)
            if k == no_g:
                pic.text(tx + tw / 2, y + bh + 13, "out.g: AttributeError", cls="small red bold",
                         anchor="middle")
        return pic

    frames = []
    seen: set[int] = set()
    g_set: dict[int, str] = {}
    called: set[int] = set()
    first = calls[0].args[0] if calls[0].args else None
    if isinstance(first, torch.Tensor):
        seen.add(id(first))
        frames.append((draw(seen, g_set, called, {f"t:{id(first)}": "hot"}),
                       f"Forward. The batch goes in: one tensor object, {tname[id(first)]}."))
    for e in events:
        lid, name = id(e.layer), lname[id(e.layer)]
        attrs = {id(v): a for a, v in vars(e.layer).items() if isinstance(v, torch.Tensor)}
        if e.kind == "call":
            called.add(lid)
            seen.update(id(t) for t in (*e.args[:1], e.out) if isinstance(t, torch.Tensor))
            hot = {f"l:{lid}": "hot", f"t:{id(e.out)}": "hot"}
            hot |= {f"a:{lid}:{a}": "blue hot" for a in attrs.values()}
            o, i = tname[id(e.out)], tname[id(e.args[0])]
            said = e.printed.strip().splitlines()
            quote = f', prints "{said[-1]}"' if said and not e.g_before else ""
            caption = f"{name}({i}) stores {i} as inp, makes a new {o} as out{quote}"
            if not e.g_before:
                caption += f": {o} has no .g yet"
            frames.append((draw(seen, g_set, called, hot, None if e.g_before else id(e.out)),
                           caption))
        else:
            hot = {f"l:{lid}": "hot"}
            for t in e.wrote:
                g = getattr(t, "g", None)
                g_set[id(t)] = _shape(g) if isinstance(g, torch.Tensor) else "set"
                hot[f"t:{id(t)}"] = "hot"
                if id(t) in attrs:
                    hot[f"a:{lid}:{attrs[id(t)]}"] = "red hot"
            wrote = ", ".join(f"{attrs[id(t)]} ({tname[id(t)]})" if id(t) in attrs
                              else tname.get(id(t), "?") for t in e.wrote)
            if e.read is not None:
                hot[f"a:{lid}:{attrs[id(e.read)]}"] = "red dashed hot"
                caption = (f"{name}.backward() reads out.g, on {tname[id(e.read)]}; "
                           f"sets .g on {wrote}")
            else:
                caption = f"{name}.backward() sets .g on {wrote}"
            frames.append((draw(seen, g_set, called, hot), caption))
    return Stepper(frames, title=title)
