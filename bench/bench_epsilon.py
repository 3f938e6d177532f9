"""Benchmark: certified epsilon(delta) side by side with PLD_accounting (Feldman &
Shenfeld's PLD accountant for random allocation, floats, its default accuracy), in one run.

    python bench/bench_epsilon.py            # the default grid (a few minutes)
    python bench/bench_epsilon.py --big      # also M = 1e6 and E = 1000 (ours only; slow)

Every line: our bracket, its relative width, our time; PLD_accounting's [lower, upper], its
width and time; the ratios (time ours/theirs, width ours/theirs) and whether the two
brackets intersect.  Each of our runs starts from a cold cache (no reuse between lines).
Memory: the peak resident size of this process is printed at the end.
"""
import argparse
import resource
import time
import warnings
from fractions import Fraction as F

GRID = [("1", 100, 1, "1e-5"), ("1", 100, 10, "1e-5"), ("2", 10, 10, "1e-6"),
        ("1", 1000, 1, "1e-6"), ("0.5", 100, 1, "1e-5"), ("4", 1000, 10, "1e-10"),
        ("1", 10000, 10, "1e-10"), ("1", 10000, 100, "1e-5"), ("2", 1, 1, "1e-5")]
BIG = [("1", 10 ** 6, 1, "1e-10"), ("0.5", 10 ** 6, 1, "1e-10"), ("1", 100, 1000, "1e-5")]


def ours(s, M, E, d):
    from verifier.bounds import profile as PR
    PR.clear_cache()
    t = time.perf_counter()
    r = PR.epsilon_bracket(F(s), M, E, F(d))
    return r, time.perf_counter() - t


def _theirs_worker(args, q):
    s, M, E, d = args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from PLD_accounting import gaussian_allocation_epsilon_range
        t = time.perf_counter()
        a, b = gaussian_allocation_epsilon_range(delta=float(d), sigma=float(s), num_steps=M,
                                                 num_epochs=E)
        q.put(((min(a, b), max(a, b)), time.perf_counter() - t))


def theirs(s, M, E, d, timeout):
    """PLD_accounting in a child process (killed after ``timeout`` seconds: "timeout")."""
    import importlib.util
    import multiprocessing as mp
    if importlib.util.find_spec("PLD_accounting") is None:
        return None, None
    q = mp.Queue()
    p = mp.Process(target=_theirs_worker, args=((s, M, E, d), q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
        return "timeout", timeout
    return q.get() if not q.empty() else (None, None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--no-ref", action="store_true", help="skip PLD_accounting")
    ap.add_argument("--timeout", type=float, default=120, help="PLD_accounting time limit (s)")
    a = ap.parse_args()
    rows = GRID + (BIG if a.big else [])
    print(f"{'sigma':>5} {'M':>8} {'E':>5} {'delta':>6} | {'ours epsilon':<24} {'width':>8} "
          f"{'s':>6} | {'PLD_accounting':<22} {'width':>7} {'s':>6} | time  width  meet")
    for s, M, E, d in rows:
        r, t = ours(s, M, E, d)
        e = r.epsilon
        ow = float((e.upper - e.lower) / e.lower) if e is not None and e.lower > 0 else None
        oe = f"[{float(e.lower):.6f}, {float(e.upper):.6f}]" if e is not None else "inconclusive"
        ref, tr = ((None, None) if a.no_ref or M > 10 ** 5 or E > 100
                   else theirs(s, M, E, d, a.timeout))
        line = (f"{s:>5} {M:>8} {E:>5} {d:>6} | {oe:<24} "
                f"{(f'{100 * ow:.3f}%' if ow is not None else '-'):>8} {t:6.2f} | ")
        if ref is None:
            line += f"{'-':<22} {'-':>7} {'-':>6} |"
        elif ref == "timeout":
            line += f"{'> ' + str(int(tr)) + ' s (stopped)':<22} {'-':>7} {tr:6.0f} | {t / tr:4.2f}"
        else:
            rw = (ref[1] - ref[0]) / ref[0]
            meet = e is not None and max(float(e.lower), ref[0]) <= min(float(e.upper), ref[1])
            line += (f"[{ref[0]:.6f}, {ref[1]:.6f}] {100 * rw:6.2f}% {tr:6.2f} | "
                     f"{t / tr:4.2f}  {(ow / rw if ow else float('nan')):5.3f}  {'yes' if meet else 'NO'}")
        print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
