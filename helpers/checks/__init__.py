"""Checks for the notebooks' exercises: one module a notebook (`nb01` ... `nb05`).

A check takes the learner's answer (a value, a function or a class), builds
everything else it needs itself, and raises `AssertionError` with a sentence
that says what is wrong when the answer is wrong. Checks never rely on a
notebook's globals, so re-running any cell cannot break one.

`tests/test_exercises.py` runs every check on the notebook's own solution and on
catalogued wrong answers (`tests/wrong_answers_nbNN.py`), which must fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from helpers.compare import compare


def call_answer(answer: Callable[..., Any], *args: Any, what: str, hint: str = "") -> Any:
    """Call the learner's `answer(*args)`; turn an exception into a sentence.

    `what` names the answer in the message ("your sigmoid_grad"); `hint` says
    what to look at. The original exception stays attached as the cause.
    """
    if not callable(answer):
        raise AssertionError(f"{what} should be a function or class, got a {type(answer).__name__}")
    try:
        return answer(*args)
    except AssertionError:
        raise
    except Exception as e:  # noqa: BLE001 -- any error in learner code becomes a message
        raise AssertionError(
            f"{what} raised {type(e).__name__}: {e}" + (f"\nHint: {hint}" if hint else "")
        ) from e


def read_g(t: torch.Tensor, name: str, who: str) -> torch.Tensor:
    """`t.g`, or an `AssertionError` saying that `who` did not set `name.g`."""
    g = getattr(t, "g", None)
    if not isinstance(g, torch.Tensor):
        raise AssertionError(
            f"{who} did not set {name}.g to a tensor"
            + ("" if g is None else f" (it is a {type(g).__name__})")
        )
    if g.shape != t.shape:
        raise AssertionError(
            f"{name}.g has shape {tuple(g.shape)}, but a gradient has the shape of its "
            f"tensor: {tuple(t.shape)}"
        )
    return g


def expect_close(
    ours: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor], what: str, **tol: float
) -> None:
    """`compare(ours, ref)`, raising `AssertionError` that starts with `what`."""
    cmp = compare(ours, ref, **tol)
    if not cmp.ok:
        raise AssertionError(f"{what}: wrong for {', '.join(cmp.failures)}\n{cmp}")
