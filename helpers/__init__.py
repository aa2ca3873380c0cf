"""Small helpers for the *From `.g` to `.grad`* notebooks.

One concern a module:

- `helpers.data`      synthetic regression data and the course's starting weights
- `helpers.compare`   gradient comparison tables that can be asserted
- `helpers.numerical` reference gradients: finite differences (float64) and autograd
- `helpers.graph`     the order in which backward runs a graph's nodes
- `helpers.errors`    short, path-free tracebacks (`%load_ext helpers.errors`) and
                      one-line proofs: `expect_error`, `expect_warning`
- `helpers.stepper`   a step-through: frames (SVG) and captions a learner pages
                      through, one deterministic cell output
- `helpers.stories`   the step-throughs' recorded events, drawn (one module a story)
- `helpers.ddp`       torch's launcher for a few local processes, and DynamicNet
                      under DistributedDataParallel (notebook 07)
- `helpers.checks`    the exercise checks, one module a notebook
"""

from helpers.compare import compare, grads_of
from helpers.data import make_weights, seed_everything, synthetic_regression
from helpers.errors import expect_error, expect_warning
from helpers.numerical import autograd_grads, numerical_grads

__all__ = [
    "autograd_grads",
    "compare",
    "expect_error",
    "expect_warning",
    "grads_of",
    "make_weights",
    "numerical_grads",
    "seed_everything",
    "synthetic_regression",
]
