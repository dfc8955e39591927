"""The report as a page to hand over: printed by headless Chromium to A4, the COMPAS
audit with a model file takes at most 6 pages, none under half full (skipped without
Debian's chromium)."""

import shutil
import subprocess

import numpy as np
import pytest

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")

from gpu_xorder import XOrder  # noqa: E402
from gpu_xorder.report import audit_report  # noqa: E402
from support.pdf_pages import page_fills  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")
MAX_PAGES = 6
MIN_FILL = 0.5


def print_pdf(html_text, tmp_path):
    """The PDF Chromium prints of the page (A4 by the page's @page rule)."""
    page = tmp_path / "report.html"
    page.write_text(html_text, encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--no-pdf-header-footer", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--print-to-pdf={pdf}", page.as_uri()],
                   capture_output=True, timeout=180, check=True)
    return pdf.read_bytes()


@needs_chromium
def test_the_page_measure(tmp_path):
    # the measure itself, on a page of known layout: a 100 mm block under two lines
    # of text, then on a new page a 300 px (79.4 mm) picture; printable height 267 mm
    text = ('<html><style>@page { size: A4; margin: 15mm } body { margin: 0 }</style>'
            '<body><p>top</p><div style="height: 100mm; background: #ccc"></div>'
            '<div style="break-before: page"><svg width="200" height="300">'
            '<rect width="200" height="300" fill="red"/></svg></div></body></html>')
    fills = page_fills(print_pdf(text, tmp_path))
    assert len(fills) == 2
    assert 100 / 267 < fills[0] < 0.5
    assert fills[1] == pytest.approx(300 * 25.4 / 96 / 267, abs=0.01)


def compas_report(tmp_path):
    """The README's COMPAS audit: a logistic regression's risk scores on the test
    split, read as harmful, 30 % detained, with an xOrder model file."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from gpu_xorder.datasets import load_compas

    data = load_compas(as_frame=True)
    features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count",
                "juv_other_count", "priors_count"]
    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
        random_state=0)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
    s_tr, s_te = model.predict_proba(X_tr)[:, 1], model.predict_proba(X_te)[:, 1]
    path = tmp_path / "model.json"
    XOrder(lam=0.5, backend="numpy").fit(s_tr, y_tr, sensitive_features=a_tr).save(path)
    context = ("Intended use: an illustration of a pretrial risk audit.\n"
               "Model: logistic regression on seven COMPAS features; xOrder, lam 0.5.\n"
               "Data period: 2013-2014, Broward County, Florida.\n"
               "Limitations: race recorded as white or non-white only.")
    return audit_report({"risk": s_te}, np.asarray(y_te), np.asarray(a_te),
                        positive="re-offended", group="race", high_score="harmful",
                        decision="detention", top_share=0.3, model=path,
                        title="COMPAS risk audit", context=context)


@pytest.mark.slow
@needs_chromium
def test_the_compas_report_with_a_model_prints_on_few_full_pages(tmp_path):
    fills = page_fills(print_pdf(compas_report(tmp_path), tmp_path))
    assert len(fills) <= MAX_PAGES, fills
    assert min(fills) >= MIN_FILL, fills


@needs_chromium
def test_a_small_report_prints_on_few_pages(tmp_path):
    # the fast variant: two groups, every section but the model's (whose trade-off
    # path takes seconds); the same page budget, every page but the last half full
    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b"], 300)
    y = rng.integers(0, 2, 300)
    s = y + 0.8 * (g == "b") + rng.normal(0, 1, 300)
    text = audit_report({"risk": s}, y, g, high_score="harmful", top_share=0.3,
                        context="Intended use: a test.")
    fills = page_fills(print_pdf(text, tmp_path))
    assert len(fills) <= MAX_PAGES - 1, fills
    assert min(fills[:-1], default=1.0) >= MIN_FILL, fills
