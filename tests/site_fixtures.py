"""What the website's tests share: the built site read in headless Chromium, and what
each page must show, read from the notebooks.

tests/test_site*.py use it with

    pytest_plugins = ["site_fixtures"]        # the `browsed` fixture, read once
    from site_fixtures import PAGES, article, ...

`browsed` opens every page of `_site/` (or $SITE_DIR) from disk, as a learner opens
`_site/index.html`, offline, through tools/headless.py (the DevTools protocol), once for
the whole test session: at 1280 px (light), 1920 px, 1280 px dark, and at 390 px (a
phone) light and dark, where it also taps every figure. It runs only under `make
test-site` (SITE_TEST_REQUIRED=1), which builds the site first; there a missing
Chromium, a missing site or a site older than notebooks/ fails with the reason.
SITE_SCREENSHOTS=DIR saves a screenshot of every page at 1280 px (light, dark) and
390 px (light, dark, and with its first figure tapped).

A page that needs more than `browsed` reads opens its own tab: `browser()` gives
the session's Chromium (started on first use).
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import json
import os
import pathlib
import re
import sys
import unicodedata
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
PAGES = ["index.html"] + [f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS]
ZIP = course_zip.NAME
PHONE = (390, 844)


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
# the page after MathJax has typeset it. Step-through frames (images inside
# [data-stepper]) are not figures: tests/test_site_steppers.py pages through them.

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
  const images = [...article.querySelectorAll("img:not([data-stepper] img)")].map(i => ({
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
  return {page: de.scrollWidth, viewport: window.innerWidth, cut,
          figures: document.querySelectorAll(
            "article.bd-article div.cell_output img:not([data-stepper] img)").length};
})()
"""

# One figure of a notebook's outputs (the i-th), scrolled into view: how wide it is
# shown (its content box, without the dark mode's card), whether its link scrolls
# sideways, the hint under it, and where a tap on it lands.
FIGURE_JS = r"""
((i) => {
  const img = document.querySelectorAll(
    "article.bd-article div.cell_output img:not([data-stepper] img)")[i];
  const a = img.closest("a.image-zoom");
  const box = a || img;
  if (!img.dataset.seen) { box.scrollIntoView({block: "center"}); img.dataset.seen = 1; }
  const cs = getComputedStyle(img);
  const px = p => parseFloat(cs[p]) || 0;
  const r = img.getBoundingClientRect();
  const frame = box.getBoundingClientRect();
  const left = Math.max(r.left, frame.left, 0), right = Math.min(r.right, frame.right, innerWidth);
  const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  return {
    src: img.getAttribute("src"), natural: img.naturalWidth,
    shown: r.width - px("paddingLeft") - px("paddingRight")
           - px("borderLeftWidth") - px("borderRightWidth"),
    linked: !!a, hint: a ? getComputedStyle(a, "::after").content : "",
    scroll: box.scrollWidth, client: box.clientWidth,
    overflow: getComputedStyle(box).overflowX,
    page: document.documentElement.scrollWidth, viewport: innerWidth,
    url: location.href, x: (left + right) / 2, y: (top + bottom) / 2,
  };
})
"""

SCROLL_FIGURE_JS = r"""
((i) => {
  const img = document.querySelectorAll(
    "article.bd-article div.cell_output img:not([data-stepper] img)")[i];
  const a = img.closest("a.image-zoom");
  if (!a) return 0;
  a.scrollLeft = a.scrollWidth;
  const moved = a.scrollLeft;
  a.scrollLeft = 0;
  return moved;
})
"""

# The article's text as a reader can see it: with every <details> closed (the
# summaries), then open (what they fold); a formula stands as one ⟨math⟩ (the
# notebooks' side is read the same way, see notebook_sentences).
PROSE_JS = r"""
(() => {
  const article = document.querySelector("article.bd-article");
  article.querySelectorAll("mjx-container").forEach(
    m => m.replaceWith(document.createTextNode(" \u27e8math\u27e9 ")));
  const details = [...article.querySelectorAll("details")];
  details.forEach(d => { d.open = false; });
  const closed = article.innerText;
  details.forEach(d => { d.open = true; });
  const opened = article.innerText;
  details.forEach(d => { d.open = false; });
  return closed + "\n" + opened;
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
  const figures = [...document.querySelectorAll(
      "article div.cell_output img:not([data-stepper] img)")].map(i => {
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


# ---------------------------------------------------------------------------------------
# Prose: every sentence of a notebook's markdown, as a reader reads it.

MATH = "\u27e8math\u27e9"
BLOCKS = ["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "summary", "th", "td", "dt", "dd"]
TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                            "\u2013": "-", "\u2014": "-", "\u00a0": " ", "\u2026": "..."})


def normalize(text: str) -> str:
    """Text compared as words: Sphinx's typography (curly quotes, dashes from -- and
    ---, an ellipsis) undone, runs of white space one space, a formula one ⟨math⟩."""
    text = unicodedata.normalize("NFC", text).translate(TYPOGRAPHY)
    text = re.sub(r"-{2,}", "-", text)
    text = re.sub(r"\s+", " ", text)
    return re.sub(rf"\s*{MATH}\s*", MATH, text).strip()


def site_tools(*modules: str) -> None:
    """Skip a test without the `site` extra's modules; under `make test-site` fail."""
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            if REQUIRED:
                unavailable(f"{module} is missing: pip install -e '.[site]'")
            pytest.skip(f"{module} is missing (the site extra: make site)")


@functools.lru_cache(maxsize=1)
def _markdown():
    """markdown-it as MyST and JupyterLab read a markdown cell: CommonMark, HTML, tables,
    $...$ and $$...$$ maths, amsmath environments."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark", {"html": True}).enable("table").use(
        dollarmath_plugin).use(amsmath_plugin)


def markdown_sentences(markdown: str) -> list[str]:
    """The sentences of one markdown cell as its reader sees them in JupyterLab: the
    cell rendered (markdown-it, with the notebooks' $...$ maths), each paragraph,
    list item, heading, summary or table cell split after . ! or ?; code blocks and
    HTML comments are not prose."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(_markdown().render(markdown), "html.parser")
    for node in soup.find_all(string=lambda s: isinstance(s, Comment)):
        node.extract()
    for node in soup.find_all("pre"):
        node.extract()
    for node in soup.select(".math, .amsmath"):
        node.replace_with(f" {MATH} ")
    sentences = []
    for block in soup.find_all(BLOCKS):
        block = copy.copy(block)
        for inner in block.find_all(BLOCKS):   # a nested list item is a block of its own
            inner.extract()
        text = normalize(block.get_text(""))
        sentences += [s for s in re.split(r"(?<=[.!?])\s+(?=\S)", text) if s.strip(" .")]
    return sentences


def notebook_sentences(path: pathlib.Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [s for cell in nb["cells"] if cell["cell_type"] == "markdown"
            for s in markdown_sentences("".join(cell["source"]))]


# ---------------------------------------------------------------------------------------
# Figures: how big their text is. A notebook's figure is a PNG drawn by matplotlib
# (DejaVu Sans); its smallest label is estimated from the picture itself.

ASCENDER = 0.76      # DejaVu Sans: b, d, f, h, k, l reach 0.76 em above the baseline
                     # (capitals and digits 0.73): dividing by 0.76 never overstates


def _components(mask) -> list[tuple[int, int, int, int]]:
    """The 8-connected components of a boolean image: (top, left, bottom, right)."""
    import numpy as np

    h, w = mask.shape
    seen = np.zeros((h, w), dtype=bool)
    boxes = []
    for y0, x0 in zip(*np.nonzero(mask)):
        y0, x0 = int(y0), int(x0)
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        stack, top, left, bottom, right = [(y0, x0)], y0, x0, y0, x0
        while stack:
            y, x = stack.pop()
            top, bottom = min(top, y), max(bottom, y)
            left, right = min(left, x), max(right, x)
            for yy in (y - 1, y, y + 1):
                if 0 <= yy < h:
                    for xx in (x - 1, x, x + 1):
                        if 0 <= xx < w and mask[yy, xx] and not seen[yy, xx]:
                            seen[yy, xx] = True
                            stack.append((yy, xx))
        boxes.append((top, left, bottom + 1, right + 1))
    return boxes


def label_sizes(png: bytes) -> list[tuple[float, tuple[int, int, int, int]]]:
    """The font size (em, in the image's pixels) of each run of text in a figure that
    has both short letters and tall ones on one baseline, with its box.

    Ink is what is at least 60 levels darker than the lightest pixel within 4 px (text
    in any dark colour, on white or a light box); a glyph is a piece of ink at most
    40 px either way and not a filled blob (a marker); its top and bottom are where it
    covers half a pixel. Glyphs on one baseline, close together, are a run of text;
    its tallest letter (an ascender, a capital or a digit, with x-height letters
    beside it at 0.55 to 0.85 of its height) gives the size. Runs of only short
    letters, only digits, white text on a dark box, and rotated text are not measured.
    matplotlib's text of 9 px and more reads from 20 % under its size to 12 % over
    (tests/test_site.py)."""
    import numpy as np
    from PIL import Image, ImageFilter

    gray = Image.open(io.BytesIO(png)).convert("L")
    lum = np.asarray(gray).astype(int)
    dark = np.asarray(gray.filter(ImageFilter.MaxFilter(9))).astype(int) - lum
    ink = dark >= 60
    glyphs = []
    for t, x0, b, x1 in _components(ink):
        h, w = b - t, x1 - x0
        if not (3 <= h <= 40 and w <= 40) or (min(h, w) > 3 and ink[t:b, x0:x1].mean() > 0.6):
            continue
        t0, b0 = max(t - 1, 0), min(b + 1, lum.shape[0])
        rows = np.nonzero((dark[t0:b0, x0:x1] >= 0.5 * dark[t:b, x0:x1].max()).any(axis=1))[0]
        glyphs.append((t0 + int(rows[0]), x0, t0 + int(rows[-1]) + 1, x1))
    runs: list[dict] = []
    for g in sorted(glyphs, key=lambda g: g[1]):
        h = g[2] - g[0]
        for run in runs:
            overlap = min(run["b"], g[2]) - max(run["t"], g[0])
            height = run["b"] - run["t"]
            if (overlap >= 0.5 * min(h, height)
                    and -1 <= g[1] - run["r"] <= 0.8 * max(h, height) + 1):
                run["glyphs"].append(g)
                run["t"], run["b"], run["r"] = min(run["t"], g[0]), max(run["b"], g[2]), max(
                    run["r"], g[3])
                break
        else:
            runs.append({"t": g[0], "b": g[2], "r": g[3], "glyphs": [g]})
    sizes = []
    for run in runs:
        bottoms = [g[2] for g in run["glyphs"]]
        base = max(set(bottoms), key=lambda v: (sum(abs(x - v) <= 1 for x in bottoms), v))
        heights = sorted(base - g[0] for g in run["glyphs"] if abs(g[2] - base) <= 1)
        tall = heights[-1]
        if tall < 5 or not any(0.55 <= h / tall <= 0.85 for h in heights):
            continue
        box = (base - tall, min(g[1] for g in run["glyphs"]), base, run["r"])
        sizes.append(((tall - 0.5) / ASCENDER, box))
    return sizes


@functools.lru_cache(maxsize=None)
def smallest_label(path: pathlib.Path) -> float | None:
    """The font size (px of the image) of the smallest text measured in a figure."""
    sizes = label_sizes(path.read_bytes())
    return min(size for size, _ in sizes) if sizes else None


# ---------------------------------------------------------------------------------------
# Colours


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


# ---------------------------------------------------------------------------------------
# The browser


@pytest.fixture(scope="session")
def browser():
    """The session's headless Chromium (tools/headless.py)."""
    if not REQUIRED:   # a browser and a built site: `make test-site` runs these checks
        pytest.skip("browser checks of the website run with make test-site")
    from headless import Browser, BrowserError, find_chromium

    if find_chromium() is None:
        unavailable("chromium is not installed (Debian: apt-get install chromium)")
    problem = site_problem()
    if problem:
        unavailable(problem)
    try:
        import bs4  # noqa: F401
        import markdown_it  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError as e:
        unavailable(f"{e.name} is missing: pip install -e '.[site]'")
    try:
        chromium = Browser()
    except BrowserError as e:
        raise AssertionError(f"chromium: {e}") from None
    with chromium:
        yield chromium


def tap_figures(tab, shots: pathlib.Path | None, stem: str) -> list[dict]:
    """Each figure of the page as shown, after one tap on it, scrolled sideways as
    far as it goes, and after a second tap."""
    taps = []
    for i in range(tab.evaluate(PHONE_JS)["figures"]):
        state = f"({FIGURE_JS})({i})"
        before = tab.evaluate(state)
        tab.click(before["x"], before["y"])
        full = tab.evaluate(state)
        scrolled = tab.evaluate(f"({SCROLL_FIGURE_JS})({i})")
        if shots and i == 0:
            tab.screenshot(shots / f"{stem}-390-tapped.png")
        tab.click(full["x"], full["y"])
        taps.append({"before": before, "full": full, "scrolled": scrolled,
                     "again": tab.evaluate(state)})
    return taps


@pytest.fixture(scope="session")
def browsed(browser):
    """Every page read in headless Chromium: at 1280 px (light), 1920 px, 1280 px dark
    and 390 px, light and dark. {page: {"html", "cut": {1280, 1920}, "page", "dark",
    "phone": {"light", "dark"}, "taps": {"light", "dark"}, "prose", ...}}."""
    from headless import BrowserError

    try:
        return _browse(browser)
    except BrowserError as e:
        raise AssertionError(f"chromium: {e}") from None


def _browse(browser) -> dict:
    from bs4 import BeautifulSoup
    from PIL import Image

    shots = pathlib.Path(SCREENSHOTS) if SCREENSHOTS else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    data: dict = {page: {"phone": {}, "taps": {}} for page in PAGES}
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
    for mode in ("light", "dark"):
        tab = browser.page(*PHONE, dark=mode == "dark", mobile=True)
        for page in PAGES:
            stem = pathlib.Path(page).stem + ("-dark" if mode == "dark" else "")
            tab.open((SITE / page).as_uri())
            data[page]["phone"][mode] = tab.evaluate(PHONE_JS)
            data[page]["errors"] += tab.console_errors
            if shots:
                tab.screenshot(shots / f"{stem}-390.png")
            data[page]["taps"][mode] = tap_figures(tab, shots, stem)
            if mode == "light":
                data[page]["prose"] = tab.evaluate(PROSE_JS)
        tab.close()
    return data


# ---------------------------------------------------------------------------------------
# Reading a page


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
