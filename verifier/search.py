"""Certified searches over integers for a monotone three-valued predicate.

``smallest_int(pred, start, floor)`` finds the smallest n >= floor with
pred(n) true, for a predicate that is false then true (the caller names the
proof of monotonicity).  Every step is a certified evaluation: an undecided
one stops the search (``Undecided``) instead of guessing, and the work is
bounded (``SearchLimit``).
"""
from __future__ import annotations

from .arith import Tri


class Undecided(Exception):
    def __init__(self, n, ev=None):
        super().__init__(n)
        self.n, self.ev = n, ev


class SearchLimit(Exception):
    pass


def smallest_int(pred, start: int, floor: int, max_evaluations: int = 20000, first_step=None):
    """Smallest n >= floor with pred(n) is Tri.HOLDS; pred returns (Tri, evidence).

    Gallops from ``start`` (down while true, up while false, doubling the
    step), then bisects.  Returns (n, evidence at n, evidence at n - 1 or None)."""
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
        if v is Tri.UNDECIDED:
            raise Undecided(n, ev)
        return v is Tri.HOLDS

    start = max(floor, start)
    lo = hi = None
    if P(start):
        hi, step = start, 1
        while lo is None and hi > floor:
            n = max(floor, hi - step)
            if P(n):
                hi = n
            else:
                lo = n
            step *= 2
    else:
        lo, step = start, first_step or max(1, start >> 12)
        while hi is None:
            n = lo + step
            if P(n):
                hi = n
            else:
                lo = n
            step *= 2
    while lo is not None and hi - lo > 1:
        n = (lo + hi) // 2
        if P(n):
            hi = n
        else:
            lo = n
    below = seen[hi - 1][1] if hi > floor and (hi - 1) in seen else None
    return hi, seen[hi][1], below, count
