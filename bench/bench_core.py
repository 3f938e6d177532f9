"""Benchmark: certified evaluation vs the same formulas in plain floats.

Run on demand: ``python bench/bench_core.py``.  Prints medians measured in
one run, side by side, and their ratios (commands against a bare Python
start-up).  Targets (issues 2 and 7): certified delta_rhs < 50 us, certified
M_exact < 10 ms, `verifier steps` < 1 s, `verifier audit` < 3 s,
`verifier check-proofs` < 60 s.  The exact-TV bracket: bench/bench_exact.py.
"""
import math
import statistics
import subprocess
import sys
import time
from fractions import Fraction

from flint import arb, ctx

from verifier.symbolic import derived as D
from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import to_arb
B = 0.4748


# --- the same formulas in binary floats (uncertified) -----------------------
def f_coef_S(s):
    u = 1 / s**2
    return (math.exp(3 * u) + 4) / math.expm1(u) ** 2


def f_delta_rhs(M, s, c):
    u = 1 / s**2
    s2 = math.expm1(u)
    mu = math.sqrt(s2 / (M - 1))
    r2p, r2ep = math.sqrt(2 * math.pi), math.sqrt(2 * math.e * math.pi)
    T1 = 2 * B * c * mu
    T2 = mu / r2p
    T3 = (0.25 / r2p + (1 / (2 * r2ep)) * (1 + math.exp(u) / (-math.expm1(-u)))) * mu**2
    T4 = mu**3 / (4 * r2ep)
    T5 = mu**4 / (32 * r2ep)
    L = math.log(M)
    T6 = 4.52 / (2.88 * math.sqrt(L) - 2.41 / math.sqrt(L)) * M ** (-25 / 24)
    return T1 + T2 + T3 + T4 + T5 + T6


def f_hyps(M, s, c, d):
    s2 = math.expm1(1 / s**2)
    eps = B * c * math.sqrt(s2 / (M - 1))
    phi = 0.5 * math.erfc(s2 / 2 / math.sqrt(2))
    return s * s * math.log(M) >= 3 and phi <= 0.5 - eps - d


def f_m_exact(s, d):
    c = f_coef_S(s)
    ok = lambda M: f_delta_rhs(M, s, c) <= d and f_hyps(M, s, c, d)  # noqa: E731
    lo = max(3, int(1 + ((2 * B * c + 1 / math.sqrt(2 * math.pi)) * math.sqrt(math.expm1(1 / s**2)) / d) ** 2))
    step = max(1, lo >> 12)
    hi = lo
    while not ok(hi):
        lo, hi, step = hi, hi + step, step * 2
    while hi - lo > 1:
        m = (lo + hi) // 2
        lo, hi = (lo, m) if ok(m) else (m, hi)
    return hi


def median_time(fn, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def certified_delta_rhs():
    with ctx.workprec(64):
        s = to_arb(Fraction(1))
        c = D.coef_simplified(s)
        return sum(D.terms(arb(10**6), s, c))


def main():
    rows = []
    a = median_time(certified_delta_rhs, 2000)
    b = median_time(lambda: f_delta_rhs(10**6, 1.0, f_coef_S(1.0)), 2000)
    rows.append(("delta_rhs (sigma=1, M=1e6), 64 bits", a, b, 50e-6))
    a = median_time(lambda: TS.steps_exact(Fraction(1), Fraction(1, 100)), 50)
    b = median_time(lambda: f_m_exact(1.0, 0.01), 50)
    assert f_m_exact(1.0, 0.01) == TS.steps_exact(Fraction(1), Fraction(1, 100)).m_exact
    rows.append(("M_exact search (sigma=1, delta=0.01)", a, b, 10e-3))
    a = median_time(lambda: TS.steps_exact(Fraction(1, 2), Fraction(1, 100), "rho3"), 50)
    b = median_time(lambda: f_m_exact(0.5, 0.01), 50)
    rows.append(("M_exact search (sigma=0.5, coef_X)", a, b, 10e-3))
    cmd = [sys.executable, "-m", "verifier", "steps", "--sigma", "1", "--delta", "0.01"]
    a = median_time(lambda: subprocess.run(cmd, capture_output=True, check=True), 5)
    b = median_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), 5)
    rows.append(("`verifier steps` command (vs bare python)", a, b, 1.0))
    cmd = [sys.executable, "-m", "verifier", "audit", "--out", "/tmp/verifier-bench-reports"]
    a = median_time(lambda: subprocess.run(cmd, capture_output=True, check=True), 3)
    rows.append(("`verifier audit` (34 claims, incl. start-up)", a, b, 3.0))
    cmd = [sys.executable, "-m", "verifier", "check-proofs", "--out", "/tmp/verifier-bench-reports"]
    a = median_time(lambda: subprocess.run(cmd, capture_output=True, check=True), 1)
    rows.append(("`verifier check-proofs` (all checks, incl. start-up)", a, b, 60.0))
    cmd = [sys.executable, "-m", "verifier", "calibrate", "sigma", "--steps", "1000000",
           "--delta", "0.01"]
    a = median_time(lambda: subprocess.run(cmd, capture_output=True, check=True), 3)
    rows.append(("`verifier calibrate sigma` (3 bounds, M=1e6)", a, b, 5.0))
    # the exact-TV bracket has its own benchmark (grid, M = 1e9, reference accountants):
    # bench/bench_exact.py
    print(f"{'what':<54} {'certified':>12} {'float/base':>12} {'ratio':>8} {'target':>12}  met")
    for name, a, b, target in rows:
        print(f"{name:<54} {a * 1e3:>10.3f}ms {b * 1e3:>10.3f}ms {a / b:>8.1f} "
              f"{target * 1e3:>10.3f}ms  {'yes' if a <= target else 'NO'}")


if __name__ == "__main__":
    main()
