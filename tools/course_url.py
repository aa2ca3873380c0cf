"""The course's public git repository: one address, kept in pyproject.toml.

    python tools/course_url.py                  # print the URL ("" while there is none)
    python tools/course_url.py --check          # exit 1 if a notebook's REPO line differs
    python tools/course_url.py --write          # set every notebook's REPO line to the URL

pyproject.toml's `[project.urls]` table holds it as `Repository = "https://..."`;
while the course has no public address the entry is absent. Everything else
follows from it: the website's repository, Colab and Binder buttons
(website/conf.py), and the `REPO = "..."` line of each notebook's first cell
(tag `launch`), from which a kernel with no checkout (Colab, a downloaded
notebook) installs the course's helpers with `pip install git+REPO`.

The environment variable COURSE_REPOSITORY_URL, when set (even to ""), takes
the place of pyproject's entry: the tests build the site with a made-up URL.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENV = "COURSE_REPOSITORY_URL"
NOTEBOOKS = "notebooks/[0-9][0-9]_*.ipynb"
# The first line of the launch cell: REPO = "..."  # a comment
REPO_LINE = re.compile(r'^REPO = "(?P<url>[^"\\]*)"(?P<comment>[ \t]*#.*)?$')
COMMENTS = (  # the first that keeps the line within the notebooks' 79 columns
    "  # set-up: the course's git URL, for kernels with no clone",
    "  # the course's git URL",
    "",
)
MAX_LINE = 79
# With no URL, a lone copy of a notebook prints where to get the course zip.
EMPTY_COMMENT = "  # set-up: no git URL: a lone notebook says where to get the course"


def pyproject_url(pyproject: pathlib.Path = ROOT / "pyproject.toml") -> str:
    """`[project.urls]`'s Repository entry, or "" when there is none."""
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: read the one table by hand
        table = re.search(r"^\[project\.urls\][ \t]*\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
        entry = table and re.search(r'^Repository[ \t]*=[ \t]*"([^"]*)"', table.group(1), re.M)
        return entry.group(1).strip() if entry else ""
    urls = tomllib.loads(text).get("project", {}).get("urls", {})
    return str(urls.get("Repository", "")).strip()


def repository_url() -> str:
    """The URL the site and the notebooks use: $COURSE_REPOSITORY_URL if set, else
    pyproject's."""
    if ENV in os.environ:
        return os.environ[ENV].strip()
    return pyproject_url()


def launch_cell(nb: dict) -> dict:
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            if "launch" not in cell.get("metadata", {}).get("tags", []):
                raise ValueError("the first code cell has no `launch` tag")
            return cell
    raise ValueError("the notebook has no code cell")


def _lines(cell: dict) -> list[str]:
    return "".join(cell["source"]).splitlines(keepends=True)  # a list or one string


def notebook_url(nb: dict) -> str:
    """The URL in the REPO line of a notebook's launch cell."""
    for line in _lines(launch_cell(nb)):
        match = REPO_LINE.match(line.rstrip("\n"))
        if match:
            return match.group("url")
    raise ValueError("the launch cell has no line `REPO = \"...\"`")


def repo_line(url: str) -> str:
    if not url:
        return f'REPO = ""{EMPTY_COMMENT}'
    for comment in COMMENTS:
        line = f'REPO = "{url}"{comment}'
        if len(line) <= MAX_LINE:
            return line
    return line


def with_url(nb: dict, url: str) -> dict:
    """The notebook (changed in place and returned) with its REPO line set to `url`."""
    if '"' in url or "\\" in url or "\n" in url:
        raise ValueError(f"not a URL for a REPO line: {url!r}")
    cell = launch_cell(nb)
    lines = _lines(cell)
    for i, line in enumerate(lines):
        match = REPO_LINE.match(line.rstrip("\n"))
        if match:
            if line.rstrip("\n") != repo_line(url):
                lines[i] = repo_line(url) + ("\n" if line.endswith("\n") else "")
            break
    else:
        raise ValueError("the launch cell has no line `REPO = \"...\"`")
    cell["source"] = lines if isinstance(cell["source"], list) else "".join(lines)
    return nb


def dumps(nb: dict) -> str:
    """A notebook as nbformat writes it (tools/run_notebooks.py)."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def filled(text: str, url: str) -> str:
    """A notebook's file text with its REPO line set to `url`; the same text, byte for
    byte, when the line already says so."""
    nb = json.loads(text)
    if any(line.rstrip("\n") == repo_line(url) for line in _lines(launch_cell(nb))):
        return text
    return dumps(with_url(nb, url))


def notebooks(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    return sorted(root.glob(NOTEBOOKS))


def main(argv: list[str]) -> int:
    url = repository_url()
    if not argv:
        print(url)
        return 0
    if argv not in (["--check"], ["--write"]):
        print(__doc__, file=sys.stderr)
        return 2
    wrong = []
    for path in notebooks():
        text = path.read_text(encoding="utf-8")
        new = filled(text, url)
        if new != text:
            wrong.append(path)
            if argv == ["--write"]:
                path.write_text(new, encoding="utf-8")
    for path in wrong:
        verb = "set REPO in" if argv == ["--write"] else "REPO differs from the course URL in"
        print(f"{verb} {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if wrong and argv == ["--check"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
