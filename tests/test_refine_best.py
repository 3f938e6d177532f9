"""The refinements of the Poisson engine and of a run (bounds/poisson ``refine``,
bounds/runs/lattice.py ``refine``) keep the narrowest bracket they computed
(``bounds.poisson.narrowest``): every lattice step's bracket is certified, so a finer step that
widened it (an add direction's upper end lost at floor 1e-8, three phases of 1e4 Poisson
steps) does not replace it, and the caller reads the directions of the profile returned."""
from fractions import Fraction as F
from types import SimpleNamespace

import pytest

from verifier.bounds import poisson as PO
from verifier.bounds.runs import lattice as RL
from verifier.core.arith import Interval


def _fake_profile():
    law = SimpleNamespace(info={"points": 10}, rem=[])
    return SimpleNamespace(phases=[(law, 1)], laws=law)


@pytest.mark.parametrize("refine", [RL.refine, PO.refine], ids=["run", "poisson"])
def test_a_stalled_refinement_returns_its_narrowest_bracket(refine):
    widths = iter([F(1, 100), F(1, 1000), F(1, 2)])
    made = []

    def compute(eta):
        P = _fake_profile()
        made.append((eta, P))
        return Interval(F(1), F(1) + next(widths)), P
    note = {}
    iv, P = refine(compute, F(1, 8), lambda iv: F(1, 10 ** 6), note)
    assert len(made) == 3 and "stopped narrowing" in note["refinement_limit"]
    assert iv.upper - iv.lower == F(1, 1000) and P is made[1][1]


@pytest.mark.parametrize("refine", [RL.refine, PO.refine], ids=["run", "poisson"])
def test_a_refinement_that_meets_its_target_returns_that_bracket(refine):
    widths = iter([F(1, 100), F(1, 10 ** 7)])
    made = []

    def compute(eta):
        P = _fake_profile()
        made.append(P)
        return Interval(F(1), F(1) + next(widths)), P
    iv, P = refine(compute, F(1, 8), lambda iv: F(1, 10 ** 6))
    assert iv.upper - iv.lower == F(1, 10 ** 7) and P is made[1]
