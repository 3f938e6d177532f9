"""A sweep spec is bounded before anything is built (issue 46): the cell count is the product
of the axes' lengths, checked before any cell exists; a repeated sampling value is refused.
No Dask needed (verifier.sweep.spec only parses)."""
from __future__ import annotations

import resource

import pytest

from verifier.core.arith import InputError
from verifier.sweep import spec as S


def test_a_runaway_grid_is_refused_by_its_count_not_by_building_it():
    data = {"compute": "epsilon", "axes": {
        "sigma": {"from": "1", "to": "2", "step": "0.00001"},
        "steps": {"from": 10, "to": 100009, "step": 1}, "delta": ["1e-5"]}}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError, match="10000100000 cells"):
        S.parse(data)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 500                       # 1e10 cells built would be tens of GB


def test_a_repeated_sampling_value_is_refused():
    data = {"compute": "epsilon", "axes": {"sigma": ["1"], "steps": [10], "delta": ["1e-5"],
                                            "sampling": ["poisson", "poisson"]}}
    with pytest.raises(InputError, match="sampling repeats"):
        S.parse(data)
