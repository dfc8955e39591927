"""Benchmark data sets bundled with gpu-xorder (see README.md in this folder).

Each loader returns a :class:`Dataset` with fresh arrays on every call; the parsed file
is cached per process, so only the first call of each loader reads the disk.
"""

from ._loaders import Dataset
from ._loaders import age_bands
from ._loaders import load_adult
from ._loaders import load_compas
from ._loaders import load_dataset
from ._loaders import load_framingham
from ._loaders import load_german
from ._synthetic import icu_age_groups
from ._synthetic import make_icu

__all__ = [
    "Dataset",
    "age_bands",
    "icu_age_groups",
    "load_adult",
    "load_compas",
    "load_dataset",
    "load_framingham",
    "load_german",
    "make_icu",
]
