import pytest
import torch
from conftest import leaves as _leaves
from conftest import reused_linear as _reused_linear
from torch import nn

from helpers.graph import Edge, Graph, autograd_graph
from helpers.plots import draw_graphs, graph_layout


def test_product_of_two_leaves():
    a, b = _leaves((3,), (3,))
    g = autograd_graph((a * b).sum(), {"a": a, "b": b})
    assert [n.label for n in g.nodes] == ["SumBackward0", "MulBackward0", "a", "b"]
    assert [n.kind for n in g.nodes] == ["op", "op", "param", "param"]
    assert g.node("a").shape == (3,) and g.node("MulBackward0").shape is None
    assert g.edges == (Edge(0, 1, 0), Edge(1, 2, 0), Edge(1, 3, 1))


def test_linear_layer_skips_inputs_that_need_no_grad():
    lin = nn.Linear(4, 2)
    x = torch.randn(3, 4)  # no requires_grad: a None in next_functions, no node
    g = autograd_graph(lin(x).sum(), dict(lin.named_parameters()))
    assert [n.label for n in g.nodes] == ["SumBackward0", "AddmmBackward0", "bias",
                                         "TBackward0", "weight"]
    assert len(g.edges) == 4
    assert [e.slot for e in g.out_edges("AddmmBackward0")] == [0, 2]


def test_unnamed_leaves_are_labelled_leaf_with_their_shape():
    (a,) = _leaves((2, 3))
    g = autograd_graph((a * 2).sum())
    leaf = g.nodes[-1]
    assert (leaf.label, leaf.kind, leaf.shape) == ("leaf", "leaf", (2, 3))


def test_a_leaf_used_by_two_ops_is_one_node_with_two_edges():
    w, x1, x2 = _leaves((3,), (3,), (3,))
    g = autograd_graph((w * x1 + w * x2).sum(), {"w": w})
    assert g.count("w") == 1
    into_w = g.in_edges("w")
    assert len(into_w) == 2 and len({e.src for e in into_w}) == 2
    assert {g.nodes[e.src].label for e in into_w} == {"MulBackward0"}


def test_a_plus_a_is_one_node_with_two_edges_from_one_op():
    (a,) = _leaves((2,))
    g = autograd_graph(a + a, {"a": a})
    assert len(g.nodes) == 2
    assert g.in_edges("a") == [Edge(0, 1, 0), Edge(0, 1, 1)]


@pytest.mark.parametrize("depth", [0, 1, 2, 3, 5])
def test_a_reused_layer_has_one_node_per_parameter_and_one_edge_per_use(depth):
    loss, names = _reused_linear(depth)
    g = autograd_graph(loss, names)
    assert g.count("mid.weight") == g.count("mid.bias") == (1 if depth else 0)
    if depth:
        assert len(g.in_edges("mid.weight")) == depth
        assert len(g.in_edges("mid.bias")) == depth
    assert g.count("AddmmBackward0") == depth + 2
    # 4 ops + 4 leaves for the outer layers, 3 ops per use, 2 leaves once for the shared layer
    assert len(g.nodes) == 10 + 3 * depth + (2 if depth else 0)
    assert len(g.edges) == 9 + 5 * depth


def test_deterministic_and_walkable_after_backward():
    first = autograd_graph(*_reused_linear(3))
    loss, names = _reused_linear(3)
    loss.backward()
    second = autograd_graph(loss, names)
    assert first == second
    assert graph_layout(first) == graph_layout(second)


def test_layers_go_down_every_edge():
    g = autograd_graph(*_reused_linear(2))
    layer = g.layers()
    assert layer[0] == 0
    assert all(layer[e.dst] > layer[e.src] for e in g.edges)


def test_layout_keeps_labels_apart_and_puts_a_shared_leaf_beside_the_graph():
    g = autograd_graph(*_reused_linear(3))
    pos = graph_layout(g)
    assert sorted(pos) == list(range(len(g.nodes)))
    rows = {}
    for i, (x, y) in pos.items():
        rows.setdefault(y, []).append((x, len(g.nodes[i].label)))
    for row in rows.values():                    # neighbours in a layer: labels do not overlap
        row.sort()
        for (xa, wa), (xb, wb) in zip(row, row[1:]):
            assert xb - xa >= (wa + wb) / 2
    w, b = g.node("mid.weight").index, g.node("mid.bias").index

    def spanned(leaf):                           # the nodes in the layers the leaf's edges cross
        ys = [pos[e.src][1] for e in g.in_edges(leaf)]
        return [x for i, (x, y) in pos.items() if i not in (b, w) and min(ys) <= y <= max(ys)]
    assert pos[w][0] > max(spanned(w))           # beside the graph there: right of its uses
    assert pos[b][0] < min(spanned(b))           # and the bias left of its uses


def test_not_a_tensor():
    with pytest.raises(TypeError, match="needs a tensor, got list"):
        autograd_graph([1.0])


def test_a_leaf_has_no_graph():
    (a,) = _leaves((2,))
    with pytest.raises(ValueError, match="no grad_fn.*it is a leaf"):
        autograd_graph(a)


def test_no_grad_and_detached_tensors_have_no_graph():
    (a,) = _leaves((2,))
    with torch.no_grad():
        b = a * 2
    for t in (b, (a * 2).detach(), torch.ones(2)):
        with pytest.raises(ValueError, match=r"no grad_fn.*does not require grad"):
            autograd_graph(t)


def test_bad_names():
    (a,) = _leaves((2,))
    loss = (a * 2).sum()
    with pytest.raises(TypeError, match="names must be a dict"):
        autograd_graph(loss, [a])
    with pytest.raises(TypeError, match=r"names\['a'\] is a float"):
        autograd_graph(loss, {"a": 1.0})
    with pytest.raises(ValueError, match="'a' and 'b' are the same tensor"):
        autograd_graph(loss, {"a": a, "b": a})


def test_names_that_can_never_match_are_refused_by_name():
    (a,) = _leaves((2,))
    h = a * 2                                     # an intermediate tensor, not a leaf
    loss = (h * 3).sum()
    with pytest.raises(ValueError, match=r"names\['h'\] is not a leaf \(it was computed by Mul"):
        autograd_graph(loss, {"a": a, "h": h})
    frozen = torch.ones(2)                        # a leaf that does not require grad
    with pytest.raises(ValueError, match=r"names\['c'\] does not require grad"):
        autograd_graph((a * frozen).sum(), {"a": a, "c": frozen})


def test_a_named_leaf_the_loss_does_not_use_is_fine():
    a, unused = _leaves((2,), (2,))
    g = autograd_graph((a * 2).sum(), {"a": a, "unused": unused})
    assert g.count("a") == 1 and g.count("unused") == 0


def test_node_lookup_errors():
    loss, names = _reused_linear(2)
    g = autograd_graph(loss, names)
    with pytest.raises(KeyError, match="no node labelled 'nope'"):
        g.node("nope")
    with pytest.raises(KeyError, match="4 nodes are labelled 'AddmmBackward0'"):
        g.in_edges("AddmmBackward0")
    with pytest.raises(KeyError, match="no node 99"):
        g.node(99)
    with pytest.raises(TypeError, match="by index or label"):
        g.node(1.5)


def test_text_listing():
    (a,) = _leaves((2,))
    text = str(autograd_graph((a * 3).sum(), {"a": a}))
    assert text.splitlines() == ["3 nodes, 2 edges", "  0  SumBackward0  -> 1",
                                 "  1  MulBackward0  -> 2", "  2  a (2,)"]


def test_draw_graphs_draws_every_node_and_edge():
    g = autograd_graph(*_reused_linear(2))
    (ax,) = draw_graphs({"depth 2": g}, highlight=["mid.weight"]).axes
    assert len(ax.texts) == len(g.nodes) + len(g.edges)   # boxes, and one annotation per arrow
    assert ax.get_title() == "depth 2"
    labels = [t.get_text() for t in ax.texts if t.get_text()]
    assert "mid.weight\n(3, 3)" in labels and labels.count("AddmmBackward0") == 4


def test_draw_errors():
    g = autograd_graph(*_reused_linear(0))
    with pytest.raises(KeyError, match=r"cannot highlight \['mid.weight'\]"):
        draw_graphs({"depth 0": g}, highlight=["mid.weight"])
    with pytest.raises(ValueError, match="non-empty dict"):
        draw_graphs({})
    with pytest.raises(TypeError, match=r"graphs\['x'\] is a int"):
        draw_graphs({"x": 3})
    with pytest.raises(ValueError, match="ncols must be a positive int"):
        draw_graphs({"a": g}, ncols=0)


def test_draw_graphs_grid():
    graphs = {f"depth {k}": autograd_graph(*_reused_linear(k)) for k in range(3)}
    fig = draw_graphs(graphs, ncols=2, highlight=["mid.weight"], suptitle="reuse")
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["depth 0", "depth 1", "depth 2", ""]   # the 4th panel is left empty
    assert isinstance(graphs["depth 0"], Graph)


def _dynamicnet_names(depth):
    loss, names = _reused_linear(depth)
    rename = {"first": "input_linear", "mid": "middle_linear", "last": "output_linear"}
    return loss, {rename[n.split(".")[0]] + "." + n.split(".")[1]: p for n, p in names.items()}


def test_long_leaf_names_are_broken_before_the_dot():
    (ax,) = draw_graphs({"depth 2": autograd_graph(*_dynamicnet_names(2))}).axes
    labels = [t.get_text() for t in ax.texts]
    assert "middle_linear\n.weight\n(3, 3)" in labels
    assert "AddmmBackward0" in labels and not any(t.startswith("\n") for t in labels)


def test_two_depths_side_by_side_stay_readable_on_a_700_px_page():
    graphs = {f"depth {k}": autograd_graph(*_dynamicnet_names(k)) for k in (1, 3)}
    fig = draw_graphs(graphs, ncols=2, fontsize=10, highlight=["middle_linear.weight"])
    width_px = fig.get_size_inches()[0] * fig.dpi
    shown = 10 / 72 * fig.dpi * min(1.0, 700 / width_px)  # label height in px, shown 700 wide
    assert shown >= 9, f"labels {shown:.1f} px high"
