"""A step-through: frames a learner pages through, one cell output.

    frames = []
    for event in recorded_events:          # the order things really happened in
        pic = Canvas(360, 200)
        pic.box(20, 20, 80, 30, "T0", cls="blue")
        frames.append((pic, "lin1 is called: it stores inp, makes out"))
    Stepper(frames, title="One forward pass")   # last line of a cell: shown

The output is one HTML block (Previous/Next buttons, a slider, the arrow keys,
a swipe on a touch screen, and a one-line caption per frame) plus a plain-text
transcript of the captions. Both are deterministic: the same frames give the
same bytes (no random ids, no timestamps, numbers rounded by `Canvas`), so
strict nbval compares them like any other output. Nothing is fetched: each
frame is an SVG image inside the output (a ``data:`` URI, drawn on a white card
in any theme), and the script is a few lines inline. JupyterLab shows an
untrusted notebook's outputs without scripts: there the first frame shows, with
"Run this cell to step through all N frames" (running it makes the output
trusted).

Its root element carries ``data-stepper="N"`` (N frames), each frame
``data-frame="i"`` (from 0); the script adds the controls, the buttons
``data-step="prev"``/``"next"``.
"""

from __future__ import annotations

import base64
import html
import re
import textwrap
from collections.abc import Sequence

__all__ = ["Canvas", "Stepper"]

MAX_BYTES = 300_000          # one step-through output, at most
MAX_CAPTION = 120            # characters: one line of a laptop's text column


def _n(v: float) -> str:
    """A coordinate as short, reproducible text: one decimal, no trailing zeros."""
    s = f"{round(float(v), 1):.1f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class Canvas:
    """One frame: a small SVG picture built from boxes, text and arrows.

    Coordinates are SVG units, (0, 0) at the top left; `width` x `height` is the
    picture's size. Keep frames narrow (at most 360 units wide) and text at its
    default 13 units (``small`` is 11), so that a phone, which shows a frame about
    342 px wide, shows every label at 10 px or more. `cls` names
    the look, from the stepper's style sheet: a colour (``blue``, ``red``,
    ``orange``, ``green``, ``grey``), plus ``hot`` (drawn thick: what just
    changed), ``dashed``, ``faint``, ``bold``, ``small``, ``mono``.
    """

    def __init__(self, width: float, height: float):
        if width <= 0 or height <= 0:
            raise ValueError(f"a Canvas needs a positive size, got {width} x {height}")
        self.width, self.height = width, height
        self._items: list[str] = []

    def _add(self, tag: str, cls: str, attrs: dict[str, float | str], body: str = "") -> None:
        parts = [tag] + ([f'class="{html.escape(cls)}"'] if cls else [])
        parts += [f'{k.replace("_", "-")}="{_n(v) if isinstance(v, (int, float)) else v}"'
                  for k, v in attrs.items()]
        self._items.append(f"<{' '.join(parts)}>{body}</{tag}>" if body
                           else f"<{' '.join(parts)}/>")

    def box(self, x: float, y: float, w: float, h: float, label: str = "", *,
            cls: str = "", sub: str = "") -> None:
        """A rounded box, its top left at (x, y), with a centred label (and a smaller
        second line, `sub`)."""
        self._add("rect", f"box {cls}".strip(), dict(x=x, y=y, width=w, height=h, rx=5))
        if label and sub:
            self.text(x + w / 2, y + h / 2 - 3, label, cls=cls, anchor="middle")
            self.text(x + w / 2, y + h / 2 + 12, sub, cls=f"{cls} small", anchor="middle")
        elif label:
            self.text(x + w / 2, y + h / 2 + 4.5, label, cls=cls, anchor="middle")

    def text(self, x: float, y: float, s: str, *, cls: str = "", anchor: str = "start") -> None:
        """Text with its baseline at y; `anchor` is start, middle or end."""
        if anchor not in ("start", "middle", "end"):
            raise ValueError(f"anchor must be start, middle or end, got {anchor!r}")
        attrs: dict[str, float | str] = dict(x=x, y=y)
        if anchor != "start":
            attrs["text_anchor"] = anchor
        self._add("text", f"label {cls}".strip(), attrs, html.escape(str(s)))

    def line(self, x1: float, y1: float, x2: float, y2: float, *, cls: str = "",
             arrow: bool = True) -> None:
        """A straight line, with an arrow head at (x2, y2) unless `arrow` is False."""
        attrs: dict[str, float | str] = dict(x1=x1, y1=y1, x2=x2, y2=y2)
        self._add("line", f"edge {cls}".strip(), attrs)
        if arrow:
            self._head(x1, y1, x2, y2, cls)

    def path(self, points: Sequence[tuple[float, float]], *, cls: str = "",
             arrow: bool = True) -> None:
        """A polyline through `points`, with an arrow head at the last one."""
        if len(points) < 2:
            raise ValueError("a path needs at least two points")
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self._add("polyline", f"edge {cls}".strip(), dict(points=pts))
        if arrow:
            (x1, y1), (x2, y2) = points[-2], points[-1]
            self._head(x1, y1, x2, y2, cls)

    def _head(self, x1: float, y1: float, x2: float, y2: float, cls: str) -> None:
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5 or 1.0
        ux, uy = dx / length, dy / length
        size = 7.0
        bx, by = x2 - ux * size, y2 - uy * size
        pts = [(x2, y2), (bx - uy * size * 0.5, by + ux * size * 0.5),
               (bx + uy * size * 0.5, by - ux * size * 0.5)]
        self._add("polygon", f"head {cls}".strip(),
                  dict(points=" ".join(f"{_n(x)},{_n(y)}" for x, y in pts)))

    def bar(self, x: float, y0: float, w: float, value: float, *, cls: str = "") -> None:
        """A bar of width `w` from the baseline y0, `value` units up (down if negative).
        The height is rounded to whole units, so that rounding noise in `value`
        cannot change the picture's bytes."""
        h = round(float(value))
        self._add("rect", f"bar {cls}".strip(),
                  dict(x=x, y=y0 - max(h, 0), width=w, height=abs(h)))

    def svg(self) -> str:
        """The picture as a standalone SVG document: a white card with its own style sheet
        (it is shown as an image, which sees no page styles)."""
        w, h = _n(self.width), _n(self.height)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
                f'width="{w}" height="{h}"><style>{_SVG_STYLE}</style>'
                f'<rect width="100%" height="100%" fill="#fff"/>'
                + "".join(self._items) + "</svg>")


# Frames are drawn on a white card in every theme, as the course's figures are.
_SVG_STYLE = (
    "text{font-family:sans-serif;font-size:13px;fill:#1a1a1a}"
    ".small{font-size:11px}.bold{font-weight:bold}.mono{font-family:monospace}"
    ".box{fill:#f2f2f2;stroke:#444;stroke-width:1.2}"
    ".edge{stroke:#444;stroke-width:1.4;fill:none}.head{fill:#444}"
    ".bar{fill:#444;opacity:.6}.dashed{stroke-dasharray:5 3}.faint{opacity:.35}"
    ".hot{stroke-width:2.8}text.hot{font-weight:bold}"
    ".box.blue{fill:#dbe9f6;stroke:#1f77b4}.box.red{fill:#fbe0e0;stroke:#c62828}"
    ".box.orange{fill:#fff0dc;stroke:#e8710a}.box.green{fill:#dff3df;stroke:#2e7d32}"
    ".box.grey{fill:#eee;stroke:#777}"
    ".edge.blue{stroke:#1f77b4}.head.blue,.bar.blue,text.blue{fill:#1f5f99}"
    ".edge.red{stroke:#c62828}.head.red,.bar.red,text.red{fill:#b71c1c}"
    ".edge.orange{stroke:#e8710a}.head.orange,.bar.orange{fill:#e8710a}text.orange{fill:#b35400}"
    ".edge.green{stroke:#2e7d32}.head.green,.bar.green,text.green{fill:#2e7d32}"
    ".edge.grey{stroke:#777}.head.grey,.bar.grey{fill:#777}text.grey{fill:#555}"
)


# The controls' look; where a viewer strips <style> (an untrusted notebook in
# JupyterLab) the script is stripped too, and only the first frame shows, with a note.
_STYLE = """<style>
.g2g-stepper{max-width:520px;margin:.5em 0;outline:none}
.g2g-stepper:focus-visible{box-shadow:0 0 0 2px #1f77b4;border-radius:4px}
.g2g-stepper img{display:block;width:100%;height:auto;border-radius:4px}
.g2g-stepper figcaption{margin-top:.3em;min-height:2.6em;line-height:1.3}
.g2g-controls{display:flex;align-items:center;gap:.5em;margin-top:.3em}
.g2g-controls button{font:inherit;padding:.3em .7em;min-height:2.2em;cursor:pointer;
 border:1px solid currentColor;border-radius:4px;background:transparent;color:inherit}
.g2g-controls button:disabled{opacity:.35;cursor:default}
.g2g-controls input{flex:1;min-width:4em}
.g2g-count{font-variant-numeric:tabular-nums;white-space:nowrap}
</style>"""

# Wires up every step-through of the page not yet wired (`data-ready` marks those):
# JupyterLab runs each output's script, the site each page's. It builds the controls,
# so that a viewer without scripts shows no dead buttons.
_SCRIPT = """<script>(function(){
document.querySelectorAll("[data-stepper]:not([data-ready])").forEach(function(root){
root.setAttribute("data-ready","");
var fs=root.querySelectorAll("[data-frame]"),n=fs.length,i=0,
bar=document.createElement("div");bar.className="g2g-controls";
bar.innerHTML='<button type="button" data-step="prev" aria-label="previous step">'+
'&#9664; Previous</button><input type="range" min="1" max="'+n+'" value="1" step="1" '+
'aria-label="step"><span class="g2g-count"></span><button type="button" '+
'data-step="next" aria-label="next step">Next &#9654;</button>';
root.appendChild(bar);
var note=root.querySelector(".g2g-note");if(note)note.remove();
var s=bar.querySelector("input"),c=bar.querySelector(".g2g-count"),
p=bar.querySelector("[data-step=prev]"),q=bar.querySelector("[data-step=next]");
function show(k){i=Math.max(0,Math.min(n-1,k));
for(var j=0;j<n;j++){fs[j].style.display=j===i?"":"none";}
s.value=i+1;c.textContent=(i+1)+" / "+n;p.disabled=i===0;q.disabled=i===n-1;}
p.addEventListener("click",function(){show(i-1);});
q.addEventListener("click",function(){show(i+1);});
s.addEventListener("input",function(){show(s.value-1);});
root.addEventListener("keydown",function(e){if(e.target===s)return;
var k={ArrowLeft:i-1,ArrowRight:i+1,Home:0,End:n-1}[e.key];
if(k!==undefined){e.preventDefault();e.stopPropagation();show(k);}});
var x0=null,box=root.querySelector(".g2g-frames");
box.addEventListener("touchstart",function(e){x0=e.touches[0].clientX;},{passive:true});
box.addEventListener("touchend",function(e){if(x0===null)return;
var dx=e.changedTouches[0].clientX-x0;x0=null;
if(Math.abs(dx)>40)show(dx<0?i+1:i-1);});
show(0);});})();</script>"""


class Stepper:
    """Frames to page through, each a `Canvas` (or an ``<svg>`` string) and a caption.

    `frames` is a sequence of ``(picture, caption)`` pairs, in the order the
    events happened; a caption is one line (at most 120 characters) saying what
    just happened. `title` names the whole sequence. Shown as the last value of
    a notebook cell, it renders as HTML in JupyterLab and on the site, and as
    its numbered captions in plain text.
    """

    def __init__(self, frames: Sequence[tuple[Canvas | str, str]], *, title: str):
        if isinstance(frames, (str, bytes)) or not isinstance(frames, Sequence) or not frames:
            raise ValueError("Stepper needs a non-empty list of (picture, caption) pairs")
        self.title = str(title)
        self.frames: list[tuple[str, str]] = []
        self._widths: list[float] = []
        for i, pair in enumerate(frames):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"frame {i} is a {type(pair).__name__}, not a (picture, "
                                "caption) pair")
            pic, caption = pair
            svg = pic.svg() if isinstance(pic, Canvas) else pic
            if not (isinstance(svg, str) and svg.startswith("<svg")):
                raise TypeError(f"frame {i}'s picture is a {type(pic).__name__}, not a "
                                "Canvas or an <svg> string")
            if not isinstance(caption, str) or not caption.strip():
                raise ValueError(f"frame {i} has no caption: say what just happened")
            if "\n" in caption or len(caption) > MAX_CAPTION:
                raise ValueError(f"frame {i}'s caption must be one line of at most "
                                 f"{MAX_CAPTION} characters, got {len(caption)}: {caption!r}")
            self.frames.append((svg, caption))
            self._widths.append(float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1)) * 1.45
                                if 'viewBox="0 0 ' in svg else 520)
        size = len(self._repr_html_().encode())
        if size > MAX_BYTES:
            raise ValueError(f"this step-through is {size:,} bytes, over {MAX_BYTES:,}: "
                             "fewer or simpler frames")

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def captions(self) -> list[str]:
        return [caption for _, caption in self.frames]

    def _repr_html_(self) -> str:
        n = len(self.frames)
        figures = "".join(
            f'<figure data-frame="{i}" style="margin:0{"" if i == 0 else ";display:none"}">'
            f'<img src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}" '
            f'alt="{html.escape(caption)}" style="width:100%;max-width:{_n(width)}px">'
            '<figcaption style="text-align:left;color:inherit;font-size:inherit">'
            f"<b>{i + 1}/{n}</b> {html.escape(caption)}</figcaption></figure>"
            for i, ((svg, caption), width) in enumerate(zip(self.frames, self._widths))
        )
        return (
            f'<div class="g2g-stepper" data-stepper="{n}" tabindex="0" role="group" '
            f'aria-label="{html.escape(self.title)}: step through with the arrow keys">'
            f"{_STYLE}<p><b>{html.escape(self.title)}</b></p>"
            f'<div class="g2g-frames">{figures}</div>'
            f'<p class="g2g-note"><i>Run this cell to step through all {n} frames.</i></p>'
            f"{_SCRIPT}</div>"
        )

    def __repr__(self) -> str:
        n = len(self.frames)
        width = len(str(n))
        lines = [f"{self.title} ({n} frames)"]
        for i, (_, caption) in enumerate(self.frames):   # 79 columns, as every output
            lines += textwrap.wrap(f"{i + 1:>{width}}. {caption}", 79,
                                   subsequent_indent=" " * (width + 2))
        return "\n".join(lines)
