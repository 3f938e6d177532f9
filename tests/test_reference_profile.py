"""Cross-check of the certified epsilon(delta) against PLD_accounting (Feldman & Shenfeld's
PLD accountant for random allocation; the ``reference`` extra): on six configurations its
float [lower, upper] and our bracket intersect, and ours is narrower.  Skipped unless the
package is installed (.ci/run installs it)."""
import warnings
from fractions import Fraction as F

import pytest

pytest.importorskip("PLD_accounting")
pytestmark = pytest.mark.filterwarnings("ignore")

CASES = [("1", 20, 5, "1e-6"), ("2", 50, 1, "1e-8"), ("3", 10, 20, "1e-5"),
         ("0.7", 10, 1, "1e-4"), ("1.2", 200, 2, "1e-7"), ("2", 10, 10, "1e-6")]


@pytest.mark.parametrize("sigma,M,E,delta", CASES)
def test_pld_accounting_and_ours_intersect_ours_narrower(sigma, M, E, delta):
    from verifier.bounds.profile import epsilon_bracket
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from PLD_accounting import gaussian_allocation_epsilon_range
        a, b = gaussian_allocation_epsilon_range(delta=float(delta), sigma=float(sigma),
                                                 num_steps=M, num_epochs=E)
    lo, hi = F(min(a, b)), F(max(a, b))          # the package returns (upper, lower)
    r = epsilon_bracket(F(sigma), M, E, F(delta))
    assert r.bracketed
    assert max(r.epsilon.lower, lo) <= min(r.epsilon.upper, hi)
    assert r.epsilon.upper - r.epsilon.lower < hi - lo
