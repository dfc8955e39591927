"""The order of the gallery's examples (sphinx-gallery's ``within_subsection_order``):
from auditing a score to the tools around a fit, as the user guide reads."""

import os

ORDER = ("plot_compas_audit.py", "plot_choosing_lam.py", "plot_constraint.py",
         "plot_many_groups.py", "plot_solvers.py", "plot_large_data.py",
         "plot_model_files.py", "plot_from_fairlearn.py",
         "plot_fairlearn_comparison.py")


class ExampleOrder:
    """Sort key: an example's place in ``ORDER`` (one not listed: after them, by name)."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = os.path.basename(filename)
        return (ORDER.index(name), "") if name in ORDER else (len(ORDER), name)
