"""Figures for the notebooks that would only distract from the lesson in a cell.

    fig = draw_layer_flow()     # notebook 02: the lesson-8 model's objects and its .g flow
    plt.show()

    log_log_axes(ax, xlabel="batch size N", ylabel="time (ms)")   # plain numbers on log axes
"""

from __future__ import annotations

__all__ = ["draw_layer_flow", "log_log_axes"]

# The lesson-8 model as drawn by `draw_layer_flow`: five tensors T0..T4 with the
# four layers between them, each layer's parameters (if any), and the shape of
# each tensor's .g (the loss T4 gets none: Mse.backward starts from its formula).
_TENSORS = ["T0  inp\n(N, 8)", "T1  l1\n(N, 16)", "T2  l2\n(N, 16)", "T3  out\n(N, 1)",
            "T4  loss\n()"]
_LAYERS = ["Lin(w1, b1)", "Relu()", "Lin(w2, b2)", "Mse()"]
_PARAMS = ["w1 (8, 16)\nb1 (16,)", None, "w2 (16, 1)\nb2 (1,)", "targ (N,)"]
_G_SHAPES = ["(N, 8)", "(N, 16)", "(N, 16)", "(N, 1)"]

_X_TENSOR = [0.0, 2.4, 4.8, 7.2, 9.6]          # x of T0..T4
_X_LAYER = [1.2, 3.6, 6.0, 8.4]                # x of each layer, between its tensors
_Y_FORWARD, _Y_G, _Y_PARAM = 2.0, 0.35, 3.65   # rows: forward chain, .g boxes, parameters

_RED, _DARK_RED, _GREY = "#b91c1c", "#7f1d1d", "#6b7280"
_TENSOR_COLOURS = ("#dbeafe", "#1d4ed8")        # (fill, edge)
_LAYER_COLOURS = ("#fef3c7", "#b45309")
_G_COLOURS = ("#fee2e2", _RED)
_PARAM_COLOURS = ("#f3f4f6", _GREY)


def _box(ax, x, y, text, colours, w, h, **text_kw):
    """A rounded box of width `w` and height `h` centred on (x, y), with `text` in it."""
    from matplotlib.patches import FancyBboxPatch

    fill, edge = colours
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.04",
                                fc=fill, ec=edge, lw=1.4))
    ax.text(x, y, text, ha="center", va="center", fontsize=9, **text_kw)


def _arrow(ax, start, end, color, rad=0.0, ls="-"):
    """An arrow from `start` to `end` (data coordinates), bent by `rad`."""
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=13, color=color,
                                 lw=1.5, ls=ls, connectionstyle=f"arc3,rad={rad}"))


def _label(ax, x, y, text):
    """A small red label on a white background, so that it stays readable over an arrow."""
    ax.text(x, y, text, color=_RED, fontsize=8, ha="center", va="center",
            bbox=dict(fc="white", ec="none", pad=1))


def draw_layer_flow():
    """Draw the lesson-8 model ``Lin -> Relu -> Lin -> Mse`` as objects, and where each ``.g`` goes.

    The middle row is the forward pass: the tensors ``T0`` (``inp``) to ``T4``
    (the loss) in blue, the layers in yellow between them. Each black arrow
    stands for **one** object: the layer on its left returns it as ``.out`` and
    the layer on its right stores it as ``.inp``. Grey boxes above are the
    tensors a layer holds besides its input (weights and bias; ``targ`` for
    ``Mse``).

    The bottom row is the backward pass, in red, numbered in the order
    ``Model.backward`` runs it: step 1, ``Mse.backward``, writes ``T3.g``;
    step 2, the last ``Lin``, reads ``T3.g`` (dashed) and writes ``T2.g`` (and
    ``w2.g``, ``b2.g``); and so on down to step 4, which writes ``T0.g``. Each
    ``.g`` box is attached to one tensor, so the layer that writes it and the
    layer that reads it meet on the same object.

    Returns:
        The matplotlib ``Figure`` (one axes, axis lines off); show it with
        ``plt.show()``.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(13, 5.2))
    ax.set_xlim(-0.9, 10.5)
    ax.set_ylim(-0.75, 4.45)
    ax.axis("off")

    # Forward: tensors, and each tensor's .g box below it (the loss has none).
    for k, (x, text) in enumerate(zip(_X_TENSOR, _TENSORS)):
        _box(ax, x, _Y_FORWARD, text, _TENSOR_COLOURS, w=0.95, h=0.62)
        if k < len(_G_SHAPES):
            _box(ax, x, _Y_G, f"T{k}.g  {_G_SHAPES[k]}", _G_COLOURS, w=0.95, h=0.42,
                 color=_DARK_RED)

    for k, (x, name) in enumerate(zip(_X_LAYER, _LAYERS)):
        # Forward: the layer stores T{k} as .inp and returns T{k+1} as .out.
        _box(ax, x, _Y_FORWARD, f"{name}\n.inp = T{k}\n.out = T{k + 1}", _LAYER_COLOURS,
             w=1.15, h=0.95)
        _arrow(ax, (_X_TENSOR[k] + 0.5, _Y_FORWARD), (x - 0.6, _Y_FORWARD), "black")
        _arrow(ax, (x + 0.6, _Y_FORWARD), (_X_TENSOR[k + 1] - 0.5, _Y_FORWARD), "black")
        if _PARAMS[k]:
            _box(ax, x, _Y_PARAM, _PARAMS[k], _PARAM_COLOURS, w=1.15, h=0.55)
            _arrow(ax, (x, _Y_PARAM - 0.3), (x, _Y_FORWARD + 0.5), _GREY)

        # Backward: the layer writes its input's .g; every layer but Mse first reads
        # its output's .g. Mse (k = 3) runs first, so layer k is step 4 - k.
        _arrow(ax, (x - 0.25, _Y_FORWARD - 0.5), (_X_TENSOR[k] + 0.2, _Y_G + 0.23), _RED,
               rad=-0.15)
        _label(ax, x - 0.62, 1.05, f"{4 - k}: writes")
        if k < len(_LAYERS) - 1:
            _arrow(ax, (_X_TENSOR[k + 1] - 0.2, _Y_G + 0.23), (x + 0.25, _Y_FORWARD - 0.5), _RED,
                   rad=-0.15, ls="--")
            _label(ax, x + 0.62, 1.05, "reads")

    for x, text in [(_X_LAYER[0], "step 4 also writes w1.g, b1.g"),
                    (_X_LAYER[2], "step 2 also writes w2.g, b2.g")]:
        ax.text(x, -0.3, text, color=_RED, fontsize=8, ha="center")
    ax.text(-0.85, 4.3, "black, forward: each arrow passes one object along; "
            "it is the .out of one layer and the .inp of the next", fontsize=9, va="center")
    ax.text(-0.85, -0.72, "red, backward: steps 1-4 in the order Model.backward runs them; "
            "each .g is set once, on the one shared object, and read from it",
            fontsize=9, color=_RED)
    ax.set_title("The lesson-8 model: which tensor each layer stores, where each .g is written")
    return fig


def log_log_axes(ax, **props):
    """Make `ax` log-log with plain-number tick labels (16, 0.1, 1000) and a light grid.

    Keyword arguments go to ``ax.set`` (``xlabel``, ``ylabel``, ``title``,
    ``xticks``, ...). Returns `ax`.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set(xscale="log", yscale="log", **props)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", alpha=0.3)
    return ax
