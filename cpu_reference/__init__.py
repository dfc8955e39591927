"""Pure-NumPy reference implementation of the xOrder dynamic program.

The fallback backend of ``gpu_xorder`` and the source of truth every CUDA kernel is
tested against, decision for decision.
"""

from ._banded import (
                      HostWalker,
                      band_lattice,
                      banded_bytes,
                      least_banded_bytes,
                      numpy_band_fill,
                      plan_bands,
                      solve_banded,
)
from ._bits import bits_to_matrix, n_words
from ._blocks import block_lattice, expand_merged, expand_path, merged_lattice
from ._counting import half_wins2
from ._fill import fill
from ._fronts import (
                      EPS_TOLERANCE,
                      PRUNE_TOLERANCE,
                      FrontsTooLarge,
                      NoneLeft,
                      completion_values,
                      solve_fronts,
                      within_eps,
)
from ._iterative import (
                      merge_order,
                      solve_iterative,
                      solve_lattice,
                      step_counters,
                      step_lattice,
                      step_shapes,
)
from ._iterative import total_cells as iterative_cells
from ._kd import CHUNK_BYTES as KD_CHUNK_BYTES
from ._kd import KdLayout, solve_kd
from ._kd import n_cells as kd_cells
from ._kgroups import (
                      KProblem,
                      build_problem,
                      dp_order,
                      expand_runs,
                      group_dtype,
                      ordered_pairs,
                      runs_problem,
                      tie_runs,
)
from ._kgroups import build_constants as kgroup_constants
from ._kobjective import KdObjective, kgroup_values
from ._lattice import (
                      COUNTER_KINDS,
                      COUNTERS,
                      StepConstants,
                      StepLattice,
                      build_lattice,
                      edge_counters,
                      problem_lattice,
)
from ._metrics import METRIC_NAMES, METRICS, CounterKinds, Metric
from ._objective import MSG_SIGNED_TWO, PAD, StepObjective, cell_values
from ._relink import path_counters, path_states, relink
from ._traceback import path_to_order, traceback

__all__ = [
    "EPS_TOLERANCE",
    "HostWalker",
    "PRUNE_TOLERANCE",
    "COUNTERS",
    "COUNTER_KINDS",
    "CounterKinds",
    "FrontsTooLarge",
    "KD_CHUNK_BYTES",
    "KProblem",
    "NoneLeft",
    "KdLayout",
    "METRICS",
    "METRIC_NAMES",
    "Metric",
    "MSG_SIGNED_TWO",
    "PAD",
    "KdObjective",
    "StepConstants",
    "StepLattice",
    "StepObjective",
    "band_lattice",
    "banded_bytes",
    "bits_to_matrix",
    "block_lattice",
    "build_lattice",
    "build_problem",
    "cell_values",
    "completion_values",
    "dp_order",
    "edge_counters",
    "expand_merged",
    "expand_path",
    "expand_runs",
    "merged_lattice",
    "problem_lattice",
    "runs_problem",
    "tie_runs",
    "within_eps",
    "fill",
    "group_dtype",
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
    "path_counters",
    "path_states",
    "path_to_order",
    "plan_bands",
    "relink",
    "solve_banded",
    "solve_fronts",
    "solve_iterative",
    "solve_kd",
    "solve_lattice",
    "step_counters",
    "step_lattice",
    "step_shapes",
    "traceback",
]
