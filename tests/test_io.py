"""Saved models (JSON, never pickle), CSV tables and atomic writes (``gpu_xorder._io``)."""

import gzip
import json
import os
import re

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from gpu_xorder import XOrder
from gpu_xorder import _io


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
    summary = json.loads(path.read_text())["summary"]
    assert summary["auc"] == xo.result_.auc and summary["method"] == xo.result_.method


def test_save_needs_a_fitted_model(tmp_path):
    with pytest.raises(NotFittedError):
        XOrder().save(tmp_path / "m.json")


def _saved(tmp_path):
    s, y, g = data()
    path = tmp_path / "model.json"
    XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g).save(path)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(format="other"), "'format' field"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d.pop("maps"), "missing or malformed"),
    (lambda d: d.update(maps=[]), "exactly one map"),
    (lambda d: d["maps"][0].update(x=d["maps"][0]["x"][::-1]), "not increasing"),
    (lambda d: d["maps"][0].update(y=d["maps"][0]["y"][:-1]), "one length"),
    (lambda d: d.update(reference_group="zz"), "reference group 'zz'"),
    (lambda d: d["params"].update(colour="red"), "unknown parameters"),
    (lambda d: d.update(groups=["f", "f"]), "distinct"),
])
def test_load_rejects_broken_files(tmp_path, edit, message):
    path, doc = _saved(tmp_path)
    edit(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=message):
        XOrder.load(path)


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
        _io.atomic_write(target, failing)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left


def test_atomic_write_refuses_an_input_and_sets_normal_permissions(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("a\n1\n")
    with pytest.raises(ValueError, match="also an input"):
        _io.atomic_write(source, lambda f: f.write("x"), inputs=[str(source)])
    assert source.read_text() == "a\n1\n"
    out = tmp_path / "new.txt"
    _io.atomic_write(out, lambda f: f.write("x"))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~umask


def test_outputs_in_a_missing_folder_are_refused_up_front(tmp_path):
    target = tmp_path / "missing" / "out.json"
    message = _io.MSG_NO_FOLDER.format(path=target, folder=target.parent)
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        _io.refuse_inputs(target, ())
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        _io.write_json(target, {"a": 1})
    assert not (tmp_path / "missing").exists()
    assert _io.refuse_inputs(tmp_path / "ok.json", ()) == str(tmp_path / "ok.json")


def test_csv_table_reads_columns_and_writes_exact_floats(tmp_path):
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt", newline="") as f:
        f.write("id,score,group\n1,0.1,a\n2,0.30000000000000004,b\n")
    table = _io.Table(path)
    np.testing.assert_array_equal(table.numbers("score"), [0.1, 0.30000000000000004])
    assert table.column("group") == ["a", "b"]
    values = np.array([1 / 3, 2e-300])
    out = tmp_path / "out.csv"
    table.write_with(out, "score", values)  # replaces the column in place
    again = _io.Table(out)
    assert again.header == ["id", "score", "group"]
    np.testing.assert_array_equal(again.numbers("score"), values)
    table.write_with(out, "fair", values)
    assert _io.Table(out).header == ["id", "score", "group", "fair"]


@pytest.mark.parametrize("text,call,message", [
    ("", lambda t: None, "no header row"),
    ("a,b\n1,2\n3\n", lambda t: None, "line 3: 1 fields, the header has 2"),
    ("a,b\n1,2\n", lambda t: t.column("c"), "no column 'c'"),
    ("a,b\n1,2\nx,3\n", lambda t: t.numbers("a"), "line 3: column 'a' holds 'x'"),
])
def test_csv_table_errors_name_the_problem(tmp_path, text, call, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        call(_io.Table(path))
