"""Independent jobs in workers (joblib), for the CPU paths: the lattices of a ``lam``
sequence on the NumPy backend, the repetitions of the paper's experiments and chunks of
bootstrap resamples. Results come back in order and equal those of a run in this process.

The workers are those of joblib's active backend: worker processes (loky) by default, a
Dask cluster inside ``with joblib.parallel_backend("dask"):``. As in scikit-learn,
``n_jobs=None`` means one job in this process, unless a ``parallel_backend`` context
says otherwise (the Dask backend: one per worker thread of the cluster).
"""

import itertools
import numbers
import socket
import struct
import time

MSG_N_JOBS = "n_jobs must be None or a nonzero integer (-1: every CPU core), got {value!r}"
MSG_NO_ANSWER = (
    "connected, but no answer within {timeout:g} s (a Dask scheduler answers at once; "
    "is it one?)"
)
MSG_NOT_DASK = (
    "the service there does not speak Dask's protocol (its first answer announces "
    "{size} bytes; a scheduler's handshake takes a few hundred)"
)
MSG_CONNECT_TIMEOUT = "no connection within {timeout:g} s"
#: Largest handshake :func:`probe_scheduler` accepts from a Dask scheduler (a real one
#: sends a few hundred bytes).
HANDSHAKE_BYTES = 2**16


def check_n_jobs(n_jobs):
    """``n_jobs`` as an int or None (left for the active backend); raise ValueError on
    anything else or 0."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(MSG_N_JOBS.format(value=n_jobs))
    return int(n_jobs)


def workers(n_jobs, n_items):
    """How many workers ``n_jobs`` gives for ``n_items`` jobs under joblib's active
    backend (None: 1 outside a ``parallel_backend`` context)."""
    if n_jobs == 1 or n_items <= 1:
        return 1
    from joblib import effective_n_jobs

    return max(1, min(effective_n_jobs(n_jobs), n_items))


def map_in_rounds(function, arguments, n_workers, after=None):
    """``[function(*args) for args in arguments]``, in this process when ``n_workers``
    is 1, else in rounds of ``n_workers`` jobs on joblib's active backend (``function``
    and its arguments must pickle); ``after(done)`` is called after every call (one
    process) or every round (workers)."""
    return list(imap_in_rounds(function, arguments, n_workers, after))


def imap_in_rounds(function, arguments, n_workers, after=None):
    """:func:`map_in_rounds` as a generator: the results in order, one round of
    ``n_workers`` jobs at a time, ``arguments`` read one round ahead at most (an
    iterator of many jobs is never held whole)."""
    arguments = iter(arguments)
    done = 0
    if n_workers == 1:
        for args in arguments:
            yield function(*args)
            done += 1
            if after is not None:
                after(done)
        return
    from joblib import Parallel, delayed

    with Parallel(n_jobs=n_workers) as parallel:
        while True:
            batch = list(itertools.islice(arguments, n_workers))
            if not batch:
                return
            results = parallel(delayed(function)(*args) for args in batch)
            done += len(results)
            if after is not None:
                after(done)
            yield from results


def probe_scheduler(address, timeout):
    """Check, within ``timeout`` seconds in all, that a Dask scheduler listens at
    ``address``: connect, and read and decode the handshake a scheduler sends first.

    ``distributed.Client(address, timeout=...)`` bounds the connection only: a service
    that accepts and stays silent holds it forever, and one that answers anything else
    has the first 8 bytes of its answer read as a message length and allocated (an
    HTTP server: 3 EiB). Addresses other than ``tcp://`` (TLS, UCX) are left to
    ``Client``.

    Raises
    ------
    OSError
        ``TimeoutError`` (no connection, or no answer, in time), ``ConnectionError``
        (an answer that is not a Dask handshake) or the socket's error, with a one-line
        message.
    ValueError
        An address ``distributed`` cannot parse.
    """
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme != "tcp":
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except TimeoutError:
        raise TimeoutError(MSG_CONNECT_TIMEOUT.format(timeout=timeout)) from None
    with sock:
        # distributed's frame layout: 8 bytes of length ("Q"), then that many bytes
        (size,) = struct.unpack("Q", _receive(sock, 8, deadline, timeout))
        if size > HANDSHAKE_BYTES:
            raise ConnectionError(MSG_NOT_DASK.format(size=size))
        payload = _receive(sock, size, deadline, timeout)
    from distributed.protocol import loads
    from distributed.protocol.utils import unpack_frames

    try:
        handshake = loads(unpack_frames(payload), deserialize=False)
    except Exception:  # noqa: BLE001 (whatever garbage does to the decoder)
        handshake = None
    if not isinstance(handshake, dict):
        raise ConnectionError(MSG_NOT_DASK.format(size=size))


def _receive(sock, n, deadline, timeout):
    """``n`` bytes from ``sock`` before ``deadline`` (``time.monotonic``)."""
    data = bytearray()
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(MSG_NO_ANSWER.format(timeout=timeout))
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(data))
        except TimeoutError:
            raise TimeoutError(MSG_NO_ANSWER.format(timeout=timeout)) from None
        if not chunk:
            raise ConnectionError(MSG_NOT_DASK.format(size=n) if data else (
                "the service closed the connection without answering"))
        data += chunk
    return bytes(data)


def map_lams(solve_one, head, lams, n_workers, progress, cells):
    """``[solve_one(*head, lam, progress) for lam in lams]``: one after the other with
    ``progress`` over all lattices' cells, or in ``n_workers`` worker processes with
    ``progress`` after every round (``cells`` per lattice)."""
    if n_workers == 1:
        return [solve_one(*head, lam, batch_progress(progress, lams.size, k))
                for k, lam in enumerate(lams)]
    after = None if progress is None else (
        lambda done: progress(done * cells, lams.size * cells))
    return map_in_rounds(solve_one, [(*head, float(lam)) for lam in lams],
                                   n_workers, after)


def batch_progress(progress, n_lattices, k=None):
    """Progress over the cells of all ``n_lattices`` lattices of a lam batch: those of
    lattice ``k`` when they are filled one after the other, else all filled together."""
    if progress is None or n_lattices == 1:
        return progress
    if k is None:
        return lambda done, total: progress(done * n_lattices, total * n_lattices)
    return lambda done, total: progress(k * total + done, n_lattices * total)
