"""Brackets that cannot invert (issue 45): an interval whose lower end exceeds its upper end
is refused where it is made (core.arith.Interval), so an engine bug that yields one (the
issue's dropped wrap-around charge: an upper end of -5e-24 above a lower end of 0) is an
internal error, exit 4, never a printed answer."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from flint import arb

from verifier.core.arith import Interval, InvertedBracket


def test_an_inverted_interval_cannot_be_made():
    assert Interval(F(1), F(1)).lower == 1
    Interval(None, None)                                  # not finite: allowed, never decided
    with pytest.raises(InvertedBracket, match="inverted bracket"):
        Interval(F(0), F(-5, 10 ** 24))


def test_an_engine_s_inverted_bracket_is_an_internal_error_not_an_answer(capsys, monkeypatch):
    from verifier.cli import main
    from verifier.numerics.compose import ComposedProfile
    monkeypatch.setattr(ComposedProfile, "_upper_add", lambda self, eps: arb(-5) * arb(10) ** -24)
    rc = main(["delta", "--sampling", "poisson", "--sigma", "1", "--sample-rate", "0.1",
               "--total-steps", "5", "--epsilon", "1"])
    out, err = capsys.readouterr()
    assert rc == 4 and "inverted bracket" in err and "delta     in" not in out
