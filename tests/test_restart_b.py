"""tests/test_restart.py's check on the other half of the notebooks (see HALF there)."""

import pytest
from test_exercises import NOTEBOOKS
from test_restart import HALF, check_run_all_and_restart, pytestmark  # noqa: F401


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p not in HALF],
                         ids=lambda p: p.name[:2])
def test_run_all_with_the_solutions_and_each_exercise_after_a_restart(path):
    check_run_all_and_restart(path)
