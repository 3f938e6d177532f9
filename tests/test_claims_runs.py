"""Claims over runs (issue 44): a claims file's ``[runs.NAME]`` tables, passed as ``run =
NAME`` to run_epsilon, run_delta_at and run_noise_scale; the example file's verdicts, the
values equal to the API's, and the mistakes refused in one line naming the file."""
from __future__ import annotations

import os
from fractions import Fraction as F

import pytest

import verifier
from verifier.claims import audit as A
from verifier.claims import format as C
from verifier.core.arith import InputError, InputErrors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "claims", "runs.toml")
TWO = '''
[runs.two]
phases = [
    { noise_multiplier = "1.2", sample_rate = "0.05", steps = 40 },
    { noise_multiplier = 0.9, sample_rate = 0.05, steps = 40 },
]
'''


def _file(tmp_path, body, fmt="verifier-claims/2"):
    p = tmp_path / "c.toml"
    p.write_text(f'format = "{fmt}"\n' + body, encoding="utf-8")
    return C.load(str(p))


def test_the_example_s_run_claims_are_confirmed_by_the_run_engine():
    """Issue 44's done-when as claims: the two-phase run below 3.42 and at least PRV's lower
    estimate, 0.6 below the collapse; its noise calibrations; the five-phase run; its TV (within
    the API's delta(0)) and its trade-off band at a = 1/2 (verifier.tradeoff's, rounded outward)."""
    results = A.audit(C.load(EXAMPLE))
    assert len(results) == 9
    bad = [(r.claim.id, r.verdict) for r in results if r.verdict != A.CONFIRMED]
    assert not bad
    by_id = {r.claim.id: r for r in results}
    two = verifier.run_from_file(os.path.join(ROOT, "examples", "runs", "two_phase_poisson.toml"))
    eps = verifier.epsilon(two, delta="1e-5").epsilon
    v = by_id["two-phase.epsilon.below-3.42"].cases[0].value
    assert v.lower <= eps.lower and eps.upper <= v.upper and v.upper - v.lower < F(1, 10 ** 3)
    assert by_id["two-phase.noise-scale"].cases[0].value.contains(F(106, 100))
    assert by_id["two-phase.phase-2-noise"].cases[0].value.contains(F(97, 100))
    assert by_id["two-phase.epsilon.below-3.42"].cases[0].args == {"two_phase": "[runs.two_phase]"}
    tv, api = by_id["two-phase.tv"].cases[0].value, verifier.delta(two, epsilon=0).delta
    assert tv.lower <= api.upper and api.lower <= tv.upper and tv.upper - tv.lower < F(1, 10 ** 4)
    band = verifier.tradeoff(two, at="1/2").points[0].f
    v = by_id["two-phase.tradeoff.half"].cases[0].value     # the band, rounded outward
    assert v.lower <= band.lower and band.upper <= v.upper and v.upper - v.lower < F(1, 10 ** 3)


def test_a_printed_value_the_run_does_not_meet_is_refuted(tmp_path):
    """The judge reads the run engine's bracket: 3.39 is below it (refuted), 3.5 above."""
    body = TWO + '''
[[claims]]
id = "low"
where = "x"
expr = "run_epsilon(run = two, delta = 1e-5)"
printed = "3.39"
judge = "at-most"

[[claims]]
id = "high"
where = "x"
expr = "run_epsilon(run = two, delta = 1e-5)"
printed = "3.5"
judge = "at-most"
'''
    v = {r.claim.id: r.verdict for r in A.audit(_file(tmp_path, body))}
    assert v == {"low": A.REFUTED, "high": A.CONFIRMED}


@pytest.mark.parametrize("runs, expr, message", [
    ('[runs.two]\nphases = [{ noise_multiplier = "1", sample_rate = "0.05", stepz = 4 }]',
     "run_epsilon(run = two, delta = 1e-5)", "runs.two, phase 1: unknown key 'stepz'"),
    ('[runs.two]\nphases = []', "run_epsilon(run = two, delta = 1e-5)",
     "runs.two: 'phases' must be a non-empty list"),
    ('[runs.pi]\nphases = [{ noise_multiplier = "1", sample_rate = "0.05", steps = 4 }]',
     "run_epsilon(run = pi, delta = 1e-5)", "the name 'pi' is bound here"),
    (TWO, "run_epsilon(run = three, delta = 1e-5)", "unbound name 'three'"),
    (TWO + "\n[[claims]]\nid = \"c\"\nwhere = \"x\"\nexpr = \"two\"\nprinted = \"1\"\n"
     "judge = \"rounded\"\nargs = { two = 3 }\n", None, "'two' names a run of [runs]"),
])
def test_run_tables_mistakes_are_one_line_naming_the_file(tmp_path, runs, expr, message):
    body = runs + ("" if expr is None else
                   f'\n[[claims]]\nid = "c"\nwhere = "x"\nexpr = "{expr}"\nprinted = "1"\n'
                   'judge = "at-most"\n')
    with pytest.raises((InputError, InputErrors)) as e:
        _file(tmp_path, body)
    assert message in str(e.value)
    assert all(line.startswith(str(tmp_path)) for line in str(e.value).splitlines())


def test_runs_need_format_2_and_a_run_argument_names_a_run(tmp_path):
    body = TWO + '''
[[claims]]
id = "c"
where = "x"
quantity = "delta_rhs"
args = { sigma = "1", steps = 10 }
printed = "1"
judge = "at-most"
'''
    with pytest.raises((InputError, InputErrors), match=r"\[runs\] needs format"):
        _file(tmp_path, body, fmt="verifier-claims/1")
    from verifier.claims.run_quantities import phase_arg, run_arg
    for bad in ("two", 3, "{not json"):
        with pytest.raises(InputError, match="run must name a run"):
            run_arg(bad)
    for bad in ("0", 0, True, "x", -1):
        with pytest.raises(InputError, match="phase must be 'all' or a phase number"):
            phase_arg(bad)
    assert phase_arg("all") is None and phase_arg("2") == 2


def test_a_phase_outside_the_run_is_an_evaluation_error_not_a_verdict(tmp_path):
    body = TWO + '''
[[claims]]
id = "c"
where = "x"
expr = "run_noise_scale(run = two, target_epsilon = 3, delta = 1e-5, phase = 3)"
printed = "1"
judge = "rounded"
'''
    with pytest.raises(InputError, match="phase must be a phase number 1..2"):
        A.audit(_file(tmp_path, body))
