"""The paper's comparisons: xOrder against the baselines, and the robustness studies.

:func:`compare_methods` runs the protocol of :func:`gpu_xorder.paper_experiment` (the
same stratified splits, seed ``seed + r`` for repetition ``r``) with a choice of base
model (:mod:`gpu_xorder.models`) and the methods of :data:`METHODS`, each over its own
parameter grid (:data:`DEFAULT_PARAMETERS`): xOrder and post-logit adjust the base
model's scores with a weight ``lam``; ``post-logit-public`` is the public code's
post-logit (its alpha grid on the probabilities, the least training disparity: one
point); ``xorder-kd`` (more than two groups) is xOrder on the K-D lattice of every
k-th item, k the smallest that keeps the lattice within the library's K-D limit;
corr-reg and the constrained ranker are linear models trained on the features, with a
penalty weight and a disparity bound.

``study="samples"`` learns the post-processing on a stratified fraction of the
training scores (the base model still trained on the whole training split) and
applies it to all test scores; ``study="samples-retrain"`` trains the base model on
that fraction too, or (``sizes``) on that many training items (the paper's Figure 13:
Adult 20,000 to 5,000, COMPAS 4,000 to 1,000), with corr-reg and the constrained ranker
trained on the same items where named; ``study="train-test"`` is the comparison of the
post-processing methods whose figure sets the training scores beside the test scores
(the paper's Figures 14-15: score histograms, training against test disparity);
``study="subsample"`` (the paper's Figure 11) learns xOrder on about ``size``
training items, every k-th of each group in score order (``k`` the training split's
size over ``size``), and the other methods on all of them; ``study="shift"`` trains
the base model on half of the training split and learns the post-processing either on
those same (in-sample) scores or on the other half's (held-out) scores: in-sample scores of a
flexible model such as RankBoost are shifted against the test scores.

Every record is ``{"method", "parameter", "setting", "repeat", "split", "auc",
"xauc", "prf", "urf", "xauc_pairs"}`` (``setting``: the fraction, ``"in-sample"`` /
``"held-out"``, the number of training items, or None).
"""

import contextlib
import functools
import time

import numpy as np

from ..utils import _params as params
from ..utils import _validation as v
from ..utils._parallel import map_in_rounds, workers
from ._comparison import Comparison
from ._experiment import DEFAULT_LAMS, SPLITS, _record, grouping
from ._settings import (
    _check_fractions,
    _check_sizes,
    is_size,
)

METHODS = ("unadjusted", "xorder", "xorder-kd", "post-logit", "post-logit-public",
           "post-logit-coord", "corr-reg", "constrained")
#: Parameter grid of each method: lam (xOrder, post-logit: ``lams``, post-logit also
#: POST_LOGIT_MORE_LAMS), the penalty weight (corr-reg), the bound on the training
#: disparity (constrained); none for the public post-logit (its own rule picks alpha).
DEFAULT_PARAMETERS = {
    "unadjusted": (None,),
    "xorder": DEFAULT_LAMS,
    "xorder-kd": DEFAULT_LAMS,
    "post-logit": DEFAULT_LAMS,
    "post-logit-public": (None,),
    "post-logit-coord": (None,),
    "corr-reg": (0.0, 0.001, 0.01, 0.1, 1.0),
    "constrained": (0.01, 0.02, 0.05, 0.1, 0.2),
}
#: Larger weights post-logit also selects (its candidates' table is computed once, so
#: they cost nothing): its coarse grid often keeps the unadjusted-like candidate below 0.5.
POST_LOGIT_MORE_LAMS = (1.0, 2.0, 5.0)
PARAMETER_NAMES = {"unadjusted": "", "xorder": "lam", "xorder-kd": "lam",
                   "post-logit": "lam", "post-logit-public": "", "post-logit-coord": "",
                   "corr-reg": "weight", "constrained": "max |D|"}
STUDIES = ("samples", "samples-retrain", "shift", "train-test", "subsample")
#: The study whose methods may include the in-processing baselines (each trained on
#: the setting's share of the training split, as the base model is).
RETRAIN_STUDY = "samples-retrain"
IN_PROCESSING = ("corr-reg", "constrained")
#: The studies that take every two-group method.
EVERY_METHOD_STUDIES = (RETRAIN_STUDY, "subsample")
SHIFT_SETTINGS = ("in-sample", "held-out")
#: Most widenings (by :data:`gpu_xorder.experiments.baselines.WIDEN_FACTOR`) of the
#: public post-logit's alpha grid with more than two groups: up to 0-267.3.
PUBLIC_WIDEN = 3
POST_PROCESSING = ("unadjusted", "xorder", "xorder-kd", "post-logit", "post-logit-public",
                   "post-logit-coord")
#: The methods that take more than two groups (the public post-logit shifts every
#: group but the last, one alpha each; ``post-logit-coord`` finds those alphas by
#: coordinate descent, where the public grid's every combination does not fit).
MULTI_GROUP = ("unadjusted", "xorder", "xorder-kd", "post-logit-public", "post-logit-coord")
#: Most groups whose every combination of public alphas the public search tries
#: (100 ** 2 with three; :data:`gpu_xorder.experiments.baselines.MAX_COMBINATIONS`).
PUBLIC_GRID_GROUPS = 3
#: The methods of one point, picked by their own rule (the least training disparity).
ONE_POINT = ("post-logit-public", "post-logit-coord")
#: The post-logit of each one-point method's search (``PostLogit(search=...)``).
ONE_POINT_SEARCH = {"post-logit-public": "public", "post-logit-coord": "coordinate"}
#: Data sets besides the bundled four: the synthetic large-ICU stand-in
#: (:func:`gpu_xorder.datasets.make_icu`, two age bands).
EXTRA_DATA = ("icu-standin",)
MSG_STUDY_METHODS = "the {study} study compares post-processing only: {allowed}"
MSG_BASELINE_GROUPS = ("{method} handles two groups; {data} with groups {groups!r} has "
                       "{n}: use --methods among {allowed}")
MSG_KD_GROUPS = ("xorder-kd compares the K-D lattice with iterative xOrder on more than "
                 "two groups; {data} with groups {groups!r} has two")
MSG_ICU_GROUPS = ("the ICU stand-in has its two age bands (groups 'default') and the "
                  "paper's Figure 12 bands ('age5', 'age10') only")
#: The groupings of the ICU stand-in.
ICU_GROUPINGS = ("default", "age5", "age10")
MSG_SIZES_BOTH = "give fractions or sizes, not both"
MSG_SUBSAMPLE_SIZES = "the subsample study needs sizes (training items xOrder learns on)"
MSG_SETTING_SUPPORT = ("{setting} of the {n} training items of {data} leaves group "
                       "{group!r} without {what} in repetition {r}; give a larger one")
MSG_SIZE_LARGE = ("size {size} is more than the {n} training items of {data} (test "
                  "share {test_size:g})")


def default_methods(n_groups, study=None):
    """The methods ``compare_methods`` runs when none are named: every method that
    takes ``n_groups`` groups (a study: the post-processing ones)."""
    chosen = POST_PROCESSING if study is not None else METHODS
    if study in EVERY_METHOD_STUDIES:
        chosen = METHODS
    if n_groups == 2:
        return tuple(m for m in chosen if m not in ("xorder-kd", "post-logit-coord"))
    # the public grid's every combination fits up to three groups (PUBLIC_GRID_GROUPS);
    # beyond, the coordinate search in its place
    public = n_groups <= PUBLIC_GRID_GROUPS
    return tuple(m for m in chosen if m in MULTI_GROUP
                 and m != ("post-logit-coord" if public else "post-logit-public"))


def load_data(name, groups=None):
    """A bundled data set by name, or the synthetic ICU stand-in (``"icu-standin"``,
    built once per process); ``groups``, where given, a grouping the stand-in has
    (``MSG_ICU_GROUPS``; checked here, before any grouping names the generator's data
    set, ``"icu-synthetic"``)."""
    if name == "icu-standin":
        if groups is not None and groups not in ICU_GROUPINGS:
            raise ValueError(MSG_ICU_GROUPS)
        return _icu_standin()
    from ..datasets import load_dataset

    return load_dataset(name)


@functools.lru_cache(maxsize=1)
def _icu_standin():
    from ..datasets import make_icu

    return make_icu()


def compare_methods(data="german", *, methods=None, model="lr", groups="default",
                    metric="xauc", lams=DEFAULT_LAMS, study=None, repeats=10,
                    test_size=0.3, seed=0, backend="auto", method="auto", solver="paper",
                    subsample=None, post_logit_search="joint", fractions=None, sizes=None,
                    n_jobs=None, progress=None):
    """xOrder against the baselines (or a robustness study) over random splits.

    Parameters
    ----------
    data : {"compas", "adult", "german", "framingham", "icu-standin"}
        A bundled data set, or the synthetic large-ICU stand-in (two age bands).
    methods : sequence of str, optional
        Among :data:`METHODS`; ``"unadjusted"`` is always included. Default:
        :func:`default_methods`. Only :data:`MULTI_GROUP` take more than two groups;
        ``"xorder-kd"`` needs more than two.
    model : {"lr", "paper-linear", "rankboost", "rankboost-public"}
        Base model whose scores xOrder and post-logit adjust.
    groups, metric, repeats, test_size, seed, backend, method, solver, subsample, n_jobs
        As for :func:`gpu_xorder.paper_experiment` (``metric`` is also what every
        baseline trades).
    lams : sequence of float
        The weights of xOrder and post-logit.
    study : {None, "samples", "samples-retrain", "shift", "train-test"}
        None: the comparison; otherwise the robustness study (post-processing methods
        only, but samples-retrain also takes corr-reg and the constrained ranker).
    post_logit_search : {"joint", "logit-alpha"}
        The grid of ``"post-logit"`` (:class:`gpu_xorder.baselines.PostLogit`);
        ``"post-logit-public"`` is always the public code's.
    fractions : sequence of float, optional
        The shares of the training split, each in (0, 1], of the ``"samples"`` and
        ``"samples-retrain"`` studies (default :data:`FRACTIONS`); refused with any
        other study.
    sizes : sequence of int, optional
        Instead of ``fractions``: the numbers of training items (each at most the
        training split's size) of the samples studies, drawn stratified by label and
        group; the records' setting is the size.
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
    from .models import MODELS

    dataset = load_data(data, groups)
    params.check("metric", metric)
    v.check_choice(model, "model", MODELS)
    v.check_choice(post_logit_search, "post_logit_search", ("joint", "logit-alpha"))
    if study is not None:
        v.check_choice(study, "study", STUDIES)
    if sizes is not None and fractions is not None:
        raise ValueError(MSG_SIZES_BOTH)
    if study == "subsample" and sizes is None:
        raise ValueError(MSG_SUBSAMPLE_SIZES)
    fractions = (_check_fractions(fractions, study) if sizes is None
                 else _check_sizes(sizes, study))
    labels = np.unique(grouping(dataset, groups))
    if methods is None:
        methods = default_methods(labels.size, study)
    for name in methods:
        v.check_choice(name, "methods", METHODS)
    methods = tuple(m for m in METHODS if m in set(methods) | {"unadjusted"})
    allowed = METHODS if study in EVERY_METHOD_STUDIES else POST_PROCESSING
    if study is not None and set(methods) - set(allowed):
        raise ValueError(MSG_STUDY_METHODS.format(study=study,
                                                  allowed=", ".join(allowed)))
    for name in methods:
        if name not in MULTI_GROUP and labels.size != 2:
            raise ValueError(MSG_BASELINE_GROUPS.format(
                method=name, data=data, groups=groups, n=labels.size,
                allowed=" ".join(MULTI_GROUP)))
    if "post-logit-public" in methods:  # one group stays, the others are shifted
        from ._post_logit import check_public_size  # the baselines: not at --help

        check_public_size(labels.size - 1, advice=(
            f"use post-logit-coord, the coordinate search, beyond {PUBLIC_GRID_GROUPS} "
            "groups"))
    if "xorder-kd" in methods and labels.size == 2:
        raise ValueError(MSG_KD_GROUPS.format(data=data, groups=groups))
    lam_values, _ = params.check("lam", lams)
    test_size = params.check("test_size", test_size)  # any real number type
    lam_values = tuple(float(x) for x in lam_values)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    n_jobs = params.check("n_jobs", n_jobs)
    if sizes is not None:
        n_train = dataset.y.size - int(np.ceil(float(test_size) * dataset.y.size))
        for size in fractions:
            if size > n_train:
                raise ValueError(MSG_SIZE_LARGE.format(size=size, n=n_train, data=data,
                                                       test_size=float(test_size)))
    if study in ("samples", "samples-retrain"):  # before any repetition
        _check_shares(dataset, groups, fractions, test_size, seed, int(repeats), data)
    run = functools.partial(_repetition, dataset.name if data != "icu-standin" else data,
                            groups, metric, model, methods,
                            lam_values, study, fractions, test_size,
                            dict(backend=backend, method=method, solver=solver,
                                 subsample=subsample), post_logit_search)
    runs = map_in_rounds(run, [(r, seed + r) for r in range(int(repeats))],
                         workers(n_jobs, repeats),
                         None if progress is None else lambda done: progress(done, repeats))
    records, seconds, cpu, curves = [], {m: [] for m in methods}, {m: [] for m in methods}, {}
    notes = {}
    for recs, secs, scores, rep_notes in runs:
        records += recs
        for m, (wall, used) in secs.items():
            seconds[m].append(wall)
            cpu[m].append(used)
        for key, value in rep_notes.items():
            notes.setdefault(key, []).append(value)
        curves = curves or scores
    return Comparison(data=data if data == "icu-standin" else dataset.name, groups=groups,
                      metric=metric, model=model,
                      methods=methods, study=study, repeats=int(repeats),
                      test_size=float(test_size), seed=int(seed),
                      group_labels=tuple(labels.tolist()), records=tuple(records),
                      seconds=seconds, cpu_seconds=cpu, notes=notes, curves=curves)


def _split(dataset, labels, test_size, seed):
    """The split of :func:`gpu_xorder.experiments._experiment.split_scores`: ``(X, y, a)``
    twice."""
    from sklearn.model_selection import train_test_split

    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        dataset.X, dataset.y, labels, test_size=test_size, random_state=seed,
        stratify=dataset.y)
    return (X_tr, y_tr, a_tr), (X_te, y_te, a_te)


def _scores(model, X):
    """Probabilities of the positive class (post-logit needs them in (0, 1))."""
    return model.predict_proba(X)[:, 1]


def _check_shares(dataset, groups, settings, test_size, seed, repeats, data):
    """Refuse, before the work, a share or size of a samples study whose stratified
    subset (``_subset``, of every repetition's split) leaves a group without positives
    or negatives, or that scikit-learn's split refuses (fewer items than strata)."""
    labels = grouping(dataset, groups)
    for r in range(repeats):
        train, _ = _split(dataset, labels, test_size, seed + r)
        y, a = train[1], train[2]
        for setting in settings:
            text = (f"size {setting}" if is_size(setting) else f"share {setting:g}")
            try:
                idx = _subset(y, a, setting, seed + r)
            except ValueError:  # fewer items than strata, or none at all
                idx = np.array([], dtype=np.intp)
            for g in np.unique(a):
                kept = y[idx][a[idx] == g]
                for what, value in (("positives", 1), ("negatives", 0)):
                    if not np.any(kept == value):
                        raise ValueError(MSG_SETTING_SUPPORT.format(
                            setting=text, n=y.size, data=data, group=g.item(), what=what,
                            r=r))


def _subset(y, a, fraction, seed):
    """A stratified (by label and group) random share of the rows (``fraction`` a
    float) or that many rows (an int): indices."""
    if (fraction >= y.size) if is_size(fraction) else (fraction >= 1.0):
        return np.arange(y.size)
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(np.arange(y.size), train_size=fraction, random_state=seed,
                               stratify=2 * y + (a == a.max()))
    return np.sort(keep)


class _Clock:
    """Wall and CPU seconds per method, added up over a repetition."""

    def __init__(self, methods):
        self.seconds = {m: (0.0, 0.0) for m in methods}

    @contextlib.contextmanager
    def __call__(self, method):
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        done = self.seconds[method]
        self.seconds[method] = (done[0] + time.perf_counter() - wall,
                                done[1] + time.process_time() - cpu)


def _repetition(data, groups, metric, model_name, methods, lams, study, fractions,
                test_size, engine, post_logit_search, r, seed):
    """Repetition ``r``: ``(records, (wall, CPU) seconds per method, repetition 0's
    curves, notes)``."""
    from .models import make_model

    dataset = load_data(data)
    train, test = _split(dataset, grouping(dataset, groups), test_size, seed)
    records, clock, notes = [], _Clock(methods), {}
    post = functools.partial(_post_processing, methods, lams, metric, engine,
                             post_logit_search, notes)

    def add(method, parameter, setting, split, scores, y, a):
        rec = _record(r, None, split, scores, y, a)
        del rec["lam"]
        records.append({"method": method, "parameter": parameter, "setting": setting,
                        **rec})

    if study == "shift":
        # the base model on one half of the training split; the other half held out
        fit_idx = _subset(train[1], train[2], 0.5, seed)
        rest = np.setdiff1d(np.arange(train[1].size), fit_idx)
        with clock("unadjusted"):
            model = make_model(model_name, random_state=seed).fit(train[0][fit_idx],
                                                                  train[1][fit_idx])
            s_te = _scores(model, test[0])
        samples = {"test": (s_te, test[1], test[2])}
        for setting, idx in zip(SHIFT_SETTINGS, (fit_idx, rest)):
            s_tr = _scores(model, train[0][idx])
            samples[setting] = (s_tr, train[1][idx], train[2][idx])
            post(add, clock, setting, samples[setting], samples["test"])
        return records, clock.seconds, {"shift": samples} if r == 0 else {}, notes

    if study == "samples-retrain":
        for fraction in fractions:
            idx = _subset(train[1], train[2], fraction, seed)
            with clock("unadjusted"):
                model = make_model(model_name, random_state=seed).fit(train[0][idx],
                                                                      train[1][idx])
                s_tr, s_te = _scores(model, train[0][idx]), _scores(model, test[0])
            post(add, clock, fraction, (s_tr, train[1][idx], train[2][idx]),
                 (s_te, test[1], test[2]))
            _in_processing_runs(methods, metric, seed, add, clock, fraction,
                                tuple(part[idx] for part in train), test)
        return records, clock.seconds, {}, notes

    with clock("unadjusted"):
        model = make_model(model_name, random_state=seed).fit(train[0], train[1])
        s_tr, s_te = _scores(model, train[0]), _scores(model, test[0])
    if study == "subsample":
        return _subsample_study(methods, lams, metric, engine, post_logit_search, notes,
                                add, clock, records, fractions, seed, train, test,
                                s_tr, s_te)
    if study == "samples":
        for fraction in fractions:
            idx = _subset(train[1], train[2], fraction, seed)
            post(add, clock, fraction, (s_tr[idx], train[1][idx], train[2][idx]),
                 (s_te, test[1], test[2]))
        return records, clock.seconds, {}, notes
    curves = post(add, clock, None, (s_tr, train[1], train[2]), (s_te, test[1], test[2]))
    if study == "train-test" and r == 0:  # the training scores beside the test scores
        curves["train-test"] = {"train": (s_tr, train[1], train[2]),
                                "test": (s_te, test[1], test[2])}
    _in_processing_runs(methods, metric, seed, add, clock, None, train, test)
    return records, clock.seconds, curves if r == 0 else {}, notes


def _subsample_study(methods, lams, metric, engine, post_logit_search, notes, add, clock,
                     records, sizes, seed, train, test, s_tr, s_te):
    """The subsample study of one repetition: the other methods once on every training
    item, recorded under every size; xOrder on every k-th item of each group (``k``
    the training split's size over the size, at least 1)."""
    first = len(records)
    others = tuple(m for m in methods if m != "xorder")
    scores = ((s_tr, train[1], train[2]), (s_te, test[1], test[2]))
    _post_processing(others, lams, metric, engine, post_logit_search, notes, add, clock,
                     None, *scores)
    _in_processing_runs(methods, metric, seed, add, clock, None, train, test)
    shared = [r for r in records[first:] if r["method"] != "unadjusted"]
    del records[first:]
    for size in sizes:
        k = max(1, int(round(train[1].size / size)))
        notes.setdefault("xorder subsample k", []).append({str(size): k})
        _post_processing(tuple(m for m in ("xorder",) if m in methods), lams, metric,
                         dict(engine, subsample=None if k == 1 else k), post_logit_search,
                         notes, add, clock, size, *scores)
        records += [{**r, "setting": size} for r in shared]
    return records, clock.seconds, {}, notes


def _in_processing_runs(methods, metric, seed, add, clock, setting, train, test):
    """Corr-reg and the constrained ranker (those of ``methods``) over their grids,
    trained on ``train``'s features; records on both splits under ``setting``."""
    for method in IN_PROCESSING:
        if method in methods:
            init = None
            with clock(method):
                for parameter in DEFAULT_PARAMETERS[method]:
                    fitted = _in_processing(method, parameter, metric, seed, init).fit(
                        train[0], train[1], sensitive_features=train[2])
                    if method == "corr-reg" and parameter == 0:
                        init = (fitted.coef_, fitted.intercept_)
                    for split, (X, y, a) in zip(SPLITS, (train, test)):
                        add(method, parameter, setting, split,
                            fitted.decision_function(X), y, a)


def _in_processing(method, parameter, metric, seed, init):
    from .baselines import ConstrainedRanker, CorrReg

    if method == "corr-reg":
        return CorrReg(weight=parameter, metric=metric, init=init, random_state=seed)
    return ConstrainedRanker(max_disparity=parameter, metric=metric, random_state=seed)


def kd_subsample(sizes, max_cells=None):
    """The smallest k whose every-k-th-item subsample of groups of ``sizes`` keeps the
    K-D lattice (``prod(ceil(n / k) + 1)`` cells) within ``max_cells`` (default: the
    library's K-D limit, ``method="auto"``'s switch to iterative)."""
    from ..engine._plan import KD_MAX_CELLS

    limit = KD_MAX_CELLS if max_cells is None else max_cells
    k = 1
    while np.prod([float(-(-int(n) // k) + 1) for n in sizes]) > limit:
        k += 1
    return k


def _post_processing(methods, lams, metric, engine, post_logit_search, notes, add, clock,
                     setting, train, test):
    """Unadjusted, xOrder and post-logit learnt on ``train`` scores, applied to
    ``test``; records on both splits. Returns the test curves (unadjusted, xOrder at
    the largest lam, the public post-logit)."""
    from ..postprocessing._path import xorder_path
    from .baselines import PostLogit

    curves = {}
    for split, (s, y, a) in zip(SPLITS, (train, test)):
        add("unadjusted", None, setting, split, s, y, a)
    curves["unadjusted"] = test
    for name in ("xorder", "xorder-kd"):
        if name not in methods:
            continue
        params = dict(engine)
        if name == "xorder-kd":
            k = kd_subsample(np.unique(train[2], return_counts=True)[1])
            params.update(method="kd", subsample=None if k == 1 else k)
            notes.setdefault("xorder-kd subsample", []).append(k)
        with clock(name):
            models = xorder_path(*train[:2], sensitive_features=train[2], lams=lams,
                                 metric=metric, **params)
        for m in models:
            for split, (s, y, a) in zip(SPLITS, (train, test)):
                adjusted = (m.train_scores_adjusted_ if split == "train"
                            else m.transform(s, sensitive_features=a))
                add(name, m.lam, setting, split, adjusted, y, a)
        if name == "xorder":
            curves["xorder"] = (models[-1].transform(test[0], sensitive_features=test[2]),
                                test[1], test[2])
            curves["xorder_lam"] = models[-1].lam
    if "post-logit" in methods:
        with clock("post-logit"):
            fitted = PostLogit(metric=metric, search=post_logit_search).fit(
                *train[:2], sensitive_features=train[2])
        for lam in lams + tuple(x for x in POST_LOGIT_MORE_LAMS if x not in lams):
            fitted.select(lam)
            for split, (s, y, a) in zip(SPLITS, (train, test)):
                add("post-logit", lam, setting, split,
                    fitted.transform(s, sensitive_features=a), y, a)
    for name in ONE_POINT:
        if name not in methods:
            continue
        # more than two groups: the grid widened until the chosen alphas are interior
        # (two groups: the public code's grid as it is)
        widen = PUBLIC_WIDEN if np.unique(train[2]).size > 2 else 0
        with clock(name):
            fitted = PostLogit(metric=metric, search=ONE_POINT_SEARCH[name],
                               widen=widen).fit(*train[:2], sensitive_features=train[2])
        for split, (s, y, a) in zip(SPLITS, (train, test)):
            add(name, None, setting, split, fitted.transform(s, sensitive_features=a), y, a)
        notes.setdefault(f"{name} alphas", []).append(
            {str(g): alpha for g, (alpha, _) in fitted.shifts_.items()})
        if widen:
            notes.setdefault(f"{name} alpha grid", []).append(
                {"low": float(fitted.alphas_[0]), "high": float(fitted.alphas_[-1]),
                 "interior": bool(fitted.interior_)})
        curves[name] = (fitted.transform(test[0], sensitive_features=test[2]), test[1],
                        test[2])
    return curves
