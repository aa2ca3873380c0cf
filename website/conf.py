"""Sphinx configuration of the course website (`make site`; see website/build.py).

The sources are staged by build.py: index.md from this folder, the course map cut out
of README.md, and the committed notebooks, which are rendered with their stored
outputs and never executed. Everything the pages load is in the site itself: MathJax 3
comes from the sphinx-mathjax-offline package, the theme bundles its fonts and icons.
"""

project = "From .g to .grad"
author = "the course authors"
copyright = "the course authors · MIT License"

extensions = [
    "myst_nb",  # notebooks (.ipynb) and MyST markdown (.md)
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # sets mathjax_path to the copy it puts in _static/mathjax/
]

root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_course_map.md"]

# Never run a notebook: the site shows the outputs committed (and checked by nbval).
nb_execution_mode = "off"
nb_merge_streams = True
# $...$ and $$...$$ in markdown cells, as in JupyterLab; \begin{align} blocks as well.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# Heading levels are the notebooks' business: a jump (## then ####) is no build error.
# Every other warning is (build.py runs with -W), a link to a missing notebook first.
suppress_warnings = ["myst.header"]

html_theme = "sphinx_book_theme"
html_title = "From .g to .grad"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_last_updated_fmt = None
html_show_sphinx = False
html_copy_source = True
html_sourcelink_suffix = ""  # the download button gives the .ipynb itself
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
    # No top bar: the left sidebar already has the title, the search and the course.
    "navbar_start": [],
    "navbar_center": [],
    "navbar_end": [],
    "navbar_persistent": [],
}
pygments_style = "tango"


def _readme_to_landing(app, doctree):
    """The notebooks link to the repository's README (05's last line: `../README.md`).
    On the site the landing page stands for it: it has the same course map."""
    from sphinx import addnodes

    for node in doctree.findall(addnodes.pending_xref):
        target = node.get("reftarget") or ""
        if node.get("reftype") == "myst" and target.split("#")[0].endswith("README.md"):
            node["refdomain"], node["reftarget"], node["reftargetid"] = "doc", root_doc, None


def setup(app):
    app.connect("doctree-read", _readme_to_landing)
