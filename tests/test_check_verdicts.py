"""The shared check machinery (helpers.checks): verdicts of at most three lines."""
import pytest
import torch

from helpers.checks import CheckFailed, call_answer, exercise_check, expect_close


@exercise_check
def check_double(answer):
    x = torch.tensor([1.0, -2.0])
    expect_close({"y": call_answer(answer, x, what="your double")}, {"y": 2 * x},
                 "your double", mistakes={"you squared x": {"y": x * x}})


def verdict(answer, **kw) -> CheckFailed:
    with pytest.raises(CheckFailed) as info:
        check_double(answer, **kw)
    return info.value


def test_a_right_answer_passes():
    check_double(lambda x: x + x)


def test_a_wrong_number_names_the_tensor_and_the_mistake_it_matches():
    e = verdict(lambda x: x * x)
    lines = str(e).splitlines()
    assert lines[0] == "your double: wrong for y"
    assert lines[1] == "Your result is what you get if you squared x."
    assert lines[2].endswith("(details=True shows every tensor)")


def test_details_appends_the_table_and_stops_offering_it():
    e = verdict(lambda x: x * 3, details=True)
    assert "details=True" not in str(e) and "allclose" in str(e)


def test_no_mistake_is_blamed_when_none_matches():
    assert "Your result is what you get" not in str(verdict(lambda x: x * 3))


def test_an_error_in_the_answer_is_a_sentence_and_one_line_of_the_learners_code():
    def answer(x):
        return x * undefined_name  # noqa: F821

    e = verdict(answer)
    shown = e._render_traceback_()
    assert "`undefined_name` is not defined" in str(e)
    assert len(shown) <= 3 and shown[-1].startswith("Raised at test_check_verdicts.py")
    assert "in answer: return x * undefined_nam" in shown[-1] and len(shown[-1]) <= 79


def test_a_long_verdict_keeps_three_lines_and_drops_the_learners_line():
    e = CheckFailed("one\ntwo\nthree", ["Raised at Cell In[3], line 1, in f: x"])
    assert [line.split("\x1b[0m ")[-1] for line in e._render_traceback_()] == [
        "one", "two", "three"]


def test_a_check_that_crashes_on_the_answer_says_so_in_words():
    e = verdict(lambda x: "not a tensor")
    assert len(str(e).splitlines()) <= 3 and "Traceback" not in str(e)
    assert str(e).startswith("the check could not use your answer: working on it raised")
