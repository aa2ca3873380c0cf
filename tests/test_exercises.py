"""The exercise checks: they pass every right answer, reject every wrong one, never crash.

The solutions are the code blocks inside each notebook's collapsed
``<details>`` cells. Beside them, per notebook:

- ``tests/wrong_answers_nbNN.py``: ``WRONG = [(check, mistake, code, message,
  diagnoses), ...]``, plausible wrong answers; `code` defines one and calls `check` on
  it, which must raise an `AssertionError` whose message matches the regex `message`
  and which names exactly the diagnoses (`Mistake` keys) in `diagnoses`: its own, and
  no other. Every `Mistake` a check module declares is some wrong answer's. And
  ``EQUIVALENT = {(exercise, mutant label): reason}``: automatic mutants of a
  solution that are right answers too, each with the reason.
- ``tests/valid_answers_nbNN.py``: ``VALID = [(check, how, code), ...]``, right
  answers written differently from the solution (at least two per check); each
  must pass.

Every solution is also mutated automatically (`tests/test_mutants.py`, with
`tests/mutation.py`); every mutant must be rejected or listed as equivalent.
Every check is fed wrong types and must answer with an `AssertionError`, never
another exception. In a real kernel a failed check shows its sentence, not its
source (`tests/test_kernel.py`). Every answer runs in what its exercise's check cell
imports, alone: after a restart, the check cell and the solution give a ✓.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import linecache
import math
import pathlib
import re
import signal
import time
import traceback
import warnings

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECKS_DIR = str(ROOT / "helpers" / "checks")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOLUTION = re.compile(r"<details>.*?```python\n(.*?)```.*?</details>", re.S)
EXERCISE = re.compile(r"^### Exercise (\d+) ", re.M)
MUTANT_SECONDS = 10
PATHS = re.compile(r"(?<![\w.])/(home|root|Users|tmp|usr|opt|var)/|site-packages|\.venv|"
                   r"ipykernel_\d+|helpers/checks")
PRINTS = re.compile(r"```text\n(✓ [^\n]*)\n```")
EXAMPLE = re.compile(r"```text\n✗ Check failed: (.*?)\n```", re.S)
CHECK_CELL = re.compile(r"^from helpers\.checks\.nb\d\d import", re.M)


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


def solution_prints(path: pathlib.Path) -> list[tuple[int, str]]:
    """(exercise number, the "✓ ..." line its folded solution shows it printing)."""
    found, current = [], None
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        heading = EXERCISE.search(text)
        current = int(heading.group(1)) if heading else current
        if cell["cell_type"] == "markdown" and "<details>" in text:
            found += [(current, m) for m in PRINTS.findall(text)]
    return found


def checks_module(path: pathlib.Path):
    return importlib.import_module(f"helpers.checks.nb{path.name[:2]}")


def check_names(module) -> list[str]:
    return sorted(name for name, f in inspect.getmembers(module, inspect.isfunction)
                  if name.startswith("check_") and f.__module__ == module.__name__)


def check_cells(path: pathlib.Path) -> dict[str, str]:
    """{check name: the source of the check cell that imports it}."""
    found = {}
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and CHECK_CELL.search(text):
            found.update({name: text for name in re.findall(r"\bcheck_\w+", text)})
    return found


def namespace(path: pathlib.Path, code: str) -> dict:
    """What an answer that calls a check sees: its exercise's check cell, run alone in an
    empty namespace (as after a kernel restart)."""
    cells = check_cells(path)
    called = [name for name in cells if re.search(rf"\b{name}\(", code)]
    assert called, f"{path.name}: the code calls no check of this notebook"
    names: dict = {}
    assert not quietly(cells[called[0]], names, f"{path.name} check cell"), "a check cell printed"
    return names


def catalogue(path: pathlib.Path, kind: str, name: str, default):
    try:
        return getattr(importlib.import_module(f"{kind}_nb{path.name[:2]}"), name, default)
    except ModuleNotFoundError:
        return default  # the tests that need the file report it


def run(code: str, path: pathlib.Path, label: str) -> BaseException | None:
    """Execute an answer (it calls its check); the exception it raised, or None."""
    def too_slow(*_):
        raise TimeoutError(f"{label} ran over {MUTANT_SECONDS} s")
    old = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, MUTANT_SECONDS)
    linecache.cache[label] = (len(code), None, code.splitlines(True), label)  # as IPython does
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. the SyntaxWarning of a mutant's `is 0`
            exec(compile(code, label, "exec"), namespace(path, code))
    except BaseException as e:  # noqa: BLE001 -- the caller judges it
        return e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return None


def raised_in_check(e: BaseException) -> bool:
    """True when a non-AssertionError escaped from the check's own code."""
    return any(f.filename.startswith(CHECKS_DIR) for f in traceback.extract_tb(e.__traceback__))


SOLUTIONS = [(p, n, code) for p in NOTEBOOKS for n, code in exercises(p)]
WRONGS = [(p, *w) for p in NOTEBOOKS for w in catalogue(p, "wrong_answers", "WRONG", [])]
VALIDS = [(p, *v) for p in NOTEBOOKS for v in catalogue(p, "valid_answers", "VALID", [])]


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
def test_solution_passes_its_check(path, number, code):
    module = checks_module(path)
    assert any(name in code for name in check_names(module)), \
        f"{path.name} exercise {number}: the solution never calls its check"
    said = quietly(code, namespace(path, code), f"{path.name} exercise {number}")
    assert said.startswith("✓ ") and said.count("\n") == 1, f"a passed check says so: {said!r}"
    shown = [text for n, text in solution_prints(path) if n == number]
    assert shown == [said.rstrip("\n")], \
        f"the folded solution should show what it prints: {said!r}, not {shown}"


@pytest.mark.parametrize(("path", "check", "mistake", "code", "message", "diagnoses"), WRONGS,
                         ids=[f"{w[0].name[:2]}-{w[1]}-{w[2]}" for w in WRONGS])
def test_wrong_answer_fails_with_a_message(path, check, mistake, code, message, diagnoses):
    assert check in code, f"the wrong answer '{mistake}' never calls {check}"
    e = run(code, path, f"wrong answer: {mistake}")
    assert isinstance(e, AssertionError), f"'{mistake}' was not rejected: {e!r}"
    assert re.search(message, str(e)), f"'{mistake}': {str(e)!r} does not match {message!r}"
    assert len(str(e).splitlines()) <= 3, f"'{mistake}': over three lines:\n{e}"
    assert not PATHS.search(str(e)), f"'{mistake}': a path in the message:\n{e}"
    named = getattr(e, "diagnoses", ())
    assert sorted(named) == sorted(diagnoses), \
        f"'{mistake}': its diagnoses are {sorted(diagnoses)}, the check named {sorted(named)}"


def declared(module) -> set[str]:
    """The keys of every `Mistake` a check module declares (in its lists and dicts)."""
    from helpers.checks import Mistake
    found = set()
    for value in vars(module).values():
        items = value.values() if isinstance(value, dict) else value \
            if isinstance(value, (list, tuple)) else ()
        found |= {m.key for m in items if isinstance(m, Mistake)}
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_declared_mistake_is_a_catalogued_answers(path):
    """A diagnosis no wrong answer gets is untested: each has its wrong answer."""
    named = {d for w in catalogue(path, "wrong_answers", "WRONG", []) for d in w[4]}
    missing = sorted(declared(checks_module(path)) - named)
    assert not missing, f"{path.name}: no catalogued wrong answer gets {missing}"


@pytest.mark.parametrize(("path", "check", "how", "code"), VALIDS,
                         ids=[f"{v[0].name[:2]}-{v[1]}-{v[2]}" for v in VALIDS])
def test_valid_variant_passes(path, check, how, code):
    assert check in code, f"the valid answer '{how}' never calls {check}"
    e = run(code, path, f"valid answer: {how}")
    assert e is None, f"the right answer '{how}' was rejected:\n{e}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_check_has_wrong_and_valid_answers(path):
    checks = set(check_names(checks_module(path)))
    wrong = {w[0] for w in catalogue(path, "wrong_answers", "WRONG", [])}
    valid = [v[0] for v in catalogue(path, "valid_answers", "VALID", [])]
    assert checks and checks <= wrong, f"no wrong answer tried for {sorted(checks - wrong)}"
    few = sorted(c for c in checks if valid.count(c) < 2)
    assert not few, f"fewer than two valid variants for {few}"


def captured_answers(path: pathlib.Path) -> dict[str, tuple]:
    """{check name: the arguments the solution passes it}, by running the solutions."""
    module = checks_module(path)
    calls: dict[str, tuple] = {}
    for _, code in exercises(path):
        names = namespace(path, code)
        for name in check_names(module):
            names[name] = (lambda n: lambda *args: calls.setdefault(n, args))(name)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "solution", "exec"), names)
    return calls


BAD = [None, 3, 2.5, "text", [1, 2], (3, 4), {"a": None}, torch.zeros(2),
       lambda *a, **k: None, lambda *a, **k: 1, object]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_checks_answer_wrong_types_with_a_sentence(path):
    module = checks_module(path)
    answers = captured_answers(path)
    assert set(answers) == set(check_names(module)), "a check no solution calls"
    for name, args in answers.items():
        for i in range(len(args)):
            for bad in BAD:
                given = (*args[:i], bad, *args[i + 1:])
                with contextlib.redirect_stdout(io.StringIO()):
                    try:
                        getattr(module, name)(*given)
                    except AssertionError as e:
                        first = str(e).split("\n")[0]
                        assert len(first) > 15, f"{name}({bad!r}): a terse message {first!r}"
                        continue
                    except Exception as e:  # noqa: BLE001
                        pytest.fail(f"{name} crashed on argument {i} = {bad!r}: {e!r}")
                pytest.fail(f"{name} accepted argument {i} = {bad!r}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_checks_are_quick(path):
    """A learner waits for the checks: all of a notebook's take under a second, warm
    (the better of two runs)."""
    best = math.inf
    for _ in range(2):                      # the first run warms up
        start = time.perf_counter()
        for _, code in exercises(path):
            assert run(code, path, "solution") is None
        best = min(best, time.perf_counter() - start)
    assert best < 1.0, f"{path.name}: the checks take {best:.2f} s"


def exercises_section(path: pathlib.Path) -> list[tuple[str, str]]:
    """("cell" or "solution", code) for the Exercises section, in order: what a learner
    runs after a kernel restart (the check cells, the answer cells, the solutions)."""
    steps, inside = [], False
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        inside = inside or (cell["cell_type"] == "markdown"
                           and re.search(r"^## Exercises", text, re.M) is not None)
        if not inside:
            continue
        if cell["cell_type"] == "code":
            steps.append(("cell", text))
        elif (solution := SOLUTION.search(text)):
            steps.append(("solution", solution.group(1)))
    return steps


def quietly(code: str, names: dict, label: str) -> str:
    """Run `code` in `names`; what it printed (a warning fails the test)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        exec(compile(code, label, "exec"), names)
    assert not seen, f"{label} warned: {seen[0].message}"
    return out.getvalue()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_the_exercises_run_after_a_restart(path):
    """The whole Exercises section in order, in one empty namespace, with the solutions run
    where they are: every solution prints its ✓, nothing else is printed, nothing warns."""
    names: dict = {}
    steps = exercises_section(path)
    assert steps, f"{path.name}: no Exercises section"
    for kind, code in steps:
        said = quietly(code, names, f"{path.name} {kind}")
        if kind == "solution":
            assert said.startswith("✓ ") and said.count("\n") == 1, f"{path.name}: {said!r}"
        else:
            assert not said, f"{path.name}: a check cell printed {said!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_the_exercises_intro_shows_a_real_failure_and_a_real_pass(path):
    """The intro's "✗ Check failed: ..." example, and any other the Exercises show, is what a
    catalogued wrong answer gets; its "✓ ..." example what a solution prints; it says what a
    ✗ does to Run All."""
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]
             if c["cell_type"] == "markdown"]
    start = next(i for i, text in enumerate(cells) if re.search(r"^## Exercises", text, re.M))
    intro = cells[start]
    assert EXAMPLE.search(intro), \
        f"{path.name}: the Exercises intro shows no ```text ✗ Check failed: ...```"
    assert "Run All" in intro, f"{path.name}: the intro does not say what a ✗ does to Run All"
    for example in EXAMPLE.findall("\n".join(cells[start:])):
        said = [str(run(code, path, mistake)) for p, _, mistake, code, message, _ in WRONGS
                if p == path and re.search(message, example)]   # the candidates only
        assert example in said, f"{path.name}: no catalogued wrong answer gets {example!r}"
    shown = PRINTS.findall(intro)
    prints = [text for _, text in solution_prints(path)]
    assert len(shown) == 1 and shown[0] in prints, \
        f"{path.name}: the intro's ✓ example should be one a solution prints: {shown}"
