"""The package's version: one place, read by ``pyproject.toml``, ``gpu_xorder.__version__``,
``gpu-xorder --version`` and the model files."""

__version__ = "0.3.0"
