"""The HTML audit report: every section and value present and equal to the metric
functions', self-contained (no URL, every picture a data URI that decodes as SVG),
accessible markup, the input's SHA-256, a model file's section; ``audit --report`` on
the command line (written all or nothing, options checked with exit 2); the page as
headless Chromium renders it."""

import base64
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")

from gpu_xorder import XOrder, metrics  # noqa: E402
from gpu_xorder.cli import main  # noqa: E402
from gpu_xorder.metrics._findings import MEASURE_NAMES  # noqa: E402
from gpu_xorder.report import audit_report, write_audit_report  # noqa: E402
from gpu_xorder.report._audit import MSG_HIGH_SCORE, MSG_NO_JINJA  # noqa: E402
from support.console import table_rows  # noqa: E402


def data(n=240, seed=0, groups=("a", "b")):
    rng = np.random.default_rng(seed)
    g = np.asarray(groups)[rng.integers(0, len(groups), n)]
    y = rng.integers(0, 2, n)
    s = np.round(y + 0.8 * (g != groups[0]) + rng.normal(0, 1, n), 3)
    return s, y, g


#: Tags inside a line of text: the words around them are joined as a browser shows them.
INLINE = ("bdi", "strong", "code", "em")


class Page(HTMLParser):
    """The parts of a page the tests look at: ids, images, table headers, text (a
    label's ``<bdi>`` joins its text to the words around it, as a browser shows it)."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.images, self.headers, self.text = [], [], [], []
        self._in_th = False
        self._glue = False
        self.feed(text)

    def handle_endtag(self, tag):
        self._glue = tag in INLINE

    def handle_starttag(self, tag, attrs):
        self._glue = tag in INLINE
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "img":
            self.images.append(attrs)
        if tag == "th":
            self.headers.append(attrs)

    def handle_data(self, d):
        if self._glue and self.text:
            self.text[-1] += d
        else:
            self.text.append(d)
        self._glue = False

    @property
    def words(self):
        return re.sub(r"\s+", " ", " ".join(self.text))


def check_self_contained(text):
    page = Page(text)
    assert "http" not in text.lower().replace("http-equiv", "")  # no URL of any kind
    assert "<script" not in text.lower()
    assert page.images
    for img in page.images:
        assert img["alt"].strip() and int(img["width"]) > 0 and int(img["height"]) > 0
        prefix = "data:image/svg+xml;base64,"
        assert img["src"].startswith(prefix)
        root = ET.fromstring(base64.b64decode(img["src"][len(prefix):]))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return page


def test_every_section_and_value(tmp_path):
    s, y, g = data(groups=("a", "b", "c"))
    other = np.round(s + np.random.default_rng(1).normal(0, 0.5, s.size), 3)
    text = audit_report({"risk": s, "other": other}, y, g, positive="re-offended",
                        group="race", high_score="harmful", top_k=60)
    page = check_self_contained(text)
    for section in ("data", "reading", "scores-1", "scores-2", "forest", "decisions",
                    "provenance"):
        assert section in page.ids
    assert "model" not in page.ids
    words = page.words
    # the data summary
    for label in "abc":
        assert f"{label} {(g == label).sum()} {y[g == label].sum()}" in words
    # every metric with its interval, as the metric functions give them
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    assert (f"AUC P(a positive (re-offended) ranks above a negative) "
            f"{metrics.auc(y, s):.3f} [{ci.auc.low:.3f}, {ci.auc.high:.3f}]") in words
    iv = ci.disparity["prf"]
    value = metrics.disparity(y, s, sensitive_features=g, metric="prf")
    assert f"{value:.3f} [{iv.low:.3f}, {iv.high:.3f}]" in words
    iv = ci.xauc["c", "a"]
    value = metrics.xauc(y, s, sensitive_features=g, g="c", h="a")
    assert f"c, a {value:.3f} [{iv.low:.3f}, {iv.high:.3f}]" in words
    # the disadvantaged group in words, under the harmful reading
    for metric in ("xauc", "prf", "urf"):
        found = metrics.disadvantaged_group(y, s, sensitive_features=g, metric=metric,
                                            high_score="harmful", intervals=ci).text
        assert re.sub(r"\s+", " ", found) in words
    assert "a high score is harmful" in words
    # the decisions at the cut-off, both columns
    d = metrics.decision_rates(y, s, sensitive_features=g, top_k=60)
    assert words.count("top 60 of 240") >= 2
    for label in "abc":
        r = d.by_group["tpr"][label]
        assert f"{r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]" in words
    r = d.ratio["selection_rate"]
    assert f"ratio {r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]" in words.replace(
        "ratio   ", "ratio ")
    # captions say how to read each picture: forest, xROC of every pair, distributions
    assert words.count("xROC curves of") == 2 * 3
    assert "Forest plot." in words and words.count("Scores by group.") == 2
    # accessible tables: every header cell has a scope but the provenance's rows
    assert all(h.get("scope") in ("col", "row") for h in page.headers)
    # provenance
    assert "arrays given in Python" in words and "gpu-xorder 0." in words


def test_sha256_command_and_atomic_write(tmp_path):
    s, y, g = data()
    source = tmp_path / "data.csv"
    source.write_text("score\n" + "\n".join(map(str, s)) + "\n")
    out = tmp_path / "report.html"
    write_audit_report(out, s, y, g, high_score="favourable", source=source,
                       command="gpu-xorder audit x", level=None, threshold=0.5)
    text = out.read_text()
    assert hashlib.sha256(source.read_bytes()).hexdigest() in text
    assert "gpu-xorder audit x" in text and "No confidence intervals" in text
    assert "score &gt;= 0.5" in text
    check_self_contained(text)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "report.html"]
    # a failed report leaves the old file as it was, and no temporary file
    with pytest.raises(ValueError, match="top_k must be an integer"):
        write_audit_report(out, s, y, g, high_score="favourable", top_k=10**6)
    assert out.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "report.html"]


def test_a_frame_is_a_data_source(tmp_path):
    """write_audit_report(path, frame): the frame's scores, labels and groups (and the
    groups' name) make the same page as the arrays."""
    pd = pytest.importorskip("pandas")
    from gpu_xorder.metrics import RankingMetricFrame
    from gpu_xorder.metrics._frame_tables import MSG_WEIGHTED_REPORT
    from gpu_xorder.report._audit import MSG_FRAME_DATA

    s, y, g = data()
    race = pd.Series(g, name="race")
    frame = RankingMetricFrame(y, s, sensitive_features=race)
    out = tmp_path / "frame.html"
    write_audit_report(out, frame, high_score="favourable", level=None, threshold=0.5,
                       command="x")
    by_arrays = audit_report(s, y, g, group="race", high_score="favourable", level=None,
                             threshold=0.5, command="x")

    def undated(text):  # the date and the pictures (whose SVG ids are random) apart
        text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "", text)
        return re.sub(r"data:image/[^\"']+", "", text)

    assert undated(out.read_text()) == undated(by_arrays)
    assert "race" in by_arrays
    with pytest.raises(TypeError, match=re.escape(MSG_FRAME_DATA)):
        audit_report(frame, y, g, high_score="favourable")
    weighted = RankingMetricFrame(y, s, sensitive_features=g, sample_weight=np.ones(s.size))
    with pytest.raises(ValueError, match=re.escape(MSG_WEIGHTED_REPORT)):
        audit_report(weighted, high_score="favourable")


def test_group_names_are_escaped():
    s, y, _ = data()
    g = np.where(np.arange(s.size) % 2, "<b>x</b>", "y&z")
    text = audit_report(s, y, g, high_score="favourable", level=None)
    assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text


def test_the_default_cut_off_selects_as_many_as_positives():
    s, y, g = data()
    text = audit_report(s, y, g, high_score="favourable", level=None)
    d = metrics.decision_rates(y, s, sensitive_features=g, top_share=y.mean())
    assert "no cut-off was given" in text and html.escape(d.rule) in text


def test_model_section_with_certificate(tmp_path):
    s, y, g = data(n=100)
    model = tmp_path / "m.json"
    XOrder(lam=0.5, backend="numpy").fit(s, y, sensitive_features=g).save(model)
    text = audit_report({"risk": s}, y, g, high_score="favourable", model=model,
                        threshold=1.0)
    page = check_self_contained(text)
    assert "model" in page.ids
    summary = json.loads(model.read_text())["summary"]
    words = page.words
    assert f"{summary['objective']:.6f}" in words
    assert f"{summary['upper_bound']:.6f}" in words
    after = XOrder.load(model).transform(s, sensitive_features=g)
    assert f"Delta-xAUC {metrics.disparity(y, s, sensitive_features=g):.3f}" in words
    assert f"{metrics.disparity(y, after, sensitive_features=g):.3f}" in words
    assert "Trade-off." in words and "Adjusted scores by group, as ranks." in words
    assert len(page.images) == 1 + 1 + 1 + 2  # xROC, distribution, forest; model's two


def test_the_findings_box_comes_first():
    s, y, g = data(n=600, groups=("a", "b", "c"))
    text = audit_report({"risk": s}, y, g, high_score="harmful", decision="detention",
                        threshold=0.5, delta=0.1)
    page = Page(text)
    words = page.words
    box = words[words.index("Findings Reading of a high score"):words.index(" Data ")]
    assert "a high score leads to detention, which is harmful to a person" in box
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    # one line per measure, the findings layer's headline, with the rule it follows
    for metric, title in (("xauc", "Delta-xAUC"), ("prf", "Delta-PRF"),
                          ("urf", "Delta-URF")):
        found = metrics.ranking_finding(y, s, sensitive_features=g, measure=metric,
                                        high_score="harmful",
                                        intervals=ci, delta=0.1, decision="detention")
        assert f"{title}: {found.headline}" in box
        assert found.text in words  # and in full further down
    assert "URF" in box and "base rates" in box
    assert "Bonferroni over 3 pairs" in box and "parity within 0.1" in box
    # the decisions at the cut-off in words, the ratio beside the four-fifths rule
    d = metrics.decision_rates(y, s, sensitive_features=g, threshold=0.5)
    for f in metrics.decision_findings(d, high_score="harmful", decision="detention",
                                       delta=0.1):
        assert f"{MEASURE_NAMES[f.measure]}: {f.headline}" in box
    assert "four-fifths" in box
    # no decision named that the user did not name
    text = audit_report(s, y, g, high_score="favourable", level=None)
    assert "detention" not in text and "investigation" not in text
    assert "a high score is favourable to a person" in Page(text).words


def test_high_score_is_required():
    s, y, g = data()
    with pytest.raises(ValueError, match=re.escape(MSG_HIGH_SCORE.format(value=None))):
        audit_report(s, y, g)
    with pytest.raises(ValueError, match="high_score"):
        audit_report(s, y, g, high_score="bad")
    with pytest.raises(ValueError, match="delta"):
        audit_report(s, y, g, high_score="harmful", delta=2)


def test_title_context_and_provenance(tmp_path):
    import platform

    import sklearn

    s, y, g = data(n=100)
    model = tmp_path / "m.json"
    XOrder(lam=0.5, backend="numpy").fit(s, y, sensitive_features=g).save(model)
    context = "Intended use: <script>alert(1)</script>\nData period: 2020-2021"
    text = audit_report({"risk": s}, y, g, high_score="favourable", model=model,
                        title="Credit <audit>", context=context, threshold=0.5,
                        decision="a loan")
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "Credit &lt;audit&gt;" in text and "Data period: 2020-2021" in text
    words = Page(text).words
    assert "a high score leads to a loan" in words
    assert hashlib.sha256(model.read_bytes()).hexdigest() in text
    for version in (platform.python_version(), np.__version__, sklearn.__version__):
        assert version in words
    # the lowest score selected is a score, not the threshold
    lowest = s[s >= 0.5].min()
    assert lowest > 0.5 and f"lowest score selected {lowest:.6f}" in words


def test_labels_are_isolated():
    # a right-to-left override in a label would reverse the numbers after it
    s, y, _ = data(n=200)
    g = np.where(np.arange(s.size) % 2, "x\u202e", "y")
    text = audit_report({"ri\u202esk": s}, y, g, high_score="harmful", threshold=0.5)
    body = text[text.index("<body>"):]
    body = re.sub(r"<bdi>[^<]*</bdi>", "", body)
    body = re.sub(r'alt="[^"]*"', "", body)
    assert "\u202e" not in body


def test_needs_jinja2(monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    s, y, g = data()
    with pytest.raises(ImportError, match=re.escape(MSG_NO_JINJA)):
        audit_report(s, y, g, high_score="favourable")


# ---------------------------------------------------------------- the command line

@pytest.fixture
def csv_file(tmp_path):
    s, y, g = data()
    path = tmp_path / "d.csv"
    path.write_text("risk,outcome,race\n" + "".join(
        f"{a!r},{b},{c}\n" for a, b, c in zip(s.tolist(), y.tolist(), g.tolist())))
    return path, s, y, g


def audit(path, *options):
    """``audit`` of the fixture's file, reading a high score as favourable unless
    ``options`` say (``--high-score none``: the option left out)."""
    options = list(options)
    if "--high-score" not in options:
        options += ["--high-score", "favourable"]
    elif options[options.index("--high-score") + 1] == "none":
        del options[options.index("--high-score"):options.index("--high-score") + 2]
    return main(["audit", str(path), "--score", "risk", "--label", "outcome", "--group",
                 "race", *options])


@pytest.mark.usefixtures("plain_consoles")
def test_cli_report_and_decisions(csv_file, tmp_path, capsys):
    path, s, y, g = csv_file
    report, doc = tmp_path / "r.html", tmp_path / "a.json"
    assert audit(path, "--top-k", "40", "--report", str(report), "--json", str(doc)) == 0
    out = capsys.readouterr().out
    assert f"report written to {report}" in out
    text = report.read_text()
    check_self_contained(text)
    assert hashlib.sha256(path.read_bytes()).hexdigest() in text
    assert f"gpu-xorder audit {path} --score risk" in text
    d = metrics.decision_rates(y, s, sensitive_features=g, top_k=40)
    written = json.loads(doc.read_text())["scores"]["risk"]["decisions"]
    assert {k: written[k] for k in d.to_dict()} == json.loads(json.dumps(d.to_dict()))
    # the decision's findings, as the findings layer makes them, with their rule
    found = metrics.decision_findings(d, high_score="favourable")
    assert [f["text"] for f in written["findings"]] == [f.text for f in found]
    assert all({"verdict", "rule", "level", "delta"} <= set(f) for f in written["findings"])
    printed = " ".join(out.split())
    for f in found:
        assert f"risk, {MEASURE_NAMES[f.measure]}: {f.text}" in printed
    rows = {r[0]: r[1:] for r in table_rows(out, "Decisions: risk")}
    r = d.by_group["selection_rate"]["a"]
    assert rows["a"][:3] == [str((g == "a").sum()), f"{d.counts['a']['selected']:g}",
                             f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"]
    r = d.ratio["precision"]
    assert rows["ratio"][-1] == f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"


@pytest.mark.usefixtures("plain_consoles")
@pytest.mark.parametrize("options, message", [
    (["--top-k", "0"], "argument --top-k: must be an integer >= 1"),
    (["--top-share", "1.5"], r"argument --top-share: must be a number in \(0, 1\]"),
    (["--threshold", "nan"], "argument --threshold: must be a finite number"),
    (["--threshold", "0.5", "--top-k", "3"], "not allowed with argument"),
    (["--top-k", "100000"], "top_k must be an integer from 1 to the number of items"),
    (["--model", "m.json"], "--model is read by --report"),
    (["--title", "t"], "--title is read by --report"),
    (["--high-score", "none"], "--report needs --high-score harmful or favourable"),
    (["--delta", "0"], "argument --delta: must be a number strictly between 0 and 1"),
])
def test_cli_refuses_bad_cut_offs(csv_file, tmp_path, capsys, options, message):
    path = csv_file[0]
    report = tmp_path / "r.html"
    assert audit(path, *options, "--json", str(tmp_path / "a.json"),
                 *(["--report", str(report)] if "--model" not in options
                   and "--title" not in options else [])) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]  # nothing written


@pytest.mark.usefixtures("plain_consoles")
def test_cli_bad_model_file_writes_nothing(csv_file, tmp_path, capsys):
    path = csv_file[0]
    model = tmp_path / "m.json"
    model.write_text("{}")
    assert audit(path, "--report", str(tmp_path / "r.html"), "--json",
                 str(tmp_path / "a.json"), "--model", str(model)) == 2
    assert "not a gpu-xorder model file" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "m.json"]


# ---------------------------------------------------------------- the page in a browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Appended to a copy of the report (the report itself has no script): lists how wide
#: every image decoded, once the page has loaded.
PROBE = """<script>
window.addEventListener("load", () => {
  const out = document.createElement("pre");
  out.id = "decoded";
  out.textContent = Array.from(document.images, i => i.complete + ":" + i.naturalWidth)
    .join(" ");
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")
def test_chromium_renders_the_report(tmp_path):
    s, y, g = data()
    text = audit_report({"risk": s}, y, g, positive="paid back", top_share=0.25,
                        high_score="favourable")
    probe = tmp_path / "probe.html"
    probe.write_text(text.replace("</body>", PROBE + "</body>"))
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
               "--virtual-time-budget=5000", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(command + ["--dump-dom", probe.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert "Decisions at a cut-off" in dom and "Provenance" in dom
    decoded = re.search(r'<pre id="decoded">([^<]*)</pre>', dom).group(1).split()
    assert len(decoded) == 3  # xROC, distribution, forest
    assert all(d.startswith("true:") and int(d.split(":")[1]) > 100 for d in decoded)


def test_values_the_data_leave_undefined_read_n_a():
    s, y, g = data(n=120)
    y = np.where(g == "b", 0, y)  # b has no positives: no TPR, no xAUC(b, a), no PRF(b)
    page = check_self_contained(audit_report(s, y, g, high_score="favourable", top_k=20))
    words = page.words
    assert "PRF(g)" in words and "b n/a" in words
    d = metrics.decision_rates(y, s, sensitive_features=g, top_k=20)
    assert d.by_group["tpr"]["b"] is None and d.difference["tpr"] is None
    assert len(page.images) == 3  # one xROC direction is defined: its picture is drawn


@pytest.mark.usefixtures("plain_consoles")
def test_cli_context_title_and_decision(csv_file, tmp_path, capsys):
    path = csv_file[0]
    context, report = tmp_path / "context.txt", tmp_path / "r.html"
    context.write_text("Intended use: <b>credit</b> screening\nData period: 2024\n",
                       encoding="utf-8")
    assert audit(path, "--report", str(report), "--context", str(context), "--title",
                 "Loan audit", "--decision", "a loan", "--top-share", "0.3") == 0
    text = report.read_text()
    assert "&lt;b&gt;credit&lt;/b&gt; screening\nData period: 2024" in text
    assert "<h1><bdi>Loan audit</bdi></h1>" in text
    assert "a high score leads to a loan" in Page(text).words
    assert "are selected for a loan" in Page(text).words
    assert "a high score leads to a loan" in capsys.readouterr().out
    # the context file is an input: never the report's path; a bad one is named
    assert audit(path, "--report", str(context), "--context", str(context)) == 2
    assert context.read_text(encoding="utf-8").startswith("Intended use")
    context.write_bytes(b"\xff\xfe bad")
    assert audit(path, "--report", str(report), "--context", str(context)) == 2
    assert f"--context {context}: not UTF-8 text" in capsys.readouterr().err
def test_every_picture_is_valid_svg_whatever_the_labels():
    """Group labels and a score column name that other layers interpret (``$``,
    control characters, bidi controls, right-to-left text): every picture of the page
    is valid XML (a control character once broke every SVG, exit 0), shows each label
    as written with the acting characters escaped, between Unicode isolates (a browser
    lays the SVG's text out bidirectionally: U+202E turned the numbers after it)."""
    from gpu_xorder.utils._text import visible
    from support.odd_text import ACTING, ODD_LABELS, assert_valid_svg, svg_text

    labels = list(ODD_LABELS.values())[:5]
    s, y, g = data(300, seed=2, groups=labels)
    name = ODD_LABELS["right-to-left override"] + " $x$"
    page = audit_report({name: s}, y, g, method="delong", high_score="harmful")
    uris = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)
    assert len(uris) >= 3
    texts = []
    for uri in uris:
        texts += svg_text(assert_valid_svg(base64.b64decode(uri)))
    joined = "\n".join(texts)
    assert not any(c in joined for c in ACTING)
    for label in labels:
        assert f"\u2068{visible(label)}\u2069" in joined, label


def test_many_groups_draw_the_worst_pairs_only_and_say_so():
    """8 groups (28 pairs) with plot_pairs=3: the xROC pictures of the 3 pairs of the
    largest disparity (oracle: each pair's largest of |xAUC(g, h) - xAUC(h, g)|,
    |PRF(g) - PRF(h)| and URF from the metric functions), named in a note; 13 groups:
    no forest plot, a note instead (the report once drew every pair: 50 groups, 1,225
    pictures, a quarter of an hour without a word)."""
    import itertools

    keys = [f"g{k}" for k in range(8)]
    s, y, g = data(480, seed=4, groups=keys)
    page = audit_report(s, y, g, method="delong", plot_pairs=3, high_score="harmful")
    gap = {}
    for a, b in itertools.combinations(keys, 2):
        given = {"y_true": y, "y_score": s, "sensitive_features": g}
        gap[a, b] = max(abs(metrics.xauc(**given, g=a, h=b) - metrics.xauc(**given, g=b, h=a)),
                        abs(metrics.prf(**given, g=a) - metrics.prf(**given, g=b)),
                        metrics.urf(**given, g=a, h=b))
    worst = sorted(gap, key=lambda p: -gap[p])[:3]
    note = re.search(r"xROC pictures of 3 of the 28 pairs of groups, those of the largest "
                     r"disparity [^:]*: ([^<]*)\.", page)
    assert note, page[:2000]
    assert note.group(1).split(", ") == [f"\u2068{a}\u2069 and \u2068{b}\u2069"
                                         for a, b in worst]
    assert len(re.findall(r'alt="xROC curves of', page)) == 3
    assert 'id="forest"' in page
    many = [f"h{k:02d}" for k in range(13)]
    s, y, g = data(13 * 40, seed=5, groups=many)
    page = audit_report(s, y, g, method="delong", plot_pairs=1, high_score="harmful")
    assert 'id="forest"' not in page
    assert "The forest plot is left out: 13 groups give" in page
    with pytest.raises(ValueError, match="plot_pairs must be an integer >= 1, got 0"):
        audit_report(s, y, g, level=None, plot_pairs=0, high_score="harmful")
    with pytest.raises(TypeError, match="plot_pairs must be an integer >= 1"):
        audit_report(s, y, g, level=None, plot_pairs=2.0, high_score="harmful")


def test_audit_report_of_many_groups_is_estimated_with_its_pictures(tmp_path, monkeypatch,
                                                                     capsys):
    """audit --report counts its pictures in the estimate printed before the work, as
    many as it then draws (--plot-pairs caps them as for --plot)."""
    from gpu_xorder.cli import _output

    monkeypatch.setattr(_output, "ESTIMATE_SECONDS", 0.0)
    keys = [f"g{k:02d}" for k in range(14)]
    s, y, g = data(14 * 30, seed=6, groups=keys)
    path = tmp_path / "d.csv"
    path.write_text("score,label,group\n" + "".join(
        f"{a!r},{b},{c}\n" for a, b, c in zip(s.tolist(), y.tolist(), g.tolist())))
    assert main(["audit", str(path), "--score", "score", "--label", "label", "--group",
                 "group", "--ci-method", "delong", "--report", str(tmp_path / "r.html"),
                 "--high-score", "harmful",
                 "--plot-pairs", "4"]) == 0
    err = capsys.readouterr().err
    # 14 groups: no forest plot; per column the distributions and 4 xROC pictures
    assert re.match(r"estimate: about \d+ s \(.*, 5 pictures in the report\)", err), err
    page = (tmp_path / "r.html").read_text()
    assert len(re.findall(r'alt="xROC curves of', page)) == 4
    assert "xROC pictures of 4 of the 91 pairs" in page


def test_the_distributions_of_many_groups_keep_their_axes():
    """40 groups give a legend of 80 entries: the picture grows by its rows, so that
    constrained layout keeps the axes (it collapsed them with a warning on stderr)."""
    import warnings

    from gpu_xorder.report import _figures

    keys = [f"g{k:02d}" for k in range(40)]
    s, y, g = data(40 * 20, seed=7, groups=keys)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picture = _figures.distributions(s, g, y)
    s2, y2, g2 = data(40, seed=7)  # two groups
    assert picture.height > 2 * _figures.distributions(s2, g2, y2).height


@pytest.mark.parametrize("text", ["loan \u202e 0.867", "evil \x1b[2J", "a\u2066b\u2069 c"])
def test_the_users_own_text_never_acts_on_the_page(text):
    """title, decision and context, like the labels: a control or bidi character is
    shown as its escape wherever the text stands (U+202E in --title once reached the
    page's <title>, outside any <bdi>; an escape sequence reached the HTML)."""
    from gpu_xorder.utils._text import visible

    s, y, g = data()
    page = audit_report(s, y, g, high_score="favourable", level=None, threshold=0.5,
                        title=text, decision=text, context=f"{text}\nline two")
    acting = {"\u202e", "\x1b", "\u2066", "\u2069"}
    # the Unicode isolates the pictures put around labels are the page's own: none
    # comes from the user's text, so none stands outside the SVGs
    outside = re.sub(r"data:image/[^\"']+", "", page)
    assert not acting & set(outside), [c for c in acting if c in outside]
    assert f"<title>{visible(text)}</title>" in page
    assert f"{visible(text)}\nline two" in page
