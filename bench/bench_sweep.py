"""Benchmark: certified sweeps on Dask (issue #28): speed-up with workers and the scheduling
overhead on a 200-cell sweep of typical epsilon(delta) cells.

    python bench/bench_sweep.py            # 200 cells, one then two local workers (a few minutes)
    python bench/bench_sweep.py --cells 1000 --workers 2

Prints per run: cells, workers, wall time, the sum of the cells' own times, the speed-up over
one worker, the overhead (wall - cell time / workers, relative to the cell time / workers),
the median cell time and the bound cells x median / workers, and the peak memory of a worker.
"""
import argparse
import statistics
import tempfile
import time

from verifier.sweep import spec as S
from verifier.sweep.run import run


def grid(n: int) -> dict:
    """About n cells: sigma x steps x epochs at one delta (typical deployment questions)."""
    sigmas = [f"{0.7 + 0.05 * k:.2f}" for k in range(max(1, n // 20))]
    return {"compute": "epsilon", "axes": {"sigma": sigmas, "steps": [10, 20, 50, 100, 200],
                                           "epochs": [1, 2, 5, 10], "delta": ["1e-5"]}}


def one(spec, workers: int):
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        r = run(spec, out, workers=workers)
        wall = time.perf_counter() - t
    secs = [rec["seconds"] for rec in r.records]
    return wall, sum(secs), statistics.median(secs), r.cells


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=200)
    ap.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    a = ap.parse_args()
    spec = S.parse(grid(a.cells))
    base = None
    print(f"{'cells':>6} {'workers':>7} {'wall s':>8} {'cell s':>8} {'speed-up':>8} "
          f"{'overhead':>8} {'median':>7} {'bound':>7}")
    for w in a.workers:
        wall, cell, med, n = one(spec, w)
        base = base or wall
        over = (wall - cell / w) / (cell / w)
        print(f"{n:>6} {w:>7} {wall:>8.1f} {cell:>8.1f} {base / wall:>8.2f} {over:>8.1%} "
              f"{med:>7.2f} {n * med / w:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
