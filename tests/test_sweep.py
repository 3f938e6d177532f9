"""Certified sweeps on Dask (issue #28): a 12-cell sweep on a local cluster of two workers
equals the single calls cell by cell; a killed worker and an interrupted driver lose no
finished cell and compute none twice; a rerun computes nothing; the heatmap is read back;
every mistake of a spec is one line, a cell outside its engine's range named by its
coordinates, before anything runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction as F

import pytest

pytest.importorskip("distributed")

import verifier  # noqa: E402
from verifier.core.arith import InputErrors, decimal_str  # noqa: E402
from verifier.sweep import spec as S  # noqa: E402
from verifier.sweep.run import finished, run  # noqa: E402

SPEC = {"compute": "epsilon",
        "axes": {"sigma": ["1", "2"], "steps": [4, 10, 20], "epochs": [1, 2], "delta": ["1e-5"]}}


def test_twelve_cells_on_two_workers_equal_the_single_calls(tmp_path):
    sp = S.parse(SPEC)
    r = run(sp, str(tmp_path), workers=2)
    assert (r.cells, r.computed, r.reused) == (12, 12, 0)
    for rec in r.records:
        i = rec["inputs"]
        one = verifier.epsilon(i["sigma"], int(i["steps"]), int(i["epochs"]),
                               delta=i["delta"]).epsilon
        assert rec["status"] == "certified"
        assert rec["epsilon_lower"] == decimal_str(one.lower, 12, "down")
        assert rec["epsilon_upper"] == decimal_str(one.upper, 12, "up")
    again = run(sp, str(tmp_path), workers=2)                 # a finished sweep: nothing to do
    assert (again.computed, again.reused) == (0, 12) and again.records == r.records
    rows = (tmp_path / "table.csv").read_text().splitlines()
    assert rows[0] == "sigma,steps,epochs,delta,epsilon_lower,epsilon_upper,status,seconds,reason"
    assert len(rows) == 13
    import pyarrow.parquet as pq
    assert pq.read_table(str(tmp_path / "table.parquet")).num_rows == 12
    svg = (tmp_path / "heatmap-epochs-1-delta-0.00001.svg").read_text()
    assert svg.startswith("<svg") and ">sigma<" in svg and ">steps<" in svg
    assert "certified upper end" in svg


def test_a_killed_worker_and_an_interrupted_driver_lose_nothing(tmp_path):
    sp = S.parse(SPEC)
    seen = []

    def kill_then_stop(rec, client):
        seen.append(rec["key"])
        if len(seen) == 2:                     # kill one worker process outright
            import signal
            pids = client.run(os.getpid)
            os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
        if len(seen) == 6:
            raise KeyboardInterrupt            # the driver interrupted
    with pytest.raises(KeyboardInterrupt):
        run(sp, str(tmp_path), workers=2, on_record=kill_then_stop)
    cells = tmp_path / "cells"
    names = os.listdir(cells)
    assert len(finished(str(tmp_path))[0]) == 6 and not [n for n in names if n.endswith(".tmp")]
    r = run(sp, str(tmp_path), workers=2)
    assert (r.computed, r.reused) == (6, 6)
    keys = [rec["key"] for rec in r.records]
    assert len(set(keys)) == 12 and len(os.listdir(cells)) == 12
    assert all(rec["status"] == "certified" for rec in r.records)


def test_spec_mistakes_are_one_line_each_before_anything_runs(tmp_path):
    bad = {"compute": "epsilon", "axes": {"sigma": ["0.1", "1"], "steps": [10], "delta": [],
                                          "colour": ["red"]}}
    with pytest.raises(InputErrors) as e:
        S.parse(bad)
    msgs = e.value.messages
    assert any("unknown axis 'colour'" in m for m in msgs)
    assert any("axis delta must be a non-empty list" in m for m in msgs)
    with pytest.raises(InputErrors) as e:
        S.parse({"compute": "epsilon", "axes": {"sigma": ["0.1", "1"], "steps": [10],
                                               "delta": ["1e-5"]}})
    assert e.value.messages == ["sweep spec: cell (sigma = 0.1, steps = 10, delta = 0.00001): "
                                "sigma = 0.1 is outside the (epsilon, delta) engine's range "
                                "[0.3, 50]"]
    f = tmp_path / "s.toml"
    f.write_text('compute = "epsilon"\n[axes]\nsigma = { from = "1", to = "2", step = "0.5" }\n'
                 'steps = [10]\ndelta = ["1e-5"]\nepochs = [0]\n')
    p = subprocess.run([sys.executable, "-m", "verifier", "sweep", str(f), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "epochs: 0" in p.stderr
    assert not (tmp_path / "o").exists()


def test_cli_sweep_json(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('compute = "delta"\n[axes]\nsigma = ["2"]\nsteps = [10]\n'
                 'epsilon = ["1", "-1"]\nsampling = ["random-allocation", "poisson"]\n')
    p = subprocess.run([sys.executable, "-m", "verifier", "sweep", str(f), "--out",
                        str(tmp_path / "o"), "--workers", "2", "--json"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["cells"] == 4 and j["statuses"] == {"certified": 4} and j["figures"]
    one = verifier.poisson_delta("2", F(1, 10), 10, epsilon="-1").delta
    rows = (tmp_path / "o" / "table.csv").read_text().splitlines()
    assert any(r.endswith(f",{decimal_str(one.lower, 12, 'down')},{decimal_str(one.upper, 12, 'up')},certified,"
                          + r.split(",")[-2] + ",") for r in rows)


def test_sampler_difference_map(tmp_path):
    """The certified random-allocation-vs-Poisson difference over a grid, drawn as a map."""
    sp = S.parse({"compute": "sampler_difference",
                  "axes": {"sigma": ["1", "2"], "steps": [10, 20], "delta": ["1e-5"]}})
    r = run(sp, str(tmp_path), workers=2)
    for rec in r.records:
        i = rec["inputs"]
        c = verifier.compare_samplers(i["sigma"], int(i["steps"]), 1, delta=i["delta"])
        assert rec["status"] == "certified" and c.difference is not None
        assert rec["sampler_difference_lower"] == decimal_str(c.difference.lower, 12, "down")
    svg = (tmp_path / "heatmap-delta-0.00001.svg").read_text()
    assert "sampler_difference (certified upper end)" in svg


def test_a_cell_beyond_a_workers_memory_refuses_the_spec_before_anything_runs(tmp_path):
    f = tmp_path / "big.toml"
    f.write_text('compute = "epsilon"\n[axes]\nsigma = ["2"]\nsteps = [10, 10000000]\n'
                 'delta = ["1e-8"]\n')
    p = subprocess.run([sys.executable, "-m", "verifier", "sweep", str(f), "--out",
                        str(tmp_path / "o"), "--memory-per-worker", "300MiB"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "cell (sigma = 2, steps = 10000000, delta = 1e-8) would need up to about" in p.stderr
    assert "--memory-per-worker 300 MiB" in p.stderr and not (tmp_path / "o").exists()
    p = subprocess.run([sys.executable, "-m", "verifier", "sweep", str(f), "--out",
                        str(tmp_path / "o"), "--memory-per-worker", "lots"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "memory size 'lots' is not a size" in p.stderr
