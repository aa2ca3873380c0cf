"""helpers.errors: one-line proofs of errors and warnings, and the warning format."""

from __future__ import annotations

import warnings

import pytest

from helpers.errors import _one_line, expect_error, expect_warning


def test_expect_error_passes_the_expected_error_and_keeps_it():
    with expect_error(ValueError, "bad") as caught:
        raise ValueError("a bad value")
    assert isinstance(caught.error, ValueError) and caught.message == "a bad value"


def test_expect_error_accepts_a_subclass():
    with expect_error(LookupError, "x"):
        raise KeyError("x")


def test_expect_error_fails_when_nothing_is_raised():
    with pytest.raises(AssertionError, match="expected RuntimeError saying 'twice', "
                                             "but the block raised nothing"):
        with expect_error(RuntimeError, "twice"):
            pass


def test_expect_error_fails_on_another_message():
    with pytest.raises(AssertionError, match="got RuntimeError: once"):
        with expect_error(RuntimeError, "twice"):
            raise RuntimeError("once")


def test_another_error_passes_through_unchanged():
    with pytest.raises(KeyError):
        with expect_error(ValueError):
            raise KeyError("k")


def test_expect_warning_passes_and_keeps_the_message():
    with expect_warning(UserWarning, "leaf") as caught:
        warnings.warn("not a leaf", UserWarning, stacklevel=2)
    assert caught.message == "not a leaf"


def test_expect_warning_fails_without_the_warning():
    with pytest.raises(AssertionError, match="expected UserWarning saying 'leaf', "
                                             "got no warning"):
        with expect_warning(UserWarning, "leaf"):
            pass
    with pytest.raises(AssertionError, match="got FutureWarning: soon"), \
            pytest.warns(FutureWarning, match="soon"):       # passed on, and seen here
        with expect_warning(UserWarning, "leaf"):
            warnings.warn("soon", FutureWarning, stacklevel=2)


def test_other_warnings_are_passed_on():
    with warnings.catch_warnings(record=True) as outer:
        warnings.simplefilter("always")
        with expect_warning(UserWarning, "leaf"):
            warnings.warn("not a leaf", UserWarning, stacklevel=2)
            warnings.warn("something else", RuntimeWarning, stacklevel=2)
    assert [str(w.message) for w in outer] == ["something else"]


def test_a_warning_prints_as_one_line_without_torchs_build_path():
    text = ("The .grad attribute ... for more information. (Triggered internally at "
            "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:494.)")
    line = _one_line(UserWarning(text), UserWarning, "/some/file.py", 3)
    assert line == "UserWarning: The .grad attribute ... for more information.\n"


def test_a_warning_with_a_stack_keeps_no_library_frame_and_no_path():
    text = ("Error detected in MmBackward0. Traceback of forward call that caused the "
            "error:\n"
            '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main\n'
            "    return _run_code(code, main_globals, None,\n"
            '  File "/tmp/ipykernel_9/123.py", line 5, in <module>\n'
            "    h = torch.tanh(x_t + h @ W)\n")
    shown = _one_line(UserWarning(text), UserWarning, "/some/file.py", 3)
    # outside IPython no entry is a notebook cell: the stack is left out whole
    assert shown == ("UserWarning: Error detected in MmBackward0.\n"
                     "Traceback of forward call that caused the error:\n")
