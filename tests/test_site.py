"""The course website (`make site`) in a real browser: headless Chromium on `_site/`.

Each page (the landing page and one per notebook) is opened from disk, as a learner
opens `_site/index.html`, offline, through tools/headless.py (the DevTools protocol);
the checks read the page after its scripts ran and MathJax typeset it:

- content: the title; every formula typeset with no TeX error and no raw `$$`; every
  figure and HTML table of the notebook; every solution a closed <details> with
  highlighted code whose summary stops saying "(click to open)" once open; the links
  between notebooks (footers, Previous/Next, sidebar, course map) in course order;
- reading: at 1280 px and 1920 px no code block, output block or display equation
  needs a sideways scroll (solutions opened); at 390 px (a phone) code may scroll,
  text may not; every figure is shown at >= 60 % of its width or opens full size on
  a click; copy buttons on code, none on outputs; the set-up cell (tag `launch`)
  hidden behind a one-line note; dark mode: tables on the page's own background,
  figures on a white card (sampled from a screenshot);
- running: the course's zip is on the site, up to date, linked from every page,
  and holds every file of the course; with no repository URL (pyproject's
  [project.urls]) no page has a repository, Colab or Binder button, and a site
  built with a made-up URL has all three, pointing at that repository; the
  notebooks' REPO line equals pyproject's URL;
- weight: nothing loaded from another site, nothing that fails to load, only the
  MathJax files the pages use, a favicon, the whole site <= 10 MB.

What a page must show is read from the notebook the site was built from (the copy
Sphinx keeps, unlinked, in `_site/_sources/`).

The browser checks run only under `make test-site`, which builds the site and sets
SITE_TEST_REQUIRED=1, so that `make test` stays fast; there a missing Chromium, a
missing site or a site older than notebooks/ fails with the reason. SITE_SCREENSHOTS=DIR
also saves a screenshot of every page at 1280 px (light, dark) and 390 px.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import zipfile
from urllib.parse import unquote, urlsplit

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course_url  # noqa: E402
import course_zip  # noqa: E402

SITE = pathlib.Path(os.environ.get("SITE_DIR", ROOT / "_site")).resolve()
REQUIRED = os.environ.get("SITE_TEST_REQUIRED") == "1"
SCREENSHOTS = os.environ.get("SITE_SCREENSHOTS")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FASTAI_SOURCE = "https://github.com/fastai/course-v3/blob/master/nbs/dl2/02_fully_connected.ipynb"
PYTORCH_SOURCE = "https://pytorch.org/tutorials/beginner/examples_nn/dynamic_net.html"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BUDGET = 10_000_000                    # bytes, the whole site
MATHJAX = {"tex-chtml.js", "output/chtml/fonts/woff-v2"}   # what _static/mathjax/ holds
TEST_URL = "https://github.com/example-org/g-to-grad"
LAUNCH_NOTE = "A hidden first cell installs the course's helpers in a bare kernel."
ZIP = course_zip.NAME

PAGES = ["index.html"] + [f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS]


def unavailable(reason: str):
    pytest.fail(f"{reason} (make test-site never skips these checks)")


def site_problem() -> str | None:
    """Why the built site cannot be tested as it is, or None."""
    if not (SITE / "index.html").is_file():
        return f"no built site in {SITE}: run make site"
    built = SITE / "_sources" / "notebooks"
    url = course_url.repository_url()
    for nb in NOTEBOOKS:
        copy_ = built / nb.name
        if (not copy_.is_file() or copy_.read_text(encoding="utf-8")
                != course_url.filled(nb.read_text(encoding="utf-8"), url)):
            return f"the site in {SITE} is older than {nb.relative_to(ROOT)}: run make site"
    extra = sorted({p.name for p in built.glob("*.ipynb")} - {nb.name for nb in NOTEBOOKS})
    if extra:
        return f"the site in {SITE} has notebooks no longer in notebooks/ ({extra}): run make site"
    return None


# ---------------------------------------------------------------------------------------
# What the browser reads from each page. One JavaScript function per question, run in
# the page after MathJax has typeset it.

BLOCKS_JS = r"""
(() => {
  // Solutions open, so that their code is measured too.
  document.querySelectorAll("article details").forEach(d => { d.open = true; });
  const article = document.querySelector("article.bd-article");
  const kinds = [
    ["code", "div.cell_input pre, div.highlight pre:not(div.cell_output pre)"],
    ["output", "div.cell_output .output, div.cell_output pre"],
    ["equation", 'mjx-container[display="true"], div.math'],
    ["article", "article.bd-article"],
  ];
  const heading = e => {
    for (let s = e.closest("section"); s; s = s.parentElement.closest("section")) {
      const h = s.querySelector(":scope > h1, :scope > h2, :scope > h3");
      if (h) return h.textContent.replace("#", "").trim();
    }
    return "";
  };
  const cut = [];
  const seen = new Set();
  for (const [kind, sel] of kinds) {
    for (const e of (kind === "article" ? [article] : article.querySelectorAll(sel))) {
      if (seen.has(e) || !e.getClientRects().length) continue;
      seen.add(e);
      if (e.scrollWidth > e.clientWidth + 1) {
        const lines = (e.innerText || "").split("\n");
        const longest = lines.reduce((a, b) => b.length > a.length ? b : a, "");
        cut.push({kind, section: heading(e), scroll: e.scrollWidth, width: e.clientWidth,
                  chars: longest.length, text: longest.slice(0, 90)});
      }
    }
  }
  return cut;
})()
"""

PAGE_JS = r"""
(() => {
  const article = document.querySelector("article.bd-article");
  const summaries = [...article.querySelectorAll("details")].map(d => {
    const s = d.querySelector("summary");
    d.open = false;
    const closed = s ? s.innerText : "";
    d.open = true;
    const opened = s ? s.innerText : "";
    d.open = false;
    return {closed, opened};
  });
  const images = [...article.querySelectorAll("img")].map(i => ({
    src: i.getAttribute("src"), natural: i.naturalWidth,
    shown: i.getBoundingClientRect().width,
    zoom: i.closest("a.image-zoom") ? i.closest("a.image-zoom").getAttribute("href") : null,
  }));
  const copyable = pre => !!pre.parentElement.querySelector(":scope > button.copybtn");
  const code = [...article.querySelectorAll(
      "div.cell_input div.highlight > pre, details div.highlight > pre")];
  const outputs = [...article.querySelectorAll("div.cell_output pre")];
  return {
    summaries, images,
    code_without_button: code.filter(p => !copyable(p)).map(p => p.innerText.slice(0, 60)),
    code_blocks: code.length,
    outputs_with_button: outputs.filter(copyable).map(p => p.innerText.slice(0, 60)),
  };
})()
"""

PHONE_JS = r"""
(() => {
  const de = document.documentElement;
  const text = "p, li, h1, h2, h3, h4, summary, dt, dd, blockquote";
  const inScroller = "table, pre, mjx-container, .highlight";
  const cut = [...document.querySelectorAll(`article.bd-article :is(${text})`)]
    .filter(e => e.getClientRects().length && !e.closest(inScroller))
    .filter(e => e.scrollWidth > e.clientWidth + 1
                 || e.getBoundingClientRect().right > window.innerWidth + 1)
    .map(e => e.textContent.trim().slice(0, 80));
  const figures = [...document.querySelectorAll("article.bd-article img")].map(i => {
    const a = i.closest("a.image-zoom");
    return {src: i.getAttribute("src"), natural: i.naturalWidth,
            shown: i.getBoundingClientRect().width,
            hint: a ? getComputedStyle(a, "::after").content : ""};
  });
  return {page: de.scrollWidth, viewport: window.innerWidth, cut, figures};
})()
"""

DARK_JS = r"""
(() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; };
  const tables = [...document.querySelectorAll("article div.cell_output .output.text_html")]
    .filter(e => e.querySelector("table")).map(e => ({
      box: box(e), background: getComputedStyle(e).backgroundColor,
      color: getComputedStyle(e.querySelector("td")).color}));
  const figures = [...document.querySelectorAll("article div.cell_output img")].map(i => {
    const cs = getComputedStyle(i);
    return {box: box(i), background: cs.backgroundColor, padding: parseFloat(cs.paddingTop),
            filter: cs.filter};
  });
  return {theme: document.documentElement.dataset.theme,
          background: getComputedStyle(document.body).backgroundColor, tables, figures};
})()
"""


HIDDEN = {"hide-input", "hide-output", "hide-cell"}


def notebook_facts(path: pathlib.Path) -> dict:
    """What the page of this notebook must show, read from the notebook itself."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    outputs = [o for c in code for o in c.get("outputs", [])]
    # Formulas: a `$` in a markdown cell outside code spans and fenced code.
    prose = [re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S) for text in markdown]
    return {
        "title": re.match(r"#\s+(.+)", markdown[0]).group(1).strip(),
        "has_math": any("$" in text for text in prose),
        "pngs": sum("image/png" in o.get("data", {}) for o in outputs),
        "html_tables": sum("".join(o.get("data", {}).get("text/html", "")).count("<table")
                           for o in outputs),
        # Solutions are <details> in markdown; myst-nb folds hide-* code cells in one too.
        "details": sum(text.count("<details") for text in markdown)
        + sum(bool(HIDDEN & set(c.get("metadata", {}).get("tags", []))) for c in code),
        "solutions": sum(len(re.findall(r"<summary>[^\n]*Solution", text)) for text in markdown),
        "launch_source": "".join(code[0]["source"]) if code else "",
        "code_cells": len(code),
    }


def facts(page: str) -> dict:
    return notebook_facts(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))


def rgb(css: str) -> tuple[int, ...]:
    values = [float(v) for v in re.findall(r"[\d.]+", css)]
    return tuple(round(v) for v in values[:3]) + ((values[3],) if len(values) > 3 else ())


def luminance(color: tuple) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in color[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple, b: tuple) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def close_to(a: tuple, b: tuple, tol: int = 8) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a[:3], b[:3]))


@pytest.fixture(scope="module")
def browsed():
    """Every page read in headless Chromium: at 1280 px (light), 1920 px, 1280 px dark
    and 390 px. {page: {"html", "cut": {1280, 1920}, "page", "phone", "dark", ...}}."""
    if not REQUIRED:   # a browser and a built site: `make test-site` runs these checks
        pytest.skip("browser checks of the website run with make test-site")
    from headless import Browser, BrowserError, find_chromium

    if find_chromium() is None:
        unavailable("chromium is not installed (Debian: apt-get install chromium)")
    problem = site_problem()
    if problem:
        unavailable(problem)
    try:
        from bs4 import BeautifulSoup
        from PIL import Image
    except ImportError as e:
        unavailable(f"{e.name} is missing: pip install -e '.[site]'")
    shots = pathlib.Path(SCREENSHOTS) if SCREENSHOTS else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    data: dict = {page: {} for page in PAGES}
    try:
        with Browser() as browser:
            tab = browser.page(1280, 900)

            def capture(box, margin):  # a screenshot of a box of the page, and around it
                top = max(0, box["y"] - 100)            # scrolled into view first: a page
                tab.evaluate(f"window.scrollTo(0, {top})")   # longer than 16k px has no
                tab.settle()                                 # screenshot in one piece
                scrolled = tab.evaluate("window.scrollY")
                height = min(box["h"] + 2 * margin, 900 - (box["y"] - scrolled) - margin)
                clip = {"x": box["x"] - margin, "y": box["y"] - margin, "scale": 1,
                        "width": box["w"] + 2 * margin, "height": height}
                png = tab.send("Page.captureScreenshot", {"format": "png", "clip": clip})["data"]
                return Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB")

            for page in PAGES:   # one load per page: 1280 px, 1920 px, then dark at 1280 px
                stem = pathlib.Path(page).stem
                tab.resize(1280, 900, settle=False)
                tab.set_dark(False, settle=False)
                tab.open((SITE / page).as_uri())
                d = data[page]
                d["html"] = BeautifulSoup(tab.html(), "html.parser")
                d["requests"], d["failed"] = tab.requests, tab.failed
                d["errors"] = tab.console_errors
                d["page"] = tab.evaluate(PAGE_JS)
                if shots:
                    tab.screenshot(shots / f"{stem}-1280.png")
                d["cut"] = {1280: tab.evaluate(BLOCKS_JS)}   # (opens every <details>)
                tab.resize(1920, 1080)
                d["cut"][1920] = tab.evaluate(BLOCKS_JS)
                tab.resize(1280, 900)
                tab.set_dark(True)
                tab.evaluate("document.querySelectorAll('article details')"
                             ".forEach(d => { d.open = false; }); window.scrollTo(0, 0)")
                tab.settle()
                dark = tab.evaluate(DARK_JS)
                for item in dark["tables"]:
                    item["image"] = capture(item["box"], 0)
                for item in dark["figures"]:
                    item["image"] = capture(item["box"], 8)
                d["dark"] = dark
                if shots:
                    tab.screenshot(shots / f"{stem}-1280-dark.png")
            tab.close()
            tab = browser.page(390, 844, mobile=True)
            for page in PAGES:
                tab.open((SITE / page).as_uri())
                data[page]["phone"] = tab.evaluate(PHONE_JS)
                if shots:
                    tab.screenshot(shots / f"{pathlib.Path(page).stem}-390.png")
            tab.close()
    except BrowserError as e:
        raise AssertionError(f"chromium: {e}") from None
    return data


def article(soup):
    main = soup.select_one("article.bd-article") or soup.find("main")
    assert main is not None, "the page has no article: did the theme change?"
    return main


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") or bool(parts.netloc)


def local_target(page: str, href: str, site: pathlib.Path = SITE
                 ) -> tuple[pathlib.Path, str] | None:
    """(file, fragment) an href of `page` points to inside the site; None for a link
    elsewhere or one that names no file (data:, mailto:, javascript:)."""
    parts = urlsplit(href)
    if is_external(href) or parts.scheme not in ("", "file"):
        return None
    if parts.scheme == "file":
        return pathlib.Path(unquote(parts.path)), parts.fragment
    if not parts.path:
        return site / page, parts.fragment
    return (site / page).parent.joinpath(unquote(parts.path)).resolve(), parts.fragment


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


# ---------------------------------------------------------------------------------------
# Content


@pytest.mark.parametrize("page", PAGES)
def test_page_loads(browsed, page):
    soup = browsed[page]["html"]
    h1 = article(soup).find("h1")
    assert h1 is not None, f"{page}: no <h1>"
    if page == "index.html":
        assert heading_text(h1) == "From .g to .grad"
    else:
        assert heading_text(h1) == " ".join(facts(page)["title"].replace("`", "").split()), (
            f"{page}: the page's title is not the notebook's")
    assert soup.title and "From .g to .grad" in soup.title.get_text()
    assert not browsed[page]["errors"], f"{page}: script errors: {browsed[page]['errors'][:3]}"


@pytest.mark.parametrize("page", PAGES[1:])
def test_maths_rendered(browsed, page):
    body = article(browsed[page]["html"])
    maths = body.select("span.math, div.math")
    if facts(page)["has_math"]:
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
def test_figures_and_tables_present(browsed, page):
    body = article(browsed[page]["html"])
    f = facts(page)
    images = body.select("div.cell_output img")
    assert len(images) >= f["pngs"], (
        f"{page}: the notebook has {f['pngs']} PNG figures, the page shows {len(images)}")
    for img in body.find_all("img", src=True):
        assert not is_external(img["src"]), f"{page}: image from another site: {img['src']}"
        path, _ = local_target(page, img["src"]) or (None, None)
        if path is None:
            continue  # an inline data: image
        assert path.is_file(), f"{page}: image file missing: {img['src']}"
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG_MAGIC, f"{page}: not a PNG: {img['src']}"
    tables = body.select("div.cell_output .text_html table")
    assert len(tables) == f["html_tables"], (
        f"{page}: the notebook's HTML outputs hold {f['html_tables']} tables, "
        f"the page shows {len(tables)}")


@pytest.mark.parametrize("page", PAGES[1:])
def test_solutions_collapsed_with_highlighted_code(browsed, page):
    body = article(browsed[page]["html"])
    f = facts(page)
    blocks = body.find_all("details")
    assert len(blocks) == f["details"], (
        f"{page}: the notebook has {f['details']} <details> blocks, the page {len(blocks)}")
    opened = [i for i, block in enumerate(blocks, 1) if block.has_attr("open")]
    assert not opened, f"{page}: <details> blocks {opened} are open when the page loads"
    solutions = [b for b in blocks if "Solution" in (b.summary.get_text() if b.summary else "")]
    assert len(solutions) == f["solutions"], (
        f"{page}: the notebook has {f['solutions']} Solution blocks, the page {len(solutions)}")
    for i, block in enumerate(solutions, 1):
        blocks = block.select("div.highlight pre")   # the code, maybe a ```text verdict too
        assert blocks, f"{page}: solution {i} has no code block inside its <details>"
        assert any(code.find("span", class_=True) for code in blocks), (
            f"{page}: solution {i}'s code is not highlighted")


@pytest.mark.parametrize("page", PAGES[1:])
def test_open_solution_stops_saying_click_to_open(browsed, page):
    for i, s in enumerate(browsed[page]["page"]["summaries"], 1):
        assert "click to open" not in s["opened"].lower(), (
            f"{page}: <details> {i}, opened, still says {s['opened']!r}")
        assert s["closed"].strip() and s["opened"].strip(), f"{page}: <details> {i}: no summary"


def test_navigation_in_course_order(browsed):
    """The theme's Previous/Next buttons and the sidebar run through the course in order."""
    for i, page in enumerate(PAGES):
        soup = browsed[page]["html"]
        nxt, prev = soup.select_one("a.right-next"), soup.select_one("a.left-prev")
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
    sidebar = browsed["index.html"]["html"].select_one("nav.bd-docs-nav")
    assert sidebar is not None, "the landing page has no sidebar navigation"
    assert [p for p in page_links("index.html", sidebar) if p.startswith("notebooks/")] == (
        PAGES[1:]), "the sidebar does not list the notebooks in course order"


@pytest.mark.parametrize("page", PAGES[1:])
def test_footer_links_to_neighbours(browsed, page):
    """A notebook's last cell (**Previous:** / **Next:** / **Back to the start:**) leads
    to the notebooks before and after it, and the last one back to the landing page."""
    i = PAGES.index(page)
    body = article(browsed[page]["html"])
    footers = [p for p in body.find_all("p")
               if re.search(r"\b(Previous|Next|Back to the start):", p.get_text())]
    assert footers, f"{page}: no Previous/Next footer"
    targets = page_links(page, footers[-1])
    expected = ([PAGES[i - 1]] if i > 1 else []) + (
        [PAGES[i + 1]] if i + 1 < len(PAGES) else ["index.html"])
    missing = [p for p in expected if p not in targets]
    assert not missing, f"{page}: the footer does not link to {missing} (it links {targets})"


def test_landing_page(browsed):
    soup = browsed["index.html"]["html"]
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
def test_links_resolve_and_nothing_loads_from_elsewhere(browsed, page):
    soup = browsed[page]["html"]
    for a in soup.find_all("a", href=True):
        target = local_target(page, a["href"])
        if target is None:
            continue
        path, fragment = target
        assert path.exists(), f"{page}: broken link {a['href']!r} ({a.get_text(strip=True)!r})"
        assert path.suffix != ".ipynb", (
            f"{page}: a link to a notebook file (alone it cannot run; the zip is offered): "
            f"{a['href']}")
        if fragment and path.suffix == ".html":
            ids = set(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))
            assert fragment in ids, f"{page}: link {a['href']!r}: no #{fragment} on that page"
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src")):
        for el in soup.find_all(tag, **{attr: True}):
            if tag == "link" and not {"stylesheet", "preload", "icon"} & set(el.get("rel", [])):
                continue
            assert not is_external(el[attr]), (
                f"{page}: <{tag}> loads {el[attr]} from another site; the site must work offline")
    # What the browser really fetched, fonts and MathJax's own loads included.
    elsewhere = [u for u in browsed[page]["requests"]
                 if not u.startswith(("file://", "data:", "about:", "blob:"))]
    assert not elsewhere, f"{page}: fetched from another site: {elsewhere[:3]}"
    outside = [u for u in browsed[page]["requests"] if u.startswith("file://")
               and not pathlib.Path(unquote(urlsplit(u).path)).is_relative_to(SITE)]
    assert not outside, f"{page}: fetched files outside the site: {outside[:3]}"
    assert not browsed[page]["failed"], f"{page}: failed to load: {browsed[page]['failed'][:5]}"


# ---------------------------------------------------------------------------------------
# Reading


@pytest.mark.parametrize("width", [1280, 1920])
@pytest.mark.parametrize("page", PAGES)
def test_nothing_cut_sideways(browsed, page, width):
    """No code block, output block or display equation needs a sideways scroll (the
    notebooks keep code and printed lines within 79 characters, which fit)."""
    cut = browsed[page]["cut"][width]
    report = "\n".join(f"  {c['kind']} in '{c['section']}': {c['scroll']} px in {c['width']} px"
                       + (f", {c['chars']} chars: {c['text']!r}" if c["text"].strip() else "")
                       for c in cut)
    assert not cut, f"{page} at {width} px: {len(cut)} blocks need a sideways scroll:\n{report}"


@pytest.mark.parametrize("page", PAGES)
def test_phone_text_fits(browsed, page):
    """At 390 px code, outputs, tables and equations may scroll in their own box; the
    page itself never scrolls sideways and no paragraph, list or heading is cut."""
    phone = browsed[page]["phone"]
    assert phone["page"] <= phone["viewport"], (
        f"{page} at 390 px: the page is {phone['page']} px wide, it scrolls sideways")
    assert not phone["cut"], f"{page} at 390 px: text cut off: {phone['cut'][:3]}"


@pytest.mark.parametrize("page", PAGES[1:])
def test_figures_readable_or_zoomable(browsed, page):
    """Every figure is shown at >= 60 % of its width, or a click opens it full size."""
    for img in browsed[page]["page"]["images"]:
        if img["natural"] and img["shown"] >= 0.6 * img["natural"]:
            continue
        assert img["zoom"], (f"{page}: {img['src']} is shown at {img['shown']:.0f} px of "
                             f"{img['natural']} and has no link to open it full size")
        src, zoom = local_target(page, img["src"]), local_target(page, img["zoom"])
        assert zoom and src and zoom[0] == src[0], (
            f"{page}: the zoom link of {img['src']} leads to {img['zoom']}, not the image")


@pytest.mark.parametrize("page", PAGES[1:])
def test_phone_figures_say_a_tap_enlarges_them(browsed, page):
    """At 390 px a figure shrunk below 60 % of its width says that a tap opens it full
    size (its labels would be under 9 px otherwise)."""
    for img in browsed[page]["phone"]["figures"]:
        if img["natural"] and img["shown"] < 0.6 * img["natural"]:
            assert "Tap the figure" in img["hint"], (
                f"{page} at 390 px: {img['src']} is shown at {img['shown']:.0f} of "
                f"{img['natural']} px and says nothing about enlarging it")


@pytest.mark.parametrize("page", PAGES[1:])
def test_copy_buttons_on_code_not_outputs(browsed, page):
    info = browsed[page]["page"]
    assert info["code_blocks"], f"{page}: no code block found"
    assert not info["code_without_button"], (
        f"{page}: code blocks without a copy button: {info['code_without_button'][:3]}")
    assert not info["outputs_with_button"], (
        f"{page}: outputs with a copy button: {info['outputs_with_button'][:3]}")


@pytest.mark.parametrize("page", PAGES[1:])
def test_setup_cell_hidden_behind_a_note(browsed, page):
    """The first code cell (tag `launch`) is not on the page; a one-line note right under
    the title says what it does and links to the course's zip."""
    f = facts(page)
    body = article(browsed[page]["html"])
    assert "REPO = " in f["launch_source"], f"{page}: the first code cell is not the launch cell"
    assert not body.select(".tag_launch"), f"{page}: the launch cell is on the page"
    shown = [c.get_text() for c in body.select("div.cell_input")]
    assert len(shown) == f["code_cells"] - 1, (
        f"{page}: {len(shown)} code cells shown for {f['code_cells']} - 1 (launch) in the notebook")
    assert not any("importlib.util" in c or "REPO =" in c for c in shown), (
        f"{page}: the set-up code is on the page")
    notes = body.select("p.launch-note")
    assert len(notes) == 1, f"{page}: {len(notes)} launch notes, expected one"
    assert notes[0].get_text(" ").startswith(LAUNCH_NOTE), f"{page}: {notes[0].get_text()!r}"
    title = body.select_one("h1")
    assert title is not None and title.find_next_sibling() is notes[0], (
        f"{page}: the note is not right under the page's title")
    said = body.get_text(" ").count("bare kernel")
    assert said == 1, f"{page}: the launch cell is explained {said} times, not once"
    link = notes[0].find("a", href=True)
    assert link and local_target(page, link["href"])[0] == SITE / ZIP, (
        f"{page}: the note does not link to the course's zip")


@pytest.mark.parametrize("page", PAGES)
def test_dark_mode(browsed, page):
    """Dark mode, read from a screenshot: an HTML table sits on the page's own
    background (no grey box) in a light, readable colour; a figure sits on a white
    card with a margin, undimmed."""
    dark = browsed[page]["dark"]
    assert dark["theme"] == "dark", f"{page}: prefers-color-scheme: dark did not give dark mode"
    bg = rgb(dark["background"])
    assert luminance(bg) < 0.05, f"{page}: the dark page's background is {dark['background']}"
    for i, table in enumerate(dark["tables"], 1):
        image = table["image"]
        colours = image.getcolors(image.width * image.height)   # [(count, (r, g, b))]
        share = sum(n for n, c in colours if close_to(c, bg)) / (image.width * image.height)
        assert share > 0.6, (f"{page}: table {i}: only {share:.0%} of its box has the page's "
                             f"background {bg}; it sits in a box of its own")
        ratio = contrast(rgb(table["color"]), bg)
        assert ratio >= 7, f"{page}: table {i}: text {table['color']} on {bg}, contrast {ratio:.1f}"
    for i, fig in enumerate(dark["figures"], 1):
        assert fig["filter"] in ("none", ""), f"{page}: figure {i} is dimmed ({fig['filter']})"
        assert fig["padding"] >= 4, f"{page}: figure {i} has no margin on its card"
        image = fig["image"]          # the figure with 8 px of the page around it
        middle = image.height // 2
        edge = image.getpixel((8 + 2, middle))
        assert close_to(edge, (255, 255, 255), 3), (
            f"{page}: figure {i}: its card's edge is {edge}, not white")
        outside = image.getpixel((3, middle))
        assert close_to(outside, bg), f"{page}: figure {i}: around the card is {outside}, not {bg}"


# ---------------------------------------------------------------------------------------
# Running the course: the zip, the repository and its launch buttons


def zip_names(path: pathlib.Path) -> set[str]:
    with zipfile.ZipFile(path) as zf:
        return set(zf.namelist())


@pytest.mark.parametrize("page", PAGES)
def test_course_zip_linked(browsed, page):
    soup = browsed[page]["html"]
    targets = [local_target(page, a["href"]) for a in soup.find_all("a", href=True)]
    assert (SITE / ZIP, "") in targets, f"{page}: no link to the course's zip ({ZIP})"
    links = [a for a in soup.find_all("a", href=True)
             if local_target(page, a["href"]) == (SITE / ZIP, "")]
    assert any("Download the course" in a.get_text(" ") for a in links), (
        f"{page}: no link says 'Download the course'")


def test_course_zip_up_to_date_and_whole(browsed, tmp_path):
    """The site's zip is what tools/course_zip.py makes of the course now, and holds
    every file of the repository but git's and CI's."""
    fresh = tmp_path / ZIP
    course_zip.build(fresh, course_url.repository_url())
    if (SITE / ZIP).read_bytes() != fresh.read_bytes():
        with zipfile.ZipFile(SITE / ZIP) as old, zipfile.ZipFile(fresh) as new:
            crc = {i.filename: i.CRC for i in old.infolist()}
            changed = sorted(set(crc.items()) ^ {(i.filename, i.CRC) for i in new.infolist()})
        raise AssertionError(f"{SITE / ZIP} is not the course as it is now (run make site): "
                             f"{sorted({name for name, _ in changed})[:10]}")
    check_zip_contents(SITE / ZIP)


def check_zip_contents(path: pathlib.Path):
    names = zip_names(path)
    top = course_zip.TOP
    needed = ["README.md", "LICENSE", "Makefile", "pyproject.toml", "environment.yml",
              "helpers/__init__.py", "helpers/checks/__init__.py", "tools/run_notebooks.py",
              "tests/nbval_sanitize.cfg", ".ci/run"]
    for need in needed + [f"notebooks/{nb.name}" for nb in NOTEBOOKS]:
        assert f"{top}/{need}" in names, f"{path.name} lacks {need}"
    assert not [n for n in names if "__pycache__" in n or ".egg-info" in n or n.endswith(".pyc")]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:  # a clone (an unzipped course has no git)
        missing = [f for f in tracked.stdout.splitlines()
                   if not f.startswith(".git") and (ROOT / f).is_file()
                   and f"{top}/{f}" not in names]
        assert not missing, f"{path.name} lacks files of the course: {missing}"


def test_course_zip_contents(tmp_path):
    """The archive tools/course_zip.py makes: every file the course tracks, no caches,
    notebooks whose REPO line says the URL given (runs in `make test` too)."""
    out = tmp_path / ZIP
    course_zip.build(out, TEST_URL)
    check_zip_contents(out)
    with zipfile.ZipFile(out) as zf:
        for nb in NOTEBOOKS:
            inside = json.loads(zf.read(f"{course_zip.TOP}/notebooks/{nb.name}"))
            assert course_url.notebook_url(inside) == TEST_URL
            assert all(len(line) <= 79 for line in "".join(
                course_url.launch_cell(inside)["source"]).splitlines())


def test_notebooks_repo_is_the_course_url():
    """The notebooks' REPO line says pyproject's [project.urls] Repository ("" while the
    course has no public address); `python tools/course_url.py --write` sets them."""
    url = course_url.pyproject_url()
    for nb in NOTEBOOKS:
        found = course_url.notebook_url(json.loads(nb.read_text(encoding="utf-8")))
        assert found == url, (f"{nb.name}: REPO = {found!r}, pyproject.toml says {url!r}: "
                              "run python tools/course_url.py --write")


def launch_targets(soup) -> dict[str, str]:
    """The theme's repository and launch buttons on a page: {text: href}."""
    found = {}
    for a in soup.select("a.btn-source-repository-button"):
        found["Repository"] = a["href"]
    for a in soup.select(".dropdown-launch-buttons a"):
        found[a.get_text(" ", strip=True)] = a["href"]
    return found


def test_no_launch_buttons_without_a_url(browsed):
    """With no repository URL nothing points to one: no repository, Colab or Binder
    button, no 'course repository' link. With one, every page has its buttons."""
    url = course_url.repository_url()
    for page in PAGES:
        soup = browsed[page]["html"]
        buttons = launch_targets(soup)
        if not url:
            assert not buttons, f"{page}: buttons to a repository that does not exist: {buttons}"
            assert not soup.select("a.course-repository"), f"{page}: a repository link"
            hrefs = [a["href"] for a in soup.find_all("a", href=True)]
            dead = [h for h in hrefs if "mybinder.org" in h or "colab.research" in h]
            assert not dead, f"{page}: links to launch services: {dead}"
        else:   # the theme's button (GitHub, GitLab, Bitbucket) or the sidebar's link
            links = [a["href"] for a in soup.select("a.course-repository")]
            page_url = re.sub(r"\.git$", "", url.rstrip("/"))
            assert page_url in [buttons.get("Repository"), *links], (
                f"{page}: no link to the repository {page_url}")


def test_launch_buttons_with_a_test_url(browsed, tmp_path):
    """A site built with a made-up GitHub URL: every page has the repository button,
    every notebook page Colab and Binder buttons opening that notebook of that
    repository; the notebooks in the zip say the URL in REPO."""
    out = tmp_path / "site"
    env = {**os.environ, course_url.ENV: TEST_URL, "COURSE_REPOSITORY_BRANCH": "main"}
    done = subprocess.run([sys.executable, str(ROOT / "website" / "build.py"), str(out)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the site does not build with a URL:\n{done.stderr[-3000:]}"
    from bs4 import BeautifulSoup

    org_repo = "example-org/g-to-grad"
    for page in PAGES:
        soup = BeautifulSoup((out / page).read_text(encoding="utf-8"), "html.parser")
        buttons = launch_targets(soup)
        assert buttons.get("Repository") == TEST_URL, f"{page}: repository button: {buttons}"
        if page == "index.html":
            assert set(buttons) == {"Repository"}, f"{page}: launch buttons on the landing page"
            continue
        path = f"notebooks/{pathlib.Path(page).stem}.ipynb"
        assert buttons.get("Colab") == (
            f"https://colab.research.google.com/github/{org_repo}/blob/main/{path}"), buttons
        assert buttons.get("Binder") == (
            f"https://mybinder.org/v2/gh/{org_repo}/main?urlpath=lab/tree/{path}"), buttons
        assert soup.select_one("p.launch-note") and "rocket" in soup.select_one(
            "p.launch-note").get_text(), f"{page}: the note does not point to the launch buttons"
    with zipfile.ZipFile(out / ZIP) as zf:
        for nb in NOTEBOOKS:
            inside = json.loads(zf.read(f"{course_zip.TOP}/notebooks/{nb.name}"))
            assert course_url.notebook_url(inside) == TEST_URL, f"the zip's {nb.name}: REPO"
    landing = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert TEST_URL in [a["href"] for a in landing.select("a.course-repository")], (
        "the sidebar has no link to the course's repository")


# ---------------------------------------------------------------------------------------
# Weight


def test_landing_page_offers_no_markdown(browsed):
    soup = browsed["index.html"]["html"]
    md = [a["href"] for a in soup.find_all("a", href=True)
          if urlsplit(a["href"]).path.endswith((".md", ".md.txt"))]
    assert not md, f"the landing page offers its markdown source: {md}"
    assert not (SITE / "_sources" / "index.md").exists()


def test_site_is_lean(browsed):
    """<= 10 MB; of MathJax only tex-chtml.js and its fonts, and every math page loads
    that script; no source maps."""
    files = [p for p in SITE.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    biggest = sorted(files, key=lambda p: p.stat().st_size)[-5:]
    assert size <= BUDGET, (f"the site is {size / 1e6:.1f} MB, over {BUDGET / 1e6:.0f} MB; "
                            f"biggest: {[(p.name, p.stat().st_size) for p in biggest]}")
    mathjax = SITE / "_static" / "mathjax"
    shipped = {p.relative_to(mathjax).as_posix() for p in mathjax.rglob("*") if p.is_file()}
    extra = [f for f in shipped if not any(f == m or f.startswith(m + "/") for m in MATHJAX)]
    assert not extra, f"MathJax files no page loads: {sorted(extra)[:5]}"
    maps = [p.name for p in files if p.suffix == ".map"]
    assert not maps, f"source maps on the site: {maps}"
    for page in PAGES[1:]:
        loaded = [u for u in browsed[page]["requests"] if "/_static/mathjax/" in u]
        assert any(u.split("?")[0].endswith("tex-chtml.js") for u in loaded), (
            f"{page}: MathJax not loaded")


@pytest.mark.parametrize("page", PAGES)
def test_favicon(browsed, page):
    icons = [link for link in browsed[page]["html"].find_all("link", href=True)
             if "icon" in link.get("rel", [])]
    assert icons, f"{page}: no favicon"
    path = local_target(page, icons[0]["href"])[0]
    assert path.is_file() and path.stat().st_size > 0, f"{page}: favicon {path} missing"
