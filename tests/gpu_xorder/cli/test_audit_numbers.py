"""The numbers ``gpu-xorder audit`` prints (``--format tsv``) and writes (``--format
json``) against the independent oracles of tests/gpu_xorder/metrics/
test_independent_audit.py (pair loops over Fractions, DeLong from the structural
components, the documented bootstrap scheme), never against the library's own
functions."""

import importlib.util
import json
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from gpu_xorder.cli import main

pytestmark = pytest.mark.usefixtures("plain_consoles")


def _oracles():
    path = Path(__file__).parents[1] / "metrics" / "test_independent_audit.py"
    spec = importlib.util.spec_from_file_location("independent_audit_oracles", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


o = _oracles()
METRICS = o.METRICS


def write_csv(path, seed, kind):
    """Two score columns of nasty data (ties everywhere, groups of unequal sizes, a
    group with a single positive); returns ``(columns, y, groups)`` as the oracles
    take them (labels as the command reads them back)."""
    s, y, grp = o.nasty(seed, kind, one="positive" if seed % 2 else None)
    rng = np.random.default_rng(seed + 100)
    other = np.round(s * 2 + rng.integers(0, 2, s.size), 1)
    cells = [f"{v!r}" if kind == "float" else str(v) for v in grp]
    lines = ["risk,other,outcome,grp"] + [
        f"{float(s[i])!r},{float(other[i])!r},{int(y[i])},{cells[i]}" for i in range(s.size)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"risk": s, "other": other}, y, grp


def audit(path, kind, *options):
    extra = [] if kind == "str" else ["--group-type", kind]
    return main(["audit", str(path), "--score", "risk", "other", "--label", "outcome",
                 "--group", "grp", *extra, *options])


def key(g, h=None, sep=" > "):
    return str(g) if h is None else f"{g}{sep}{h}"


def delong_limits(s, y, grp, level):
    """Every interval the audit shows, by the DeLong oracle: ``{(table, key): (low,
    high) or None}``."""
    labels = o.sorted_labels(grp)
    neg = o.members(s, y, grp, None, 0)[0]
    out = {("auc", None): o.o_normal(o.o_auc(s, y, grp), o.o_delong(
        o.members(s, y, grp, None, 1)[0], neg)[0], level)}
    for g in labels:
        for h in labels:
            var = o.o_delong(o.members(s, y, grp, g, 1)[0], o.members(s, y, grp, h, 0)[0])[0]
            table = "auc_within" if g == h else "xauc"
            out[table, key(g) if g == h else key(g, h)] = o.o_normal(
                o.o_xauc(s, y, grp, g, h), var, level)
        out["prf", key(g)] = o.o_normal(o.o_prf(s, y, grp, g),
                                        o.o_delong(o.members(s, y, grp, g, 1)[0], neg)[0],
                                        level)
    pairs = list(combinations(labels, 2))
    joint = 1 - (1 - level) / len(pairs)
    for metric in METRICS:
        best = []
        for g, h in pairs:
            d = o.o_signed(s, y, grp, metric, g, h)
            var = o.o_pair_var(s, y, grp, metric, g, h)
            limits = o.o_normal(d, var, level, -1.0)
            out["pair", metric, g, h] = None if limits is None else o.o_abs(limits)
            if metric == "urf":
                out["urf", key(g, h, " ~ ")] = out["pair", metric, g, h]
            limits = o.o_normal(d, var, joint, -1.0)
            out["signed_joint", metric, g, h] = limits
            best.append(None if limits is None else o.o_abs(limits))
        out["disparity", metric] = (None if None in best else
                                    (max(b[0] for b in best), max(b[1] for b in best)))
    return out


def assert_limits(got, want):
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert abs(got[0] - want[0]) <= 1e-9 and abs(got[1] - want[1]) <= 1e-9


@pytest.mark.parametrize("high_score", ["favourable", "harmful"])
@pytest.mark.parametrize("seed, kind", [(0, "str"), (1, "float"), (2, "str"), (3, "float"),
                                        (4, "int")])
def test_json_numbers_equal_the_oracles(tmp_path, capsys, seed, kind, high_score):
    path = tmp_path / "d.csv"
    columns, y, grp = write_csv(path, seed, kind)
    assert audit(path, kind, "--format", "json", "--high-score", high_score,
                 "--ci", "0.9") == 0
    doc = json.loads(capsys.readouterr().out)
    labels = o.sorted_labels(grp)
    assert list(doc["groups"]) == [key(g) for g in labels]
    for g in labels:
        assert doc["groups"][key(g)] == {
            "n": grp.count(g), "positives": int(sum(y[i] for i in range(y.size)
                                                    if grp[i] == g))}
    assert doc["ci"] == {"level": 0.9, "method": "delong", "n_bootstrap": None, "seed": None}
    for name, s in columns.items():
        entry = doc["scores"][name]
        assert entry["auc"] == float(o.o_auc(s, y, grp))
        for metric in METRICS:
            assert o.close(entry["disparity"][metric],
                           max(o.o_pairs(s, y, grp, metric).values()))
        for g in labels:
            assert entry["auc_within"][key(g)] == float(o.o_xauc(s, y, grp, g, g))
            assert entry["prf"][key(g)] == float(o.o_prf(s, y, grp, g))
            for h in labels:
                if g != h:
                    assert entry["xauc"][key(g, h)] == float(o.o_xauc(s, y, grp, g, h))
        for g, h in combinations(labels, 2):
            assert o.close(entry["urf"][key(g, h, " ~ ")],
                           abs(o.o_urf_signed(s, grp, g, h)))
        want = delong_limits(s, y, grp, 0.9)
        assert_limits(entry["ci"]["auc"], want["auc", None])
        for metric in METRICS:
            assert_limits(entry["ci"]["disparity"][metric], want["disparity", metric])
        for table in ("auc_within", "xauc", "prf", "urf"):
            assert set(entry["ci"][table]) == set(entry[table])
            for k, limits in entry["ci"][table].items():
                assert_limits(limits, want[table, k])
        for metric in METRICS:
            found = entry["findings"][metric]
            pair = tuple(next(g for g in labels if key(g) == text) for text in found["pair"])
            assert pair in o.o_tied_pairs(s, y, grp, metric)
            _, group, other, value, reverse = o.o_disadvantage(s, y, grp, metric,
                                                               high_score, pair)
            assert (found["group"], found["other"]) == (
                None if group is None else key(group), None if other is None else key(other))
            assert o.close(found["value"], value) and o.close(found["reverse"], reverse)
            # the worst pair's signed interval at the Bonferroni level, turned to the
            # side of the group named, and the verdict the rule gives from it
            signed = want[("signed_joint", metric, *pair)]
            if signed is not None and group is not None and group != pair[0]:
                signed = (-signed[1], -signed[0])
            if signed is not None and not signed[0] < signed[1]:
                signed = None
            assert_limits(found["interval"], signed)
            n_pairs = len(labels) * (len(labels) - 1) // 2
            assert found["level"] == pytest.approx(1 - 0.1 / n_pairs)
            assert found["delta"] == 0.05 and found["pairs"] == n_pairs
            d = value - reverse
            every = want["disparity", metric]
            verdict = ("disadvantages" if signed is not None and (
                (signed[0] > 0 and d > 0) or (signed[1] < 0 and d < 0))
                else "parity" if signed is not None and every is not None
                and every[1] < 0.05 else "inconclusive")
            assert found["verdict"] == verdict


def tsv_tables(text):
    """``{title: (header, rows)}`` of the tables of ``--format tsv``: a ``# title``
    line, a header line, the rows up to the next ``#`` line."""
    lines, tables = text.splitlines(), {}
    for i, line in enumerate(lines[:-1]):
        if line.startswith("# ") and "\t" in lines[i + 1] and not lines[i + 1].startswith("#"):
            rows = []
            for body in lines[i + 2:]:
                if body.startswith("#") or not body:
                    break
                rows.append(body.split("\t"))
            tables[line[2:]] = (lines[i + 1].split("\t"), rows)
    return tables


CELL = re.compile(
    r"^(-?\d+\.\d{4})(?: \[(?:(-?\d+\.\d{4}), (-?\d+\.\d{4})|n/a)\])?\s*$")


def assert_cell(cell, value, limits):
    """A printed cell ``0.7153 [0.6920, 0.7390]`` against the oracle's value and
    limits (4 decimals: within half a unit of the last place)."""
    match = CELL.match(cell)
    assert match, cell
    assert abs(float(match[1]) - float(value)) <= 0.5e-4 + 1e-12
    if limits is None:
        assert match[2] is None, cell  # no interval: none printed ("[n/a]" or nothing)
    else:
        assert match[2] is not None, cell
        assert abs(float(match[2]) - limits[0]) <= 0.5e-4 + 1e-9
        assert abs(float(match[3]) - limits[1]) <= 0.5e-4 + 1e-9


@pytest.mark.parametrize("seed, kind", [(0, "str"), (3, "float")])
def test_tsv_tables_equal_the_oracles(tmp_path, capsys, seed, kind):
    path = tmp_path / "d.csv"
    columns, y, grp = write_csv(path, seed, kind)
    assert audit(path, kind, "--format", "tsv") == 0
    tables = tsv_tables(capsys.readouterr().out)
    labels = o.sorted_labels(grp)
    header, rows = tables["Summary (disparities: maximum over pairs of groups)"]
    assert header == ["scores", "AUC", "Delta-xAUC", "Delta-PRF", "Delta-URF"]
    names = list(columns)
    for row in rows:
        s = columns[row[0]]
        want = delong_limits(s, y, grp, 0.95)
        assert_cell(row[1], o.o_auc(s, y, grp), want["auc", None])
        for cell, metric in zip(row[2:], METRICS):
            assert_cell(cell, max(o.o_pairs(s, y, grp, metric).values()),
                        want["disparity", metric])
    per_table = {
        "AUC within g": ("auc_within", {key(g): (g, g) for g in labels}),
        "xAUC(g, h)": ("xauc", {key(g, h): (g, h) for g in labels for h in labels
                                if g != h}),
        "PRF(g)": ("prf", {key(g): g for g in labels}),
        "URF(g, h)": ("urf", {key(g, h, " ~ "): (g, h) for g, h in combinations(labels, 2)}),
    }
    for title, (table, keys) in per_table.items():
        header, rows = tables[title]
        assert header == ["groups"] + names
        assert [r[0] for r in rows] == list(keys)
        for row in rows:
            for cell, name in zip(row[1:], names):
                s = columns[name]
                at = keys[row[0]]
                if table == "prf":
                    value = o.o_prf(s, y, grp, at)
                elif table == "urf":
                    value = abs(o.o_urf_signed(s, grp, *at))
                else:  # AUC within a group is the xAUC of the group with itself
                    value = o.o_xauc(s, y, grp, *at)
                assert_cell(cell, value, delong_limits(s, y, grp, 0.95)[table, row[0]])


def test_bootstrap_json_equals_the_resampling_oracle(tmp_path, capsys):
    path = tmp_path / "d.csv"
    columns, y, grp = write_csv(path, 2, "str")
    assert audit(path, "str", "--format", "json", "--bootstrap", "120", "--seed", "7",
                 "--ci", "0.8") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ci"] == {"level": 0.8, "method": "bootstrap", "n_bootstrap": 120, "seed": 7}
    labels = o.sorted_labels(grp)
    pairs = list(combinations(labels, 2))
    grp_arr = np.asarray(grp, dtype=object)
    for name, s in columns.items():
        aucs, signed = [], {m: [] for m in METRICS}
        for idx in o.o_bootstrap_resamples(s, y, grp, 120, 7):
            rs, ry, rg = s[idx], y[idx], grp_arr[idx]
            aucs.append(o.frac(rs[ry == 1], rs[ry == 0]))
            for g, h in pairs:
                signed["xauc"].append(o.frac(rs[(rg == g) & (ry == 1)],
                                             rs[(rg == h) & (ry == 0)])
                                      - o.frac(rs[(rg == h) & (ry == 1)],
                                               rs[(rg == g) & (ry == 0)]))
                signed["prf"].append(o.frac(rs[(rg == g) & (ry == 1)], rs[ry == 0])
                                     - o.frac(rs[(rg == h) & (ry == 1)], rs[ry == 0]))
                signed["urf"].append(o.frac(rs[rg == g], rs[rg == h])
                                     - o.frac(rs[rg == h], rs[rg == g]))
        entry = doc["scores"][name]["ci"]
        assert_limits(entry["auc"], tuple(np.quantile(aucs, [0.1, 0.9])))
        joint = 1 - 0.2 / len(pairs)
        for metric in METRICS:
            values = np.array(signed[metric]).reshape(120, len(pairs))
            ends = np.quantile(values, [(1 - joint) / 2, (1 + joint) / 2], axis=0)
            both = [o.o_abs((ends[0][c], ends[1][c])) for c in range(len(pairs))]
            assert_limits(entry["disparity"][metric],
                          (max(b[0] for b in both), max(b[1] for b in both)))
            if metric == "urf":
                ends = np.quantile(values, [0.1, 0.9], axis=0)
                for c, (g, h) in enumerate(pairs):
                    assert_limits(entry["urf"][key(g, h, " ~ ")],
                                  o.o_abs((ends[0][c], ends[1][c])))


def test_a_value_without_an_interval_says_n_a(tmp_path, capsys):
    path = tmp_path / "d.csv"
    # group 'a' has a single positive: DeLong gives xAUC(a, .) and Delta-xAUC no interval
    path.write_text("risk,other,outcome,grp\n0.9,1,1,a\n0.8,1,0,a\n0.7,0.3,0,a\n"
                    "0.6,0.2,1,b\n0.5,1,1,b\n0.4,0.5,0,b\n0.3,0.5,0,b\n")
    assert audit(path, "str", "--format", "tsv") == 0
    header, rows = tsv_tables(capsys.readouterr().out)[
        "Summary (disparities: maximum over pairs of groups)"]
    assert rows[0][2].strip() == "1.0000 [n/a]"
