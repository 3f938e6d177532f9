"""Each charge of the composition where it is large (issue 45): the engine's upper ends carry
every step's union-bound charge (T of them, n_i per phase of a run), and the composed
window's charge, at parameters where dropping, halving or miscounting one changes the
answer: a charge set large on purpose (the step laws' own atoms replaced by 1e-3), and a
window forced small (eps_cap far below the eps asked: still valid, only looser) against the
Gaussian closed form (Poisson at q = 1 is the Gaussian pair at mu^2 = T / sigma^2)."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import mpmath as mp
import pytest
from flint import arb

from verifier.bounds import poisson as PO
from verifier.bounds.poisson.pair import step_laws
from verifier.numerics.compose import ComposedProfile

BIG = arb("0.001")


def _profile(laws, T, prec, phases=None):
    return ComposedProfile(laws, T, prec, 1e-8, 16.0, scan_tests=True, phases=phases)


def _ends(P, eps):
    return (P.upper_remove(eps), P.upper_add(eps))


@pytest.mark.parametrize("T", [2, 5, 17])
def test_every_step_s_charge_enters_the_upper_ends(T):
    """U(charge c per step) - U(no charge) = T c in both directions (up to the balls' radii):
    the union bound over the T steps, neither dropped, halved nor counted once."""
    s, q, eta, prec = F(1), F(1, 5), F(1, 64), 128
    laws = step_laws(s, q, T, 1e-8, eta, prec)
    with_c = _profile(replace(laws, charge_R=BIG, charge_A=BIG), T, prec)
    none = _profile(replace(laws, charge_R=arb(0), charge_A=arb(0)), T, prec)
    for eps in (F(0), F(1, 2), F(2)):
        for a, b in zip(_ends(with_c, eps), _ends(none, eps)):
            d = a - b
            assert abs(float(d.mid()) - T * 0.001) < 1e-9 * T, (T, eps, d)


def test_a_run_s_charges_are_each_phase_s_count_times_its_own():
    """Two phases, n1 = 3 steps charged 1e-3 and n2 = 4 steps charged 2e-3: 0.011 in all."""
    eta, prec = F(1, 64), 128
    a = step_laws(F(1), F(1, 5), 7, 1e-8, eta, prec)
    b = step_laws(F(2), F(1, 2), 7, 1e-8, eta, prec)
    ph = lambda c1, c2: [(replace(a, charge_R=c1, charge_A=c1), 3),
                         (replace(b, charge_R=c2, charge_A=c2), 4)]
    with_c = _profile(a, 7, prec, ph(BIG, 2 * BIG))
    none = _profile(a, 7, prec, ph(arb(0), arb(0)))
    for eps in (F(0), F(1)):
        for x, y in zip(_ends(with_c, eps), _ends(none, eps)):
            assert abs(float((x - y).mid()) - 0.011) < 1e-9


def _gauss(mu, eps):
    mu, e = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)


@pytest.mark.parametrize("s, T, cap", [("2", 30, -9.0), ("4", 100, -10.0)])
def test_a_window_forced_small_still_brackets_the_closed_form(s, T, cap):
    """A composed window holding only 99% of the mass (eps_cap far below the eps asked): the
    window's charge 2 e^eps P_out keeps both directions' upper ends above the Gaussian closed
    form, the excess keeps the lower ends below (without the charge the add direction's upper
    end at eps = 3 falls below the truth: (2, 30))."""
    PO.clear_cache()
    P = PO.engine(F(s), F(1), T, 0.1, cap)
    assert float(P.oR.mid()) > 1e-3 and float(P.oA.mid()) > 1e-3      # the window is small
    mu = mp.sqrt(T) / mp.mpf(s)
    with mp.workdps(30):
        for eps in ("-1", "0", "1", "2", "3", "4"):
            ref = _gauss(mu, eps)
            e = F(eps)
            for f in (P._upper_remove, P._upper_add):
                assert float(f(e).upper()) >= ref, (s, T, eps, f.__name__)
            for f in (P._lower_remove, P._lower_add):
                assert float(f(e).lower()) <= ref, (s, T, eps, f.__name__)
    PO.clear_cache()


def _true_eps(mu, delta):
    with mp.workdps(30):
        return mp.findroot(lambda e: _gauss(mu, e) - mp.mpf(delta), (mp.mpf(0), mp.mpf(8)),
                           solver="anderson")


def test_epsilon_ends_come_from_the_certified_side_of_each_comparison():
    """Where the delta brackets are wide (a window forced small: 1e-3 apart), epsilon(delta)'s
    upper end is where the *upper* end of delta meets the target and its lower end where the
    *lower* end is still above: both directions' brackets contain the closed form's epsilon,
    and each end is re-checked."""
    from verifier.core.arith import to_arb
    from verifier.numerics import brackets as B
    PO.clear_cache()
    P = PO.engine(F(2), F(1), 30, 0.1, -6.0)
    mu = mp.sqrt(30) / 2
    for delta in ("0.5", "0.7"):
        true = _true_eps(mu, delta)
        d = to_arb(F(delta))
        for which in ("remove", "add"):
            lo, hi = B.epsilon_direction(P, which, F(delta))
            q = lambda x: mp.mpf(x.numerator) / x.denominator
            assert q(lo) <= true <= q(hi), (delta, which, lo, hi, true)
            up = P.upper_remove if which == "remove" else P.upper_add
            low = P.lower_remove if which == "remove" else P.lower_add
            assert up(hi) <= d and (lo == 0 or low(lo) > d)
            assert hi - lo > F(1, 100)             # wide: the side of each comparison matters
    PO.clear_cache()


def test_delta_brackets_round_outward_from_their_balls():
    """Lower ends from the lower ball's lower end, upper ends from the upper ball's upper
    end; a ball the engine lost gives the trivial end."""
    from verifier.core.arith import Interval
    from verifier.numerics import brackets as B
    iv = B.delta_interval(arb("0.5") + arb(0, 0.125), arb("0.75") + arb(0, 0.125))
    tiny = F(1, 2 ** 20)                         # Arb stores radii rounded up
    assert F(3, 8) - tiny < iv.lower <= F(3, 8) and F(7, 8) <= iv.upper < F(7, 8) + tiny
    assert B.delta_interval(None, arb("nan")) == Interval(F(0), F(1))
