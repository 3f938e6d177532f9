"""One source of truth: the committed arb evaluators are what SymPy prints."""

import sympy as sp

from verifier.symbolic import codegen
from verifier.symbolic import lognormal as L
from verifier.symbolic import terms as T
def test_generated_module_is_current():
    with open(codegen.TARGET, encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == codegen.render(), (
        "verifier/symbolic/derived.py is out of date: run python -m verifier.symbolic.codegen")


def test_derivations_reproduce_theory_section_2():
    # each call derives and compares with the stated form (raises DerivationError otherwise)
    assert L.raw_moment(1) == 1
    assert sp.simplify(L.raw_moment(3) - sp.exp(3 * L.u)) == 0
    mus = L.central_moments()
    assert set(mus) == {2, 3, 4}
    assert L.y_below_one_threshold() == 1 / (2 * L.sigma)
    L.rho3()
    L.coef_simplified()
    T.closed_form_steps()


def test_is_zero_refutes_a_wrong_identity():
    # the checker can fail: a wrong mu3 is not accepted
    wrong = (sp.exp(L.u) + 3) * L.s2**2
    assert not L.is_zero(L.central_moments()[3] - wrong)
    try:
        L.require_equal(L.central_moments()[3], wrong, "wrong mu3")
    except L.DerivationError:
        pass
    else:
        raise AssertionError("require_equal accepted a wrong identity")


def test_printer_refuses_floats():
    import pytest

    with pytest.raises(TypeError):
        codegen.ArbPrinter()(sp.Float(0.4748) * L.sigma)
