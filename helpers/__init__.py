"""Small helpers for the *From `.g` to `.grad`* notebooks.

One concern a module:

- `helpers.data`      synthetic regression data and the course's starting weights
- `helpers.compare`   gradient comparison tables that can be asserted
- `helpers.numerical` central finite-difference gradients in float64
"""

from helpers.compare import GradComparison, compare, grads_of
from helpers.data import make_weights, seed_everything, synthetic_regression
from helpers.numerical import numerical_grads

__all__ = [
    "GradComparison",
    "compare",
    "grads_of",
    "make_weights",
    "numerical_grads",
    "seed_everything",
    "synthetic_regression",
]
