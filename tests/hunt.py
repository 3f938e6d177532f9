"""The random hunt (a review finding): verifier commands on random inputs, edges
included, against the 60-digit references of tests/reference.py and tests/test_decisions.py.

    python tests/hunt.py [--n 3000] [--seed 1]

prints one line per kind of comparison (how many tried, how many decided, how many wrong)
and exits 1 if any comparison disagrees.  `tests/test_hunt_slow.py` runs a few hundred in
the slow suite.  Kinds:

- bound:      every term, delta_rhs and delta_E of `verifier bound` contain the reference;
              each hypothesis verdict has the reference margin's sign;
- evaluate:   each bound's delta_E (certify / calibrate) contains the reference, its verdict
              has the sign of the reference margin;
- steps:      M_exact (Table 1's reading) and M_certified (the theorem's): the reference
              holds at M and fails at M - 1;
- calibrate:  calibrate steps (chi-square, Theorem 3.1) minimal against the reference;
              calibrate sigma's grid ends against the reference;
- cli:        random argv (valid and hostile) never exits 4 or raises.
"""
from __future__ import annotations

import argparse
import io
import math
import os
import random
import sys
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mpmath as mp  # noqa: E402

import reference as R  # noqa: E402
from test_decisions import ref_hypotheses, ref_margin  # noqa: E402
from verifier import deploy as Dp  # noqa: E402
from verifier.bounds import theorem31 as T  # noqa: E402
from verifier.bounds import theorem31_steps as TS  # noqa: E402
from verifier.cli import main  # noqa: E402

BOUNDS = ("theorem31-simplified", "theorem31-rho3", "chi-square")


def _dec(rng, lo_exp, hi_exp, digits=4) -> F:
    """A random short decimal with exponent in [lo_exp, hi_exp]."""
    e = rng.uniform(lo_exp, hi_exp)
    return F(f"{10 ** e:.{digits}g}")


def rand_steps(rng) -> int:
    c = rng.random()
    if c < 0.15:
        return rng.choice([3, 4, 5, 6, 10])
    if c < 0.25:
        return int(_dec(rng, 15, 18))                 # huge M
    return max(3, int(_dec(rng, 0.5, 12)))


def rand_sigma(rng, M: int) -> F:
    c = rng.random()
    edge = math.sqrt(3 / math.log(M))
    if c < 0.2:                                       # near hypothesis 2's edge
        return F(f"{edge * (1 + rng.choice([-1, 1]) * 10 ** -rng.uniform(1, 8)):.12g}")
    if c < 0.3:                                       # where condition (2) binds: large sigma
        return _dec(rng, 0.5, 2.5)
    return _dec(rng, -0.7, 1.2)


def rand_delta(rng) -> F:
    c = rng.random()
    if c < 0.15:
        return _dec(rng, -60, -8)                     # tiny
    return _dec(rng, -5, -0.31)


def contains(iv, x) -> bool:
    return iv.finite and R.contains(iv, x)


class Tally:
    def __init__(self):
        self.rows = {}
        self.failures = []

    def add(self, kind, decided, ok, info=""):
        t, d, w = self.rows.get(kind, (0, 0, 0))
        self.rows[kind] = (t + 1, d + bool(decided), w + (not ok))
        if not ok:
            self.failures.append((kind, info))


def hunt_bound(rng, tally):
    M = rand_steps(rng)
    sigma = rand_sigma(rng, M)
    coef = rng.choice(["simplified", "rho3"])
    if sigma < F(1, 100) or (M > 10**15 and sigma < F(1, 10)):
        return
    r = T.bound(sigma, M, coef, rng.choice([1, 1, 3, 100]), max_prec=1024)
    with mp.workdps(R.DPS):
        s = R.mpq(sigma)
        if R.s2(s) > 10**6:               # the reference's erfc overflows; terms still compare
            return
        c = R.coef_of(s, coef)
        ts = R.terms(mp.mpf(M), s, c)
        ok = all(contains(iv, x) for iv, x in zip(r.terms, ts))
        d = mp.fsum(ts)
        ok &= contains(r.delta, d)
        dE = 1 - (1 - d) ** r.epochs if d < 1 else mp.mpf(1)
        ok &= (not r.delta_epochs.finite) or contains(r.delta_epochs, min(dE, mp.mpf(1))) or d >= 1
    ref = ref_hypotheses("theorem31-" + coef, sigma, M)
    for h in r.hypotheses:
        m = ref[h.name]
        if h.name == "validity_condition_2":      # bound() takes (2) at the upper end of delta_rhs
            continue
        want = "holds" if m >= 0 else "fails"
        ok &= h.verdict.value in (want, "undecided")
    tally.add("bound", True, ok, f"sigma={sigma} M={M} coef={coef}")


def hunt_evaluate(rng, tally):
    M = rand_steps(rng)
    sigma = rand_sigma(rng, M)
    E = rng.choice([1, 1, 2, 10, 1000])
    tau = rand_delta(rng)
    with mp.workdps(R.DPS):
        if R.s2(R.mpq(sigma)) > 10**6:
            return
    for b in BOUNDS:
        ev = Dp.evaluate(b, sigma, M, E, Dp.Target.make(delta=tau), 1024)
        m = ref_margin(b, sigma, M, E, tau)
        v = ev.verdict.value
        ok = v == "undecided" or (v == "holds") == (m >= 0)
        tally.add("evaluate", v != "undecided", ok, f"{b} sigma={sigma} M={M} E={E} tau={tau}")


def hunt_steps(rng, tally):
    sigma = _dec(rng, -0.4, 1.0)
    delta = rand_delta(rng)
    coef = rng.choice(["simplified", "rho3"])
    for reading in ("table1", "theorem"):
        r = TS.steps_exact(sigma, delta, coef, 1024, reading)
        if r.status != "certified":
            tally.add("steps", False, True)
            continue
        m = r.m_exact
        b = "theorem31-" + coef
        if reading == "theorem":
            ok = ref_margin(b, sigma, m, 1, delta) >= 0 and (m == 3 or ref_margin(b, sigma, m - 1, 1, delta) < 0)
        else:
            at = R.conditions(m, sigma, delta, coef)
            ok = min(at.values()) >= 0 and m >= 3
            if m > 3:
                below = R.conditions(m - 1, sigma, delta, coef)
                ok &= min(below.values()) < 0
        tally.add("steps", True, ok, f"{reading} sigma={sigma} delta={delta} coef={coef} M={m}")


def hunt_calibrate(rng, tally):
    sigma = _dec(rng, -0.4, 1.0)
    delta = rand_delta(rng)
    E = rng.choice([1, 1, 5, 50])
    tgt = Dp.Target.make(delta=delta)
    for b in BOUNDS:
        r = Dp.calibrate_steps(sigma, E, tgt, b, 1024)
        if r.status != "certified":
            tally.add("calibrate-steps", False, True)
            continue
        m = r.steps
        ok = ref_margin(b, sigma, m, E, delta) >= 0 and (m == 3 or ref_margin(b, sigma, m - 1, E, delta) < 0)
        tally.add("calibrate-steps", True, ok, f"{b} sigma={sigma} delta={delta} E={E} M={m}")
    if rng.random() < 0.25:
        M = max(3, int(_dec(rng, 1, 9)))
        d2 = _dec(rng, -3, -0.5)
        for b in ("chi-square", "theorem31-rho3"):
            r = Dp.calibrate_sigma(M, 1, Dp.Target.make(delta=d2), b, F(1, 100))
            if r.status != "certified":
                tally.add("calibrate-sigma", False, True)
                continue
            ok = ref_margin(b, r.sigma, M, 1, d2) >= 0
            if r.sigma > F(1, 100):
                ok &= ref_margin(b, r.sigma - F(1, 100), M, 1, d2) < 0
            if r.sigma_max is not None:
                ok &= ref_margin(b, r.sigma_max, M, 1, d2) >= 0
                ok &= ref_margin(b, r.sigma_max + F(1, 100), M, 1, d2) < 0
            tally.add("calibrate-sigma", True, ok, f"{b} M={M} delta={d2}")


HOSTILE = ["0", "-1", "nan", "1e-400", "1e400", "9" * 3000, "1/0", "abc", "", "1e", "0.1.1"]


def hunt_cli(rng, tally):
    cmd = rng.choice(["bound", "steps", "certify", "calibrate-steps", "calibrate-sigma", "compare"])
    M = rand_steps(rng)
    vals = {"sigma": str(rand_sigma(rng, M)), "steps": str(M), "delta": str(rand_delta(rng)),
            "epochs": str(rng.choice([1, 2, 10]))}
    if rng.random() < 0.3:
        k = rng.choice(list(vals))
        vals[k] = rng.choice(HOSTILE)
    argv = {"bound": ["bound", "--sigma", vals["sigma"], "--steps", vals["steps"], "--epochs", vals["epochs"]],
            "steps": ["steps", "--sigma", vals["sigma"], "--delta", vals["delta"]],
            "certify": ["certify", "--sigma", vals["sigma"], "--steps", vals["steps"], "--delta", vals["delta"]],
            "calibrate-steps": ["calibrate", "steps", "--sigma", vals["sigma"], "--delta", vals["delta"]],
            "calibrate-sigma": ["calibrate", "sigma", "--steps", vals["steps"], "--delta", vals["delta"],
                                "--bound", rng.choice(["chi-square", "theorem31-rho3"])],
            "compare": ["compare", "--sigma", vals["sigma"], "--steps", str(min(M, 10**5))]}[cmd]
    if cmd == "compare" and not (F(1, 10) <= F(vals["sigma"]) <= 1000 if vals["sigma"] not in HOSTILE else True):
        return
    if cmd == "calibrate-sigma" and M > 10**12:
        argv[3] = str(10**6)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except BaseException as e:   # noqa: BLE001
            rc = f"raised {e.__class__.__name__}"
    tally.add("cli", True, rc in (0, 1, 2, 3), f"{argv[:8]} -> {rc} {err.getvalue()[:200]}")


def run(n: int, seed: int, out=sys.stdout) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    kinds = [hunt_bound, hunt_bound, hunt_evaluate, hunt_steps, hunt_calibrate, hunt_cli, hunt_cli]
    for i in range(n):
        rng.choice(kinds)(rng, tally)
    for kind, (t, d, w) in sorted(tally.rows.items()):
        print(f"  {kind:<16} tried {t:>5}  decided {d:>5}  wrong {w}", file=out)
    for kind, info in tally.failures[:20]:
        print(f"  WRONG {kind}: {info}", file=out)
    return tally


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t = run(a.n, a.seed)
    sys.exit(1 if t.failures else 0)
