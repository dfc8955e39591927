"""Sphinx configuration of the gpu-xorder site.

Build it from the repository root with ``python -m sphinx -W -b html docs docs/_build/html``
(the ``docs`` extra installs what it needs). The API reference is generated from the
docstrings (autosummary, one page per public name, into ``docs/api/generated``); the
gallery runs ``examples/plot_*.py`` (sphinx-gallery, into ``docs/auto_examples``). Both
are build output, git-ignored.
"""

import sys
import warnings
from pathlib import Path

import matplotlib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the checkout's package, not an installed copy
sys.path.insert(0, str(REPO / "docs"))  # _gallery_order, _site

import _site  # noqa: E402  (docs/_site.py: the links, the classes' members)

import gpu_xorder  # noqa: E402  (after the path above)

matplotlib.use("Agg")

project = "gpu-xorder"
author = "the gpu-xorder authors"
copyright = "the gpu-xorder authors, BSD-3-Clause"
release = version = gpu_xorder.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.md5",
                    "auto_examples/*.py", "auto_examples/*.ipynb", "auto_examples/*.zip",
                    "results/*.md"]

# --- API reference from the docstrings
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc sections give the types, the signature the defaults
numpydoc_show_class_members = False  # the class template lists the methods itself
# which members a class's page documents (docs/_templates/autosummary/class.rst)
autosummary_context = {"class_members": _site.ClassMembers()}
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- Markdown pages (the user guide, the design document, the results)
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]  # ":::{include}"
# Links between the Markdown files are their paths in the repository (as GitHub shows
# them); on the site they go to the pages that show those files (docs/_site.py,
# SITE_PAGES, connected in setup below); a link to any other file fails the build (-W).

# --- the gallery: every examples/plot_*.py runs at build time
sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "_gallery_order.ExampleOrder",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "min_reported_time": 5,
    # "Examples using X" at the foot of every API page (the autosummary templates)
    "doc_module": ("gpu_xorder",),
    "backreferences_dir": "auto_examples/backreferences",
}

# Examples print their warnings into the page; these are the library's own advice.
warnings.filterwarnings("ignore", category=UserWarning, message=".*Matplotlib.*non-GUI.*")

# --- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"gpu-xorder {version}"
html_static_path = ["_static"]
html_css_files = ["site.css"]  # code wraps, tables fit: no sideways scroll
# pages without sub-pages: no empty "Section Navigation" column, the text gets its width
html_sidebars = {page: [] for page in ("index", "getting_started", "fairlearn")}
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False


def _drop_type_docstrings(app, what, name, obj, options, lines):
    """A constant (``gpu_xorder.models.MODELS``) has no docstring of its own: autodoc
    would show its type's (``tuple``'s); its page shows its value instead."""
    if what == "data" and lines and obj.__doc__ == type(obj).__doc__:
        lines.clear()


def setup(app):
    app.connect("autodoc-process-docstring", _drop_type_docstrings)
    app.connect("source-read", _site.links_of_page)
    app.connect("include-read", _site.links_of_include)
