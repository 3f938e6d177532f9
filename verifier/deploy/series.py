"""The data behind every figure, computed once by the pipeline: the renderers
(verifier.report.figures) only draw what these return.

- ``steps_vs_sigma``: M_exact certified at every plotted sigma, both factors, with the
  closed form (4) (the paper's Figure 1);
- ``delta_vs_steps``: every registry bound's delta_E across M at one sigma, and the exact-TV
  bracket at M = 10 and 100 (E = 1);
- ``feasibility``: the certified smallest M meeting a target, per bound, across sigma.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import ctx

from verifier.bounds import REGISTRY
from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import Interval, to_arb
from verifier.deploy.steps import calibrate_steps

FIGURE1_SIGMAS = tuple(Fraction(45, 100) + Fraction(k, 20) for k in range(0, 52))
FIGURE_STEPS = tuple(int(10 ** (1 + k / 4)) for k in range(0, 4 * 10 + 1))


@dataclass(frozen=True)
class Series:
    """One curve: a name and its (x, value) points (values: Interval or int)."""

    name: str
    points: tuple


def steps_vs_sigma(delta: Fraction = Fraction(1, 100)) -> dict:
    """coef -> (Series of M_exact, Series of the closed form (4)) over FIGURE1_SIGMAS."""
    out = {}
    for coef in ("simplified", "rho3"):
        ms, cf = [], []
        for s in FIGURE1_SIGMAS:
            r = TS.steps_exact(s, delta, coef)
            if r.status != "certified":
                continue
            ms.append((s, r.m_exact))
            cf.append((s, r.closed_form))
        out[coef] = (Series("M_exact", tuple(ms)), Series("closed form (4)", tuple(cf)))
    return out


# the exact-TV curve of the delta-vs-M figure: M = 10 to 1e7 (about 5 s of the audit, most of
# it at M = 1e6 and 1e7)
EXACT_STEPS = (10, 30, 100, 300, 1000, 3000, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7)


def delta_vs_steps(sigma: Fraction = Fraction(1), epochs: int = 1) -> dict:
    """{"bounds": [Series per registry bound of delta_E across FIGURE_STEPS (64-bit balls)],
    "exact": Series of the exact-TV brackets at EXACT_STEPS (E = 1 only)}."""
    curves = []
    for b in REGISTRY.values():
        pts = []
        for M in FIGURE_STEPS:
            with ctx.workprec(64):
                v, _ = b.ball(to_arb(sigma), M, epochs)
                pts.append((M, Interval.of(v)))
        curves.append(Series(b.name, tuple(pts)))
    exact = Series("exact TV", ())
    if epochs == 1:
        from verifier.bounds.exact_tv.bracket import exact_tv
        exact = Series("exact TV", tuple((M, exact_tv(sigma, M).tv) for M in EXACT_STEPS))
    return {"sigma": sigma, "epochs": epochs, "bounds": tuple(curves), "exact": exact}


def feasibility(sigma: Fraction, epochs: int, target, names) -> dict:
    """name -> Series of (sigma', certified smallest M) for sigma' around sigma."""
    s0 = float(sigma)
    sig = sorted({Fraction(round(s0 * 10 ** (k / 12), 3)).limit_denominator(1000)
                  for k in range(-6, 13)} | {sigma})
    out = {}
    for name in names:
        pts = []
        for s in sig:
            if s <= 0:
                continue
            r = calibrate_steps(s, epochs, target, name)
            if r.status == "certified":
                pts.append((s, r.steps))
        out[name] = Series(name, tuple(pts))
    return out
