"""Reference gradients to check ours against, both called the same way.

- `numerical_grads`: central finite differences in float64, the check that
  needs no calculus.
- `autograd_grads`: PyTorch's autograd, on detached copies, so the tensors
  passed in (and their `.g` or `.grad`) are left alone.

Both take ``loss_fn`` and ``{name: tensor}`` and return ``{name: gradient}``.
"""

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


def autograd_grads(
    loss_fn: Callable[..., torch.Tensor],
    tensors: Mapping[str, torch.Tensor],
) -> dict[str, torch.Tensor]:
    """d loss / d tensor for every named tensor, computed by autograd on copies.

    Args:
        loss_fn: called as ``loss_fn(**copies)``; returns a scalar tensor built
            from the copies with differentiable torch operations.
        tensors: ``{name: floating-point tensor}``; they are not modified, and
            no ``.grad`` appears on them.

    Returns:
        ``{name: gradient}``, each with its tensor's shape and dtype. A tensor
        that the loss does not use gets zeros (its gradient is zero), not ``None``.
    """
    if not isinstance(tensors, Mapping) or not tensors:
        raise ValueError("autograd_grads needs a non-empty dict of named tensors, e.g. {'w1': w1}")
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} is a {type(t).__name__}, not a tensor")
        if not t.is_floating_point():
            raise TypeError(f"{name} is {t.dtype}; autograd needs floating-point tensors")
    copies = {name: t.detach().clone().requires_grad_() for name, t in tensors.items()}
    loss = loss_fn(**copies)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise ValueError("loss_fn must return a scalar tensor")
    if not loss.requires_grad:
        raise ValueError(
            "the loss does not depend on any of the tensors through autograd "
            "(was it computed under torch.no_grad(), or from .detach()ed copies?)"
        )
    grads = torch.autograd.grad(loss, list(copies.values()), allow_unused=True)
    return {
        name: torch.zeros_like(t) if g is None else g
        for (name, t), g in zip(copies.items(), grads)
    }
