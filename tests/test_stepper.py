"""helpers.stepper: frames to step through, deterministic and self-contained."""

import base64
import re

import pytest

from helpers.stepper import MAX_BYTES, Canvas, Stepper


def _frames(n=3):
    frames = []
    for i in range(n):
        pic = Canvas(200, 100)
        pic.box(10, 10, 60, 30, f"T{i}", cls="blue", sub="(4, 1)")
        pic.line(70, 25, 120, 25, cls="red hot")
        pic.bar(130, 90, 10, 12.4 + i, cls="orange")
        pic.text(10, 90, "a < b & c", cls="small")
        frames.append((pic, f"step {i}: something happened"))
    return frames


def _svgs(page):
    return [base64.b64decode(b).decode() for b in
            re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]


def test_html_has_one_root_with_the_frame_count_and_every_caption():
    page = Stepper(_frames(3), title="Three steps")._repr_html_()
    assert page.count("data-stepper=") == 1 and 'data-stepper="3"' in page
    assert [int(i) for i in re.findall(r'data-frame="(\d+)"', page)] == [0, 1, 2]
    assert all(f"step {i}: something happened" in page for i in range(3))
    assert 'data-step="prev"' in page and 'data-step="next"' in page   # built by the script
    assert len(_svgs(page)) == 3 and all(svg.startswith("<svg xmlns") for svg in _svgs(page))
    # without the script: the first frame only, and what to do
    assert page.count("display:none") == 2 and "Run this cell to step through all 3 frames" in page


def test_same_frames_same_bytes_and_nothing_fetched():
    a, b = Stepper(_frames(), title="t"), Stepper(_frames(), title="t")
    assert a._repr_html_() == b._repr_html_() and repr(a) == repr(b)
    page = a._repr_html_()
    outside = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?://|href=|@import|url\(", outside)
    assert all(src.startswith("data:image/svg+xml;base64,")
               for src in re.findall(r'src="([^"]*)"', page))
    assert not any(re.search(r"https?://(?!www.w3.org/2000/svg)|href=", svg) for svg in _svgs(page))
    assert not re.search(r'\bid="', page)          # no ids that could collide or vary


def test_text_is_escaped_and_numbers_rounded():
    page = Stepper(_frames(1), title="<T>")._repr_html_()
    [svg] = _svgs(page)
    assert "a &lt; b &amp; c" in svg and "&lt;T&gt;" in page
    assert 'height="12"' in svg                     # the bar: 12.4 units, rounded


def test_plain_text_transcript_numbers_the_captions_within_79_columns():
    long = "a caption that is rather long and goes on " * 2
    text = repr(Stepper([(Canvas(10, 10), long.strip())] * 2, title="T"))
    lines = text.splitlines()
    assert lines[0] == "T (2 frames)" and lines[1].startswith("1. a caption")
    assert max(map(len, lines)) <= 79 and len(lines) == 5


@pytest.mark.parametrize("frames, match", [
    ([], "non-empty list"),
    ("<svg/>", "non-empty list"),
    ([Canvas(10, 10)], "frame 0 is a Canvas, not a"),
    ([(Canvas(10, 10), "")], "frame 0 has no caption"),
    ([(Canvas(10, 10), "two\nlines")], "one line"),
    ([(Canvas(10, 10), "x" * 121)], "at most 120"),
    ([(None, "a caption")], "frame 0's picture is a NoneType"),
])
def test_bad_frames_get_a_sentence(frames, match):
    with pytest.raises((TypeError, ValueError), match=match):
        Stepper(frames, title="t")


def test_too_big_is_refused():
    pic = Canvas(100, 100)
    for i in range(MAX_BYTES // 40):
        pic.text(i % 100, 50, "xxxxxxxxxx")
    with pytest.raises(ValueError, match="over 300,000"):
        Stepper([(pic, "big")], title="t")


def test_canvas_refuses_bad_input():
    with pytest.raises(ValueError, match="positive size"):
        Canvas(0, 10)
    with pytest.raises(ValueError, match="anchor"):
        Canvas(10, 10).text(0, 0, "x", anchor="left")
    with pytest.raises(ValueError, match="two points"):
        Canvas(10, 10).path([(0, 0)])
