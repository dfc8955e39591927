"""The paper's comparisons: xOrder against the baselines, and two robustness studies.

:func:`compare_methods` runs the protocol of :func:`gpu_xorder.paper_experiment` (the
same stratified splits, seed ``seed + r`` for repetition ``r``) with a choice of base
model (:mod:`gpu_xorder.models`) and every method of :data:`METHODS`, each over its own
parameter grid (:data:`DEFAULT_PARAMETERS`): xOrder and post-logit adjust the base
model's scores with a weight ``lam``; corr-reg and the constrained ranker are linear
models trained on the features, with a penalty weight and a disparity bound.

``study="samples"`` learns the post-processing (xOrder, post-logit) on a stratified
fraction of the training scores (the base model still trained on the whole training
split) and applies it to all test scores; ``study="shift"`` trains the base model on
half of the training split and learns the post-processing either on those same
(in-sample) scores or on the other half's (held-out) scores: in-sample scores of a
flexible model such as RankBoost are shifted against the test scores.

Every record is ``{"method", "parameter", "setting", "repeat", "split", "auc",
"xauc", "prf", "urf", "xauc_pairs"}`` (``setting``: the fraction, ``"in-sample"`` /
``"held-out"``, or None).
"""

import csv
import functools
import io
import time
from dataclasses import dataclass, field

import numpy as np

from ..utils import _validation as v
from ._experiment import DEFAULT_LAMS, SPLITS, _mean_std, _record, grouping
from ..utils._parallel import check_n_jobs, map_in_rounds, workers

METHODS = ("unadjusted", "xorder", "post-logit", "corr-reg", "constrained")
#: Parameter grid of each method: lam (xOrder, post-logit: ``lams``, post-logit also
#: POST_LOGIT_MORE_LAMS), the penalty weight (corr-reg), the bound on the training
#: disparity (constrained).
DEFAULT_PARAMETERS = {
    "unadjusted": (None,),
    "xorder": DEFAULT_LAMS,
    "post-logit": DEFAULT_LAMS,
    "corr-reg": (0.0, 0.001, 0.01, 0.1, 1.0),
    "constrained": (0.01, 0.02, 0.05, 0.1, 0.2),
}
#: Larger weights post-logit also selects (its candidates' table is computed once, so
#: they cost nothing): its coarse grid often keeps the unadjusted-like candidate below 0.5.
POST_LOGIT_MORE_LAMS = (1.0, 2.0, 5.0)
PARAMETER_NAMES = {"unadjusted": "", "xorder": "lam", "post-logit": "lam",
                   "corr-reg": "weight", "constrained": "max |D|"}
STUDIES = ("samples", "shift")
FRACTIONS = (0.05, 0.1, 0.2, 0.5, 1.0)
SHIFT_SETTINGS = ("in-sample", "held-out")
POST_PROCESSING = ("unadjusted", "xorder", "post-logit")
MSG_STUDY_METHODS = "the {study} study compares post-processing only: {allowed}"
MSG_BASELINE_GROUPS = ("{method} handles two groups; {data} with groups {groups!r} has "
                       "{n}: use --methods unadjusted xorder")


@dataclass(frozen=True)
class Comparison:
    """Outcome of :func:`compare_methods`: every record, and summaries over repetitions.

    ``seconds`` maps each method to its wall time per repetition (all parameters);
    ``curves`` keeps repetition 0's test scores ``(scores, y, groups)`` unadjusted and
    after xOrder at the largest ``lam`` (for xROC figures; not in :meth:`to_dict`).
    """

    data: str
    groups: str
    metric: str
    model: str
    methods: tuple
    study: object
    repeats: int
    test_size: float
    seed: int
    group_labels: tuple
    records: tuple
    seconds: dict
    curves: dict = field(default_factory=dict, compare=False)

    def summary(self, split="test"):
        """Mean and sample sd over the repetitions, one row per method, setting and
        parameter: ``{"method", "setting", "parameter", "auc": (mean, sd), ...}``."""
        v.check_choice(split, "split", SPLITS)
        keys = []
        for r in self.records:
            key = (r["method"], r["setting"], r["parameter"])
            if r["split"] == split and key not in keys:
                keys.append(key)
        rows = []
        for method, setting, parameter in keys:
            chosen = [r for r in self.records if r["split"] == split
                      and (r["method"], r["setting"], r["parameter"])
                      == (method, setting, parameter)]
            row = {"method": method, "setting": setting, "parameter": parameter}
            for key in ("auc",) + v.METRICS:
                row[key] = _mean_std([r[key] for r in chosen])
            rows.append(row)
        return rows

    def csv_text(self):
        """The summary of both splits as CSV: one row per split, method, setting and
        parameter; a mean and an sd column per quantity (empty where undefined)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = ["data", "groups", "model", "split", "method", "setting", "parameter",
                  "repeats"]
        for key in ("auc",) + v.METRICS:
            header += [f"{key}_mean", f"{key}_sd"]
        writer.writerow(header)
        for split in SPLITS:
            for row in self.summary(split):
                cells = [self.data, self.groups, self.model, split, row["method"],
                         _cell(row["setting"]), _cell(row["parameter"]), self.repeats]
                for key in ("auc",) + v.METRICS:
                    cells += [_cell(x) for x in row[key]]
                writer.writerow(cells)
        return out.getvalue()

    def to_dict(self):
        """Everything but ``curves`` and ``seconds`` as plain JSON types: the same
        seed gives the same document."""
        return {
            "data": self.data, "groups": self.groups, "metric": self.metric,
            "model": self.model, "methods": list(self.methods), "study": self.study,
            "repeats": self.repeats, "test_size": self.test_size, "seed": self.seed,
            "group_labels": [str(g) for g in self.group_labels],
            "parameters": {m: list(dict.fromkeys(r["parameter"] for r in self.records
                                                 if r["method"] == m))
                           for m in self.methods},
            "records": [dict(r) for r in self.records],
        }


def _cell(x):
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    return repr(x) if isinstance(x, float) else str(x)


def compare_methods(data="german", *, methods=METHODS, model="lr", groups="default",
                    metric="xauc", lams=DEFAULT_LAMS, study=None, repeats=10,
                    test_size=0.3, seed=0, backend="auto", method="auto", solver="paper",
                    subsample=None, post_logit_search="joint", n_jobs=None, progress=None):
    """xOrder against the baselines (or a robustness study) over random splits.

    Parameters
    ----------
    data : {"compas", "adult", "german", "framingham"}
    methods : sequence of str
        Among :data:`METHODS`; ``"unadjusted"`` is always included. The baselines take
        two groups only.
    model : {"lr", "paper-linear", "rankboost"}
        Base model whose scores xOrder and post-logit adjust.
    groups, metric, repeats, test_size, seed, backend, method, solver, subsample, n_jobs
        As for :func:`gpu_xorder.paper_experiment` (``metric`` is also what every
        baseline trades).
    lams : sequence of float
        The weights of xOrder and post-logit.
    study : {None, "samples", "shift"}
        None: the comparison; otherwise the robustness study (post-processing methods
        only).
    post_logit_search : {"joint", "alpha"}
        Post-logit's grid (:class:`gpu_xorder.baselines.PostLogit`).
    progress : callable(done_repeats, repeats), optional

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from gpu_xorder.experiments._studies import compare_methods
    >>> c = compare_methods("german", methods=["xorder"], lams=[0.5], repeats=1,
    ...                     backend="numpy")
    >>> [(row["method"], row["parameter"]) for row in c.summary()]
    [('unadjusted', None), ('xorder', 0.5)]
    """
    from ..datasets import load_dataset
    from .models import MODELS

    dataset = load_dataset(data)
    v.check_choice(metric, "metric", v.METRICS)
    v.check_choice(model, "model", MODELS)
    for name in methods:
        v.check_choice(name, "methods", METHODS)
    methods = tuple(m for m in METHODS if m in set(methods) | {"unadjusted"})
    if study is not None:
        v.check_choice(study, "study", STUDIES)
        if set(methods) - set(POST_PROCESSING):
            raise ValueError(MSG_STUDY_METHODS.format(study=study,
                                                      allowed=", ".join(POST_PROCESSING)))
    labels = np.unique(grouping(dataset, groups))
    for name in methods:
        if name not in ("unadjusted", "xorder") and labels.size != 2:
            raise ValueError(MSG_BASELINE_GROUPS.format(method=name, data=data,
                                                        groups=groups, n=labels.size))
    lam_values, _ = v.check_lam(lams)
    lam_values = tuple(float(x) for x in lam_values)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    n_jobs = check_n_jobs(n_jobs)
    run = functools.partial(_repetition, dataset.name, groups, metric, model, methods,
                            lam_values, study, test_size,
                            dict(backend=backend, method=method, solver=solver,
                                 subsample=subsample), post_logit_search)
    runs = map_in_rounds(run, [(r, seed + r) for r in range(int(repeats))],
                         workers(n_jobs, repeats),
                         None if progress is None else lambda done: progress(done, repeats))
    records, seconds, curves = [], {m: [] for m in methods}, {}
    for recs, secs, scores in runs:
        records += recs
        for m, s in secs.items():
            seconds[m].append(s)
        curves = curves or scores
    return Comparison(data=dataset.name, groups=groups, metric=metric, model=model,
                      methods=methods, study=study, repeats=int(repeats),
                      test_size=float(test_size), seed=int(seed),
                      group_labels=tuple(labels.tolist()), records=tuple(records),
                      seconds=seconds, curves=curves)


def _split(dataset, labels, test_size, seed):
    """The split of :func:`gpu_xorder.experiments._experiment.split_scores`: ``(X, y, a)`` twice."""
    from sklearn.model_selection import train_test_split

    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        dataset.X, dataset.y, labels, test_size=test_size, random_state=seed,
        stratify=dataset.y)
    return (X_tr, y_tr, a_tr), (X_te, y_te, a_te)


def _scores(model, X):
    """Probabilities of the positive class (post-logit needs them in (0, 1))."""
    return model.predict_proba(X)[:, 1]


def _subset(y, a, fraction, seed):
    """A stratified (by label and group) random share of the rows: indices."""
    if fraction >= 1.0:
        return np.arange(y.size)
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(np.arange(y.size), train_size=fraction, random_state=seed,
                               stratify=2 * y + (a == a.max()))
    return np.sort(keep)


def _repetition(data, groups, metric, model_name, methods, lams, study, test_size,
                engine, post_logit_search, r, seed):
    """Repetition ``r``: ``(records, seconds per method, repetition 0's curves)``."""
    from ..datasets import load_dataset
    from .models import make_model

    dataset = load_dataset(data)
    train, test = _split(dataset, grouping(dataset, groups), test_size, seed)
    records, seconds = [], {m: 0.0 for m in methods}
    post = functools.partial(_post_processing, methods, lams, metric, engine,
                             post_logit_search)

    def add(method, parameter, setting, split, scores, y, a):
        rec = _record(r, None, split, scores, y, a)
        del rec["lam"]
        records.append({"method": method, "parameter": parameter, "setting": setting,
                        **rec})

    if study == "shift":
        # the base model on one half of the training split; the other half held out
        fit_idx = _subset(train[1], train[2], 0.5, seed)
        rest = np.setdiff1d(np.arange(train[1].size), fit_idx)
        model = make_model(model_name, random_state=seed).fit(train[0][fit_idx],
                                                              train[1][fit_idx])
        s_te = _scores(model, test[0])
        for setting, idx in zip(SHIFT_SETTINGS, (fit_idx, rest)):
            s_tr = _scores(model, train[0][idx])
            post(add, seconds, setting, (s_tr, train[1][idx], train[2][idx]),
                 (s_te, test[1], test[2]))
        return records, seconds, {}

    start = time.perf_counter()
    model = make_model(model_name, random_state=seed).fit(train[0], train[1])
    s_tr, s_te = _scores(model, train[0]), _scores(model, test[0])
    seconds["unadjusted"] = time.perf_counter() - start
    if study == "samples":
        for fraction in FRACTIONS:
            idx = _subset(train[1], train[2], fraction, seed)
            post(add, seconds, fraction, (s_tr[idx], train[1][idx], train[2][idx]),
                 (s_te, test[1], test[2]))
        return records, seconds, {}
    curves = post(add, seconds, None, (s_tr, train[1], train[2]), (s_te, test[1], test[2]))
    for method in ("corr-reg", "constrained"):
        if method in methods:
            start, init = time.perf_counter(), None
            for parameter in DEFAULT_PARAMETERS[method]:
                fitted = _in_processing(method, parameter, metric, seed, init).fit(
                    train[0], train[1], sensitive_features=train[2])
                if method == "corr-reg" and parameter == 0:
                    init = (fitted.coef_, fitted.intercept_)
                for split, (X, y, a) in zip(SPLITS, (train, test)):
                    add(method, parameter, None, split, fitted.decision_function(X), y, a)
            seconds[method] = time.perf_counter() - start
    return records, seconds, curves if r == 0 else {}


def _in_processing(method, parameter, metric, seed, init):
    from .baselines import ConstrainedRanker, CorrReg

    if method == "corr-reg":
        return CorrReg(weight=parameter, metric=metric, init=init, random_state=seed)
    return ConstrainedRanker(max_disparity=parameter, metric=metric, random_state=seed)


def _post_processing(methods, lams, metric, engine, post_logit_search, add, seconds,
                     setting, train, test):
    """Unadjusted, xOrder and post-logit learnt on ``train`` scores, applied to
    ``test``; records on both splits. Returns the test curves (unadjusted and xOrder at
    the largest lam)."""
    from ..postprocessing._estimator import xorder_path
    from .baselines import PostLogit

    curves = {}
    for split, (s, y, a) in zip(SPLITS, (train, test)):
        add("unadjusted", None, setting, split, s, y, a)
    curves["unadjusted"] = test
    if "xorder" in methods:
        start = time.perf_counter()
        models = xorder_path(*train[:2], sensitive_features=train[2], lams=lams,
                             metric=metric, **engine)
        seconds["xorder"] += time.perf_counter() - start
        for m in models:
            for split, (s, y, a) in zip(SPLITS, (train, test)):
                adjusted = (m.train_scores_adjusted_ if split == "train"
                            else m.transform(s, sensitive_features=a))
                add("xorder", m.lam, setting, split, adjusted, y, a)
        curves["xorder"] = (models[-1].transform(test[0], sensitive_features=test[2]),
                            test[1], test[2])
        curves["xorder_lam"] = models[-1].lam
    if "post-logit" in methods:
        start = time.perf_counter()
        fitted = PostLogit(metric=metric, search=post_logit_search).fit(
            *train[:2], sensitive_features=train[2])
        seconds["post-logit"] += time.perf_counter() - start
        for lam in lams + tuple(x for x in POST_LOGIT_MORE_LAMS if x not in lams):
            fitted.select(lam)
            for split, (s, y, a) in zip(SPLITS, (train, test)):
                add("post-logit", lam, setting, split,
                    fitted.transform(s, sensitive_features=a), y, a)
    return curves
