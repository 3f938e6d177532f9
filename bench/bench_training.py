"""Benchmark: choosing sigma for a training run, certified, side by side with Opacus, in one
run (the `opacus` extra).

    python bench/bench_training.py

Every line: a target (epsilon, delta) for M steps per epoch and E epochs; the time and sigma of
  - verifier.get_noise_multiplier (random allocation, certified, epsilon_tolerance 0.01),
  - Opacus's get_noise_multiplier with accountant="random_allocation" (Opacus's own float
    bisection, each step a certified upper end from the verifier's accountant),
  - Opacus's get_noise_multiplier with accountant="prv" (Poisson sampling, float),
and the time ratios against PRV.  Each of our runs starts from a cold cache.  Then Poisson
subsampling, the same call of Opacus's get_noise_multiplier with accountant="certified_poisson"
(every bisection step a certified upper end) and accountant="prv", at POISSON_GRID (issue 48's
call first: target epsilon 8, delta 1e-6, q 0.004, 20 epochs).
"""
import time
import warnings

GRID = [(2.0, 1e-5, 20, 3), (1.0, 1e-5, 100, 10), (8.0, 1e-6, 100, 100), (3.0, 1e-5, 1000, 1)]
POISSON_GRID = [(8.0, 1e-6, 0.004, 20), (2.0, 1e-5, 0.01, 10), (1.0, 1e-5, 0.05, 5)]


def _cold():
    from verifier.bounds import profile as PR
    PR.clear_cache()


def _timed(f):
    t = time.perf_counter()
    v = f()
    return v, time.perf_counter() - t


def main() -> int:
    warnings.filterwarnings("ignore")
    import verifier
    from opacus.accountants.utils import get_noise_multiplier as opacus_gnm
    import verifier.training  # noqa: F401  (registers accountant="random_allocation")
    print(f"{'eps':>5} {'delta':>7} {'M':>5} {'E':>4} | {'verifier (certified)':>22} | "
          f"{'Opacus + our accountant':>24} | {'Opacus PRV (Poisson)':>21} | ratios to PRV")
    for eps, d, M, E in GRID:
        _cold()
        a, ta = _timed(lambda: verifier.get_noise_multiplier(
            target_epsilon=eps, target_delta=d, sample_rate=1 / M, epochs=E))
        _cold()
        b, tb = _timed(lambda: opacus_gnm(target_epsilon=eps, target_delta=d, sample_rate=1 / M,
                                          epochs=E, accountant="random_allocation"))
        c, tc = _timed(lambda: opacus_gnm(target_epsilon=eps, target_delta=d, sample_rate=1 / M,
                                          epochs=E, accountant="prv"))
        print(f"{eps:>5} {d:>7} {M:>5} {E:>4} | sigma {float(a):<8.4g} {ta:6.2f} s | "
              f"sigma {b:<8.4g} {tb:7.2f} s | sigma {c:<8.4g} {tc:6.2f} s | "
              f"{ta / tc:5.1f}x, {tb / tc:5.1f}x")
    import verifier.poisson_accountant  # noqa: F401  (registers accountant="certified_poisson")
    from verifier.bounds import poisson as PO
    print(f"\n{'eps':>5} {'delta':>7} {'q':>6} {'E':>4} | {'Opacus + certified_poisson':>27} | "
          f"{'Opacus PRV':>21} | ratio to PRV")
    for eps, d, q, E in POISSON_GRID:
        PO.clear_cache()
        a, ta = _timed(lambda: opacus_gnm(target_epsilon=eps, target_delta=d, sample_rate=q,
                                          epochs=E, accountant="certified_poisson"))
        c, tc = _timed(lambda: opacus_gnm(target_epsilon=eps, target_delta=d, sample_rate=q,
                                          epochs=E, accountant="prv"))
        print(f"{eps:>5} {d:>7} {q:>6} {E:>4} | sigma {a:<10.6g} {ta:9.2f} s | "
              f"sigma {c:<8.4g} {tc:6.2f} s | {ta / tc:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
