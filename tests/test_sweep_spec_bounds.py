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


def test_a_spec_s_mistakes_are_all_reported_in_one_run():
    """A structural mistake (an unknown key) and cells outside the engine's range (sigma 0.1,
    and 0.2) come in one report, one line each, not the cells only after the key is fixed;
    where an axis itself is wrong the cells are undefined and only the spec's lines come."""
    from verifier.core.arith import InputErrors
    data = {"compute": "epsilon", "bogus": 1,
            "axes": {"sigma": ["0.1", "0.2", "1"], "steps": [10], "delta": ["1e-5"]}}
    with pytest.raises(InputErrors) as e:
        S.parse(data, "s.toml")
    lines = e.value.messages
    assert len(lines) == 3 and "unknown key 'bogus'" in lines[0]
    assert "sigma = 0.1 is outside" in lines[1] and "sigma = 0.2 is outside" in lines[2]
    data["axes"]["steps"] = ["x"]
    with pytest.raises(InputErrors) as e:
        S.parse(data, "s.toml")
    assert len(e.value.messages) == 2 and "bogus" in e.value.messages[0]
