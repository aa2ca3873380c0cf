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
strict nbval compares them like any other output. Nothing is fetched: the
frames are inline SVG, text in the page's own font and colours (light or dark
theme alike), and the script is a few lines inline. Without JavaScript (a
viewer that strips scripts) every frame is shown, one under the other, each
with its caption.

Its root element carries ``data-stepper="N"`` (N frames), each frame
``data-frame="i"`` (from 0), the buttons ``data-step="prev"``/``"next"``.
"""

from __future__ import annotations

import html
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
    picture's size. Keep frames narrow (about 360 units wide) and text at 12 to
    14 units, so that a phone shows every label at 9 px or more. `cls` names
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
        """The picture as one ``<svg>`` element, scaled to the width it is shown at."""
        w, h = _n(self.width), _n(self.height)
        return (f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img">'
                + "".join(self._items) + "</svg>")


_STYLE = """<style>
.g2g-stepper{max-width:560px;margin:.5em 0;font-family:inherit;color:inherit;outline:none}
.g2g-stepper:focus-visible{box-shadow:0 0 0 2px #1f77b4;border-radius:4px}
.g2g-title{font-weight:bold;margin-bottom:.3em}
.g2g-stepper figure{margin:0 0 1em 0}
.g2g-stepper svg{display:block;width:100%;height:auto;overflow:visible}
.g2g-stepper figcaption{margin-top:.3em;min-height:2.6em;line-height:1.3}
.g2g-stepper.g2g-live figure{margin:0}
.g2g-stepper figure[hidden]{display:none}
.g2g-controls{display:flex;align-items:center;gap:.5em;margin-top:.4em}
.g2g-controls[hidden]{display:none}
.g2g-controls button{font:inherit;padding:.3em .7em;min-height:2.2em;cursor:pointer;
 border:1px solid currentColor;border-radius:4px;background:transparent;color:inherit}
.g2g-controls button:disabled{opacity:.35;cursor:default}
.g2g-controls input{flex:1;min-width:4em}
.g2g-count{font-variant-numeric:tabular-nums;white-space:nowrap}
.g2g-stepper .label{fill:currentColor;font-size:13px}
.g2g-stepper .small{font-size:11px}
.g2g-stepper .bold{font-weight:bold}
.g2g-stepper .mono{font-family:monospace}
.g2g-stepper .box{fill:rgba(127,127,127,.10);stroke:currentColor;stroke-width:1.2}
.g2g-stepper .edge{stroke:currentColor;stroke-width:1.4;fill:none}
.g2g-stepper .head{fill:currentColor}
.g2g-stepper .bar{fill:currentColor;opacity:.55}
.g2g-stepper .dashed{stroke-dasharray:5 3}
.g2g-stepper .faint{opacity:.35}
.g2g-stepper .hot{stroke-width:2.6}
.g2g-stepper .label.hot{font-weight:bold}
.g2g-stepper .box.blue{fill:rgba(31,119,180,.16);stroke:#1f77b4}
.g2g-stepper .box.red{fill:rgba(214,39,40,.16);stroke:#d62728}
.g2g-stepper .box.orange{fill:rgba(255,127,14,.18);stroke:#ff7f0e}
.g2g-stepper .box.green{fill:rgba(44,160,44,.16);stroke:#2ca02c}
.g2g-stepper .box.grey{fill:rgba(127,127,127,.12);stroke:#7f7f7f}
.g2g-stepper .edge.blue{stroke:#1f77b4}.g2g-stepper .head.blue{fill:#1f77b4}
.g2g-stepper .edge.red{stroke:#d62728}.g2g-stepper .head.red{fill:#d62728}
.g2g-stepper .edge.orange{stroke:#ff7f0e}.g2g-stepper .head.orange{fill:#ff7f0e}
.g2g-stepper .edge.green{stroke:#2ca02c}.g2g-stepper .head.green{fill:#2ca02c}
.g2g-stepper .edge.grey{stroke:#7f7f7f}.g2g-stepper .head.grey{fill:#7f7f7f}
.g2g-stepper .bar.blue{fill:#1f77b4}.g2g-stepper .bar.red{fill:#d62728}
.g2g-stepper .bar.orange{fill:#ff7f0e}.g2g-stepper .bar.green{fill:#2ca02c}
.g2g-stepper .label.red{fill:#d62728}.g2g-stepper .label.blue{fill:#1f77b4}
.g2g-stepper .label.orange{fill:#e8710a}.g2g-stepper .label.green{fill:#2ca02c}
</style>"""

# Runs once per page for every step-through not yet wired (`data-ready` marks the
# wired ones): JupyterLab runs each output's script, the site each page's.
_SCRIPT = """<script>(function(){
document.querySelectorAll("[data-stepper]:not([data-ready])").forEach(function(root){
root.setAttribute("data-ready","");
var fs=root.querySelectorAll("[data-frame]"),n=fs.length,i=0,
s=root.querySelector("input"),c=root.querySelector(".g2g-count"),
p=root.querySelector("[data-step=prev]"),q=root.querySelector("[data-step=next]");
function show(k){i=Math.max(0,Math.min(n-1,k));
for(var j=0;j<n;j++){fs[j].hidden=j!==i;}
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
root.querySelector(".g2g-controls").hidden=false;root.classList.add("g2g-live");show(0);
});})();</script>"""


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
            f'<figure data-frame="{i}">{svg}<figcaption>'
            f"<b>{i + 1}/{n}</b> {html.escape(caption)}</figcaption></figure>"
            for i, (svg, caption) in enumerate(self.frames)
        )
        controls = (
            '<div class="g2g-controls" hidden>'
            '<button type="button" data-step="prev" aria-label="previous step">'
            "&#9664; Previous</button>"
            f'<input type="range" min="1" max="{n}" value="1" step="1" aria-label="step">'
            f'<span class="g2g-count">1 / {n}</span>'
            '<button type="button" data-step="next" aria-label="next step">'
            "Next &#9654;</button></div>"
        )
        return (
            f'<div class="g2g-stepper" data-stepper="{n}" tabindex="0" role="group" '
            f'aria-label="{html.escape(self.title)}: step through with the arrow keys">'
            f"{_STYLE}"
            f'<div class="g2g-title">{html.escape(self.title)}</div>'
            f'<div class="g2g-frames">{figures}</div>{controls}{_SCRIPT}</div>'
        )

    def __repr__(self) -> str:
        n = len(self.frames)
        width = len(str(n))
        lines = [f"{self.title} ({n} steps)"]
        for i, (_, caption) in enumerate(self.frames):   # 79 columns, as every output
            lines += textwrap.wrap(f"{i + 1:>{width}}. {caption}", 79,
                                   subsequent_indent=" " * (width + 2))
        return "\n".join(lines)
