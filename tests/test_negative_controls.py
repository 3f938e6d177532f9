"""Negative controls: mutated constants, a dropped square root and a wrong moment
must each come out refuted (the checkers can fail)."""
import sympy as sp

from proofs_checks import lognormal as PL
from proofs_checks import monotonicity as PM
from proofs_checks import tail as PT
from proofs_checks import taylor as PY
from proofs_checks.framework import PROVED, REFUTED
from verifier.symbolic import lognormal as L
from verifier.symbolic import terms as T31
def test_printed_constants_pass_as_published():
    assert PT.printed_constants_outcome().verdict == PROVED


def test_mutated_numerator_4_50_refuted():
    o = PT.printed_constants_outcome(num=sp.Rational("4.50"))
    assert o.verdict == REFUTED and "numerator" in o.evidence


def test_mutated_coefficient_2_90_refuted():
    o = PT.printed_constants_outcome(a=sp.Rational("2.90"))
    assert o.verdict == REFUTED and "sqrt(ln M)" in o.evidence


def test_mutated_coefficient_2_40_refuted():
    assert PT.printed_constants_outcome(b=sp.Rational("2.40")).verdict == REFUTED


def test_dropped_square_root_in_mu_refuted():
    mu_wrong = L.s2 / (T31.M - 1)  # sqrt dropped
    assert PY.e4_bracket_outcome(T31.terms()).verdict == PROVED
    o = PY.e4_bracket_outcome(T31.terms_with(mu_wrong))
    assert o.verdict == REFUTED, o.evidence
    assert "certified" in o.evidence


def test_wrong_moment_refuted():
    eu = sp.exp(L.u)
    assert PL.central_moment_outcome(3, (eu + 2) * L.s2**2).verdict == PROVED
    o = PL.central_moment_outcome(3, (eu + 3) * L.s2**2)
    assert o.verdict == REFUTED, o.evidence
    o = PL.central_moment_outcome(4, (sp.exp(4 * L.u) + 2 * sp.exp(3 * L.u) + 3 * sp.exp(2 * L.u) - 2) * L.s2**2)
    assert o.verdict == REFUTED


def test_increasing_term_refuted_by_monotonicity_check():
    # M * mu grows with M: the monotonicity checker must not call it decreasing
    assert PM.decreasing_outcome(T31.M * T31.mu).verdict != PROVED
    # (M - 1) mu = sqrt(s2 (M - 1)) increases everywhere: certified refutation
    assert PM.decreasing_outcome((T31.M - 1) * T31.mu).verdict == REFUTED


def test_chain_with_an_unknown_step_is_not_proved():
    """A chain is proved only if every step is; a cited step makes it cited; a refuted one
    refutes it.  The real chain: the closed-form lower bound with an unprovable extra step."""
    from proofs_checks import framework as Fw
    ok, unk = Fw.Outcome(PROVED, "ok"), Fw.Outcome(Fw.UNKNOWN, "no idea")
    assert Fw.all_proved([("a", ok), ("b", unk)]).verdict == Fw.UNKNOWN
    assert Fw.all_proved([("a", ok), ("b", Fw.cite("lemma", "a book"))]).verdict == Fw.CITED
    assert Fw.all_proved([("a", unk), ("b", Fw.Outcome(REFUTED, "x"))]).verdict == REFUTED
    m = sp.Symbol("m", positive=True)
    # sin(m) has no sign on m > 0: the helper says unknown, and so must the chain
    step = Fw.sign_proved(sp.sin(m), "positive")
    assert step.verdict == Fw.UNKNOWN
    assert Fw.all_proved([("T1 + T2 decreasing", ok), ("sin m > 0", step)]).verdict == Fw.UNKNOWN
