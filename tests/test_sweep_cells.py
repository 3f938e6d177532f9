"""A sweep's cell files are checked, not trusted (issue 46): each carries a digest of its
content; on resume a file that is torn, empty, garbage, edited (a valid record with other
numbers) or of another cell is named and recomputed; a cell that failed is retried unless
--no-retry; the scheduler and memory flags are one line each, before anything runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("distributed")

from verifier.core.arith import InputError  # noqa: E402
from verifier.sweep import spec as S  # noqa: E402
from verifier.sweep.cells import digest, key, validate  # noqa: E402
from verifier.sweep.run import check_scheduler, finished, run  # noqa: E402

SPEC = {"compute": "epsilon", "axes": {"sigma": ["1", "2"], "steps": [10], "delta": ["1e-5"]}}


def _files(out):
    d = os.path.join(out, "cells")
    return sorted(os.path.join(d, n) for n in os.listdir(d))


def test_a_tampered_torn_or_foreign_cell_file_is_named_and_recomputed(tmp_path):
    sp = S.parse(SPEC)
    first = run(sp, str(tmp_path), workers=1)
    good = {r["key"]: r for r in first.records}
    a, b = _files(str(tmp_path))
    rec = json.load(open(a))
    rec["epsilon_upper"] = "0.000000000001"          # a valid file with another number
    open(a, "w").write(json.dumps(rec))
    open(b, "w").write('{"key": ')                    # torn
    done, bad = finished(str(tmp_path), sp)
    assert done == {} and len(bad) == 2
    assert any("digest does not match" in x and a in x for x in bad)
    assert any("unreadable" in x and b in x for x in bad)
    again = run(sp, str(tmp_path), workers=1)
    assert again.computed == 2 and len(again.set_aside) == 2
    for r in again.records:                              # the true answers, recomputed
        assert r["epsilon_upper"] == good[r["key"]]["epsilon_upper"]
    assert run(sp, str(tmp_path), workers=1).computed == 0   # now trusted


def test_a_record_is_valid_only_for_its_own_cell():
    sp = S.parse(SPEC)
    c1, c2 = sp.cells()
    rec = {"key": key("epsilon", c1), "compute": "epsilon", "inputs": {"sigma": "1",
           "steps": "10", "delta": "0.00001"}, "epsilon_lower": "1", "epsilon_upper": "2",
           "status": "certified", "reason": "", "seconds": 0.1, "verifier": "x"}
    rec["digest"] = digest(rec)
    assert validate(rec, "epsilon", c1) == ""
    assert validate(rec, "epsilon", c2) == "it answers another cell"
    assert validate([], "epsilon", c1) == "not a record"
    forged = dict(rec, inputs={**rec["inputs"], "sigma": "2"})
    forged["digest"] = digest(forged)
    assert validate(forged, "epsilon", c1) == "its inputs are not the cell's"


def test_a_failed_cell_is_retried_unless_asked_not_to(tmp_path):
    sp = S.parse(SPEC)
    run(sp, str(tmp_path), workers=1)
    path = _files(str(tmp_path))[0]
    rec = json.load(open(path))
    rec.update({"status": "error", "reason": "KilledWorker: a worker died",
                "epsilon_lower": None, "epsilon_upper": None})
    rec["digest"] = digest(rec)
    open(path, "w").write(json.dumps(rec))
    kept = run(sp, str(tmp_path), workers=1, retry=False)
    assert kept.computed == 0 and sorted(r["status"] for r in kept.records) == ["certified", "error"]
    again = run(sp, str(tmp_path), workers=1)
    assert again.computed == 1 and "retried" in again.set_aside[0]
    assert all(r["status"] == "certified" for r in again.records)


@pytest.mark.parametrize("address, message", [
    ("garbage", "is not an address"), ("tls://127.0.0.1:1", "only tcp:// schedulers"),
    ("ws://x:1", "only tcp://"), ("tcp://host", "is not an address")])
def test_scheduler_addresses_are_checked_before_anything_runs(address, message):
    with pytest.raises(InputError, match=message):
        check_scheduler(address)
    check_scheduler("tcp://10.0.0.1:8786")
    check_scheduler("localhost:8786")


def test_an_unreachable_scheduler_and_huge_sizes_are_one_line_exit_2(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('compute = "epsilon"\n[axes]\nsigma = ["2"]\nsteps = [10]\ndelta = ["1e-5"]\n')
    huge = "9" * 400
    for argv, env, needle in (
            (["--scheduler", "tcp://127.0.0.1:1"], {}, "cannot connect within 5s"),
            (["--memory-per-worker", huge], {}, "--memory-per-worker: memory size"),
            (["--memory-per-worker", "0.0001"], {}, "less than one byte")):
        p = subprocess.run([sys.executable, "-m", "verifier", "sweep", str(f), "--out",
                            str(tmp_path / "o"), *argv], capture_output=True, text=True,
                           timeout=120, env={**os.environ, **env})
        assert p.returncode == 2 and needle in p.stderr and len(p.stderr.splitlines()) == 1, \
            (argv, p.stderr)
    p = subprocess.run([sys.executable, "-m", "verifier", "epsilon", "--sigma", "2",
                        "--steps-per-epoch", "10", "--delta", "1e-5"], capture_output=True,
                       text=True, timeout=120,
                       env={**os.environ, "VERIFIER_MEMORY_LIMIT": huge})
    assert p.returncode == 2 and p.stderr.startswith("verifier: error: VERIFIER_MEMORY_LIMIT")


def test_a_killed_worker_is_a_failed_cell_not_a_lost_sweep():
    """Dask's KilledWorker (a worker that died on the cell after its retries) becomes the
    cell's record of failure, valid and retried on the next run; the sweep goes on."""
    from distributed.scheduler import KilledWorker
    from verifier.sweep.run import _result
    sp = S.parse(SPEC)
    cell = sp.cells()[0]

    class Died:
        def result(self):
            import types
            raise KilledWorker("compute_cell-1", types.SimpleNamespace(
                address="tcp://127.0.0.1:1"), 3)
    rec = _result(Died(), "epsilon", cell)
    assert rec["status"] == "error" and rec["reason"].startswith("KilledWorker")
    assert validate(rec, "epsilon", cell) == ""


def test_an_exact_tv_cell_of_a_million_epochs_is_refused_before_anything_runs():
    import verifier
    with pytest.raises(InputError, match="epochs must be at most 1000"):
        verifier.exact_tv(1, 20, 10 ** 6)
    with pytest.raises(Exception, match=r"E <= 1000"):
        S.parse({"compute": "exact_tv", "axes": {"sigma": ["1"], "steps": [20],
                                                 "epochs": [10 ** 6]}}, "s.toml")
