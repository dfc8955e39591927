"""The metric registry: every fact of a disparity metric that is not its mathematics,
in one table (:data:`METRICS`) that the NumPy reference, the engines (the kernels'
metric codes, the CUDA ``METRIC_*`` defines generated from them), the parameter table,
the metrics, the plots, the command line, the report and the experiments read.

It is the floor under both packages: it imports nothing, and it is the one module of
``gpu_xorder`` the reference reads (``tests/test_layers.py``), so that ``utils`` reads
no reference and the reference no code of the package. A metric's mathematics is the
reference's (its pair term, built from ``any_pairs``, and its G-hat) and the kernels'
(CONTRIBUTING, "Adding a metric").
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CounterKinds:
    """The pair counters a metric keeps (docs/design.md, section 3.1).

    ``kinds``: ``("C",)`` (positive above negative) or ``("C", "U")`` (and any above
    any, URF); ``names``: the two-group counters, in the order every engine keeps them.
    Derived: ``has_u``, whether the metric keeps ``U`` (URF); ``per_pair``, the counters
    of one pair of groups, every kind in both directions (2 or 4); ``state_rows``, the
    float64 state rows of one pair in the fills, ``C`` in both directions and for URF
    ``U[g][h] - U[h][g]`` (2 or 3: the final ``U`` follow from ``U[g][h] + U[h][g]``,
    the pairs of g and h with an item placed).
    """

    kinds: tuple
    names: tuple
    has_u: bool = field(init=False)
    per_pair: int = field(init=False)
    state_rows: int = field(init=False)

    def __post_init__(self):
        # plain attributes, not properties: the fills read them per lattice
        has_u = "U" in self.kinds
        object.__setattr__(self, "has_u", has_u)
        object.__setattr__(self, "per_pair", 2 * len(self.kinds))
        object.__setattr__(self, "state_rows", 2 * len(self.kinds) - has_u)


@dataclass(frozen=True)
class Metric:
    """One disparity metric (docs/design.md, section 2).

    ``name``: the parameter value (``metric="xauc"``); ``short``: its name in text
    (``"xAUC"``); ``display``: its disparity's (``"Delta-xAUC"``); ``pair_display``:
    the name of one pair's disparity (``"Delta-xAUC"``; URF's difference of the pair
    is its value, ``"URF"``); ``definition``: the
    disparity in words, over the pairs of groups; ``code``: the kernels' metric code
    (numba's ``METRIC_CODE``, CUDA's ``METRIC_XAUC``, ...); ``kinds``: the counters it
    keeps (:class:`CounterKinds`); ``any_pairs``: its pair term counts pairs of any two
    items (URF's U) rather than positives above negatives; ``per``: ``"pair"``, a value
    of an ordered pair of groups (xAUC(g, h), P(S^g > S^h)), or ``"group"``, a value of
    one group (PRF(g)); ``value_title`` and ``value_meaning``: the title of the audit's
    table of those values (CLI and report) and what one value is, in words.
    """

    name: str
    short: str
    display: str
    pair_display: str
    definition: str
    code: int
    kinds: CounterKinds
    any_pairs: bool
    per: str
    value_title: str
    value_meaning: str


#: The registry, in the order every table and picture lists the metrics.
METRICS = {m.name: m for m in (
    Metric("xauc", "xAUC", "Delta-xAUC", "Delta-xAUC",
           "the largest |xAUC(g, h) - xAUC(h, g)| over pairs",
           0, CounterKinds(("C",), ("cab", "cba")), False, "pair",
           "xAUC(g, h)", "P(a positive of g ranks above a negative of h)"),
    Metric("prf", "PRF", "Delta-PRF", "Delta-PRF",
           "the largest |PRF(g) - PRF(h)| over pairs",
           1, CounterKinds(("C",), ("cab", "cba")), False, "group",
           "PRF(g)", "P(a positive of g ranks above a negative of any group)"),
    Metric("urf", "URF", "Delta-URF", "URF",
           "the largest |P(an item of g above one of h) - P(one of h above one of g)| "
           "over pairs", 2, CounterKinds(("C", "U"), ("cab", "cba", "uab", "uba")), True,
           "pair", "URF(g, h)",
           "|P(an item of g ranks above one of h) - P(the reverse)|"),
)}

#: The audit's table of every group's within-group AUC (CLI and report), beside the
#: metrics' value tables (``Metric.value_title``): its title and what a value is.
AUC_WITHIN = ("AUC within g", "P(a positive of g ranks above a negative of g)")

def value_keys(metric, groups):
    """The keys of a metric's values over ``groups`` (its audit table's rows): each
    group (``per == "group"``), each ordered pair ``(g, h)``, or for a metric of any
    two items (``any_pairs``, symmetric) each pair once, ``g < h``."""
    m = METRICS[metric]
    if m.per == "group":
        return list(groups)
    return [(g, h) for g in groups for h in groups
            if g != h and (not m.any_pairs or g < h)]


#: The metrics' names (the choices of ``metric``).
METRIC_NAMES = tuple(METRICS)

#: The signed disparity ``D`` is the term of one pair of groups: the one message of that
#: rule, wherever it is checked (``gpu_xorder.utils._params.RULES``, the reference's
#: fills, the engines' launches).
MSG_SIGNED_TWO = "disparity='signed' is defined for two groups only, got {n_groups}"
