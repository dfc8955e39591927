"""Benchmark data sets bundled with gpu-xorder (see README.md in this folder).

Each loader returns a :class:`Dataset` with fresh arrays on every call; the parsed file
is cached per process, so only the first call of each loader reads the disk.
"""

from ._loaders import (
    Dataset,
    age_bands,
    load_adult,
    load_compas,
    load_dataset,
    load_framingham,
    load_german,
)
from ._synthetic import icu_age_groups, make_icu

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
