"""Every exercise check passes on its notebook's solution and fails on wrong answers.

The solutions are the code blocks inside each notebook's collapsed
``<details>`` cells; the wrong answers are catalogued per notebook in
``tests/wrong_answers_nbNN.py`` as ``WRONG = [(check, mistake, code, message), ...]``:
`code` defines the wrong answer and calls `check` on it, which must raise an
`AssertionError` whose message matches the regex `message`, a sentence a learner
can act on.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import pathlib
import random
import re

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOLUTION = re.compile(r"<details>.*?```python\n(.*?)```.*?</details>", re.S)
EXERCISE = re.compile(r"^### Exercise (\d+) ", re.M)


def exercises(path: pathlib.Path) -> list[tuple[int, str]]:
    """(exercise number, solution code) for every exercise of a notebook, in order."""
    found, current = [], None
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] != "markdown":
            continue
        heading = EXERCISE.search(text)
        if heading:
            current = int(heading.group(1))
        solution = SOLUTION.search(text)
        if solution:
            assert current is not None, f"{path.name}: a solution before any exercise"
            found.append((current, solution.group(1)))
    return found


def checks_module(path: pathlib.Path):
    return importlib.import_module(f"helpers.checks.nb{path.name[:2]}")


def namespace(module) -> dict:
    """What a solution may use: the usual imports and what the check module exports."""
    names = {"torch": torch, "nn": torch.nn, "math": math, "random": random}
    names.update({name: getattr(module, name) for name in module.__all__})
    return names


def wrong_answers(path: pathlib.Path) -> list:
    try:
        return importlib.import_module(f"wrong_answers_nb{path.name[:2]}").WRONG
    except ModuleNotFoundError:
        return []  # test_every_check_has_a_wrong_answer reports it


SOLUTIONS = [(p, n, code) for p in NOTEBOOKS for n, code in exercises(p)]
WRONGS = [(p, *w) for p in NOTEBOOKS for w in wrong_answers(p)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_exercise_has_one_hidden_solution(path):
    numbers = [n for n, _ in exercises(path)]
    markdown = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                         if c["cell_type"] == "markdown")
    headings = [int(n) for n in EXERCISE.findall(markdown)]
    assert numbers, f"{path.name}: no <details> solutions"
    assert numbers == headings, f"{path.name}: exercises {headings}, solutions {numbers}"


@pytest.mark.parametrize(("path", "number", "code"), SOLUTIONS,
                         ids=[f"{p.name[:2]}-ex{n}" for p, n, _ in SOLUTIONS])
def test_solution_passes_its_check(path, number, code, capsys):
    module = checks_module(path)
    assert any(name in code for name in module.__all__ if name.startswith("check_")), \
        f"{path.name} exercise {number}: the solution never calls its check"
    exec(compile(code, f"{path.name} exercise {number}", "exec"), namespace(module))


@pytest.mark.parametrize(("path", "check", "mistake", "code", "message"), WRONGS,
                         ids=[f"{w[0].name[:2]}-{w[1]}-{w[2]}" for w in WRONGS])
def test_wrong_answer_fails_with_a_message(path, check, mistake, code, message, capsys):
    module = checks_module(path)
    assert check in code, f"the wrong answer '{mistake}' never calls {check}"
    with pytest.raises(AssertionError, match=message):
        exec(compile(code, f"wrong answer: {mistake}", "exec"), namespace(module))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_check_has_a_wrong_answer(path):
    module = checks_module(path)
    checks = {name for name, f in inspect.getmembers(module, inspect.isfunction)
              if name.startswith("check_") and f.__module__ == module.__name__}
    tried = {w[0] for w in wrong_answers(path)}
    assert checks and checks <= tried, f"no wrong answer tried for {sorted(checks - tried)}"
