"""The numerical kernel, part 3: brackets of a composed privacy profile.  delta(eps) of both
directions as intervals, and epsilon(delta) = the smallest eps >= 0 with delta(eps) <= delta
by certified bisection (each step a certified comparison; an uncertain one counts against
the claim, so the invariant holds either way).  Any profile with ``upper_remove``,
``upper_add``, ``lower_remove`` and ``lower_add`` at exact eps (numerics/compose.py)."""
from __future__ import annotations

import math
from fractions import Fraction

from verifier.core.arith import Interval, ball_bounds, decimal_str, frac_str, to_arb

EPS_MAX = Fraction(60)     # the engines' largest eps (their Range objects say the same)


def delta_interval(lo, hi) -> Interval:
    """The bracket of a delta(eps) from its two balls; a ball that is not finite (the
    engine lost it at its range's edges) gives the trivial end: delta(eps) is a hockey-stick
    divergence with e^eps >= 1, so 0 <= delta(eps) <= 1 always."""
    from verifier.core.arith import ball_bounds, representable
    low = ball_bounds(lo)[0] if lo is not None and representable(lo) else Fraction(0)
    high = ball_bounds(hi)[1] if representable(hi) else Fraction(1)
    return Interval(max(low, Fraction(0)), min(high, Fraction(1)))


def floor_log2(q: Fraction) -> int:
    """floor(log2(q)) for a rational q > 0, exactly (a float of q underflows to 0 below
    2^-1074: a 1000-digit width)."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if (n < d << e) if e >= 0 else (n << -e < d):
        e -= 1
    return e


def certified_bisection(compare, width, eps_max) -> tuple[Interval | None, int]:
    """(bracket of the smallest eps >= 0 with delta(eps) <= delta, evaluations) for a
    nonincreasing delta by certified bisection: compare(eps) -> +1 (delta(eps) > delta
    certain), -1 (<= delta certain) or 0 (undecided at its precision cap).  [0, 0] where
    compare(0) is -1; None where no eps <= eps_max is certified to meet delta (an undecided
    end included).  Each end certified: compare(lower) = +1 (or lower = 0), compare(upper) =
    -1; halved until upper - lower <= width(lower, upper) or a midpoint is undecided (the
    bracket so far), the midpoints rounded to dyadics a sixteenth of the width."""
    n = 1
    if compare(Fraction(0)) < 0:
        return Interval(Fraction(0), Fraction(0)), n
    lo, hi = Fraction(0), Fraction(1)
    while True:
        n += 1
        c = compare(hi)
        if c < 0:
            break
        if c == 0 or hi >= eps_max:
            return None, n                          # no certified upper end: inconclusive
        lo, hi = hi, min(2 * hi, Fraction(eps_max))
    while hi - lo > width(lo, hi):
        k = max(0, -floor_log2(Fraction(width(lo, hi))) + 4)
        mid = Fraction(math.floor((lo + hi) / 2 * 2 ** k), 2 ** k)
        if not lo < mid < hi:
            break
        n += 1
        c = compare(mid)
        if c == 0:
            break                                   # undecided at the cap: keep [lo, hi]
        lo, hi = (mid, hi) if c > 0 else (lo, mid)
    return Interval(lo, hi), n


def larger_direction(r: Interval, a: Interval) -> str:
    if r.lower > a.upper:
        return "remove"
    if a.lower > r.upper:
        return "add"
    return "undecided"


def directions(P, eps: Fraction) -> tuple[Interval, Interval]:
    """(remove, add) brackets of delta(eps) from composed laws P."""
    return (delta_interval(P.lower_remove(eps), P.upper_remove(eps)),
            delta_interval(P.lower_add(eps), P.upper_add(eps)))


def bisect(good, bad: Fraction, ok: Fraction, rel: Fraction, absolute: Fraction,
           guide=None) -> tuple[Fraction, Fraction]:
    """Shrink (bad, ok) with good(ok) True and good(bad) False (both certified) until
    ok - bad <= max(absolute, rel * ok); return (bad, ok).  good(x) is a certified
    statement; an uncertain evaluation counts as not good (the invariant holds either way).

    ``guide(x)``: a float read off good(x)'s own evaluation (after it), about 0 where good
    turns (e.g. log(delta(x) / delta)); it only picks the next point (a free parameter:
    every point keeps the invariant).  With it the next point is the secant root of the two
    ends' values, aimed 0.45 of the tolerance past it toward the end that did not move last
    (two steps then close the bracket around an accurate root); where one end moved twice
    running (a curved guide: secant steps stay on one side), past it by twice the root's
    last correction; a midpoint follows POOR_STEPS guided steps that did not halve the
    bracket.  Measured: the certified epsilon search's ends at sigma 1, q 1e-3, T 1e3,
    76 -> 27 (docs/THEORY.md section 9)."""
    f_bad, f_ok = _read(guide, bad), _read(guide, ok)
    last, same, poor, before = 0, 0, 0, None   # last: the end the last step moved (+1 ok,
    #                                            -1 bad), same: how many times running
    while (w := ok - bad) > (tol := max(absolute, rel * ok)):
        mid, guided = _dyadic((bad + ok) / 2), False
        if guide is not None and poor < POOR_STEPS and f_bad > f_ok:   # (False with a nan)
            root = float(ok) - f_ok * float(w) / (f_ok - f_bad)
            past = 0.45 * float(tol)
            if same >= 2 and before is not None:   # one end moved twice running: past the
                past = max(past, 2 * abs(root - before))        # root by its last correction
            before = root
            for aim in (root - last * past, root + last * past):
                if math.isfinite(aim) and float(bad) < aim < float(ok) and \
                        bad < _dyadic(Fraction(aim)) < ok:
                    mid, guided = _dyadic(Fraction(aim)), True
                    break
        if not bad < mid < ok:
            break
        moved = 1 if good(mid) else -1
        same = same + 1 if moved == last else 1
        if moved == 1:
            ok, f_ok = mid, _read(guide, mid)
        else:
            bad, f_bad = mid, _read(guide, mid)
        last = moved
        poor = poor + 1 if guided and ok - bad > w / 2 else 0     # (a midpoint: 0 again)
    return bad, ok


POOR_STEPS = 3     # guided steps that did not halve the bracket before a bisection step


def _dyadic(x: Fraction) -> Fraction:
    """x rounded down to a multiple of 2^-40 (where its denominator is larger)."""
    return Fraction(math.floor(x * 2 ** 40), 2 ** 40) if x.denominator > 2 ** 40 else x


def _read(guide, x) -> float:
    v = None if guide is None else guide(x)
    return math.nan if v is None else v


def log_ratio(v, d) -> float:
    """log(v / d) in floats for a ball end v and delta d > 0 (a guide: choices only); v = 0
    reads as far below (-1e3), a negative or not finite v as nan (no guide)."""
    try:
        x = float(v)
    except (TypeError, ValueError, OverflowError):
        return math.nan
    if not x > 0 or not math.isfinite(x):
        return -1e3 if x == 0 else math.nan
    return math.log(x) - math.log(float(d))


REL, ABS = Fraction(1, 10 ** 6), Fraction(1, 10 ** 11)
BISECTION_SHARE = 100  # a requested width's share left to the bisection of epsilon(delta)


def bisection_rel(rel_width: Fraction | None) -> Fraction:
    """The bisection's relative tolerance for a requested relative width: REL, or
    1/BISECTION_SHARE of a narrower request (a bisection step costs O(1) evaluations of the
    composed profile: the width is left to the engine, whose lattice refines for it)."""
    return REL if rel_width is None else min(REL, Fraction(rel_width) / BISECTION_SHARE)


def epsilon_direction(P, which: str, delta: Fraction, eps_max: Fraction = EPS_MAX,
                      rel: Fraction = REL):
    """(lo, hi) with delta_which(hi) <= delta certified (hi None if none in [0, 60]) and
    delta_which(lo) > delta certified (lo = 0 when not even eps = 0 is certified above).
    ``P`` is any composed profile (upper_remove, upper_add, lower_remove, lower_add)."""
    from verifier.core.arith import to_arb
    up = P.upper_remove if which == "remove" else P.upper_add
    low = P.lower_remove if which == "remove" else P.lower_add
    d = to_arb(delta)
    f_up, f_low = {}, {}       # the evaluations' floats, to guide the bisections

    def below(e):              # certified: delta_which(e) <= delta
        U = up(e)
        f_up[e] = log_ratio(U.upper(), delta)
        return bool(U <= d)

    def above(e):              # certified: delta_which(e) > delta
        L = low(e)
        f_low[e] = log_ratio(L.lower(), delta)
        return bool(L > d)
    if below(Fraction(0)):
        return Fraction(0), Fraction(0)
    bad, hi = Fraction(0), None
    for e in (Fraction(1, 8), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4),
              Fraction(8), Fraction(16), Fraction(32), eps_max):
        if below(e):
            hi = e
            break
        bad = e
    if hi is None:
        return None, None
    hi = bisect(below, bad, hi, rel, ABS * rel / REL, guide=f_up.get)[1]
    if not above(Fraction(0)):
        return Fraction(0), hi
    above(hi)                  # (its float guides the search below: hi is never above)
    # bisect with good = "not certified above": its bad end stays certified above
    lo = bisect(lambda e: not above(e), Fraction(0), hi, rel, ABS * rel / REL,
                guide=f_low.get)[0]
    return lo, hi




def epsilon_search(make_profile, delta: Fraction, guess: float, caps=(4, 16, 32, 61),
                   slack: float = 4, rel: Fraction = REL,
                   failed: set | None = None) -> tuple[dict, object]:
    """Both directions' epsilon(delta) brackets ({"remove": Interval | None, "add": ...},
    the profile used).  ``make_profile(cap)`` composes laws whose windows are sized for
    eps <= cap (valid beyond, only looser); the search starts at the smallest cap above the
    float ``guess`` and moves up when an answer lies beyond cap + slack.  ``failed``: the
    caps where a search of the same quantity (a coarser lattice) found an answer beyond
    them, not started at again, and updated here (a free parameter: every cap is valid;
    sigma 0.35, q 0.01, 120 steps, epsilon 18.7 had no upper end within cap 16 + 4 and
    composed every refined step twice, at 16 and at 61)."""
    failed = set() if failed is None else failed
    cap = next(c for c in caps if (guess <= c + slack and c not in failed) or c == caps[-1])
    while True:
        P = make_profile(cap)
        res = {w: epsilon_direction(P, w, delta, rel=rel) for w in ("remove", "add")}
        his = [hi for _, hi in res.values()]
        if all(hi is not None and hi <= cap + slack for hi in his) or cap == caps[-1]:
            break
        failed.add(cap)
        # the next cap's wider windows: a certified (if loose) upper end already found
        # tells which cap it needs; without one, the next
        known = max(his) if all(hi is not None for hi in his) else None
        cap = next(c for c in caps if c > cap and (known is None or known <= c + slack
                                                   or c == caps[-1]))
    return {w: (None if hi is None else Interval(lo, hi)) for w, (lo, hi) in res.items()}, P


def next_guess(guess: float, ivs: dict | None) -> float:
    """The float guess a refined lattice's epsilon search starts from (a free parameter: it
    only picks the first eps cap): the last search's certified upper end where both
    directions found one, else ``guess``.  A Renyi guess can stand far above the answer
    (sigma 0.35, q 0.01, 120 steps: 47.6 for epsilon 18.7), and every refined step then
    composed at cap 61, about 65 bits more than cap 16 needs, at twice the memory."""
    if ivs is None or any(iv is None for iv in ivs.values()):
        return guess
    return float(max(iv.upper for iv in ivs.values()))


def both_directions(ivs: dict) -> tuple:
    """(bracket of the larger of the two directions' epsilons or None, which is larger):
    delta = max of the two directions, so epsilon(delta) = max of their epsilons."""
    r, a = ivs["remove"], ivs["add"]
    if r is None or a is None:
        return None, "undecided"
    return Interval(max(r.lower, a.lower), max(r.upper, a.upper)), larger_direction(r, a)


def relative_width(iv: Interval) -> str:
    """(upper - lower) / lower, rounded up, as a decimal string ("inf" when lower = 0 < upper)."""
    if iv.lower > 0:
        return decimal_str((iv.upper - iv.lower) / iv.lower, 6, "up")
    return "inf" if iv.upper > 0 else "0"


def epsilon_json(epsilon: Interval | None, remove: Interval | None, add: Interval | None,
                 larger: str) -> dict:
    """The JSON of an epsilon(delta) answer of either engine: the bracket, its status, both
    directions, the larger one, its widths."""
    def d(iv):
        return None if iv is None else {"epsilon": iv.to_json()}
    e = epsilon
    return {"epsilon": None if e is None else e.to_json(),
            "status": "bracketed" if e is not None else "inconclusive",
            "directions": {"remove": d(remove), "add": d(add)},
            "larger_direction": larger,
            "relative_width": None if e is None else relative_width(e),
            "absolute_width": None if e is None else decimal_str(e.upper - e.lower, 6, "up")}

class Answer:
    """What the epsilon and delta answers of every engine share (a mixin of frozen result
    dataclasses with fields remove, add, larger, info and a class attribute CERTIFIED): the
    attributes behind their JSON keys, so that ``to_json()`` keys are attribute names."""

    @property
    def larger_direction(self) -> str:
        return self.larger

    @property
    def certified(self) -> str:
        return self.CERTIFIED

    @property
    def engine(self) -> dict:
        def plain(v):               # Fractions as exact decimals, nested dicts too (k of M's
            if isinstance(v, dict):                  # "upper": its reduction's engine)
                return {k: plain(x) for k, x in v.items()}
            return frac_str(v) if isinstance(v, Fraction) else v
        return plain(self.info)


class EpsilonAnswer(Answer):
    """An epsilon(delta) answer: ``epsilon`` an Interval or None (inconclusive)."""

    @property
    def bracketed(self) -> bool:
        return self.epsilon is not None

    @property
    def status(self) -> str:
        return "bracketed" if self.bracketed else "inconclusive"

    @property
    def directions(self) -> dict:
        return {"remove": self.remove, "add": self.add}

    @property
    def relative_width(self) -> str | None:
        return None if self.epsilon is None else relative_width(self.epsilon)

    @property
    def absolute_width(self) -> str | None:
        e = self.epsilon
        return None if e is None else decimal_str(e.upper - e.lower, 6, "up")

    def answer_json(self) -> dict:
        return {**epsilon_json(self.epsilon, self.remove, self.add, self.larger),
                "certified": self.certified, "seconds": round(self.seconds, 3),
                "engine": self.engine}


class DeltaAnswer(Answer):
    """A delta(eps) answer: ``delta`` the larger direction's Interval."""

    @property
    def directions(self) -> dict:
        return {"remove": self.remove, "add": self.add}

    @property
    def relative_width(self) -> str:
        return relative_width(self.delta)

    def answer_json(self) -> dict:
        return {"delta": self.delta.to_json(),
                "directions": {"remove": {"delta": self.remove.to_json()},
                               "add": {"delta": self.add.to_json()}},
                "larger_direction": self.larger, "relative_width": self.relative_width,
                "certified": self.certified, "seconds": round(self.seconds, 3),
                "engine": self.engine}


def check_rel_width(rel, default=None):
    """A requested relative width in [1e-9, 1/10] (by the float policy; ``default`` when
    None); one line otherwise.  The one parser of --rel-width / rel_width= for every engine."""
    from verifier.core.arith import InputError, parse_exact
    if rel is None:
        return default
    w = parse_exact(rel, "rel-width")
    if not Fraction(1, 10 ** 9) <= w <= Fraction(1, 10):
        raise InputError(f"rel-width must be in [1e-9, 0.1], got {str(rel)[:40]}")
    return w


def negative_eps_delta(c, delta_other):
    """One direction's delta at eps = -e from the other direction's delta at e, c = e^-e:
    delta_R(-e) = 1 - c + c delta_A(e) and delta_A(-e) = 1 - c + c delta_R(e) (E_P0 L = 1;
    proof check tradeoff.negative-eps derives both and verifies this function, called with
    SymPy symbols)."""
    return 1 - c + c * delta_other


def mirrored(rem: Interval, add: Interval, e: Fraction) -> tuple[Interval, Interval]:
    """(remove, add) brackets of delta at eps = -e (e > 0) from the two directions' brackets
    at e, by ``negative_eps_delta`` with c = e^-e (increasing in the other direction's delta,
    so each end maps to the same end), outward in Arb and cut to [0, 1]."""
    from flint import ctx
    with ctx.workprec(128):
        c = (-to_arb(e)).exp()

        def at(iv: Interval) -> Interval:
            lo = ball_bounds(negative_eps_delta(c, to_arb(iv.lower)))[0]
            hi = ball_bounds(negative_eps_delta(c, to_arb(iv.upper)))[1]
            return Interval(min(max(lo, Fraction(0)), Fraction(1)), min(max(hi, Fraction(0)), Fraction(1)))
        return at(add), at(rem)
