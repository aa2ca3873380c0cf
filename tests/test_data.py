import random

import numpy as np
import pytest
import torch

from helpers import make_weights, seed_everything, synthetic_regression


def test_shapes_and_dtype():
    inp, targ = synthetic_regression(n=10, n_in=3)
    assert inp.shape == (10, 3) and targ.shape == (10,)
    assert inp.dtype == targ.dtype == torch.float32
    assert synthetic_regression(n=4, n_in=2, dtype=torch.float64)[0].dtype == torch.float64


def test_deterministic_by_seed_and_independent_of_global_rng():
    torch.manual_seed(123)
    a = synthetic_regression(seed=1)
    torch.manual_seed(999)
    b = synthetic_regression(seed=1)
    c = synthetic_regression(seed=2)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a[0], c[0])


def test_bad_sizes():
    with pytest.raises(ValueError, match="positive"):
        synthetic_regression(n=0)


def test_make_weights_shapes_and_scale():
    w1, b1, w2, b2 = make_weights(784, 50, seed=0)
    assert (w1.shape, b1.shape, w2.shape, b2.shape) == ((784, 50), (50,), (50, 1), (1,))
    assert abs(float(w1.std()) - (2 / 784) ** 0.5) < 0.005
    assert torch.count_nonzero(b1) == 0
    assert torch.equal(w1, make_weights(784, 50, seed=0)[0])


def test_seed_everything_seeds_every_source():
    seed_everything(7)
    first = (random.random(), np.random.rand(), torch.rand(1))
    seed_everything(7)
    assert first == (random.random(), np.random.rand(), torch.rand(1))
    assert torch.get_num_threads() == 1


def test_make_weights_bad_sizes():
    with pytest.raises(ValueError, match="n_in=0"):
        make_weights(0, 16)
