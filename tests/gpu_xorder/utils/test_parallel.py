"""``n_jobs``: lattices of a lam sequence in worker processes (gpu_xorder.utils._parallel)."""

import re
import socket
import struct
import threading
import time

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order, xorder_path
from gpu_xorder.utils import _parallel
from gpu_xorder.utils._parallel import MSG_N_JOBS

LAMS = [0.0, 0.3, 2.0]


def problem(n=300, k=2, seed=5):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int), rng.integers(0, k, n)


def assert_same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.order, y.order)
        assert x.counters == y.counters
        # the same, but for the band height: workers share the memory budget
        banding = ("bands", "band_rows")
        assert {k: v for k, v in x.extra.items() if k not in banding} == {
            k: v for k, v in y.extra.items() if k not in banding}
        assert (x.auc, x.disparity, x.objective, x.method) == (
            y.auc, y.disparity, y.objective, y.method)


@pytest.mark.parametrize("k,kw", [(2, {}), (2, {"bands": True}),
                                  (3, {"method": "kd"}), (3, {"method": "iterative"})])
def test_workers_give_the_same_results(k, kw):
    """Two worker processes: the results of one process, for the 2-D DP whole and in
    bands, K-D and iterative xOrder; progress reaches the total after every round."""
    s, y, g = problem(n=6000 if "bands" in kw else 300, k=k)
    kw["solver"] = "paper"  # the lattices of the lam sequence, one fill each
    if kw.pop("bands", False):  # not one whole lattice; two at once in bands
        kw["memory_limit"] = cr.n_words(int((g == 0).sum()), int((g == 1).sum())) * 4 - 1
    one = fair_order(s, y, g, lam=LAMS, backend="numpy", **kw)
    seen = []
    two = fair_order(s, y, g, lam=LAMS, backend="numpy", n_jobs=2,
                     progress=lambda done, total: seen.append((done, total)), **kw)
    assert_same(one, two)
    if "memory_limit" in kw:
        assert one[0].extra["bands"] > 1 and two[0].extra["bands"] > one[0].extra["bands"]
    assert seen and seen[-1][0] == seen[-1][1] and len({t for _, t in seen}) == 1
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))


def test_xorder_path_with_workers():
    s, y, g = problem()
    one = xorder_path(s, y, sensitive_features=g, lams=LAMS, backend="numpy")
    two = xorder_path(s, y, sensitive_features=g, lams=LAMS, backend="numpy", n_jobs=-1)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a.train_scores_adjusted_, b.train_scores_adjusted_)


def test_the_memory_budget_is_shared_by_the_lattices_at_once(monkeypatch):
    """As many whole lattices at once as the budget holds; bands planned for the share
    of one worker."""
    used = []
    real = _parallel.map_in_rounds

    def spy(function, arguments, n_workers, after=None):
        used.append(n_workers)
        return real(function, arguments, 1, after)  # run here: the spy sees the plan

    monkeypatch.setattr(_parallel, "map_in_rounds", spy)
    monkeypatch.setattr(_parallel, "workers", lambda n_jobs, n: min(n_jobs, n))
    s, y, g = problem(n=6000)
    n_a, n_b = int((g == 0).sum()), int((g == 1).sum())
    bits = cr.n_words(n_a, n_b) * 4
    fair_order(s, y, g, lam=LAMS, backend="numpy", n_jobs=3, memory_limit=2 * bits,
               solver="paper")
    banded = fair_order(s, y, g, lam=LAMS, backend="numpy", n_jobs=3,
                        memory_limit=bits - 1, solver="paper")
    # two whole lattices fit at once, not three; in bands, two workers' shares plan
    # bands and three workers' do not
    assert used == [2, 2]
    assert cr.plan_bands(n_a, n_b, (bits - 1) // 3, 2) is None  # xauc: 2 counters
    assert banded[0].extra["band_rows"] == cr.plan_bands(n_a, n_b, (bits - 1) // 2, 2)


@pytest.mark.parametrize("value", [0, 1.5, True, "2"])
def test_bad_n_jobs(value):
    s, y, g = problem(20)
    with pytest.raises(ValueError, match=re.escape(MSG_N_JOBS.format(value=value))):
        fair_order(s, y, g, lam=LAMS, backend="numpy", n_jobs=value)


def test_workers():
    """One process for one lattice or n_jobs=1; never more workers than lattices."""
    assert _parallel.workers(4, 1) == 1 and _parallel.workers(1, 5) == 1
    assert _parallel.workers(2, 5) == 2 and _parallel.workers(8, 3) == 3
    assert 1 <= _parallel.workers(-1, 4) <= 4


# ---------------------------------------------------------------- --scheduler (issue #25)

@pytest.fixture
def listener():
    """``start(answer)``: a local TCP service that accepts and sends ``answer`` (None:
    stays silent); returns its address."""
    servers = []

    def start(answer):
        srv = socket.create_server(("127.0.0.1", 0))
        servers.append(srv)

        def serve():
            held = []
            while True:
                try:
                    conn, _ = srv.accept()
                except OSError:  # closed by the fixture
                    break
                held.append(conn)
                if answer is not None:
                    conn.sendall(answer)

        threading.Thread(target=serve, daemon=True).start()
        return f"tcp://127.0.0.1:{srv.getsockname()[1]}"

    yield start
    for srv in servers:
        srv.close()


@pytest.mark.parametrize("answer,error,message", [
    (None, TimeoutError, _parallel.MSG_NO_ANSWER.format(timeout=0.5)),
    # an HTTP server: distributed's Client reads "HTTP/1.1" as a length of 3 EiB
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
     ConnectionError, _parallel.MSG_NOT_DASK.format(size=3543824036068086856)),
    # a plausible length, then garbage that is no Dask handshake
    (struct.pack("Q", 40) + bytes(range(40)), ConnectionError,
     _parallel.MSG_NOT_DASK.format(size=40)),
    # a plausible length, then silence
    (struct.pack("Q", 40), TimeoutError, _parallel.MSG_NO_ANSWER.format(timeout=0.5)),
])
def test_a_service_that_is_no_scheduler_is_refused_in_time(listener, answer, error, message):
    pytest.importorskip("distributed")
    address = listener(answer)
    start = time.monotonic()
    with pytest.raises(error, match=re.escape(message)):
        _parallel.probe_scheduler(address, 0.5)
    assert time.monotonic() - start < 1.5


def test_probe_refuses_a_closed_port():
    pytest.importorskip("distributed")
    with socket.create_server(("127.0.0.1", 0)) as srv:
        address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    with pytest.raises(OSError):
        _parallel.probe_scheduler(address, 0.5)
