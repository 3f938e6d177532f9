"""What a judge compares a value with, and the accuracy it asks for (docs/CLAIMS.md,
"Accuracy on demand"): a judge that cannot decide at the engines' default accuracy asks the
refinable quantities once for the width its printed digits need."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from verifier.claims.format import Claim
from verifier.claims.judges import INCONCLUSIVE, rounding_interval, truncation_interval
from verifier.core.arith import Interval, decimal_str, parse_exact


def accepted_interval(claim: Claim, printed: str):
    """What a value must lie in for the judge (rounded, truncated, between, approx), or None
    for the judges that compare otherwise."""
    j = claim.judge
    if j == "rounded":
        return rounding_interval(printed, claim.digits)
    if j == "truncated":
        return Interval(*truncation_interval(printed))
    if j == "between":
        return Interval(claim.low, claim.high)
    if j == "approx":
        b = parse_exact(printed, "printed")
        r = max(claim.abs_tolerance or 0, (claim.tolerance or 0) * abs(b))
        return Interval(b - r, b + r)
    return None


def _uses_refinable(claim: Claim) -> bool:
    from verifier.claims.values import REFINABLE
    if claim.expr is None:
        return claim.quantity in REFINABLE
    from verifier.claims import expr as X
    return bool(X.calls(claim.expr) & set(REFINABLE))


def accuracy_request(claim: Claim, case, printed: str | None = None):
    """The relative width that lets the judge decide an undecided case of a refinable
    quantity: half the distance from the bracket's midpoint to the nearest end of what it is
    compared with (the printed value's rounding interval, its truncation, [low, high], or
    the printed bound), relative, in [1e-9, 1/10]; None when there is nothing to ask."""
    v = case.value
    if case.verdict != INCONCLUSIVE or v is None or not _uses_refinable(claim):
        return None
    if claim.judge in ("rounded", "between", "truncated", "approx") and case.accepted is not None:
        ends = (case.accepted.lower, case.accepted.upper)
    elif claim.judge in ("at-most", "at-least"):
        ends = (parse_exact(printed or claim.printed, "printed"),)
    else:
        return None
    mid = (v.lower + v.upper) / 2
    if mid == 0:
        return None
    w = min(abs(mid - e) for e in ends) / abs(mid) / 2
    return min(max(w, Fraction(1, 10 ** 9)), Fraction(1, 10))


ROUNDS = 4    # requests of one case at most, each narrower than the last


def with_accuracy(claim: Claim, judge_once, printed: str | None = None):
    """A judge that cannot decide at the engines' default accuracy asks for the accuracy the
    printed digits need (``accuracy_request``), again from each narrower bracket while it
    stays undecided and the request narrows (at most ROUNDS times: the first request is
    made from the default bracket's midpoint, which may lie far from the value; TensorFlow
    Privacy's 2.4612381 asked 8.3e-6, then 5e-8 decided it), and says what it asked and
    what it cost."""
    import time
    from verifier.claims.values import requested
    again = judge_once()
    w = accuracy_request(claim, again, printed)
    if w is None:
        return explained(claim, again, printed)
    t, asked, rounds, limits = time.perf_counter(), None, 0, []
    while w is not None and (asked is None or w < asked) and rounds < ROUNDS:
        asked, rounds = w, rounds + 1
        with requested(w) as limits:
            again = judge_once()
        w = accuracy_request(claim, again, printed)
    w = asked
    cost = f"{time.perf_counter() - t:.1f} s"
    if again.verdict != INCONCLUSIVE:
        return explained(claim, replace(
            again, note=f"decided at a requested relative width {decimal_str(w, 2, 'down')} "
                        f"(the default bracket straddled the printed value; {cost})"), printed)
    why = (f"the engine stopped short: {limits[-1]}" if limits else
           "the engine could not narrow the bracket enough (see --rel-width)")
    return replace(again, note=f"undecided even at a requested relative width "
                               f"{decimal_str(w, 2, 'down')} ({cost}): {why}")


def explained(claim: Claim, case, printed: str | None = None):
    """A refuted case says in which direction the printed value is wrong and by how much:
    the certified value's distance to the accepted interval (or the printed bound)."""
    from verifier.claims.judges import REFUTED
    v = case.value
    if case.verdict != REFUTED or v is None:
        return case
    acc = case.accepted
    if acc is None and claim.judge in ("at-most", "at-least"):
        b = parse_exact(printed or claim.printed, "printed")
        acc = Interval(b, b)
    if acc is None:
        return case
    if v.lower > acc.upper:
        side, gap, ref = "above", v.lower - acc.upper, acc.upper
    elif v.upper < acc.lower:
        side, gap, ref = "below", acc.lower - v.upper, acc.lower
    else:
        return case
    rel = f" ({decimal_str(gap / abs(ref), 3, 'down')} relative)" if ref != 0 else ""
    what = "the printed value's interval" if claim.judge not in ("at-most", "at-least") else \
        "the printed bound"
    note = (f"the certified value is {side} {what} by at least {decimal_str(gap, 4, 'down')}"
            f"{rel}")
    return replace(case, note=(case.note + "; " if case.note else "") + note)
