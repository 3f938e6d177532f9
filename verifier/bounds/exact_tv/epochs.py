"""E epochs of the exact TV, bracketed rigorously, on the lattice variables of exact_one.py.

TV_E(sigma, M) = E_P0[(prod_e Ybar_e - 1)_+] (docs/THEORY.md section 1; the E-fold products of
P0 and P1, arXiv 2605.06259 v1 section 2).  Each epoch's Ybar is at most, in convex order,
W = (spread body items + items above T1) / M (exact_one.py); (prod w_e - 1)_+ is convex in
each factor, so TV_E <= E[(prod_e W_e - 1)_+] for independent W_e, and:

Upper end.  Split on the events I_e = {epoch e has an item above T1} (K_e >= 1):
  no I_e:   the W_e are i.i.d. copies of Z = B_M h / M (B_M: sum of M spread body items, a
            ball-arithmetic DFT), weighted by P(K = 0)^E.  log Z is spread onto a grid of step
            eta (a mean-preserving spread of log Z + d, d >= 0, in a variable in which
            (e^{sum} - 1)_+ is convex and nondecreasing), then the E-fold sum on the grid by
            DFT, its values above x_c charged by e^{-x_c} E[e^{2X}]; values of Z outside a
            kept band cost at most E E[Z 1{outside}] max(1, E Z)^{E-1} (f(prod z) <= prod z,
            union bound);
  some I_e: a union bound with (xy - 1)_+ <= x (y - 1)_+ + (x - 1)_+:
            E[f(prod W); I_e] <= E[W; K >= 1] TV_{E-1}(W) + E[(W - 1)_+; K >= 1], where
            TV_{E-1}(W) <= 1 - (1 - TV_1(W))^{E-1} (composition; W is a likelihood ratio) and
            E[(W - 1)_+; K >= 1] <= U_1 - P(K = 0) Pi_M(0) (the split of exact_one.py).
  T1 is chosen so that this charge stays near 1e-3 of TV_E.

Lower end.  The test {sum_e lambda(R_e) >= 0, every R_e in the windows} on the epochs' label
sums R_e (under P1 one coordinate has the tilted label law E[Y 1{L = j}]); lambda is a
rounded log-likelihood ratio of the two label-sum laws (any lambda gives a valid test); the
two probabilities by DFT, each moved by at most E times the out-of-window mass.

Both ends are intersected with the composition bracket [TV_1, 1 - (1 - TV_1)^E].
Floats only choose free parameters (grid step, band, lambda); every bound is an Arb ball.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.core.arith import Interval, to_arb
from verifier.numerics.lattice import LatticeLaw, centred_window, powers, two_dfts, two_inverse
from verifier.bounds.exact_tv.one_epoch import check_N, setup, upper_one, best_test, check_sigma


# grid points per standard deviation: of one epoch's log-mean (upper end) and of the
# log-likelihood ratio (lower end; the test is the more sensitive to rounding)
GRID_Z, GRID_LR = 24, 64


def _mid(x: arb) -> float:
    return float(x.mid())


def _grid_law_power(sub, E: int):
    """E-fold sum of independent integer variables with sub-probabilities ``sub``
    (dict index -> ball): (kmin, list) with list[s] = P(sum = s + E kmin, all defined),
    by a ball-arithmetic DFT long enough that nothing aliases."""
    kmin, kmax = min(sub), max(sub)
    width = kmax - kmin
    N = min(c << k for k in range(2, 40) for c in (4, 5, 6) if (c << k) >= max(16, E * width + 1))
    x = [acb(0)] * N
    for k, v in sub.items():
        x[k - kmin] = x[k - kmin] + v
    X = acb.dft(x)
    y = acb.dft([z ** E for z in X], inverse=True)
    return kmin, [z.real for z in y[:E * width + 1]]


def _lower_epochs(Q0: LatticeLaw, Q1: LatticeLaw, E: int) -> arb:
    eps = Q0.eps_lo + Q0.eps_up + Q1.eps_lo + Q1.eps_up
    lo_v, hi_v = max(Q0.start, Q1.start), min(Q0.b, Q1.b)
    vals = [(v, Q0.c[v - Q0.start], Q1.c[v - Q1.start]) for v in range(lo_v, hi_v)]
    top = max(_mid(a) for _, a, _ in vals)
    lam = {}
    for v, a, b in vals:
        fa, fb = _mid(a), _mid(b)
        if fa > 1e-25 * top and fb > 1e-25 * top:
            lam[v] = math.log(fb / fa)
    ls = sorted(lam.values())
    sd = max(1e-12, (ls[int(0.84 * len(ls))] - ls[int(0.16 * len(ls))]) / 2)
    eta = sd / GRID_LR
    sub0, sub1 = {}, {}
    for v, a, b in vals:
        if v in lam:
            k = round(lam[v] / eta)
            sub0[k] = sub0.get(k, arb(0)) + a
            sub1[k] = sub1.get(k, arb(0)) + b
    k0, law0 = _grid_law_power(sub0, E)
    k1, law1 = _grid_law_power(sub1, E)
    P0 = sum(law0[max(0, -E * k0):], arb(0))
    P1 = sum(law1[max(0, -E * k1):], arb(0))
    return arb((P1 - P0 - E * eps).lower())


def spread_point(tu: arb):
    """(k, th): the point tu (an exact upper end, in grid units) spread onto the grid points
    k = floor(tu) and k + 1 with masses 1 - th and th, th = tu - k: mean tu, a mean-preserving
    spread of tu (larger in convex order), hence an upper bound for convex nondecreasing f."""
    k = int(tu.floor().unique_fmpz())
    return k, tu - k


def _upper_Z(B0: LatticeLaw, var_b: arb, M: int, h: Fraction, E: int, budget: float) -> arb:
    """E[(prod_e Z_e - 1)_+] for i.i.d. Z = B_M h/M, as in the module docstring."""
    ha, Ma = to_arb(h), arb(M)
    pu, start2, b_edge = B0.c, B0.start, B0.b
    sd_v = float(Interval.of((var_b * M).sqrt()).upper)
    eta = Fraction(sd_v * float(h) / M / GRID_Z).limit_denominator(10**12)
    eta_a = to_arb(eta)
    centre = int(round(_mid(B0.mean)))
    # beyond the window: E[S 1{S >= b}] <= b P(S >= b) + int_b^inf P(S >= v) dv (Chernoff,
    # integrated with its constant: LatticeLaw.tail_up); below it: E[S 1{S < start}] <= start P(S < start)
    beyond = ha / Ma * start2 * B0.eps_lo
    if B0.alias:
        beyond = beyond + ha / Ma * (b_edge * B0.eps_up + B0.tail_up)
    zs = [(start2 + i) * ha / Ma for i in range(len(pu))]
    # E[f(prod Z); Z_e outside] <= E[Z 1{outside}] (E Z)^{E-1}; E Z = E[Y | Y < T1] <= 1
    # unless T1 < 1 (very small sigma): then the factor is kept
    ez = ha * B0.mean / Ma
    ez_pow = arb(1) if ez <= 1 else ez ** (E - 1)
    # keep 8 standard deviations to the left (a light tail: Z >= 0, the body sum is nearly
    # Gaussian there) and widen to the right (the lognormal tail) until the charge is small
    lo_i = max(0, centre - max(1, int(8 * sd_v)) - start2)
    left = sum((pu[i] * zs[i] for i in range(0, lo_i)), arb(0))
    k_sd = 8
    while True:
        hi_i = min(len(pu), centre + max(1, int(k_sd * sd_v)) - start2 + 1)
        outside = left + sum((pu[i] * zs[i] for i in range(hi_i, len(pu))), arb(0))
        charge = E * (outside + beyond) * ez_pow
        if charge < budget or hi_i == len(pu):
            break
        k_sd *= 2
    # spread: t = log(z) / eta as a ball, tu its (exact) upper end, k = floor(tu),
    # th = tu - k in [0, 1): masses (1 - th) at k and th at k + 1 have mean tu >= t
    sub = {}
    kmin_seen = None
    c0 = (ha / Ma).log()
    inv_eta = 1 / eta_a
    one = arb(1)
    for i in range(lo_i, hi_i):
        v = start2 + i
        if v == 0:
            continue
        k, th = spread_point(((arb(v).log() + c0) * inv_eta).upper())
        kmin_seen = k if kmin_seen is None else min(kmin_seen, k)
        sub[k] = sub.get(k, arb(0)) + pu[i] * (one - th)
        sub[k + 1] = sub.get(k + 1, arb(0)) + pu[i] * th
    if start2 == 0 and lo_i == 0:      # Z = 0: moved up to the lowest grid point
        sub[kmin_seen] = sub[kmin_seen] + pu[0]
    # the E-fold sum X on the grid: values above x_c are charged by
    # E[(e^X - 1)_+ 1{X > x_c}] <= E[e^{2X - x_c}] = e^{-x_c} (sum_k sub_k e^{2 k eta})^E,
    # so only values below x_c (whose radii are multiplied by at most e^{x_c}) are summed
    m2 = sum((v * (2 * k * eta_a).exp() for k, v in sub.items()), arb(0))
    x_c = max(1.0, E * math.log(_mid(m2)) + math.log(10 / budget))
    xc_a = to_arb(Fraction(x_c).limit_denominator(10**6))
    kmin, law = _grid_law_power(sub, E)
    U = (-xc_a).exp() * m2 ** E
    for sidx, p in enumerate(law):
        x = (sidx + E * kmin) * eta_a
        if x > xc_a:
            continue
        if x > 0:
            U = U + p * x.expm1()
        elif not x <= 0:
            U = U + p * arb(0).union(arb(x.expm1().upper()))
    return U + charge


def tv_epochs(sigma: Fraction, M: int, E: int, prec: int):
    """(lower, upper) of TV_E and (lower, upper) of TV_1, Arb balls; plus (h, cells, N)."""
    check_sigma(sigma)
    s2 = math.expm1(float(1 / sigma**2))
    scale = min(0.5, math.sqrt(E * s2 / (2 * math.pi * M)))
    # the log-grid stage multiplies absolute radii by up to e^{x_c} (_upper_Z), x_c about
    # ln(1e4 / TV_E) + E ln E[Z^2]: carry that many more bits through the whole computation
    # (at most 1000: beyond, the bracket only widens)
    prec = prec + min(1000, int(1.4427 * (math.log(1e5 / scale) + E * math.log1p(s2 / M))) + 30)

    def union_loss(w, scale):   # E E[W; K >= 1] TV_{E-1} / TV_E, E[W; K >= 1] <= M p + tau = w
        tv_e = max(min(0.5, math.sqrt(E) * scale) * 0.5, 1e-300)
        return E * w * min(1.0, 2 * (E - 1) * scale) / tv_e

    with ctx.workprec(prec):
        S = setup(sigma, M, union_loss)
        L = len(S.bounds) - 1
        J1 = S.J1
        tilted = [(S.bounds[i], S.m[i]) for i in range(L)] + [(J1, S.tau)]
        mu_t = sum((k * v for k, v in tilted), arb(0))
        scale_e = min(0.5, math.sqrt(E) * S.scale)
        eps_target = 1e-3 * scale_e / E
        N = max(centred_window(S.labels, M, eps_target, J1), centred_window(S.body, M, eps_target, J1))
        check_N(N, S, "exact-tv-epochs")
        XL, XB = two_dfts(S.labels, S.body, N)
        XT = two_dfts(tilted, [], N)[0]
        PL = powers(XL, M - 1, prec)
        y1 = two_inverse([a * b for a, b in zip(PL, XL)], [a * b for a, b in zip(PL, XT)], N)
        del PL, XT, XL
        PB = powers(XB, M - 1, prec)
        y2 = two_inverse(PB, [a * b for a, b in zip(PB, XB)], N)
        del PB, XB
        Q0 = LatticeLaw(y1, "real", M, N, S.labels, S.mu_l, J1)
        Q1 = LatticeLaw(y1, "imag", M - 1, N, S.labels, S.mu_l, J1, extra=(tilted, mu_t, J1))
        B1 = LatticeLaw(y2, "real", M - 1, N, S.body, S.mu_b, J1)
        B0 = LatticeLaw(y2, "imag", M, N, S.body, S.mu_b, J1)
        del y1, y2
        # one epoch: the test {sum of the M labels >= K} and the split upper bound
        lo1 = best_test(S, lambda K: Q1.tail_ge(K) - Q0.tail_ge(K))     # P1(A) - P0(A)
        U1, PiM, ntail = upper_one(S, B1)
        U1 = arb(U1.upper())
        # E epochs
        lo_e = _lower_epochs(Q0, Q1, E)
        one_p = 1 - S.p
        P0 = one_p ** M
        var_b = sum(((k - S.mu_b) ** 2 * v for k, v in S.body), arb(0))
        UZ = _upper_Z(B0, var_b, M, S.h, E, 1e-3 * _mid(lo1))
        A = U1 - P0 * PiM                              # E[(W - 1)_+; K >= 1]
        Bw = 1 - P0 * (1 - S.tau) / one_p              # E[W; K >= 1]
        C = 1 - (1 - U1) ** (E - 1)                    # TV_{E-1}(W), composition
        up_e = P0 ** E * UZ + E * (A + Bw * C)
        loose = 1 - (1 - U1) ** E
        up_e = arb(up_e.upper()) if up_e < loose else arb(loose.upper())
        lo_e = lo_e if lo_e > lo1 else lo1
        return (lo_e, up_e, lo1, U1, S.h, len(S.bounds) + ntail, N)
