"""The course website (`make site`) in a real browser: headless Chromium on `_site/`.

Each page (the landing page and one per notebook) is opened from disk, as a learner
opens `_site/index.html`, and its DOM is read back after the scripts ran. The checks:
the page loads with its title; every formula was typeset by MathJax (served by the
site itself) with no TeX error and no raw `$$` left; every figure the notebook holds
is an <img> whose file exists; every HTML table output is there; every solution is a
closed <details> with highlighted code inside; the links between notebooks (the
Previous/Next footers, the theme's buttons, the landing page's course map) lead to
built pages; and nothing is loaded from another site.

What a page must show is read from the notebook the site was built from (the copy
the site offers for download in `_site/_sources/`).

Runs only under `make test-site`, which builds the site and sets SITE_TEST_REQUIRED=1,
so that `make test` stays fast. There a missing Chromium, a missing site or a site
older than notebooks/ fails the test with the reason.
"""

from __future__ import annotations

import concurrent.futures
import copy
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
from urllib.parse import unquote, urlsplit

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = pathlib.Path(os.environ.get("SITE_DIR", ROOT / "_site")).resolve()
REQUIRED = os.environ.get("SITE_TEST_REQUIRED") == "1"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FASTAI_SOURCE = "https://github.com/fastai/course-v3/blob/master/nbs/dl2/02_fully_connected.ipynb"
PYTORCH_SOURCE = "https://pytorch.org/tutorials/beginner/examples_nn/dynamic_net.html"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def unavailable(reason: str):
    pytest.fail(f"{reason} (make test-site never skips these checks)")


def chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def site_problem() -> str | None:
    """Why the built site cannot be tested as it is, or None."""
    if not (SITE / "index.html").is_file():
        return f"no built site in {SITE}: run make site"
    built = SITE / "_sources" / "notebooks"
    for nb in NOTEBOOKS:
        copy = built / nb.name
        if not copy.is_file() or copy.read_bytes() != nb.read_bytes():
            return f"the site in {SITE} is older than {nb.relative_to(ROOT)}: run make site"
    extra = sorted({p.name for p in built.glob("*.ipynb")} - {nb.name for nb in NOTEBOOKS})
    if extra:
        return f"the site in {SITE} has notebooks no longer in notebooks/ ({extra}): run make site"
    return None


def dump_dom(browser: str, page: pathlib.Path) -> str:
    """The page's DOM after its scripts (MathJax among them) have run."""
    with tempfile.TemporaryDirectory(prefix="g-to-grad-chromium-") as profile:
        cmd = [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", f"--user-data-dir={profile}",
            # Offline, like a learner without a network: no name resolves, so anything the
            # site tried to fetch from elsewhere would fail (and math would not render).
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=15000", "--dump-dom", page.as_uri(),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode or "</html>" not in done.stdout:
        raise AssertionError(f"chromium could not render {page}: exit {done.returncode}\n"
                             f"{done.stderr[-2000:]}")
    return done.stdout


def notebook_facts(path: pathlib.Path) -> dict:
    """What the page of this notebook must show, read from the notebook itself."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    # Formulas: a `$` in a markdown cell outside code spans and fenced code.
    prose = [re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S) for text in markdown]
    return {
        "title": re.match(r"#\s+(.+)", markdown[0]).group(1).strip(),
        "has_math": any("$" in text for text in prose),
        "pngs": sum("image/png" in o.get("data", {}) for o in outputs),
        "html_tables": sum("".join(o.get("data", {}).get("text/html", "")).count("<table")
                           for o in outputs),
        "details": sum(text.count("<details") for text in markdown),
        "solutions": sum(len(re.findall(r"<summary>[^\n]*Solution", text)) for text in markdown),
    }


PAGES = ["index.html"] + [f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS]


@pytest.fixture(scope="module")
def dom():
    """{page: parsed DOM} for the landing page and every notebook page."""
    if not REQUIRED:   # 34 browser runs would double `make test`; `make test-site` runs them
        pytest.skip("browser checks of the website run with make test-site")
    browser = chromium()
    if browser is None:
        unavailable("chromium is not installed (Debian: apt-get install chromium)")
    problem = site_problem()
    if problem:
        unavailable(problem)
    try:
        from bs4 import BeautifulSoup
    except ImportError:
        unavailable("beautifulsoup4 is missing: pip install -e '.[site]'")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        html = dict(zip(PAGES, pool.map(lambda p: dump_dom(browser, SITE / p), PAGES)))
    return {page: BeautifulSoup(text, "html.parser") for page, text in html.items()}


def article(soup):
    main = soup.select_one("article.bd-article") or soup.find("main")
    assert main is not None, "the page has no article: did the theme change?"
    return main


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") or bool(parts.netloc)


def local_target(page: str, href: str) -> tuple[pathlib.Path, str] | None:
    """(file, fragment) an href of `page` points to inside the site; None for a link
    elsewhere or one that names no file (data:, mailto:, javascript:)."""
    parts = urlsplit(href)
    if is_external(href) or parts.scheme not in ("", "file"):
        return None
    if parts.scheme == "file":
        return pathlib.Path(unquote(parts.path)), parts.fragment
    if not parts.path:
        return SITE / page, parts.fragment
    return (SITE / page).parent.joinpath(unquote(parts.path)).resolve(), parts.fragment


def href_page(page: str, href: str) -> str | None:
    """The built page (relative to the site) an href of `page` leads to, or None."""
    target = local_target(page, href)
    if target is None or target[0].suffix != ".html":
        return None
    return target[0].relative_to(SITE).as_posix()


def page_links(page: str, scope) -> list[str]:
    """Built pages that the links inside `scope` (an element of `page`) lead to, in order."""
    return [p for a in scope.find_all("a", href=True) if (p := href_page(page, a["href"]))]


def heading_text(h) -> str:
    h = copy.copy(h)  # the parsed pages are shared between tests: change only copies
    for link in h.select("a.headerlink"):
        link.extract()
    return " ".join(h.get_text().split())


@pytest.mark.parametrize("page", PAGES)
def test_page_loads(dom, page):
    soup = dom[page]
    h1 = article(soup).find("h1")
    assert h1 is not None, f"{page}: no <h1>"
    if page == "index.html":
        assert heading_text(h1) == "From .g to .grad"
    else:
        title = notebook_facts(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))["title"]
        assert heading_text(h1) == " ".join(title.replace("`", "").split()), (
            f"{page}: the page's title is not the notebook's")
    assert soup.title and "From .g to .grad" in soup.title.get_text()


@pytest.mark.parametrize("page", PAGES[1:])
def test_maths_rendered(dom, page):
    body = article(dom[page])
    facts = notebook_facts(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))
    maths = body.select("span.math, div.math")
    if facts["has_math"]:
        assert maths, f"{page}: the notebook has $...$ maths but the page has no math element"
    unrendered = [m.get_text()[:80] for m in maths if not m.find("mjx-container")]
    assert not unrendered, f"{page}: MathJax did not typeset {len(unrendered)}: {unrendered[:3]}"
    errors = [e.get("data-mjx-error") or e.get_text()[:80]
              for e in body.select("mjx-merror, [data-mjx-error]")]
    assert not errors, f"{page}: TeX errors in the page: {errors[:3]}"
    body = copy.copy(body)
    for code in body.find_all(["pre", "code", "script", "style"]):
        code.extract()
    text = body.get_text(" ")
    assert "$$" not in text, f"{page}: raw $$ left in the text: ...{text[text.find('$$'):][:80]}"
    leftover = re.findall(r"\\\(|\\\[|\\frac|\\partial", text)
    assert not leftover, f"{page}: raw TeX left in the text: {leftover[:3]}"


@pytest.mark.parametrize("page", PAGES[1:])
def test_figures_and_tables_present(dom, page):
    body = article(dom[page])
    facts = notebook_facts(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))
    images = body.select("div.cell_output img")
    assert len(images) >= facts["pngs"], (
        f"{page}: the notebook has {facts['pngs']} PNG figures, the page shows {len(images)}")
    for img in body.find_all("img", src=True):
        assert not is_external(img["src"]), f"{page}: image from another site: {img['src']}"
        path, _ = local_target(page, img["src"]) or (None, None)
        if path is None:
            continue  # an inline data: image
        assert path.is_file(), f"{page}: image file missing: {img['src']}"
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG_MAGIC, f"{page}: not a PNG: {img['src']}"
    tables = body.select("div.cell_output .text_html table")
    assert len(tables) == facts["html_tables"], (
        f"{page}: the notebook's HTML outputs hold {facts['html_tables']} tables, "
        f"the page shows {len(tables)}")


@pytest.mark.parametrize("page", PAGES[1:])
def test_solutions_collapsed_with_highlighted_code(dom, page):
    body = article(dom[page])
    facts = notebook_facts(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))
    blocks = body.find_all("details")
    assert len(blocks) == facts["details"], (
        f"{page}: the notebook has {facts['details']} <details> blocks, the page {len(blocks)}")
    opened = [i for i, block in enumerate(blocks, 1) if block.has_attr("open")]
    assert not opened, f"{page}: <details> blocks {opened} are open when the page loads"
    solutions = [b for b in blocks if "Solution" in (b.summary.get_text() if b.summary else "")]
    assert len(solutions) == facts["solutions"], (
        f"{page}: the notebook has {facts['solutions']} Solution blocks, "
        f"the page {len(solutions)}")
    for i, block in enumerate(solutions, 1):
        code = block.select_one("div.highlight pre")
        assert code is not None, f"{page}: solution {i} has no code block inside its <details>"
        assert code.find("span", class_=True), f"{page}: solution {i}'s code is not highlighted"


def test_navigation_in_course_order(dom):
    """The theme's Previous/Next buttons and the sidebar run through the course in order."""
    for i, page in enumerate(PAGES):
        nxt = dom[page].select_one("a.right-next")
        prev = dom[page].select_one("a.left-prev")
        if i + 1 < len(PAGES):
            assert nxt is not None, f"{page}: no Next button"
            assert href_page(page, nxt["href"]) == PAGES[i + 1], (
                f"{page}: the Next button leads to {nxt['href']}, not {PAGES[i + 1]}")
        else:
            assert nxt is None, f"{page}: the last page has a Next button"
        if i:
            assert prev is not None, f"{page}: no Previous button"
            assert href_page(page, prev["href"]) == PAGES[i - 1], (
                f"{page}: the Previous button leads to {prev['href']}, not {PAGES[i - 1]}")
    sidebar = dom["index.html"].select_one("nav.bd-docs-nav")
    assert sidebar is not None, "the landing page has no sidebar navigation"
    assert [p for p in page_links("index.html", sidebar) if p.startswith("notebooks/")] == (
        PAGES[1:]), "the sidebar does not list the notebooks in course order"


@pytest.mark.parametrize("page", PAGES[1:])
def test_footer_links_to_neighbours(dom, page):
    """A notebook's last cell (**Previous:** / **Next:** / **Back to the start:**) leads
    to the notebooks before and after it, and the last one back to the landing page."""
    i = PAGES.index(page)
    body = article(dom[page])
    footers = [p for p in body.find_all("p")
               if re.search(r"\b(Previous|Next|Back to the start):", p.get_text())]
    assert footers, f"{page}: no Previous/Next footer"
    targets = page_links(page, footers[-1])
    expected = ([PAGES[i - 1]] if i > 1 else []) + (
        [PAGES[i + 1]] if i + 1 < len(PAGES) else ["index.html"])
    missing = [p for p in expected if p not in targets]
    assert not missing, f"{page}: the footer does not link to {missing} (it links {targets})"


def test_landing_page(dom):
    soup = dom["index.html"]
    body = article(soup)
    text = body.get_text(" ")
    assert "How does the" in text and "middle_linear" in text, "the two questions are missing"
    hrefs = [a["href"] for a in body.find_all("a", href=True)]
    assert FASTAI_SOURCE in hrefs, "no link to fast.ai's 02_fully_connected notebook"
    assert PYTORCH_SOURCE in hrefs, "no link to the PyTorch tutorial's DynamicNet"
    course_map = body.find("table")
    assert course_map is not None, "the landing page has no course map table"
    assert page_links("index.html", course_map) == PAGES[1:], (
        "the course map does not link every notebook page, in order")


@pytest.mark.parametrize("page", PAGES)
def test_links_resolve_and_nothing_loads_from_elsewhere(dom, page):
    soup = dom[page]
    for a in soup.find_all("a", href=True):
        target = local_target(page, a["href"])
        if target is None:
            continue
        path, fragment = target
        assert path.exists(), f"{page}: broken link {a['href']!r} ({a.get_text(strip=True)!r})"
        assert path.suffix != ".ipynb" or "_sources" in path.parts, (
            f"{page}: link to a notebook file instead of its page: {a['href']}")
        if fragment and path.suffix == ".html":
            ids = set(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))
            assert fragment in ids, f"{page}: link {a['href']!r}: no #{fragment} on that page"
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src")):
        for el in soup.find_all(tag, **{attr: True}):
            if tag == "link" and not {"stylesheet", "preload", "icon"} & set(el.get("rel", [])):
                continue
            assert not is_external(el[attr]), (
                f"{page}: <{tag}> loads {el[attr]} from another site; the site must work offline")
