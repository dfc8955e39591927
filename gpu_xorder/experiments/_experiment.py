"""The paper's experiments on the bundled data sets, repeated over random splits.

The protocol of the paper (``datasets/README.md``, "Paper settings"), one repetition
``r`` at a time: a stratified random train/test split (70/30) with seed ``seed + r``;
features standardised with the statistics of the training split; a logistic regression
fitted on the training split; xOrder fitted on its training scores for every ``lam``
at once (:func:`gpu_xorder.xorder_path`, one batched DP) and transferred to the test
scores. Every repetition records AUC and the three disparities of the unadjusted and of
every adjusted score, on both splits, so that means and spreads over the repetitions
can be compared with the figures the paper quotes (:data:`PAPER_FIGURES`).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..utils import _params as params
from ..utils import _validation as v
from ..utils._frames import import_pandas
from ..utils._parallel import map_in_rounds, workers

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

GROUPINGS = ("default", "age", "race-sex", "age5", "age10")
#: The age bands of the paper's Figure 12 (large eICU; its footnote prints the sixth
#: band of ten as "65 < age <= 65", evidently 60-65): the upper edges, age <= edge.
FIGURE_12_EDGES = {"age5": (45, 55, 65, 75),
                   "age10": (35, 45, 50, 55, 60, 65, 70, 75, 85)}
SPLITS = ("train", "test")
DEFAULT_LAMS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.5)
#: The data sets of the paper's two settings (datasets/README.md, "Paper settings").
PAPER_DATA = {"default": ("compas", "adult", "german", "framingham"),
              "age": ("adult", "compas"),
              "race-sex": ("adult", "compas"),
              "age5": ("icu-standin",), "age10": ("icu-standin",)}
#: ``grouping(data, "race-sex")`` codes: 2 * race + sex (race 1 = white, sex 1 = male).
RACE_SEX_NAMES = {0: "non-white female", 1: "non-white male", 2: "white female",
                  3: "white male"}

MSG_NO_AGE = (
    "the {name} data set records age only binarised, so it has no age bands; use "
    "adult, compas or framingham"
)
MSG_NO_RACE_SEX = (
    "the {name} data set has no race and sex columns to intersect; use adult or compas"
)
MSG_REPEATS = "repeats must be an integer >= 1, got {value!r}"


@dataclass(frozen=True)
class PaperFigure:
    """A figure the paper's text quotes for the unadjusted test scores of a linear model.

    ``quantity`` names what is compared: ``"larger xAUC"`` / ``"smaller xAUC"`` (the two
    directions xAUC(g, h) and xAUC(h, g) of the two groups; the paper's a/b naming is not
    stated, so the directions are matched by size) or a disparity (``"xauc"``,
    ``"urf"``, ...; the maximum over pairs of groups).
    """

    data: str
    groups: str
    quantity: str
    value: float


#: Figures quoted in the paper's text (``datasets/README.md``): unadjusted, test split.
PAPER_FIGURES = (
    PaperFigure("adult", "default", "larger xAUC", 0.935),
    PaperFigure("adult", "default", "smaller xAUC", 0.829),
    PaperFigure("compas", "default", "larger xAUC", 0.790),
    PaperFigure("compas", "default", "smaller xAUC", 0.578),
    PaperFigure("adult", "age", "urf", 0.75),
)


@dataclass(frozen=True)
class Experiment:
    """Outcome of :func:`paper_experiment`.

    Attributes
    ----------
    data, groups, metric : str
        The data set, the grouping (``"default"``: the paper's attribute; ``"age"``:
        three age bands; ``"race-sex"``: four intersections) and the disparity xOrder
        traded against AUC.
    group_labels : tuple
        Sorted group labels.
    lams : tuple of float
    repeats : int
    test_size : float
    seed : int
    records : tuple of dict
        One per repetition, score (``lam`` None: unadjusted) and split:
        ``{"repeat", "lam", "split", "auc", "xauc", "prf", "urf", "xauc_pairs"}``; a
        disparity the split leaves undefined (a group without positives, say) is None;
        ``xauc_pairs`` maps ``"g > h"`` (``_validation.pair_key``) to xAUC(g, h) for
        every ordered pair.
    fit_seconds : tuple of float
        Wall time of each repetition's xOrder path (all lams together).
    backends, methods : tuple of str
        Backends and xOrder methods that ran.
    """

    data: str
    groups: str
    metric: str
    group_labels: tuple
    lams: tuple
    repeats: int
    test_size: float
    seed: int
    records: tuple
    fit_seconds: tuple
    backends: tuple
    methods: tuple

    def summary(self, split="test"):
        """Mean and standard deviation over the repetitions, one row per score.

        Parameters
        ----------
        split : {"test", "train"}

        Returns
        -------
        list of dict
            ``{"lam": None or float, "auc": (mean, std), "xauc": ..., "prf": ...,
            "urf": ...}``, unadjusted first; a quantity undefined in some repetitions is
            averaged over the others; the mean is NaN when it is defined in none, the
            (sample) standard deviation when it is defined in fewer than two.
        """
        v.check_choice(split, "split", SPLITS)
        rows = []
        for lam in (None,) + self.lams:
            chosen = [r for r in self.records if r["lam"] == lam and r["split"] == split]
            row = {"lam": lam}
            for key in ("auc",) + v.METRICS:
                row[key] = _mean_std([r[key] for r in chosen])
            rows.append(row)
        return rows

    def paper_figures(self):
        """The paper's figures for this data set and grouping, next to the measured
        unadjusted test values: ``[(PaperFigure, (mean, std)), ...]``."""
        unadjusted = [r for r in self.records if r["lam"] is None and r["split"] == "test"]
        out = []
        for fig in PAPER_FIGURES:
            if (fig.data, fig.groups) != (self.data, self.groups):
                continue
            out.append((fig, _mean_std(figure_values(fig, unadjusted))))
        return out

    def to_dict(self):
        """Everything as plain JSON types (group labels as :func:`json_label`)."""
        return {
            "data": self.data, "groups": self.groups, "metric": self.metric,
            "group_labels": [json_label(g) for g in self.group_labels],
            "lams": list(self.lams), "repeats": self.repeats,
            "test_size": self.test_size, "seed": self.seed,
            "backends": list(self.backends), "methods": list(self.methods),
            "fit_seconds": list(self.fit_seconds),
            "records": [dict(r) for r in self.records],
            "summary": {split: [_plain_row(row) for row in self.summary(split)]
                        for split in SPLITS},
            "paper_figures": [
                dict(zip(("quantity", "paper", "mean", "std"),
                         [fig.quantity, fig.value] + _plain(measured)))
                for fig, measured in self.paper_figures()],
        }

    def to_frame(self):
        """The records as a pandas DataFrame, one row per repetition, score and split.

        Columns as the keys of ``records``; ``lam`` is NaN for the unadjusted scores and
        an undefined value is NaN; a dict entry (``xauc_pairs``) gives one column per
        key, ``"xauc_pairs.g > h"``. Needs pandas (``pip install 'gpu-xorder[pandas]'``).
        """
        pd = import_pandas("Experiment.to_frame")
        rows = []
        for record in self.records:
            row = {}
            for key, value in record.items():
                if isinstance(value, dict):
                    row.update({f"{key}.{name}": x for name, x in value.items()})
                else:
                    row[key] = value
            rows.append(row)
        return pd.DataFrame.from_records(rows)

    def summary_frame(self, split="test"):
        """:meth:`summary` as a pandas DataFrame: one row per score (``lam`` NaN for the
        unadjusted one), columns ``auc_mean``, ``auc_std``, ``xauc_mean``, ... Needs
        pandas."""
        pd = import_pandas("Experiment.summary_frame")
        rows = []
        for row in self.summary(split):
            flat = {}
            for key, value in row.items():
                if isinstance(value, tuple):
                    flat[f"{key}_mean"], flat[f"{key}_std"] = value
                else:
                    flat[key] = value
            rows.append(flat)
        return pd.DataFrame.from_records(rows)


def grouping(dataset, groups):
    """Group of every row of ``dataset``: its paper attribute (``"default"``), the three
    age bands (``"age"``), the five or ten of the paper's Figure 12 (``"age5"``,
    ``"age10"``: :data:`FIGURE_12_EDGES`), or the four intersections of race and sex
    (``"race-sex"``, codes ``2 * race + sex``, named in ``RACE_SEX_NAMES``)."""
    from ..datasets import age_bands

    v.check_choice(groups, "groups", GROUPINGS)
    if groups == "default":
        return dataset.sensitive
    if groups == "race-sex":
        names = dataset.feature_names
        if "race" not in names or "sex" not in names:
            raise ValueError(MSG_NO_RACE_SEX.format(name=dataset.name))
        race, sex = (dataset.X[:, names.index(c)].astype(np.int64) for c in ("race", "sex"))
        return 2 * race + sex
    if dataset.age is None:
        raise ValueError(MSG_NO_AGE.format(name=dataset.name))
    if groups in FIGURE_12_EDGES:
        return np.searchsorted(np.array(FIGURE_12_EDGES[groups], dtype=np.float64),
                               np.asarray(dataset.age, dtype=np.float64),
                               side="left").astype(np.int64)
    return age_bands(dataset.age)


def band_names(groups):
    """The readable names of the age bands of ``groups`` (``"age5"``, ``"age10"``):
    ``{0: "age <= 45", 1: "45 < age <= 55", ..., 4: "age > 75"}``."""
    edges = FIGURE_12_EDGES[groups]
    names = {0: f"age <= {edges[0]}", len(edges): f"age > {edges[-1]}"}
    names.update({k: f"{lo} < age <= {hi}"
                  for k, (lo, hi) in enumerate(zip(edges, edges[1:]), start=1)})
    return dict(sorted(names.items()))


def split_scores(dataset, groups, *, test_size=0.3, seed=0):
    """One repetition's split and model: ``(train, test)``, each ``(scores, y, groups)``.

    A stratified random split with ``random_state=seed``, features standardised with
    the training split's statistics, and a logistic regression's probabilities.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        dataset.X, dataset.y, groups, test_size=test_size, random_state=seed,
        stratify=dataset.y)
    scaler = StandardScaler().fit(X_tr)
    model = LogisticRegression(max_iter=1000, random_state=seed)
    model.fit(scaler.transform(X_tr), y_tr)
    s_tr = model.predict_proba(scaler.transform(X_tr))[:, 1]
    s_te = model.predict_proba(scaler.transform(X_te))[:, 1]
    return (s_tr, y_tr, a_tr), (s_te, y_te, a_te)


def paper_experiment(data: str = "compas", *, groups: str = "default",
                     metric: str = "xauc", lams: Sequence[float] = DEFAULT_LAMS,
                     repeats: int = 10,
                     test_size: float = 0.3, seed: int = 0, backend: str = "auto",
                     method: str = "auto", solver: str = "paper",
                     subsample: int | None = None, n_jobs: int | None = 1,
                     progress: Callable[[int, int], object] | None = None) -> Experiment:
    """Run the paper's protocol on a bundled data set, ``repeats`` times.

    Parameters
    ----------
    data : {"compas", "adult", "german", "framingham"}
    groups : {"default", "age", "race-sex"}
        ``"default"``: the paper's attribute for the data set (race for Adult and
        COMPAS, age for German, gender for Framingham); ``"age"``: the three age bands
        of the paper's multi-group setting (not German, whose age is binarised);
        ``"race-sex"``: the four intersections of race and sex (Adult and COMPAS; not
        a setting of the paper, so no paper figures).
    metric : {"xauc", "prf", "urf"}
        Disparity xOrder trades against AUC.
    lams : sequence of float
        Values of ``lam`` (paper's scale), each fitted in every repetition.
    repeats : int
        Random splits (the paper: 10).
    test_size : float
        Held-out fraction (the paper: 0.3).
    seed : int
        Repetition ``r`` splits with ``random_state=seed + r``.
    backend, method : as in :class:`gpu_xorder.XOrder`
        Passed on to :class:`gpu_xorder.XOrder`.
    solver : {"paper", "auto", "lagrangian", "exact"}, default="paper"
        Passed on to :class:`gpu_xorder.XOrder`. The default is the paper's own cell
        rule, so that the protocol reproduces the paper's method; ``"auto"`` gives the
        certified orderings of the library's default (slower on large lattices).
    subsample : as in :class:`gpu_xorder.XOrder`
        Passed on to :class:`gpu_xorder.XOrder`.
    n_jobs : int or None
        Repetitions run at once in worker processes (joblib; -1: one per CPU core;
        None: 1, or as a ``joblib.parallel_backend`` context says, e.g. every worker of
        a Dask cluster under ``parallel_backend("dask")``). The records are the same
        whatever the number. With a GPU, keep 1: the lam batch already fills the device.
    progress : callable(done_repeats, repeats), optional
        Called after every repetition (with ``n_jobs != 1``, after every round of
        ``n_jobs``).

    Returns
    -------
    Experiment
        Every repetition's measurements, with the tables and pictures drawn from them.

    Raises
    ------
    ValueError
        On an unknown data set, grouping, metric, backend or method, ``groups="age"``
        for German, ``groups="race-sex"`` for German or Framingham, bad ``lams``,
        ``repeats``, ``test_size`` or ``n_jobs``.

    Examples
    --------
    >>> from gpu_xorder import paper_experiment
    >>> exp = paper_experiment("german", lams=[0.0, 1.0], repeats=2, backend="numpy")
    >>> [row["lam"] for row in exp.summary()]
    [None, 0.0, 1.0]
    >>> len(exp.records)  # 2 repetitions x 3 scores x 2 splits
    12
    """
    from ..datasets import load_dataset

    dataset = load_dataset(data)
    params.check("metric", metric)
    params.check("solver", solver)
    lam_values, _ = params.check("lam", lams)
    if isinstance(repeats, (bool, np.bool_)) or not isinstance(repeats, (int, np.integer)) \
            or repeats < 1:
        raise ValueError(MSG_REPEATS.format(value=repeats))
    test_size = params.check("test_size", test_size)  # any real number type
    labels = grouping(dataset, groups)

    n_jobs = params.check("n_jobs", n_jobs)
    run = functools.partial(_repetition, dataset.name, groups, metric, lam_values,
                            test_size, backend, method, solver, subsample)
    repeats = int(repeats)
    runs = map_in_rounds(run, [(r, seed + r) for r in range(repeats)],
                         workers(n_jobs, repeats),
                         None if progress is None else lambda done: progress(done, repeats))
    records, seconds, backends, methods = [], [], set(), set()
    for recs, secs, used_backends, used_methods in runs:
        records += recs
        seconds.append(secs)
        backends |= used_backends
        methods |= used_methods
    return Experiment(
        data=dataset.name, groups=groups, metric=metric,
        group_labels=tuple(np.unique(labels).tolist()),
        lams=tuple(float(x) for x in lam_values), repeats=int(repeats),
        test_size=float(test_size), seed=int(seed), records=tuple(records),
        fit_seconds=tuple(seconds), backends=tuple(sorted(backends)),
        methods=tuple(sorted(methods)))


def _repetition(data, groups, metric, lams, test_size, backend, method, solver, subsample,
                r, seed):
    """Repetition ``r`` (split seed ``seed``): ``(records, xOrder seconds, backends,
    methods)``. A module-level function of plain arguments, so that worker processes
    can run it (the data set is read once per process)."""
    from ..datasets import load_dataset
    from ..postprocessing._path import xorder_path

    dataset = load_dataset(data)
    train, test = split_scores(dataset, grouping(dataset, groups), test_size=test_size,
                               seed=seed)
    start = time.perf_counter()
    models = xorder_path(*train[:2], sensitive_features=train[2], lams=lams, metric=metric,
                         backend=backend, method=method, solver=solver,
                         subsample=subsample)
    seconds = time.perf_counter() - start
    records = []
    for split, (s, y, a) in zip(SPLITS, (train, test)):
        records.append(_record(r, None, split, s, y, a))
        for model in models:
            adjusted = (model.train_scores_adjusted_ if split == "train"
                        else model.transform(s, sensitive_features=a))
            records.append(_record(r, model.lam, split, adjusted, y, a))
    return (records, seconds, {m.result_.backend for m in models},
            {m.result_.method for m in models})


def _record(repeat, lam, split, scores, y, groups):
    from .. import metrics  # scikit-learn, not needed by the command line's parser
    from ..metrics._ranking import defined

    record = {"repeat": repeat, "lam": lam, "split": split, "auc": metrics.auc(y, scores)}
    for name in v.METRICS:
        record[name] = defined(metrics.disparity, y, scores, sensitive_features=groups,
                               metric=name)
    labels = np.unique(groups)
    record["xauc_pairs"] = {
        v.pair_key(g, h): defined(metrics.xauc, y, scores, sensitive_features=groups, g=g, h=h)
        for g in labels for h in labels if g != h}
    return record


def figure_values(fig, records):
    """The values of the quantity a paper figure quotes, one per record: a disparity,
    or the larger (smaller) of a pair's two xAUC directions (records where both are
    defined)."""
    if fig.quantity in ("larger xAUC", "smaller xAUC"):
        pick = max if fig.quantity == "larger xAUC" else min
        return [pick(r["xauc_pairs"].values()) for r in records
                if None not in r["xauc_pairs"].values()]
    return [r[fig.quantity] for r in records]


def json_label(label):
    """A group label as a JSON value that reads back as itself: a number or text
    stays one (NumPy scalars as Python's), anything else becomes its text. The figures
    look band names up by the labels' codes, so a records.json must not turn 0 into
    "0"."""
    label = label.item() if isinstance(label, np.generic) else label
    return label if isinstance(label, (str, int, float)) else str(label)


def _mean_std(values):
    """Mean and sample standard deviation of the defined values (NaN where there are
    too few: none for the mean, one for the deviation)."""
    known = np.array([x for x in values if x is not None], dtype=np.float64)
    mean = float(known.mean()) if known.size else float("nan")
    return (mean, float(known.std(ddof=1)) if known.size > 1 else float("nan"))


def _plain(pair):
    """A (mean, std) pair for JSON: a list, NaN as None."""
    return [None if np.isnan(x) else x for x in pair]


def _plain_row(row):
    return {key: _plain(value) if isinstance(value, tuple) else value
            for key, value in row.items()}
