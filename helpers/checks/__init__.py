"""Checks for the notebooks' exercises: one module a notebook (`nb01` ... `nb06`).

A check takes the learner's answer (a value, a function or a class), builds
everything else it needs itself, and either prints one line starting with "✓"
or raises `CheckFailed`, an `AssertionError` whose first line says what is
wrong. Checks never rely on a notebook's globals, so re-running any cell cannot
break one. How to write one:

- decorate it with `@exercise_check`: whatever goes wrong inside, the learner
  gets a sentence, never a raw `TypeError` from deep inside the check;
- check the answer's type first (`expect_callable`, `expect_tensor`, ...);
- run the answer on several cases (seeds, shapes, asymmetric data, every
  branch), through `call_answer`, on inputs the check snapshots first
  (`snapshot`, `expect_unchanged`): side effects are part of the answer;
- compare with a reference the check computes itself (`expect_close`), and
  give a hint only for a mistake it has diagnosed (`mistakes=`);
- say in the docstring what it requires and what it leaves free.

In IPython a `CheckFailed` shows as its message alone, marked as the check's
verdict (plus the learner's own frames when the learner's code raised); under
pytest and plain Python it is an ordinary `AssertionError`.

`tests/test_exercises.py` runs every check on the notebook's solution, on valid
variants, on catalogued wrong answers, on wrong types and on automatic mutants
of each solution.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import torch

from helpers.compare import compare

__all__ = [
    "CheckFailed", "a_type", "call_answer", "dtype_name", "exercise_check", "expect_callable",
    "expect_close", "expect_tensor", "expect_unchanged", "passed", "read_g", "snapshot",
]

_HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_RED, _GREEN, _RESET = "\x1b[1;31m", "\x1b[1;32m", "\x1b[0m"


class CheckFailed(AssertionError):
    """An exercise check's verdict: what is wrong, in words.

    `learner_frames` holds the formatted frames of the learner's own code when
    that code raised; IPython shows them under the message, and nothing of the
    check's source.
    """

    def __init__(self, message: str, learner_frames: list[str] | None = None):
        super().__init__(message)
        self.learner_frames = learner_frames or []

    def _render_traceback_(self) -> list[str]:
        first, *rest = str(self).split("\n")
        lines = [f"{_RED}✗ Check failed:{_RESET} {first}", *rest]
        if self.learner_frames:
            lines += ["", "Where your code raised it (most recent call last):"]
            lines += [line.rstrip("\n") for line in self.learner_frames]
        return lines


def passed(message: str) -> None:
    """Print the check's verdict on a right answer: one line, "✓ ..."."""
    print(f"✓ {message}")


def exercise_check(func: Callable[..., Any]) -> Callable[..., Any]:
    """Make `func` a check that never crashes: every error becomes a `CheckFailed`.

    An `AssertionError` keeps its message; any other exception raised while the
    check works on the learner's result becomes a sentence naming it.
    """

    @functools.wraps(func)
    def check(*answers: Any) -> None:
        try:
            func(*answers)
        except CheckFailed as e:
            raise CheckFailed(str(e), e.learner_frames) from None
        except AssertionError as e:
            raise CheckFailed(str(e) or f"{func.__name__} failed") from None
        except Exception as e:  # noqa: BLE001 -- the check's own trouble, said in words
            raise CheckFailed(
                f"the check could not use your answer: working on it raised "
                f"{type(e).__name__}: {e}"
            ) from e

    return check


def _learner_frames(tb) -> list[str]:
    """The formatted frames of `tb` that are the learner's code (not helpers, not libraries)."""
    frames = [f for f in traceback.extract_tb(tb)
              if not os.path.abspath(f.filename).startswith((_HELPERS, *_LIBRARY))]
    return traceback.format_list(frames)


def call_answer(answer: Callable[..., Any], *args: Any, what: str, hint: str = "") -> Any:
    """Call the learner's `answer(*args)`; turn an exception into a sentence.

    `what` names the answer in the message ("your sigmoid_grad"); `hint` is
    added to that message: say there how the answer is called, not a guess
    at a mistake. The learner's own frames are kept for IPython to show.
    """
    expect_callable(answer, what)
    try:
        return answer(*args)
    except Exception as e:  # noqa: BLE001 -- any error in learner code becomes a message
        raise CheckFailed(
            f"{what} raised {type(e).__name__}: {e}" + (f"\nHint: {hint}" if hint else ""),
            _learner_frames(e.__traceback__),
        ) from e


def expect_callable(answer: Any, what: str) -> None:
    """`answer` is a function or a class, or a `CheckFailed` saying what it is instead."""
    if not callable(answer):
        raise CheckFailed(f"{what} should be a function or a class, "
                          f"but it is {_describe(answer)}")


def expect_tensor(value: Any, what: str, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    """`value` if it is a tensor (of `shape`, when given); else a `CheckFailed` naming `what`."""
    if not isinstance(value, torch.Tensor):
        raise CheckFailed(f"{what} should be a tensor, but it is {_describe(value)}")
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise CheckFailed(f"{what} has shape {tuple(value.shape)}, expected {tuple(shape)}")
    return value


def a_type(value: Any) -> str:
    """'None', 'an int', 'a list', ...: what kind of thing the learner gave."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def dtype_name(t: torch.Tensor | torch.dtype) -> str:
    """'float32' for a float32 tensor or dtype."""
    return str(t.dtype if isinstance(t, torch.Tensor) else t).removeprefix("torch.")


def _describe(value: Any) -> str:
    """`a_type(value)` with its repr, shortened: "an int (3)"."""
    if value is None:
        return "None"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{a_type(value)} ({text})"


def read_g(t: torch.Tensor, name: str, who: str) -> torch.Tensor:
    """`t.g`, or a `CheckFailed` saying that `who` did not set `name.g` as a float
    tensor of `t`'s shape."""
    g = getattr(t, "g", None)
    if not isinstance(g, torch.Tensor):
        raise CheckFailed(
            f"{who} did not set {name}.g to a tensor"
            + ("" if g is None else f" (it is {_describe(g)})")
        )
    if g.shape != t.shape:
        raise CheckFailed(
            f"{name}.g has shape {tuple(g.shape)}, but a gradient has the shape of its "
            f"tensor: {tuple(t.shape)}"
        )
    if not g.is_floating_point():
        raise CheckFailed(f"{name}.g is a tensor of {dtype_name(g)}; "
                          f"a gradient holds real numbers (a float dtype)")
    return g


def snapshot(**tensors: torch.Tensor) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Copies of `tensors` (and of their `.g`, if any), taken before the learner's code runs."""
    def copy(t):
        g = getattr(t, "g", None)
        return t.detach().clone(), (g.detach().clone() if isinstance(g, torch.Tensor) else g)
    return {name: (t, *copy(t)) for name, t in tensors.items()}


def expect_unchanged(before: Mapping[str, tuple], who: str, g: bool = True) -> None:
    """Each tensor of `snapshot(...)` still holds its values (and, if `g`, its `.g`)."""
    for name, (t, value, old_g) in before.items():
        if t.shape != value.shape or not torch.equal(t.detach(), value):
            raise CheckFailed(f"{who} changed {name} in place; it should only read it "
                              f"(use out-of-place ops, e.g. x * y instead of x.mul_(y))")
        new_g = getattr(t, "g", None)
        if g and isinstance(old_g, torch.Tensor) and not (
                isinstance(new_g, torch.Tensor) and new_g.shape == old_g.shape
                and torch.equal(new_g, old_g)):
            raise CheckFailed(f"{who} changed {name}.g; it should only read it")


def expect_close(
    ours: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor], what: str,
    mistakes: Mapping[str, Mapping[str, torch.Tensor]] | None = None, **tol: float,
) -> None:
    """`compare(ours, ref)`, raising `CheckFailed` that starts with `what`.

    `mistakes` maps a sentence ("you used = where += was needed") to the
    result that mistake gives; when `ours` matches one, that sentence is the
    hint. Without a match no hint is given: the table shows the difference.
    """
    cmp = compare(ours, ref, **tol)
    if cmp.ok:
        return
    message = f"{what}: wrong for {', '.join(cmp.failures)}"
    for sentence, result in (mistakes or {}).items():
        names = [n for n in cmp.failures if n in result]
        if names and all(_close(ours[n], result[n], ref[n]) for n in names):
            message += f"\nYour result is what you get if {sentence}."
            break
    raise CheckFailed(f"{message}\n{cmp}")


def _close(a: torch.Tensor, b: torch.Tensor, ref: torch.Tensor) -> bool:
    if not isinstance(b, torch.Tensor) or a.shape != b.shape:
        return False
    scale = ref.detach().abs().max().item() if ref.numel() else 1.0
    return torch.allclose(a.detach().double(), b.detach().double(),
                          rtol=1e-5, atol=1e-6 * max(scale, 1e-3))
