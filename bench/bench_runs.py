"""Benchmark: runs of several phases (docs/RUNS.md), certified, side by side in one run with
the float accountants on the same schedule: dp_accounting's PLD (pessimistic, connect the
dots, value_discretization_interval 1e-4, the phases composed by its ``compose``) and
Opacus's PRV accountant (its history of (sigma, q, steps); when Opacus is installed).

    python bench/bench_runs.py           # the two-phase schedule and runs of 2-10 phases

Every line: the run, our bracket, its relative width and time; each reference's epsilon and
time; whether the reference lies in, above or BELOW our bracket ("BELOW" contradicts a
pessimistic estimate); for the runs of several phases, our time over the longest single
phase's at the same accuracy (issue target: at most 3) and over the worst-phase collapse.
Our times are the best of 3 (each from cleared caches); the references' one run.
"""
import time
import warnings
from fractions import Fraction as F


def ours(run, d, repeat=3):
    """(bracket, the best of ``repeat`` times, every engine cache cleared before each: one
    run's time varies by 20% or more on this machine)."""
    from verifier.bounds import runs
    from verifier.numerics.cache import release_all
    best = float("inf")
    for _ in range(repeat):
        release_all()                 # every engine cache (the direct sums' roots too)
        t = time.perf_counter()
        r = runs.epsilon_bracket(run, F(d))
        best = min(best, time.perf_counter() - t)
    return r, best


def dp_pld(phases, d):
    """phases: [(sigma, q, steps)]."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    t = time.perf_counter()
    total = None
    for s, q, n in phases:
        p = pld.from_gaussian_mechanism(float(s), sampling_prob=float(q),
                                        value_discretization_interval=1e-4).self_compose(n)
        total = p if total is None else total.compose(p)
    return total.get_epsilon_for_delta(float(d)), time.perf_counter() - t


def opacus_prv(phases, d):
    from opacus.accountants import PRVAccountant
    acc = PRVAccountant()
    acc.history = [(float(s), float(q), n) for s, q, n in phases]
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = acc.get_epsilon(float(d))
    return e, time.perf_counter() - t


def where(e, iv):
    if iv is None:
        return "?"
    return "in" if iv.lower <= F(e) <= iv.upper else "above" if F(e) > iv.upper else "BELOW"


RUNS = [
    ("two-phase schedule", [("1.2", "0.05", 40), ("0.9", "0.05", 40)], "1e-5"),
    ("warm-up + training", [("2", "0.01", 500), ("1", "0.01", 5000)], "1e-5"),
    ("3 phases", [("1.5", "0.01", 1000), ("1.2", "0.02", 2000), ("1", "0.01", 3000)], "1e-6"),
    ("10 phases, T = 1e5", [(str(float(F(10 + k, 10))), "0.001", 10000) for k in range(10)], "1e-5"),
    ("10 phases of different counts, T = 95000",
     [(str(float(F(10 + k, 10))), "0.001", 5000 + 1000 * k) for k in range(10)], "1e-5"),
]


def main():
    from verifier.core.run import Run, phase
    try:
        import dp_accounting  # noqa: F401
        have_dp = True
    except Exception:                        # noqa: BLE001
        have_dp = False
    try:
        import opacus  # noqa: F401
        have_op = True
    except Exception:                        # noqa: BLE001
        have_op = False
    for name, phases, d in RUNS:
        run = Run(tuple(phase(s, sample_rate=q, steps=n) for s, q, n in phases))
        r, t = ours(run, d)
        iv = r.epsilon
        w = "" if iv is None else f"{float((iv.upper - iv.lower) / iv.lower) * 100:.3f}%"
        print(f"{name}: {run.describe()}")
        print(f"  verifier   {iv.short(7) if iv else 'inconclusive':<28} width {w:<8} {t:7.2f} s")
        singles = []
        for s, q, n in phases:
            one, ts = ours(Run((phase(s, sample_rate=q, steps=n),)), d)
            singles.append(ts)
        worst = min(F(s) for s, _, _ in phases), max(F(q) for _, q, _ in phases)
        col, tc = ours(Run((phase(worst[0], sample_rate=worst[1], steps=run.steps),)), d)
        print(f"  worst-phase collapse {col.epsilon.short(7) if col.epsilon else '-':<18} "
              f"{tc:7.2f} s;  run / longest phase: {t / max(singles):.2f}x")
        if have_dp:
            e, td = dp_pld(phases, d)
            print(f"  dp_accounting PLD    {e:<18.7f} {td:7.2f} s  ({where(e, iv)}; ratio "
                  f"{t / td:.2f})")
        if have_op:
            e, to = opacus_prv(phases, d)
            print(f"  Opacus PRV           {e:<18.7f} {to:7.2f} s  ({where(e, iv)}; ratio "
                  f"{t / to:.2f})")


if __name__ == "__main__":
    main()
