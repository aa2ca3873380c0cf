"""Errors and warnings the notebooks show, and the ones they only prove.

Shown: every notebook's set-up loads this module as an IPython extension,

    %load_ext helpers.errors

after which a traceback shows the frames of the notebook's own cells
(``Cell In[5], line 4``) and the message, and nothing of the libraries'
frames or of any file path on this machine; a warning prints as one line,
``UserWarning: message``, unless it carries a stack (anomaly detection's
"Traceback of forward call that caused the error:"): then it prints a sentence
a line, within 79 columns, and the stack keeps only the notebook's own lines
(``Cell In[5], line 4`` and that line). It uses IPython's own hooks (a custom
exception handler that draws the traceback through `_render_traceback_`, and
`warnings.formatwarning`); drawing only the notebook's lines also makes it fast
(IPython's full traceback costs half a second the first time). ``%debug`` still
sees the whole traceback, and ``%unload_ext helpers.errors`` restores IPython's
defaults.

Proved: a cell that only proves an error or a warning, without showing it,
uses one line:

    with expect_error(RuntimeError, "second time"):
        loss.backward()

    with expect_warning(UserWarning, "not a leaf"):
        l1.grad

The block must raise (warn) that type of error (warning) with that text in its
message; otherwise an `AssertionError` says what happened instead. Any other
exception passes through unchanged.
"""

from __future__ import annotations

import contextlib
import linecache
import re
import textwrap
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["expect_error", "expect_warning", "load_ipython_extension",
           "unload_ipython_extension"]


@dataclass
class Caught:
    """What `expect_error` or `expect_warning` caught: the error, or the warning's message."""

    error: BaseException | None = None
    message: str = ""


@contextlib.contextmanager
def expect_error(error: type[BaseException], match: str = "") -> Iterator[Caught]:
    """The block must raise `error` (or a subclass) whose message contains `match`."""
    caught = Caught()
    try:
        yield caught
    except error as e:
        if match not in str(e):
            raise AssertionError(f"expected {error.__name__} saying {match!r}, "
                                 f"got {type(e).__name__}: {e}") from None
        caught.error, caught.message = e, str(e)
    else:
        raise AssertionError(f"expected {error.__name__} saying {match!r}, "
                             "but the block raised nothing")


@contextlib.contextmanager
def expect_warning(category: type[Warning], match: str = "") -> Iterator[Caught]:
    """The block must warn `category` (or a subclass) with `match` in the message.

    Other warnings raised in the block are passed on as usual.
    """
    caught = Caught()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield caught
    found = [w for w in seen if issubclass(w.category, category) and match in str(w.message)]
    for w in seen:
        if not found or w is not found[0]:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if not found:
        got = "; ".join(f"{w.category.__name__}: {w.message}" for w in seen) or "no warning"
        raise AssertionError(f"expected {category.__name__} saying {match!r}, got {got}")
    caught.message = str(found[0].message)


# --- the IPython extension ---------------------------------------------------------


def _is_cell(shell, filename: str) -> bool:
    """True when `filename` is the code of a notebook cell (IPython names it `Cell In[n]`)."""
    name = getattr(shell.compile, "format_code_name", lambda _: None)(filename)
    return name is not None


def _cell_frames(shell, tb: types.TracebackType | None) -> list[types.TracebackType]:
    """The entries of `tb` that run the notebook's own cells, outermost first."""
    entries = []
    while tb is not None:
        if _is_cell(shell, tb.tb_frame.f_code.co_filename):
            entries.append(tb)
        tb = tb.tb_next
    return entries


_RED, _CYAN, _GREEN, _RESET = "\x1b[31m", "\x1b[36m", "\x1b[32m", "\x1b[39m"
_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def _frame(shell, entry: types.TracebackType) -> list[str]:
    """'Cell In[5], line 4' and the cell's lines up to that one, as IPython shows them."""
    code, lineno = entry.tb_frame.f_code, entry.tb_lineno
    where = " ".join(shell.compile.format_code_name(code.co_filename))
    head = f"{_CYAN}{where}, line {lineno}{_RESET}"
    if code.co_name != "<module>":
        head += f", in {getattr(code, 'co_qualname', code.co_name)}()"
    source = linecache.getlines(code.co_filename)
    lines = [head]
    for n in range(max(1, lineno - 2), lineno + 1):
        text = source[n - 1].rstrip("\n") if n <= len(source) else ""
        mark = "---->" if n == lineno else "     "
        lines.append(f"{_GREEN}{mark} {n}{_RESET} {text}")
    return lines


def _block(shell, error: BaseException) -> list[str]:
    """One exception: a rule, its name, the cell frames, and 'Name: message'."""
    name = type(error).__name__
    lines = [f"{_RED}{'-' * 75}{_RESET}",
             f"{_RED}{name}{_RESET}".ljust(len(_RED) + len(_RESET) + 42)
             + "Traceback (most recent call last)"]
    for entry in _cell_frames(shell, error.__traceback__):
        lines += [*_frame(shell, entry), ""]
    message = str(error)
    lines.append(f"{_RED}{name}{_RESET}" + (f": {message}" if message else ""))
    return lines


def _short_traceback(shell, etype, value, tb, tb_offset=None):
    """The notebook's own frames of `value` (and of the errors it was raised from) and
    its message, drawn as IPython draws them, without the libraries' frames."""
    if not _cell_frames(shell, tb) or hasattr(value, "_render_traceback_"):
        # nothing of the notebook's, or an error that draws itself (a check's verdict)
        shell.showtraceback((etype, value, tb), running_compiled_code=True)
        return None
    chain, seen, error = [], set(), value
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    stb: list[str] = []
    for i, error in enumerate(reversed(chain)):
        if i:
            link = chain[len(chain) - i - 1]
            stb += ["", _CAUSE if link.__cause__ is not None else _CONTEXT, ""]
        stb += _block(shell, error)
    value.__traceback__ = tb
    try:
        value._render_traceback_ = lambda: stb   # IPython's own hook for a custom traceback
    except AttributeError:                       # an exception without a __dict__
        shell.showtraceback((etype, value, tb), running_compiled_code=True)
        return None
    shell.showtraceback((etype, value, tb), running_compiled_code=True)
    return None      # the hook stays: IPython stores the error for its history with it too


_BUILT_AT = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?$")
# An entry of a stack printed by `traceback.format_stack`, as anomaly detection puts
# the forward call that made a failing node into its warning.
_STACK_ENTRY = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n'
                          r"(?P<code>(?:    [^\n]*(?:\n|$))?)", re.M)
_SHELL = None   # the IPython shell, while the extension is loaded


def _cell_entries(stack: str) -> str:
    """The entries of `stack` that run a notebook cell, as `Cell In[5], line 4` and the
    line's code; the libraries' entries, and every path, are left out."""
    shown = []
    for m in _STACK_ENTRY.finditer(stack):
        cell = _SHELL.compile.format_code_name(m["file"]) if _SHELL is not None else None
        if cell is not None:
            shown.append(f"  {' '.join(cell)}, line {m['line']}\n{m['code'].rstrip()}\n")
    return "".join(shown)


def _one_line(message, category, filename, lineno, line=None) -> str:
    """A warning as "UserWarning: message", without the file that raised it (or that
    torch was built from). A message that carries a stack (anomaly detection's) gets
    its first part a sentence a line (wrapped at 79 columns) and, of the stack, the
    notebook's lines only."""
    text = f"{category.__name__}: {_BUILT_AT.sub('', str(message))}"
    first = _STACK_ENTRY.search(text)
    if first is None:
        return text + "\n"
    head = text[:first.start()].strip()
    if len(head) > 79:          # a sentence a line, each wrapped at 79 columns
        head = "\n".join(textwrap.fill(s, 79) for s in re.split(r"(?<=\.) ", head))
    return head + "\n" + _cell_entries(text[first.start():])


_FORMATWARNING = warnings.formatwarning


def load_ipython_extension(shell) -> None:
    """`%load_ext helpers.errors`: short, path-free tracebacks and warnings."""
    global _SHELL
    _SHELL = shell
    shell.set_custom_exc((Exception,), _short_traceback)
    warnings.formatwarning = _one_line


def unload_ipython_extension(shell) -> None:
    """`%unload_ext helpers.errors`: IPython's own tracebacks and warnings again."""
    global _SHELL
    _SHELL = None
    shell.set_custom_exc((), None)
    warnings.formatwarning = _FORMATWARNING
