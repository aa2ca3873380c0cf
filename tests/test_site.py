"""The course website (`make site`) in a real browser: headless Chromium on `_site/`.

Each page (the landing page and one per notebook) is opened from disk, as a learner
opens `_site/index.html`, offline (tests/site_fixtures.py reads every page once, at
1280 px light and dark, 1920 px, and 390 px light and dark); the checks read the page
after its scripts ran and MathJax typeset it:

- content: the title; every prose sentence of the notebook on its page, but for the
  short list of what the site hides on purpose (HIDDEN_ON_PURPOSE); every formula
  typeset with no TeX error and no raw `$$`; every figure and HTML table of the
  notebook; every solution a closed <details> with highlighted code whose summary
  stops saying "(click to open)" once open; the links between notebooks (the
  notebook's own Previous/Next, once at the foot of each page, sidebar, course map)
  in course order;
- reading: at 1280 px and 1920 px no code block, output block or display equation
  needs a sideways scroll (solutions opened); at 390 px (a phone) code may scroll,
  text may not; at 390 px every figure's smallest label (estimated from its pixels,
  site_fixtures.label_sizes) is >= 9 px as shown, or one tap shows the figure at full
  size in a box that scrolls sideways, with labels >= 9 px, a hint that says so, and
  a second tap fits it again; at 1280 px every figure is shown at >= 60 % of its width
  or a click enlarges it; copy buttons on code, none on outputs; the set-up cell (tag
  `launch`) hidden behind a one-line note that also says how to get torch's CPU build;
  dark mode: tables on the page's own background, figures on a white card (sampled
  from a screenshot);
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
SITE_TEST_REQUIRED=1, so that `make test` stays fast (it runs the checks that need no
browser); there a missing Chromium, a missing site or a site older than notebooks/
fails with the reason. SITE_SCREENSHOTS=DIR also saves screenshots of every page.
"""

from __future__ import annotations

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

pytest.register_assert_rewrite("site_fixtures")   # before the import: its asserts explain
from site_fixtures import (  # noqa: E402
    NOTEBOOKS,
    PAGES,
    ROOT,
    SITE,
    ZIP,
    article,
    close_to,
    contrast,
    course_url,
    course_zip,
    facts,
    heading_text,
    is_external,
    label_sizes,
    local_target,
    luminance,
    markdown_sentences,
    normalize,
    notebook_sentences,
    page_links,
    rgb,
    site_tools,
    smallest_label,
)

pytest_plugins = ["site_fixtures"]    # the pages, read once in Chromium (`browsed`)

FASTAI_SOURCE = "https://github.com/fastai/course-v3/blob/master/nbs/dl2/02_fully_connected.ipynb"
PYTORCH_SOURCE = "https://pytorch.org/tutorials/beginner/examples_nn/dynamic_net.html"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BUDGET = 10_000_000                    # bytes, the whole site
MATHJAX = {"tex-chtml.js", "output/chtml/fonts/woff-v2"}   # what _static/mathjax/ holds
TEST_URL = "https://github.com/example-org/g-to-grad"
LAUNCH_NOTE = "A hidden first cell installs the course's helpers in a bare kernel."
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CPU_LINE = f"make lab TORCH_INDEX={CPU_INDEX}"

# What the site does not show of a notebook's prose, on purpose, and why. Every other
# sentence of every markdown cell is on the page (test_every_sentence_on_the_page).
LAUNCH_SENTENCE = ("The first cell (collapsed) installs the course's helpers in a bare "
                   "kernel (Colab, VS Code).")
HIDDEN_ON_PURPOSE = {
    LAUNCH_SENTENCE: "the launch cell is hidden; the note under the title says it",
}
# At 390 px: a figure's labels as shown, or after a tap at full size, are at least this.
MIN_LABEL = 9.0
TAP_HINT = "Tap the figure to show it at full size, then scroll it sideways."
TAPPED_HINT = "Tap the figure again to fit it to the screen."


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
def test_every_sentence_on_the_page(browsed, page):
    """Every sentence of the notebook's markdown cells is on its page, as a reader sees
    it (solutions opened, formulas as one token), but for HIDDEN_ON_PURPOSE; and what
    that list hides is hidden."""
    shown = normalize(browsed[page]["prose"])
    sentences = notebook_sentences(SITE / "_sources" / (page[: -len(".html")] + ".ipynb"))
    assert len(sentences) > 20, f"{page}: only {len(sentences)} sentences read"
    missing = [s for s in sentences if s not in shown and s not in HIDDEN_ON_PURPOSE]
    assert not missing, (f"{page}: {len(missing)} of {len(sentences)} sentences of the "
                         "notebook are not on its page:\n" + "\n".join(
                             f"  {s[:150]!r}" for s in missing[:8]))
    for hidden, why in HIDDEN_ON_PURPOSE.items():
        assert hidden not in shown, f"{page}: shows {hidden!r} (hidden on purpose: {why})"


def test_hidden_on_purpose_is_in_every_notebook():
    """What the site hides on purpose is a paragraph of its own in every notebook's
    Set-up, word for word: the site hides that paragraph (website/conf.py) and no
    other sentence."""
    site_tools("bs4", "markdown_it", "mdit_py_plugins")
    for nb in NOTEBOOKS:
        sentences = notebook_sentences(nb)
        for hidden in HIDDEN_ON_PURPOSE:
            assert hidden in sentences, f"{nb.name}: no paragraph says {hidden!r}"


def test_sentences_read_as_shown():
    """How a notebook's markdown is read: rendered, formulas one token, code blocks and
    comments left out, Sphinx's typography undone."""
    site_tools("bs4", "markdown_it", "mdit_py_plugins")
    md = ("## A *head*\n\nThe `.g` of $W_1$ -- see [02](02.ipynb). Next one!\n\n"
          "```python\nx = 1. Not prose.\n```\n\n<!-- a comment. -->\n\n"
          "- one item.\n- two: $a$\n\n$$\nb = 1.\n$$\n\n<details><summary>Solution (click to open)"
          "</summary>\n\nInside it.\n\n</details>\n")
    assert markdown_sentences(md) == [
        "A head", "The .g of⟨math⟩- see 02.", "Next one!", "one item.", "two:⟨math⟩",
        "Solution (click to open)", "Inside it."]
    assert normalize("The \u201cf\u201d \u2013 it\u2019s  \u27e8math\u27e9 .") == (
        "The \"f\" - it's⟨math⟩.")


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
    images = body.select("div.cell_output img:not([data-stepper] img)")
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
    """Previous/Next once at the foot of a page: the notebook's own last cell, no
    buttons of the theme besides it. The sidebar lists the course in order."""
    for page in PAGES:
        soup = browsed[page]["html"]
        buttons = soup.select(".prev-next-area, a.right-next, a.left-prev")
        assert not buttons, f"{page}: the theme's Previous/Next buttons are on the page"
    sidebar = browsed["index.html"]["html"].select_one("nav.bd-docs-nav")
    assert sidebar is not None, "the landing page has no sidebar navigation"
    assert [p for p in page_links("index.html", sidebar) if p.startswith("notebooks/")] == (
        PAGES[1:]), "the sidebar does not list the notebooks in course order"


@pytest.mark.parametrize("page", PAGES[1:])
def test_footer_links_to_neighbours(browsed, page):
    """A notebook's last cell (**Previous:** / **Next:** / **Back to the start:**) ends
    the page, once, and leads to the notebooks before and after it, and the last one
    back to the landing page."""
    i = PAGES.index(page)
    body = article(browsed[page]["html"])
    footers = [p for p in body.find_all("p")
               if re.search(r"\b(Previous|Next|Back to the start):", p.get_text())]
    assert len(footers) == 1, f"{page}: {len(footers)} Previous/Next paragraphs, not one"
    words, last = body.get_text(" ").split(), footers[0].get_text(" ").split()
    assert words[-len(last):] == last, (
        f"{page}: the Previous/Next footer is not the page's end: ...{words[-12:]}")
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
    said = [p.get_text(" ") for p in body.find_all("p") if "make lab" in p.get_text()]
    assert said and CPU_LINE in " ".join(said[0].split()), (
        f"the landing page's first `make lab` has no {CPU_LINE!r} beside it")


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


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("page", PAGES)
def test_phone_text_fits(browsed, page, mode):
    """At 390 px code, outputs, tables and equations may scroll in their own box; the
    page itself never scrolls sideways and no paragraph, list or heading is cut."""
    phone = browsed[page]["phone"][mode]
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


def phone_figures(browsed, page, mode) -> list[dict]:
    """Each figure at 390 px: its smallest label as shown, and after one tap."""
    found = []
    for tap in browsed[page]["taps"][mode]:
        before, full = tap["before"], tap["full"]
        path, _ = local_target(page, before["src"])
        label = smallest_label(path)
        assert label, f"{page}: no label measured in {before['src']}"
        found.append({**tap, "label": label, "src": pathlib.Path(before["src"]).name,
                      "shown_label": label * before["shown"] / before["natural"],
                      "full_label": label * full["shown"] / full["natural"]})
    return found


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("page", PAGES[1:])
def test_phone_figures_readable(browsed, page, mode):
    """At 390 px a figure's smallest label is at least 9 px as shown; or one tap shows
    the figure at full size (labels at least 9 px) in a box that scrolls sideways,
    under a hint that says so, and a second tap fits it to the screen again. A figure
    shown whole at full size is not changed by a tap."""
    figures = phone_figures(browsed, page, mode)
    assert len(figures) == facts(page)["pngs"], f"{page}: not every figure was measured"
    for f in figures:
        before, full, again = f["before"], f["full"], f["again"]
        where = (f"{page} at 390 px ({mode}): {f['src']}, shown at {before['shown']:.0f} of "
                 f"{before['natural']} px (smallest label {f['shown_label']:.1f} px)")
        assert full["url"] == before["url"], f"{where}: a tap left the page"
        assert full["page"] <= full["viewport"], f"{where}: tapped, the page scrolls sideways"
        if before["shown"] >= before["natural"] - 1:
            assert full["shown"] == before["shown"] and before["hint"] in ("", "none"), (
                f"{where}: shown whole, yet a tap or a hint changes it")
            assert f["shown_label"] >= MIN_LABEL, f"{where}: labels under {MIN_LABEL} px"
            continue
        if f["shown_label"] >= MIN_LABEL:
            continue
        assert before["linked"], f"{where}: no tap shows it larger"
        assert before["hint"] == f'"{TAP_HINT}"', f"{where}: its hint is {before['hint']}"
        assert abs(full["shown"] - full["natural"]) <= 1, (
            f"{where}: tapped, it is shown at {full['shown']:.0f} px, not full size")
        assert full["overflow"] in ("auto", "scroll") and full["scroll"] > full["client"], (
            f"{where}: tapped, its box does not scroll sideways")
        assert f["scrolled"] > 0, f"{where}: tapped, it does not scroll sideways"
        assert full["hint"] == f'"{TAPPED_HINT}"', f"{where}: tapped, its hint is {full['hint']}"
        assert f["full_label"] >= MIN_LABEL, (
            f"{where}: at full size its smallest label is {f['full_label']:.1f} px")
        assert abs(again["shown"] - before["shown"]) <= 1 and again["hint"] == before["hint"], (
            f"{where}: a second tap does not fit it to the screen again")


def test_phone_figure_labels_report(browsed, capsys):
    """The smallest label of every figure at 390 px, as shown and after a tap (printed
    under pytest -s, for the record)."""
    rows = []
    for page in PAGES[1:]:
        for f in phone_figures(browsed, page, "light"):
            rows.append(f"{pathlib.Path(page).stem[:2]} {f['src'][:12]} "
                        f"{f['before']['natural']:5d} px -> {f['before']['shown']:4.0f} px: "
                        f"label {f['shown_label']:4.1f} px, tapped {f['full_label']:4.1f} px")
    assert rows
    with capsys.disabled():
        print("\nsmallest figure label at 390 px (as shown, after a tap):\n  "
              + "\n  ".join(rows))


def test_label_sizes_read_matplotlib_text():
    """The label estimate on figures whose text size is known: matplotlib's DejaVu Sans
    from 9 to 29 px (7 to 14 pt at 72, 100 and 150 dpi), black and red, reads from 20 %
    under its size to 12 % over."""
    pytest.importorskip("PIL")
    import matplotlib.pyplot as plt

    for dpi, pt in [(dpi, pt) for dpi in (72, 100, 150) for pt in (7, 8, 9, 10, 11, 12, 14)
                    if pt * dpi / 72 >= 9]:
        fig = plt.figure(figsize=(4, 1), dpi=dpi)
        fig.text(0.02, 0.5, "perfect prediction", fontsize=pt)
        fig.text(0.55, 0.5, "Training loss", fontsize=pt, color="#b22222")
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        em = pt * dpi / 72
        sizes = [size for size, _ in label_sizes(buf.getvalue())]
        assert sizes, f"{pt} pt at {dpi} dpi: no label measured"
        assert all(0.8 * em <= size <= 1.12 * em for size in sizes), (
            f"{pt} pt at {dpi} dpi ({em:.1f} px): read as {sizes}")


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
    assert CPU_LINE in " ".join(notes[0].get_text(" ").split()), (
        f"{page}: the note has no {CPU_LINE!r}")


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


def test_launch_cell_the_same_everywhere_and_names_the_zip():
    """The launch cell is the same in every notebook (but for its REPO line), and the
    instruction it gives a notebook alone names the zip and the words of the link to
    it that every page has (website/_templates/course-links.html)."""
    cells = {nb.name: "".join(course_url.launch_cell(json.loads(
        course_url.filled(nb.read_text(encoding="utf-8"), "")))["source"]) for nb in NOTEBOOKS}
    assert len(set(cells.values())) == 1, f"launch cells differ: {sorted(cells)}"
    cell = next(iter(cells.values()))
    link = (ROOT / "website" / "_templates" / "course-links.html").read_text(encoding="utf-8")
    assert "Download the course" in link
    said = " ".join(cell.split())
    assert ZIP in said and '\\"Download the course\\" on every page' in said, said


def test_readme_gives_the_cpu_build_with_the_first_make_lab():
    """A Linux reader meets torch's CPU build no later than the first `make lab`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.index("make lab")
    assert f"TORCH_INDEX={CPU_INDEX}" in readme[:readme.index("\n", first)], (
        "README: the first `make lab` comes before the CPU-build line")


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
