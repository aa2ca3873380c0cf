"""The shared check machinery (helpers.checks): verdicts of at most three lines, a hint
only when it fits, and "left as it was" checked in full."""
import pytest
import torch

from helpers.checks import (
    CheckFailed,
    Mistake,
    _first_sentence,
    call_answer,
    code_uses,
    exercise_check,
    expect_tensor,
    expect_unchanged,
    judge,
    snapshot,
)

CASES = [torch.tensor([1.0, -2.0]), torch.tensor([3.0, 0.5]), torch.tensor([2.0, 2.0])]
DOUBLE = [Mistake("square", "you squared x", gives=lambda x: {"y": x * x}),
          Mistake("plus_two", "you added 2", gives=lambda x: {"y": x + 2})]


def _double(answer, mistakes):
    judge(CASES, lambda x: {"y": expect_tensor(call_answer(
        answer, x, what="your double", hint="it is called as double(x)"), "your result")},
        lambda x: {"y": 2 * x}, lambda x, _: f"your double on {x.tolist()}", mistakes, answer)


check_double = exercise_check(lambda answer: _double(answer, DOUBLE))
SAME = [*DOUBLE, Mistake("times_x", "you multiplied x by itself", gives=lambda x: {"y": x ** 2})]
check_same = exercise_check(lambda answer: _double(answer, SAME))


def verdict(answer, check=check_double, **kw) -> CheckFailed:
    with pytest.raises(CheckFailed) as info:
        check(answer, **kw)
    return info.value


def test_a_right_answer_passes():
    check_double(lambda x: x + x)


def test_a_mistake_is_named_when_it_gives_the_answers_results_on_every_case():
    e = verdict(lambda x: x * x)
    lines = str(e).splitlines()
    assert lines[0] == "your double on [1.0, -2.0]: wrong for y"
    assert lines[1] == "Your result is what you get if you squared x."
    assert lines[2].endswith("(details=True shows every tensor)") and e.diagnoses == ("square",)


def test_a_mistake_that_fits_one_case_only_is_not_named():
    # x + 2 is 2 * x at x = 2 (the third case), and x * x is too: neither fits all cases
    e = verdict(lambda x: torch.where(x == 2, x * x, x * 3))
    assert "what you get" not in str(e) and e.diagnoses == ()


def test_two_mistakes_with_the_same_numbers_are_both_named():
    e = verdict(lambda x: x * x, check_same)
    assert e.diagnoses == ("square", "times_x")
    assert "you squared x, or if you multiplied x by itself." in str(e)


def test_a_nan_is_said_in_a_sentence_with_where_it_was_first_seen():
    e = verdict(lambda x: torch.where(x > 0, x * 2, torch.nan))
    assert "\nYour y holds nan, first at entry 1: a nan or inf spreads" in str(e)
    assert "Largest difference: nan" not in str(e)


def test_details_appends_the_table_and_stops_offering_it():
    e = verdict(lambda x: x * 3, details=True)
    assert "details=True" not in str(e) and "allclose" in str(e)


def test_an_error_in_the_answer_is_a_sentence_and_one_line_of_the_learners_code():
    def answer(x):
        return x * undefined_name  # noqa: F821

    e = verdict(answer)
    shown = e._render_traceback_()
    assert "`undefined_name` is not defined in this kernel" in str(e)
    assert e.diagnoses == ("undefined",)
    assert len(shown) <= 3 and shown[-1].startswith("Raised at test_check_verdicts.py")
    assert shown[-1].endswith("in answer: return x * undefined_name") and len(shown[-1]) <= 79


def test_the_answers_own_variable_read_before_it_was_set_is_not_a_missing_cell():
    def answer(x):
        for _ in range(0):
            out = x
        return out  # noqa: F821 -- unbound: the loop ran zero times

    e = verdict(answer)
    assert e.diagnoses == ("unbound",) and "not defined in this kernel" not in str(e)
    assert "`out` is a variable of your own function, read before any line assigned it" in str(e)


def test_the_call_hint_only_when_calling_the_answer_itself_failed():
    assert verdict(lambda x, y: x).diagnoses == ("call",)

    def inner(h):
        return h

    def answer(x):
        return inner(x, 2)     # the answer's own call of its own function

    e = verdict(answer)
    assert e.diagnoses == () and "Hint" not in str(e)
    assert e.learner_frames[0].endswith("in answer: return inner(x, 2)")


def test_a_learners_line_keeps_its_code_not_its_comment():
    def f(x):
        return x * undefined_name      # a comment that would push the code off the line  # noqa

    line = verdict(f).learner_frames[0]
    assert line.endswith("in f: return x * undefined_name") and "#" not in line


def test_an_errors_first_line_ending_in_a_colon_runs_on_to_a_full_sentence():
    text = "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: no. Then"
    assert _first_sentence(text) == ("Error(s) in loading state_dict for Linear: size mismatch "
                                     "for weight: no.")


def test_a_long_verdict_keeps_three_lines_and_drops_the_learners_line():
    e = CheckFailed("one\ntwo\nthree", frames=["Raised at Cell In[3], line 1, in f: x"])
    assert [line.split("\x1b[0m ")[-1] for line in e._render_traceback_()] == [
        "one", "two", "three"]


def test_a_result_of_the_wrong_type_is_said_in_words():
    e = verdict(lambda x: "not a tensor")
    assert str(e) == "your result should be a tensor, but it is a str ('not a tensor')"


def test_a_check_that_crashes_on_the_answer_says_so_in_words():
    e = verdict(lambda x: "not a tensor", exercise_check(lambda a: a(1) + torch.ones(2)))
    assert len(str(e).splitlines()) <= 3 and "Traceback" not in str(e)
    assert str(e).startswith("the check could not use your answer: working on it raised")


class _Chain:
    def __init__(self):
        self.layers = [torch.nn.Linear(2, 2), torch.nn.ReLU()]
        self.x = torch.ones(2)


@pytest.mark.parametrize(("change", "said"), [
    (lambda m: m.layers.append(m.layers[0]), "changed the list model.layers (it held 2 items, "
                                             "now 3): a name given to it is that same list"),
    (lambda m: m.x.requires_grad_(), "switched on model.x.requires_grad"),
    (lambda m: setattr(m, "x", m.x.clone()), "replaced model.x with another tensor"),
    (lambda m: m.layers[0](m.x).sum().backward(), "left a tensor in model.layers[0].weight.grad"),
    (lambda m: m.layers[0].register_forward_hook(lambda *a: None), "left a hook on "
                                                                    "model.layers[0]"),
    (lambda m: setattr(m.x, "g", m.x), "set model.x.g"),
    (lambda m: m.layers[1].__dict__.update(mine=1), "added .mine to model.layers[1]"),
])
def test_left_as_it_was_means_everything_the_answer_could_touch(change, said):
    model = _Chain()
    before = snapshot(model=model)
    expect_unchanged(before, "nothing")
    change(model)
    with pytest.raises(CheckFailed) as info:
        expect_unchanged(before, "your answer")
    assert str(info.value).startswith(f"your answer {said}"), str(info.value)


def test_code_uses_sees_attributes_and_instructions_in_nested_code():
    def answer(model):
        return all(a.data is b.data for a, b in model)

    assert code_uses(answer, attr="data", op="IS_OP") and not code_uses(answer, attr="grad")
