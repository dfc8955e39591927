"""The site's helpers, connected in docs/conf.py: links between the Markdown files made
links of the site, and the members a class's API page documents."""

import importlib
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The Markdown files link each other by their paths in the repository, as GitHub shows
#: them (tests/test_docs.py checks that every such link resolves there). On the site, a
#: link to a file of docs/ goes to its page, and a link to one of these files of the
#: repository to the page that shows it (background/*.md include them whole,
#: getting_started.md the README's install section and tour; examples/ is the gallery).
#: A link to any other file is left as written, and the build fails on it (-W).
SITE_PAGES = {
    "README.md": "getting_started.md",
    "CONTRIBUTING.md": "background/contributing.md",
    "benchmarks/RESULTS.md": "background/benchmarks.md",
    "examples": "auto_examples/index.rst",
}

#: A Markdown link or image target: ``](target)`` or ``](target#anchor)``
_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s#]*)(#[^)\s]*)?\)")


def _rewrite_links(text, folder):
    """``text`` (Markdown of a file in ``folder``, a path relative to the repository's
    root) with every link into the repository made a link of the site: a path under
    docs/ rooted at the site's sources (``/design.md``), a file of ``SITE_PAGES`` its
    page; any other path is left as written (the build then warns: -W fails)."""

    def site_target(match):
        target, anchor = match.group(1), match.group(2) or ""
        if not target:
            return match.group(0)
        path = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/")
        page = SITE_PAGES.get(path)
        if page is None and path.startswith("docs/"):
            page = path[len("docs/"):]
        return f"](/{page}{anchor})" if page else match.group(0)
    return _LINK.sub(site_target, text)


def links_of_page(app, docname, source):
    """Sphinx's ``source-read``: the links of a Markdown page of docs/."""
    if app.env.doc2path(docname).suffix == ".md":
        folder = os.path.dirname(f"docs/{docname}")
        source[0] = _rewrite_links(source[0], folder)


def links_of_include(app, relative_path, parent_docname, content):
    """``include-read``: the links of a Markdown file a page includes, from its folder."""
    if str(relative_path).endswith(".md"):
        included = (Path(app.srcdir) / relative_path).resolve().relative_to(REPO)
        content[0] = _rewrite_links(content[0], included.parent.as_posix())


class ClassMembers:
    """``class_members(fullname, names)`` in the class template: ``(documented,
    inherited)`` of a class's public ``names`` (autosummary's methods and attributes).
    Documented: the members this project's classes define, the class itself or a base.
    Inherited: ``[(library, [names])]`` of those from another library's classes
    (``sklearn``'s ``get_params``, ``tuple``'s ``count``), which the page names. The
    ``set_*_request`` methods that scikit-learn's metadata routing generates are
    neither. An instance, not a function, so that Sphinx can cache the configuration
    that holds it."""

    def __call__(self, fullname, names):
        module, _, name = fullname.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        documented, inherited = [], {}
        for member in names:
            if member == "__init__" or (member.startswith("set_")
                                        and member.endswith("_request")):
                continue
            owner = next((k for k in cls.__mro__ if member in vars(k)), cls)
            if owner.__module__.split(".")[0] in ("gpu_xorder", "cpu_reference"):
                documented.append(member)
            else:
                library = owner.__module__.split(".")[0]
                base = owner.__qualname__ if library == "builtins" else library
                inherited.setdefault(base, []).append(member)
        return documented, sorted(inherited.items())
