"""The engines that fill and walk lattices: backend choice, memory planning, the CuPy
engine and its CUDA kernels (``cuda/``), launched by device-neutral schedules."""

from ._backend import BackendUnavailableError

__all__ = ["BackendUnavailableError"]
