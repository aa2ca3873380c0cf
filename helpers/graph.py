"""The order in which ``backward`` runs the nodes of an autograd graph, as data.

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

import torch

__all__ = ["node_order"]


def _graph_root(loss: object) -> object:
    """``loss.grad_fn``, or a clear error saying why there is none."""
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"node_order needs a tensor, got {type(loss).__name__}")
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
    root = _graph_root(loss)
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
