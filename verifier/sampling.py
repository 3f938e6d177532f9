"""Random-allocation batches: each epoch sends every record to one of M steps (or to k of
them, ``steps_per_record``: a uniform k-set, docs/RUNS.md "k of M") uniformly and
independently (batch sizes Binomial(N, k/M), empty batches allowed), seeded and
reproducible.  A pure-numpy core; the batch sampler works as ``batch_sampler=`` of a
``torch.utils.data.DataLoader`` (an iterable of index lists with ``len()``) and needs no torch
itself."""
from __future__ import annotations

from verifier.core.arith import InputError


def allocate(n_records: int, steps_per_epoch: int, rng, steps_per_record: int = 1) -> list:
    """One epoch: [indices of step 0, ..., indices of step M-1] (numpy arrays, sorted); with
    k = ``steps_per_record`` > 1 each record is in k distinct steps, a uniform k-set (the k
    smallest of M independent uniform keys)."""
    import numpy as np
    if steps_per_record > 1:
        keys = rng.random((n_records, steps_per_epoch))
        chosen = np.argpartition(keys, steps_per_record - 1, axis=1)[:, :steps_per_record]
        recs = np.repeat(np.arange(n_records), steps_per_record)
        steps = chosen.ravel()
        order = np.lexsort((recs, steps))
        counts = np.bincount(steps, minlength=steps_per_epoch)
        return np.split(recs[order], np.cumsum(counts)[:-1])
    steps = rng.integers(0, steps_per_epoch, size=n_records)
    order = np.argsort(steps, kind="stable")
    counts = np.bincount(steps, minlength=steps_per_epoch)
    return np.split(order, np.cumsum(counts)[:-1])


class RandomAllocationBatchSampler:
    """Batches of one random allocation per epoch; ``seed`` (an int) or ``generator`` (a
    numpy Generator, or a torch Generator whose ``initial_seed()`` seeds numpy) makes the
    sequence reproducible.  Each iteration is one epoch of ``steps_per_epoch`` batches."""

    def __init__(self, n_records: int, steps_per_epoch: int, generator=None, seed: int | None = None,
                 steps_per_record: int = 1):
        import numpy as np
        for name, v, lo in (("n_records", n_records, 0), ("steps_per_epoch", steps_per_epoch, 1),
                            ("steps_per_record", steps_per_record, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise InputError(f"{name} must be an integer >= {lo}, got {v!r:.40}")
        if steps_per_record > steps_per_epoch:
            raise InputError(f"steps_per_record = {steps_per_record} is more than "
                             f"steps_per_epoch = {steps_per_epoch}")
        self.n_records, self.steps_per_epoch = n_records, steps_per_epoch
        self.steps_per_record = steps_per_record
        self.in_flight = 0
        self.epochs_drawn = 0          # allocations drawn (iterations begun): the accountant's
        self.batches_yielded = 0       # check that the steps it counts came from this sampler
        if generator is not None and seed is not None:
            raise InputError("give generator or seed, not both")
        if generator is None:
            self.rng = np.random.default_rng(seed)
        elif isinstance(generator, np.random.Generator):
            self.rng = generator
        elif hasattr(generator, "initial_seed"):                 # a torch.Generator
            self.rng = np.random.default_rng(int(generator.initial_seed()))
        else:
            raise InputError(f"generator must be a numpy or torch Generator, got "
                             f"{type(generator).__name__}")

    @property
    def sample_rate(self) -> float:
        return self.steps_per_record / self.steps_per_epoch

    def __len__(self) -> int:
        return self.steps_per_epoch

    def __iter__(self):
        self.epochs_drawn += 1
        for batch in allocate(self.n_records, self.steps_per_epoch, self.rng,
                              self.steps_per_record):
            self.batches_yielded += 1
            self.in_flight = 1         # a batch handed out: its step may still be to come
            yield batch.tolist()
        self.in_flight = 0             # the epoch's batches all handed out and iterated past
