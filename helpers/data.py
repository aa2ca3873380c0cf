"""Synthetic data and starting weights, deterministic by seed (no downloads)."""

from __future__ import annotations

import math
import random

import numpy as np
import torch


def seed_everything(seed: int = 42) -> None:
    """Seed `random`, NumPy and torch, and pin torch to one CPU thread.

    One thread keeps float sums in the same order run after run, so printed
    gradients and losses are identical every time the notebook runs.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)


def synthetic_regression(
    n: int = 256,
    n_in: int = 8,
    seed: int = 0,
    noise: float = 0.05,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A small nonlinear regression problem that a two-layer MLP can fit.

    Inputs are standard normal; the target is
    ``sin(inp @ a) + 0.5 * (inp @ c)**2 - 0.5`` plus Gaussian noise, with fixed
    random directions ``a`` and ``c``.

    Returns:
        inp:  ``(n, n_in)`` inputs.
        targ: ``(n,)`` targets (one number per row, like the lesson's labels).
    """
    if n < 1 or n_in < 1:
        raise ValueError(f"n and n_in must be positive, got n={n}, n_in={n_in}")
    g = torch.Generator().manual_seed(seed)
    inp = torch.randn(n, n_in, generator=g, dtype=torch.float64)
    a = torch.randn(n_in, generator=g, dtype=torch.float64) / math.sqrt(n_in)
    c = torch.randn(n_in, generator=g, dtype=torch.float64) / math.sqrt(n_in)
    targ = torch.sin(inp @ a) + 0.5 * (inp @ c) ** 2 - 0.5
    targ = targ + noise * torch.randn(n, generator=g, dtype=torch.float64)
    return inp.to(dtype), targ.to(dtype)


def make_weights(
    n_in: int,
    nh: int,
    n_out: int = 1,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Kaiming-initialised weights of the lesson's two-layer MLP.

    Returns ``w1 (n_in, nh)``, ``b1 (nh,)``, ``w2 (nh, n_out)``, ``b2 (n_out,)``:
    ``w1`` is scaled by ``sqrt(2 / n_in)`` (it feeds a ReLU), ``w2`` by
    ``sqrt(1 / nh)``; biases start at zero.
    """
    if min(n_in, nh, n_out) < 1:
        raise ValueError(f"sizes must be positive, got n_in={n_in}, nh={nh}, n_out={n_out}")
    g = torch.Generator().manual_seed(seed)
    w1 = torch.randn(n_in, nh, generator=g, dtype=torch.float64) * math.sqrt(2 / n_in)
    w2 = torch.randn(nh, n_out, generator=g, dtype=torch.float64) * math.sqrt(1 / nh)
    b1 = torch.zeros(nh, dtype=torch.float64)
    b2 = torch.zeros(n_out, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (w1, b1, w2, b2))
