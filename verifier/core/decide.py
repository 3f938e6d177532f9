"""The one precision loop: evaluate at increasing precision until the result is settled.

In the spirit of python-flint's ``good()``: ``decide(at, settled, max_prec)`` evaluates
``at(p)`` at p = 64, 128, ... up to the cap and returns the first result that
``settled`` accepts, or the last one (the caller then reports *inconclusive* for whatever
is still undecided: an overlapping comparison is never guessed).  ``sign(g_at, max_prec)``
is the three-valued answer to "g >= 0" for a ball-valued g.
"""
from __future__ import annotations

from verifier.core.arith import DEFAULT_MAX_PREC, START_PREC, Tri, precisions, sign_ge0


def decide(at, settled, max_prec: int = DEFAULT_MAX_PREC, start: int = START_PREC):
    """``at(p)`` at p = start, 2 start, ..., max_prec until ``settled(result)``; the last
    result otherwise.  The one stopping rule of the verifier: stop when settled or at the cap."""
    result = None
    for p in precisions(max_prec, start):
        result = at(p)
        if settled(result):
            break
    return result


def sign(g_at, max_prec: int = DEFAULT_MAX_PREC) -> Tri:
    """Certified 'g >= 0' with g_at(p) a ball at precision p: HOLDS / FAILS once certain,
    UNDECIDED past the cap."""
    return decide(lambda p: sign_ge0(g_at(p)), lambda v: v is not Tri.UNDECIDED, max_prec)
