"""The run engine's lattices (docs/THEORY.md section 15): the run's lattice step and
guess, the multi-phase Poisson lattice (``engine``), random-allocation epochs with other
steps on the finest of the epochs' and the steps' lattices (``mixed_engine``), and their
refinement loops."""
from __future__ import annotations

import math
import time
from fractions import Fraction

from verifier.numerics.cache import EngineCache

_CACHE = EngineCache(5)


def clear_cache():
    _CACHE.clear()


def guess_epsilon(steps: tuple, delta: float, extra=None) -> float:
    """A float guess of epsilon(delta) (a free parameter): the Renyi conversion of the
    remove direction's integer-order moments, summed over the phases (Renyi divergences of
    independent steps add; the moments as bounds.poisson.guess_epsilon); ``extra[a]`` the
    log-moments of other steps (random-allocation epochs) at order a."""
    import numpy as np
    from verifier.bounds.poisson import log_moments
    orders = np.arange(2, 65)
    tot = np.zeros(len(orders)) if extra is None else np.array([extra[a] for a in orders])
    for sigma, q, n in steps:
        tot = tot + n * log_moments(sigma, q)
    return max(float(((tot + math.log(1 / delta)) / (orders - 1)).min()), 0.0)


TV_INFO = ("epsilon 0 by the total variation: delta(0) = TV of the run's pair <= the sum over its "
           "steps of q erf(1 / (2 sqrt 2 sigma)) (a random-allocation epoch: erf(1 / (2 sqrt 2 "
           "sigma))) <= delta (docs/THEORY.md section 15, epsilon 0 by the total variation)")


RUN_FINER = 0.8    # a run of several phases: its first lattice step this much finer (ten
                   # phases of 1e4 steps at q 1e-3 were 0.103% and 0.122% wide at the
                   # one-phase rules' step, and took a second, finer step: 2.1 s)


RUN_TAIL_TOL = 1e-3   # a run's first lattice step: the tail steps double while T (2 w eta)^2
                      # P(x >= a) <= this x floor (pair.TAIL_TOL, 1e-4, elsewhere; every
                      # choice of points is valid): its lattice is RUN_FINER finer than one
                      # phase's rules, and the tails may spend what that leaves (ten phases of
                      # 1e4 steps: 1686 -> 1100 points in the sigma-1 phase, 0.33 -> 0.26 s,
                      # the bracket 0.0657% wide either way; docs/BENCHMARKS.md, runs)


def first_tails(eta: Fraction, first: Fraction, floor: float, base: float,
                guess: float) -> float | None:
    """The tail tolerance of a run's lattice step (a free parameter): RUN_TAIL_TOL at its
    first step (``first``) at the request's floor (``base``: not a stalled retry's lower
    one) where the guessed epsilon is at least 0.1; None (pair.TAIL_TOL) at every refined
    step and below 0.1, where the width is taken against an absolute target and coarser
    tails stalled the refinement (0.7 and 0.9 at q 1e-5 and 2e-5, delta 1e-6: 3.0 -> 9 s)."""
    return RUN_TAIL_TOL if eta == first and floor == base and guess >= 0.1 else None


def lattice_step(steps: tuple, guess: float) -> Fraction:
    """The run's first lattice step (a free parameter; bounds.poisson.lattice_step's rules
    for all the steps at once): at most 1/STEP_GRID of the steps' root-mean-square loss
    standard deviation (one phase: its step's) and 1/EPS_GRID of the guessed epsilon or of
    the composed loss's standard deviation, at least 1/START_POINTS of the widest step's
    loss range; times RUN_FINER for several phases.  The mean square, not the smallest
    phase's: each step's rounding to the lattice costs about eta^2 against the composed
    variance, whatever that step's own spread (500 steps at sigma 2 before 5000 at sigma 1,
    q 0.01: its smallest-phase rule took a lattice 3.2 times finer than the 5000 steps
    alone, 4498 points a step, 0.008% wide; now 2037 points, 0.044%; 1000 steps at sigma 4,
    q 0.1 and 10000 at sigma 0.8, q 1e-3: 2.4 s -> 0.66 s, 0.005% -> 0.054%)."""
    from verifier.bounds import poisson as PO
    var, widest, T = 0.0, 0.0, 0
    for sigma, q, n in steps:
        sf, qf = float(sigma), float(q)
        u = sf ** -2
        sd_x = math.sqrt(math.log1p(qf * qf * math.expm1(min(u, 700.0))))
        var, T = var + n * sd_x ** 2, T + n
        x_hi = math.log1p(qf * math.expm1(min(9 / sf + u / 2, 700.0)))
        x_lo = math.log1p(-qf) if qf < 1 else -(9 / sf + u / 2)
        widest = max(widest, x_hi - x_lo)
    want = min(math.sqrt(var / T) / PO.STEP_GRID, max(guess, math.sqrt(var)) / PO.EPS_GRID)
    want = max(want, widest / PO.START_POINTS, 2.0 ** -40)
    if len(steps) > 1:             # the phases' discretization errors add up: a first step
        want *= RUN_FINER          # finer than one phase's, so that one step is enough
    e = math.floor(math.log2(want)) - 2
    return Fraction(math.floor(want / 2.0 ** e)) * Fraction(2) ** e


def mixed_step(steps: tuple, guess: float) -> Fraction | None:
    """The Poisson steps' own first lattice step in a mixed run (``lattice_step``; None
    without steps): mixed_engine's eta_p."""
    return lattice_step(steps, guess) if steps else None


def engine(steps: tuple, floor: float, eps_cap: float, eta: Fraction,
           tail_tol: float | None = None):
    """The composed laws of the run's steps (a ComposedProfile over phases), cached
    (``tail_tol``: the steps' tail tolerance, pair.step_laws)."""
    from verifier.bounds import poisson as PO
    from verifier.bounds.poisson.pair import step_laws
    from verifier.numerics.compose import ComposedProfile
    T = sum(n for _, _, n in steps)
    key = (steps, floor, eps_cap, eta, tail_tol)

    def make():
        from verifier.core.progress import report
        prec = PO.precision(T, floor, eta, eps_cap)
        # each step's laws charged below CHARGE floor / T, so the run's sum stays below
        # CHARGE floor (pair.points): the budget is shared by all T steps
        laws = []
        for i, (sigma, q, n) in enumerate(steps):
            report(f"the run at lattice step {float(eta):.3g}: kinds of step", i, len(steps))
            laws.append((step_laws(sigma, q, T, floor, eta, prec, tail_tol=tail_tol), n))
        report(f"the run at lattice step {float(eta):.3g}: composing {T} steps")
        return ComposedProfile(laws[0][0], T, prec, floor, eps_cap,
                               symmetric=all(q == 1 for _, q, _ in steps), scan_tests=True,
                               phases=laws, unit="steps")
    return _CACHE.get(key, make)


def ra_log_moments(ra: tuple) -> dict:
    """{a: sum of E log E[Ybar^a]} over the kinds ((sigma, M, E), ...) of random-allocation
    epochs, a = 2..64 (floats, for the guess; bounds.profile.guess_epsilon's moments)."""
    from verifier.bounds.moments import integer_moments
    out = {a: 0.0 for a in range(2, 65)}
    for sigma, M, E in ra:
        ms = integer_moments(sigma, M, 64, prec=128)
        for a in range(2, 65):
            lm = ms[a].log()
            out[a] += E * float(lm.mid()) if lm.is_finite() else math.inf
    return out


def mixed_engine(ra: tuple, steps: tuple, floor: float, eps_cap: float, fine: int,
                 eta_p: Fraction | None = None):
    """The composed laws of random-allocation epochs ``ra`` = ((sigma, M, E), ...) (one entry
    per kind) and Poisson phases ``steps`` on one lattice, cached: each kind's epoch laws as
    bounds.profile plans them (level ``fine``), the run's lattice the finest of theirs (eta
    and eta_l) and of eta_p / fine (``eta_p``: the Poisson steps' own first step,
    ``lattice_step``; the epochs' lattice alone left five phases 0.172% wide at level 1,
    where the steps alone take 0.034%: 4.2 s at level 2, now 0.035% at level 1 in 0.9 s),
    the laws on another lattice regridded onto it (numerics.compose.regrid), each Poisson
    step's upper laws at eta and its cells at eta_l (pair.step_laws); half the floor's
    budget for the epochs (shared by their kinds), half for the steps."""
    from verifier.bounds import poisson as PO
    from verifier.bounds import profile as PR
    from verifier.bounds.poisson.pair import step_laws
    from verifier.numerics.compose import ComposedProfile, regrid
    key = ("mixed", ra, steps, floor, eps_cap, fine, eta_p)

    def make():
        from verifier.core.progress import report
        report(f"the run at level {fine}: the epochs' laws")
        built = [(PR.epoch_laws_for_run(s, M, E, floor / (2 * len(ra)), eps_cap, fine), E)
                 for s, M, E in ra]
        report(f"the run at level {fine}: composing the epochs with {len(steps)} kinds of step")
        own = [] if eta_p is None else [eta_p / fine]
        eta = min([laws.eta for (_, laws), _ in built] + own)
        eta_l = min([laws.eta_l for (_, laws), _ in built] + own)
        T = sum(n for _, _, n in steps)
        epochs = sum(E for _, E in built)
        prec = max([p for (p, _), _ in built] + [PO.precision(T + epochs, floor / 2, eta,
                                                              eps_cap)])
        phases = [(laws if (laws.eta, laws.eta_l) == (eta, eta_l)
                   else regrid(laws, eta, eta_l, prec), E) for (_, laws), E in built]
        phases += [(step_laws(s, q, T, floor / 2, eta, prec, eta_l=eta_l), n)
                   for s, q, n in steps]
        return ComposedProfile(None, None, prec, floor, eps_cap, scan_tests=True, phases=phases)
    return _CACHE.get(key, make)


MIXED_LEVELS = (1, 2, 4, 8)   # the epochs' refinement levels a mixed run tries
MIXED_SECONDS = 60            # ... while the bracket is wider than asked, within this time


def mixed_levels(compute, target) -> tuple:
    """compute(fine) -> (bracket or None, profile) at the levels MIXED_LEVELS while wider
    than target(bracket), for at most MIXED_SECONDS."""
    t = time.perf_counter()
    for fine in MIXED_LEVELS:
        iv, P = compute(fine)
        if iv is None or iv.upper - iv.lower <= target(iv) or \
                time.perf_counter() - t > MIXED_SECONDS / 4:
            return iv, P
    return iv, P


def refine(compute, eta: Fraction, target, note: dict | None = None) -> tuple:
    """bounds.poisson.refine for a run: the same loop (next_step, stopped, narrowest), the
    points per step those of the run's widest phase (``points``)."""
    from verifier.bounds.poisson import refine as refine_lattice
    return refine_lattice(compute, eta, target, note, points)


def points(P) -> int:
    """The most lattice points of one phase's laws (a random-allocation epoch's: its
    laws' support)."""
    return max(lw.info.get("points", len(lw.rem)) for lw, _ in P.phases)
