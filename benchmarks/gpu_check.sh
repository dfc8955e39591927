#!/usr/bin/env bash
# The device check: ONE command of at most 7 minutes, compiles included, from the source
# tree, no network needed (a lent device's session has 15 minutes in all, its start
# included: room for one rerun):
#   bash benchmarks/gpu_check.sh 2>&1 | tee "${OUT:-.}/gpu_check.log"
# Stages, each under its own time limit (CONTRIBUTING.md, "The device check"):
#   device         the card, driver and CuPy (not the commit: a device's copy of the tree
#                  may carry a stale .git; record the commit you sent in RESULTS.md)
#   compile times  a sample of the kernels compiled serially, in threads and in
#                  processes (each with an empty CuPy cache); the engine's first use
#                  (self-check, compiles included) cold and warm (compile_times.json)
#   warm           gpu-xorder info --warm: every variant a fit can reach, compiled in a
#                  process per CPU into CuPy's cache and checked against NumPy
#   gpu tests      every test marked gpu, 8 pytest-xdist workers (each test has its own
#                  time limit; a hang names its test)
#   speed table    two groups, 10^4, 3 x 10^4 and 10^5 per group: both 2-D kernels, 8
#                  lams, chunk sweep, banded, traceback share (speed_table.md/.json)
#   multi-group    iterative 8 x 2 x 10^4 with its tile-width sweep, K-D
#                  (multi_table.md/.json)
#   default solver the certified default against the cell rule (auto_vs_rule.md/.json)
# Every stage runs even when an earlier one fails; the exit status is 1 if any stage
# failed, and the summary at the end says which.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
out=${OUT:-.}

failed=()
stage() {  # stage NAME SECONDS COMMAND...
    local name=$1 limit=$2
    shift 2
    echo "=== $name (limit ${limit}s) $(date -u +%H:%M:%S)"
    local start=$SECONDS
    timeout "$limit" "$@"
    local rc=$?
    echo "=== $name: exit $rc after $((SECONDS - start))s"
    [ "$rc" -eq 0 ] || failed+=("$name (exit $rc)")
}

stage "device" 10 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total \
    --format=csv; python3 -c "import cupy, numpy; print(\"CuPy\", cupy.__version__, \
    \"NumPy\", numpy.__version__)"'
stage "compile times" 50 python3 benchmarks/compile_times.py --count 8 \
    --out "$out/compile_times.json"
stage "warm" 75 python3 -m gpu_xorder info --warm
stage "gpu tests" 140 python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider -ra \
    --durations=15 tests
stage "speed table" 60 python3 benchmarks/speed_table.py --max-n 100000 \
    --chunk-sweep-n 100000 --out "$out/speed_table.md"
stage "multi-group table" 35 python3 benchmarks/multi_table.py --numpy-max-cells 3e7 \
    --out "$out/multi_table.md"
stage "default solver" 40 python3 benchmarks/auto_vs_rule.py --backend cupy --sizes \
    10000 30000 100000 --metrics xauc --lams 0.5 --repeat 2 --out "$out/auto_vs_rule.md"

if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "all stages passed"
