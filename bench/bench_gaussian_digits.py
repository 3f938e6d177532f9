"""Benchmark: the Gaussian mechanism (M = 1 step per epoch, E epochs: mu = sqrt(E) / sigma)
to 30 significant digits, both directions, against dp_accounting's float PLD accountant.

    python bench/bench_gaussian_digits.py        # about 10 s

Each row: sigma, E, the question (epsilon at delta, or delta at eps), the verifier's
certified bracket's relative width and its time (bounds/gaussian.py, what `--digits 30`
runs: the closed form of docs/THEORY.md section 13; the first call, cold), dp_accounting's float answer and its time (its
PLDAccountant with a Gaussian event composed E times, value discretization 1e-4; 'n/a' where
it is not installed or E > 1e4, where it ran for minutes), and the ratio of the two times.  The issue's target: 30 significant
digits in <= 0.1 s for every E <= 1e6.
"""
import time
from fractions import Fraction as F

from verifier.bounds import gaussian as G

ROWS = [("0.5", 1, "eps", "1e-5"), ("1", 10, "eps", "1e-5"), ("4", 1000, "eps", "1e-10"),
        ("200", 10 ** 6, "eps", "1e-8"), ("1", 1, "delta", "1"), ("3", 100, "delta", "-2"),
        ("800", 10 ** 6, "delta", "0.5"), ("10", 10 ** 4, "delta", "3")]
DIGITS = 30


def best(f, n=3):
    out, t = None, float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return out, t


FLOAT_MAX_E = 10 ** 4     # dp_accounting's PLD of E = 1e6 Gaussian events ran for minutes


def float_accountant(s, E, what, x):
    if E > FLOAT_MAX_E:
        return None, None
    try:
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant as P
    except ImportError:
        return None, None
    def run():
        acc = P.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_accounting.GaussianDpEvent(float(s)), E)
        return acc.get_epsilon(float(x)) if what == "eps" else acc.get_delta(float(x))
    return best(run, 1)


def main():
    print(f"{'sigma':>5} {'E':>8} {'question':>16} | {'verifier':>14} {'width':>8} {'s':>7} | "
          f"{'dp_accounting':>14} {'s':>7} | ratio")
    for s, E, what, x in ROWS:
        mu2 = E / F(s) ** 2
        if what == "eps":
            (iv, _), t = best(lambda: G.epsilon_interval(mu2, F(x), DIGITS), 1)
        else:
            iv, t = best(lambda: G.delta_interval(mu2, F(x), DIGITS), 1)
        w = float((iv.upper - iv.lower) / max(iv.upper, F(1) if what == "eps" else iv.upper))
        got, tf = float_accountant(s, E, what, x)
        q = f"{'epsilon' if what == 'eps' else 'delta'}({x})"
        fl = "n/a" if got is None else f"{got:.8g}"
        tfs = "n/a" if tf is None else f"{tf:.3f}"
        ratio = "" if tf is None else f"{t / tf:.2g}"
        print(f"{s:>5} {E:>8} {q:>16} | {float(iv.lower):>14.10g} {w:>8.1e} {t:>7.4f} | "
              f"{fl:>14} {tfs:>7} | {ratio}", flush=True)


if __name__ == "__main__":
    main()
