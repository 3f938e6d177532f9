"""A few hundred inputs of the random hunt (tests/hunt.py) in the slow suite."""
import pytest

import hunt


@pytest.mark.slow
def test_random_hunt_finds_nothing_wrong():
    t = hunt.run(400, 20261201)
    assert not t.failures, t.failures[:5]
    assert sum(d for _, d, _ in t.rows.values()) > 300
