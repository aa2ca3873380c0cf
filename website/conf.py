"""Sphinx configuration of the course website (`make site`; see website/build.py).

The sources are staged by build.py: index.md from this folder, the course map cut out
of README.md, and the committed notebooks, which are rendered with their stored
outputs and never executed. Everything the pages load is in the site itself: the
MathJax files the pages use (from the sphinx-mathjax-offline package, copied by
`_copy_mathjax`), the theme's scripts, fonts and icons.

The course's repository URL comes from pyproject.toml's [project.urls]
(tools/course_url.py; COURSE_REPOSITORY_URL overrides it, COURSE_REPOSITORY_BRANCH
names the branch the launch buttons open, "main" by default). While it is empty the
site has no repository, Colab or Binder button, and nothing points to an address
that does not exist; the course itself is always on the site as a zip.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shutil
import sys
from urllib.parse import urlsplit

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools"))
import course_url  # noqa: E402
import course_zip  # noqa: E402

project = "From .g to .grad"
author = "the course authors"
copyright = "the course authors · MIT License"

extensions = [
    "myst_nb",  # notebooks (.ipynb) and MyST markdown (.md)
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
]

root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_course_map.md"]
templates_path = ["_templates"]

# Never run a notebook: the site shows the outputs committed (and checked by nbval).
nb_execution_mode = "off"
nb_merge_streams = True
# Tracebacks are the short, path-free ones of `%load_ext helpers.errors`, with ANSI
# colours; Pygments' IPython-traceback lexer chokes on a backtick in torch's messages.
nb_render_error_lexer = "myst-ansi"
# $...$ and $$...$$ in markdown cells, as in JupyterLab; \begin{align} blocks as well.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# Heading levels are the notebooks' business: a jump (## then ####) is no build error.
# Every other warning is (build.py runs with -W), a link to a missing notebook first.
suppress_warnings = ["myst.header"]

# MathJax 3 served by the site: only the combined TeX + CommonHTML script and its fonts.
mathjax_path = "mathjax/tex-chtml.js"
MATHJAX_FILES = ["tex-chtml.js", "output/chtml/fonts/woff-v2"]

# Copy buttons on code a learner types: cell inputs and the solutions' code, never an
# output; prompts (>>>, ...) are left out of what is copied.
copybutton_selector = "div.highlight pre:not(div.cell_output pre)"
copybutton_exclude = ".linenos, .gp, .go"
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

COURSE_ZIP = course_zip.NAME
REPOSITORY = course_url.repository_url()      # pip's git URL in the notebooks' REPO line
REPOSITORY_PAGE = re.sub(r"\.git$", "", REPOSITORY.rstrip("/"))   # its web page
BRANCH = os.environ.get("COURSE_REPOSITORY_BRANCH", "main")
PROVIDERS = {"github.com": "github", "gitlab.com": "gitlab", "bitbucket.org": "bitbucket"}
PROVIDER = PROVIDERS.get(urlsplit(REPOSITORY).netloc.lower()) if REPOSITORY else None

html_theme = "sphinx_book_theme"
html_title = "From .g to .grad"
html_favicon = "_static/favicon.svg"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]     # a tap on a figure shows it at full size (_static/)
html_last_updated_fmt = None
html_show_sphinx = False
# A notebook alone cannot run (it needs the course's helpers): the pages offer the
# whole course as a zip, never a single .ipynb (`_header_buttons`). The copies in
# _sources/ stay unlinked: the site's tests read what it was built from there.
html_copy_source = True
html_sourcelink_suffix = ""
html_context = {"course_zip": COURSE_ZIP, "course_repository": REPOSITORY_PAGE}
html_sidebars = {"**": ["navbar-logo.html", "icon-links.html", "search-button-field.html",
                        "sbt-sidebar-nav.html", "course-links.html"]}
html_theme_options = {
    "home_page_in_toc": False,  # the site title above the search leads home
    "show_navbar_depth": 1,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "launch_buttons": {},
    "show_toc_level": 2,
    "footer_content_items": ["copyright.html"],
    "navigation_with_keys": False,
    # Each notebook ends with its own Previous/Next line: no second one from the theme.
    "show_prev_next": False,
    # No top bar: the left sidebar already has the title, the search and the course.
    "navbar_start": [],
    "navbar_center": [],
    "navbar_end": [],
    "navbar_persistent": [],
}
if PROVIDER:
    # The theme's buttons: the repository on every page; on a notebook's page, Binder
    # (any of these hosts) and Colab (GitHub only), opening notebooks/NN_*.ipynb of
    # the repository (the site's notebooks/ folder is the repository's).
    html_theme_options.update({
        "repository_url": REPOSITORY_PAGE,
        "repository_branch": BRANCH,
        "repository_provider": PROVIDER,
        "path_to_docs": "",
        "use_repository_button": True,
        "launch_buttons": {
            "binderhub_url": "https://mybinder.org",
            "notebook_interface": "jupyterlab",
            **({"colab_url": "https://colab.research.google.com"}
               if PROVIDER == "github" else {}),
        },
    })
pygments_style = "tango"

LAUNCH_NOTE = "A hidden first cell installs the course's helpers in a bare kernel. "
# On Linux pip's default torch is a CUDA build; the course needs only the CPU.
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# The notebooks' Set-up says what the launch cell does in a paragraph of its own, this
# one, word for word: the site hides that paragraph (the note above says it) and no
# other sentence (tests/test_site.py, HIDDEN_ON_PURPOSE).
LAUNCH_SENTENCE = ("The first cell (collapsed) installs the course's helpers in a bare "
                   "kernel (Colab, VS Code).")
TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _readme_to_landing(app, doctree):
    """The notebooks link to the repository's README (07's last line: `../README.md`).
    On the site the landing page stands for it: it has the same course map."""
    from sphinx import addnodes

    for node in doctree.findall(addnodes.pending_xref):
        target = node.get("reftarget") or ""
        if node.get("reftype") == "myst" and target.split("#")[0].endswith("README.md"):
            node["refdomain"], node["reftarget"], node["reftargetid"] = "doc", root_doc, None


def _landing_launch(app, docname, source):
    """The landing page names the launch buttons only when there are some."""
    if docname == root_doc:
        sentence = ("Or open a notebook in the cloud from the rocket button at the top of "
                    "its page (Binder" + (", Colab" if PROVIDER == "github" else "") + "), "
                    f"or clone the [course's repository]({REPOSITORY_PAGE}).") if PROVIDER else ""
        source[0] = source[0].replace("<!-- launch-buttons -->", sentence)


def _to_root(docname: str) -> str:
    return "../" * docname.count("/")


def _hide_launch_cell(app, doctree):
    """The set-up cell (tag `launch`) is not shown: one line under the page's title says
    what it does and how to run the course, once, before the lesson starts."""
    from docutils import nodes

    docname = app.env.docname
    for cell in list(doctree.findall(nodes.container)):
        if "tag_launch" not in cell["classes"]:
            continue
        note = nodes.paragraph(classes=["launch-note"])
        note += nodes.Text(LAUNCH_NOTE + "To run this notebook: ")
        link = nodes.reference("", "", refuri=_to_root(docname) + COURSE_ZIP,
                               classes=["course-download"])
        link += nodes.Text("download the course")
        note += link
        note += nodes.Text(", unzip it and type ")
        note += nodes.literal("make lab", "make lab")
        note += nodes.Text(" (on Linux ")
        cpu = f"make lab TORCH_INDEX={CPU_INDEX}"
        note += nodes.literal(cpu, cpu)
        note += nodes.Text(" for torch's CPU build: pip's default there is a CUDA build, "
                           "about 3 GB more)")
        note += nodes.Text(", or use the rocket button above." if PROVIDER else ".")
        cell.parent.remove(cell)
        title = doctree.next_node(nodes.title)
        title.parent.insert(title.parent.index(title) + 1, note)
    # The notebook's Set-up says the same for JupyterLab readers, in a paragraph of its
    # own: on the page the note above has said it. Only that paragraph, word for word.
    for section in doctree.findall(nodes.section):
        if section[0].astext().strip() == "Set-up":
            for para in list(section.findall(nodes.paragraph)):
                if " ".join(para.astext().translate(TYPOGRAPHY).split()) == LAUNCH_SENTENCE:
                    para.parent.remove(para)


SUMMARY_HINT = re.compile(r"(<summary>.*?)\(click to open\)(.*?</summary>)", re.S)


def _solution_hint(app, doctree):
    """"(click to open)" in a solution's summary reads "(click to close)" once open."""
    from docutils import nodes

    for raw in list(doctree.findall(nodes.raw)):
        text = raw.astext()
        if "click to open" not in text or "html" not in raw.get("format", ""):
            continue
        new = SUMMARY_HINT.sub(
            r'\1<span class="summary-hint"><span class="when-closed">(click to open)</span>'
            r'<span class="when-open">(click to close)</span></span>\2', text)
        raw.replace_self(nodes.raw(new, new, format=raw["format"]))


def _zoomable_figures(app, doctree, docname):
    """A notebook's figure links to the image itself: a tap on a figure shown smaller
    than its size shows it at full size, in a box that scrolls sideways, and a second
    tap fits it again (_static/course.js; without scripts the link opens the image)."""
    from docutils import nodes

    for image in list(doctree.findall(nodes.image)):
        if isinstance(image.parent, nodes.reference):
            continue
        candidates = image.get("candidates", {})
        source = candidates.get("*") or next(iter(candidates.values()), image["uri"])
        if source not in app.env.images:
            continue
        target = f"{_to_root(docname)}_images/{app.env.images[source][1]}"
        link = nodes.reference("", "", refuri=target, classes=["image-zoom"],
                               reftitle="Show the figure at full size")
        image.replace_self(link)
        link += image


def _header_buttons(app, pagename, templatename, context, doctree):
    """The download menu: the course as a zip on every page, no single source file (a
    notebook alone cannot run), and the theme's print-to-PDF."""
    zip_button = {
        "type": "link", "url": context["pathto"](COURSE_ZIP, 1), "text": "course (.zip)",
        "tooltip": "Download the course", "icon": "fas fa-file-zipper",
        "label": "download-course-button",
    }
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"] = [b for b in group["buttons"]
                                if not b.get("url", "").endswith((".md", ".ipynb"))]
            group["buttons"].insert(0, zip_button)


def _copy_mathjax(app, exc):
    """Only the MathJax files the pages load (tex-chtml.js, which bundles the TeX input,
    the CommonHTML output and the menu) and the fonts its output may ask for."""
    if exc is not None or app.builder.format != "html":
        return
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("sphinx-mathjax-offline is missing: pip install -e '.[site]'")
    source = pathlib.Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"
    target = pathlib.Path(app.outdir) / "_static" / "mathjax"
    for rel in MATHJAX_FILES:
        if (source / rel).is_dir():
            shutil.copytree(source / rel, target / rel, dirs_exist_ok=True)
        else:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / rel, target / rel)


def setup(app):
    app.connect("source-read", _landing_launch)
    app.connect("doctree-read", _readme_to_landing)
    app.connect("doctree-read", _hide_launch_cell)
    app.connect("doctree-read", _solution_hint)
    app.connect("doctree-resolved", _zoomable_figures)
    app.connect("html-page-context", _header_buttons, priority=900)
    app.connect("build-finished", _copy_mathjax)
