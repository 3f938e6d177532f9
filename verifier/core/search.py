"""Certified searches: over integers for a monotone three-valued predicate, and branch
and bound over an interval with explicit cover bookkeeping.

``smallest_int(pred, start, floor)`` finds the smallest n >= floor with pred(n) true, for
a predicate that is false then true (the caller names the proof of monotonicity).  Every
step is a certified evaluation: an undecided one stops the search (``Undecided``) instead
of guessing, and the work is bounded (``SearchLimit``).  Its invariant: every n it
returns holds (certified) and n - 1 fails (certified), or n is the floor.

``cover(test, lo, hi, ...)`` splits [lo, hi] until ``test(a, b)`` (a certified statement
about every point of [a, b]) holds on every box; it returns a ``Cover`` that says how
much was covered and which boxes were not, so a continuum statement is made only when
``Cover.complete``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import Tri

# The one budget policy of the certified integer searches: how many predicate evaluations
# a calibration may spend, by what one evaluation costs.
CLOSED_FORM_BUDGET = 20000      # a closed-form bound (Theorem 3.1, chi-square): milliseconds
ENGINE_BUDGET = 200             # a certified engine (exact TV, privacy profile): 0.1-15 s


class Undecided(Exception):
    def __init__(self, n, ev=None):
        super().__init__(n)
        self.n, self.ev = n, ev


class SearchLimit(Exception):
    def __init__(self, message: str, beyond: bool = False):
        super().__init__(message)
        self.beyond = beyond      # True: the answer lies beyond the search's ceiling


def decided(v: Tri, n, ev=None) -> bool:
    """The search's one rule for a three-valued answer: HOLDS is True, FAILS is False, and
    UNDECIDED stops the search (it is never taken for either)."""
    if v is Tri.UNDECIDED:
        raise Undecided(n, ev)
    return v is Tri.HOLDS


def smallest_int(pred, start: int, floor: int, max_evaluations: int = 20000, first_step=None,
                 ceiling: int | None = None):
    """Smallest n >= floor with pred(n) is Tri.HOLDS; pred returns (Tri, evidence).

    Gallops from ``start`` (down while true, up while false, doubling the step), then
    bisects.  Returns (n, evidence at n, evidence at n - 1 or None, evaluations).  With a
    ``ceiling``, an answer above it raises SearchLimit(beyond=True) once pred(ceiling)
    is certified false."""
    seen = {}
    count = 0

    def P(n):
        nonlocal count
        if n not in seen:
            count += 1
            if count > max_evaluations:
                raise SearchLimit(f"more than {max_evaluations} evaluations")
            seen[n] = pred(n)
        v, ev = seen[n]
        return decided(v, n, ev)

    start = max(floor, start)
    if ceiling is not None:
        start = min(start, ceiling)
    lo = hi = None
    if P(start):
        hi, step = start, 1
        while lo is None and hi > floor:
            n = max(floor, hi - step)
            try:
                if P(n):
                    hi = n
                else:
                    lo = n
            except Undecided:
                lo = _below_undecided(P, n, hi)     # a failing point above n, or Undecided
                if lo is None:
                    hi = n + 1
                    break
            step *= 2
    else:
        lo, step = start, first_step or max(1, start >> 12)
        while hi is None:
            n = lo + step
            if ceiling is not None and n > ceiling:
                if lo == ceiling:
                    raise SearchLimit(f"no n <= {ceiling} holds (certified at {ceiling})",
                                      beyond=True)
                n = ceiling
            if P(n):
                hi = n
            else:
                lo = n
            step *= 2
    if lo is not None:
        hi = crossing(P, lo, hi)
    below = seen[hi - 1][1] if hi > floor and (hi - 1) in seen else None
    return hi, seen[hi][1], below, count


@dataclass(frozen=True)
class Search:
    """The outcome of one calibration (``calibrate``): ``status`` is "found" (``value`` is
    the smallest n >= floor whose predicate holds, certified, and ``below`` the certified
    evidence that n - 1 fails, or None when n is the floor), "undecided" (the search met a
    point it could not decide, ``undecided_at``, with its evidence in ``at``), "limit" (the
    evaluation budget ran out) or "beyond" (the ceiling itself certifiably fails)."""
    status: str
    value: int | None = None
    at: object = None
    below: object = None
    evaluations: int = 0
    undecided_at: int | None = None
    reason: str = ""

    @property
    def found(self) -> bool:
        return self.status == "found"


def calibrate(pred, start: int, floor: int, *, budget: int = ENGINE_BUDGET, first_step=None,
              ceiling: int | None = None) -> Search:
    """The verifier's one calibration driver (in the shape of dp_accounting's
    ``calibrate_dp_mechanism``): the smallest n >= floor with ``pred(n)`` certified to hold,
    for a predicate that is false then true (the caller names the monotonicity it rests
    on), by ``smallest_int``; its undecided points and limits become a ``Search`` status,
    never an exception and never a guess.  Every calibration of the package calls it."""
    try:
        n, at, below, count = smallest_int(pred, start, floor, budget, first_step, ceiling)
    except Undecided as u:
        return Search("undecided", at=u.ev, undecided_at=u.n, reason=f"undecided at {u.n}")
    except SearchLimit as e:
        return Search("beyond" if e.beyond else "limit", reason=str(e))
    return Search("found", n, at, below, count)


def crossing(P, f: int, t: int) -> int:
    """Bisection between a certified failing index f and a certified holding index t (either
    order: the predicate may rise or fall between them): returns the holding index next to
    the change.  P(n) is True / False, certified, or raises Undecided.  The one bisection
    loop of the verifier (smallest_int and the sigma calibration use it)."""
    while abs(t - f) > 1:
        mid = (f + t) // 2
        if P(mid):
            t = mid
        else:
            f = mid
    return t


def _below_undecided(P, und: int, hi: int):
    """The gallop down met an undecided point ``und`` below the holding ``hi``: bisect
    (und, hi) for a certified failing point (returned; the bisection then goes on as usual),
    moving ``und`` up past undecided points; when hi = und + 1 the answer is not certified
    and Undecided(und) propagates."""
    while hi - und > 1:
        mid = (und + hi) // 2
        try:
            if not P(mid):
                return mid
            hi = mid
        except Undecided:
            und = mid
    P(und)            # raises Undecided(und): nothing certified fails below hi
    return None


@dataclass(frozen=True)
class Cover:
    """The result of a branch and bound over [lo, hi]."""

    lo: Fraction
    hi: Fraction
    covered: Fraction          # total length of the boxes on which the test held
    boxes: int                 # boxes examined
    uncovered: tuple           # ((a, b), ...) boxes left (too small to split, or budget)

    @property
    def complete(self) -> bool:
        """A proof for every point of [lo, hi]: every box was covered."""
        return not self.uncovered and self.covered == self.hi - self.lo

    @property
    def fraction(self) -> Fraction:
        return self.covered / (self.hi - self.lo) if self.hi > self.lo else Fraction(1)


def cover(test, lo: Fraction, hi: Fraction, min_width: Fraction, budget: int) -> Cover:
    """Branch and bound: split [lo, hi] until test(a, b) holds on every box (or boxes are
    narrower than min_width, or the budget of boxes is spent)."""
    stack, covered, used, left = [(lo, hi)], Fraction(0), 0, []
    while stack:
        a, b = stack.pop()
        if used >= budget:
            left.append((a, b))
            continue
        used += 1
        if test(a, b):
            covered += b - a
        elif b - a > min_width:
            mid = (a + b) / 2
            stack += [(mid, b), (a, mid)]
        else:
            left.append((a, b))
    return Cover(lo, hi, covered, used, tuple(sorted(left)))
