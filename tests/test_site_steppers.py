"""Every step-through on the course website, paged through in headless Chromium.

A step-through (`helpers.stepper`) is the one output on the site that runs a script.
Each one found in a committed notebook must be on its page (`data-stepper="N"`), and
at 1280 px and at 390 px (a phone with touch), light and dark, a learner must be able
to page it to its last frame: Next changes the frame and its caption every time, the
slider, the arrow keys (Home, End) and a swipe move it, every label of every frame is
at least 9 px as shown, nothing sticks out sideways, no console error appears and
nothing is requested from the network.

Runs under `make test-site` (SITE_TEST_REQUIRED=1), like tests/test_site.py; the
part that reads only the committed notebooks runs in `make test` too.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

pytest.register_assert_rewrite("site_fixtures")
from site_fixtures import NOTEBOOKS, SITE  # noqa: E402

pytest_plugins = ["site_fixtures"]    # `browser`: the session's Chromium, on a fresh site
MIN_LABEL_PX = 9
MAX_BYTES = 300_000


def steppers_in(nb_path: pathlib.Path) -> list[tuple[int, int, str]]:
    """(cell index, frames, html) of every step-through output in a committed notebook."""
    found = []
    for i, cell in enumerate(json.loads(nb_path.read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            page = "".join(out.get("data", {}).get("text/html", ""))
            for n in re.findall(r'data-stepper="(\d+)"', page):
                found.append((i, int(n), page))
    return found


EXPECTED = {nb.stem: steppers_in(nb) for nb in NOTEBOOKS}


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_committed_step_throughs_are_whole_and_small(nb):
    for cell, n, page in EXPECTED[nb.stem]:
        frames = [int(i) for i in re.findall(r'data-frame="(\d+)"', page)]
        assert frames == list(range(n)), f"{nb.name} cell {cell}: frames {frames}, root says {n}"
        assert len(page.encode()) <= MAX_BYTES, f"{nb.name} cell {cell}: over 300 KB"
        outside = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"https?://|href=|@import|url\(", outside) and all(
            src.startswith("data:") for src in re.findall(r'src="([^"]*)"', page)), (
            f"{nb.name} cell {cell}: a step-through must not fetch anything")


# ---------------------------------------------------------------------------------------
# In the browser. STATE_JS reads every step-through of the page: which frame shows, its
# caption, the counter, whether it overflows, and the smallest label of the shown frame.

STATE_JS = r"""
(() => [...document.querySelectorAll("[data-stepper]")].map(root => {
  const shown = [...root.querySelectorAll("[data-frame]")]
    .filter(f => getComputedStyle(f).display !== "none");
  const f = shown[0];
  const img = f && f.querySelector("img");
  let smallest = 1e9;
  if (img) {    // the frame's SVG: its smallest font size, scaled as the image is shown
    const svg = atob(img.src.split(",")[1]);
    const width = +svg.match(/viewBox="0 0 ([\d.]+)/)[1];
    const sizes = [...svg.matchAll(/font-size:([\d.]+)px/g)].map(m => +m[1]);
    smallest = Math.min(...sizes) * img.getBoundingClientRect().width / width;
  }
  const box = root.getBoundingClientRect();
  const article = root.closest("article") || document.body;
  const bar = root.querySelector(".g2g-controls");
  return {
    n: +root.dataset.stepper, ready: root.hasAttribute("data-ready"),
    shown: shown.map(e => +e.dataset.frame),
    caption: f ? f.querySelector("figcaption").textContent : "",
    count: (root.querySelector(".g2g-count") || {}).textContent,
    controls: !!bar && getComputedStyle(bar).display !== "none",
    note: !!root.querySelector(".g2g-note"),
    smallest, overflow: root.scrollWidth - root.clientWidth,
    right: box.right, room: article.getBoundingClientRect().right,
  };
}))()
"""


def _click(tab, k: int, what: str) -> None:
    tab.evaluate(f'document.querySelectorAll("[data-stepper]")[{k}]'
                 f'.querySelector("[data-step={what}]").click()')


def _key(tab, k: int, key: str, code: int) -> None:
    tab.evaluate(f'document.querySelectorAll("[data-stepper]")[{k}].focus()')
    for kind in ("rawKeyDown", "keyUp"):
        tab.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                            "windowsVirtualKeyCode": code})


def _swipe(tab, k: int, dx: int) -> None:
    box = tab.evaluate(f'(() => {{ const r = document.querySelectorAll("[data-stepper]")[{k}]'
                       '.querySelector(".g2g-frames"); r.scrollIntoView({block: "center"});'
                       ' const b = r.getBoundingClientRect();'
                       ' return [b.x + b.width / 2, b.y + b.height / 2]; })()')
    x, y = box
    tab.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                          "touchPoints": [{"x": x, "y": y}]})
    tab.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                          "touchPoints": [{"x": x + dx, "y": y}]})
    tab.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def page_through(tab, url: str, expected: list[tuple[int, int, str]]) -> list[str]:
    """Page every step-through of `url` to its last frame; return what went wrong."""
    problems: list[str] = []
    tab.open(url)
    state = tab.evaluate(STATE_JS)
    if [s["n"] for s in state] != [n for _, n, _ in expected]:
        return [f"step-throughs on the page {[s['n'] for s in state]}, "
                f"in the notebook {[n for _, n, _ in expected]}"]
    for k, first in enumerate(state):
        n = first["n"]
        if not (first["ready"] and first["controls"] and first["shown"] == [0]
                and not first["note"]):
            problems.append(f"#{k}: not wired up (ready, controls, shown): {first}")
            continue
        captions, smallest = [first["caption"]], first["smallest"]
        for step in range(1, n):
            _click(tab, k, "next")
            s = tab.evaluate(STATE_JS)[k]
            if s["shown"] != [step] or s["count"] != f"{step + 1} / {n}":
                problems.append(f"#{k}: Next to frame {step} shows {s['shown']}, {s['count']}")
                break
            if s["caption"] == captions[-1]:
                problems.append(f"#{k}: frame {step}'s caption is the one before's")
            captions.append(s["caption"])
            smallest = min(smallest, s["smallest"])
            if s["overflow"] > 1 or s["right"] > s["room"] + 1:
                problems.append(f"#{k}: frame {step} sticks out sideways")
        if smallest < MIN_LABEL_PX:
            problems.append(f"#{k}: a label is {smallest:.1f} px as shown")
        _key(tab, k, "Home", 36)
        if tab.evaluate(STATE_JS)[k]["shown"] != [0]:
            problems.append(f"#{k}: Home did not go to the first frame")
        _key(tab, k, "ArrowRight", 39)
        if tab.evaluate(STATE_JS)[k]["shown"] != [min(1, n - 1)]:
            problems.append(f"#{k}: the right arrow key did not step")
        _key(tab, k, "End", 35)
        _key(tab, k, "ArrowLeft", 37)
        if tab.evaluate(STATE_JS)[k]["shown"] != [max(n - 2, 0)]:
            problems.append(f"#{k}: End then the left arrow key did not land on {n - 2}")
        tab.evaluate(f'(() => {{ const s = document.querySelectorAll("[data-stepper]")[{k}]'
                     f'.querySelector("input"); s.value = {n}; '
                     's.dispatchEvent(new Event("input")); })()')
        if tab.evaluate(STATE_JS)[k]["shown"] != [n - 1]:
            problems.append(f"#{k}: the slider did not move to the last frame")
        _click(tab, k, "prev")
        if tab.evaluate(STATE_JS)[k]["shown"] != [max(n - 2, 0)]:
            problems.append(f"#{k}: Previous did not step back")
    outside = [u for u in tab.requests if not u.startswith(("file:", "data:"))]
    if outside:
        problems.append(f"requests to the network: {outside[:3]}")
    if tab.console_errors:
        problems.append(f"console errors: {tab.console_errors[:3]}")
    return problems


PAGES = [nb for nb in NOTEBOOKS if EXPECTED[nb.stem]]


@pytest.mark.parametrize("width, dark", [(1280, False), (1280, True), (390, False),
                                         (390, True)], ids=["1280", "1280-dark", "390",
                                                            "390-dark"])
def test_every_step_through_pages_to_its_end(browser, width, dark):
    assert PAGES, "no committed notebook has a step-through"
    tab = browser.page(width, 844 if width < 500 else 900, dark=dark, mobile=width < 500)
    if width < 500:
        tab.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    problems = []
    for nb in PAGES:
        url = (SITE / "notebooks" / f"{nb.stem}.html").as_uri()
        problems += [f"{nb.stem[:2]}: {p}" for p in page_through(tab, url, EXPECTED[nb.stem])]
        if width < 500:       # a swipe to the left shows the next frame
            tab.open(url)
            _swipe(tab, 0, -120)
            if tab.evaluate(STATE_JS)[0]["shown"] != [1]:
                problems.append(f"{nb.stem[:2]}: a swipe to the left did not step")
    tab.close()
    assert not problems, "\n".join(problems)
