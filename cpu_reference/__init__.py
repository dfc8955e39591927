"""Pure-NumPy reference implementation of the xOrder dynamic program.

The fallback backend of ``gpu_xorder`` and the source of truth every CUDA kernel is
tested against, decision for decision.

The names below are imported on first use (PEP 562), so that importing the package
loads no dynamic program. The facts of the metrics that are not mathematics (names,
codes, counters) the reference reads from the metric registry,
``gpu_xorder.utils._metrics``: the floor under both packages, which imports nothing.
"""

import importlib

#: Every public name and ``(module, name in it)``.
_EXPORTS = {
    "COUNTERS": ("._lattice", "COUNTERS"),
    "COUNTER_KINDS": ("._lattice", "COUNTER_KINDS"),
    "EPS_TOLERANCE": ("._fronts", "EPS_TOLERANCE"),
    "FrontsTooLarge": ("._fronts", "FrontsTooLarge"),
    "HostWalker": ("._banded", "HostWalker"),
    "KD_CHUNK_BYTES": ("._kd", "CHUNK_BYTES"),
    "KProblem": ("._kgroups", "KProblem"),
    "KdLayout": ("._kd", "KdLayout"),
    "KdObjective": ("._kobjective", "KdObjective"),
    "NoneLeft": ("._fronts", "NoneLeft"),
    "PAD": ("._objective", "PAD"),
    "PRUNE_TOLERANCE": ("._fronts", "PRUNE_TOLERANCE"),
    "StepConstants": ("._lattice", "StepConstants"),
    "StepLattice": ("._lattice", "StepLattice"),
    "StepObjective": ("._objective", "StepObjective"),
    "band_lattice": ("._banded", "band_lattice"),
    "banded_bytes": ("._banded", "banded_bytes"),
    "bits_to_matrix": ("._bits", "bits_to_matrix"),
    "block_lattice": ("._blocks", "block_lattice"),
    "build_lattice": ("._lattice", "build_lattice"),
    "build_problem": ("._kgroups", "build_problem"),
    "cell_values": ("._objective", "cell_values"),
    "completion_values": ("._fronts", "completion_values"),
    "dp_order": ("._kgroups", "dp_order"),
    "edge_counters": ("._lattice", "edge_counters"),
    "expand_merged": ("._blocks", "expand_merged"),
    "expand_path": ("._blocks", "expand_path"),
    "expand_runs": ("._kgroups", "expand_runs"),
    "fill": ("._fill", "fill"),
    "group_dtype": ("._kgroups", "group_dtype"),
    "half_wins2": ("._counting", "half_wins2"),
    "iterative_cells": ("._iterative", "total_cells"),
    "kd_cells": ("._kd", "n_cells"),
    "kgroup_constants": ("._kgroups", "build_constants"),
    "kgroup_values": ("._kobjective", "kgroup_values"),
    "least_banded_bytes": ("._banded", "least_banded_bytes"),
    "merge_order": ("._iterative", "merge_order"),
    "merged_lattice": ("._blocks", "merged_lattice"),
    "n_words": ("._bits", "n_words"),
    "numpy_band_fill": ("._banded", "numpy_band_fill"),
    "ordered_pairs": ("._kgroups", "ordered_pairs"),
    "path_counters": ("._relink", "path_counters"),
    "path_states": ("._relink", "path_states"),
    "path_to_order": ("._traceback", "path_to_order"),
    "plan_bands": ("._banded", "plan_bands"),
    "problem_lattice": ("._lattice", "problem_lattice"),
    "relink": ("._relink", "relink"),
    "relink_terms": ("._relink", "relink_terms"),
    "runs_problem": ("._kgroups", "runs_problem"),
    "solve_banded": ("._banded", "solve_banded"),
    "solve_fronts": ("._fronts", "solve_fronts"),
    "solve_iterative": ("._iterative", "solve_iterative"),
    "solve_kd": ("._kd", "solve_kd"),
    "solve_lattice": ("._iterative", "solve_lattice"),
    "step_counters": ("._iterative", "step_counters"),
    "step_lattice": ("._iterative", "step_lattice"),
    "step_shapes": ("._iterative", "step_shapes"),
    "state_counters": ("._relink", "state_counters"),
    "tie_runs": ("._kgroups", "tie_runs"),
    "traceback": ("._traceback", "traceback"),
    "within_eps": ("._fronts", "within_eps"),
}

__all__ = [
    "EPS_TOLERANCE",
    "HostWalker",
    "PRUNE_TOLERANCE",
    "COUNTERS",
    "COUNTER_KINDS",
    "FrontsTooLarge",
    "KD_CHUNK_BYTES",
    "KProblem",
    "NoneLeft",
    "KdLayout",
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
    "relink_terms",
    "state_counters",
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


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(importlib.import_module(module, __name__), attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
