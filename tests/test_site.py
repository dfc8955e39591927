"""The built site, opened in headless Chromium: the index, an API page and a gallery page
show their content, and their pictures are there; the API pages of the classes document
their methods; nothing scrolls sideways at 1280 px.

The site is built by ``.ci/run`` (``python -m sphinx -W -b html docs docs/_build/html``),
which then runs this file with ``SITE_HTML`` pointing at the build. Building it here would
take minutes, so the default test run skips these tests, as it does where Debian's
``chromium`` is not installed.
"""

import html
import html.parser
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SITE = Path(os.environ["SITE_HTML"]).resolve() if os.environ.get("SITE_HTML") else None
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.skipif(SITE is None or not (SITE / "index.html").is_file(),
                       reason="no built site: set SITE_HTML to docs/_build/html"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed"),
]


def chromium(*args, timeout=120):
    """Run headless Chromium (no sandbox: CI runs as root in a container)."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", *args]
    return subprocess.run(command, capture_output=True, timeout=timeout, check=True)


class _Page(html.parser.HTMLParser):
    """The text of a page's main content (``<article>``), every image's source and
    every element's id."""

    def __init__(self):
        super().__init__()
        self.depth, self.text, self.images, self.ids = 0, [], [], set()

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.depth += 1
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))
        if dict(attrs).get("id"):
            self.ids.add(dict(attrs)["id"])

    def handle_endtag(self, tag):
        if tag == "article":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth > 0:
            self.text.append(data)


def _parse(relative):
    page = SITE / relative
    assert page.is_file(), page
    dom = chromium("--dump-dom", page.as_uri()).stdout.decode("utf-8")
    parser = _Page()
    parser.feed(dom)
    return page, parser


def render(relative):
    """The DOM Chromium builds for a page of the site: ``(main text, image files)``."""
    page, parser = _parse(relative)
    text = " ".join(" ".join(parser.text).split())
    images = [(page.parent / src).resolve() for src in parser.images
              if src and not src.startswith(("http:", "https:", "data:"))]
    return text, images


def test_index_shows_the_contents_and_the_picture():
    text, images = render("index.html")
    assert "xOrder" in text and "interleave" in text
    for entry in ("API reference", "Examples", "Coming from fairlearn"):
        assert entry in text, entry
    pictures = [p for p in images if "sphx_glr_plot_" in p.name]
    assert pictures and all(p.is_file() and p.stat().st_size > 10_000 for p in pictures)


def test_api_page_shows_the_docstring():
    text, _ = render("api/generated/gpu_xorder.XOrder.html")
    for shown in ("gpu_xorder.XOrder", "Parameters", "lam", "max_disparity",
                  "Attributes", "fit", "transform", "save", "load"):
        assert shown in text, shown
    # the gallery's examples that use it, linked at the foot of the page
    assert "Examples using gpu_xorder.XOrder" in text


@pytest.mark.parametrize("cls, members", [
    ("gpu_xorder.XOrder", ("fit", "transform", "fit_transform", "save", "load", "summary")),
    ("gpu_xorder.FairRanker", ("fit", "decision_function", "score", "summary")),
    ("gpu_xorder.metrics.RankingMetricFrame",
     ("intervals", "decisions", "difference", "ratio", "group_min", "group_max")),
])
def test_api_pages_of_classes_document_their_methods(cls, members):
    """A class's page has an entry (an anchor ``Class.method``) for each of its own
    methods, and none for the ``set_*_request`` methods metadata routing generates."""
    _, parser = _parse(f"api/generated/{cls}.html")
    assert [m for m in members if f"{cls}.{m}" not in parser.ids] == []
    assert [i for i in parser.ids if i.startswith(f"{cls}.set_")] == []


#: Run in a page once it has loaded: every element of the content wider than its box
#: (a scroll bar), and whether the page itself is wider than the window.
_OVERFLOW = """<script>
window.addEventListener("load", () => {
  const wide = [];
  for (const el of document.querySelectorAll("article *")) {
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible") {
      wide.push(el.tagName + "." + el.className + ": " + el.textContent.slice(0, 60));
    }
  }
  const page = document.documentElement.scrollWidth > window.innerWidth + 1;
  const out = document.createElement("div");
  out.id = "overflow-report";
  out.textContent = JSON.stringify({wide: wide, page: page});
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.parametrize("relative", [
    "getting_started.html", "fairlearn.html", "user_guide/auditing.html",
    "user_guide/command_line.html", "api/generated/gpu_xorder.metrics.RankingMetricFrame.html",
    "auto_examples/plot_fairlearn_comparison.html",
])
def test_nothing_scrolls_sideways_at_1280_px(relative, tmp_path):
    """Code blocks wrap and tables fit the text's width (docs/_static/site.css): in a
    1280 px window no element of the page's content scrolls sideways. The page is read
    from a copy that loads everything from the site (``<base>``) and measures itself
    once loaded."""
    page = SITE / relative
    text = page.read_text(encoding="utf-8")
    copy = tmp_path / "page.html"
    copy.write_text(text.replace("<head>", f'<head><base href="{page.as_uri()}">', 1)
                    .replace("</body>", _OVERFLOW + "</body>", 1), encoding="utf-8")
    dom = chromium("--window-size=1280,1000", "--virtual-time-budget=10000",
                   "--dump-dom", copy.as_uri()).stdout.decode("utf-8")
    found = re.search(r'<div id="overflow-report"[^>]*>(.*?)</div>', dom, re.DOTALL)
    assert found, "the page did not finish loading"
    report = json.loads(html.unescape(found.group(1)))
    assert report == {"wide": [], "page": False}
    text, images = render("auto_examples/plot_compas_audit.html")
    assert "Auditing a risk score where a high score is harmful" in text
    assert "disadvantages 'non-white'" in text  # what the example printed
    assert "Download Python source code: plot_compas_audit.py" in text
    pictures = [p for p in images if p.name.startswith("sphx_glr_plot_compas_audit_")]
    assert pictures and all(p.is_file() and p.stat().st_size > 10_000 for p in pictures)


def test_a_screenshot_of_the_gallery_shows_the_pictures(tmp_path):
    """Chromium draws the gallery's index: its thumbnails make the screenshot far from
    blank (many distinct colours)."""
    import numpy as np
    matplotlib_image = pytest.importorskip("matplotlib.image")

    shot = tmp_path / "gallery.png"
    chromium(f"--screenshot={shot}", "--window-size=1280,2000",
             (SITE / "auto_examples" / "index.html").as_uri())
    pixels = matplotlib_image.imread(shot)[..., :3]
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 500
