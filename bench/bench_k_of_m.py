"""Benchmark: k of M random allocation (each record in k of the M steps of an epoch),
certified (docs/THEORY.md section 15, "k of M"), beside PLD_accounting 2.0's estimate
(``gaussian_allocation_epsilon_range(num_selected=k)``, a float (upper, lower) pair) in one
run; PLD_accounting runs in a child process killed after ``--timeout`` seconds.

    python bench/bench_k_of_m.py

Every line: our bracket and time; PLD_accounting's (lower, upper) and time; our certified
upper end over its upper estimate (the issue's target: within 5%).
"""
import argparse
import multiprocessing as mp
import time
import warnings
from fractions import Fraction as F

GRID = [("1", 100, 2, 2), ("1.5", 100, 10, 1), ("1", 100, 5, 5), ("2", 100, 10, 10),
        ("0.7", 100, 2, 1)]


def _pld(args, q):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from PLD_accounting import gaussian_allocation_epsilon_range
        s, M, k, E, d = args
        t = time.perf_counter()
        up, lo = gaussian_allocation_epsilon_range(delta=d, sigma=float(s), num_steps=M,
                                                   num_selected=k, num_epochs=E)
        q.put((lo, up, time.perf_counter() - t))


def pld(args, timeout):
    q = mp.Queue()
    p = mp.Process(target=_pld, args=(args, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        return None
    return q.get() if not q.empty() else None


def main():
    from verifier.bounds import runs
    from verifier.core.run import Gaussian, Phase, RandomAllocation, Run
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=200)
    ap.add_argument("--delta", default="1e-5")
    a = ap.parse_args()
    for s, M, k, E in GRID:
        run = Run((Phase(Gaussian(s), RandomAllocation(M, k), M * E),))
        t = time.perf_counter()
        r = runs.epsilon_bracket(run, F(a.delta))
        ours = time.perf_counter() - t
        ref = pld((s, M, k, E, float(a.delta)), a.timeout)
        e = r.epsilon
        line = f"sigma {s:>4} M {M} k {k:>2} E {E:>2}: ours {e.short(6):<24} {ours:6.2f} s"
        if ref is None:
            print(line + "   PLD_accounting: timeout")
        else:
            lo, up, tp = ref
            print(line + f"   PLD_accounting ({lo:.6f}, {up:.6f}) {tp:7.1f} s   "
                         f"ours/upper {float(e.upper) / up:.4f}")


if __name__ == "__main__":
    main()
