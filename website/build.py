"""Build the course website: static HTML from the committed notebooks, not re-executed.

    python website/build.py            # writes _site/ (open _site/index.html)
    python website/build.py OUT_DIR

The sources are staged in a temporary folder: website/index.md, the "Course map"
section cut out of README.md (so the site and the README share one table), and
notebooks/*.ipynb as they are on disk, except that their REPO line says the
course's URL (tools/course_url.py; pyproject's [project.urls], or
$COURSE_REPOSITORY_URL). Sphinx (MyST-NB, sphinx-book-theme) then renders them
with warnings as errors, so a broken link between notebooks fails the build.

Then the whole course goes on the site as a zip (tools/course_zip.py), and what no
page loads is left out: the theme's source maps and message catalogues, and the
raw index.md (the landing page offers the course, not its markdown source).
"""

from __future__ import annotations

import pathlib
import re
import shutil
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tools"))
import course_url  # noqa: E402
import course_zip  # noqa: E402

# Shipped by the theme, loaded by no page: source maps and translation catalogues.
UNUSED = ["_static/**/*.map", "_static/locales", "_sources/index.md"]


def course_map(readme: str) -> str:
    """The body of README's `## Course map` section, up to the next `## ` heading."""
    match = re.search(r"^## Course map[ \t]*\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    if not match or "notebooks/" not in match.group(1):
        raise SystemExit("website/build.py: README.md has no '## Course map' section "
                         "with links to notebooks/; the landing page needs it")
    return match.group(1).strip() + "\n"


def stage(src: pathlib.Path, url: str) -> list[pathlib.Path]:
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        raise SystemExit("website/build.py: no notebooks/NN_*.ipynb to render")
    (src / "notebooks").mkdir(parents=True)
    shutil.copy2(HERE / "index.md", src / "index.md")
    (src / "_course_map.md").write_text(
        course_map((ROOT / "README.md").read_text(encoding="utf-8")), encoding="utf-8")
    for nb in notebooks:
        text = course_url.filled(nb.read_text(encoding="utf-8"), url)
        (src / "notebooks" / nb.name).write_text(text, encoding="utf-8")
    return notebooks


def prune(out: pathlib.Path) -> None:
    for pattern in UNUSED:
        for path in sorted(out.glob(pattern), reverse=True):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def main(argv: list[str]) -> int:
    # nbformat's schema check imports jsonschema's format checkers, which compile ~40
    # grammars of the optional rfc3987-syntax package (seconds of start-up) for IRI
    # formats that notebooks never use; without it jsonschema simply skips them.
    sys.modules.setdefault("rfc3987_syntax", None)
    from sphinx.cmd.build import build_main

    out = (pathlib.Path(argv[0]) if argv else ROOT / "_site").resolve()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="g-to-grad-site-") as tmp:
        src, html = pathlib.Path(tmp) / "src", pathlib.Path(tmp) / "build" / "html"
        url = course_url.repository_url()
        notebooks = stage(src, url)
        # Sphinx writes into the temporary folder (MyST-NB puts its jupyter_execute/
        # beside the output folder); the finished site then replaces `out` whole.
        status = build_main([
            "-b", "html", "-c", str(HERE), "-d", str(pathlib.Path(tmp) / "doctrees"),
            "-E", "-q", "-W", "--keep-going", str(src), str(html),
        ])
        if status:
            print(f"website/build.py: sphinx failed (see the warnings above); {out} is "
                  "left as it was", file=sys.stderr)
            return status
        if out.exists():
            shutil.rmtree(out)
        prune(html)
        course_zip.build(html / course_zip.NAME, url)
        shutil.move(str(html), str(out))
    (out / ".nojekyll").touch()  # keep _static/ when served by GitHub Pages
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"site: {len(notebooks)} notebooks -> {shown}/index.html, {size / 1e6:.1f} MB, "
          f"in {time.perf_counter() - start:.1f} s"
          + (f" (repository {url})" if url else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
