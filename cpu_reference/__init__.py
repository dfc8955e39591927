"""Pure-NumPy reference implementation of the xOrder dynamic program.

The fallback backend of ``gpu_xorder`` and the source of truth every CUDA kernel is
tested against, decision for decision.
"""

from ._banded import (band_lattice, banded_bytes, least_banded_bytes, numpy_band_fill,
                      plan_bands, solve_banded)
from ._bits import bits_to_matrix, n_words
from ._counting import half_wins2
from ._fill import fill
from ._fronts import FrontsTooLarge, completion_values, solve_fronts
from ._ghat import cell_values
from ._iterative import (StepGhat, merge_order, pair_step, solve_iterative, step_inputs,
                         step_shapes)
from ._iterative import total_cells as iterative_cells
from ._kd import _Layout as KdLayout
from ._kd import n_cells as kd_cells
from ._kd import solve_kd
from ._kgroups import KProblem, build_problem, ordered_pairs
from ._kgroups import build_constants as kgroup_constants
from ._kgroups import final_values as kgroup_values
from ._lattice import COUNTERS, Lattice, build_lattice, edge_counters
from ._tiled import MSG_BOTTOM, tile_schedule
from ._traceback import path_to_order, traceback

__all__ = [
    "COUNTERS",
    "FrontsTooLarge",
    "KProblem",
    "KdLayout",
    "Lattice",
    "MSG_BOTTOM",
    "StepGhat",
    "band_lattice",
    "banded_bytes",
    "bits_to_matrix",
    "build_lattice",
    "build_problem",
    "cell_values",
    "completion_values",
    "edge_counters",
    "fill",
    "half_wins2",
    "iterative_cells",
    "kd_cells",
    "kgroup_constants",
    "kgroup_values",
    "least_banded_bytes",
    "merge_order",
    "n_words",
    "numpy_band_fill",
    "ordered_pairs",
    "pair_step",
    "path_to_order",
    "plan_bands",
    "solve_banded",
    "solve_fronts",
    "solve_iterative",
    "solve_kd",
    "step_inputs",
    "step_shapes",
    "tile_schedule",
    "traceback",
]
