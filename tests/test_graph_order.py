"""node_order, node_users, node_label, check_once_after_users (helpers.graph)."""

import pytest
import torch
from conftest import leaves as _leaves
from conftest import reused_linear as _reused_linear

from helpers.graph import check_once_after_users, node_label, node_order, node_users


def _chain(a, n):
    """b1 = a + a, ..., bn: every node has two edges to the one below."""
    b = a
    for _ in range(n):
        b = b + b
    return b


def test_a_plus_a_runs_each_node_once_users_first():
    a = torch.tensor(1.0, requires_grad=True)
    c = _chain(a, 2)
    users = node_users(c)
    ran = node_order(c)
    assert [node_label(n, {"a": a}) for n in ran] == ["AddBackward0", "AddBackward0", "a"]
    assert ran[0] is c.grad_fn and len(set(ran)) == 3
    assert users[c.grad_fn] == [] and users[ran[1]] == [ran[0], ran[0]]
    assert users[ran[2]] == [ran[1], ran[1]]
    check_once_after_users(ran, users, {"a": a})
    assert a.grad.item() == 4            # node_order ran a real backward


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_a_reused_layer_each_node_once_after_its_users(depth):
    loss, names = _reused_linear(depth)
    users = node_users(loss)
    ran = node_order(loss)
    check_once_after_users(ran, users, names)
    assert set(ran) == set(users)
    labels = [node_label(n, names) for n in ran]
    assert labels.count("mid.weight") == labels.count("mid.bias") == (1 if depth else 0)
    if depth:
        acc = next(n for n in ran if node_label(n, names) == "mid.weight")
        assert len(users[acc]) == depth           # one user per use, one run
    assert all(p.grad is not None for k, p in names.items() if depth or "mid" not in k)


def test_hooks_are_removed_after_the_run():
    (a,) = _leaves((3,))
    b = a + a                  # AddBackward0 saves no tensor: it can run again
    ran = node_order(b.sum())
    assert len(ran) == 3
    (b + 1).sum().backward()   # a second graph through the same nodes
    assert len(ran) == 3       # no hook of node_order logged it


def test_walking_the_users_works_after_backward():
    (a,) = _leaves((2,))
    loss = (a * a).sum()
    before = {n.name(): len(us) for n, us in node_users(loss).items()}
    loss.backward()
    after = {n.name(): len(us) for n, us in node_users(loss).items()}
    assert before == after == {"SumBackward0": 0, "MulBackward0": 1,
                               "torch::autograd::AccumulateGrad": 2}


@pytest.mark.parametrize("fn", [node_order, node_users])
def test_not_a_tensor_or_no_graph(fn):
    with pytest.raises(TypeError, match=f"{fn.__name__} needs a tensor, got list"):
        fn([1.0])
    (a,) = _leaves((2,))
    with pytest.raises(ValueError, match="leaf that requires grad"):
        fn(a)
    with pytest.raises(ValueError, match="does not require grad"):
        fn(torch.ones(2).sum())


def test_node_order_needs_a_scalar_and_an_unused_graph():
    (a,) = _leaves((2, 3))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*\.sum\(\)"):
        node_order(a * 2)
    loss = (a * a).sum()
    node_order(loss)
    with pytest.raises(RuntimeError, match="second time"):
        node_order(loss)


def test_node_label_errors_name_the_tensor():
    (a,) = _leaves((2,))
    loss = (a * 2).sum()
    with pytest.raises(TypeError, match="needs a backward node.*got Tensor"):
        node_label(a)
    acc = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert node_label(acc) == "leaf" and node_label(acc, {"w": a}) == "w"
    with pytest.raises(ValueError, match=r"names\['twice'\] is not a leaf"):
        node_label(acc, {"twice": a * 2})
    with pytest.raises(ValueError, match=r"names\['frozen'\] does not require grad"):
        node_label(acc, {"frozen": torch.ones(2)})


def test_check_once_after_users_names_what_went_wrong():
    a = torch.tensor(1.0, requires_grad=True)
    c = _chain(a, 2)
    users = node_users(c)
    ran = node_order(c)
    top, mid, acc = ran
    with pytest.raises(AssertionError, match="a ran 2 times"):
        check_once_after_users([top, mid, acc, acc], users, {"a": a})
    with pytest.raises(AssertionError, match="^a never ran"):
        check_once_after_users([top, mid], users, {"a": a})
    with pytest.raises(AssertionError, match=r"^a ran \(step 1\) before its user AddBackward0"):
        check_once_after_users([top, acc, mid], users, {"a": a})
    with pytest.raises(AssertionError, match="^leaf never ran"):
        check_once_after_users([top, mid], users)


def test_check_once_after_users_on_plain_items_and_bad_input():
    users = {0: [1, 2], 1: [2], 2: []}     # record 0 feeds 1 and 2, 1 feeds 2
    check_once_after_users([2, 1, 0], users)
    with pytest.raises(AssertionError, match=r"^1 ran \(step 0\) before its user 2"):
        check_once_after_users([1, 2, 0], users)
    with pytest.raises(AssertionError, match="^0 ran 2 times"):
        check_once_after_users([2, 0, 1, 0], users)
    with pytest.raises(TypeError, match="ran must be a list.*got set"):
        check_once_after_users({0, 1, 2}, users)
    with pytest.raises(TypeError, match="users must be a dict.*got list"):
        check_once_after_users([2, 1, 0], [0, 1])
