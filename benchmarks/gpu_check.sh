#!/usr/bin/env bash
# One command for GPU validation, from the source tree, no network needed:
#   bash benchmarks/gpu_check.sh 2>&1 | tee "${OUT:-.}/gpu_check.log"
# Part 1 (the default; one device call of 10 minutes): the self-check of the GPU engine
# in a fresh process (NVRTC compiles every variant it checks) and again (CuPy's kernel
# cache warm), every test marked gpu (CuPy == NumPy decision for decision, the strip
# kernel on grids smaller than its strips, a lattice over 2^31 decision words,
# iterative steps of 9 to 19 old groups, the sm_70 guard; each test has its own time
# limit and a hang names its test), the speed table (two groups, both 2-D kernels, chunk
# sweep; ${OUT:-.}/speed_table.md), the host-side share of fair_order, the multi-group
# table with its tile-width sweep (${OUT:-.}/multi_table.md) and a profile of the strip
# kernel (ncu, where present).
# Part 2 (GPU_CHECK_PART=2, a second call): the CuPy pytest-benchmark suite, the |D|
# solvers' table (${OUT:-.}/solver_table_gpu.md) and two repetitions of the paper's
# experiments on the GPU (${OUT:-.}/paper_gpu.json and paper_age_gpu.json).
# Every stage runs even when an earlier one fails, each under its own time limit (a lent
# device's command may run 10 minutes at most); the exit status is 1 if any stage failed,
# and the summary at the end says which.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
part=${GPU_CHECK_PART:-1}

failed=()
stage() {  # stage PART NAME SECONDS COMMAND...
    [ "$1" = "$part" ] || return 0
    local name=$2 limit=$3
    shift 3
    echo "=== $name (limit ${limit}s)"
    local start=$SECONDS
    timeout "$limit" "$@"
    local rc=$?
    echo "=== $name: exit $rc after $((SECONDS - start))s"
    [ "$rc" -eq 0 ] || failed+=("$name (exit $rc)")
}

# issue #20: the self-check's result and seconds, cold (compiles) then warm
stage 1 "self-check" 30 bash -c 'for run in first again; do echo "$run:"; python3 -c \
    "from gpu_xorder.engine._backend import backend_info as b; i = b(); print(i); \
    raise SystemExit(i[\"cupy\"] != \"usable\")" || exit 1; done'
stage 1 "gpu tests" 275 python3 -m pytest -m gpu -v -p no:cacheprovider -ra --durations=20 \
    tests
# issue #16: both 2-D kernels, 10^4 .. 3 x 10^5 per group (fill, 8 lams, end to end,
# traceback share, chunk sweep at 10^5), the NumPy reference per cell on this machine
stage 1 "speed table" 120 python3 benchmarks/speed_table.py "$@"
stage 1 "host overhead" 20 python3 benchmarks/host_overhead.py --gpu
stage 1 "multi-group table" 70 python3 benchmarks/multi_table.py --numpy-max-cells 5e7
# occupancy and issue rate of one strip fill (3 x 10^4 per group), where ncu exists and
# may read the counters; informative only (never fails the check)
stage 1 "strip profile" 25 bash -c 'if ! command -v ncu >/dev/null; then echo "ncu not \
    found: skipped"; exit 0; fi; ncu -k strip_kernel -s 1 -c 1 --metrics \
    sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.max,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size \
    python3 benchmarks/speed_table.py --profile 30000 || echo "ncu failed: see above"'

stage 2 "cupy benchmarks" 40 python3 -m pytest benchmarks/bench_cupy_dp.py --benchmark-enable \
    -q -p no:cacheprovider --benchmark-columns=min,mean,rounds
# the |D| solvers on the device: the Lagrangian search's signed fills, batched
stage 2 "solver table" 45 python3 benchmarks/solver_table.py --backend cupy --sizes 2000 \
    20000 --metrics xauc --exact-max 0 --out "${OUT:-.}/solver_table_gpu.md"
# end to end: xOrder seconds per repetition on the GPU, against the guide's NumPy ones (docs/guide.md)
stage 2 "paper experiments" 40 bash -c 'python3 -m gpu_xorder paper --backend cupy \
    --repeats 2 --json "${OUT:-.}/paper_gpu.json" && python3 -m gpu_xorder paper \
    --backend cupy --repeats 2 --groups age --json "${OUT:-.}/paper_age_gpu.json"'

if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "all stages of part $part passed"
