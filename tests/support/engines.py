"""The engines the tests run every engine property on, and checks they share."""


def assert_batch_progress(run, n_lams):
    """``run(lam, report)`` reports, for a batch of ``n_lams`` values, ``n_lams`` times
    the cells of one value's fill (both passes when banded), rising to the end."""
    single, batch = [], []
    run(0.5, lambda done, total: single.append((done, total)))
    run([0.5] * n_lams, lambda done, total: batch.append((done, total)))
    assert single and batch
    total = single[-1][1]
    assert single[-1][0] == total
    done = [c[0] for c in batch]
    assert all(t == n_lams * total for _, t in batch)
    assert done == sorted(done) and done[-1] == n_lams * total
