"""Pure-NumPy reference implementation of the xOrder dynamic program.

The fallback backend of ``gpu_xorder`` and the source of truth every CUDA kernel is
tested against, decision for decision.
"""

from ._bits import bits_to_matrix
from ._fill import fill
from ._ghat import cell_values
from ._lattice import COUNTERS, Lattice, build_lattice, edge_counters
from ._traceback import path_to_order, traceback

__all__ = [
    "COUNTERS",
    "Lattice",
    "bits_to_matrix",
    "build_lattice",
    "cell_values",
    "edge_counters",
    "fill",
    "path_to_order",
    "traceback",
]
