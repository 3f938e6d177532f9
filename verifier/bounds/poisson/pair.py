"""One step of DP-SGD with Poisson subsampling as four lattice laws (docs/THEORY.md section 12).

The pair (add/remove adjacency; Mironov, Talwar and Zhang, arXiv 1908.10530 v1, Section 3,
and issue text of the verifier): with sample rate q and noise multiplier sigma, in units of
the clipping norm, one step's output under the two neighbouring datasets is
    P = (1 - q) N(0, sigma^2) + q N(1, sigma^2)   (the record present: remove direction P vs Q)
    Q = N(0, sigma^2)                               (add direction: Q vs P).
With Z = X/sigma ~ N(0, 1) under Q, the likelihood ratio is W = dP/dQ = 1 - q + q Y,
Y = e^{Z/sigma - u/2} (u = 1/sigma^2), nondecreasing in Z: the privacy loss x = log W
exceeds a iff Z >= b(a) = sigma (ln((e^a - 1 + q)/q) + u/2) (every Z when e^a <= 1 - q), so
    Q(x >= a) = P(Z >= b),   P(x >= a) = (1 - q) P(Z >= b) + q E_Q[Y 1{Z >= b}],
the lognormal upper-tail partial moments derived by SymPy (D.lognormal_upper_tail, proof
check lognormal.upper-partial-moments).  The two profiles at c = e^a (Neyman-Pearson: the
best events are {x >= a}, resp. {x < a}):
    remove  delta_R(e^a) = P(x >= a) - e^a Q(x >= a)
    add     delta_A(e^{-a}) = Q(x < a) - e^{-a} P(x < a).
Upper laws: the dominating pairs of numerics/dominating.py on the lattice a = k eta
(remove: the B-law is Q, x = k eta; add: the B-law is P, the add loss is -x).  For q < 1
the first point k0 has e^{k0 eta} <= 1 - q, where delta_R = 1 - c and delta_A = 0 exactly
(x >= log(1 - q) always), so nothing is charged on that side.  Test laws: the cell of x
between consecutive points, under Q (test0) and P (test1), exact.

Floats choose the free parameters only (eta, the points: dense where the mass is, doubling
steps in the tails, the cut-off where the charge is below budget); every law is Arb balls."""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import InputError, decimal_str, to_arb
from verifier.numerics.compose import StepLaws
from verifier.numerics.dominating import cell_masses, connect_the_dots
from verifier.numerics.lattice import normal_sf_float
from verifier.symbolic import derived as D

MAX_POINTS = 600_000     # lattice points of one step's laws (beyond: refused, one line; above
                         # the refinement's REFINE_POINTS, so that a refined step stays below)
TAIL_TOL = 1e-4          # tail steps double while T (2 w eta)^2 P(x >= k eta) <= TAIL_TOL floor
                         # (second order, as the random-allocation engine's cells: the dots
                         # keep the mean of e^x, so a step's spread moves delta as its square;
                         # the first-order rule, T w eta P <= 1e-3 floor, took 2.3-4.5 times
                         # the points for the same brackets: docs/THEORY.md section 12)
CHARGE = 1e-4            # the cut-off's charge T delta(c_n) is kept below CHARGE floor


def tails_float(sf: float, qf: float, a: float) -> tuple[float, float]:
    """(Q(x >= a), P(x >= a)) in floats: for choices only."""
    u = 1 / sf ** 2
    if qf >= 1:
        b = sf * (a + u / 2)
    else:
        r = math.expm1(min(a, 700.0)) + qf       # (beyond: both tails 0 in floats)
        if r <= 0:
            return 1.0, 1.0
        b = sf * (math.log(r / qf) + u / 2)
    g = normal_sf_float(b)
    return g, (1 - qf) * g + qf * normal_sf_float(b - 1 / sf)


def tails(sigma: Fraction, q: Fraction, a: arb) -> tuple[arb, arb]:
    """(Q(x >= a), P(x >= a)) as balls: Z >= b(a) (D.poisson_loss_threshold) and the step's
    tails at b (D.poisson_step_tails), the evaluators printed from verifier.symbolic.poisson
    (proof checks poisson.loss-threshold, poisson.mixture-tails).  Requires e^a - 1 + q > 0
    certified when q < 1 (the caller's points are placed so)."""
    return _tails(to_arb(sigma), to_arb(q), q == 1, a, True)


def _tails(s: arb, qa: arb, q_one: bool, a: arb, check: bool) -> tuple[arb, arb]:
    """``tails`` with sigma and q as balls; ``check``: certify e^a - 1 + q > 0 here (else
    the caller has: it holds at a larger a' <= a, and e^a is increasing)."""
    if q_one:
        b = s * (a + 1 / (2 * s * s))          # b(a) at q = 1 (log(e^a) = a)
    else:
        if check and not a.expm1() + qa > 0:
            raise ValueError("tails: e^a - 1 + q not certified positive")
        b = D.poisson_loss_threshold(s, qa, a)
    return D.poisson_step_tails(s, qa, b)


def _walk(k: int, step: int, probe, tau: float) -> list[int]:
    """Lattice points from k in direction ``step`` (+1 or -1) until stop(k): unit steps while
    (2 w)^2 mass(k) > tau, doubling steps beyond (any points are valid; fewer only loosen);
    probe(k) = (stop(k), mass(k)), one evaluation of the step's float tails a point."""
    out, w = [], 1
    while True:
        out.append(k)
        stop, mass = probe(k)
        if stop or len(out) > MAX_POINTS:
            return out
        while 4 * w * w * mass <= tau and w < (1 << 40):
            w *= 2
        k += step * w


def points(sigma: Fraction, q: Fraction, T: int, floor: float, eta: Fraction,
           tail_tol: float | None = None) -> list[int]:
    """The lattice points (indices k of a = k eta), increasing; a float choice (``tail_tol``:
    the doubling rule's tolerance, TAIL_TOL when None)."""
    sf, qf, ef = float(sigma), float(q), float(eta)
    budget = CHARGE * floor / T
    tol = TAIL_TOL if tail_tol is None else tail_tol
    tau = tol * floor / (T * ef * ef)         # (2 w)^2 mass <= tau: T (2 w eta)^2 mass

    def up_probe(k):                   # (delta_R(e^a) <= budget, P(x >= a))
        g, p = tails_float(sf, qf, k * ef)
        return p - math.exp(k * ef) * g <= budget, p

    def down_probe(k):                 # (delta_A(e^-a) <= budget, Q(x < a))
        g, p = tails_float(sf, qf, k * ef)
        return (1 - g) - math.exp(-k * ef) * (1 - p) <= budget, 1 - g
    u = 1 / sf ** 2
    if q < 1:
        k0 = math.floor(math.log1p(-qf) / ef)
        with ctx.workprec(128):            # e^{k0 eta} <= 1 - q < e^{k1 eta}, certified
            while not (to_arb(k0 * eta).exp() <= 1 - to_arb(q)):
                k0 -= 1
            k1 = k0 + 1
            while not (to_arb(k1 * eta).expm1() + to_arb(q) > 0):
                k1 += 1
        ks = [k0] + _walk(k1, 1, up_probe, tau)
    else:
        mid = math.floor(u / 2 / ef)       # the mean of x under P (u/2)
        up = _walk(mid, 1, up_probe, tau)
        down = _walk(mid - 1, -1, down_probe, tau)
        ks = down[::-1] + up
    if len(ks) > MAX_POINTS:
        raise InputError(f"sigma = {decimal_str(sigma, 12)}, sample rate q = "
                         f"{decimal_str(q, 12)}: one step needs more than {MAX_POINTS} lattice "
                         f"points at this delta; not supported")
    return ks


def _tails_at(sigma: Fraction, q: Fraction, ks: list, ea: arb) -> tuple[list, list]:
    """(Q(x >= k eta), P(x >= k eta)) at the increasing points ks (the first exactly 1 for
    q < 1): e^a - 1 + q > 0 certified at the first point taken by ``tails`` (the rest lie
    above it)."""
    if any(b <= a for a, b in zip(ks, ks[1:])):
        raise ValueError("_tails_at: the points must increase")
    s, qa = to_arb(sigma), to_arb(q)
    G, Pt = [], []
    for i, k in enumerate(ks):
        if q < 1 and i == 0:                   # e^{k0 eta} <= 1 - q: x >= a always
            g, p = arb(1), arb(1)
        else:
            g, p = _tails(s, qa, q == 1, k * ea, i <= 1)
        G.append(g)
        Pt.append(p)
    return G, Pt


def step_laws(sigma: Fraction, q: Fraction, T: int, floor: float, eta: Fraction,
              prec: int, eta_l: Fraction | None = None,
              tail_tol: float | None = None) -> StepLaws:
    """One step's four laws on the lattice of step eta (module docstring); each charge below
    about CHARGE floor / T.  ``eta_l``: the test laws on their own lattice of step eta_l (a
    run that composes these steps with another engine's, whose statistic is on eta_l:
    docs/THEORY.md section 15); the cell labels are then in units of eta_l.  ``tail_tol``:
    the tail steps' doubling tolerance (``points``; any points are valid)."""
    ks = points(sigma, q, T, floor, eta, tail_tol)
    with ctx.workprec(prec):
        ea = to_arb(eta)
        G, Pt = _tails_at(sigma, q, ks, ea)
        cs = [(k * ea).exp() for k in ks]
        rem, atom_R = connect_the_dots([(k, c, p - c * g) for k, c, g, p in zip(ks, cs, G, Pt)])
        pts_A = [(k, 1 / c, (1 - g) - (1 - p) / c)
                 for k, c, g, p in zip(ks, cs, G, Pt)][::-1]
        add, atom_A = connect_the_dots(pts_A)
        if q < 1:
            atom_A = arb(0)                    # delta_A = 0 at and beyond e^{-k0 eta} >= 1/(1 - q)
        kl = ks
        if eta_l is not None and eta_l != eta:
            kl = points(sigma, q, T, floor, eta_l, tail_tol)
            G, Pt = _tails_at(sigma, q, kl, to_arb(eta_l))
        below = None if q < 1 else (1 - G[0], 1 - Pt[0])
        test0 = cell_masses(list(zip(kl, G)), below and below[0])
        test1 = cell_masses(list(zip(kl, Pt)), below and below[1])
    info = {"sampling": "poisson", "eta": eta, "points": max(len(ks), len(kl)),
            "charge_remove": float(atom_R.upper()), "charge_add": float(atom_A.upper())}
    return StepLaws(eta=eta, rem=rem, add=add, charge_R=arb(atom_R.upper()),
                    charge_A=arb(atom_A.upper()), eta_l=eta if eta_l is None else eta_l,
                    test0=test0, test1=test1, alias0=arb(0), alias1=arb(0), info=info)
