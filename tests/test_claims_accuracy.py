"""Claims that ask for the accuracy they need: a judge that cannot decide at the
engines' default accuracy asks for the width its printed digits need, once, and the report
says so.  The example file audits dp_accounting's own Gaussian test rows (8-9 printed
digits, eps from -2 to 2): each is confirmed, by the Gaussian closed form (M = 1); the
subsampled rows (one step) by the Poisson step's closed form."""
from __future__ import annotations

import os
from fractions import Fraction as F

from verifier.claims import accuracy as AC
from verifier.claims import audit as A
from verifier.claims import format as CF

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "claims", "dp_accounting_gaussian.toml")


def test_dp_accounting_gaussian_rows_are_confirmed():
    results = A.audit(CF.load(EXAMPLE))
    by_id = {r.claim.id: r for r in results}
    gaussian = [r for i, r in by_id.items() if i.startswith("gaussian.")]
    assert len(gaussian) == 9
    for r in gaussian:
        assert r.verdict == A.CONFIRMED, (r.claim.id, r.cases[0].value, r.cases[0].note)
        assert "requested relative width" in r.cases[0].note
    assert all(r.verdict == A.CONFIRMED for r in results), [
        (r.claim.id, r.verdict) for r in results if r.verdict != A.CONFIRMED]


def test_accuracy_request_is_what_the_printed_digits_need():
    """Half the distance from the bracket's midpoint to the nearest end of the rounding
    interval, relative; nothing asked for a decided case or an unrefinable quantity."""
    c = CF.load(EXAMPLE).claims[3]                       # delta_at(... epsilon=1) = 0.12693674
    acc = A.rounding_interval(c.printed)
    undecided = A.CaseResult({}, A.INCONCLUSIVE, A.Interval(F("0.126930"), F("0.126940")),
                             None, acc, 64, False)
    w = AC.accuracy_request(c, undecided)
    mid = F("0.126935")
    assert w == min(abs(mid - acc.lower), abs(mid - acc.upper)) / mid / 2
    decided = A.CaseResult({}, A.CONFIRMED, undecided.value, None, acc, 64, False)
    assert AC.accuracy_request(c, decided) is None
