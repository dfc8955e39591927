#!/usr/bin/env bash
# One command for GPU validation, from the source tree, no network needed:
#   bash benchmarks/gpu_check.sh
# Runs every test marked gpu (CuPy == NumPy decision for decision), then the speed
# table (two groups) and the multi-group table, printed and written to
# ${OUT:-.}/speed_table.md and ${OUT:-.}/multi_table.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
python3 -c "from gpu_xorder._backend import backend_info; print(backend_info())"
python3 -m pytest -m gpu -q -p no:cacheprovider -ra tests
python3 -m pytest benchmarks/bench_cupy_dp.py --benchmark-enable -q -p no:cacheprovider --benchmark-columns=min,mean,rounds
python3 benchmarks/speed_table.py "$@"
python3 benchmarks/multi_table.py --numpy-max-cells 5e7
