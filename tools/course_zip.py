"""The whole course as one zip, for a learner who has only the website.

    python tools/course_zip.py OUT.zip

`make site` puts it on the site (website/build.py calls `build`), linked as
"Download the course" from every page. Unzipped, it is a working copy of the
course: `make lab` and `make test` work in it as in a clone (README, Makefile,
pyproject.toml, environment.yml, LICENSE, the notebooks, helpers/, tests/,
tools/, website/, and .ci/run, which the maintainers' pages name). Left out: git
files and anything generated (caches, venvs, _site/, egg-info).

The notebooks go in with their REPO line set to the course's URL
(tools/course_url.py). The archive is reproducible: files in sorted order,
one fixed timestamp, modes 644 or 755.
"""

from __future__ import annotations

import pathlib
import sys
import zipfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import course_url  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOP = "g-to-grad"                  # the folder the archive unpacks into
NAME = "g-to-grad.zip"             # its name on the site
FILES = ["README.md", "LICENSE", "Makefile", "pyproject.toml", "environment.yml",
         "CONTRIBUTING.md", "MAINTAINING.md"]
FOLDERS = ["notebooks", "helpers", "tests", "tools", "website", ".ci"]
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".ruff_cache"}
SKIP_SUFFIXES = {".pyc", ".pyo", ".zip"}
STAMP = (2020, 1, 1, 0, 0, 0)


def members(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """The course's files, relative to `root`, sorted."""
    found = [pathlib.Path(name) for name in FILES if (root / name).is_file()]
    for folder in FOLDERS:
        for path in (root / folder).rglob("*"):
            rel = path.relative_to(root)
            if (path.is_file() and not SKIP_PARTS & set(rel.parts)
                    and path.suffix not in SKIP_SUFFIXES
                    and not any(part.endswith(".egg-info") for part in rel.parts)):
                found.append(rel)
    return sorted(found, key=lambda p: p.as_posix())


def build(out: pathlib.Path, url: str | None = None, root: pathlib.Path = ROOT) -> int:
    """Write the archive to `out`; the notebooks' REPO line says `url` (by default the
    course's URL). Returns the number of files."""
    url = course_url.repository_url() if url is None else url
    files = members(root)
    missing = [name for name in FILES + FOLDERS if not (root / name).exists()]
    if missing:
        raise SystemExit(f"tools/course_zip.py: the course has no {missing}")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(tmp, "w") as zf:
        for rel in files:
            path = root / rel
            data = path.read_bytes()
            if rel.suffix == ".ipynb" and rel.parts[0] == "notebooks":
                data = course_url.filled(data.decode("utf-8"), url).encode("utf-8")
            info = zipfile.ZipInfo(f"{TOP}/{rel.as_posix()}", date_time=STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if path.stat().st_mode & 0o111 else 0o644
            info.external_attr = (0o100000 | mode) << 16
            zf.writestr(info, data, compresslevel=9)
    tmp.replace(out)
    return len(files)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = pathlib.Path(argv[0])
    n = build(out)
    print(f"{out}: {n} files, {out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
