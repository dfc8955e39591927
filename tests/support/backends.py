"""Which engine ``backend="auto"`` runs on this machine, for tests that check it."""

from gpu_xorder.engine._backend import cupy_status, numba_status


def cpu_backend():
    """The CPU engine ``"auto"`` takes without a usable GPU: numba where it imports."""
    return "numba" if numba_status()[0] else "numpy"


def auto_backend():
    """What ``"auto"`` resolves to here: CuPy, else the CPU engine."""
    return "cupy" if cupy_status()[0] else cpu_backend()
