"""Figures for the notebooks that would only distract from the lesson in a cell.

    fig = draw_graphs({"depth 2": autograd_graph(loss, params)}, highlight=["w"])

    log_log_axes(ax, xlabel="batch size N", ylabel="time (ms)")   # plain numbers on log axes
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from helpers.graph import Graph, Node

__all__ = ["draw_graphs", "graph_layout", "log_log_axes"]

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


# -- the autograd graph (helpers.graph.Graph) ---------------------------------------

_CHAR = 0.6   # width of one label character, in units of the font size (DejaVu Sans, roughly)
_ROW = 5.5     # height of one layer, in units of the font size (room for a 3-line label)
_WRAP = 14     # a leaf name longer than this is broken before its last dot


def _text(nd: Node) -> str:
    label = nd.label
    if nd.kind != "op" and len(label) > _WRAP and "." in label.strip("."):
        head, _, tail = label.rpartition(".")
        label = f"{head}\n.{tail}"        # middle_linear / .weight: narrower panels
    return label if nd.shape is None else f"{label}\n{nd.shape}"


def _width(nd: Node) -> int:
    return max(len(line) for line in _text(nd).split("\n"))


_GAP = 3.0    # characters between neighbouring labels in a layer


def graph_layout(graph: Graph) -> dict[int, tuple[float, float]]:
    """A layered layout: ``{node index: (x, y)}``, deterministic.

    ``y = -layer`` (the root on top, see `Graph.layers`); ``x`` is measured in
    label characters. In each layer, every node wants the mean x of the nodes
    that send it a gradient, so chains stay straight; the node with the most
    descendants (the spine of the graph) gets its wish, and the others keep
    their order (ties: walk order) and are pushed outwards until neighbouring
    labels are `_GAP` characters apart.

    A leaf used by several different nodes (a shared weight) is placed beside
    the graph instead, at the mean height of its users, on the side where they
    are, clear of every node in the layers its users span, so that its
    incoming edges fan in from each use.
    """
    layer = graph.layers()
    side = {i for i in range(len(graph.nodes)) if _is_shared_leaf(graph, i)}
    below = _descendant_counts(graph, layer)
    by_layer: dict[int, list[int]] = {}
    for i, lay in enumerate(layer):
        if i not in side:
            by_layer.setdefault(lay, []).append(i)
    pos: dict[int, tuple[float, float]] = {}
    for lay in sorted(by_layer):
        want = {}
        for i in by_layer[lay]:
            xs = [pos[e.src][0] for e in graph.in_edges(i) if e.src in pos]
            want[i] = sum(xs) / len(xs) if xs else 0.0
        members = sorted(by_layer[lay], key=lambda i: (want[i], i))
        a = max(range(len(members)), key=lambda j: (below[members[j]], -members[j]))
        xs = {a: want[members[a]]}
        for j in range(a + 1, len(members)):            # rightwards from the spine
            xs[j] = max(want[members[j]], xs[j - 1] + _sep(graph, members[j - 1], members[j]))
        for j in range(a - 1, -1, -1):                  # leftwards
            xs[j] = min(want[members[j]], xs[j + 1] - _sep(graph, members[j], members[j + 1]))
        for j, i in enumerate(members):
            pos[i] = (xs[j], -float(lay))

    for i in sorted(side):
        users = sorted({e.src for e in graph.in_edges(i)})
        ys = [pos[u][1] for u in users]
        y = sum(ys) / len(ys)
        right = sum(pos[u][0] for u in users) / len(users) > 0
        half = _width(graph.nodes[i]) / 2
        near = [(x, _width(graph.nodes[j]) / 2) for j, (x, yj) in pos.items()
                if min(ys) - 0.5 <= yj <= max(ys) + 0.5]     # the layers the edges cross
        if right:
            edge = max(x + w for x, w in near)
            pos[i] = (edge + _GAP + half, y)
        else:
            edge = min(x - w for x, w in near)
            pos[i] = (edge - _GAP - half, y)
    return pos


def _is_shared_leaf(graph: Graph, i: int) -> bool:
    return graph.nodes[i].kind != "op" and len({e.src for e in graph.in_edges(i)}) > 1


def _sep(graph: Graph, i: int, j: int) -> float:
    return (_width(graph.nodes[i]) + _width(graph.nodes[j])) / 2 + _GAP


def _descendant_counts(graph: Graph, layer: list[int]) -> list[int]:
    reach: list[set[int]] = [set() for _ in graph.nodes]
    for i in sorted(range(len(graph.nodes)), key=lambda i: -layer[i]):   # deepest first
        for e in graph.out_edges(i):
            reach[i] |= {e.dst} | reach[e.dst]
    return [len(r) for r in reach]


def _extent(graph: Graph, pos: Mapping[int, tuple[float, float]]) -> tuple[float, float]:
    left = min(pos[n.index][0] - _width(n) / 2 for n in graph.nodes) - 1.5
    right = max(pos[n.index][0] + _width(n) / 2 for n in graph.nodes) + 1.5
    return left, right


_COLOURS = {"op": "#e6e6e6", "param": "#cfe3f5", "leaf": "#ffffff"}
_HIGHLIGHT = "#d95f02"
_MEANING = {
    "op": "backward function",
    "param": "parameter (its AccumulateGrad node)",
    "leaf": "other leaf (its AccumulateGrad node)",
}


def _legend_handles(kinds: Iterable[str], highlighted: bool) -> list:
    from matplotlib.patches import Patch

    handles = [Patch(fc=_COLOURS[k], ec="0.4", label=_MEANING[k]) for k in _MEANING if k in kinds]
    if highlighted:
        handles.append(Patch(fc=_HIGHLIGHT, ec="0.4", label="highlighted, with its incoming edges"))
    return handles


def _draw_graph(graph: Graph, ax, pos, *, highlight: list[str], title: str, fontsize: float):
    """Draw `graph` on `ax` at the layout `pos` (from `graph_layout`), the loss on top.

    Boxes: grey for backward functions, blue for named parameters, white for
    unnamed leaves (with their shapes). Arrows point the way gradients flow in
    ``backward``. Nodes labelled in `highlight` are orange, with their incoming
    arrows, so that a shared leaf's uses stand out.
    """
    marked = {graph.node(label).index for label in highlight}
    left, right = _extent(graph, pos)
    n_layers = 1 - min(y for _, y in pos.values())

    boxes = {}
    for nd in graph.nodes:
        x, y = pos[nd.index]
        hot = nd.index in marked
        boxes[nd.index] = ax.text(
            x, y, _text(nd), ha="center", va="center", fontsize=fontsize, zorder=3,
            color="white" if hot else "black", fontweight="bold" if hot else "normal",
            bbox=dict(boxstyle="round,pad=0.3", fc=_HIGHLIGHT if hot else _COLOURS[nd.kind],
                      ec="0.4", lw=0.8),
        )

    side = {i for i in range(len(graph.nodes)) if _is_shared_leaf(graph, i)}
    seen: dict[tuple[int, int], int] = {}
    for e in graph.edges:
        nth = seen.get((e.src, e.dst), 0)        # repeated edges (a + a) bend apart
        seen[(e.src, e.dst)] = nth + 1
        (x0, _), (x1, _) = pos[e.src], pos[e.dst]
        if e.dst in side:                        # fan in sideways, from each use
            start, end = ((1.0, 0.5), (0.0, 0.5)) if x1 > x0 else ((0.0, 0.5), (1.0, 0.5))
        else:                                    # from the bottom of src to the top of dst
            start, end = (0.5, 0.0), (0.5, 1.0)
        hot = e.dst in marked
        ax.annotate(
            "", xy=end, xycoords=boxes[e.dst], xytext=start, textcoords=boxes[e.src],
            arrowprops=dict(
                arrowstyle="-|>", mutation_scale=9, shrinkA=1, shrinkB=1,
                connectionstyle=f"arc3,rad={0.3 * nth:g}",
                color=_HIGHLIGHT if hot else "0.35", lw=1.6 if hot else 0.9,
            ),
            zorder=2,
        )

    ax.set_xlim(left, right)
    ax.set_ylim(-n_layers + 0.4, 0.6)
    ax.axis("off")
    ax.set_title(title)


def draw_graphs(
    graphs: Mapping[str, Graph],
    *,
    ncols: int | None = None,
    highlight: Iterable[str] = (),
    fontsize: float = 7,
    suptitle: str | None = None,
):
    """Draw autograd graphs in a grid, one titled panel each, all on one scale.

    Boxes: grey for backward functions, blue for named parameters, white for
    other leaves, each leaf with its shape; arrows point the way gradients flow
    in ``backward``; a legend below says what the colours mean.

    Args:
        graphs: ``{panel title: Graph}`` (from `helpers.autograd_graph`), drawn
            row by row.
        ncols: panels per row; all in one row if ``None``.
        highlight: labels of nodes to draw in orange with their incoming arrows
            (e.g. ``["middle_linear.weight"]``); a label missing from one graph
            is simply not marked there, but each must be in some graph.
        fontsize: font size of the node labels, in points; the rows and the
            figure grow with it. Shown on a ~700 px page, the labels stay
            ~9 px high while a row of panels is at most ~120 label characters
            wide (two depths of DynamicNet side by side, not four).
        suptitle: a title for the whole figure.

    Returns:
        The matplotlib ``Figure``.
    """
    import matplotlib.pyplot as plt

    if not isinstance(graphs, Mapping) or not graphs:
        raise ValueError("draw_graphs needs a non-empty dict {title: Graph}")
    for title, g in graphs.items():
        if not isinstance(g, Graph):
            raise TypeError(f"graphs[{title!r}] is a {type(g).__name__}, not a Graph")
    ncols = len(graphs) if ncols is None else ncols
    if not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols must be a positive int, got {ncols!r}")
    ncols = min(ncols, len(graphs))
    nrows = -(-len(graphs) // ncols)
    highlight = [highlight] if isinstance(highlight, str) else list(highlight)
    labels = {n.label for g in graphs.values() for n in g.nodes}
    unknown = [h for h in highlight if h not in labels]
    if unknown:
        raise KeyError(f"cannot highlight {unknown}: no graph has such a node; labels: "
                       f"{sorted(labels)}")
    layouts = [graph_layout(g) for g in graphs.values()]    # computed once, used twice
    widths, heights = [0.0] * ncols, [0.0] * nrows
    for k, (g, pos) in enumerate(zip(graphs.values(), layouts)):
        left, right = _extent(g, pos)
        widths[k % ncols] = max(widths[k % ncols], right - left)
        heights[k // ncols] = max(heights[k // ncols], 1 - min(y for _, y in pos.values()))
    inch = fontsize * _CHAR / 72
    fig, axes = plt.subplots(
        nrows, ncols, squeeze=False,
        gridspec_kw={"width_ratios": widths, "height_ratios": heights},
        figsize=(sum(widths) * inch + 0.5 * ncols,
                 sum(_ROW * fontsize / 72 * h + 0.5 for h in heights) + 0.4),
    )
    for k, ((title, g), pos) in enumerate(zip(graphs.items(), layouts)):
        ax = axes[k // ncols][k % ncols]
        mine = {n.label for n in g.nodes}
        _draw_graph(g, ax, pos, highlight=[h for h in highlight if h in mine], title=title,
                    fontsize=fontsize)
        top = ax.get_ylim()[1]                       # one scale: pad to the row's and column's size
        ax.set_ylim(top - heights[k // ncols], top)
        mid = sum(ax.get_xlim()) / 2
        ax.set_xlim(mid - widths[k % ncols] / 2, mid + widths[k % ncols] / 2)
    for k in range(len(graphs), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    if suptitle is not None:
        fig.suptitle(suptitle)
    kinds = {n.kind for g in graphs.values() for n in g.nodes}
    handles = _legend_handles(kinds, bool(highlight))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False,
               fontsize=fontsize + 1)
    fig.tight_layout(rect=(0, 0.45 / fig.get_figheight(), 1, 1))
    return fig
