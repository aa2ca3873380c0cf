"""Central finite-difference gradients in float64, the check that needs no calculus."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch


def numerical_grads(
    loss_fn: Callable[..., torch.Tensor],
    tensors: Mapping[str, torch.Tensor],
    eps: float = 1e-6,
) -> dict[str, torch.Tensor]:
    """Estimate d loss / d tensor for every named tensor by central differences.

    For each entry ``x`` of each tensor:
    ``(loss(x + eps) - loss(x - eps)) / (2 * eps)``, all other entries fixed.

    Args:
        loss_fn: called as ``loss_fn(**tensors)``; returns a scalar tensor.
        tensors: ``{name: float64 tensor}``; they are not modified (the
            function works on copies).
        eps: the step. The centred difference has error ``O(eps**2)`` from
            the curvature of the loss and about ``1e-16 * |loss| / eps`` from
            rounding; ``1e-6`` keeps both near 1e-10 in float64 (in float32
            rounding would swamp the difference, so float32 input is refused).

    Returns:
        ``{name: gradient}``, each float64 with its tensor's shape.

    Costs two calls of `loss_fn` per entry: keep the sizes small.
    """
    if not isinstance(tensors, Mapping) or not tensors:
        raise ValueError("numerical_grads needs a non-empty dict of named tensors, e.g. {'w1': w1}")
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} is a {type(t).__name__}, not a tensor")
        if t.dtype != torch.float64:
            raise TypeError(
                f"{name} is {t.dtype}; finite differences need float64 "
                f"(pass {name}.double())"
            )
    work = {
        name: t.detach().clone(memory_format=torch.contiguous_format)
        for name, t in tensors.items()
    }

    def loss() -> float:
        value = loss_fn(**work)
        if not isinstance(value, torch.Tensor) or value.numel() != 1:
            raise ValueError("loss_fn must return a scalar tensor")
        if value.dtype != torch.float64:
            raise TypeError(
                f"loss_fn returned {value.dtype}; compute the loss in float64 "
                "(a float32 constant or .float() inside it ruins the differences)"
            )
        return float(value)

    grads = {}
    with torch.no_grad():
        for name, t in work.items():
            g = torch.zeros_like(t)
            flat, gflat = t.view(-1), g.view(-1)
            for i in range(flat.numel()):
                orig = float(flat[i])
                flat[i] = orig + eps
                up = loss()
                flat[i] = orig - eps
                down = loss()
                flat[i] = orig
                gflat[i] = (up - down) / (2 * eps)
            grads[name] = g
    return grads
