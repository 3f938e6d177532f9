"""Sweeps whose cells are runs (issue 44): a [run] template of phases whose values name the
sweep's axes; each cell's run is the template at the cell's values, its record holds the run
(canonical JSON) and equals the API's answer for that run; the mistakes of a template are
one line each before anything runs."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("distributed")

import verifier  # noqa: E402
from verifier.core.arith import InputError, InputErrors, decimal_str  # noqa: E402
from verifier.core.run import Run, phase  # noqa: E402
from verifier.sweep import spec as S  # noqa: E402
from verifier.sweep.run import run  # noqa: E402

TEMPLATE = {"phases": [
    {"noise_multiplier": "1.2", "sample_rate": "0.05", "steps": 40},
    {"noise_multiplier": "sigma2", "sample_rate": "0.05", "steps": "steps2"}]}


def _two(sigma2, steps2):
    return Run((phase("1.2", sample_rate="0.05", steps=40),
                phase(sigma2, sample_rate="0.05", steps=steps2)))


def test_a_sweep_of_runs_equals_the_api_cell_by_cell(tmp_path):
    sp = S.parse({"compute": "epsilon", "run": TEMPLATE,
                  "axes": {"sigma2": ["0.9", "1.1"], "steps2": [20, 40], "delta": ["1e-5"]}})
    cells = sp.cells()
    assert len(cells) == 4 and all("run" in c for c in cells)
    r = run(sp, str(tmp_path), workers=2)
    assert (r.cells, r.computed) == (4, 4)
    for rec in r.records:
        i = rec["inputs"]
        want = _two(i["sigma2"], int(i["steps2"]))
        assert verifier.run_from_dict(json.loads(i["run"])) == want
        one = verifier.epsilon(want, delta="1e-5").epsilon
        assert rec["status"] == "certified"
        assert rec["epsilon_lower"] == decimal_str(one.lower, 12, "down")
        assert rec["epsilon_upper"] == decimal_str(one.upper, 12, "up")
    rows = (tmp_path / "table.csv").read_text().splitlines()
    assert rows[0].startswith("sigma2,steps2,delta,epsilon_lower,epsilon_upper")
    svg = (tmp_path / "heatmap-delta-0.00001.svg").read_text()
    assert ">sigma2<" in svg and " x<" not in svg and ">x<" not in svg   # every cell drawn


def test_a_sweep_of_runs_calibrates_the_common_noise_scale(tmp_path):
    sp = S.parse({"compute": "noise_scale", "run": TEMPLATE,
                  "axes": {"sigma2": ["0.9"], "steps2": [40], "target_epsilon": [3],
                           "delta": ["1e-5"]}})
    rec = run(sp, str(tmp_path), workers=1).records[0]
    assert rec["status"] == "certified" and rec["noise_scale_lower"] == rec["noise_scale_upper"]
    assert rec["noise_scale_upper"].startswith("1.06")


@pytest.mark.parametrize("spec, message", [
    ({"compute": "epsilon", "run": TEMPLATE, "axes": {"sigma2": ["1"], "delta": ["1e-5"]}},
     "[run] uses the name 'steps2', not an axis"),
    ({"compute": "epsilon", "run": TEMPLATE,
      "axes": {"sigma2": ["1"], "steps2": [4], "sigma": ["2"], "delta": ["1e-5"]}},
     "unknown axis 'sigma'"),
    ({"compute": "exact_tv", "run": TEMPLATE, "axes": {"sigma2": ["1"], "steps2": [4]}},
     "compute must be one of epsilon, delta, noise_scale for a sweep of runs"),
    ({"compute": "epsilon", "run": {"phases": []}, "axes": {"delta": ["1e-5"]}},
     "[run] must be a table with a non-empty list 'phases'"),
    ({"compute": "epsilon", "run": TEMPLATE,
      "axes": {"sigma2": ["1", "0.01"], "steps2": [4], "delta": ["1e-5"]}},
     "cell (sigma2 = 0.01, steps2 = 4, delta = 0.00001)"),
    ({"compute": "epsilon", "run": TEMPLATE,
      "axes": {"sigma2": ["1"], "steps2": ["2.5"], "delta": ["1e-5"]}},
     "[run], phase 2: steps must be an integer"),
])
def test_run_template_mistakes_are_one_line_before_anything_runs(spec, message):
    with pytest.raises((InputError, InputErrors)) as e:
        S.parse(spec, "s.toml")
    assert message in str(e.value), str(e.value)
    assert "{" not in str(e.value)             # a cell is named by its axes, not its JSON


def test_an_edited_template_is_recomputed_not_read_back(tmp_path):
    """A cell's key holds its run: the same axes under another [run] are other cells (a
    resumed sweep never reads back an answer about a run that is not the spec's)."""
    axes = {"sigma2": ["0.9"], "steps2": [20], "delta": ["1e-5"]}
    first = run(S.parse({"compute": "epsilon", "run": TEMPLATE, "axes": axes}), str(tmp_path),
                workers=1)
    other = json.loads(json.dumps(TEMPLATE))
    other["phases"][0]["noise_multiplier"] = "1.3"
    again = run(S.parse({"compute": "epsilon", "run": other, "axes": axes}), str(tmp_path),
                workers=1)
    assert (again.computed, again.reused) == (1, 0)
    assert again.records[0]["epsilon_upper"] < first.records[0]["epsilon_upper"]
