"""The Rényi curve of the random-allocation pair, its zCDP compression and the conversions to
(epsilon, delta), every number certified (docs/THEORY.md section 10).

Directions (the notation of arXiv 2610.02414 v1, one ordered pair):
    remove  D_a(P1 || P0) = log E_P0[Ybar^a] / (a - 1)
    add     D_a(P0 || P1) = log E_P0[Ybar^{1-a}] / (a - 1) = log E_P1[(1/Ybar)^a] / (a - 1)
E epochs: E times the one-epoch value (additivity of Rényi divergence over products; van
Erven & Harremoës, IEEE Trans. Inf. Theory 60 (2014), Theorem 28: cited).

Where each end comes from:
- integer a, remove: exact (``moments.integer_moments``), a ball;
- real a, both directions: the privacy profile of one epoch through the identity
  (Taylor's formula with integral remainder for x^a, x >= 0; proof check renyi.profile-moment)

      E_P0[L^a]   = 1 + a(a-1) [ int_0^inf e^{(a-1)e} delta_R(e) de + int_0^inf e^{-a e} delta_A(e) de ]
      E_P1[L^-a]  = 1 + a(a-1) [ int_0^inf e^{(a-1)e} delta_A(e) de + int_0^inf e^{-a e} delta_R(e) de ]

  on the cover of ``grid.ProfileGrid`` (monotone in e: each cell between the lower end at
  its right and the upper end at its left), the tails beyond the grid by the moment bounds
  (``grid.profile_moments``);
- real a <= min(256, 160 sigma^2) on request (a relative width): the Laplace transform of
  one lognormal (``bounds/laplace.py``, THEORY section 10b), both directions, 1e-10 and finer;
- across the orders computed: D_a is nondecreasing in a (van Erven & Harremoës 2014,
  Theorem 3: cited), so each lower end is at least every smaller order's, each upper end at
  most every larger order's (``_monotone``);
- remove, real a between integers: also log-convexity of s -> log E[Ybar^s] (Hölder /
  Lyapunov, cited) from the exact integer moments; the bracket is the intersection;
- remove, every a: Jensen, E[Ybar^a] <= E[Y^a], so D_a <= a u / 2;
- add, every a: the arithmetic-geometric mean, D_a <= u/2 + (a - 1) u / (2M).

zCDP: rho = sup_{a > 1} D_a / a (Bun & Steinke 2016).  Remove: rho_R = u/2 exactly — Jensen
gives D_a / a <= u/2, and keeping one of the M^a terms of the partition sum,
E[Ybar^a] >= M^-a e^{a(a-1)u/2}, gives D_a / a >= u/2 - log(M)/(a - 1) -> u/2 (proof check
renyi.zcdp-remove).  So rho = E/(2 sigma^2) for every M: compressing to zCDP keeps none of
the amplification by random allocation.  Add: a cover of (1, inf) by a ladder of orders
(D_a nondecreasing in a, van Erven & Harremoës Theorem 3, cited: on (a_i, a_{i+1}],
D_a / a <= D_{a_{i+1}} / a_i), the arithmetic-geometric bound beyond the last order.

Conversions (upper bounds of epsilon(delta), each direction, then the larger):
    classical  eps = D_a + log(1/delta) / (a - 1)                   (Mironov 2017, Proposition 3)
    improved   eps = D_a + log((a-1)/a) - (log delta + log a)/(a - 1)
               (Balle et al. 2020, Theorem 21; Canonne, Kamath & Steinke 2020, Proposition 12;
               arXiv 2610.02414 v1, (3.5) and Lemma B.1, proof check renyi.hockey-stick-chernoff)
optimised over the orders computed (any order gives a valid bound).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import InputError, Interval, decimal_str, frac_str, to_arb
from verifier.views.conversions import Conversion, ball_down as _dn, ball_up as _up, convert, zcdp_convert
from verifier.views.grid import PREC, ProfileGrid, profile_moments
from verifier.bounds import laplace as LP
from verifier.bounds.moments import integer_moments

DEFAULT_ORDERS = tuple(Fraction(x) for x in
                       ("1.25", "1.5", "1.75", "2", "2.5", "3", "3.5", "4", "5", "6", "8", "10",
                        "12", "16", "20", "24", "32", "48", "64", "96", "128", "192", "256"))
MAX_ORDER = 1024
# The float RDP accountants' default orders, so that none of them converts the same
# divergences to a smaller epsilon than ours (issue 47): Opacus's RDPAccountant.DEFAULT_ALPHAS
# (opacus/accountants/rdp.py, v1.4-1.5) [1 + x/10 for x in 1..99] + [12..63], and
# dp_accounting's RdpAccountant.DEFAULT_RDP_ORDERS (dp_accounting/rdp/rdp_privacy_accountant.py)
# [1 + x/10 for x in 1..99] + [11..63] + [128, 256, 512, 1024]; the orders exact rationals
# (11/10, not the float 1.1000000000000000888).
OPACUS_ORDERS = tuple([Fraction(10 + x, 10) for x in range(1, 100)]
                      + [Fraction(a) for a in range(12, 64)])
DP_ACCOUNTING_ORDERS = tuple([Fraction(10 + x, 10) for x in range(1, 100)]
                             + [Fraction(a) for a in range(11, 64)]
                             + [Fraction(a) for a in (128, 256, 512, 1024)])
FLOAT_ACCOUNTANT_ORDERS = tuple(sorted(set(OPACUS_ORDERS) | set(DP_ACCOUNTING_ORDERS)))
CONVERSION_ORDERS = tuple(sorted(set(DEFAULT_ORDERS) | set(FLOAT_ACCOUNTANT_ORDERS)))
# the integer moments computed (and the Chernoff orders n passed to chernoff_k) go up to
# ceil(order) + 3 <= MAX_ORDER + 3 (proof check renyi.hockey-stick-chernoff covers them all)
MOMENT_ORDER_SLACK = 3
MAX_MOMENT_ORDER = MAX_ORDER + MOMENT_ORDER_SLACK


@dataclass(frozen=True)
class RenyiOrder:
    alpha: Fraction
    remove: Interval          # D_alpha(P1^E || P0^E)
    add: Interval             # D_alpha(P0^E || P1^E)
    method: str

    def to_json(self) -> dict:
        return {"alpha": frac_str(self.alpha), "remove": self.remove.to_json(),
                "add": self.add.to_json(), "method": self.method}


@dataclass(frozen=True)
class RenyiCurve:
    sigma: Fraction
    steps: int
    epochs: int
    orders: tuple                         # RenyiOrder, by increasing alpha
    zcdp_remove: Interval
    zcdp_add: Interval
    info: dict = field(default_factory=dict)

    @property
    def rho(self) -> Interval:
        """The zCDP parameter of the pair (the larger direction; remove, exactly u E / 2)."""
        r, a = self.zcdp_remove, self.zcdp_add
        return Interval(max(r.lower, a.lower), max(r.upper, a.upper))

    def at(self, alpha) -> RenyiOrder:
        q = Fraction(alpha)
        for o in self.orders:
            if o.alpha == q:
                return o
        raise InputError(f"order {alpha} was not computed")

    def to_epsilon(self, delta, improved: bool = True) -> Conversion:
        """The Rényi curve's (epsilon, delta) guarantee, optimised over the computed orders
        (delta: a decimal string, int, Fraction, or a float read as it prints)."""
        return convert(self.orders, _delta(delta), improved)

    def zcdp_epsilon(self, delta, improved: bool = True) -> Conversion:
        return zcdp_convert(self.rho, _delta(delta), improved)

    @property
    def zcdp(self) -> dict:
        """The zCDP parameter of each direction and of the pair."""
        return {"remove": self.zcdp_remove, "add": self.zcdp_add, "rho": self.rho}

    @property
    def certified(self) -> str:
        return CERTIFIED

    @property
    def engine(self) -> dict:
        return dict(self.info)

    def to_json(self, delta: Fraction | None = None) -> dict:
        out = {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs,
               "orders": [o.to_json() for o in self.orders],
               "zcdp": {**{k: v.to_json() for k, v in self.zcdp.items()},
                        "note": "remove: rho = E u / 2 exactly (Jensen above, one term of the "
                                "partition sum below, a -> inf); add: a cover of all orders"},
               "certified": self.certified, "engine": self.engine}
        if delta is not None:
            out["conversions"] = conversions_json(self, delta)
        return out


def _delta(d) -> Fraction:
    from verifier.core.arith import parse_delta
    return parse_delta(d)


CERTIFIED = ("rigorous brackets: integer orders of the remove direction exact (Arb), real orders "
             "and the add direction through the certified privacy profile of one epoch "
             "(docs/THEORY.md section 10); E epochs by additivity")


def conversions_json(curve: RenyiCurve, delta: Fraction) -> dict:
    return {"delta": frac_str(delta),
            "renyi_classical": curve.to_epsilon(delta, improved=False).to_json(),
            "renyi_improved": curve.to_epsilon(delta).to_json(),
            "zcdp_classical": curve.zcdp_epsilon(delta, improved=False).to_json(),
            "zcdp_improved": curve.zcdp_epsilon(delta).to_json()}


# ---------------------------------------------------------------- one-epoch divergences
def _div(lo: arb, hi: arb, alpha: Fraction) -> tuple:
    """(lower, upper) of log(m) / (a - 1) for m between the balls lo and hi (m >= 1 by
    Jensen: E W = 1 and x^a is convex); upper None when hi is not finite."""
    with ctx.workprec(PREC):
        t = to_arb(alpha - 1)
        low = arb(lo.lower())
        lval = _dn(low.log() / t) if low > 1 else Fraction(0)
        hval = _up(arb(hi.upper()).log() / t) if hi.is_finite() else None
        return lval, hval


def _meet(lo, hi, d):
    """The intersection of (lo, hi) with a bracket d (None: nothing; an upper end None: none)."""
    return (lo, hi) if d is None else (max(lo, d[0]), hi if d[1] is None else min(hi, d[1]))


def _chord(p0: arb, p1: arb, f: arb) -> arb:
    """The chord of the convex phi between n and n + 1 at n + f: an upper end of phi(n + f)."""
    return (1 - f) * p0 + f * p1


def rho_remove(sigma: Fraction, E: int) -> Fraction:
    """The zCDP parameter of the remove direction: E u / 2 = E / (2 sigma^2), exactly, for
    every M (module docstring; proof check renyi.zcdp-remove)."""
    return Fraction(E) / (2 * sigma ** 2)


def _gaussian(M: int) -> bool:
    """M = 1: the Gaussian mechanism, whose two directions coincide (the reflection)."""
    return M == 1


def one_epoch(sigma: Fraction, M: int, orders, grid: ProfileGrid | None, moments, laplace=None):
    """[(alpha, (rem_lo, rem_hi), (add_lo, add_hi), method)] of one epoch (``laplace``: a
    relative width asked of the Laplace engine at the orders `laplace.applies` admits)."""
    with ctx.workprec(PREC):
        u = 1 / to_arb(sigma) ** 2
        phi = [m.log() for m in moments]                       # log E[W^n]
    from verifier.core.progress import report
    out = []
    for i, a in enumerate(orders):
        report(f"Rényi divergences at sigma = {decimal_str(sigma, 8)}, M = {M}: order "
               f"{decimal_str(a, 8)}", i, len(orders))
        methods = []
        with ctx.workprec(PREC):
            au = to_arb(a)
            jensen = _up(au * u / 2)
            amgm = _up(u / 2 + (au - 1) * u / (2 * M))
        r_lo, r_hi, a_lo, a_hi = Fraction(0), jensen, Fraction(0), amgm
        if a.denominator == 1 and a < len(moments):
            lo, hi = _div(moments[int(a)], moments[int(a)], a)
            r_lo, r_hi = max(r_lo, lo), min(r_hi, hi)
            methods.append("exact (integer order)")
        elif a + 2 < len(moments):
            n = math.floor(a)
            with ctx.workprec(PREC):
                fa, t = to_arb(a - n), to_arb(a - 1)
                up = _chord(phi[n], phi[n + 1], fa) / t
                lows = [phi[n + 1] - (1 - fa) * (phi[n + 2] - phi[n + 1])]
                if n >= 1:
                    lows.append(phi[n] + fa * (phi[n] - phi[n - 1]))
                lo = max(_dn(x / t) for x in lows)
            r_lo, r_hi = max(r_lo, lo), min(r_hi, _up(up))
            methods.append("log-convexity of the integer moments")
        if grid is not None:
            rem, add = profile_moments(grid, a)
            if a + 2 < len(grid.mom):
                lo, hi = _div(rem[0], rem[1], a)
                r_lo = max(r_lo, lo)
                r_hi = min(r_hi, hi) if hi is not None else r_hi
            lo, hi = _div(add[0], add[1], a)
            a_lo = max(a_lo, lo)
            a_hi = min(a_hi, hi) if hi is not None else a_hi
            methods.append("privacy-profile integral")
        if laplace is not None and LP.applies(a, sigma):
            rem, add = LP.divergences(sigma, M, a, laplace, moments, (r_lo, a_lo))
            (r_lo, r_hi), (a_lo, a_hi) = _meet(r_lo, r_hi, rem), _meet(a_lo, a_hi, add)
            methods.append("Laplace transform of one lognormal")
        if r_lo > r_hi or a_lo > a_hi:          # two certified brackets that do not meet
            raise AssertionError(f"inconsistent Rényi brackets at alpha = {a}")
        out.append((a, (r_lo, r_hi), (a_lo, a_hi), "; ".join(methods) or "bounds"))
    return out


def zcdp_add(sigma: Fraction, M: int, grid: ProfileGrid, rows) -> Interval:
    """rho_A = sup_{a > 1} D_a(P0 || P1) / a of one epoch: lower end the best computed order,
    upper end a cover of (1, inf) (module docstring)."""
    ladder = sorted({Fraction(1) + Fraction(1, 64)} |
                    {Fraction(round(2 ** (k / 4) * 64), 64) for k in range(1, 49)})
    ladder = [a for a in ladder if a > 1]
    cover = one_epoch(sigma, M, ladder, grid, [arb(1)])
    lo = max(max(Fraction(r[2][0]) / r[0] for r in rows), max(r[2][0] / r[0] for r in cover))
    with ctx.workprec(PREC):
        u = 1 / to_arb(sigma) ** 2
        hi = cover[0][2][1]                                      # (1, a_1]: D_{a_1} / 1
        for (a0, _, _, _), (a1, _, add1, _) in zip(cover, cover[1:]):
            hi = max(hi, add1[1] / a0)
        A = to_arb(ladder[-1])
        tail = _up(u / 2 * (M + A - 1) / (M * A))               # a >= a_last: AM-GM
        hi = max(hi, tail)
        hi = min(hi, _up(u / 2))                                  # AM-GM at every order
    return Interval(lo, hi)


def renyi_curve(sigma: Fraction, M: int, E: int, orders=None, with_profile: bool = True,
                refine_delta: Fraction | None = None, fine: int = 1, laplace=None):
    """The certified Rényi curve of (sigma, M, E) at ``orders`` (default DEFAULT_ORDERS).
    With ``refine_delta`` the orders near the best (epsilon, refine_delta) conversion of
    each direction are added (ratios 2^{k/16}).  ``fine``: the grid's level, ``laplace``: a
    relative width asked of the Laplace engine (api.views.rdp)."""
    import time
    from verifier.bounds.profile import check_range
    check_range(sigma, M, E)
    t0 = time.perf_counter()
    orders = sorted({Fraction(a) for a in (orders or DEFAULT_ORDERS)})
    for a in orders:
        if not 1 < a <= MAX_ORDER:
            raise InputError(f"Rényi order {decimal_str(a, 12)} is outside (1, {MAX_ORDER}]")
    amax = max(66, math.ceil(max(orders)) + MOMENT_ORDER_SLACK,
               max((math.ceil(a) for a in orders if LP.applies(a, sigma)), default=0)
               + LP.TAYLOR + 2 if laplace else 0)
    moments = integer_moments(sigma, M, amax, PREC + 2 * amax.bit_length())
    grid = ProfileGrid(sigma, M, 1, fine=fine) if with_profile else None
    rows = one_epoch(sigma, M, orders, grid, moments, laplace)
    if refine_delta is not None:
        extra = set()
        for k in (1, 2):
            cur = _scaled(rows, E)
            best = convert(cur, refine_delta).alpha
            extra |= {Fraction(round(float(best) * 2 ** (j / 2 ** (k + 2)) * 256), 256)
                      for j in range(-4, 5)}
            extra = {a for a in extra if 1 < a <= MAX_ORDER and a not in {r[0] for r in rows}}
            rows = sorted(rows + one_epoch(sigma, M, sorted(extra), grid, moments, laplace))
            extra = set()
    rows = _monotone(rows)
    if _gaussian(M):
        # the Gaussian pair: the reflection x -> 1/sigma - x exchanges P0 and P1 (proof check
        # profile.gaussian-symmetry), so both directions have the same divergence
        rows = [(a, (max(r[0], d[0]), min(r[1], d[1])), (max(r[0], d[0]), min(r[1], d[1])), m)
                for a, r, d, m in rows]
    out = _scaled(rows, E)
    rho_r = rho_remove(sigma, E)
    if _gaussian(M):
        za = Interval(rho_r, rho_r)
    elif grid is not None:
        za1 = zcdp_add(sigma, M, grid, rows)
        za = Interval(E * za1.lower, E * za1.upper)
    else:
        za = Interval(Fraction(0), rho_r)
    info = {"grid_points": len(grid.eps) if grid else 0,
            "grid_top": frac_str(grid.top) if grid else None,
            "moments_up_to": amax, "seconds": round(time.perf_counter() - t0, 3),
            **({"refinement": fine} if fine > 1 else {}),
            **({"laplace_rel_width": laplace} if laplace else {})}
    return RenyiCurve(sigma, M, E, tuple(out), Interval(rho_r, rho_r), za, info)


def _monotone(rows):
    """Rows by increasing order with each direction's lower ends raised to the largest lower
    end of a smaller order and upper ends lowered to the smallest upper end of a larger one
    (D_a nondecreasing in a: module docstring)."""
    rows = sorted(rows)
    out = [[a, list(r), list(d), m] for a, r, d, m in rows]
    for k in (1, 2):
        for i in range(1, len(out)):
            out[i][k][0] = max(out[i][k][0], out[i - 1][k][0])
        for i in range(len(out) - 2, -1, -1):
            out[i][k][1] = min(out[i][k][1], out[i + 1][k][1])
    if any(x[k][0] > x[k][1] for x in out for k in (1, 2)):    # certified brackets that
        raise AssertionError("Rényi brackets not monotone in the order")   # do not meet
    return [(a, tuple(r), tuple(d), m) for a, r, d, m in out]


def _scaled(rows, E: int):
    E_ = Fraction(E)
    return [RenyiOrder(a, Interval(E_ * r[0], E_ * r[1]), Interval(E_ * d[0], E_ * d[1]), m)
            for a, r, d, m in rows]
