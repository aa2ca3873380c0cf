"""Checks for the notebooks' exercises: one module a notebook (`nb01` ... `nb07`).

A check (`@exercise_check`) builds its own cases, runs the answer (`call_answer`, its errors in
words), compares (`judge`: a `Mistake` is named only when it gives the answer's results on every
case) and tells what the answer changed (`snapshot`, `expect_unchanged`); it prints "✓ ..." or
raises `CheckFailed`: at most three lines, shown in IPython as "✗ Check failed: ..."."""

from __future__ import annotations

import contextvars
import dataclasses
import dis
import functools
import inspect
import io
import math
import numbers
import os
import re
import sys
import tokenize
import traceback
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from helpers.compare import compare

__all__ = ["CheckFailed", "Either", "Mistake", "a_type", "call_answer", "code_uses", "describe",
           "dtype_name", "exercise_check", "expect_callable", "expect_close", "expect_tensor",
           "expect_unchanged", "judge", "matching", "param_grads", "read_g", "snapshot"]


def _shell():
    ip = sys.modules.get("IPython")
    return ip.get_ipython() if ip is not None else None


_manager = getattr(_shell(), "extension_manager", None)   # short tracebacks, if not loaded yet
if _manager is not None and "helpers.errors" not in _manager.loaded:
    _manager.load_extension("helpers.errors")
_HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_RED, _RESET = "\x1b[1;31m", "\x1b[0m"
_DETAILS: contextvars.ContextVar[bool] = contextvars.ContextVar("details", default=False)


class CheckFailed(AssertionError):
    """An exercise check's verdict, in words; `diagnoses`, the keys of the mistakes it names;
    `frames`, the learner's own line when that code raised."""

    def __init__(self, message: str, *diagnoses: str, frames: list[str] | None = None):
        super().__init__(message)
        self.diagnoses, self.learner_frames = diagnoses, frames or []

    def _render_traceback_(self) -> list[str]:
        first, *rest = str(self).split("\n")
        lines = [f"{_RED}✗ Check failed:{_RESET} {first}", *rest]
        return lines + self.learner_frames[: max(0, 3 - len(lines))]


@dataclass(frozen=True)
class Mistake:
    """A mistake a check names when, and only when, the answer shows it (CONTRIBUTING.md,
    "Exercise checks"): `key`, `says` (the sentence), and what shows it: `gives(case)`, or
    `raises` (type, regex) with `line` (regex) or `op`; and `seen(answer)`, a test of its code."""

    key: str
    says: str
    gives: Callable[[Any], Any] | None = None
    raises: tuple[type, str] | None = None
    seen: Callable[[Any], bool] | None = None
    line: str | None = None
    op: str | None = None


# -- the learner's errors, in words --------------------------------------------------------
# Autograd's common refusals and Python's name errors; a check's Mistake of the same key
# replaces one's sentence.
SHARED = [
    Mistake("backward_twice", "backward ran a second time through a graph whose saved "
            "tensors the first backward had freed (notebook 06 explains why): build a new "
            "graph, or detach what you carry over",
            raises=(RuntimeError, "backward through the graph a second time")),
    Mistake("inplace_saved", "a tensor that autograd saved for backward was changed in "
            "place (notebook 06): compute a new tensor instead, e.g. x = x * 2 rather "
            "than x.mul_(2)", raises=(RuntimeError, "modified by an inplace operation")),
    Mistake("leaf_inplace", "a leaf that requires grad was changed in place while autograd "
            "records: update it under torch.no_grad() (notebook 06)",
            raises=(RuntimeError, "leaf Variable that requires grad is being used in an "
                    "in-place operation")),
    Mistake("dtype", "tensors of two dtypes met in one operation: make them one dtype "
            "(e.g. .double())", raises=(RuntimeError, "dtype")),
    Mistake("no_grad_fn", "backward was called on a tensor autograd did not record: does "
            "the loss come from tensors that require grad, outside torch.no_grad()?",
            raises=(RuntimeError, "does not require grad and does not have a grad_fn")),
    Mistake("nonleaf_grad", "your code read .grad of a tensor that is not a leaf, which is "
            "None: autograd keeps .grad on leaves only (notebook 03)"),
    Mistake("undefined", "`{name}` is not defined in this kernel: run the cell that defines "
            "or imports it"),
    Mistake("unbound", "`{name}` is a variable of your own function, read before any line "
            "assigned it: on this case the line that assigns it never ran (a loop that ran "
            "zero times, or a branch not taken)"),
]
_ARGUMENTS = re.compile(r"positional argument|keyword argument|required argument|"
                        r"takes no arguments|arguments? but \d+ (was|were) given")


def _mine(filename: str) -> bool:
    """Whether `filename` is the learner's code: not the checks', not a library's."""
    return not os.path.abspath(filename).startswith((_HELPERS, *_LIBRARY))


def _raising_op(tb) -> str:
    """The instruction the learner's deepest frame of `tb` was running when it raised."""
    mine = None
    while tb is not None:
        mine, tb = (tb if _mine(tb.tb_frame.f_code.co_filename) else mine), tb.tb_next
    ran = [] if mine is None else [i for i in dis.get_instructions(mine.tb_frame.f_code)
                                   if i.offset <= mine.tb_lasti]
    return ran[-1].opname if ran else ""


def _diagnose(error: BaseException, seen: list, table: Mapping[str, Mistake],
              answer: Any, line: str) -> tuple[str, str] | None:
    """(key, sentence) for a learner's error that the course has taught, else None."""
    if isinstance(error, NameError):
        name = getattr(error, "name", None) or (re.findall(r"'(\w+)'", str(error)) or ["?"])[0]
        key = "unbound" if isinstance(error, UnboundLocalError) else "undefined"
        mine = table.get(f"name:{name}")
        if mine is not None and key == "undefined":
            return mine.key, mine.says
        return key, table[key].says.format(name=name)
    if any("is not a leaf Tensor is being accessed" in str(w.message) for w in seen):
        return "nonleaf_grad", table["nonleaf_grad"].says
    text = str(error)
    for m in table.values():
        if m.raises and isinstance(error, m.raises[0]) and re.search(m.raises[1], text) and (
                m.seen is None or m.seen(answer)) and (m.line is None or re.search(m.line, line)) \
                and (m.op is None or _raising_op(error.__traceback__) == m.op):
            return m.key, m.says
    return None


def call_answer(answer: Callable[..., Any], *args: Any, what: str, hint: str = "",
                mistakes: Sequence[Mistake] = (), code: Any = None, keep: Mapping | None = None,
                allow: Sequence[str] = (), g: str = "", warned: list | None = None) -> Any:
    """`answer(*args)`, or a `CheckFailed`: `what` raised, in words (CONTRIBUTING.md, "Exercise
    checks"). `seen` tests `code` if given (when `answer` is the check's wrapper); `g` is said
    after a `.g` set on what `keep` holds; `warned` gets the warnings."""
    expect_callable(answer, what)
    try:
        inspect.signature(answer).bind(*args)
    except TypeError as e:
        raise CheckFailed(f"{what} cannot be called this way: {e}" + (
            f"\nHint: {hint}" if hint else ""), *(["call"] if hint else [])) from None
    except ValueError:  # no signature to read (a builtin): just call it
        pass
    error, before = None, snapshot(**keep) if keep else None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = answer(*args)
        except Exception as e:  # noqa: BLE001 -- any error in learner code becomes a message
            error = e
    for w in seen:   # passed on, for exercise_check to judge
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    (warned if warned is not None else []).extend(seen)
    if error is None:
        if before is not None:
            expect_unchanged(before, what, allow, g=g)
        return result
    shared = {m.key: m for m in SHARED}
    table = {m.key: m if m.raises or m.key not in shared else
             dataclasses.replace(m, raises=shared[m.key].raises) for m in mistakes}
    table |= {k: m for k, m in shared.items() if k not in table}
    own = [f for f in traceback.extract_tb(error.__traceback__) if _mine(f.filename)]
    found = _diagnose(error, seen, table, answer if code is None else code,
                      own[-1].line or "" if own else "")
    if found is None and hint and isinstance(error, TypeError) and not own and \
            _ARGUMENTS.search(str(error)):
        found = ("call", f"Hint: {hint}")     # the call of the answer itself failed
    said = f"{type(error).__name__}: {_first_sentence(str(error))}"
    raise CheckFailed(f"{what} raised {said}" + (f"\n{found[1]}" if found else ""),
                      *(found or ())[:1], frames=_learner_line(own)) from error


def _first_sentence(text: str, limit: int = 200) -> str:
    """The message to its first full sentence (a first line ending in ':' runs on)."""
    line, *rest = [line.strip() for line in text.strip().split("\n")]
    for more in rest:
        if not line.endswith(":"):
            break
        line = f"{line} {more}"
    cut = line.find(". ")
    line = line if cut < 0 else line[:cut + 1]
    return line if len(line) <= limit else line[:limit - 3].rstrip() + "..."


def _code_only(line: str) -> str:
    """A line of code without its trailing comment and spaces."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip()).readline))
    except (tokenize.TokenError, SyntaxError):
        return line.strip()
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    return (line.strip()[:comment.start[1]] if comment else line.strip()).rstrip()


def _learner_line(frames: list) -> list[str]:
    """``Raised at Cell In[12], line 3, in f: code``, path-free, 79 columns at most."""
    if not frames:
        return []
    f = frames[-1]
    name = getattr(getattr(_shell(), "compile", None), "format_code_name", lambda _: None)
    cell = name(f.filename)   # ("Cell", "In[12]") for a cell of this IPython kernel
    where = " ".join(cell) if cell else os.path.basename(f.filename)
    code = _code_only(f.line or "")
    line = f"Raised at {where}, line {f.lineno}, in {f.name}" + (f": {code}" if code else "")
    return [line if len(line) <= 79 else line[:78].rstrip() + "…"]


# -- the verdict ---------------------------------------------------------------------------
_HARMLESS = ("Converting a tensor with requires_grad=True to a scalar",)


def exercise_check(func: Callable[..., Any]) -> Callable[..., Any]:
    """Make `func` a check that prints "✓ " and what it returns, and never crashes: every error
    becomes a `CheckFailed`, warnings are caught (the first that matters is a one-line
    failure's second line), and `details=True` shows a failed comparison's whole table."""

    @functools.wraps(func)
    def check(*answers: Any, details: bool = False) -> None:
        token = _DETAILS.set(bool(details))
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    message = func(*answers)
                except CheckFailed as e:
                    raise CheckFailed(_with_warning(str(e), seen), *e.diagnoses,
                                      frames=e.learner_frames) from None
                except Exception as e:  # noqa: BLE001 -- the check's own trouble, in words
                    raise CheckFailed(
                        f"the check could not use your answer: working on it raised "
                        f"{type(e).__name__}: {_first_sentence(str(e))}") from e
        finally:
            _DETAILS.reset(token)
        if message is not None:
            print(f"✓ {message}")

    return check


def _with_warning(message: str, seen: list) -> str:
    """A one-line `message` with the first warning that matters, if any, as its second line."""
    matter = [w for w in seen if not any(h in str(w.message) for h in _HARMLESS)
              and not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))]
    if "\n" in message or not matter:
        return message
    said = _first_sentence(str(matter[0].message))
    return f"{message}\nYour code also warned: {matter[0].category.__name__}: {said}"


class Either(list):
    """A mistake's result on a case when it comes in several forms: any of them matches."""


def _agree(got: Any, want: Any) -> bool:
    """`got` is `want`: tensors up to rounding, items one by one, an error for an error."""
    if isinstance(want, Either):
        return any(_agree(got, w) for w in want)
    if isinstance(got, BaseException) or isinstance(want, BaseException):
        return isinstance(got, BaseException) and isinstance(want, BaseException)
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and set(got) == set(want) and all(
            _agree(got[k], want[k]) for k in want)
    if isinstance(want, torch.Tensor):
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            return False
        scale = want.detach().abs().max().item() if want.numel() else 1.0
        return torch.allclose(got.detach().double(), want.detach().double(), rtol=1e-5,
                              atol=1e-6 * max(scale if math.isfinite(scale) else 1.0, 1e-3),
                              equal_nan=True)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            _agree(a, b) for a, b in zip(got, want))
    if all(isinstance(v, numbers.Real) and type(v).__name__ not in ("bool", "bool_")
           for v in (got, want)):   # a NumPy bool_ is no number here either
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    return type(got) is type(want) and got == want


def _gives(m: Mistake, case: Any) -> Any:
    try:
        return m.gives(case)
    except Exception as e:  # noqa: BLE001 -- the mistake raises on this case
        return e


def matching(mistakes: Sequence[Mistake], cases: Sequence[Any], results: Sequence[Any],
             answer: Any = None) -> list[Mistake]:
    """The mistakes whose `gives` is the answer's result on every case (and `seen` holds)."""
    return [m for m in mistakes if m.gives is not None and (m.seen is None or m.seen(answer))
            and all(_agree(r, _gives(m, c)) for c, r in zip(cases, results))]


def _tensors(result: Any) -> bool:
    return isinstance(result, Mapping) and all(isinstance(v, torch.Tensor)
                                               for v in result.values())


def judge(cases: Sequence[Any], trial: Callable[[Any], Any], right: Callable[[Any], Any],
          what: Callable[[Any, Any], str], mistakes: Sequence[Mistake] = (),
          answer: Any = None) -> None:
    """`trial(case)`, the answer's result on a case, against `right(case)` on every case. At
    the first that differs: a verdict headed `what(case, result)`, naming each mistake that
    gives the answer's results on every case (run on while one fits; a case that raised
    matches a mistake raising there). A `CheckFailed` before any differs is raised."""
    results, first, named, want = [], None, [], None
    for case in cases:
        try:
            got = trial(case)
        except CheckFailed as e:
            if first is None:
                raise
            got = e
        results.append(got)
        if first is None:
            want = right(case)
            if not (compare(got, want).ok if _tensors(got) and _tensors(want)
                    else _agree(got, want)):
                first = len(results) - 1
                named = matching(mistakes, cases, results, answer)
        else:                     # the mistakes that still give every result so far
            named = matching(named, cases[len(results) - 1:], results[-1:], answer)
        if first is not None and not named:
            break                 # no mistake can fit every case: the rest tells nothing
    if first is None:
        return
    case, got = cases[first], results[first]
    if _tensors(got):
        expect_close(got, want, what(case, got), named)
    raise CheckFailed("\n".join([what(case, got)] + [_what_you_get(named)] * bool(named)),
                      *[m.key for m in named])


def _what_you_get(named: Sequence[Mistake]) -> str:
    """The sentence naming the mistakes that give the answer's results."""
    return "Your result is what you get if " + ", or if ".join(m.says for m in named) + "."


def expect_close(ours: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor], what: str,
                 named: Sequence[Mistake] = ()) -> None:
    """`compare(ours, ref)`, else three lines: `what` and the tensors that differ; the mistakes
    `named` ("Your result is what you get if ..."), or where a nan or inf was first seen;
    the largest difference."""
    cmp = compare(ours, ref)
    if cmp.ok:
        return
    alone = what.endswith(".") or len(cmp.rows) == 1 and what.startswith(
        f"your {cmp.rows[0].name}")   # a whole sentence, or "your inp.g differs ..."
    lines = [what if alone else f"{what}: wrong for {', '.join(cmp.failures)}"]
    bad = next(((n, t) for n, t in ours.items() if isinstance(t, torch.Tensor)
                and t.is_floating_point() and not torch.isfinite(t).all()
                and torch.isfinite(torch.as_tensor(ref[n])).all()), None)
    if named:
        lines.append(_what_you_get(named))
    elif bad is not None:
        name, t = bad
        at = (~torch.isfinite(t.detach())).nonzero()[0].tolist()
        kind = "nan" if t.detach().isnan().any() else "inf"
        where = f", first at entry {tuple(at) if len(at) > 1 else at[0]}" if at else ""
        lines.append(f"Your {name} holds {kind}{where}: a nan or inf spreads through "
                     f"everything computed from it")
    rows = [r for r in cmp.rows if not r.close and math.isfinite(r.max_abs_diff)]
    if rows:
        worst = max(rows, key=lambda r: r.max_abs_diff / r.atol)
        lines.append(f"Largest difference: {worst.max_abs_diff:.2g} in {worst.name}, where "
                     f"{worst.atol:.1g} is allowed"
                     + ("" if _DETAILS.get() else " (details=True shows every tensor)"))
    if _DETAILS.get():
        lines.append(str(cmp))
    raise CheckFailed("\n".join(lines), *[m.key for m in named])


# -- the answer's code ---------------------------------------------------------------------
def _codes(answer: Any) -> list[types.CodeType]:
    """The code objects of `answer` (code, a function, a class's methods) and all they nest."""
    if isinstance(answer, type):
        todo = [getattr(v, "__func__", v) for c in answer.__mro__ if c is not object
                and not c.__module__.startswith(("torch", "helpers")) for v in vars(c).values()]
    else:
        todo = [answer]
    todo, found = [getattr(f, "__code__", f) for f in todo], []
    while todo:
        code = todo.pop()
        if isinstance(code, types.CodeType):
            found.append(code)
            todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def code_uses(answer: Any, *, attr: str | None = None, op: str | None = None) -> bool:
    """Whether the answer's code (all it nests) uses an attribute matching the regex `attr`
    and/or instruction `op` ("IS_OP"; "BINARY_OP:+=" with its argument)."""
    ins = [i for c in _codes(answer) for i in dis.get_instructions(c)]
    name, _, arg = (op or "").partition(":")
    return (attr is None or any(("ATTR" in i.opname or i.opname == "LOAD_METHOD") and
                                re.fullmatch(attr, str(i.argval)) for i in ins)) and (
        op is None or any(i.opname == name and (not arg or i.argrepr == arg) for i in ins))


# -- "left as it was" ----------------------------------------------------------------------
_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_TENSOR_HOOKS = ("_backward_hooks", "_post_accumulate_grad_hooks")
_OPAQUE = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.ModuleType,
           type, functools.partial)


def _hooks(obj: Any, names: tuple[str, ...]) -> int:
    return sum(len(getattr(obj, n, None) or {}) for n in names)


def _walk(found: dict, path: str, obj: Any, seen: set) -> None:
    """Record what is at `path` (a tensor's values, flags, `.grad`, attributes, hooks), and
    walk on into what it holds."""
    if isinstance(obj, (bool, int, float, str, bytes, type(None), torch.dtype)):
        found[path] = ("value", obj)
        return
    if isinstance(obj, torch.Tensor):
        grad = obj.grad if obj.is_leaf or obj.retains_grad else None
        found[path] = ("tensor", obj, obj.detach().clone(), obj.requires_grad,
                       None if grad is None else grad.detach().clone(), _hooks(obj, _TENSOR_HOOKS))
        if id(obj) in seen:
            return
        inside = vars(obj).items()
    elif isinstance(obj, _OPAQUE) or id(obj) in seen:
        found[path] = ("object", obj)
        return
    elif isinstance(obj, torch.nn.Module):
        found[path] = ("module", obj, set(vars(obj)), _hooks(obj, _HOOKS))
        inside = [*obj._parameters.items(), *obj._buffers.items(), *obj._modules.items(),
                  *((k, v) for k, v in vars(obj).items() if not k.startswith("_"))]
    elif isinstance(obj, (list, tuple)):
        found[path] = (type(obj).__name__, obj, len(obj))
        inside = [(f"[{i}]", v) for i, v in enumerate(obj)]
    elif isinstance(obj, Mapping):
        found[path] = ("dict", obj, list(obj))
        inside = [(f"[{k!r}]", v) for k, v in obj.items()]
    elif hasattr(obj, "__dict__"):
        found[path] = ("object", obj, set(vars(obj)))
        inside = vars(obj).items()
    else:
        found[path] = ("object", obj)
        return
    seen.add(id(obj))
    for k, v in inside:
        name = k if k.startswith("[") else f"[{k}]" if k.isdigit() else f".{k}"
        _walk(found, path + name, v, seen)


class _Snapshot(dict):
    roots: dict


def snapshot(**roots: Any) -> _Snapshot:
    """What the answer is given, before it runs, to tell afterwards what it changed."""
    found = _Snapshot()
    seen: set = set()
    for name, obj in roots.items():
        _walk(found, name, obj, seen)
    found.roots = roots
    return found


def _allowed(path: str, allow: Sequence[str]) -> bool:
    return any(path == a or path.startswith((a + ".", a + "[")) or (
        a.startswith("*") and path.endswith(a[1:])) for a in allow)


def expect_unchanged(before: _Snapshot, who: str, allow: Sequence[str] = (),
                     grad: str = "", g: str = "") -> None:
    """All `snapshot` saw is as it was: the objects in their places, containers, values,
    `requires_grad`, `.grad`, attributes, hooks; but the paths `allow`ed ("inp.g", "*.grad").
    `grad` and `g` are said after a changed `.grad` or `.g`."""
    now = snapshot(**before.roots)
    for path, was in before.items():
        if _allowed(path, allow):
            continue
        is_ = now.get(path)
        problem = _difference(path, was, is_, grad, _allowed(path + ".grad", allow)) \
            if is_ is not None else f"removed {path}: leave it as it was"
        if problem:
            raise CheckFailed(f"{who} {problem}")
    path = next((p for p in now if p not in before and not _allowed(p, allow)), "")
    if path.endswith(".g"):
        raise CheckFailed(f"{who} set {path}; it should only read the tensors it is given"
                          + (f"\n{g}" if g else ""))
    if path:
        raise CheckFailed(f"{who} added {path}: leave it as it was")


def _difference(path: str, was: tuple, is_: tuple, grad: str, any_grad: bool) -> str | None:
    kind, obj = was[0], was[1]
    if kind == "value":
        return None if is_[0] == "value" and is_[1] == obj else f"changed {path}"
    if is_[1] is not obj:
        return (f"replaced {path} with another {'tensor' if kind == 'tensor' else 'object'}: "
                f"leave it as it was")
    if kind == "tensor":
        _, t, value, requires_grad, old_grad, hooks = was
        if t.shape != value.shape or not torch.equal(t.detach(), value):
            return (f"changed the values of {path}: leave the weights as they were"
                    if isinstance(t, torch.nn.Parameter) else
                    f"changed {path} in place; it should only read it (use out-of-place "
                    f"ops, e.g. x * y instead of x.mul_(y))")
        if t.requires_grad != requires_grad:
            return (f"switched {'on' if t.requires_grad else 'off'} {path}.requires_grad; leave it "
                    "as it was (for autograd, work on a copy: x.detach().requires_grad_())")
        new_grad = is_[4]
        same = old_grad is new_grad is None or (
            old_grad is not None and new_grad is not None and old_grad.shape == new_grad.shape
            and torch.equal(old_grad, new_grad))
        if not (same or any_grad):
            said = ("left a tensor in" if old_grad is None else "set to None" if new_grad
                    is None else "zeroed" if not new_grad.any() else "changed")
            return (f"{said} {path}.grad" + (", which was None" if old_grad is None else "")
                    + (f"\n{grad}" if grad else ""))
        if _hooks(t, _TENSOR_HOOKS) > hooks:
            return f"left a hook on {path}: remove each hook you register (handle.remove())"
        return None
    if kind == "module":
        if _hooks(obj, _HOOKS) > was[3]:
            return f"left a hook on {path}: remove each hook you register (handle.remove())"
        added = sorted(set(vars(obj)) - was[2])
        return f"added .{added[0]} to {path}: leave it as it was" if added else None
    if kind in ("list", "tuple") and len(obj) != was[2]:
        return (f"changed the {kind} {path} (it held {was[2]} items, now {len(obj)}): a name "
                f"given to it is that same {kind}; work on a copy, e.g. list(...)")
    if kind == "dict" and list(obj) != was[2]:
        return f"changed the keys of {path}: leave it as it was"
    return None


# -- types ---------------------------------------------------------------------------------
def expect_callable(answer: Any, what: str) -> None:
    """`answer` is a function or a class, or a `CheckFailed` saying what it is instead."""
    if not callable(answer):
        raise CheckFailed(f"{what} should be a function or a class, but it is {describe(answer)}")


def expect_tensor(value: Any, what: str, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    """`value` if it is a tensor (of `shape`, when given); else a `CheckFailed` naming `what`."""
    if not isinstance(value, torch.Tensor):
        raise CheckFailed(f"{what} should be a tensor, but it is {describe(value)}")
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise CheckFailed(f"{what} has shape {tuple(value.shape)}, expected {tuple(shape)}")
    return value


def a_type(value: Any) -> str:
    """'None', 'an int', 'the class Tape, derived from Module': what the learner gave."""
    if value is None:
        return "None"
    if isinstance(value, type):
        bases = ", ".join(b.__name__ for b in value.__bases__ if b is not object)
        return f"the class {value.__name__}" + (f", derived from {bases}" if bases else "")
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def describe(value: Any) -> str:
    """`a_type(value)` with its repr, shortened: "an int (3)"."""
    if value is None:
        return "None"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{a_type(value)} ({text})"


def dtype_name(t: torch.Tensor | torch.dtype) -> str:
    """'float32' for a float32 tensor or dtype."""
    return str(t.dtype if isinstance(t, torch.Tensor) else t).removeprefix("torch.")


def read_g(t: torch.Tensor, name: str, who: str) -> torch.Tensor:
    """`t.g` if it is a float tensor of `t`'s shape; else a `CheckFailed` saying what it is."""
    g = getattr(t, "g", None)
    if not isinstance(g, torch.Tensor):
        raise CheckFailed(f"{who} did not set {name}.g to a tensor"
                          + ("" if g is None else f" (it is {describe(g)})"))
    if g.shape != t.shape:
        raise CheckFailed(f"{name}.g has shape {tuple(g.shape)}, but a gradient has the shape "
                          f"of its tensor: {tuple(t.shape)}")
    if not g.is_floating_point():
        raise CheckFailed(f"{name}.g is a tensor of {dtype_name(g)}; a gradient holds real "
                          f"numbers (a float dtype)")
    return g


def param_grads(net: torch.nn.Module, *inputs: Any) -> dict[str, torch.Tensor]:
    """A copy of each parameter's `.grad` (zeros where it is None), after a backward of
    `net(*inputs)` (a net that returns its loss) when inputs are given."""
    if inputs:
        net(*inputs).backward()
    return {name: torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()
            for name, p in net.named_parameters()}
