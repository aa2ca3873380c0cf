"""The autograd graph behind a tensor, as plain data.

    graph = autograd_graph(loss, dict(model.named_parameters()))
    graph.in_edges("middle_linear.weight")   # one edge per use of that weight

`helpers.plots.draw_graphs` draws graphs with matplotlib (no Graphviz).

`autograd_graph` walks ``loss.grad_fn`` and its ``next_functions`` (the nodes that
``loss.backward()`` will visit), breadth first, in ``next_functions`` order, so
the same computation always gives the same nodes in the same order. A leaf that
requires grad shows up as its ``AccumulateGrad`` node: **one** node per leaf, with
one incoming edge per use, however often the forward pass used it.

The order in which ``backward`` runs the nodes, as data:

    ran = node_order(loss)   # loss.backward(), logging each node just before it runs

Autograd runs a node once all the nodes that send it a gradient have run. On
the CPU, among the nodes ready, it runs the one with the highest
``_sequence_nr()`` first (the newest; a leaf's ``AccumulateGrad`` has the
largest number there is, so it runs as soon as it is ready). Sequence numbers
are counted per thread, so for a graph built in one thread `ran` lists the op
nodes in reverse creation order, which notebook 05 compares with its tape; for
a graph built across threads only the first rule holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch

__all__ = ["Edge", "Graph", "Node", "autograd_graph", "node_order"]


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
    _graph_root(loss, "autograd_graph")
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


# -- the order in which backward runs the nodes -------------------------------------------


def _graph_root(loss: object, who: str) -> object:
    """``loss.grad_fn``, or a clear error saying why there is none."""
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"{who} needs a tensor, got {type(loss).__name__}")
    if loss.grad_fn is None:
        why = (
            "it is a leaf that requires grad: there is nothing to walk back from"
            if loss.requires_grad
            else "it does not require grad (computed from tensors without requires_grad, "
            "under torch.no_grad(), or detached)"
        )
        raise ValueError(f"this tensor has no grad_fn, so it has no backward graph: {why}")
    return loss.grad_fn


def _walk(root: object) -> list[object]:
    """Every node reachable from `root` through ``next_functions``, each once, `root` first."""
    seen, todo, order = {root}, [root], []
    while todo:
        fn = todo.pop()
        order.append(fn)
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return order


def node_order(loss: torch.Tensor) -> list[object]:
    """Run ``loss.backward()`` and return the nodes of its graph in the order they ran.

    A pre-hook, ``node.register_prehook(hook)``, is called by autograd just
    before it runs ``node``. `node_order` puts one on every node of the graph
    behind `loss` (``AccumulateGrad`` nodes of leaves included), each
    appending its node to a list, runs ``loss.backward()``, removes the hooks
    and returns the list: the nodes (``grad_fn`` objects), each as often as
    it ran. Like any ``backward``, it adds into the leaves' ``.grad`` and frees
    the graph's saved tensors.

    Args:
        loss: a scalar tensor with a ``grad_fn`` whose graph has not been run
            by a ``backward`` yet.

    Raises:
        TypeError: `loss` is not a tensor.
        ValueError: `loss` has no ``grad_fn``, or is not a scalar (``backward``
            without a gradient argument needs one number); the message gives
            its shape.
    """
    root = _graph_root(loss, "node_order")
    if loss.numel() != 1:
        raise ValueError(
            f"node_order runs loss.backward(), which needs a scalar; this tensor has shape "
            f"{tuple(loss.shape)}: reduce it first (e.g. .sum())"
        )
    ran: list[object] = []
    handles = [
        fn.register_prehook(lambda grad_outputs, fn=fn: ran.append(fn)) for fn in _walk(root)
    ]
    try:
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    return ran
