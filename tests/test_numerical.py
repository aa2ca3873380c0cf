import pytest
import torch

from helpers import compare, numerical_grads


def test_matches_analytic_gradient_of_a_quadratic():
    g = torch.Generator().manual_seed(0)
    w = torch.randn(3, 2, generator=g, dtype=torch.float64)
    x = torch.randn(5, 3, generator=g, dtype=torch.float64)

    def loss(w):
        return ((x @ w) ** 2).sum()

    analytic = 2 * x.t() @ (x @ w)
    compare(numerical_grads(loss, {"w": w}), {"w": analytic}, rtol=1e-6, atol=1e-6).check()


def test_several_tensors_and_input_left_unchanged():
    a = torch.tensor([1.0, 2.0], dtype=torch.float64)
    b = torch.tensor([3.0], dtype=torch.float64)
    before = a.clone()
    grads = numerical_grads(lambda a, b: (a * b).sum(), {"a": a, "b": b})
    assert torch.allclose(grads["a"], torch.tensor([3.0, 3.0], dtype=torch.float64))
    assert torch.allclose(grads["b"], torch.tensor([3.0], dtype=torch.float64))
    assert torch.equal(a, before)


def test_non_contiguous_input():
    w = torch.arange(6, dtype=torch.float64).reshape(2, 3).t()
    grads = numerical_grads(lambda w: (w ** 2).sum(), {"w": w})
    assert torch.allclose(grads["w"], 2 * w, atol=1e-6)


def test_float32_is_refused_with_the_tensor_named():
    with pytest.raises(TypeError, match=r"w1 is torch.float32; .*w1.double\(\)"):
        numerical_grads(lambda w1: w1.sum(), {"w1": torch.zeros(2)})


def test_bad_input():
    with pytest.raises(TypeError, match="w is a list"):
        numerical_grads(lambda w: w, {"w": [1.0]})
    with pytest.raises(ValueError, match="non-empty dict"):
        numerical_grads(lambda: 0, {})
    with pytest.raises(ValueError, match="scalar"):
        numerical_grads(lambda w: w * 2, {"w": torch.zeros(2, dtype=torch.float64)})


def test_float32_loss_is_refused():
    w = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="loss_fn returned torch.float32"):
        numerical_grads(lambda w: w.float().sum(), {"w": w})


def test_autograd_grads_match_finite_differences_and_leave_inputs_alone():
    from helpers import autograd_grads

    g = torch.Generator().manual_seed(1)
    w = torch.randn(3, 2, generator=g, dtype=torch.float64)
    x = torch.randn(5, 3, generator=g, dtype=torch.float64)

    def loss(w, x):
        return ((x @ w).clamp_min(0) ** 2).mean()

    ag = autograd_grads(loss, {"w": w, "x": x})
    compare(ag, numerical_grads(loss, {"w": w, "x": x}), rtol=1e-6).check()
    assert w.grad is None and not w.requires_grad and not hasattr(w, "g")


def test_autograd_grads_unused_tensor_gets_zeros():
    from helpers import autograd_grads

    a, b = torch.ones(2), torch.ones(3)
    grads = autograd_grads(lambda a, b: (a * 2).sum(), {"a": a, "b": b})
    assert torch.equal(grads["a"], torch.full((2,), 2.0))
    assert torch.equal(grads["b"], torch.zeros(3))


def test_autograd_grads_bad_input_names_the_problem():
    from helpers import autograd_grads

    with pytest.raises(TypeError, match="w is a list"):
        autograd_grads(lambda w: w.sum(), {"w": [1.0]})
    with pytest.raises(TypeError, match="w is torch.int64"):
        autograd_grads(lambda w: w.sum(), {"w": torch.ones(2, dtype=torch.long)})
    with pytest.raises(ValueError, match="scalar"):
        autograd_grads(lambda w: w * 2, {"w": torch.ones(2)})
    with pytest.raises(ValueError, match="does not depend"):
        autograd_grads(lambda w: w.detach().sum(), {"w": torch.ones(2)})
    with pytest.raises(ValueError, match="non-empty dict"):
        autograd_grads(lambda: 0, {})
