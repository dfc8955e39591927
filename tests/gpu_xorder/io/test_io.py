"""Saved models (JSON, never pickle), CSV tables and atomic writes (``gpu_xorder.io``,
``gpu_xorder.postprocessing._model_file``)."""

import bz2
import csv
import functools
import gzip
import json
import lzma
import os
import re
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import gpu_xorder
from gpu_xorder import XOrder
from gpu_xorder.io import _csv, _files
from gpu_xorder.postprocessing import _model_file
from support import REPO


def data(n=600, labels=("f", "m"), seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    s = rng.random(n) * scale
    y = (rng.random(n) * scale < s).astype(int)
    g = np.asarray(labels)[rng.integers(0, len(labels), n)]
    return s, y, g


@pytest.mark.parametrize("labels,kwargs,scale", [
    (("f", "m"), dict(lam=1.0), 1.0),
    ((3, 7), dict(lam=0.5, metric="prf"), 1.0),
    (("a", "b", "c"), dict(lam=2.0, method="iterative"), 1.0),
    ((0, 1), dict(lam=1.0, subsample=3, reference_group=0), 5.0),  # not probability-like
    ((False, True), dict(lam=0.3, metric="urf", disparity="signed"), 1.0),
])
def test_saved_model_transforms_bit_for_bit(tmp_path, labels, kwargs, scale):
    s, y, g = data(labels=labels, scale=scale)
    xo = XOrder(backend="numpy", **kwargs).fit(s, y, sensitive_features=g)
    path = tmp_path / "model.json"
    xo.save(path)
    assert path.read_text().startswith("{")  # JSON text, not a pickle
    loaded = XOrder.load(path)
    assert loaded.get_params() == xo.get_params()
    np.testing.assert_array_equal(loaded.groups_, xo.groups_)
    assert loaded.reference_group_ == xo.reference_group_
    assert loaded.clip_ == xo.clip_
    new_s, _, new_g = data(400, labels=labels, seed=1, scale=1.3 * scale)
    new_s -= 0.1 * scale  # beyond the training range on both sides
    np.testing.assert_array_equal(loaded.transform(new_s, sensitive_features=new_g),
                                  xo.transform(new_s, sensitive_features=new_g))
    doc = json.loads(path.read_text())
    summary = doc["summary"]
    assert summary["auc"] == xo.train_auc_ and summary["method"] == xo.result_.method
    assert summary["disparity"] == xo.train_disparity_
    assert summary["ordering_disparity"] == xo.result_.disparity
    assert doc["package_version"] == gpu_xorder.__version__
    assert doc["columns"] == {"score": None, "label": None, "group": None}
    assert doc["fields"] == _model_file.MODEL_GLOSSARY
    assert set(doc) == set(_model_file.MODEL_GLOSSARY)  # the glossary explains every field


def test_a_summary_value_json_cannot_hold_is_saved_as_null(tmp_path, monkeypatch):
    s, y, g = data()
    xo = XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g)
    doc = _model_file.model_to_dict(xo.get_params(), xo.groups_, xo.reference_group_,
                                    xo.bounds_, xo.maps_,
                                    {"gap": np.float64(np.inf), "n": np.int64(3)})
    assert doc["summary"] == {"gap": None, "n": 3}
    _files.write_json(tmp_path / "m.json", doc)
    assert XOrder.load(tmp_path / "m.json").lam == 1.0


def test_save_needs_a_fitted_model(tmp_path):
    with pytest.raises(NotFittedError):
        XOrder().save(tmp_path / "m.json")


@functools.cache
def _saved_text():
    """The text of a model saved by ``XOrder.save``, fitted once (a fit of 300 + 300
    items with the default solver takes about a second, its exact solver included; the
    broken files' cases edit copies of this one document)."""
    import tempfile

    s, y, g = data()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.json"
        XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g).save(path)
        return path.read_text()


def _saved(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(_saved_text())
    return path, json.loads(path.read_text())


BIG = 10**400  # a JSON integer no float holds


def to_version_1(doc, clip):
    """``doc`` as a version-1 file (clip, no package version, columns or glossary)."""
    for field in ("package_version", "columns", "fields"):
        doc.pop(field)
    doc.update(version=1, clip=clip)


def _set_map(key, value):
    return lambda d: d["maps"][0].update({key: value})


# Every class of malformed model file: (edit of a saved model's document, message).
BROKEN_MODELS = [
    (lambda d: d.update(format="other"), "the 'format' field is not 'gpu-xorder-model'"),
    (lambda d: d.update(version=99), "version 99; this gpu-xorder reads versions 1 and 2"),
    (lambda d: d.update(version=True), "'version' must be an integer, got True"),
    (lambda d: d.update(version="1"), "'version' must be an integer, got '1'"),
    (lambda d: d.pop("maps"), "missing fields ['maps']"),
    (lambda d: d.update(extra=1), "unknown fields ['extra']"),
    (lambda d: d.update(summary="x"), "'summary' must be an object"),
    # groups: a list of two or more distinct labels of one type, sorted
    (lambda d: d.update(groups="fm"), "'groups' must be a list of group labels, got 'fm'"),
    (lambda d: d.update(groups=["f"]), "'groups' must list two or more labels"),
    (lambda d: d.update(groups=["f", "f"]), "distinct labels in increasing order"),
    (lambda d: d.update(groups=["m", "f"]), "distinct labels in increasing order"),
    (lambda d: d.update(groups=[0, "f"]), "mixes labels of types int and str"),
    (lambda d: d.update(groups=[None, "f"]), "group label None is not a string"),
    (lambda d: d.update(groups=[["f"], "m"]), "group label ['f'] is not a string"),
    (lambda d: d.update(groups=[BIG, BIG + 1]), "does not fit a 64-bit integer"),
    (lambda d: d.update(reference_group="zz"), "'reference_group': 'zz' is not among"),
    # params: known names, every value checked
    (lambda d: d["params"].update(colour="red"), "unknown parameters ['colour']"),
    (lambda d: d["params"].pop("metric"), "'params' lacks ['metric']"),
    (lambda d: d.update(params=[1]), "'params' must be an object"),
    (lambda d: d["params"].update(lam=None), "'params.lam' must be a finite number >= 0, "
                                             "got None"),
    (lambda d: d["params"].update(lam=-1), "'params.lam' must be a finite number >= 0"),
    (lambda d: d["params"].update(lam="0.5"), "'params.lam' must be a finite number"),
    (lambda d: d["params"].update(lam=True), "'params.lam' must be a finite number"),
    (lambda d: d["params"].update(lam=BIG), "'params.lam' must be a finite number"),
    (lambda d: d["params"].update(metric="auc"), "'params.metric' must be one of"),
    (lambda d: d["params"].update(method=None), "'params.method' must be one of"),
    (lambda d: d["params"].update(subsample=0), "'params.subsample' must be null or an "
                                                "integer >= 1"),
    (lambda d: d["params"].update(subsample=True), "'params.subsample' must be null"),
    (lambda d: d["params"].update(memory_limit=-5), "'params.memory_limit' must be null"),
    (lambda d: d["params"].update(reference_group="m"), "'params.reference_group' 'm' "
                                                        "is not the 'reference_group'"),
    # bounds and clip: two finite numbers, the lower first
    (lambda d: d.update(bounds=[0, BIG]), "'bounds' must be a finite number"),
    (lambda d: d.update(bounds=[0.0]), "'bounds' must be a list of two numbers"),
    (lambda d: d.update(bounds=[1.0, 0.0]), "'bounds' must hold two numbers, the lower "
                                            "first"),
    (lambda d: to_version_1(d, [1, 0]), "'clip' must hold two numbers, the lower first"),
    (lambda d: to_version_1(d, ["0", "1"]), "'clip' must be a finite number, got '0'"),
    (lambda d: to_version_1(d, [1e308 * 10, 1.0]), "Infinity is not a JSON number"),
    (lambda d: d.update(clip=[0, 1]), "unknown fields ['clip']"),  # version 1 only
    (lambda d: (to_version_1(d, None), d.update(columns=None)), "unknown fields "
                                                                "['columns']"),
    # the package version, the column names, the glossary
    (lambda d: d.pop("package_version"), "missing fields ['package_version']"),
    (lambda d: d.update(package_version=3), "'package_version' must be a string, got 3"),
    (lambda d: d.update(columns=["s"]), "'columns' must be an object with the fields "
                                        "score, label and group"),
    (lambda d: d["columns"].update(score=1), "'columns.score' must be a string or null"),
    (lambda d: d["columns"].update(group="g"), "'columns.group' must be a non-empty list"),
    (lambda d: d["columns"].update(group=[]), "'columns.group' must be a non-empty list"),
    (lambda d: d.update(fields={"maps": 1}), "'fields' must be an object of strings"),
    # maps: one per non-reference group, finite increasing knots of one length
    (lambda d: d.update(maps=[]), "needs exactly one map (none for "),
    (lambda d: d.update(maps={}), "'maps' must be a list"),
    (lambda d: d["maps"].append(d["maps"][0]), "given twice or for the reference group"),
    (lambda d: d["maps"][0].update(group=d["reference_group"]), "given twice or for the "
                                                               "reference group"),
    (lambda d: d["maps"][0].update(group="q"), "a map's group: 'q' is not among"),
    (lambda d: d["maps"][0].update(extra=1), "fields group, x and y"),
    (lambda d: d["maps"][0].update(x=d["maps"][0]["x"][::-1]), "not increasing"),
    (lambda d: d["maps"][0].update(y=d["maps"][0]["y"][::-1]), "not increasing"),
    (lambda d: d["maps"][0].update(y=d["maps"][0]["y"][:-1]), "one length"),
    (_set_map("x", []), "x must be a non-empty list of numbers"),
    (_set_map("x", "0.5"), "x must be a non-empty list of numbers"),
    (_set_map("y", [BIG]), "y must be a finite number, got 1000000"),
    (_set_map("x", [0.1, BIG]), "x must be a finite number"),
    (_set_map("x", [False]), "x must be a finite number, got False"),
    (_set_map("y", [None]), "y must be a finite number, got None"),
]


@pytest.mark.parametrize("edit,message", BROKEN_MODELS)
def test_load_rejects_broken_files(tmp_path, edit, message):
    path, doc = _saved(tmp_path)
    edit(doc)
    path.write_text(json.dumps(doc))  # 1e309 is written as Infinity, refused as such
    with pytest.raises(ValueError, match=re.escape(f"{path}: not a gpu-xorder model "
                                                   "file (")) as info:
        XOrder.load(path)
    assert message in str(info.value)


@pytest.mark.parametrize("text,message", [
    ('{"clip": [NaN, NaN]}', "invalid JSON: NaN is not a JSON number"),
    ('{"clip": [1e999, 0]}', "the 'format' field"),  # read as inf, refused by the schema
    ("[" * 100000 + "]" * 100000, "JSON nested too deeply"),
    ('{"a": ' + "9" * 5000 + "}", "invalid JSON"),
    ("[1, 2]", "the file holds a JSON list, not an object"),
    ("{not json", "invalid JSON"),
])
def test_load_rejects_what_is_not_strict_json(tmp_path, text, message):
    path = tmp_path / "model.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        XOrder.load(path)


def test_model_files_bytes_are_checked(tmp_path):
    path, _ = _saved(tmp_path)
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(ValueError, match="UTF-16"):
        XOrder.load(path)
    path.write_bytes(b'{"format": "\xe9"}')
    with pytest.raises(ValueError, match="line 1: not UTF-8"):
        XOrder.load(path)
    path.write_bytes(gzip.compress(b'{"format": 1}')[:12])
    with pytest.raises(ValueError, match="cannot read the gzip data"):
        XOrder.load(path)


def test_version_1_files_load_and_transform_as_they_did(tmp_path):
    """A file as gpu-xorder wrote it before version 2 (no package version, columns or
    glossary; a clipping range): its maps keep their end segments' slopes and clip."""
    doc = {"format": "gpu-xorder-model", "version": 1,
           "params": {"metric": "xauc", "lam": 1.0, "disparity": "absolute",
                      "reference_group": None, "backend": "numpy", "method": "auto",
                      "subsample": None, "memory_limit": None},
           "groups": ["f", "m"], "reference_group": "m", "bounds": [0.0, 1.0],
           "clip": [0.0, 1.0],
           "maps": [{"group": "f", "x": [0.2, 0.4, 0.6], "y": [0.5, 0.6, 0.9]}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    loaded = XOrder.load(path)
    assert loaded.clip_ == (0.0, 1.0)
    out = loaded.transform([0.3, 0.5, 0.1, 0.8, 0.77], sensitive_features=list("ffffm"))
    np.testing.assert_allclose(out, [0.55, 0.75, 0.45, 1.0, 0.77], rtol=0, atol=1e-15)
    # a model fitted after loading one transforms by the current rule
    s, y, g = data()
    loaded.fit(s, y, sensitive_features=g)
    np.testing.assert_array_equal(loaded.transform(s, sensitive_features=g),
                                  loaded.train_scores_adjusted_)


def test_the_guide_explains_every_field_of_a_model_file():
    guide = (REPO / "docs" / "user_guide" / "files.md").read_text()
    part = guide.split("- **Model files**", 1)[1].split("\n\n", 1)[0]
    assert [f for f in _model_file.MODEL_GLOSSARY if f"`{f}`" not in part] == []


def test_model_file_names_the_score_column_of_a_data_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    s, y, g = data()
    xo = XOrder(lam=1.0, backend="numpy").fit(pd.DataFrame({"risk": s}), y,
                                              sensitive_features=g)
    xo.save(tmp_path / "m.json")
    columns = json.loads((tmp_path / "m.json").read_text())["columns"]
    assert columns == {"score": "risk", "label": None, "group": None}


def test_integer_groups_and_the_new_parameters_load(tmp_path):
    """Labels keep their JSON type (True is not 1); ``solver`` and ``max_disparity`` are
    checked when present and may be missing (older files)."""
    s, y, g = data(labels=(0, 1))
    path = tmp_path / "model.json"
    XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g).save(path)
    doc = json.loads(path.read_text())
    assert XOrder.load(path).groups_.dtype == np.int64
    doc["maps"][0]["group"] = bool(doc["maps"][0]["group"])
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="a map's group: (True|False) is not among"):
        XOrder.load(path)
    doc = json.loads(json.dumps(doc).replace("true", "1").replace("false", "0"))
    params = ("solver", "max_disparity", "validation", "exact_budget") + (
        _model_file.REQUIRED_PARAMS)
    for extra, message in [({"solver": "exact", "max_disparity": 0.1}, None),
                           ({"solver": "exact", "max_disparity": None}, None),
                           ({"solver": "magic"}, "'params.solver' must be one of"),
                           ({"max_disparity": 1.5}, "'params.max_disparity' must be a "
                                                    "finite number in [0, 1]"),
                           ({"max_disparity": "0.1"}, "'params.max_disparity'")]:
        doc["params"].update({"solver": "exact", "max_disparity": None}, **extra)
        if message is None:
            parsed = _model_file.model_from_dict(doc, known_params=params)
            assert parsed[0]["solver"] == "exact"
        else:
            with pytest.raises(ValueError, match=re.escape(message)):
                _model_file.model_from_dict(doc, known_params=params)


def test_load_rejects_invalid_json(tmp_path):
    path = tmp_path / "model.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="invalid JSON"):
        XOrder.load(path)


def test_atomic_write_keeps_the_target_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def failing(f):
        f.write("partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        _files.atomic_write(target, failing)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left


def test_atomic_write_refuses_an_input_and_sets_normal_permissions(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("a\n1\n")
    with pytest.raises(ValueError, match="also an input"):
        _files.atomic_write(source, lambda f: f.write("x"), inputs=[str(source)])
    assert source.read_text() == "a\n1\n"
    out = tmp_path / "new.txt"
    _files.atomic_write(out, lambda f: f.write("x"))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~umask


def test_outputs_in_a_missing_folder_are_refused_up_front(tmp_path):
    target = tmp_path / "missing" / "out.json"
    message = _files.MSG_NO_FOLDER.format(path=target, folder=target.parent)
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        _files.check_output(target, ())
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        _files.write_json(target, {"a": 1})
    assert not (tmp_path / "missing").exists()
    assert _files.check_output(tmp_path / "ok.json", ()) == str(tmp_path / "ok.json")


def test_csv_table_reads_columns_and_writes_exact_floats(tmp_path):
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt", newline="") as f:
        f.write("id,score,group\n1,0.1,a\n2,0.30000000000000004,b\n")
    table = _csv.Table(path)
    np.testing.assert_array_equal(table.numbers("score"), [0.1, 0.30000000000000004])
    assert table.column("group") == ["a", "b"]
    values = np.array([1 / 3, 2e-300])
    out = tmp_path / "out.csv"
    _files.write_files([(out, table.writer("score", values), "")])  # replaces the column
    again = _csv.Table(out)
    assert again.header == ["id", "score", "group"]
    np.testing.assert_array_equal(again.numbers("score"), values)
    _files.write_files([(out, table.writer("fair", values), "")])
    assert _csv.Table(out).header == ["id", "score", "group", "fair"]


# Every class of malformed CSV text: (text, what is read, message after "t.csv").
BROKEN_TABLES = [
    ("", None, ": no header row"),
    ("\n  \n\n", None, ": no header row"),
    ("a,b\n\n", None, ": no rows after the header"),
    ("a,b\n1,2\n3\n", None, ", line 3: 1 fields, the header has 2"),
    ("a,b,a\n1,2,3\n", None, ": the header names column 'a' twice (columns 1 and 3)"),
    ("a,b\n1,2\n", lambda t: t.column("c"), ": no column 'c' (columns: 'a', 'b')"),
    ("a, b\n1,2\n", lambda t: t.column("b"), ": no column 'b' (columns: 'a', ' b')"),
    ("a,b\n1,2\nx,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' holds 'x', not "
                                                  "a number"),
    ("a,b\n1,2\n,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' is blank"),
    ("a,b\n1,2\n  ,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' is blank"),
    ("a,b\n1,2\nnan,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' holds 'nan', "
                                                    "not a finite number"),
    ("a,b\n1,2\n-inf,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' holds '-inf'"),
    ("a,b\n1,2\n1e999,3\n", lambda t: t.numbers("a"), ", line 3: column 'a' holds "
                                                      "'1e999', not a finite number"),
    # blank group cells, alone or in an intersection, are not a group ""
    ("a,b\n1,x\n2,\n", lambda t: t.groups(["b"]), ", line 3: column 'b' is blank"),
    ("a,b\n1,x\n2, \n", lambda t: t.groups(["a", "b"]), ", line 3: column 'b' is blank"),
    ("a,b\n1,x\n2.5,y\n", lambda t: t.groups(["a"], "int"),
     ", line 3: column 'a' holds '2.5', not an integer group label"),
    ("a,b\n1,x\n" + "9" * 30 + ",y\n", lambda t: t.groups(["a"], "int"),
     ", line 3: column 'a' holds '999"),
    ("a,b\n1,x\nyes,y\n", lambda t: t.groups(["a"], "bool"), "not a boolean"),
    # one long cell would widen every row's label: refused (issue #25)
    ("a,b\n1,x\n2," + "y" * 2**20 + "\n", lambda t: t.groups(["b"]),
     ", line 3: column 'b' holds a group label of 1048576 characters, more than 1000"),
    ("a,b\n1,x\n2," + "y" * 1001 + "\n", lambda t: t.groups(["a", "b"]),
     ", line 3: column 'b' holds a group label of 1001 characters"),
    ("a,b\n1,x\nnan,y\n", lambda t: t.groups(["a"], "float"), "not a finite float"),
    # line numbers count blank lines and the lines of multi-line quoted cells
    ('a,b\n\n1,"two\nlines"\n\n\r\n3,"x"\r\nz,4\n', lambda t: t.numbers("a"),
     ", line 8: column 'a' holds 'z'"),
    ('a,b\n1,"never closed\n2,3\n', None, ", line 2: malformed CSV (unexpected end of "
                                          "data)"),
    ('a,b\n1,"x"y\n', None, ", line 2: malformed CSV"),
    ("a,b\n1,\xe9\n".encode("latin-1"), None, ", line 2: not UTF-8 text (byte b'\\xe9')"),
    ("a,b\n1,2\n".encode("utf-16"), None, ": the file is UTF-16 text"),
    (gzip.compress(b"a,b\n" + b"1,2\n" * 1000, mtime=0)[:25], None,
     ": cannot read the gzip data (Compressed file ended"),
    (gzip.compress(b"a,b\n1,2\n", mtime=0)[:-8] + b"\0" * 8, None,
     ": cannot read the gzip data"),
    (b"\x1f\x8b" + bytes(30), None, ": cannot read the gzip data"),
    (bz2.compress(b"a,b\n1,2\n")[:-6], None, ": cannot read the bz2 data"),
    (lzma.compress(b"a,b\n1,2\n")[:-6], None, ": cannot read the xz data"),
]


@pytest.mark.parametrize("text,call,message", BROKEN_TABLES)
def test_csv_table_errors_name_the_problem(tmp_path, text, call, message):
    path = tmp_path / "t.csv"
    if isinstance(text, str):
        path.write_text(text, newline="")
    else:
        path.write_bytes(text)
    with pytest.raises(ValueError) as info:
        table = _csv.Table(path)
        if call is not None:
            call(table)
    assert str(info.value).startswith(str(path)) and message in str(info.value)


def test_csv_reader_takes_what_spreadsheets_write(tmp_path):
    """A byte-order mark, CRLF lines, huge cells, compression recognised by content
    (also under a wrong name), and group labels read as the model's type."""
    text = "\ufeffrisk,group,note\r\n0.5,1,\"" + "x" * 200_000 + "\"\r\n0.25,0,\r\n"
    path = tmp_path / "excel.csv"
    path.write_bytes(text.encode("utf-8"))
    table = _csv.Table(path)
    assert table.header == ["risk", "group", "note"] and table.lines == [2, 3]
    assert len(table.column("note")[0]) == 200_000
    assert table.groups(["group"], "int").tolist() == [1, 0]
    assert table.groups(["group"], "int").dtype == np.int64
    assert table.groups(["group"], "bool").tolist() == [True, False]
    assert table.groups(["group"], "float").tolist() == [1.0, 0.0]
    assert table.groups(["group"]).tolist() == ["1", "0"]
    for name, compress in [("a.gz", gzip.compress), ("a.bz2", bz2.compress),
                           ("a.xz", lzma.compress), ("not-gzip.csv", gzip.compress)]:
        (tmp_path / name).write_bytes(compress(text.encode("utf-8")))
        assert _csv.Table(tmp_path / name).rows == table.rows
    (tmp_path / "plain.csv.gz").write_text("a,b\n1,2\n")  # text named .gz: still text
    assert _csv.Table(tmp_path / "plain.csv.gz").rows == [["1", "2"]]


def test_csv_reader_warns_about_spaces_and_inexact_integers(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("s,g\n9007199254740993,a\n2,b \n3, b\n4,a\n")
    table = _csv.Table(path)
    with pytest.warns(UserWarning) as caught:
        s = table.numbers("s")
        labels = table.groups(["g"])
    assert labels.tolist() == ["a", "b", "b", "a"]  # one group b, not "b " and " b"
    assert s[0] == 2.0**53
    assert [str(w.message) for w in caught] == [
        f"{path}, line 2: column 's' holds the integer 9007199254740993, beyond 2**53; "
        "float64 rounds it to 9007199254740992.0 (and 0 more such cells), so nearly equal "
        "scores may tie",
        f"{path}: column 'g' has spaces around the group label in 2 of its cells (first "
        "on line 3: 'b '); the spaces are ignored"]


def test_csv_reader_restores_the_field_size_limit(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a\n" + "x" * 200_000 + "\n")
    before = csv.field_size_limit()
    assert len(_csv.Table(path).rows[0][0]) == 200_000
    assert csv.field_size_limit() == before


# ------------------------------------------------------------------ outputs

@pytest.mark.parametrize("suffix,open_", [(".gz", gzip.open), (".bz2", bz2.open),
                                          (".xz", lzma.open)])
def test_compressed_names_are_written_compressed(tmp_path, suffix, open_):
    source = tmp_path / "in.csv"
    source.write_text("a,b\n1,2\n")
    out = tmp_path / f"out.csv{suffix}"
    _files.write_files([(out, _csv.Table(source).writer("c", [0.5]), "")])
    with open_(out, "rt") as f:
        assert f.read() == "a,b,c\n1,2,0.5\n"
    assert _csv.Table(out).rows == [["1", "2", "0.5"]]
    if suffix == ".gz":  # the output's name in the header, not the temporary file's
        assert b"out.csv\0" in out.read_bytes()[:40]


def test_outputs_are_checked_before_any_work(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("a\n1\n")
    (tmp_path / "folder").mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    hard = tmp_path / "hard.csv"
    os.link(source, hard)
    link = tmp_path / "link.csv"
    link.symlink_to(source)
    for path, error, message in [
            (tmp_path / "folder", ValueError, "it is a folder, not a regular file"),
            ("-", ValueError, "it is this command's standard output"),
            (source, ValueError, "it is also an input"),
            (hard, ValueError, "it is also an input"),
            (link, ValueError, "it is also an input")]:
        with pytest.raises(error, match=re.escape(f"refusing to write {path}: {message}")):
            _files.check_output(path, inputs=[source])
    out = tmp_path / "out.csv"
    with pytest.raises(ValueError, match="refusing to write .* twice"):
        _files.check_outputs([out, tmp_path / "." / "out.csv"])
    assert source.read_text() == "a\n1\n"
    # a device or a pipe is written as it is, directly: nothing staged beside it
    assert _files.check_output("/dev/null") == "/dev/null"
    assert _files.check_output(fifo) == os.fspath(fifo)


def test_devices_and_pipes_are_written_directly(tmp_path):
    """A FIFO (as ``>(command)`` gives) gets the text, after the regular files."""
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    _files.write_files([(tmp_path / "a.txt", lambda f: f.write("file"), None),
                        (fifo, lambda f: f.write("piped"), None)])
    reader.join(10)
    assert got == ["piped"] and (tmp_path / "a.txt").read_text() == "file"
    _files.write_json("/dev/null", {"a": 1})
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "fifo"]


def test_the_standard_output_is_refused_where_it_is_a_file(tmp_path):
    """``--json /dev/stdout > file``: replacing the file would lose the printed tables;
    the same file by any path is refused, a terminal or other file is not."""
    import subprocess
    import sys

    script = ("import sys; from gpu_xorder.io import _files\n"
              "try:\n    _files.check_output(sys.argv[1])\n"
              "except ValueError as exc:\n    print(exc, file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    for path in ("/dev/stdout", str(tmp_path / "printed.txt")):
        with open(tmp_path / "printed.txt", "w") as stdout:
            run = subprocess.run([sys.executable, "-c", script, path], stdout=stdout,
                                 stderr=subprocess.PIPE, text=True, env=env, timeout=60)
        assert f"refusing to write {path}: it is this command's standard output" in (
            run.stderr), run.stderr
    with open(tmp_path / "printed.txt", "w") as stdout:
        run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "other.txt")],
                             stdout=stdout, stderr=subprocess.PIPE, text=True, env=env,
                             timeout=60)
    assert run.stderr == ""


def test_names_too_long_for_the_file_system_are_refused_up_front(tmp_path):
    """NAME_MAX in bytes (UTF-8: 130 characters of two bytes are 260), for a file, a
    folder and a folder's file, before any work."""
    for name in ("x" * 256 + ".json", "\u00e9" * 130):
        with pytest.raises(OSError, match=r"its name is \d+ bytes long, more than the "
                                          r"255 the file system allows"):
            _files.check_output(tmp_path / name)
        with pytest.raises(OSError, match="bytes long"):
            _files.check_all_outputs(folders=[("--plot", tmp_path / name, None)])
        with pytest.raises(OSError, match="bytes long"):
            _files.check_all_outputs(folders=[("--plot", tmp_path / "P", ["a", name])])
    _files.check_output(tmp_path / ("x" * 250 + ".json"))  # 255 bytes: fine
    assert os.listdir(tmp_path) == []


def test_unwritable_outputs_are_refused_up_front(tmp_path, monkeypatch):
    out = tmp_path / "out.csv"
    out.write_text("old")
    out.chmod(0o444)
    if os.access(out, os.W_OK):  # root
        monkeypatch.setattr(_files.os, "access", lambda path, mode: False)
    with pytest.raises(PermissionError, match=re.escape(f"cannot write {out}: the file "
                                                        "is read-only")):
        _files.check_output(out)
    monkeypatch.undo()
    out.chmod(0o644)

    def locked(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_files.tempfile, "mkstemp", locked)
    with pytest.raises(PermissionError, match=re.escape(
            f"cannot write {out}: cannot create files in {tmp_path} (Permission denied)")):
        _files.check_output(out)


def test_a_link_is_written_through(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    _files.atomic_write(link, lambda f: f.write("new"))
    assert link.is_symlink() and target.read_text() == "new"
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


def test_write_files_writes_all_or_nothing(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old")

    def failing(f):
        f.write("partial")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match=re.escape(f"cannot write {second}: No space left "
                                                "on device")):
        _files.write_files([(first, lambda f: f.write("new"), None), (second, failing, None)])
    assert first.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]  # no temporary left


@pytest.mark.skipif(signal.getsignal(signal.SIGTERM) != signal.SIG_DFL,
                    reason="SIGTERM has a handler here")
def test_sigterm_during_a_write_removes_the_temporary_file(tmp_path):
    def killed(f):
        f.write("x" * 100_000)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal arrives first

    with pytest.raises(SystemExit) as info:
        _files.atomic_write(tmp_path / "out.txt", killed)
    assert info.value.code == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_all_outputs_are_distinct_by_any_path(tmp_path, monkeypatch):
    """Outputs named by a link to a folder, by ``..`` or (where the file system ignores
    case) by another case are one file; a folder output's files count too."""
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    twice = "refusing to write .* twice: two outputs of this command name it"
    with pytest.raises(ValueError, match=twice + re.escape(" (--a and --b)")):
        _files.check_all_outputs([("--a", tmp_path / "d" / "x"),
                               ("--b", tmp_path / "link" / "x")])
    with pytest.raises(ValueError, match=twice + re.escape(
            " (--a and the file x of --plot)")):
        _files.check_all_outputs([("--a", tmp_path / "d" / ".." / "d" / "x")],
                              [("--plot", tmp_path / "link", ["y", "x"])])
    _files.check_all_outputs([("--a", tmp_path / "x.json"), ("--b", tmp_path / "X.JSON")])
    monkeypatch.setattr(_files, "_ignores_case", lambda folder: True)
    with pytest.raises(ValueError, match=twice):
        _files.check_all_outputs([("--a", tmp_path / "x.json"), ("--b", tmp_path / "X.JSON")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "link"]


def test_staged_folder_errors_name_the_output(tmp_path):
    """An error while the folder is staged or moved into place names the user's path,
    never the temporary folder, and leaves nothing behind."""
    out = tmp_path / "out"
    (out / "records.json").mkdir(parents=True)
    with pytest.raises(OSError) as info:
        with _files.staged_folder(out) as folder:
            (Path(folder) / "records.json").write_text("{}")
    assert info.value.strerror == f"cannot write {out}/records.json: Is a directory"
    assert info.value.filename is None  # the one line names no temporary path
    with pytest.raises(OSError, match=re.escape(f"cannot write {out}/x.png: No space")):
        with _files.staged_folder(out) as folder:
            raise OSError(28, "No space left on device", os.path.join(folder, "x.png"))
    assert sorted(p.name for p in out.iterdir()) == ["records.json"]


def test_staged_folder_removes_only_the_owned_files_it_did_not_write(tmp_path):
    """Into an existing folder: the files written replace theirs, the ``owned`` names
    not written this time are removed (an earlier run's outputs), anything else stays,
    and a name that is a path is never followed; an error removes nothing."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("a.png", "b.png", "tables.md", "mine.txt"):
        (out / name).write_text("old")
    (tmp_path / "outside.png").write_text("keep")
    owned = {"a.png", "b.png", "c.png", "tables.md", "../outside.png"}
    with pytest.raises(RuntimeError):
        with _files.staged_folder(out, owned) as folder:
            (Path(folder) / "a.png").write_text("new")
            raise RuntimeError("the work failed")
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.png", "mine.txt",
                                                      "tables.md"]
    with _files.staged_folder(out, owned) as folder:
        (Path(folder) / "a.png").write_text("new")
        (Path(folder) / "tables.md").write_text("new")
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "a.png": "new", "tables.md": "new", "mine.txt": "old"}
    assert (tmp_path / "outside.png").read_text() == "keep"


@pytest.mark.parametrize("text,shown", [
    ("abc", "'abc'"),
    ("x" * 78, "'" + "x" * 78 + "'"),
    ("x" * 79, "'" + "x" * 40 + "..." + "x" * 10 + "' (79 characters)"),
    ("x" * 2_000_000, "'" + "x" * 40 + "..." + "x" * 10 + "' (2000000 characters)"),
])
def test_cells_in_messages_are_shortened(text, shown):
    assert _csv.shown_cell(text) == shown
