"""Automatic mutants of every exercise solution (`tests/mutation.py`): each is rejected by
its check, or listed in `EQUIVALENT` (tests/wrong_answers_nbNN.py) with the reason it is
a right answer too. The end of the run prints the kill rate per notebook (conftest.py).

A file of its own, so that the two test workers share the exercise tests fairly."""

from __future__ import annotations

import pytest
from mutation import mutants
from test_exercises import SOLUTIONS, catalogue, raised_in_check, run


@pytest.mark.parametrize(("path", "number", "code"), SOLUTIONS,
                         ids=[f"{p.name[:2]}-ex{n}" for p, n, _ in SOLUTIONS])
def test_every_mutant_of_the_solution_is_rejected(path, number, code, record_property):
    equivalent = {label: why for (n, label), why in
                  catalogue(path, "wrong_answers", "EQUIVALENT", {}).items() if n == number}
    survivors, crashed, killed, total, listed = [], [], 0, 0, set()
    for label, mutant in mutants(code):
        total += 1
        e = run(mutant, path, label)
        if label in equivalent:
            listed.add(label)
            if e is not None:
                crashed.append(f"{label}: listed as equivalent, but rejected: "
                               f"{str(e).splitlines()[0] if str(e) else repr(e)}")
            continue
        if e is None:
            survivors.append(label)
        elif not isinstance(e, (AssertionError, TimeoutError)) and raised_in_check(e):
            crashed.append(f"{label}: the check crashed with {e!r}")
        else:
            killed += 1
    stale = sorted(set(equivalent) - listed)
    record_property("mutants", (path.name[:2], number, total, killed, len(listed)))
    problems = ([f"survived: {s}" for s in survivors] + crashed
                + [f"listed as equivalent, but no such mutant: {s}" for s in stale])
    assert not problems, (f"{path.name} exercise {number}: {killed}/{total - len(listed)} "
                          "mutants killed\n" + "\n".join(problems))
