/* Course website: a notebook's figure shown smaller than its own size (on a phone, or
   a wide figure in the text column) is marked .shrunk; a tap (a click) on it shows it
   at full size (.full), in a box that scrolls sideways, and a second tap fits it to
   the column again. course.css shows the hint that says so, on phones. A figure shown
   whole is left as it is. Without this script the figure's link opens the image. */
(() => {
  "use strict";
  const mark = a => {
    const img = a.querySelector("img");
    if (!img || !img.naturalWidth) return;
    const cs = getComputedStyle(img);
    const frame = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"]
      .reduce((sum, p) => sum + (parseFloat(cs[p]) || 0), 0);
    const shown = img.getBoundingClientRect().width - frame;
    a.classList.toggle("shrunk", !a.classList.contains("full")
                                 && shown < img.naturalWidth - 1);
  };
  const markAll = () => document.querySelectorAll("a.image-zoom").forEach(mark);
  document.addEventListener("click", event => {
    const a = event.target.closest ? event.target.closest("a.image-zoom") : null;
    if (!a) return;
    event.preventDefault();
    if (a.classList.contains("full")) {
      a.classList.remove("full");
      a.scrollLeft = 0;
    } else if (a.classList.contains("shrunk")) {
      a.classList.add("full");
    }
    mark(a);
  });
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("a.image-zoom img").forEach(img => {
      if (img.complete) mark(img.closest("a"));
      else img.addEventListener("load", () => mark(img.closest("a")));
    });
  });
  window.addEventListener("load", markAll);
  window.addEventListener("resize", markAll);
})();
