"""Small helpers for the *From `.g` to `.grad`* notebooks.

One concern a module:

- `helpers.data`      synthetic regression data and the course's starting weights
- `helpers.compare`   gradient comparison tables that can be asserted
- `helpers.numerical` reference gradients: finite differences (float64) and autograd
- `helpers.graph`     the autograd graph of a loss, as data and drawn with matplotlib
- `helpers.plots`     the lesson-8 layer-flow picture and log-log axes with plain labels
"""

from helpers.compare import GradComparison, compare, grads_of
from helpers.data import make_weights, seed_everything, synthetic_regression
from helpers.graph import Edge, Graph, Node, autograd_graph, draw_graph, draw_graphs, graph_layout
from helpers.numerical import autograd_grads, numerical_grads
from helpers.plots import draw_layer_flow, log_log_axes

__all__ = [
    "Edge",
    "GradComparison",
    "Graph",
    "Node",
    "autograd_grads",
    "autograd_graph",
    "compare",
    "draw_graph",
    "draw_graphs",
    "draw_layer_flow",
    "grads_of",
    "graph_layout",
    "log_log_axes",
    "make_weights",
    "numerical_grads",
    "seed_everything",
    "synthetic_regression",
]
