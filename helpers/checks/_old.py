"""Checks for the notebooks' exercises: one module a notebook (`nb01` ... `nb07`).

A check takes the learner's answer (a value, a function or a class), builds
everything else it needs itself, and either prints one line starting with "✓"
or raises `CheckFailed`, an `AssertionError` whose message says what is
wrong in at most three lines: the sentence, a diagnosis if one was made, and
one line of figures. Checks never rely on a notebook's globals, so re-running
any cell, or a kernel restart, cannot break one. How to write one:

- decorate it with `@exercise_check`: whatever goes wrong inside, the learner
  gets a sentence, never a raw `TypeError` from deep inside the check; warnings
  raised meanwhile are caught (a ✓ stands alone on screen); `details=True` in
  the learner's call adds the full comparison table to a failure;
- check the answer's type first (`expect_callable`, `expect_tensor`,
  `expect_int`, ...);
- run the answer (`call_answer`) on several cases (seeds, shapes, asymmetric
  data, every branch), on inputs the check snapshots first (`snapshot`,
  `expect_unchanged`; `snapshot_model`, `expect_model_unchanged` for a model's
  parameters, hooks and attributes): side effects are part of the answer.
  `call_answer` turns the learner's errors into sentences: a wrong call, a
  name this kernel does not know, and autograd's common refusals
  (`AUTOGRAD_ERRORS`; a check may point to its own notebook's section);
- compare with a reference the check computes itself (`expect_close`), and
  give a hint only for a mistake it has diagnosed (`mistakes=`); when two
  mistakes give the same numbers, the message names both;
- say in the docstring what it requires and what it leaves free.

Imported in IPython, this package loads `helpers.errors` if the notebook's
set-up has not (after a kernel restart). A `CheckFailed` shows as its message
alone, marked as the check's verdict, plus the learner's own line (``Cell In[12], line 3``) when the
learner's code raised; under pytest and plain Python it is an ordinary
`AssertionError`.

`tests/test_exercises.py` runs every check on the notebook's solution, on valid
variants, on catalogued wrong answers, on wrong types and on automatic mutants
of each solution.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import numbers
import os
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import torch

from helpers.compare import compare

__all__ = [
    "AUTOGRAD_ERRORS", "CheckFailed", "a_type", "call_answer", "dtype_name", "exercise_check",
    "expect_callable", "expect_close", "expect_int", "expect_model_unchanged", "expect_number",
    "expect_tensor", "expect_unchanged", "passed", "read_g", "snapshot", "snapshot_model",
]

def _short_tracebacks() -> None:
    """In IPython, load `helpers.errors` (short tracebacks) if the set-up has not: an
    Exercises section run after a kernel restart shows errors as the lesson did."""
    ip = sys.modules.get("IPython")
    shell = ip.get_ipython() if ip is not None else None
    manager = getattr(shell, "extension_manager", None)
    if manager is not None and "helpers.errors" not in manager.loaded:
        manager.load_extension("helpers.errors")


_short_tracebacks()  # TODO(issue 30): removed once nb04-nb07 use the new framework

_HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_RED, _RESET = "\x1b[1;31m", "\x1b[0m"
_DETAILS: contextvars.ContextVar[bool] = contextvars.ContextVar("details", default=False)


class CheckFailed(AssertionError):
    """An exercise check's verdict: what is wrong, in words.

    `learner_frames` holds the learner's own line when that code raised
    (``Raised at Cell In[12], line 3, in f: code``); IPython shows it under the
    message when the verdict stays within three lines, and nothing of the
    check's source.
    """

    def __init__(self, message: str, learner_frames: list[str] | None = None):
        super().__init__(message)
        self.learner_frames = learner_frames or []

    def _render_traceback_(self) -> list[str]:
        first, *rest = str(self).split("\n")
        lines = [f"{_RED}✗ Check failed:{_RESET} {first}", *rest]
        # The learner's line, when it fits in the three lines a verdict may take.
        return lines + self.learner_frames[: max(0, 3 - len(lines))]


def passed(message: str) -> None:
    """Print the check's verdict on a right answer: one line, "✓ ..."."""
    print(f"✓ {message}")


# Warnings a learner's right answer may raise that say nothing about the answer.
_HARMLESS = ("Converting a tensor with requires_grad=True to a scalar",)


def exercise_check(func: Callable[..., Any]) -> Callable[..., Any]:
    """Make `func` a check that never crashes: every error becomes a `CheckFailed`.

    An `AssertionError` keeps its message; any other exception raised while the
    check works on the learner's result becomes a sentence naming it. Warnings
    are caught: on a pass none is shown; on a failure without a diagnosis, the
    first one that is not harmless becomes the message's second line. The
    learner may add `details=True` to the call: a failed comparison then shows
    its whole table.
    """

    @functools.wraps(func)
    def check(*answers: Any, details: bool = False) -> None:
        token = _DETAILS.set(bool(details))
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    func(*answers)
                except CheckFailed as e:
                    raise CheckFailed(_with_warning(str(e), seen), e.learner_frames) from None
                except AssertionError as e:
                    raise CheckFailed(_with_warning(str(e) or f"{func.__name__} failed",
                                                    seen)) from None
                except Exception as e:  # noqa: BLE001 -- the check's own trouble, in words
                    raise CheckFailed(
                        f"the check could not use your answer: working on it raised "
                        f"{type(e).__name__}: {_first_sentence(str(e))}") from e
        finally:
            _DETAILS.reset(token)

    return check


def _with_warning(message: str, seen: list) -> str:
    """`message`, plus the first warning that matters as its second line, if it has one."""
    if "\n" in message:
        return message
    for w in seen:
        text = str(w.message)
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)) or any(
                h in text for h in _HARMLESS):
            continue
        return f"{message}\nYour code also warned: {w.category.__name__}: {_first_sentence(text)}"
    return message


def _first_sentence(text: str, limit: int = 160) -> str:
    """The first line, up to its first '. ', at most `limit` characters."""
    line = text.strip().split("\n")[0]
    cut = line.find(". ")
    line = line if cut < 0 else line[:cut + 1]
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _cell_name(filename: str) -> str | None:
    """'Cell In[12]' when `filename` is a notebook cell of this IPython kernel."""
    ip = sys.modules.get("IPython")
    shell = ip.get_ipython() if ip is not None else None
    name = getattr(getattr(shell, "compile", None), "format_code_name", lambda _: None)(filename)
    return " ".join(name) if name else None


def _learner_frames(tb) -> list[str]:
    """The learner's deepest frame of `tb` (not the check's, not a library's) as one
    path-free line of at most 79 characters: ``Raised at Cell In[12], line 3, in f: code``."""
    frames = [f for f in traceback.extract_tb(tb)
              if not os.path.abspath(f.filename).startswith((_HELPERS, *_LIBRARY))]
    if not frames:
        return []
    f = frames[-1]
    where = _cell_name(f.filename) or os.path.basename(f.filename)
    line = f"Raised at {where}, line {f.lineno}, in {f.name}" + (
        f": {f.line.strip()}" if f.line else "")
    return [line if len(line) <= 79 else line[:78] + "…"]


# Autograd's common refusals, said as one sentence each: (part of torch's message,
# sentence). A check may replace a sentence with `errors=` in `call_answer`, to
# point to its own notebook's section.
AUTOGRAD_ERRORS: dict[str, tuple[str, str]] = {
    "backward_twice": (
        "backward through the graph a second time",
        "backward ran a second time through a graph whose saved tensors the first "
        "backward had freed (notebook 06 explains why): build a new graph, or detach "
        "what you carry over"),
    "inplace_saved": (
        "modified by an inplace operation",
        "a tensor that autograd saved for backward was changed in place (notebook 06): "
        "compute a new tensor instead, e.g. x = x * 2 rather than x.mul_(2)"),
    "leaf_inplace": (
        "leaf Variable that requires grad is being used in an in-place operation",
        "a leaf that requires grad was changed in place while autograd records: "
        "update it under torch.no_grad() (notebook 06)"),
    "dtype": (
        "dtype",
        "tensors of two dtypes met in one operation: make them one dtype (e.g. .double())"),
    "no_grad_fn": (
        "does not require grad and does not have a grad_fn",
        "backward was called on a tensor autograd did not record: does the loss come "
        "from tensors that require grad, outside torch.no_grad()?"),
}


def _diagnose(e: BaseException, seen: list, errors: Mapping[Any, str] | None) -> str | None:
    """One sentence for a learner's error that the course has taught, else None."""
    sentences = {key: sentence for key, (_, sentence) in AUTOGRAD_ERRORS.items()}
    sentences.update({k: v for k, v in (errors or {}).items() if isinstance(k, str)})
    if isinstance(e, NameError):
        name = getattr(e, "name", None) or str(e).split("'")[1:2] or ["a name"]
        name = name if isinstance(name, str) else name[0]
        return sentences.get(f"name:{name}", (
            f"`{name}` is not defined in this kernel: run the cell that defines or "
            f"imports it (after a restart, start from the exercise's check cell)"))
    text = str(e)
    if any("is not a leaf Tensor is being accessed" in str(w.message) for w in seen):
        return sentences.get("nonleaf_grad", (     # the likeliest cause of what followed
            "your code read .grad of a tensor that is not a leaf, which is None: "
            "autograd keeps .grad on leaves only (notebook 03)"))
    for key, sentence in (errors or {}).items():     # a check's own (type, text) patterns
        if isinstance(key, tuple) and isinstance(e, key[0]) and key[1] in text:
            return sentence
    for key, (part, _) in AUTOGRAD_ERRORS.items():
        if part in text and (key != "dtype" or isinstance(e, RuntimeError)):
            return sentences[key]
    return None


_ARGUMENTS = re.compile(r"positional argument|keyword argument|required argument|"
                        r"takes no arguments|arguments? but \d+ (was|were) given")


def call_answer(answer: Callable[..., Any], *args: Any, what: str, hint: str = "",
                errors: Mapping[Any, str] | None = None) -> Any:
    """Call the learner's `answer(*args)`; turn an exception into a sentence.

    `what` names the answer in the message ("your sigmoid_grad"). `hint` says
    how the answer is called; it is shown only when the call itself fails
    (the answer takes other arguments). An error raised inside the answer is
    diagnosed when the course taught it (a name this kernel does not know,
    autograd's refusals in `AUTOGRAD_ERRORS`; `errors` replaces a sentence,
    by the same keys, ``"nonleaf_grad"`` or ``"name:<name>"``, or adds one for
    an ``(ExceptionType, "text in its message")`` key), and otherwise
    shown as its type and first sentence. The learner's own lines are kept for
    IPython to show.
    """
    expect_callable(answer, what)
    try:
        inspect.signature(answer).bind(*args)
    except TypeError as e:
        raise CheckFailed(f"{what} cannot be called this way: {e}"
                          + (f"\nHint: {hint}" if hint else "")) from None
    except ValueError:  # no signature to read (a builtin): just call it
        pass
    error = None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = answer(*args)
        except Exception as e:  # noqa: BLE001 -- any error in learner code becomes a message
            error = e
    for w in seen:   # passed on, for exercise_check to judge
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if error is None:
        return result
    diagnosis = _diagnose(error, seen, errors)
    said = f"{type(error).__name__}: {_first_sentence(str(error))}"
    if diagnosis is None and hint and isinstance(error, TypeError) and _ARGUMENTS.search(
            str(error)):
        diagnosis = f"Hint: {hint}"          # a function of the answer's got other arguments
    message = f"{what} raised {said}" + (f"\n{diagnosis}" if diagnosis else "")
    raise CheckFailed(message, _learner_frames(error.__traceback__)) from error


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


def expect_int(value: Any, what: str) -> int:
    """`value` as an int: a Python or NumPy integer, or a 0-d integer tensor; not a bool."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and not value.is_floating_point() \
            and value.dtype != torch.bool:
        return int(value.item())
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
            type(value).__name__ not in ("bool_", "bool"):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and \
            float(value).is_integer():
        raise CheckFailed(f"{what} should be a whole number of type int, but it is "
                          f"{_describe(value)}: convert it with int(...)")
    raise CheckFailed(f"{what} should be an int, but it is {_describe(value)}")


def expect_number(value: Any, what: str) -> float:
    """`value` as a float: any real Python or NumPy number, or a 0-d tensor; not a bool."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype != torch.bool:
        return float(value.item())
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and \
            type(value).__name__ not in ("bool_", "bool"):
        return float(value)
    raise CheckFailed(f"{what} should be a number, but it is {_describe(value)}")


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


_MODULE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                 "_backward_pre_hooks")


def _hooks(obj: Any, names: tuple[str, ...]) -> int:
    return sum(len(getattr(obj, n, None) or {}) for n in names)


def snapshot_model(model: torch.nn.Module) -> dict[str, Any]:
    """What a model is made of, before the learner's code runs: modules, parameters
    (the tensors themselves, their values and `requires_grad`), hooks and attributes."""
    return {
        "modules": {n: (m, set(vars(m)), _hooks(m, _MODULE_HOOKS))
                    for n, m in model.named_modules()},
        "params": {n: (p, p.detach().clone(), p.requires_grad,
                       _hooks(p, ("_backward_hooks", "_post_accumulate_grad_hooks")))
                   for n, p in model.named_parameters()},
    }


def expect_model_unchanged(before: Mapping[str, Any], model: torch.nn.Module, who: str,
                           values: bool = True) -> None:
    """`model` is made as `snapshot_model` saw it: the same modules and parameter tensors,
    no hook left on it, no attribute added, and (if `values`) the same weights."""
    modules = dict(model.named_modules())
    params = dict(model.named_parameters())
    for n, (m, attrs, hooks) in before["modules"].items():
        where = n or "the model"
        if modules.get(n) is not m:
            raise CheckFailed(f"{who} replaced or removed {where}: leave the model's layers "
                              f"as they were")
        if _hooks(m, _MODULE_HOOKS) > hooks:
            raise CheckFailed(f"{who} left a hook on {where}: remove each hook you register "
                              f"(handle.remove()) before you return")
        added = sorted(set(vars(m)) - attrs)
        if added:
            raise CheckFailed(f"{who} added {', '.join(added)} to {where}: leave the "
                              f"model as it was")
    for n, (p, value, requires_grad, hooks) in before["params"].items():
        if params.get(n) is not p:
            raise CheckFailed(f"{who} replaced {n} with another tensor: the model must "
                              f"keep its own parameters (tied ones stay tied)")
        if p.requires_grad != requires_grad:
            raise CheckFailed(f"{who} switched requires_grad of {n}; leave it as it was")
        if _hooks(p, ("_backward_hooks", "_post_accumulate_grad_hooks")) > hooks:
            raise CheckFailed(f"{who} left a hook on {n}: remove each hook you register "
                              f"(handle.remove()) before you return")
        if values and not torch.equal(p.detach(), value):
            raise CheckFailed(f"{who} changed the values of {n}; it should leave the "
                              f"weights to the optimizer")


def expect_close(
    ours: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor], what: str,
    mistakes: Mapping[str, Mapping[str, torch.Tensor]] | None = None, **tol: float,
) -> None:
    """`compare(ours, ref)`, raising a `CheckFailed` of at most three lines.

    Line 1: `what`, and the tensors that differ. Line 2, when `ours` matches
    the result of one or more `mistakes` (a sentence, "you used = where += was
    needed", mapped to the result that mistake gives): "Your result is what you
    get if ..." naming each such mistake. Last line: the largest difference
    and its tolerance. The learner's `details=True` appends the whole table.
    """
    cmp = compare(ours, ref, **tol)
    if cmp.ok:
        return
    lines = [f"{what}: wrong for {', '.join(cmp.failures)}"]
    matched = [sentence for sentence, result in (mistakes or {}).items()
               if (names := [n for n in cmp.failures if n in result])
               and all(_close(ours[n], result[n], ref[n]) for n in names)]
    if matched:
        lines.append("Your result is what you get if " + ", or if ".join(matched) + ".")
    worst = max((r for r in cmp.rows if not r.close), key=lambda r: r.max_abs_diff / r.atol)
    lines.append(f"Largest difference: {worst.max_abs_diff:.2g} in {worst.name}, where "
                 f"{worst.atol:.1g} is allowed"
                 + ("" if _DETAILS.get() else " (details=True shows every tensor)"))
    if _DETAILS.get():
        lines.append(str(cmp))
    raise CheckFailed("\n".join(lines))


def _close(a: torch.Tensor, b: torch.Tensor, ref: torch.Tensor) -> bool:
    if not isinstance(b, torch.Tensor) or a.shape != b.shape:
        return False
    scale = ref.detach().abs().max().item() if ref.numel() else 1.0
    return torch.allclose(a.detach().double(), b.detach().double(),
                          rtol=1e-5, atol=1e-6 * max(scale, 1e-3))
