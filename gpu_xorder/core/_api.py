"""``fair_order``: the arguments validated once (``utils._params.validate``), the plan
made (``_work.plan_encoded``, which asks ``_choice``), then carried out
(``_work.execute``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..utils import _params as params
from ..utils import _validation as v
from ..utils._frames import warn_misaligned
from ._choice import Plan
from ._result import FairOrderResult
from ._work import execute, plan_encoded

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike


def fair_order(scores: ArrayLike, y: ArrayLike, sensitive_features: ArrayLike | None = None,
               *, metric: str = "xauc", lam: float | Sequence[float] = 0.0,
               disparity: str = "absolute", backend: str = "auto", method: str = "auto",
               solver: str = "auto", max_disparity: float | None = None,
               memory_limit: int | str | None = None,
               progress: Callable[[int, int], object] | None = None,
               n_jobs: int | None = None, exact_budget: float = 2.0,
               groups: ArrayLike | None = None,
               plan_only: bool = False) -> FairOrderResult | list[FairOrderResult] | Plan:
    """Interleave the groups' rankings to trade AUC against ranking disparity.

    Every group keeps its own descending score order; the DP chooses how the groups
    interleave so as to maximise ``AUC - lam * D`` (docs/design.md, section 3).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Risk scores, higher ranked first. Finite; at most 2**26 items.
    y : array-like of shape (n,)
        Binary labels (0/1).
    sensitive_features : array-like of shape (n,) or (n, c)
        Protected group of each item (ints, or strings of at most
        ``MAX_LABEL_CHARS`` = 1000 characters); with c columns (one per
        attribute, a DataFrame say) the groups are their intersections, labelled by
        the values joined with ``" & "`` (``"white & female"``). Required; the third
        positional argument.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        Disparity metric: cross-AUC, pairwise ranking fairness or unsupervised ranking
        fairness.
    lam : float or sequence of float, default=0.0
        Weight of the disparity, on the paper's scale (AUC and D are both fractions):
        one real number of any type (``Decimal``, ``Fraction``, NumPy scalars and 0-d
        arrays; not a bool) or a one-dimensional sequence of them.
        The public reference code's weight equals ``lam * n_1 * n_0``. A sequence
        returns one result per value (filled in one batch on the GPU); with two groups
        and the solvers ``"auto"``, ``"lagrangian"`` and ``"exact"`` the values share
        one search, so each result is at least every other value's ordering at its lam
        and may be another ordering than the value alone gives
        (:func:`gpu_xorder.xorder_path` solves each value alone).
    disparity : {"absolute", "signed"}, default="absolute"
        ``"absolute"`` penalises ``|D|``; ``"signed"`` penalises ``D = m(a, b) - m(b, a)``
        (the paper's eq. 14), for which the DP is exactly optimal.
    backend : {"auto", "numpy", "numba", "cupy"}, default="auto"
        The engine that fills the lattices, each with the same decisions: ``"numpy"``
        (the reference), ``"numba"`` (the compiled CPU engine, ``gpu-xorder[numba]``),
        ``"cupy"`` (the GPU, ``gpu-xorder[cuda12]``); ``"auto"`` takes CuPy when it
        passes its self-check, else numba when it imports and agrees with the reference,
        else NumPy (a named backend that cannot run raises
        ``BackendUnavailableError``). More than two groups: NumPy runs K-D and
        iterative xOrder on the reference; numba runs the iterative steps on its
        compiled fill and K-D on the reference; CuPy runs both on the GPU, up to 20
        groups for iterative and 32 for K-D (beyond, ``"cupy"`` raises and ``"auto"``
        runs NumPy). ``result.backend`` says which ran.
    method : {"auto", "kd", "iterative", "best"}, default="auto"
        How more than two groups are merged (docs/design.md, section 4). ``"kd"``: the DP
        over the K-dimensional lattice of prod(n_g + 1) cells. ``"iterative"``: merge the
        groups one at a time, largest first (equal sizes: lower group index first), by
        2-D DPs; ``result.extra["merge_order"]`` lists the group labels in merge order.
        Both give the best interleaving at ``lam = 0``; with a disparity penalty the
        cell rule is not guaranteed optimal for either (docs/user_guide/many_groups.md,
        "More than two
        groups"), and either may score the higher objective: ``"best"`` runs both and
        keeps, for every lam, the higher ``objective`` (K-D on a tie; ``result.method``
        says which, ``result.extra["objectives"]`` holds both).
        ``"auto"``: the 2-D DP for two groups; for more, ``"kd"`` up to
        ``KD_MAX_CELLS`` = 1e8 cells, else ``"iterative"``. ``result.method`` records
        the choice (``"2d"``, ``"kd"`` or ``"iterative"``). With two groups all three
        give the same ordering.
    solver : {"auto", "paper", "lagrangian", "exact"}, default="auto"
        How the ordering is chosen for two groups with ``|D|`` (docs/design.md, section
        3.5). ``"paper"``: the DP's cell rule (the paper's
        recurrence), a heuristic for ``|D|``. ``"lagrangian"``: signed DPs over weights
        ``mu`` in ``[-lam, lam]`` give a certified ``upper_bound`` and candidate
        orderings; the best of them and of the cell rule is returned, never worse than
        ``"paper"``. ``"exact"``: the optimum, by Pareto fronts pruned with those bounds
        (NumPy; a ``ValueError`` before any fill above ``EXACT_MAX_CELLS`` cells, a
        ``MemoryError`` naming the size when the fronts outgrow the memory budget).
        ``"auto"``: the Lagrangian search, then the exact solver where its
        estimated cost fits ``exact_budget`` (the search's result beyond); the search
        runs up to the cells the engine certifies in the time of a few fills, its
        ``CERTIFIED_CELLS``: 2.5e8 on NumPy, 2.5e9 on numba, no limit on the GPU;
        beyond, the cell rule with a ``UserWarning`` and ``extra["uncertified"]``
        saying why.
        ``result.solver`` says which ran and ``result.extra["solver_reason"]`` why.
        With ``lam = 0``, ``disparity="signed"`` or more than two groups the cell rule
        runs (exact in the first two cases; the other solvers need two groups).
    max_disparity : float or None, default=None
        Fairness as a constraint: maximise AUC subject to ``|D| <= max_disparity`` on
        the data given (two groups; leave ``lam`` at 0). The weight is searched over
        signed DPs; ``result.objective`` is the AUC, ``result.upper_bound`` a
        certified bound on the best AUC any interleaving with ``|D| <= max_disparity``
        reaches; small lattices are solved exactly (``result.solver == "exact"``).
        ``ValueError`` when no ordering found meets the constraint (its ``proven``
        attribute: True when no interleaving does). To hold the constraint on new
        data, see ``XOrder(max_disparity=..., validation=...)``.
    memory_limit : int, str or None, default=None
        Bytes the decision bits may take (all ``lam`` values of a GPU batch together),
        or a size with a unit: ``"2GB"``, ``"512MiB"``.
        Default: 75% of the host memory available (NumPy) or the free device memory
        (CuPy). The two-group DP whose bits exceed it is filled in bands of rows with
        counter checkpoints and the path recomputed band by band (docs/design.md, section 6):
        the same result for about twice the work; ``result.extra`` then holds
        ``"bands"`` and ``"band_rows"``. The K-group methods keep their bits whole:
        ``method="auto"`` takes ``"iterative"`` when the K-D bits would exceed the
        limit, and a method whose bits exceed it raises ``MemoryError``.
    progress : callable(done_cells, total_cells), optional
        Called periodically while the lattice fills; with a sequence ``lam`` the
        cells count those of every value's lattice together (with ``n_jobs``, after
        every round of lattices). With two groups the total counts the fills the
        solver is expected to take and moves on if its search takes more; the last
        report has ``done == total``. Not called with ``max_disparity``, whose number
        of fills is not known in advance.
    n_jobs : int or None, default=None
        NumPy backend, sequence ``lam``: fill that many lattices at once in worker
        processes (joblib; -1: one per CPU core; None: 1). The results are the same;
        the memory budget is shared by the lattices filled at once. The GPU ignores it
        (a sequence already fills in one batch).
    exact_budget : float, default=2.0
        Seconds ``solver="auto"`` may spend in the exact solver (two groups, ``|D|``):
        it runs where its estimated cost fits (completion tables, then Pareto fronts
        stopped as soon as they exceed it or are on course to exceed it several times;
        seconds of one core of a 2-core machine, by a cost model of states, not a
        clock, so the result does not depend on the machine's load). The model is the
        engine's: the fronts are compiled on the numba engine (and on CuPy where numba
        imports), about 9 times cheaper per state than NumPy's, so the exact solver
        answers more problems there. 0: the search alone; at most 1e9 (beyond, the
        fronts outgrow any memory first).
    groups : array-like, optional
        Deprecated keyword name of ``sensitive_features`` (a ``FutureWarning``).
    plan_only : bool, default=False
        Return what would run, without running it: the :class:`~gpu_xorder.Plan`
        (engine, route, solver of every lam, expected fills and cells, decision bits,
        estimated seconds, the warnings the solve would give), as a database explains
        a query. The inputs are checked as for a solve.

    Returns
    -------
    FairOrderResult or list of FairOrderResult or Plan
        One per ``lam`` value when ``lam`` is a sequence; the plan with ``plan_only``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpu_xorder import fair_order
    >>> scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    >>> y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    >>> groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    >>> res = fair_order(scores, y, groups, lam=1.0, backend="numpy")
    >>> sorted(res.order.tolist()) == list(range(8))
    True
    >>> fair_order(scores, y, groups, lam=1.0, backend="numpy", plan_only=True).engine
    'numpy'
    """
    plan_only = v.check_flag(plan_only, "plan_only")
    groups = v.sensitive_features_argument(sensitive_features, groups)
    warn_misaligned(scores=scores, y=y, sensitive_features=groups)
    request = params.validate(dict(
        metric=metric, disparity=disparity, backend=backend, method=method, solver=solver,
        max_disparity=max_disparity, progress=progress, lam=lam, memory_limit=memory_limit,
        n_jobs=n_jobs, exact_budget=exact_budget), data=(scores, y, groups))
    lams, batch = request["lam"]
    plan = plan_encoded(*request.data, lams, metric=request["metric"],
                        mode=request["disparity"], backend=request["backend"],
                        method=request["method"], solver=request["solver"],
                        max_disparity=request["max_disparity"],
                        memory_limit=request["memory_limit"], n_jobs=request["n_jobs"],
                        exact_budget=request["exact_budget"])
    if plan_only:
        return plan
    results = execute(*request.data, plan, request["progress"])
    return results if batch else results[0]
