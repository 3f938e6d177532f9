"""Every result of the public face is a frozen dataclass whose ``to_json()`` keys are its
attribute names: what the CLI prints with --json is what the API returns."""
from __future__ import annotations

import dataclasses

import pytest

import verifier

_RUN = verifier.Run((verifier.phase("2", sampler="every_step", steps=3),
                     verifier.phase("3", sampler="every_step", steps=5)))
CASES = {
    "epsilon": lambda: verifier.epsilon("2", 10, 2, delta="1e-5"),
    "delta": lambda: verifier.delta("2", 10, 2, epsilon="1"),
    "poisson_epsilon": lambda: verifier.poisson_epsilon("2", "0.1", 20, delta="1e-5"),
    "poisson_delta": lambda: verifier.poisson_delta("2", "0.1", 20, epsilon="1"),
    "exact_tv": lambda: verifier.exact_tv("1", 1000),
    "steps_exact": lambda: verifier.steps_exact("1", "0.01"),
    "rdp": lambda: verifier.rdp("2", 10, 1, orders="2,3"),
    "tradeoff": lambda: verifier.tradeoff("2", 10, 1, points=3),
    "calibrate_steps": lambda: verifier.calibrate_steps("1", delta="0.01", bound="chi-square"),
    "calibrate_sigma": lambda: verifier.calibrate_sigma(10 ** 6, delta="0.01", bound="chi-square"),
    "certify": lambda: verifier.certify("1", steps_per_epoch=1000, delta="0.01"),
    "bound": lambda: verifier.bound("1", 1000, 3, delta="0.5"),
    "privacy_profile": lambda: verifier.privacy_profile("2", 10, 1, eps_grid=["0", "1"]),
    "compare_samplers": lambda: verifier.compare_samplers("2", 10, 1, delta="1e-5"),
    "tradeoff_run": lambda: verifier.tradeoff(_RUN, at="1/2"),
    "certify_run": lambda: verifier.certify(_RUN, delta="1e-5", target_epsilon="2"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_keys_are_attribute_names(name):
    r = CASES[name]()
    assert dataclasses.is_dataclass(r) and r.__dataclass_params__.frozen, name
    keys = set(r.to_json())
    missing = sorted(k for k in keys if not hasattr(r, k))
    assert not missing, (name, missing)


def test_bound_json_is_the_cli_json():
    """verifier bound --json prints the result's own to_json (the CLI builds nothing)."""
    import json
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "verifier", "bound", "--sigma", "1",
                        "--steps-per-epoch", "1000000", "--epochs", "3", "--delta", "0.05",
                        "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    got = json.loads(p.stdout)
    want = verifier.bound("1", 10 ** 6, 3, delta="0.05").to_json()
    assert got == want
    assert got["meets_target"] in ("holds", "fails", "undecided") and got["target_delta"] == "0.05"


def test_steps_per_epoch_has_its_own_keyword_and_steps_by_keyword_is_deprecated():
    """One meaning of steps (issue 44): random allocation's M is steps_per_epoch=; steps=
    by keyword gives the same answer for one release, with a DeprecationWarning; positional
    M is unchanged and warns nothing; M given twice is one line."""
    import warnings
    want = verifier.epsilon("2", 10, 2, delta="1e-5").epsilon
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verifier.epsilon("2", steps_per_epoch=10, epochs=2, delta="1e-5").epsilon == want
        assert verifier.exact_tv("2", 10, 2).tv == verifier.exact_tv("2", steps_per_epoch=10,
                                                                     epochs=2).tv
    for f in (verifier.epsilon, verifier.delta, verifier.rdp, verifier.certify):
        with pytest.warns(DeprecationWarning, match=f"{f.__name__}\\(\\): steps= here is M"):
            try:
                f("2", steps=10, epochs=2, delta="1e-5")
            except (TypeError, verifier.InputError):
                pass
    with pytest.warns(DeprecationWarning):
        assert verifier.epsilon("2", steps=10, epochs=2, delta="1e-5").epsilon == want
    with pytest.raises(verifier.InputError, match="steps per epoch twice"):
        verifier.epsilon("2", 10, steps_per_epoch=10, delta="1e-5")


def test_positional_arguments_after_the_triple_are_deprecated():
    """Arguments after (sigma, steps, epochs) are keyword-only; a delta passed fourth still
    works for one release, with a DeprecationWarning naming the keyword."""
    with pytest.warns(DeprecationWarning, match="delta="):
        a = verifier.epsilon("2", 10, 2, "1e-5")
    assert a.epsilon == verifier.epsilon("2", 10, 2, delta="1e-5").epsilon
    with pytest.raises(verifier.InputError, match="at most 3 positional"):
        verifier.epsilon("2", 10, 2, "1e-5", "extra")
    with pytest.raises(verifier.InputError, match="both by position and by keyword"):
        verifier.epsilon("2", 10, 2, "1e-5", delta="1e-6")
