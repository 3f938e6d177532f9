"""The certified minimum or maximum of a claims expression over a box:
branch and bound on interval evaluations.

The expression evaluated with its box names bound to balls covering a sub-box encloses its
range there (``expr.evaluate``).  For a minimum: every evaluation at an exact point gives an
upper end U >= min (the value is attained); the sub-boxes whose enclosure's lower end exceeds
U cannot hold the minimum and are dropped; the lower end L is the least lower end over the
sub-boxes kept, which cover the rest of the box, so L <= min.  The result [L, U] encloses
the minimum; it is narrowed by halving the sub-box with the least lower end (along its widest
side) until U - L <= the tolerance or the evaluation budget is spent (then [L, U] is still
valid, only wider), or SECONDS pass, or the centre's value is not finite (no upper end to
prune with: undecided).  A maximum is the minimum of the negated expression.
"""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from verifier.claims import expr as X
from verifier.core.arith import Interval, ball_bounds, representable

BUDGET = 6000
SECONDS = 20     # the search stops after this long: [L, U] is still valid, only wider
ENGINE_SPLITS = 10


@dataclass(frozen=True)
class Extremum:
    value: Interval           # encloses the min (or max)
    at: dict                  # name -> exact point where the best value was attained
    evaluations: int
    converged: bool


def _lower(x: arb):
    if not representable(x):              # infinite, or beyond the balls' size limit
        return None
    return ball_bounds(x)[0]


def extremum(node, env: dict, box: dict, kind: str, prec: int, max_prec: int,
             rel: Fraction = Fraction(1, 10 ** 9), budget: int = BUDGET) -> Extremum:
    from flint import ctx
    from verifier.claims.quantities import ENGINE_QUANTITIES
    # engine quantities enclose a sub-box by their brackets at its corners (expr's
    # _monotone_range), never narrower than the engine's width: the search stops splitting
    # at sides ENGINE_SPLITS halvings below the box's (its [L, U] valid, only wider)
    engine = any(c in ENGINE_QUANTITIES for c in X.calls(node))
    smallest = {n: ((hi - lo) / 2 ** ENGINE_SPLITS if engine else Fraction(1, 10 ** 40))
                for n, (lo, hi) in box.items()}
    with ctx.workprec(prec):          # ends read off at the working precision
        return _extremum(node, env, box, kind, prec, max_prec, rel, budget, smallest)


def _extremum(node, env, box, kind, prec, max_prec, rel, budget, smallest) -> Extremum:
    sign = 1 if kind == "min" else -1
    names = sorted(box)

    def f(sub: dict) -> arb:
        return sign * X.evaluate(node, {**env, **sub}, prec, max_prec)

    def point(b: dict) -> dict:
        return {n: (lo + hi) / 2 for n, (lo, hi) in b.items()}

    best, best_at, n = None, None, 0
    heap = []                  # (lower end or -inf marker, counter, box)
    cnt = 0

    def offer(pt):                 # an exact point's value: an upper end of the minimum
        nonlocal best, best_at, n
        n += 1
        u = f(pt)
        if representable(u) and (best is None or ball_bounds(u)[1] < best):
            best, best_at = ball_bounds(u)[1], pt

    def push(b):
        nonlocal n, cnt
        n += 1
        v = f({k: b[k] for k in names})
        offer(point(b))
        lo = _lower(v)
        cnt += 1
        heapq.heappush(heap, (lo if lo is not None else Fraction(-10 ** 300), cnt, b))

    push({k: box[k] for k in names})
    if smallest[names[0]] > Fraction(1, 10 ** 40):      # engine quantities: the corners too
        for bits in range(2 ** len(names)):              # (monotone ones attain it there)
            offer({nm: box[nm][(bits >> i) & 1] for i, nm in enumerate(names)})
    if best is None:            # not finite (or beyond Arb) at the box's centre: no upper end
        return Extremum(Interval(None, None), {}, n, False)     # to prune with; undecided
    converged = False
    deadline = time.monotonic() + SECONDS
    while heap and n < budget and time.monotonic() < deadline:
        lo, _, b = heap[0]
        if best is not None and lo > best:             # nothing left below the best value
            heap = []
            break
        if best is not None and best - lo <= rel * max(abs(best), Fraction(1, 10 ** 30)):
            converged = True
            break
        heapq.heappop(heap)
        k = max(names, key=lambda nm: b[nm][1] - b[nm][0])
        a, c = b[k]
        if c - a < max(smallest[k], Fraction(1, 10 ** 40)):
            cnt += 1                       # a fresh counter: a tie never compares the boxes
            heapq.heappush(heap, (lo, cnt, b))
            break
        m = (a + c) / 2
        push({**b, k: (a, m)})
        push({**b, k: (m, c)})
    if best is None:
        return Extremum(Interval(None, None), {}, n, False)
    kept = [h[0] for h in heap if h[0] <= best]
    low = min(kept) if kept else best
    if heap == [] and not converged:
        converged = True
    iv = Interval(low, best) if sign == 1 else Interval(-best, -low)
    return Extremum(iv, best_at, n, converged)


def extremum_at_corner(node, env: dict, box: dict, kind: str, p: int, max_prec: int):
    """(the certified bracket of a monotone engine quantity's extremum over ``box``: its
    value at the corner, a note naming the corner and the monotonicity used), or None."""
    from verifier.claims import quantities as Q
    from verifier.claims.monotone import corner
    from verifier.core.arith import decimal_str
    takes = Q.QUANTITIES[node.value].all_args() if node.kind == "call" and \
        node.value in Q.QUANTITIES else ()
    c = corner(node, box, kind, takes)
    if c is None:
        return None
    point, why = c
    where = ", ".join(f"{k} = {decimal_str(v, 10)}" for k, v in sorted(point.items()))
    return (Interval.of(X.evaluate(node, {**env, **point}, p, max_prec)),
            f"{kind} over the box, attained at its corner {where} ({why})")
