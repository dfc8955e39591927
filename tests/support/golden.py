"""The golden digests: decisions of release 0.3, recorded (``tests/cpu_reference/
test_golden.py`` checks the reference against them, the engine tests every engine).

SHA-256 digests (first 20 hex digits) of the decision words, paths, final counters and
last rows of the 2-D fill, the banded solve, the K-D DP and iterative xOrder, every metric
and mode, ties and lam 0 included, computed by release 0.3's code (the commit before the
objective module, 8f0143c) on the inputs of ``digests``.
"""

import hashlib

import numpy as np

import cpu_reference
from support.problems import random_problem


def _digest(*arrays):
    m = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        m.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return m


def _pairs(table):
    return np.array([[g, h, v] for (g, h), v in sorted(table.items())],
                    dtype=np.int64).reshape(-1, 3)


def _two_groups(seed, n_a, n_b, ties):
    rng = np.random.default_rng(seed)
    n = n_a + n_b
    s = rng.integers(0, 6, n).astype(float) if ties else rng.random(n)
    y = rng.integers(0, 2, n)
    g = np.r_[np.zeros(n_a, int), np.ones(n_b, int)]
    y[:2], y[n_a:n_a + 2] = [0, 1], [0, 1]
    return s, y, g


def digests(cr=cpu_reference):
    """``{case: digest}``, one digest per kind of solve, metric and mode, of the solves
    of ``cr``: ``cpu_reference`` or an engine's stand-in for it
    (``support.engines.Engine.golden_solver``), which offers its ``build_lattice``,
    ``fill``, ``numpy_band_fill``, ``solve_banded``, ``build_problem``, ``solve_kd`` and
    ``solve_iterative``."""
    out = {}
    for metric in ("xauc", "prf", "urf"):
        for mode in ("absolute", "signed"):
            fills, bands = hashlib.sha256(), hashlib.sha256()
            for seed, n_a, n_b, ties in ((1, 37, 29, False), (2, 70, 41, True),
                                         (3, 5, 90, True), (4, 64, 64, False)):
                lat = cr.build_lattice(*_two_groups(seed, n_a, n_b, ties), metric, mode)
                for lam in (0.0, 0.3, 1.7):
                    fills.update(_digest(*cr.fill(lat, lam, bottom=True)).digest())
                    if seed == 4:
                        (path, final), = cr.solve_banded(lat, 1, 32,
                                                         cr.numpy_band_fill([lam]))
                        bands.update(_digest(path, final).digest())
            out[f"fill/{metric}/{mode}"] = fills.hexdigest()[:20]
            out[f"banded/{metric}/{mode}"] = bands.hexdigest()[:20]
            two = hashlib.sha256()
            s, y, g = random_problem(np.random.default_rng(5), (6, 9), metric, True)
            prob = cr.build_problem(s, y, g, 2, metric, mode)
            for lam in (0.0, 0.7):
                path, c, u, _, order = cr.solve_iterative(prob, lam)
                two.update(_digest(path, _pairs(c), _pairs(u), np.array(order)).digest())
            out[f"iterative2/{metric}/{mode}"] = two.hexdigest()[:20]
        kd, it = hashlib.sha256(), hashlib.sha256()
        for sizes in ((5, 3, 4), (7, 6, 2, 3), (2, 2, 2, 2, 2), (9, 4, 6)):
            rng = np.random.default_rng(sum(sizes) * 7 + len(metric))
            for ties in (False, True):
                s, y, g = random_problem(rng, sizes, metric, ties)
                prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
                for lam in (0.0, 0.5, 2.0):
                    path, c, u, _ = cr.solve_kd(prob, lam)
                    kd.update(_digest(path, _pairs(c), _pairs(u)).digest())
                    path, c, u, _, order = cr.solve_iterative(prob, lam)
                    it.update(_digest(path, _pairs(c), _pairs(u), np.array(order)).digest())
        out[f"kd/{metric}"] = kd.hexdigest()[:20]
        out[f"iterative/{metric}"] = it.hexdigest()[:20]
    return out


GOLDEN = {
    "banded/prf/absolute": "a4981a1598f314ab42e1",
    "banded/prf/signed": "b163ce6bb376eb1433bf",
    "banded/urf/absolute": "abca633188b1c41aca47",
    "banded/urf/signed": "124ab0d4d5e5c4e39cc0",
    "banded/xauc/absolute": "62a25e7d9e2cf81086ea",
    "banded/xauc/signed": "7ba714a6114394a04c97",
    "fill/prf/absolute": "61b1e25c2031c0c06e12",
    "fill/prf/signed": "f64408129bc46f8eb103",
    "fill/urf/absolute": "de811a40390f1775f791",
    "fill/urf/signed": "a62c9268a2a8ec1959bf",
    "fill/xauc/absolute": "b54181fa24892691e86c",
    "fill/xauc/signed": "6a8f4fb6d103ecd74f17",
    "iterative/prf": "ec26c80fa1fe10dac022",
    "iterative/urf": "8396e0e414b099e03f3a",
    "iterative/xauc": "4c4c6b83b5e042181d2a",
    "iterative2/prf/absolute": "c75db1992f85d2405a02",
    "iterative2/prf/signed": "8683c2a29abec8bd9060",
    "iterative2/urf/absolute": "fa2604e108a4ee11d670",
    "iterative2/urf/signed": "8ab60a37bbd26f2e28e3",
    "iterative2/xauc/absolute": "4d5012cf247239db8709",
    "iterative2/xauc/signed": "8683c2a29abec8bd9060",
    "kd/prf": "79903fb02f759ffcf084",
    "kd/urf": "86d0c34960f520e11b98",
    "kd/xauc": "b7324eba644a9f485084",
}
