"""node_order (helpers.graph), and the order of autograd's CPU engine that notebook 05 teaches:
the ready node with the highest sequence number first, so, for a graph built in one thread
(numbers are counted per thread), op nodes in reverse creation order and a leaf's
AccumulateGrad right after its last user."""

import threading

import pytest
import torch
from conftest import leaves as _leaves
from conftest import reused_linear as _reused_linear

from helpers.graph import node_order

ACCUMULATE = 2**64 - 1   # AccumulateGrad's sequence number: the largest there is


def _chain(a, n):
    """b1 = a + a, ..., bn: every node has two edges to the one below."""
    b = a
    for _ in range(n):
        b = b + b
    return b


def _is_leaf_node(node):
    return isinstance(getattr(node, "variable", None), torch.Tensor)


def test_a_plus_a_runs_each_node_once():
    a = torch.tensor(1.0, requires_grad=True)
    c = _chain(a, 2)
    ran = node_order(c)
    assert [n.name() for n in ran[:2]] == ["AddBackward0", "AddBackward0"]
    assert ran[0] is c.grad_fn and len(set(ran)) == 3
    assert ran[2].variable is a
    assert a.grad.item() == 4            # node_order ran a real backward


def test_interleaved_branches_run_in_reverse_creation_order():
    a, b = (torch.tensor(v, requires_grad=True) for v in (1.0, 3.0))
    pa, pb = a + a, b + b
    ra, rb = pa.clamp_min(0.), pb.clamp_min(0.)
    top = ra + rb
    links = [n for n, _ in top.grad_fn.next_functions]
    assert links == [ra.grad_fn, rb.grad_fn]          # the links name ra's node first
    ran = node_order(top)
    ops = [n for n in ran if not _is_leaf_node(n)]
    assert ops == [top.grad_fn, rb.grad_fn, ra.grad_fn, pb.grad_fn, pa.grad_fn]
    first = pa.grad_fn._sequence_nr()
    assert [n._sequence_nr() - first for n in ops] == [4, 3, 2, 1, 0]
    leaf_nodes = [n for n in ran if _is_leaf_node(n)]
    assert [n._sequence_nr() for n in leaf_nodes] == [ACCUMULATE, ACCUMULATE]
    # each AccumulateGrad right after its leaf's only user
    assert ran.index(leaf_nodes[0]) == ran.index(pb.grad_fn) + 1
    assert leaf_nodes[0].variable is b and leaf_nodes[1].variable is a


def test_sequence_numbers_are_counted_per_thread():
    # why notebook 05 states the order "for a graph built in one thread"
    a = torch.tensor(1.0, requires_grad=True)
    here = [(a * 2).grad_fn for _ in range(3)]
    there = []
    thread = threading.Thread(target=lambda: there.append((a * 2).grad_fn))
    thread.start()
    thread.join()
    assert there[0]._sequence_nr() == 0 < here[-1]._sequence_nr()


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_a_reused_layer_each_node_once_newest_first(depth):
    loss, names = _reused_linear(depth)
    ran = node_order(loss)
    assert len(set(ran)) == len(ran)
    ops = [n._sequence_nr() for n in ran if not _is_leaf_node(n)]
    assert ops == sorted(ops, reverse=True)
    by_name = {id(t): k for k, t in names.items()}
    labels = [by_name[id(n.variable)] for n in ran if _is_leaf_node(n)]
    assert labels.count("mid.weight") == labels.count("mid.bias") == (1 if depth else 0)
    assert all(p.grad is not None for k, p in names.items() if depth or "mid" not in k)


def test_hooks_are_removed_after_the_run():
    (a,) = _leaves((3,))
    b = a + a                  # AddBackward0 saves no tensor: it can run again
    ran = node_order(b.sum())
    assert len(ran) == 3
    (b + 1).sum().backward()   # a second graph through the same nodes
    assert len(ran) == 3       # no hook of node_order logged it


def test_not_a_tensor_or_no_graph():
    with pytest.raises(TypeError, match="node_order needs a tensor, got list"):
        node_order([1.0])
    (a,) = _leaves((2,))
    with pytest.raises(ValueError, match="leaf that requires grad"):
        node_order(a)
    with pytest.raises(ValueError, match="does not require grad"):
        node_order(torch.ones(2).sum())


def test_node_order_needs_a_scalar_and_an_unused_graph():
    (a,) = _leaves((2, 3))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*\.sum\(\)"):
        node_order(a * 2)
    loss = (a * a).sum()
    node_order(loss)
    with pytest.raises(RuntimeError, match="second time"):
        node_order(loss)
