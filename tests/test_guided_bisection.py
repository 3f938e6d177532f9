"""The certified bisection guided by its evaluations' floats (numerics.brackets.bisect with
``guide``): the invariant (good at the ok end, not good at the bad end, both evaluated)
holds whatever the guide says; with a faithful guide the search takes a few evaluations
where plain bisection takes about 17."""
import math
from fractions import Fraction as F

from hypothesis import given, strategies as st

from verifier.numerics import brackets as B


def _search(root: float, guide_kind: str, rel=F(1, 10 ** 5), undecided=0.0, lo=F(0),
            hi=F(8)):
    """(bad, ok, evaluations, points): good(x) iff x >= root + undecided (the band below it
    undecided counts as not good), the guide log(delta(x)/delta) of delta = e^{-x^2}
    (faithful), its negation (lying), a constant, or nan."""
    calls, seen = [], {}

    def value(v):
        return {"faithful": root * root - v * v, "lying": v * v - root * root,
                "constant": 1.0, "nan": math.nan}[guide_kind]

    def good(x):
        calls.append(x)
        seen[x] = value(float(x))
        return float(x) >= root + undecided
    seen.update({lo: value(float(lo)), hi: value(float(hi))})   # the ends, evaluated before
    bad, ok = B.bisect(good, lo, hi, rel, F(1, 10 ** 12), guide=seen.get)
    return bad, ok, len(calls), calls


def _bisection_count(root: float, rel=1e-5, lo=0.0, hi=8.0) -> int:
    """Plain bisection's evaluations on (lo, hi) down to rel * root (and one)."""
    return math.ceil(math.log2((hi - lo) / (rel * root))) + 1


@given(st.floats(0.01, 7.9), st.sampled_from(["faithful", "lying", "constant", "nan"]),
       st.floats(0, 1e-3))
def test_the_invariant_holds_whatever_the_guide_says(root, kind, undecided):
    bad, ok, n, calls = _search(root, kind, undecided=undecided)
    assert ok - bad <= max(F(1, 10 ** 12), F(1, 10 ** 5) * ok)
    assert float(ok) >= root + undecided              # good at ok (or ok the start, 8)
    assert float(bad) < root + undecided              # not good at bad (or bad the start, 0)
    assert all(F(0) < x < F(8) for x in calls)        # every probe inside the bracket
    # a bisection step at least every POOR_STEPS + 1 steps
    assert n <= (B.POOR_STEPS + 1) * _bisection_count(root + undecided)


GRID = (F(1, 8), F(1, 2), F(1), F(2), F(4), F(8))    # epsilon_direction's first probes


def test_a_faithful_guide_takes_a_few_evaluations_where_bisection_takes_14_or_more():
    """From the bracket epsilon_direction's grid leaves, (bad, ok) two neighbouring grid
    points, both evaluated."""
    for root in (0.1488656, 0.4756295, 1.6366810, 5.9247139):
        lo = max(g for g in GRID if g < root)
        hi = min(g for g in GRID if g >= root)
        plain = []
        B.bisect(lambda x: plain.append(x) or float(x) >= root, lo, hi, F(1, 10 ** 5),
                 F(1, 10 ** 12))
        bad, ok, n, _ = _search(root, "faithful", lo=lo, hi=hi)
        assert float(bad) < root <= float(ok)
        assert len(plain) >= 14 and n <= 8, (root, len(plain), n)


def test_a_curved_guide_is_overshot():
    """A guide curved in x (x^4, e^-x): secant roots stay on one side of the root; the aim
    past it by twice the last correction closes the bracket (8 evaluations each; 15 without
    the overshoot, 20 by bisection)."""
    for root, lo, hi, g in ((1.3, F(1), F(2), lambda x: 1.3 ** 4 - x ** 4),
                            (0.3, F(1, 8), F(1, 2), lambda x: 0.3 ** 4 - x ** 4),
                            (1.3, F(1), F(2), lambda x: math.exp(-x) - math.exp(-1.3))):
        calls, seen = [], {lo: g(float(lo)), hi: g(float(hi))}

        def good(x):
            calls.append(x)
            seen[x] = g(float(x))
            return float(x) >= root
        bad, ok = B.bisect(good, lo, hi, F(1, 10 ** 6), F(1, 10 ** 12), guide=seen.get)
        assert float(bad) < root <= float(ok) and len(calls) <= 11, (root, len(calls))


def test_epsilon_direction_reads_its_own_evaluations_as_the_guide():
    """The epsilon search of a profile with delta(e) = e^{-e^2} in both directions, exact
    balls: the ends bracket sqrt(log(1/delta)) within the tolerance, in few evaluations."""
    from flint import arb

    class Profile:
        n = 0

        def _d(self, e):
            Profile.n += 1
            return (-(arb(e.numerator) / e.denominator) ** 2).exp()
        upper_remove = upper_add = lower_remove = lower_add = _d
    d = F(1, 10 ** 5)
    lo, hi = B.epsilon_direction(Profile(), "remove", d)
    root = math.sqrt(math.log(1e5))
    assert float(lo) < root < float(hi) and hi - lo <= F(2, 10 ** 6) * hi
    assert Profile.n <= 24, Profile.n
