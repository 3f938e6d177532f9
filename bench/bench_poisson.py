"""Benchmark: certified epsilon(delta) of Poisson subsampling side by side, in one
run, with the float accountants people use: Google dp_accounting's PLD, pessimistic, at
value_discretization_interval 1e-4, by connect the dots (its default) and by privacy
buckets; Opacus's PRV accountant (its eps_error 0.01) and Opacus's RDP accountant (an upper
bound); PLD_accounting 2.0's PLD-dual subsampling of the Gaussian PLD when installed.

A float "pessimistic" estimate is an upper bound only in exact arithmetic: dp_accounting's
connect the dots takes second differences of the profile in floats, and at delta = 1e-10 it
falls below the certified bracket (marked BELOW; finer discretizations fall further: 4.33794
at 1e-5 for sigma 0.5, q 1e-4, T 1000, where the bracket is [4.338862, 4.338928] and
dp_accounting's own privacy buckets give 4.3446 above it).

    python bench/bench_poisson.py            # the default grid (about a minute)
    python bench/bench_poisson.py --big      # also T = 1e5 and 1e6 (ours and RDP only)

Every line: our bracket, its relative width and time; each reference's epsilon and time;
the ratios (our time / theirs; our width / PRV's stated error band 2 eps_error); whether
each reference lies in or above our bracket ("in", "above": a pessimistic value above the
bracket's upper end is consistent; "BELOW" would contradict it).  Memory: the peak resident
size of this process at the end.
"""
import argparse
import logging
import resource
import time
import warnings
from fractions import Fraction as F

GRID = [("1.1", "0.05", 20, "1e-5"), ("1", "0.01", 1000, "1e-5"), ("1", "0.01", 10000, "1e-5"),
        ("0.8", "0.001", 10000, "1e-6"), ("2", "0.1", 1000, "1e-5"), ("0.5", "0.0001", 1000, "1e-10"),
        ("4", "0.1", 10000, "1e-3"), ("1", "1", 10, "1e-5")]
BIG = [("1", "0.001", 100000, "1e-5"), ("1", "0.001", 1000000, "1e-5"),
       ("0.5", "0.0001", 100000, "1e-10")]


def ours(s, q, T, d):
    from verifier.bounds import poisson as PO
    PO.clear_cache()
    t = time.perf_counter()
    r = PO.epsilon_bracket(F(s), F(q), T, F(d))
    return r, time.perf_counter() - t


def dp_pld(s, q, T, d, ctd=True):
    from dp_accounting.pld import privacy_loss_distribution as pld
    t = time.perf_counter()
    p = pld.from_gaussian_mechanism(float(s), sampling_prob=float(q),
                                    value_discretization_interval=1e-4, use_connect_dots=ctd)
    e = p.self_compose(T).get_epsilon_for_delta(float(d))
    return e, time.perf_counter() - t


def dp_pld_buckets(s, q, T, d):
    return dp_pld(s, q, T, d, ctd=False)


def pld_accounting(s, q, T, d):
    """PLD_accounting 2.0's PLD-dual subsampling (arXiv 2602.17284, Appendix C) of
    dp_accounting's Gaussian PLD, composed by dp_accounting."""
    import importlib.util
    if importlib.util.find_spec("PLD_accounting") is None:
        return "not installed", None
    from dp_accounting.pld import privacy_loss_distribution as pld
    from PLD_accounting import subsample_pld
    t = time.perf_counter()
    base = pld.from_gaussian_mechanism(float(s), value_discretization_interval=1e-4)
    sub = subsample_pld(pld=base, sampling_probability=float(q))
    e = sub.self_compose(T).get_epsilon_for_delta(float(d))
    return e, time.perf_counter() - t


def opacus_prv(s, q, T, d):
    from opacus.accountants import PRVAccountant
    acc = PRVAccountant()
    acc.history = [(float(s), float(q), T)]
    t = time.perf_counter()
    e = acc.get_epsilon(float(d))
    return e, time.perf_counter() - t


def opacus_rdp(s, q, T, d):
    from opacus.accountants import RDPAccountant
    acc = RDPAccountant()
    acc.history = [(float(s), float(q), T)]
    t = time.perf_counter()
    e = acc.get_epsilon(float(d))
    return e, time.perf_counter() - t


def _try(f, *a):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*a)
    except Exception as e:                        # noqa: BLE001 (a reference that fails)
        return f"{type(e).__name__}", None


def _where(x, iv) -> str:
    if not isinstance(x, float) or iv is None:
        return "-"
    v = F(x)
    return "in" if iv.lower <= v <= iv.upper else "above" if v > iv.upper else "BELOW"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--no-ref", action="store_true", help="skip the reference accountants")
    a = ap.parse_args()
    logging.disable(logging.WARNING)
    refs = [] if a.no_ref else [("dp_accounting PLD (dots)", dp_pld),
                                ("dp_accounting PLD (buckets)", dp_pld_buckets),
                                ("PLD_accounting subsampling", pld_accounting),
                                ("Opacus PRV", opacus_prv), ("Opacus RDP", opacus_rdp)]
    print(f"{'sigma':>5} {'q':>7} {'T':>8} {'delta':>6} | {'ours epsilon':<24} {'width':>8} "
          f"{'s':>6} | " + " | ".join(f"{n:<28}" for n, _ in refs))
    for s, q, T, d in GRID + (BIG if a.big else []):
        r, t = ours(s, q, T, d)
        e = r.epsilon
        ow = float((e.upper - e.lower) / e.lower) if e is not None and e.lower > 0 else None
        oe = f"[{float(e.lower):.6f}, {float(e.upper):.6f}]" if e is not None else "inconclusive"
        line = (f"{s:>5} {q:>7} {T:>8} {d:>6} | {oe:<24} "
                f"{(f'{100 * ow:.4f}%' if ow is not None else '-'):>8} {t:6.2f} | ")
        cells = []
        for name, f in refs:
            if T > 10 ** 5 and name != "Opacus RDP":
                cells.append(f"{'(skipped)':<28}")
                continue
            x, tr = _try(f, s, q, T, d)
            if tr is None:
                cells.append(f"{str(x):<28}")
                continue
            cells.append(f"{x:9.6f} {tr:6.2f}s x{t / tr:6.1f} {_where(x, e):>5}")
        print(line + " | ".join(cells), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
