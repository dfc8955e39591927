"""Scale-out on a Dask cluster through joblib's Dask backend (gpu_xorder.utils._parallel): the
lam sweep, the paper's repetitions and the bootstrap give the results of one process, in
Python under ``joblib.parallel_backend("dask")`` and on the command line with
``--scheduler``. A real ``distributed.LocalCluster`` of two single-thread workers."""

import json
import re
import socket
import time

import joblib
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from gpu_xorder import fair_order, metrics, paper_experiment  # noqa: E402
from gpu_xorder.cli import _common, main  # noqa: E402
from gpu_xorder.cli._common import MSG_SCHEDULER  # noqa: E402
from gpu_xorder.utils import _parallel  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


pytestmark = pytest.mark.usefixtures("plain_consoles")


def on_the_cluster(client, compute):
    """``compute()`` under the Dask backend, and how many tasks the cluster ran."""
    with distributed.get_task_stream(client) as stream:
        with joblib.parallel_backend("dask"):
            out = compute()
    return out, len(stream.data)


def test_lam_sweep_and_bootstrap_on_the_cluster(client):
    rng = np.random.default_rng(0)
    s, g = rng.random(300), rng.integers(0, 2, 300)
    y = (rng.random(300) < s).astype(int)
    lams = [0.0, 0.3, 2.0]
    here = fair_order(s, y, g, lam=lams, backend="numpy", solver="paper")
    there, tasks = on_the_cluster(client, lambda: fair_order(
        s, y, g, lam=lams, backend="numpy", solver="paper"))  # n_jobs=None: the cluster's
    assert tasks >= 3
    for a, b in zip(here, there):
        np.testing.assert_array_equal(a.order, b.order)
        assert (a.counters, a.objective) == (b.counters, b.objective)
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=400,
                                      random_state=1)
    remote, tasks = on_the_cluster(client, lambda: metrics.confidence_intervals(y, s,
                                                                                sensitive_features=g,
                                                                                n_bootstrap=400,
                                                                                random_state=1))
    assert tasks >= 2 and remote == ci


def test_paper_repetitions_on_the_cluster(client):
    kwargs = dict(lams=[0.0, 1.0], repeats=2, backend="numpy")
    here = paper_experiment("german", **kwargs)
    there, tasks = on_the_cluster(client, lambda: paper_experiment("german", n_jobs=-1,
                                                                   **kwargs))
    assert tasks >= 2 and there.records == here.records


def test_command_line_scheduler(client, tmp_path, capsys, monkeypatch):
    address = client.scheduler.address
    args = ["paper", "--data", "german", "--repeats", "2", "--lam", "0", "1",
            "--backend", "numpy", "--methods", "xorder"]
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert main(args + ["--json", str(one)]) == 0
    assert main(args + ["--json", str(two), "--scheduler", address]) == 0
    records = [json.loads(p.read_text())["experiments"][0]["records"] for p in (one, two)]
    assert records[0] == records[1]
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    data.write_text("s,y,g\n" + "".join(f"{rng.random()!r},{i % 2},{'ab'[i % 3 % 2]}\n"
                                        for i in range(80)))
    audit = ["audit", str(data), "--score", "s", "--label", "y", "--group", "g",
             "--bootstrap", "300"]
    capsys.readouterr()
    assert main(audit) == 0
    alone = capsys.readouterr().out
    assert main(audit + ["--scheduler", address]) == 0
    assert capsys.readouterr().out == alone
    monkeypatch.setattr(_common, "SCHEDULER_TIMEOUT", 0.5)
    assert main(audit + ["--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(re.escape(MSG_SCHEDULER.format(
        address="tcp://127.0.0.1:9", why="XX")).replace("XX", ".+"), err)
    # a service that accepts and never answers: refused within the timeout (issue #25)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        start = time.monotonic()
        assert main(audit + ["--scheduler", address]) == 2
        assert time.monotonic() - start < 2.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and MSG_SCHEDULER.format(
        address=address, why=_parallel.MSG_NO_ANSWER.format(timeout=0.5)) in err


def test_probe_passes_a_real_scheduler(client):
    _parallel.probe_scheduler(client.scheduler.address, 5)
