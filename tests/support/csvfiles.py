"""CSV files for the command-line tests, written and read back with the csv module
(not the package's reader, which is what they check)."""

import csv

import numpy as np


def write_csv(path, columns):
    """``columns`` (name: values) as a CSV file, floats written exactly (``repr``)."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(columns))
        for row in zip(*columns.values()):
            writer.writerow([repr(float(v)) if isinstance(v, (float, np.floating)) else v
                             for v in row])


def read_column(path, name, kind=float):
    """Column ``name`` of a CSV file, each cell through ``kind``."""
    with open(path, newline="") as f:
        return np.array([kind(row[name]) for row in csv.DictReader(f)])
