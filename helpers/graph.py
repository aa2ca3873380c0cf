"""The autograd graph behind a tensor, as plain data, and a matplotlib drawing of it.

    graph = autograd_graph(loss, dict(model.named_parameters()))
    graph.in_edges("middle_linear.weight")   # one edge per use of that weight
    draw_graph(graph, highlight=["middle_linear.weight"])

`autograd_graph` walks ``loss.grad_fn`` and its ``next_functions`` (the nodes that
``loss.backward()`` will visit), breadth first, in ``next_functions`` order, so
the same computation always gives the same nodes in the same order. A leaf that
requires grad shows up as its ``AccumulateGrad`` node: **one** node per leaf, with
one incoming edge per use, however often the forward pass used it. Drawing needs
only matplotlib (no Graphviz).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import torch

__all__ = ["Edge", "Graph", "Node", "autograd_graph", "draw_graph", "draw_graphs", "graph_layout"]


@dataclass(frozen=True)
class Node:
    """One node of the backward graph.

    Attributes:
        index: position in the walk from the loss (0 is ``loss.grad_fn``).
        label: the backward function's name, e.g. ``"AddmmBackward0"``; for a
            leaf, the name it has in `names` (``"middle_linear.weight"``), or
            ``"leaf"`` when it has none.
        kind: ``"op"`` (a backward function), ``"param"`` (a leaf named in
            `names`) or ``"leaf"`` (a leaf not named there).
        shape: the leaf's shape, e.g. ``(100, 100)``; ``None`` for an op.
    """

    index: int
    label: str
    kind: str
    shape: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Edge:
    """``src``'s ``next_functions[slot]`` is ``dst``: in backward, a gradient flows src -> dst.

    ``src`` and ``dst`` are node indices. An op that uses one tensor twice
    (``a + a``) has two edges to it, with different slots.
    """

    src: int
    dst: int
    slot: int


@dataclass(frozen=True)
class Graph:
    """Nodes and edges of one backward graph, in a deterministic order.

    ``nodes[i].index == i``; edges are listed source by source in walk order,
    and within a source in ``next_functions`` order.
    """

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    def node(self, key: int | str) -> Node:
        """The node with this index, or the only node with this label (a clear error otherwise)."""
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise TypeError(f"a node is looked up by index or label, got {type(key).__name__}")
        if isinstance(key, int):
            if not 0 <= key < len(self.nodes):
                raise KeyError(f"no node {key}: the graph has nodes 0..{len(self.nodes) - 1}")
            return self.nodes[key]
        found = [n for n in self.nodes if n.label == key]
        if not found:
            labels = sorted({n.label for n in self.nodes})
            raise KeyError(f"no node labelled {key!r}; labels: {labels}")
        if len(found) > 1:
            raise KeyError(
                f"{len(found)} nodes are labelled {key!r} (indices {[n.index for n in found]}); "
                "look one up by index"
            )
        return found[0]

    def in_edges(self, key: int | str) -> list[Edge]:
        """Edges into a node (for a leaf: one per use), by index or unique label."""
        i = self.node(key).index
        return [e for e in self.edges if e.dst == i]

    def out_edges(self, key: int | str) -> list[Edge]:
        """Edges out of a node, in ``next_functions`` order."""
        i = self.node(key).index
        return [e for e in self.edges if e.src == i]

    def count(self, label: str) -> int:
        """How many nodes carry this label (e.g. ``"AddmmBackward0"``); 0 if none."""
        return sum(n.label == label for n in self.nodes)

    def layers(self) -> list[int]:
        """Layer of every node, by index: the longest path from the root (layer 0).

        Every edge goes from a lower layer to a higher one, so a node is drawn
        below everything whose backward sends it a gradient.
        """
        n = len(self.nodes)
        indegree, outs = [0] * n, [[] for _ in range(n)]
        for e in self.edges:
            indegree[e.dst] += 1
            outs[e.src].append(e)
        layer = [0] * n
        ready = [i for i in range(n) if indegree[i] == 0]
        done = 0
        while ready:
            i = ready.pop(0)
            done += 1
            for e in outs[i]:
                layer[e.dst] = max(layer[e.dst], layer[i] + 1)
                indegree[e.dst] -= 1
                if indegree[e.dst] == 0:
                    ready.append(e.dst)
        if done != n:  # cannot happen for an autograd graph
            raise ValueError("the graph has a cycle")
        return layer

    def __str__(self) -> str:
        lines = [f"{len(self.nodes)} nodes, {len(self.edges)} edges"]
        for nd in self.nodes:
            outs = ", ".join(str(e.dst) for e in self.edges if e.src == nd.index)
            shape = f" {nd.shape}" if nd.shape is not None else ""
            lines.append(f"{nd.index:3}  {nd.label}{shape}" + (f"  -> {outs}" if outs else ""))
        return "\n".join(lines)

    __repr__ = __str__


def autograd_graph(loss: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None) -> Graph:
    """Walk the backward graph of `loss` and return its nodes and edges.

    Args:
        loss: a tensor computed from leaves that require grad (it has a
            ``grad_fn``); usually the scalar loss, any shape works. The graph
            can be walked before or after ``loss.backward()``.
        names: ``{name: leaf tensor}``, e.g. ``dict(model.named_parameters())``;
            a leaf found in the graph is labelled with its name (matched by
            identity, ``is``). Leaves not in `names` are labelled ``"leaf"``.
            Every entry must be a leaf that requires grad, the only tensors
            the graph can show; one the loss does not depend on (a layer not
            used this time) is fine and simply has no node.

    Returns:
        A `Graph`: nodes in breadth-first order from ``loss.grad_fn``, edges in
        ``next_functions`` order. Inputs that need no gradient (``None`` in
        ``next_functions``, e.g. the target of a loss) are left out.

    Raises:
        TypeError: `loss` is not a tensor, or `names` is not a mapping of tensors.
        ValueError: `loss` has no ``grad_fn`` (a leaf, or computed without
            gradient tracking), one tensor appears under two names, or an entry
            of `names` can never be matched: a tensor computed from others (not
            a leaf) or a leaf that does not require grad. The message names it.
    """
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"autograd_graph needs a tensor, got {type(loss).__name__}")
    if loss.grad_fn is None:
        why = (
            "it is a leaf that requires grad: there is nothing to walk back from"
            if loss.requires_grad
            else "it does not require grad (computed from tensors without requires_grad, "
            "under torch.no_grad(), or detached)"
        )
        raise ValueError(f"this tensor has no grad_fn, so it has no backward graph: {why}")
    by_id = _names_by_id(names)

    nodes: list[Node] = []
    edges: list[Edge] = []
    index: dict[object, int] = {}   # backward function -> node index (keeps each one alive,
                                    # so that autograd hands out the same Python object again)

    def visit(fn: object) -> int:
        if fn not in index:
            index[fn] = len(nodes)
            nodes.append(_node(len(nodes), fn, by_id))
            queue.append(fn)
        return index[fn]

    queue: list[object] = []
    visit(loss.grad_fn)
    head = 0
    while head < len(queue):
        fn = queue[head]
        head += 1
        src = index[fn]
        for slot, (nxt, _) in enumerate(fn.next_functions):
            if nxt is not None:
                edges.append(Edge(src=src, dst=visit(nxt), slot=slot))
    edges.sort(key=lambda e: (e.src, e.slot))
    return Graph(nodes=tuple(nodes), edges=tuple(edges))


def _names_by_id(names: Mapping[str, torch.Tensor] | None) -> dict[int, str]:
    if names is None:
        return {}
    if not isinstance(names, Mapping):
        raise TypeError(
            f"names must be a dict of name -> tensor (e.g. dict(model.named_parameters())), "
            f"got {type(names).__name__}"
        )
    by_id: dict[int, str] = {}
    for name, t in names.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"names[{name!r}] is a {type(t).__name__}, not a tensor")
        if not t.is_leaf:
            raise ValueError(
                f"names[{name!r}] is not a leaf (it was computed by {t.grad_fn.name()}): only "
                "leaves that require grad get a node of their own (AccumulateGrad); name the "
                "leaf it was computed from instead"
            )
        if not t.requires_grad:
            raise ValueError(
                f"names[{name!r}] does not require grad, so autograd records no node for it; "
                f"call requires_grad_() on it before the forward pass, or leave it out of names"
            )
        if id(t) in by_id:
            raise ValueError(f"{by_id[id(t)]!r} and {name!r} are the same tensor; give it one name")
        by_id[id(t)] = name
    return by_id


def _node(i: int, fn: object, by_id: Mapping[int, str]) -> Node:
    leaf = getattr(fn, "variable", None)
    if isinstance(leaf, torch.Tensor):  # an AccumulateGrad node: the leaf's .grad is filled here
        name = by_id.get(id(leaf))
        return Node(
            index=i,
            label="leaf" if name is None else name,
            kind="leaf" if name is None else "param",
            shape=tuple(leaf.shape),
        )
    return Node(index=i, label=fn.name(), kind="op")


# -- layout and drawing -------------------------------------------------------------

_CHAR = 0.6   # width of one label character, in units of the font size (DejaVu Sans, roughly)
_ROW = 0.55    # height of one layer, in inches


def _text(nd: Node) -> str:
    return nd.label if nd.shape is None else f"{nd.label}\n{nd.shape}"


def _width(nd: Node) -> int:
    return max(len(line) for line in _text(nd).split("\n"))


def graph_layout(graph: Graph, gap: float = 4.0) -> dict[int, tuple[float, float]]:
    """A layered layout: ``{node index: (x, y)}``, deterministic.

    ``y = -layer`` (the root on top, see `Graph.layers`); ``x`` is measured in
    label characters. In each layer, every node wants the mean x of the nodes
    that send it a gradient, so chains stay straight; the node with the most
    descendants (the spine of the graph) gets its wish, and the others keep
    their order (ties: walk order) and are pushed outwards until neighbouring
    labels are `gap` characters apart.

    A leaf used by several different nodes (a shared weight) is placed beside
    the graph instead, at the mean height of its users, on the side where they
    are, so that its incoming edges fan in from each use.
    """
    if not isinstance(graph, Graph):
        raise TypeError(
            f"graph_layout needs a Graph (from autograd_graph), got {type(graph).__name__}"
        )
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
            xs[j] = max(want[members[j]], xs[j - 1] + _sep(graph, members[j - 1], members[j], gap))
        for j in range(a - 1, -1, -1):                  # leftwards
            xs[j] = min(want[members[j]], xs[j + 1] - _sep(graph, members[j], members[j + 1], gap))
        for j, i in enumerate(members):
            pos[i] = (xs[j], -float(lay))

    for i in sorted(side):
        users = sorted({e.src for e in graph.in_edges(i)})
        ys = [pos[u][1] for u in users]
        y = sum(ys) / len(ys)
        right = sum(pos[u][0] for u in users) / len(users) > 0
        half = _width(graph.nodes[i]) / 2
        if right:
            edge = max(x + _width(graph.nodes[j]) / 2 for j, (x, _) in pos.items())
            pos[i] = (edge + gap + half, y)
        else:
            edge = min(x - _width(graph.nodes[j]) / 2 for j, (x, _) in pos.items())
            pos[i] = (edge - gap - half, y)
    return pos


def _is_shared_leaf(graph: Graph, i: int) -> bool:
    return graph.nodes[i].kind != "op" and len({e.src for e in graph.in_edges(i)}) > 1


def _sep(graph: Graph, i: int, j: int, gap: float) -> float:
    return (_width(graph.nodes[i]) + _width(graph.nodes[j])) / 2 + gap


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


def draw_graph(
    graph: Graph,
    ax=None,
    *,
    highlight: Iterable[str] = (),
    title: str | None = None,
    fontsize: float = 8,
    legend: bool = False,
):
    """Draw `graph` on a matplotlib axes, the loss on top, leaves below.

    Boxes: grey for backward functions, blue for named parameters, white for
    unnamed leaves (with their shapes). Arrows point the way gradients flow in
    ``backward``. Nodes whose label is in `highlight` (e.g.
    ``["middle_linear.weight"]``) are drawn in orange, with their incoming
    arrows, so that a shared leaf's uses stand out.

    Args:
        graph: from `autograd_graph`.
        ax: a matplotlib ``Axes``; if ``None``, a new figure sized to the graph.
        highlight: labels of nodes to emphasise; each must be in the graph.
        title: the axes title.
        fontsize: font size of the node labels, in points.
        legend: add a legend saying what the box colours mean.

    Returns:
        The ``Axes``.
    """
    import matplotlib.pyplot as plt

    if not isinstance(graph, Graph):
        raise TypeError(
            f"draw_graph needs a Graph (from autograd_graph), got {type(graph).__name__}"
        )
    if isinstance(highlight, str):
        highlight = [highlight]
    marked = {graph.node(label).index for label in highlight}
    pos = graph_layout(graph)
    left, right = _extent(graph, pos)
    n_layers = 1 - min(y for _, y in pos.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(max(3.0, (right - left) * fontsize * _CHAR / 72 + 0.5),
                                      max(2.0, _ROW * n_layers + 0.6)))

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
    if title is not None:
        ax.set_title(title)
    if legend:
        ax.legend(handles=_legend_handles({n.kind for n in graph.nodes}, bool(marked)),
                  loc="lower center", bbox_to_anchor=(0.5, 1.0 if title is None else 1.08),
                  fontsize=fontsize, frameon=False, ncol=2)
    return ax


def draw_graphs(
    graphs: Mapping[str, Graph],
    *,
    ncols: int | None = None,
    highlight: Iterable[str] = (),
    fontsize: float = 7,
    suptitle: str | None = None,
    legend: bool = True,
):
    """Draw several graphs in a grid, one titled panel each, all on one scale.

    Args:
        graphs: ``{panel title: Graph}``, drawn row by row.
        ncols: panels per row; all in one row if ``None``.
        highlight: labels to emphasise (see `draw_graph`); a label missing
            from one graph is simply not marked there.
        fontsize: font size of the node labels, in points.
        suptitle: a title for the whole figure.
        legend: add a legend (below the panels) saying what the box colours mean.

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
    widths, heights = [0.0] * ncols, [0.0] * nrows
    for k, g in enumerate(graphs.values()):
        pos = graph_layout(g)
        left, right = _extent(g, pos)
        widths[k % ncols] = max(widths[k % ncols], right - left)
        heights[k // ncols] = max(heights[k // ncols], 1 - min(y for _, y in pos.values()))
    inch = fontsize * _CHAR / 72
    fig, axes = plt.subplots(
        nrows, ncols, squeeze=False,
        gridspec_kw={"width_ratios": widths, "height_ratios": heights},
        figsize=(sum(widths) * inch + 0.5 * ncols, sum(_ROW * h + 0.5 for h in heights) + 0.4),
    )
    for k, (title, g) in enumerate(graphs.items()):
        ax = axes[k // ncols][k % ncols]
        labels = {n.label for n in g.nodes}
        draw_graph(g, ax, highlight=[h for h in highlight if h in labels], title=title,
                   fontsize=fontsize)
        top = ax.get_ylim()[1]                       # one scale: pad to the row's and column's size
        ax.set_ylim(top - heights[k // ncols], top)
        mid = sum(ax.get_xlim()) / 2
        ax.set_xlim(mid - widths[k % ncols] / 2, mid + widths[k % ncols] / 2)
    for k in range(len(graphs), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    if suptitle is not None:
        fig.suptitle(suptitle)
    bottom = 0.0
    if legend:
        kinds = {n.kind for g in graphs.values() for n in g.nodes}
        marked = any(n.label in highlight for g in graphs.values() for n in g.nodes)
        handles = _legend_handles(kinds, marked)
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False,
                   fontsize=fontsize + 1)
        bottom = 0.45 / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig
