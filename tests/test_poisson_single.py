"""One step of Poisson subsampling in closed form (bounds/poisson/single.py): both
directions of delta(eps) against a 50-digit quadrature of the densities, inside the lattice
engine's brackets, epsilon by certified bisection around the quadrature's root, and the
dp_accounting rows the lattice left inconclusive decided."""
from __future__ import annotations

from fractions import Fraction as F

import mpmath as mp
import pytest

from verifier.bounds import poisson as PO
from verifier.bounds.poisson import single as S

from test_poisson import M, gaussian_delta, inside, mp_frac, one_step_delta

CASES = [(F(1), F(1, 5), F(0)), (F(1), F(1, 5), F(1, 10)), (F(1), F(1, 5), F(3, 10)),
         (F(11, 10), F(1, 20), F(1)), (F(1, 2), F(1, 1000), F(3)), (F(2), F(1, 2), F(1, 4)),
         (F(3, 10), F(1, 10), F(8))]


@pytest.mark.parametrize("sigma,q,eps", CASES)
def test_one_step_closed_form_holds_the_quadrature_to_many_digits(sigma, q, eps):
    r = PO.delta_bracket(sigma, q, 1, eps)
    assert "closed_form" in r.info
    for which, iv in (("remove", r.remove), ("add", r.add)):
        ref = one_step_delta(sigma, q, eps, which)
        assert inside(iv, ref, F(1, 10 ** 40)), (which, iv, ref)
        assert iv.upper - iv.lower <= F(1, 10 ** 30) * mp_frac(ref) + F(1, 10 ** 300)
    assert r.delta.lower == max(r.remove.lower, r.add.lower)


def test_the_add_direction_is_zero_beyond_its_threshold():
    """{W < e^-eps} is empty once e^-eps <= 1 - q: delta_A = 0 exactly there, positive below."""
    q = F(1, 5)
    r = PO.delta_bracket(F(1), q, 1, F(3, 10))       # e^-0.3 = 0.741 < 0.8
    assert r.add.lower == r.add.upper == 0 and r.remove.lower > 0
    r = PO.delta_bracket(F(1), q, 1, F(22, 100))     # e^-0.22 = 0.8025 > 0.8
    assert r.add.lower > 0


def test_two_steps_are_not_one():
    """T = 2 goes to the lattice engine (the closed form is one step's), and two steps leak
    more than one: its remove bracket lies above one step's value."""
    one = PO.delta_bracket(F(1), F(1, 5), 1, F(1, 10))
    two = PO.delta_bracket(F(1), F(1, 5), 2, F(1, 10))
    assert "closed_form" not in two.info and "closed_form" in one.info
    assert two.remove.lower > one.remove.upper


def test_q_one_is_the_gaussian_closed_form():
    r = PO.delta_bracket(F(3, 2), F(1), 1, F(1, 2))
    ref = gaussian_delta(1 / M(F(3, 2)), M(F(1, 2)))
    assert inside(r.remove, ref, F(1, 10 ** 40)) and inside(r.add, ref, F(1, 10 ** 40))


@pytest.mark.parametrize("sigma,q,eps", [(F(1), F(1, 5), F(1, 10)), (F(11, 10), F(1, 20), F(1)),
                                         (F(1, 2), F(1, 1000), F(3))])
def test_one_step_closed_form_lies_inside_the_lattice_brackets(sigma, q, eps, monkeypatch):
    exact = PO.delta_bracket(sigma, q, 1, eps)
    monkeypatch.setattr(S, "closed_form", lambda T: False)
    PO.clear_cache()
    lattice = PO.delta_bracket(sigma, q, 1, eps)
    assert "closed_form" not in lattice.info
    for w in ("remove", "add"):
        a, b = getattr(exact, w), getattr(lattice, w)
        assert b.lower <= a.lower <= a.upper <= b.upper, (w, a, b)
    assert exact.delta.upper - exact.delta.lower < lattice.delta.upper - lattice.delta.lower


@pytest.mark.parametrize("sigma,q,d", [(F(1), F(1, 100), F(1, 10 ** 5)),
                                       (F(1), F(1, 5), F(1, 20)), (F(2), F(1, 2), F(1, 10 ** 8))])
def test_one_step_epsilon_by_bisection_holds_the_root(sigma, q, d):
    r = PO.epsilon_bracket(sigma, q, 1, d)
    assert "closed_form" in r.info
    for which, iv in (("remove", r.remove), ("add", r.add)):
        if iv.upper == 0:                     # delta_which(0) <= d certified
            assert one_step_delta(sigma, q, 0, which) <= M(d)
            continue
        assert one_step_delta(sigma, q, iv.upper, which) <= M(d)
        assert one_step_delta(sigma, q, iv.lower, which) > M(d)
        assert iv.upper - iv.lower <= S.EPS_WIDTH * max(iv.lower, F(1, 10))
    assert r.epsilon.upper == max(r.remove.upper, r.add.upper)


def test_epsilon_beyond_the_range_is_none():
    """No eps <= 60 meets a delta the profile never reaches there: None (the CLI's
    inconclusive), not a bracket."""
    top = PO.RANGE.epsilon[1]
    iv = S.epsilon_direction(F(3, 10), F(1), F(1, 10 ** 12), 0, F(1, 10 ** 6), top)
    assert iv is None or iv.upper <= top
    assert S.epsilon_direction(F(1, 100), F(1), F(1, 10 ** 12), 0, F(1, 10 ** 6), top) is None


def test_negative_eps_is_read_off_the_mirror():
    """delta(-e) from the brackets at e (brackets.mirrored): the quadrature at -e agrees (at
    negative eps the remove direction's set {W > e^-e} is every Z where e^-e <= 1 - q)."""
    r = PO.delta_bracket(F(1), F(1, 5), 1, F(-1, 10))
    for which, iv in (("remove", r.remove), ("add", r.add)):
        assert inside(iv, one_step_delta(F(1), F(1, 5), F(-1, 10), which), F(1, 10 ** 30))


def test_dp_accounting_subsampled_rows_decided():
    """dp_accounting's subsampled-Gaussian test rows (q 0.2, one step, eps -0.3 to 0.2),
    three of them inconclusive on the lattice: each printed value is the rounding of the
    certified delta."""
    for eps, printed in (("-0.1", "0.14204776"), ("0.1", "0.051816131"),
                         ("0.2", "0.035738492")):
        iv = PO.delta_bracket(F(1), F(1, 5), 1, F(eps)).delta
        p = F(printed)
        half = F(1, 2 * 10 ** (len(printed) - 2))
        assert p - half <= iv.lower <= iv.upper < p + half, (eps, iv)


def test_the_bisection_never_ends_on_an_undecided_comparison():
    """brackets.certified_bisection (both closed forms' epsilon): an undecided comparison is
    neither end -- undecided at the first upper end: None; undecided at 0: not [0, 0];
    undecided near the root: the bracket so far, both ends certified."""
    from verifier.numerics.brackets import certified_bisection
    root = F(13, 10)

    def cmp(undecided):
        return lambda e: 0 if undecided(e) else (1 if e < root else -1)
    width = (lambda lo, hi: F(1, 10 ** 6))
    assert certified_bisection(cmp(lambda e: e == 1), width, 60)[0] is None
    iv = certified_bisection(cmp(lambda e: e == 0), width, 60)[0]
    assert iv.lower < root <= iv.upper and iv.upper - iv.lower <= F(1, 10 ** 6)
    near = cmp(lambda e: abs(e - root) < F(1, 100))
    iv = certified_bisection(near, width, 60)[0]
    assert near(iv.upper) == -1 and (iv.lower == 0 or near(iv.lower) == 1)
    assert iv.lower < root <= iv.upper
