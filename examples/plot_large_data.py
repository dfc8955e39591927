"""
Large data: subsampling, banded memory and the GPU
==================================================

The dynamic program fills a lattice of ``n_a * n_b`` cells for two groups. Three ways keep
a large problem within memory and time:

- **Subsampling** (``XOrder(subsample=k)``): the ordering is learnt on every k-th item of
  each group's descending score order, a lattice about ``k**2`` times smaller, and
  carried to every item by the same monotone per-group maps.
- **Bands** (``memory_limit``): when the decision bits (one bit per cell) exceed the
  limit, the lattice is solved in bands of rows with checkpoints: the same decisions for
  about twice the work, in the memory of one band.
- **A faster engine**: the compiled CPU engine (numba) or the GPU (CuPy), taken by
  ``backend="auto"`` when available, with the very same decisions as the NumPy
  reference.
"""

# %%
# Synthetic data of 6,000 items
# -----------------------------
import time

import matplotlib.pyplot as plt
import numpy as np

from gpu_xorder import XOrder, fair_order, metrics

rng = np.random.default_rng(1)


def draw(n):
    """Scores, labels and groups: the scores favour group 1."""
    group = (rng.random(n) < 0.4).astype(int)
    y = (rng.random(n) < 0.3).astype(int)
    return 1.2 * y + 0.6 * group + rng.normal(size=n), y, group


s_tr, y_tr, g_tr = draw(20000)
s_te, y_te, g_te = draw(20000)

# %%
# Subsampling: time against what it costs on held-out data
# --------------------------------------------------------
# The paper's cell rule (``solver="paper"``), one fill per fit, on the NumPy reference.
rows = []
for k in (1, 2, 4, 8, 16):
    start = time.perf_counter()
    xo = XOrder(lam=0.5, subsample=k, solver="paper", backend="numpy").fit(
        s_tr, y_tr, sensitive_features=g_tr)
    seconds = time.perf_counter() - start
    fair = xo.transform(s_te, sensitive_features=g_te)
    rows.append((k, seconds, metrics.auc(y_te, fair),
                 metrics.disparity(y_te, fair, sensitive_features=g_te, metric="xauc")))
    print(f"subsample {k:2}: {len(xo.subsample_indices_):5} items learnt from, "
          f"{seconds:5.2f} s, test AUC {rows[-1][2]:.3f}, test Delta-xAUC {rows[-1][3]:.3f}")
print(f"unadjusted: test AUC {metrics.auc(y_te, s_te):.3f}, "
      f"test Delta-xAUC "
      f"{metrics.disparity(y_te, s_te, sensitive_features=g_te, metric='xauc'):.3f}")

rows = np.array(rows)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.plot(rows[:, 0], rows[:, 1], "o-")
left.set_xscale("log", base=2)
left.set_yscale("log")
left.set_xlabel("subsample k")
left.set_ylabel("seconds to fit (NumPy)")
right.plot(rows[:, 0], rows[:, 3], "o-")
right.set_xscale("log", base=2)
right.set_ylim(bottom=0)
right.set_xlabel("subsample k")
right.set_ylabel("test Delta-xAUC after xOrder")
fig.suptitle(f"{len(s_tr):,} training items, lam = 0.5 (unadjusted test Delta-xAUC "
             f"{metrics.disparity(y_te, s_te, sensitive_features=g_te, metric='xauc'):.2f})")
fig.tight_layout()

# %%
# Bands: the same ordering in less memory
# ---------------------------------------
# The decision bits of 2,000 items take ``n_a * n_b / 8`` bytes; a limit below that makes
# the solve run in bands, with the very same result (``result.extra`` says how).
s, y, g = s_tr[:2000], y_tr[:2000], g_tr[:2000]
whole = fair_order(s, y, g, lam=0.5, solver="paper", backend="numpy")
banded = fair_order(s, y, g, lam=0.5, solver="paper", backend="numpy",
                    memory_limit="100kB")
print(banded.extra, np.array_equal(whole.order, banded.order))

# %%
# The GPU
# -------
# ``pip install "gpu-xorder[cuda12]"`` (or ``[cuda13]``) on a machine with an NVIDIA GPU;
# ``backend="auto"`` then takes CuPy after a self-check against the NumPy reference, and
# ``gpu-xorder info`` reports what each engine can do here. Without a GPU the CPU
# engines give the same orderings; this page was built on whichever engine ``"auto"``
# found:
auto = fair_order(s, y, g, lam=0.5, solver="paper")
print(f"backend='auto' ran on {auto.backend!r}; the same ordering as NumPy: "
      f"{np.array_equal(auto.order, whole.order)}")
