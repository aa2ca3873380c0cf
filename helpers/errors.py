"""Errors and warnings the notebooks show, and the ones they only prove.

Shown: every notebook's set-up loads this module as an IPython extension,

    %load_ext helpers.errors

after which a traceback shows the frames of the notebook's own cells
(``Cell In[5], line 4``) and the message, and nothing of the libraries'
frames or of any file path on this machine; a warning prints as one line,
``UserWarning: message``. It uses IPython's own hooks (a custom exception
handler, `warnings.formatwarning`); ``%debug`` still sees the whole traceback,
and ``%unload_ext helpers.errors`` restores IPython's defaults.

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
import re
import sys
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


def _cells_only(shell, tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` with only the frames of notebook cells, in order; None if it has none."""
    entries = []
    while tb is not None:
        if _is_cell(shell, tb.tb_frame.f_code.co_filename):
            entries.append(tb)
        tb = tb.tb_next
    short = None
    for entry in reversed(entries):
        short = types.TracebackType(short, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return short


def _short_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's traceback of `value`, cut to the notebook's own frames (chained errors too)."""
    chained, seen = value, set()
    while chained is not None and id(chained) not in seen:
        seen.add(id(chained))
        if chained is not value:
            chained.__traceback__ = _cells_only(shell, chained.__traceback__)
        chained = chained.__cause__ or chained.__context__
    short = _cells_only(shell, tb)
    shell.showtraceback((etype, value, short if short is not None else tb), tb_offset=0,
                        running_compiled_code=True)
    sys.last_traceback = tb          # %debug still walks the whole stack
    return None


_BUILT_AT = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?$")


def _one_line(message, category, filename, lineno, line=None) -> str:
    """A warning as "UserWarning: message", without the file that raised it (or that
    torch was built from)."""
    return f"{category.__name__}: {_BUILT_AT.sub('', str(message))}\n"


_FORMATWARNING = warnings.formatwarning


def load_ipython_extension(shell) -> None:
    """`%load_ext helpers.errors`: short, path-free tracebacks and warnings."""
    shell.set_custom_exc((Exception,), _short_traceback)
    warnings.formatwarning = _one_line


def unload_ipython_extension(shell) -> None:
    """`%unload_ext helpers.errors`: IPython's own tracebacks and warnings again."""
    shell.set_custom_exc((), None)
    warnings.formatwarning = _FORMATWARNING
