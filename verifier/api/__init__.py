"""The verifier's public face, one place: every entry point a user calls, re-exported by
``verifier`` (``import verifier; verifier.epsilon(...)``) and loaded on first use (importing
``verifier`` or ``verifier.api`` loads neither python-flint nor the engines).

Conventions of every function here: inputs are decimal strings, ints, Fractions, or floats
and numpy scalars read as the decimals they print as (``1.1`` is 11/10, never its binary
expansion); the first arguments are the run's parameters (sigma, steps per epoch, epochs;
or sigma, sample rate, total steps for Poisson subsampling), every other argument is
keyword-only; results are frozen dataclasses with ``to_json()``; bad input raises
``InputError`` (one line).

- tv.py: Theorem 3.1 and the total variation (bound, steps_exact, closed_form, min_samples,
  certify, calibrate_sigma, calibrate_steps, exact_tv, compare);
- profile.py: certified (epsilon, delta) of random allocation and Poisson subsampling
  (epsilon, delta, privacy_profile, get_noise_multiplier, poisson_epsilon, poisson_delta,
  compare_samplers);
- views.py: Rényi, zCDP and trade-off views (rdp, tradeoff, poisson_rdp);
- core/run.py: a run as a value (Run, Phase, phase, Gaussian, Poisson, RandomAllocation,
  EveryStep, run_from_file, run_from_history), taken by ``epsilon`` and ``delta``.
"""
WHERE = {
    **{n: "verifier.api.tv" for n in (
        "bound", "steps_exact", "closed_form", "min_samples", "certify", "calibrate_sigma",
        "calibrate_steps", "exact_tv", "compare")},
    **{n: "verifier.api.profile" for n in (
        "epsilon", "delta", "privacy_profile", "get_noise_multiplier", "calibrate_run",
        "poisson_epsilon",
        "poisson_delta", "compare_samplers", "NoiseMultiplier", "NoCertifiedSigma",
        "SamplerComparison", "PrivacyProfile", "ProfilePoint")},
    **{n: "verifier.api.views" for n in ("rdp", "tradeoff", "poisson_rdp")},
    **{n: "verifier.core.arith" for n in ("InputError", "Interval", "Tri")},
    **{n: "verifier.core.run" for n in (
        "Run", "Phase", "Gaussian", "Poisson", "RandomAllocation", "EveryStep", "phase")},
    **{n: "verifier.core.run_files" for n in ("run_from_file", "run_from_dict",
                                               "run_from_history")},
}

__all__ = sorted(WHERE)


def __getattr__(name):
    if name in WHERE:
        import importlib
        return getattr(importlib.import_module(WHERE[name]), name)
    raise AttributeError(f"module 'verifier.api' has no attribute {name!r}")
