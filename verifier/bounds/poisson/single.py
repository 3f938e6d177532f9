"""One step of Poisson subsampling (T = 1) in closed form: both directions of delta(eps) to
any width, at the cost of a few Arb evaluations (docs/THEORY.md section 12, "One step in
closed form").

With W = dP/dQ = 1 - q + q e^{Z/sigma - u/2} (Z ~ N(0, 1) under Q = N(0, sigma^2), P = (1 - q) Q
+ q N(1, sigma^2); verifier.symbolic.poisson) increasing in Z, the hockey-stick divergence
sup_S P(S) - e^a Q(S) is attained at S = {W > e^a} (the Neyman-Pearson lemma; cited: Balle &
Wang, ICML 2018, Theorem 5 / Dong, Roth & Su 2019, Proposition 2.12), which is {Z > b(a)} for
e^a > 1 - q (``poisson_loss_threshold``, proof check poisson.loss-threshold):

    remove (P against Q):  delta_R(a) = P(Z >= b(a)) - e^a Q(Z >= b(a)),
    add (Q against P):     delta_A(a) = (1 - Q(Z >= b(-a))) - e^a (1 - P(Z >= b(-a)))
                           for e^-a > 1 - q ({W < e^-a}), else 0 ({W < e^-a} is empty),

the tails from ``poisson_step_tails`` (proof check poisson.mixture-tails), every a >= 0 (a
negative eps is read off the brackets at -eps, numerics.brackets.mirrored).  The same pair
and directions as the lattice engine's (pair.py), which brackets the same two numbers."""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import Interval, to_arb
from verifier.core.decide import decide
from verifier.numerics.brackets import certified_bisection, delta_interval
from verifier.symbolic import derived as D

PREC_CAP = 4096
WIDTH = Fraction(1, 10 ** 30)     # the width asked of delta by default (a few milliseconds)
EPS_WIDTH = Fraction(1, 10 ** 12)  # ... and of epsilon (a bisection step costs one evaluation)
CERTIFIED = ("exact closed form in Arb balls: the hockey stick at the likelihood ratio's "
             "threshold (docs/THEORY.md section 12, one step in closed form)")
INFO = ("one step in closed form (the hockey stick at the likelihood ratio's threshold; "
        "proof checks poisson.loss-threshold and poisson.mixture-tails; docs/THEORY.md "
        "section 12)")


TV_INFO = ("epsilon 0 by the total variation: delta(0) = TV(P^T, Q^T) <= T q erf(1 / (2 sqrt 2 "
           "sigma)) <= delta (docs/THEORY.md section 12, epsilon 0 by the total variation)")


def zero_by_tv(sigma: Fraction, q: Fraction, T: int, delta: Fraction) -> bool:
    """Whether T q erf(1 / (2 sqrt 2 sigma)) <= delta is certified: then both directions'
    delta(0), the total variation of the T-fold products, is at most T times one step's,
    q TV(N(1, sigma^2), N(0, sigma^2)) = q erf(1 / (2 sqrt 2 sigma)), hence at most delta,
    and epsilon(delta) = 0 (docs/THEORY.md section 12: the composed lattice took up to 5 s
    to find the same 0)."""
    return tv_at_most(((sigma, q, T),), (), delta)


def tv_at_most(steps: tuple, epochs: tuple, delta: Fraction) -> bool:
    """Whether sum n q erf(1 / (2 sqrt 2 sigma)) over Poisson steps ``steps`` ((sigma, q, n),
    ...; q = 1: every record) plus sum E erf(1 / (2 sqrt 2 sigma)) over random-allocation
    epochs ``epochs`` ((sigma, M, E), ...) is certified at most delta (Arb, 128 bits): a
    bound of the total variation of their product pair (the sum of the factors'; an epoch's
    at most the Gaussian pair's, of which it is a post-processing: docs/THEORY.md sections
    12 and 15), so delta(0) <= delta in both directions."""
    with ctx.workprec(128):
        tv = lambda s: (1 / (2 * arb(2).sqrt() * to_arb(s))).erf()      # noqa: E731
        total = sum((n * to_arb(q) * tv(s) for s, q, n in steps), arb(0))
        total += sum((E * tv(s) for s, _, E in epochs), arb(0))
        return bool(total <= to_arb(delta))


def zero_intervals() -> dict:
    """Both directions' epsilon(delta) where ``tv_at_most`` holds: exactly 0."""
    return {w: Interval(Fraction(0), Fraction(0)) for w in ("remove", "add")}


def closed_form(T: int) -> bool:
    """Whether the Poisson answer comes from the closed form: one step (T = 1)."""
    return T == 1


def remove_ball(sigma: Fraction, q: Fraction, a: Fraction) -> arb:
    """delta_R(a) as a ball at the working precision, a >= 0."""
    s, qa, aa = to_arb(sigma), to_arb(q), to_arb(a)
    g, p = D.poisson_step_tails(s, qa, D.poisson_loss_threshold(s, qa, aa))
    return p - aa.exp() * g


def add_ball(sigma: Fraction, q: Fraction, a: Fraction) -> arb:
    """delta_A(a) as a ball at the working precision, a >= 0."""
    s, qa, aa = to_arb(sigma), to_arb(q), to_arb(a)
    ea, low = aa.exp(), 1 - qa
    if 1 / ea > low:                        # {W < e^-a} = {Z < b(-a)}
        g, p = D.poisson_step_tails(s, qa, D.poisson_loss_threshold(s, qa, -aa))
        return (1 - g) - ea * (1 - p)
    if 1 / ea <= low:                       # {W < e^-a} is empty
        return arb(0)
    return arb("0.5", "0.5")                # undecided at this precision: 0 <= delta_A <= 1


def direction_balls(sigma: Fraction, q: Fraction, a: Fraction) -> tuple[arb, arb]:
    """(delta_R(a), delta_A(a)) as balls at the working precision, a >= 0."""
    return remove_ball(sigma, q, a), add_ball(sigma, q, a)


def delta_intervals(sigma: Fraction, q: Fraction, a: Fraction,
                    rel_width: Fraction) -> tuple[Interval, Interval]:
    """(remove, add) brackets of delta at a >= 0, each at most rel_width wide relative (or
    below 1e-300 absolute), the precision raised to PREC_CAP otherwise."""
    def at(p):
        with ctx.workprec(p):
            return tuple(delta_interval(b, b) for b in direction_balls(sigma, q, a))

    def settled(ivs):
        return all(iv.upper - iv.lower <= rel_width * iv.lower
                   or iv.upper <= Fraction(1, 10 ** 300) for iv in ivs)
    return decide(at, settled, PREC_CAP, 128)


def _above(sigma: Fraction, q: Fraction, a: Fraction, delta: Fraction, which: int) -> int:
    """+1: delta_which(a) > delta certified; -1: <= delta certified; 0: undecided at the cap."""
    def at(p):
        with ctx.workprec(p):
            v, d = (remove_ball, add_ball)[which](sigma, q, a), to_arb(delta)
            return 1 if v > d else -1 if v <= d else 0
    return decide(at, lambda c: c != 0, PREC_CAP, 128)


def epsilon_direction(sigma: Fraction, q: Fraction, delta: Fraction, which: int,
                      rel_width: Fraction, eps_max) -> Interval | None:
    """The bracket of the smallest eps >= 0 with delta_which(eps) <= delta (which: 0 remove,
    1 add; each nonincreasing in eps) by certified bisection (brackets.certified_bisection),
    at most rel_width max(lower, 1/10) wide; None: no eps <= eps_max is certified."""
    return certified_bisection(lambda e: _above(sigma, q, e, delta, which),
                               lambda lo, hi: rel_width * max(lo, Fraction(1, 10)), eps_max)[0]


def epsilon_intervals(sigma: Fraction, q: Fraction, delta: Fraction,
                      rel_width: Fraction, eps_max) -> dict:
    """{"remove": bracket or None, "add": ...} of each direction's epsilon(delta) up to
    eps_max (the engine's range)."""
    return {w: epsilon_direction(sigma, q, delta, i, rel_width, eps_max)
            for i, w in enumerate(("remove", "add"))}
