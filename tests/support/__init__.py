"""Code the tests share and the package does not ship: oracles (``oracles``), random
problems and lattices (``problems``), the engines the ``engine`` fixtures give
(``engines``, ``backends``), the emulated GPU (``fake_cupy`` over ``cuda_host``, which
builds the kernels' host drivers in ``cuda_host/``), the device tests' time limit
(``device_timeout``), the NumPy twin of the CUDA schedules (``tile_twin``), the golden
digests (``golden``), NVRTC compiles (``nvrtc``), the command line's tables read back
(``console``), the documents' code blocks (``docblocks``), the public API the site
documents (``public_api``) and numba's cache of the engine (``numba_cache``).

``pyproject.toml`` puts ``tests/`` on the path (``pythonpath``), so test modules import
``support.<module>``; they never import one another.
"""

from pathlib import Path

#: The repository's root folder.
REPO = Path(__file__).resolve().parents[2]
