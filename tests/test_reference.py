"""Cross-check against the reference accountants of the `random-allocation` package (built on
Google's `dp-accounting`): their upper bounds lie above our rigorous lower end, their lower
bound below our upper end, and our bracket sits inside theirs.  Skipped unless installed
(``pip install ".[reference]"``; .ci/run does).  TV = delta(eps -> 0); we ask for delta at
eps = 1e-8, which differs from TV by at most e^eps - 1."""
import warnings
from fractions import Fraction as F

import pytest

from verifier.bounds.exact_tv.bracket import exact_tv
pytest.importorskip("random_allocation")
pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.mark.parametrize("M", [100, 1000])
def test_reference_accountants_bracket_ours(M):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from random_allocation.comparisons.definitions import PrivacyParams, SchemeConfig
        from random_allocation.random_allocation_scheme import (
            allocation_delta_decomposition, allocation_delta_lower_bound,
            allocation_delta_RDP_DCO)
    ours = exact_tv(F(1), M)
    params = PrivacyParams(sigma=1.0, num_steps=M, num_epochs=1, epsilon=1e-8)
    upper_pld = allocation_delta_decomposition(params, SchemeConfig())
    upper_rdp = allocation_delta_RDP_DCO(params, SchemeConfig())
    lower = allocation_delta_lower_bound(params, SchemeConfig())
    slack = F(1, 10**7)                        # their delta(1e-8) vs TV, and float rounding
    assert F(upper_pld) + slack >= ours.tv.lower and F(upper_rdp) + slack >= ours.tv.lower
    assert F(lower) - slack <= ours.tv.upper
    # ours is the tighter bracket, by a wide margin
    assert (ours.tv.upper - ours.tv.lower) * 10 < F(min(upper_pld, upper_rdp)) - F(lower)
