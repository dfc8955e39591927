"""The numbers ``gpu-xorder fit`` and ``transform`` print and write, against oracles.

The files are written and read back with Python's ``csv`` module (not the package's
reader); the metrics are O(n^2) pair loops in exact fractions from their definitions
(docs/design.md, section 2: a pair counts 1 when the upper score is strictly larger,
1/2 on a tie; with more than two groups the largest pair's disparity).
"""

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from gpu_xorder import XOrder
from gpu_xorder.cli import main
from support.console import table_rows
from support.csvfiles import read_column, write_csv

pytestmark = pytest.mark.usefixtures("plain_consoles")

COLUMNS = {"auc": 1, "xauc": 2, "prf": 3, "urf": 4}  # the table's columns


# ---------------------------------------------------------------------------------------
# Oracles


def above(s_i, s_j):
    return Fraction(1) if s_i > s_j else Fraction(1, 2) if s_i == s_j else Fraction(0)


def share(scores, upper, lower):
    """P(upper > lower) over every pair; None without pairs (the metric is undefined)."""
    if not upper or not lower:
        return None
    return sum(above(scores[i], scores[j]) for i in upper for j in lower) / (
        len(upper) * len(lower))


def gap(first, second, worst):
    if worst is None or first is None or second is None:
        return None
    return max(worst, abs(first - second))


def pair_metrics(scores, y, groups):
    """``{"auc", "xauc", "prf", "urf"}`` of ``scores`` by their definitions, exactly."""
    n = len(scores)
    pos = [i for i in range(n) if y[i] == 1]
    neg = [i for i in range(n) if y[i] == 0]

    def of(g, label=None):
        return [i for i in range(n) if groups[i] == g and (label is None or y[i] == label)]

    out = {"auc": share(scores, pos, neg), "xauc": 0, "prf": 0, "urf": 0}
    for g, h in itertools.combinations(sorted(set(groups)), 2):
        out["xauc"] = gap(share(scores, of(g, 1), of(h, 0)), share(scores, of(h, 1), of(g, 0)),
                          out["xauc"])
        out["prf"] = gap(share(scores, of(g, 1), neg), share(scores, of(h, 1), neg),
                         out["prf"])
        out["urf"] = gap(share(scores, of(g), of(h)), share(scores, of(h), of(g)), out["urf"])
    return out


def assert_printed(row, values):
    """A printed row (4 decimals) against the exact values."""
    for name, column in COLUMNS.items():
        if values[name] is None:
            assert row[column] == "n/a", (name, row)
        else:
            assert abs(float(row[column]) - float(values[name])) <= 5e-5 + 1e-12, (name, row)


# ---------------------------------------------------------------------------------------
# Files


def bits(a):
    return np.asarray(a, dtype=np.float64).view(np.int64)


def training_data(seed, labels, n, logit, grid=6):
    """Scores on a coarse grid (ties within and across groups), both labels in every
    group of two or more items (a group of one: a positive)."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array(labels), n)
    y = np.concatenate([rng.permutation([1, 0] + list(rng.integers(0, 2, k - 2)))
                        if k > 1 else [1] for k in n])
    p = rng.integers(1, grid, groups.size) / grid + 0.04 * (groups == labels[0]) + 0.02 * y
    scores = np.log(p / (1 - p)) if logit else p
    return scores, y, groups


def fit_args(data, model, *extra):
    return ["fit", str(data), "--score", "score", "--label", "outcome", "--group", "region",
            "--model", str(model), "--backend", "numpy", *extra]


# ---------------------------------------------------------------------------------------
# 4. fit prints the metrics of the scores it writes.


@pytest.mark.parametrize("metric,labels,n,logit", [
    ("xauc", ("south", "north"), (9, 8), False),
    ("prf", ("south", "north", "east"), (7, 6, 5), True),
    ("urf", ("b b", "a"), (8, 1), False),   # a group of one item
    ("xauc", ("west", "east", "centre"), (6, 6, 6), False),
])
def test_fit_prints_and_saves_the_metrics_of_the_scores_it_writes(
        tmp_path, capsys, metric, labels, n, logit):
    scores, y, groups = training_data(len(labels) + sum(n), labels, n, logit)
    data, model, out = tmp_path / "train.csv", tmp_path / "model.json", tmp_path / "out.csv"
    write_csv(data, {"id": np.arange(scores.size), "score": scores, "outcome": y,
                     "region": groups})
    assert main(fit_args(data, model, "--output", str(out), "--metric", metric,
                         "--lam", "0.5", "3")) == 0
    captured = capsys.readouterr()
    # scores on a coarse grid: at lam 3 an ordering may separate equal scores, and then
    # the written scores can fall below the input's objective, which fit says
    assert all(line.startswith("warning: the adjusted training scores reach")
               for line in captured.err.splitlines())
    rows = table_rows(captured.out, "Training data")
    assert [row[0] for row in rows] == ["unadjusted", "0.5", "3"]
    assert read_column(out, "score").tolist() == scores.tolist()
    written = read_column(out, "score_fair")
    groups_read = read_column(out, "region", str).tolist()
    y_read = read_column(out, "outcome", int).tolist()

    # the printed numbers are the definitions' on the input and on the written scores
    assert_printed(rows[0], pair_metrics(scores.tolist(), y_read, groups_read))
    exact = pair_metrics(written.tolist(), y_read, groups_read)
    assert_printed(rows[2], exact)  # the saved model is the last lam's
    doc = json.loads(model.read_text())
    assert doc["summary"]["auc"] == pytest.approx(float(exact["auc"]), abs=1e-12)
    assert doc["summary"]["disparity"] == pytest.approx(float(exact[metric]), abs=1e-12)

    # the written scores are the API's, bit for bit; the reference rows keep their text
    est = XOrder(lam=3.0, metric=metric, backend="numpy").fit(
        scores, y, sensitive_features=groups)
    assert np.array_equal(bits(written), bits(est.train_scores_adjusted_))
    ref = groups == doc["reference_group"]
    assert np.array_equal(bits(written[ref]), bits(scores[ref]))
    # the other lam's row: the API model of that lam, measured by the definitions
    other = XOrder(lam=0.5, metric=metric, backend="numpy").fit(
        scores, y, sensitive_features=groups)
    assert_printed(rows[1], pair_metrics(other.train_scores_adjusted_.tolist(), y_read,
                                         groups_read))


def test_fit_with_choose_saves_and_writes_the_chosen_lam(tmp_path, capsys):
    scores, y, groups = training_data(3, ("s", "t"), (8, 8), False)
    data, model, out = tmp_path / "train.csv", tmp_path / "model.json", tmp_path / "out.csv"
    write_csv(data, {"score": scores, "outcome": y, "region": groups})
    assert main(fit_args(data, model, "--output", str(out), "--lam", "0", "2", "5",
                         "--choose", "2")) == 0
    rows = table_rows(capsys.readouterr().out, "Training data")
    written = read_column(out, "score_fair")
    exact = pair_metrics(written.tolist(), y.tolist(), groups.tolist())
    assert_printed(rows[2], exact)
    doc = json.loads(model.read_text())
    assert doc["params"]["lam"] == 2.0
    assert doc["summary"]["disparity"] == pytest.approx(float(exact["xauc"]), abs=1e-12)


# ---------------------------------------------------------------------------------------
# transform: the same numbers as the API, bit for bit.


def test_transform_gives_the_fit_scores_back_and_the_api_numbers(tmp_path, capsys):
    labels = ("north", "south", "east")
    scores, y, groups = training_data(11, labels, (7, 6, 5), False)
    data, model, out = tmp_path / "train.csv", tmp_path / "model.json", tmp_path / "out.csv"
    write_csv(data, {"score": scores, "outcome": y, "region": groups})
    assert main(fit_args(data, model, "--output", str(out), "--lam", "2")) == 0
    written = read_column(out, "score_fair")

    # the training file again: the fit's scores, bit for bit
    again = tmp_path / "again.csv"
    assert main(["transform", str(data), "--model", str(model), "--score", "score",
                 "--group", "region", "--output", str(again)]) == 0
    assert np.array_equal(bits(read_column(again, "score_fair")), bits(written))

    # new scores: training scores, midpoints, outside the training range and the bounds,
    # the bounds themselves, each group
    doc = json.loads(model.read_text())
    lo, hi = doc["bounds"]
    u = np.unique(scores)
    t = np.concatenate([u, (u[1:] + u[:-1]) / 2, [lo, hi, lo - 0.5, hi + 0.5, -3.0, 7.0,
                                                  0.0, 1.0]])
    new_s = np.tile(t, len(labels))
    new_g = np.repeat(np.array(labels), t.size)
    new_y = np.tile(np.arange(t.size) % 2, len(labels))
    test, fair = tmp_path / "test.csv", tmp_path / "fair.csv"
    write_csv(test, {"score": new_s, "outcome": new_y, "region": new_g})
    capsys.readouterr()
    assert main(["transform", str(test), "--model", str(model), "--score", "score",
                 "--group", "region", "--label", "outcome", "--output", str(fair)]) == 0
    rows = table_rows(capsys.readouterr().out, "Data")
    adjusted = read_column(fair, "score_fair")
    api = XOrder(lam=2.0, backend="numpy").fit(scores, y, sensitive_features=groups)
    loaded = XOrder.load(model)
    for est in (api, loaded):
        assert np.array_equal(bits(est.transform(new_s, sensitive_features=new_g)),
                              bits(adjusted))
    assert_printed(rows[1], pair_metrics(adjusted.tolist(), new_y.tolist(), new_g.tolist()))
    # beyond the bounds, the identity; within every group, monotone
    beyond = (new_s < lo) | (new_s > hi)
    assert np.array_equal(bits(adjusted[beyond]), bits(new_s[beyond]))
    for g in labels:
        mine = new_g == g
        by = np.argsort(new_s[mine], kind="stable")
        assert (np.diff(adjusted[mine][by]) >= 0).all()


# ---------------------------------------------------------------------------------------
# 3. transform never writes over its input and writes nothing on failure.


def broken_models(text):
    def edit(change):
        copy = json.loads(text)
        change(copy)
        return json.dumps(copy)

    def reverse_x(d):
        d["maps"][0]["x"] = d["maps"][0]["x"][::-1]

    return {
        "x reversed": edit(reverse_x),
        "unknown field": edit(lambda d: d.__setitem__("pickle", "gASV")),
        "truncated": text[:len(text) // 3],
        "NaN bound": edit(lambda d: d["bounds"].__setitem__(1, float("nan"))),
        "knot past float64": edit(lambda d: d["maps"][0]["y"].__setitem__(-1, 1e308))
        .replace("1e+308", "1e999"),
    }


def test_transform_failures_write_nothing_and_leave_every_file(tmp_path, capsys):
    scores, y, groups = training_data(5, ("u", "v"), (6, 6), False)
    data, model = tmp_path / "train.csv", tmp_path / "model.json"
    write_csv(data, {"score": scores, "outcome": y, "region": groups})
    assert main(fit_args(data, model, "--lam", "1")) == 0
    text = model.read_text()
    out = tmp_path / "out.csv"
    out.write_text("kept\n")

    def transform(data_path, model_path, output):
        capsys.readouterr()
        before = {p: p.read_bytes() for p in tmp_path.iterdir()}
        code = main(["transform", str(data_path), "--model", str(model_path), "--score",
                     "score", "--group", "region", "--output", str(output)])
        err = capsys.readouterr().err
        assert code == 2
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
        assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
        return err

    for name, content in broken_models(text).items():
        assert content != text, name
        bad = tmp_path / "bad_model.json"
        bad.write_text(content)
        err = transform(data, bad, out)
        assert "not a gpu-xorder model file" in err, name
        bad.unlink()
    # the output is an input: the data or the model
    for output in (data, model):
        transform(data, model, output)
    # bad data: NaN and inf scores, a group the model does not know
    for name, cell in (("nan", "nan"), ("inf", "inf"), ("group", None)):
        bad = tmp_path / f"bad_{name}.csv"
        rows = data.read_text().splitlines()
        head, first = rows[0], rows[1].split(",")
        if cell is None:
            first[2] = "w"
        else:
            first[0] = cell
        bad.write_text("\n".join([head, ",".join(first), *rows[2:]]) + "\n")
        transform(bad, model, out)
        bad.unlink()
    assert out.read_text() == "kept\n"
    assert model.read_text() == text


def test_a_model_fitted_on_integer_groups_transforms_a_csv_file(tmp_path):
    scores, y, _ = training_data(8, ("p", "q"), (7, 7), True)
    groups = np.repeat([7, -2], 7)
    est = XOrder(lam=1.5, backend="numpy").fit(scores, y, sensitive_features=groups)
    model, data, out = tmp_path / "model.json", tmp_path / "data.csv", tmp_path / "out.csv"
    est.save(model)
    new_s = np.concatenate([scores, scores + 0.3, [-40.0, 40.0]])
    new_g = np.concatenate([groups, groups[::-1], [7, -2]])
    write_csv(data, {"score": new_s, "region": new_g})
    assert main(["transform", str(data), "--model", str(model), "--score", "score",
                 "--group", "region", "--output", str(out)]) == 0
    assert np.array_equal(bits(read_column(out, "score_fair")),
                          bits(est.transform(new_s, sensitive_features=new_g)))


def test_fit_max_disparity_prints_a_disparity_within_the_constraint(tmp_path, capsys):
    data, model, out = tmp_path / "train.csv", tmp_path / "model.json", tmp_path / "out.csv"
    write_csv(data, {"score": [0.4, 0.4, 0.7, 0.6, 0.6, 0.6], "outcome": [1, 1, 0, 1, 0, 0],
                     "region": list("aaabbb")})
    assert main(fit_args(data, model, "--output", str(out), "--max-disparity", "0.1")) == 0
    rows = table_rows(capsys.readouterr().out, "Training data")
    assert rows[1][0] == "|D|<=0.1"
    written = read_column(out, "score_fair")
    exact = pair_metrics(written.tolist(), [1, 1, 0, 1, 0, 0], list("aaabbb"))
    assert_printed(rows[1], exact)  # the printed number is the written scores'
    assert exact["xauc"] <= Fraction(1, 10)


def test_fit_keeps_urf_ties_whole_so_the_written_scores_keep_the_constraint(tmp_path, capsys):
    # URF on a coarse grid (design section 5): |D| 0 needs an ordering that splits a
    # group's equal scores, which no scores write; fit says so (exit 2) and, at the
    # loosest constraint its orderings meet, writes scores whose |D| is the row's
    data, model, out = tmp_path / "train.csv", tmp_path / "model.json", tmp_path / "out.csv"
    scores, y = [0.6, 0.1, 0.1, 0.1, 0.35, 0.6, 0.35, 0.1], [0, 1, 1, 1, 1, 0, 1, 0]
    write_csv(data, {"score": scores, "outcome": y, "region": list("aaaabbbb")})
    assert main(fit_args(data, model, "--output", str(out), "--metric", "urf",
                         "--max-disparity", "0")) == 2
    assert "keep each group's equal scores together" in capsys.readouterr().err
    assert main(fit_args(data, model, "--output", str(out), "--metric", "urf",
                         "--max-disparity", "0.5")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    rows = table_rows(captured.out, "Training data")
    written = read_column(out, "score_fair")
    exact = pair_metrics(written.tolist(), y, list("aaaabbbb"))
    assert_printed(rows[1], exact)
    assert exact["urf"] <= Fraction(1, 2)
