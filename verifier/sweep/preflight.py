"""A sweep's memory check before anything runs (docs/SWEEPS.md, "Memory"): cells are planned
in a dry run (``numerics.memory.dry_run``: the engine's planning up to its first large
allocation, about 0.03-0.1 s a cell) and a cell whose estimate exceeds a worker's share is
named with its coordinates; the spec is then refused, one line per cell.  One cell is
planned per group of cells that differ only in delta, epochs and epsilon: the one with the
smallest delta and the most epochs (the engines' windows grow as the target mass
1e-6 delta / E shrinks), so a 1000-cell grid costs a few seconds, not a minute.  The same
limit holds inside each worker (``memory.limited``), so a cell the dry run did not foresee
is refused there with its reason, not killed."""
from __future__ import annotations

from fractions import Fraction

from verifier.core.arith import InputErrors, frac_str

CELL_SHARE = Fraction(17, 20)     # an engine may use this much of a worker's memory limit
                                  # (Dask's nanny restarts a worker at 95% of it)


def cell_limit(worker_bytes: int) -> int:
    return int(worker_bytes * CELL_SHARE)


def coords(cell: dict) -> str:
    return ", ".join(f"{k} = {frac_str(v) if isinstance(v, Fraction) else v}"
                     for k, v in cell.items() if k != "run")     # a run: its axes name it


# cells of at most SMALL_STEPS steps per epoch need at most SMALL_CELL_BYTES at default
# accuracy (estimates measured over the corners of the engines' ranges: 311 MiB at most,
# docs/BENCHMARKS.md "Memory"); with a larger share they are not planned
SMALL_STEPS = 10 ** 4
SMALL_CELL_BYTES = 400 * 2 ** 20


def needs(compute: str, cell: dict) -> tuple[int, int] | None:
    """(bytes, DFT points) of the cell's first large allocation, or None (none, or the
    engine refuses the cell for another reason: the run records that).  Poisson cells are
    not planned: that engine's refinement keeps its last bracket where a finer lattice step
    would pass the memory limit (bounds.poisson.finer), and it has no planning stage to stop
    at; a sampler difference is planned by its random-allocation
    side."""
    from verifier.core.arith import InputError
    from verifier.numerics import memory
    from verifier.sweep.cells import answer
    if cell.get("sampling") == "poisson":
        return None
    try:
        with memory.dry_run():
            answer("epsilon" if compute == "sampler_difference" else compute, cell)
    except memory.DryRun as d:
        return d.need, d.points
    except InputError:
        return None
    return None


GROUPED = ("delta", "epochs", "epsilon", "target_epsilon")


def representatives(cells: list) -> list:
    """One cell per group of cells equal but for GROUPED: the smallest delta, the most
    epochs, the largest |epsilon| (the largest memory of its group)."""
    best = {}
    for cell in cells:
        g = tuple(sorted((k, str(v)) for k, v in cell.items() if k not in GROUPED))
        rank = (-cell.get("delta", 1), cell.get("epochs", 1),
                abs(cell.get("epsilon", cell.get("target_epsilon", 0))))
        if g not in best or rank > best[g][0]:
            best[g] = (rank, cell)
    return [c for _, c in best.values()]


def check(spec, cells: list, worker_bytes: int, path: str):
    """Refuse (one line per cell, at most 20) the cells that would exceed a worker's share."""
    from verifier.core.progress import report
    from verifier.numerics.memory import size_str
    cap, errors = cell_limit(worker_bytes), []
    # a run's cells are not planned (the run engine has no dry run yet): the limit inside
    # each worker refuses one beyond it, with its reason
    cells = [c for c in representatives(cells) if "run" not in c
             and not (c["steps"] <= SMALL_STEPS and cap >= SMALL_CELL_BYTES)]
    for i, cell in enumerate(cells):
        report("checking the cells' memory", i + 1, len(cells))
        got = needs(spec.compute, cell)
        if got is not None and got[0] > cap:
            errors.append(f"{path}: cell ({coords(cell)}) would need up to about "
                          f"{size_str(got[0])} of memory (a DFT of {got[1]} points), more than "
                          f"a worker's {size_str(cap)} (85% of --memory-per-worker "
                          f"{size_str(worker_bytes)}); raise it or leave the cell out")
            if len(errors) >= 20:
                break
    if errors:
        raise InputErrors(errors)
