"""Training with Opacus under random allocation (needs torch; Opacus for the engine).

    from opacus import PrivacyEngine
    from verifier.training import random_allocation_loader

    loader = random_allocation_loader(dataset, steps_per_epoch=20, seed=0)
    engine = PrivacyEngine(accountant="random_allocation")
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader,
        noise_multiplier=1.1, max_grad_norm=1.0, poisson_sampling=False)
    ...                                   # train: iterate the loader make_private returned
    engine.get_epsilon(1e-5)              # certified upper end of epsilon(1e-5)

Importing this module registers the accountant with Opacus (``accountant=
"random_allocation"``, also for ``make_private_with_epsilon``).  The accountant certifies
only random allocation: with Opacus's default ``poisson_sampling=True`` (Opacus replaces
the batch sampler by its Poisson sampler) or a plain shuffled ``DataLoader`` it refuses in
one line (``verifier.accountants.UncertifiedSampler``).

Random allocation makes batches of Binomial(N, 1/M) size, empty ones included (N = 400,
M = 100: a few per epoch); PyTorch's ``default_collate`` fails on an empty batch, so the
loader's collate (``EmptyBatchCollate``) returns an empty batch of the right shape and dtype,
as Opacus's own Poisson loader does.
"""
from __future__ import annotations

from verifier.accountants import RandomAllocationAccountant   # (its import registers it)
from verifier import poisson_accountant as _registers  # noqa: F401 (accountant="certified_poisson")
from verifier.core.arith import InputError
from verifier.sampling import RandomAllocationBatchSampler

__all__ = ["random_allocation_loader", "EmptyBatchCollate", "RandomAllocationAccountant",
           "RandomAllocationBatchSampler"]


def _empty_like(x):
    """x (a collated batch: tensors, or dicts/lists/tuples of them) with zero rows."""
    import torch
    if torch.is_tensor(x):
        return x[:0]
    if isinstance(x, dict):
        return {k: _empty_like(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        out = [_empty_like(v) for v in x]
        return type(x)(*out) if hasattr(x, "_fields") else type(x)(out)
    raise InputError(f"cannot make an empty batch of {type(x).__name__}: the collate function "
                     "must return tensors, or dicts, lists or tuples of tensors")


class EmptyBatchCollate:
    """A collate function that handles the empty batches random allocation produces: a
    non-empty batch goes to ``collate_fn`` (default: PyTorch's ``default_collate``), an empty
    one becomes the collate of the dataset's first record with zero rows (same structure,
    trailing shape and dtype; computed on first need, so an empty first batch works too)."""

    def __init__(self, dataset, collate_fn=None):
        from torch.utils.data import default_collate
        self.dataset = dataset
        self.collate_fn = collate_fn or default_collate
        self._empty = None

    def __call__(self, batch):
        if len(batch) > 0:
            return self.collate_fn(batch)
        if self._empty is None:
            if len(self.dataset) == 0:
                raise InputError("the dataset is empty: no batch shape to copy")
            self._empty = _empty_like(self.collate_fn([self.dataset[0]]))
        return self._empty


def random_allocation_loader(dataset, steps_per_epoch: int, *, seed: int | None = None,
                             generator=None, collate_fn=None, steps_per_record: int = 1,
                             **loader_kwargs):
    """A ``torch.utils.data.DataLoader`` over ``dataset`` whose batches are one random
    allocation per epoch (every record in exactly one of the ``steps_per_epoch`` steps,
    uniformly and independently; in ``steps_per_record`` = k distinct ones, a uniform k-set,
    for k of M) and whose collate handles empty batches.  ``seed`` or ``generator`` makes it
    reproducible; other keyword arguments go to the DataLoader (``num_workers``,
    ``pin_memory``, ...; not ``batch_size``, ``shuffle``, ``sampler``)."""
    from torch.utils.data import DataLoader
    for k in ("batch_size", "shuffle", "sampler", "batch_sampler", "drop_last"):
        if k in loader_kwargs:
            raise InputError(f"random_allocation_loader sets the batches itself: {k}= is not "
                             "allowed (the batch sizes are Binomial(N, steps_per_record / "
                             "steps_per_epoch))")
    try:
        n = len(dataset)
    except TypeError:
        raise InputError("random allocation needs a dataset with len() (a map-style "
                         "dataset), not an IterableDataset") from None
    sampler = RandomAllocationBatchSampler(n, steps_per_epoch, generator=generator, seed=seed,
                                           steps_per_record=steps_per_record)
    return DataLoader(dataset, batch_sampler=sampler,
                      collate_fn=EmptyBatchCollate(dataset, collate_fn), **loader_kwargs)
