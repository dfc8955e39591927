"""The paper's experiments: the protocol, the studies, the baselines, the base models
and the figures."""

from ._experiment import paper_experiment

__all__ = ["paper_experiment"]
