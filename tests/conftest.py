import pytest


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    from gpu_xorder._backend import cupy_status

    usable, reason, _ = cupy_status()
    if usable:
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA device: {reason}")
    for item in gpu_items:
        item.add_marker(skip)
