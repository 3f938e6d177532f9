"""Benchmark: the certified Rényi curve and trade-off band side by side with the
float Rényi values of the ``random-allocation`` package (Feldman & Shenfeld,
``allocation_RDP_remove``: the partition sum in floats, integer orders only), in one run.

    python bench/bench_views.py

Lines:
- integer orders, remove direction: our exact ball (the coefficient form, all orders at once)
  against random-allocation's float partition sum, value by value (relative difference) and
  time (ours for all orders up to the largest, theirs per order, summed);
- the whole certified curve (`verifier rdp`: real orders, add direction, zCDP) and the
  trade-off band (`verifier tradeoff`), our time only (no float accountant computes them
  for random allocation).
"""
import time
import warnings
from fractions import Fraction as F

GRID = [("1", 10, (2, 4, 8, 16, 32)), ("1", 100, (2, 4, 8, 16, 32)),
        ("2", 1000, (2, 4, 8, 16, 32, 48)), ("0.5", 10 ** 6, (2, 4, 8, 16))]


def ours_integer(sigma, M, orders):
    from verifier.bounds.moments import integer_moments
    t = time.perf_counter()
    ms = integer_moments(F(sigma), M, max(orders))
    vals = {a: float(ms[a].log().mid()) / (a - 1) for a in orders}
    return vals, time.perf_counter() - t


def theirs_integer(sigma, M, orders):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from random_allocation.random_allocation_scheme.direct import allocation_RDP_remove
    allocation_RDP_remove.cache_clear()
    t = time.perf_counter()
    vals = {a: allocation_RDP_remove(a, float(sigma), M) for a in orders}
    return vals, time.perf_counter() - t


def main():
    print("integer orders, remove direction (one epoch): ours exact vs random-allocation floats")
    print(f"{'sigma':>6} {'M':>8} {'orders':<22} {'max rel. diff':>14} {'ours s':>8} "
          f"{'theirs s':>9} {'ratio':>7}")
    for sigma, M, orders in GRID:
        ov, ot = ours_integer(sigma, M, orders)
        try:
            tv, tt = theirs_integer(sigma, M, orders)
            diff = max(abs(ov[a] - tv[a]) / abs(ov[a]) for a in orders)
            print(f"{sigma:>6} {M:>8} {','.join(map(str, orders)):<22} {diff:>14.2e} "
                  f"{ot:>8.3f} {tt:>9.3f} {ot / tt:>7.2f}")
        except Exception as e:             # the reference is optional (the reference extra)
            print(f"{sigma:>6} {M:>8} {','.join(map(str, orders)):<22} "
                  f"{'reference failed: ' + e.__class__.__name__:>14} {ot:>8.3f}")
    print()
    print("whole views (ours only): verifier rdp (23 orders, both directions, zCDP) and "
          "verifier tradeoff (21 points)")
    from verifier.bounds import profile as PR
    from verifier.views.renyi import renyi_curve
    from verifier.views.tradeoff import tradeoff_curve
    for sigma, M, E in (("1", 1, 1), ("1", 100, 10), ("2", 10, 10), ("1", 10000, 1)):
        PR.clear_cache()
        t = time.perf_counter()
        renyi_curve(F(sigma), M, E)
        tr = time.perf_counter() - t
        PR.clear_cache()
        t = time.perf_counter()
        c = tradeoff_curve(F(sigma), M, E)
        tt = time.perf_counter() - t
        w = max(float(p.f.upper - p.f.lower) for p in c.points)
        print(f"  sigma = {sigma}, M = {M}, E = {E}: rdp {tr:.2f} s, tradeoff {tt:.2f} s "
              f"(widest band {w:.1e})")


if __name__ == "__main__":
    main()
