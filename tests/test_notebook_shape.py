"""The notebooks' shape: short enough to read, narrow enough for the site's text column.

- at most 80 cells and 3,200 words of prose a notebook (code and folded
  solutions not counted), and a median code cell of at most 10 non-blank lines;
- code lines and printed output lines at most 79 characters (the site shows
  about 79 beside the page's contents list); error messages and HTML tables are
  left to the site, which wraps or scrolls them (tests/test_site.py);
- no output holds a path of the machine that ran it, a user name or a
  temporary file's name: not in printed text, tables, or tracebacks;
- no `try:` in a code cell (errors are shown or proved in one line);
- one to three **Predict:** prompts a notebook, each asked before a code cell and
  answered in a folded <details> right after it.

    python tests/test_notebook_shape.py      # prints the numbers for every notebook
"""

from __future__ import annotations

import json
import pathlib
import re
import statistics

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDTH, MAX_CELLS, MAX_WORDS, MAX_MEDIAN = 79, 80, 3200, 10
CELL_CAPS = {"01": 65, "03": 60}     # issue 29: one sitting each
DETAILS = re.compile(r"<details>.*?</details>", re.S)


def cells(path):
    return json.loads(path.read_text())["cells"]


def shape(path) -> dict:
    cs = cells(path)
    prose = " ".join(DETAILS.sub("", "".join(c["source"])) for c in cs
                     if c["cell_type"] == "markdown")
    code = [c for c in cs if c["cell_type"] == "code" and "launch" not in
            c["metadata"].get("tags", [])]
    lines = [sum(1 for line in "".join(c["source"]).splitlines() if line.strip()) for c in code]
    return {"cells": len(cs), "words": len(prose.split()),
            "median code lines": statistics.median(lines) if lines else 0}


def wide_lines(path) -> list[str]:
    found = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "code":
            continue
        texts = ["".join(c["source"])]
        for out in c.get("outputs", []):
            if out["output_type"] == "stream":
                texts.append("".join(out["text"]))
            elif "text/plain" in out.get("data", {}) and "text/html" not in out["data"]:
                texts.append("".join(out["data"]["text/plain"]))
        found += [f"cell {i}: {line}" for t in texts for line in t.splitlines()
                  if len(line) > WIDTH]
    return found


# Where a machine shows through: absolute paths of any OS, a home folder, an
# installed package's folder, IPython's temporary cell files, torch's build tree.
MACHINE = re.compile(r"(?<![\w.])/(home|root|Users|tmp|var|usr|opt|private|__w)/|"
                     r"[A-Za-z]:\\|site-packages|dist-packages|\.venv|ipykernel_\d+|"
                     r"File \"/|~/")

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def output_texts(path):
    """(cell index, text) for every text a notebook's outputs hold, tracebacks included."""
    for i, c in enumerate(cells(path)):
        for out in c.get("outputs", []):
            if out["output_type"] == "stream":
                yield i, "".join(out["text"])
            elif out["output_type"] == "error":
                yield i, "\n".join([out["ename"], out["evalue"], *out["traceback"]])
            else:
                for kind, data in out.get("data", {}).items():
                    if kind.startswith("text/"):
                        yield i, "".join(data)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_outputs_hold_no_machine_paths(path):
    # (an image inside an output, a data: URI, is base64, where "/" is a letter)
    texts = [(i, re.sub(r"data:[\w/+.-]+;base64,[\w/+=]+", "", ANSI.sub("", t)))
             for i, t in output_texts(path)]
    found = [f"cell {i}: ...{t[max(0, m.start() - 40):m.end() + 40]}..."
             for i, t in texts for m in [MACHINE.search(t)] if m]
    assert not found, f"{len(found)} outputs show the machine:\n" + "\n".join(found[:10])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_notebook_is_short(path):
    s = shape(path)
    assert s["cells"] <= CELL_CAPS.get(path.name[:2], MAX_CELLS), s
    assert s["words"] <= MAX_WORDS, s
    assert s["median code lines"] <= MAX_MEDIAN, s


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_code_and_outputs_fit_the_text_column(path):
    wide = wide_lines(path)
    assert not wide, f"{len(wide)} lines over {WIDTH} characters:\n" + "\n".join(wide[:20])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_no_try_in_code_cells(path):
    tries = [i for i, c in enumerate(cells(path)) if c["cell_type"] == "code"
             and re.search(r"^\s*try:", "".join(c["source"]), re.M)]
    assert not tries, f"try: in cells {tries}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_predict_prompts_are_asked_then_answered(path):
    cs = cells(path)
    asked = [i for i, c in enumerate(cs) if c["cell_type"] == "markdown"
             and "**Predict:**" in DETAILS.sub("", "".join(c["source"]))]
    assert 1 <= len(asked) <= 3, f"{len(asked)} Predict: prompts (cells {asked})"
    for i in asked:
        code = next((j for j in range(i + 1, len(cs)) if cs[j]["cell_type"] == "code"), None)
        assert code is not None, f"cell {i}: Predict: with no code cell after it"
        answer = next((j for j in range(code + 1, len(cs)) if cs[j]["cell_type"] == "markdown"),
                      None)
        text = "".join(cs[answer]["source"]) if answer is not None else ""
        assert "<details>" in text and "Answer" in text, (
            f"cell {i}: Predict: not answered in a folded <details> after the run")


if __name__ == "__main__":
    for p in NOTEBOOKS:
        print(p.name[:2], shape(p), f"{len(wide_lines(p))} wide lines")
