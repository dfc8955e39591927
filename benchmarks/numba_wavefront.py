"""The numba engine's strip pipeline on threads (issue #47, items 2 and 3): threads against one
thread, and one thread against a compiled yardstick of the same fill.

Run from the source tree (numba installed)::

    PYTHONPATH=. python benchmarks/numba_wavefront.py [--threads 1 2 4 8 16]
        [--sizes 30000 100000] [--yardstick-sizes 1000 3000 10000 30000] [--rounds 3]

Input: random two-group data, n_a = n_b = n, distinct scores, metric ``xauc``,
lam = 0.5, absolute disparity, decision bits kept (``benchmarks/cpu_engines.py``'s
lattice); cells = (n + 1)^2.

- **Threads** (``--sizes``, ``--threads``): ``_numba_engine.fill`` with
  ``numba.set_num_threads(p)`` for every p not above ``numba.config.NUMBA_NUM_THREADS``
  (larger counts are skipped and said so). Every round times every thread count once,
  in a rotated order; the fastest round's wall time is reported with its CPU time
  (all threads) and the speed-up ``T_1 / T_p`` and efficiency ``T_1 / (p T_p)``, and
  beside them the efficiency the strip pipeline itself allows (``schedule_bound``: a
  replay of the schedule with cells of equal cost and waits that cost nothing), and
  what the machine itself allows ``p`` threads: ``p`` *independent* one-thread fills
  of the same lattice started at once (one per Python thread, the kernels release the
  GIL), ``ceiling = p T_1 / T_indep``, no waits and no shared strips in them, so a
  ceiling below ``p`` is the cores' own contention (shared caches and memory, a
  virtual machine's neighbours), which no schedule removes; ``of ceiling`` is the
  speed-up over it. Wall time on a machine shared with other work says little: the
  load average is printed before and after each size.
- **Yardstick** (``--yardstick-sizes``): the same fill written by hand as one numba
  loop over whole anti-diagonals (``_yardstick_fill``: the engine's operations on the
  state rows, the words of ``cpu_reference/_bits.py``), the whole lattice in one call,
  one thread, against the engine on one thread (``numba.set_num_threads(1)``), in
  alternation; both words are compared (and with ``cpu_reference.fill`` up to
  ``--reference-max`` per group). Reported: the fastest round of each (CPU time of the
  process) and their ratio, engine / yardstick; the engine's fill is timed within a
  ``session()`` (the lattice's kernel inputs built once, as the solvers fill) and, in
  a column of its own, outside one (the inputs built by the call).
"""

import argparse
import os
import threading
import time

import numba
import numpy as np
from cpu_engines import LAM, lattice, timed
from numba import njit, uint64

import cpu_reference as cr
from gpu_xorder.engine import _numba_engine as ne
from gpu_xorder.engine import _numba_tiles as tiles

_PACK = uint64(0x0102040810204080)


@njit(boundscheck=False, nogil=True)
def _yardstick_fill(n_a, n_b, ypos, nla, ybr, nlb, col0, row0, w, inv_auc, i_0, i_1, lam, ge,
                    words):
    """xAUC, two groups, absolute: the fill anti-diagonal by anti-diagonal, the state of
    cell ``(i, d - i)`` at index ``i`` of a diagonal's two rows (``_numba_kernels``'s
    ``lean_lanes_2``, operation for operation); the final counters' state."""
    p0, p1 = np.empty(n_a + 1), np.empty(n_a + 1)
    q0, q1 = np.empty(n_a + 1), np.empty(n_a + 1)
    n_pad = (n_a + 31) // 32 * 32
    dec = np.zeros(n_pad, dtype=np.uint8)
    dec64 = dec.view(np.uint64)
    stride = n_b + 31
    p0[0], p1[0] = row0[0, 0], row0[1, 0]
    for d in range(1, n_a + n_b + 1):
        if d <= n_b:
            q0[0], q1[0] = row0[0, d], row0[1, d]
        if d <= n_a:
            q0[d], q1[d] = col0[0, d], col0[1, d]
        lo, hi = max(1, d - n_b), min(n_a, d - 1)
        if lo > 1:  # row lo - 1 finished on the diagonal before
            dec[lo - 2] = 0
        for i in range(lo, hi + 1):
            u = uint64(i)
            k = uint64(n_b - d + i)  # n_b - j
            a0 = p0[u - uint64(1)] + ypos[u] * nlb[k]
            a1 = p1[u - uint64(1)]
            b0 = p0[u]
            b1 = p1[u] + ybr[k] * nla[u]
            ga = ((a0 + a1) + w) * inv_auc - abs(a0 * i_0 - a1 * i_1) * lam
            gb = ((b0 + b1) + w) * inv_auc - abs(b0 * i_0 - b1 * i_1) * lam
            t = (ga > gb) | (ge & (ga == gb))
            q0[u] = a0 if t else b0
            q1[u] = a1 if t else b1
            dec[u - uint64(1)] = t
        if hi >= lo:
            for r in range((lo - 1) // 32, (hi - 1) // 32 + 1):
                word = uint64(0)
                for x in range(4):
                    v = dec64[uint64(4 * r + x)]
                    word |= ((v * _PACK) >> uint64(56)) << uint64(8 * x)
                words[r * stride + d - 32 * r - 2] = np.uint32(word)
        p0, q0 = q0, p0
        p1, q1 = q1, p1
    return p0[n_a], p1[n_a]


def yardstick_args(lat):
    """The yardstick's arguments for a lattice of ``lattice()`` (the engine's inputs)."""
    inp = ne._Inputs(lat)
    assert inp.kind == 0 and inp.m == 1 and inp.absolute, "xAUC, two groups, absolute"
    col0, row0 = inp.edges
    s = inp.scalars
    k = ne._kernels()
    return (inp.n_a, inp.n_b, inp.ypos[0], inp.nla[0], inp.ybr, inp.nlb, col0, row0,
            s[k.W], s[k.INV_AUC], s[k.I_0], s[k.I_1], inp.lams([LAM])[0], inp.ge)


def yardstick_table(sizes, rounds, reference_max):
    print("| n per group | engine 1T CPU ns/cell | engine 1T, inputs built, CPU ns/cell | "
          "yardstick CPU ns/cell | engine / yardstick | words equal | load |")
    print("|---:|---:|---:|---:|---:|---|---|")
    numba.set_num_threads(1)
    for n in sizes:
        lat = lattice(n, n)
        args = yardstick_args(lat)
        mine = np.zeros(cr.n_words(lat.n_a, lat.n_b), dtype=np.uint32)
        _yardstick_fill(*args, mine)
        words = ne.fill(lat, [LAM])[0][0]
        equal = np.array_equal(words, mine)
        if n <= reference_max:
            equal = equal and np.array_equal(cr.fill(lat, LAM)[0], mine)
        load = os.getloadavg()[0]
        engine, cold, yard = [], [], []
        for _ in range(rounds):
            cold.append(timed(lambda: ne.fill(lat, [LAM]))[1])  # noqa: B023
            with ne.session():
                ne.fill(lat, [LAM])
                engine.append(timed(lambda: ne.fill(lat, [LAM]))[1])  # noqa: B023
            yard.append(timed(lambda: _yardstick_fill(*args, mine))[1])  # noqa: B023
        e, y = min(engine) / lat.n_cells * 1e9, min(yard) / lat.n_cells * 1e9
        c = min(cold) / lat.n_cells * 1e9
        print(f"| {n:,} | {e:.3f} | {c:.3f} | {y:.3f} | {e / y:.2f} | {equal} | "
              f"{load:.1f} -> {os.getloadavg()[0]:.1f} |")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def threads_table(sizes, counts, rounds):
    most = numba.config.NUMBA_NUM_THREADS
    skipped = [p for p in counts if p > most]
    counts = [p for p in counts if p <= most]
    if skipped:
        print(f"thread counts {skipped} skipped: numba has {most} threads here")
    print("| n per group | threads | wall s (best) | spread | CPU s | speed-up | "
          "efficiency | schedule bound | ceiling | of ceiling | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in sizes:
        lat = lattice(n, n)
        times = {p: [] for p in counts}
        apart = {p: [] for p in counts if p > 1}
        load = os.getloadavg()[0]
        for r in range(rounds):
            for p in counts[r % len(counts):] + counts[:r % len(counts)]:
                numba.set_num_threads(p)
                times[p].append(timed(lambda: ne.fill(lat, [LAM])))  # noqa: B023
                if p > 1:
                    apart[p].append(independent(lat, p))
        numba.set_num_threads(most)
        loads = f"{load:.1f} -> {os.getloadavg()[0]:.1f}"
        one = min(w for w, _ in times[counts[0]]) if counts[0] == 1 else None
        for p in counts:
            walls = [w for w, _ in times[p]]
            best = min(walls)
            cpu = min(c for _, c in times[p])
            gain = f"{one / best:.2f}" if one else "-"
            eff = f"{one / (p * best):.2f}" if one else "-"
            ceiling = p * one / min(apart[p]) if one and p > 1 else None
            roof = f"{ceiling:.2f}" if ceiling else "-"
            share = f"{one / best / ceiling:.2f}" if ceiling else "-"
            print(f"| {n:,} | {p} | {best:.3f} | {max(walls) / best:.2f} | {cpu:.3f} | "
                  f"{gain} | {eff} | {schedule_bound(n, n, p):.3f} | {roof} | {share} | "
                  f"{loads} |")


def independent(lat, p):
    """Wall seconds of ``p`` one-thread fills of ``lat`` started at once, each in a
    Python thread of its own (numba's thread count is per calling thread)."""
    ready = threading.Barrier(p + 1)

    def one():
        numba.set_num_threads(1)
        ready.wait()
        ne.fill(lat, [LAM])

    workers = [threading.Thread(target=one) for _ in range(p)]
    for worker in workers:
        worker.start()
    ready.wait()
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def schedule_bound(n_a, n_b, threads):
    """The efficiency the strip pipeline allows ``threads`` threads, every cell of equal
    cost and no cost to wait: a replay of ``_Wavefront``'s schedule (strips taken in
    order by the first free thread; a chunk starts when its thread is free and the strip
    above has published ``needed_step``), the cells over ``threads`` times the end."""
    lanes, width = ne.LANES, ne.TILE_STEPS
    n_strips = -(-n_a // lanes)
    if threads == 1 or n_strips == 1:
        return 1.0
    free = [0.0] * threads
    above = None  # (step published, time) of the chunks of the strip above
    for s in range(n_strips):
        rows = min(lanes, n_a - s * lanes)
        last = n_b + rows - 1
        p = int(np.argmin(free))
        t, mine = free[p], ([], [])
        for c in range(1, last + 1, width):
            c_hi = min(c + width, last + 1)
            if above is not None:
                k = np.searchsorted(above[0], needed_step(c_hi, n_b, lanes))
                t = max(t, above[1][k])
            lo, hi = np.arange(c, c_hi) - n_b, np.arange(c, c_hi) - 1
            t += float(np.sum(np.minimum(rows - 1, hi) - np.maximum(0, lo) + 1))
            mine[0].append(c_hi - 1)
            mine[1].append(t)
        free[p] = t
        above = mine
    return n_a * n_b / (threads * max(free))


def needed_step(c_hi, n_b, lanes):
    return tiles.needed_step(c_hi, n_b, lanes, ne.LEAD_STEPS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--sizes", type=int, nargs="*", default=[30000, 100000])
    ap.add_argument("--yardstick-sizes", type=int, nargs="*",
                    default=[1000, 3000, 10000, 30000])
    ap.add_argument("--reference-max", type=int, default=3000,
                    help="largest n whose words are also compared with cpu_reference.fill")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    ne.fill(lattice(300, 300), [LAM])  # compile (or load the cache) outside the timings
    print(f"numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} threads, {os.cpu_count()} CPUs; lanes "
          f"{ne.LANES}, chunks of {ne.TILE_STEPS} steps, {ne.SPINS} spins")
    if args.yardstick_sizes:
        yardstick_table(args.yardstick_sizes, args.rounds, args.reference_max)
    if args.sizes:
        threads_table(args.sizes, args.threads, args.rounds)
    print(f"finished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


if __name__ == "__main__":
    main()
