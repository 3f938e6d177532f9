"""Memory before it is spent (issues #27, #28): a run that will need several GB is announced
before it allocates, one that would exceed the limit is refused in one line (exit 2), a
refinement stops at the memory limit and says so, a sweep refuses a cell that would exceed
a worker's share before anything runs, and the estimates are upper estimates of the peaks
measured (slow)."""
from __future__ import annotations

import functools

import json
import os
import subprocess
import sys
from fractions import Fraction as F

import pytest

import verifier
from verifier.core.arith import InputError, InputErrors
from verifier.numerics import memory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cli(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "verifier", *args], capture_output=True,
                          text=True, cwd=ROOT, env=e, timeout=600)


@pytest.mark.parametrize("text,n", [("3GiB", 3 * 2 ** 30), ("2.5GB", 2_500_000_000),
                                    ("800MB", 800_000_000), ("1000000", 1_000_000),
                                    ("64 MiB", 64 * 2 ** 20)])
def test_sizes_are_read_as_written(text, n):
    assert memory.parse_size(text) == n


@pytest.mark.parametrize("text", ["", "3 parsecs", "-1GB", "0", "GiB", "1e9", "nan"])
def test_a_size_that_is_not_one_is_refused_in_one_line(text):
    with pytest.raises(InputError) as e:
        memory.parse_size(text)
    assert "\n" not in str(e.value) and "not a size" in str(e.value)


def test_a_ball_costs_more_beyond_two_limbs():
    assert memory.ball_bytes(53) == memory.ball_bytes(128) == 139
    assert memory.ball_bytes(129) > 139
    assert memory.ball_bytes(1024) > memory.ball_bytes(512) > memory.ball_bytes(256)


def test_reserve_refuses_beyond_the_limit_and_allows_below():
    need = memory.estimate(10 ** 6, "profile", 128)
    with memory.limited(need + 10 ** 8):
        assert memory.reserve(10 ** 6, "profile", "a test run", prec=128) <= need + 10 ** 8
    with memory.limited(need // 2), pytest.raises(memory.MemoryLimitError) as e:
        memory.reserve(10 ** 6, "profile", "a test run", prec=128)
    msg = str(e.value)
    assert "a test run would need up to about" in msg and memory.ENV in msg and "\n" not in msg


def test_reserve_announces_a_large_run_once(monkeypatch):
    said = []
    monkeypatch.setattr(memory, "WARN_BYTES", 10 ** 6)
    monkeypatch.setitem(memory._HOOK, "said", set())
    memory.on_warning(said.append)
    try:
        with memory.limited(10 ** 15):
            memory.reserve(10 ** 5, "exact-tv", "a large run", prec=128)
            memory.reserve(10 ** 5, "exact-tv", "a large run", prec=128)
    finally:
        memory.on_warning(None)
    assert len(said) == 1 and said[0].startswith("a large run will need up to about")


def test_below_the_warning_nothing_is_said(monkeypatch):
    said = []
    monkeypatch.setitem(memory._HOOK, "said", set())
    memory.on_warning(said.append)
    try:
        memory.reserve(1000, "exact-tv", "a small run", prec=128)
    finally:
        memory.on_warning(None)
    assert said == []


@pytest.mark.parametrize("M,kind", [(10 ** 6, "profile-band-1"), (999, "profile")])
def test_a_dry_run_reports_the_estimate_and_allocates_nothing(M, kind):
    with memory.dry_run(), pytest.raises(memory.DryRun) as d:
        verifier.epsilon(F(2), M, 1, delta=F(1, 10 ** 8))
    assert d.value.points >= 2 ** 15
    assert d.value.need == memory.estimate(d.value.points, kind, d.value.need and
                                           _prec_of(d.value, kind), now=memory.BASELINE)


def _prec_of(d, kind):           # the precision the estimate used, recovered from its size
    per = (d.need - memory.BASELINE) // (d.points * memory.PER_POINT[kind])
    return next(p for p in range(53, 4097) if memory.ball_bytes(p) == per)


def test_the_cli_refuses_beyond_the_limit_in_one_line():
    r = _cli("epsilon", "--sigma", "1", "--steps-per-epoch", "10000", "--epochs", "1",
             "--delta", "1e-8", env={memory.ENV: "60MB"})
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verifier: error: the privacy profile at "
                                                   "sigma = 1, M = 10000 would need up to about")


def test_the_cli_refuses_a_limit_that_is_not_a_size():
    r = _cli("exact", "--sigma", "1", "--steps-per-epoch", "100", env={memory.ENV: "lots"})
    assert r.returncode == 2 and "memory size 'lots' is not a size" in r.stderr


def test_the_cli_warns_on_stderr_before_a_large_run(monkeypatch, capsys):
    from verifier.cli import main
    monkeypatch.setattr(memory, "WARN_BYTES", 10 ** 6)
    monkeypatch.setitem(memory._HOOK, "said", set())
    assert main(["exact", "--sigma", "1", "--steps-per-epoch", "1000", "--json"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)                                  # stdout: the JSON alone
    assert err.startswith("verifier: warning: the exact TV at sigma = 1, M = 1000 will need "
                          "up to about")


def test_refinement_stops_at_the_memory_limit_and_says_so(monkeypatch):
    # the time limit out of the way (200 s, not 60): on a slow or loaded machine level 8 (the
    # first refined level; level 1 is cached by the base run) predicted level 12 past 60 s and
    # the loop stopped by time before memory could refuse anything
    from verifier.bounds import profile as PR
    monkeypatch.setattr(PR, "refine", functools.partial(PR.refine, seconds=200.0))
    base = verifier.epsilon(F(1), 200, 10, delta=F(1, 10 ** 6))
    with memory.dry_run(), pytest.raises(memory.DryRun) as d:
        verifier.epsilon(F(1), 200, 10, delta=F(1, 10 ** 6), rel_width=F(1, 10 ** 7))
    # the first level the dry run reserves fits (the limit is 1.5 times its need); a finer
    # level, more points, does not
    cap = memory.resident() + (d.value.need - memory.BASELINE) * 3 // 2
    with memory.limited(cap):
        r = verifier.epsilon(F(1), 200, 10, delta=F(1, 10 ** 6), rel_width=F(1, 10 ** 7))
    limit = r.info["refinement_limit"]
    assert limit.startswith("refinement level ") and " refused: " in limit
    assert "of memory" in limit and memory.ENV in limit
    assert base.epsilon.lower <= r.epsilon.lower <= r.epsilon.upper <= base.epsilon.upper


@pytest.mark.parametrize("kind", ["poisson", "run"])
def test_a_poisson_refinement_past_the_memory_limit_keeps_the_last_bracket(monkeypatch, kind,
                                                                          cli):
    """The Poisson lattice (and a run's) refines while the bracket is wider than asked; a
    finer lattice step whose composition the memory limit refuses ends the refinement with
    the last bracket (certified at any step) and the reason in info["refinement_limit"],
    printed by the CLI, instead of refusing the whole question (issue 48: T = 1e7 ran ten
    minutes to exit 2). The limit here: the first composition's length (on the full DFT
    path: the sparse path reserves its coarse DFTs, of other lengths)."""
    from verifier.bounds import poisson as PO
    from verifier.bounds import runs
    from verifier.core.run import Run, phase
    from verifier.numerics import convolve as C
    from verifier.numerics import spectral
    monkeypatch.setattr(spectral, "MIN_N", 1 << 40)
    real, sizes = C.reserve, []

    def spy(points, *a, **k):
        sizes.append(points)
        return real(points, *a, **k)

    def ask():
        PO.clear_cache(), runs.clear_cache()
        if kind == "poisson":
            return verifier.poisson_epsilon(1, "0.01", 200, delta="1e-5", rel_width="1e-4")
        return verifier.epsilon(Run((phase("1", sample_rate="0.01", steps=100),
                                     phase("1.5", sample_rate="0.01", steps=150))),
                                delta="1e-5", rel_width="1e-4")
    monkeypatch.setattr(C, "reserve", spy)
    full = ask()
    first = sizes[0]
    assert max(sizes) > first and "refinement_limit" not in full.info

    def capped(points, engine, what, *a, **k):
        if points > first:
            raise memory.MemoryLimitError(f"{what}: {points} points, past the test's limit")
        return real(points, engine, what, *a, **k)
    monkeypatch.setattr(C, "reserve", capped)
    r = ask()
    assert "past the test's limit" in r.info["refinement_limit"]
    assert r.epsilon.lower <= full.epsilon.upper and full.epsilon.lower <= r.epsilon.upper
    assert r.epsilon.upper - r.epsilon.lower > full.epsilon.upper - full.epsilon.lower
    if kind == "poisson":
        PO.clear_cache()
        rc, out, _ = cli("epsilon", "--sampling", "poisson", "--sigma", "1", "--sample-rate",
                         "0.01", "--total-steps", "200", "--delta", "1e-5", "--rel-width",
                         "1e-4")
        assert rc == 0 and "the bracket is wider than asked: the next lattice step" in out


def test_a_refined_lattice_step_has_a_budget_unless_a_limit_was_set(monkeypatch):
    """memory.refining: where no limit was set, a refined step may use at most REFINE_BYTES
    (the first step already gave a certified bracket; T = 1e7 grew to 8M points and 13 GiB
    at the default width); VERIFIER_MEMORY_LIMIT or a worker's share governs when set."""
    monkeypatch.delenv(memory.ENV, raising=False)
    monkeypatch.setattr(memory, "physical", lambda: 64 * 1024 ** 3)
    with memory.refining():
        assert memory.limit() == memory.REFINE_BYTES
    monkeypatch.setenv(memory.ENV, "10GiB")
    with memory.refining():
        assert memory.limit() == 10 * 1024 ** 3
    monkeypatch.delenv(memory.ENV)
    with memory.limited(7 * 1024 ** 3), memory.refining():
        assert memory.limit() == 7 * 1024 ** 3
    monkeypatch.setattr(memory, "physical", lambda: 2 * 1024 ** 3)
    with memory.refining():
        assert memory.limit() == 3 * 2 * 1024 ** 3 // 4


def test_a_sweep_refuses_a_cell_beyond_a_workers_share_before_anything_runs(tmp_path):
    from verifier.sweep import preflight
    from verifier.sweep import spec as S
    sp = S.parse({"compute": "epsilon", "axes": {"sigma": ["2"], "steps": [100, 10000000],
                                                 "epochs": [1], "delta": ["1e-8"]}},
                 "big.toml")
    with pytest.raises(InputErrors) as e:
        preflight.check(sp, sp.cells(), memory.parse_size("300MiB"), sp.path)
    assert e.value.messages == [m for m in e.value.messages if "steps = 10000000" in m]
    assert len(e.value.messages) == 1
    assert e.value.messages[0].startswith("big.toml: cell (sigma = 2, steps = 10000000, "
                                          "epochs = 1, delta = 1e-8) would need up to about")
    preflight.check(sp, sp.cells(), memory.parse_size("3GiB"), sp.path)     # fits


def test_a_worker_holds_its_cells_to_its_share():
    from verifier.sweep.cells import compute_cell
    cell = {"sigma": F(2), "steps": 10 ** 6, "epochs": 1, "delta": F(1, 10 ** 8)}
    rec = compute_cell("epsilon", cell, memory_limit=10 ** 8)
    assert rec["status"] == "refused" and "of memory" in rec["reason"]


def _probe() -> str:
    """bench/bench_memory.py's probe (one configuration in a fresh process: the largest
    estimate announced and the process's own peak, as JSON)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "bench_memory", os.path.join(ROOT, "bench", "bench_memory.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PROBE


@pytest.mark.slow
@pytest.mark.parametrize("args", [("tv", "1", "100000000", "1"),
                                  ("eps", "2", "3000000", "1", "1e-10"),
                                  ("eps", "1", "500", "10", "1e-8", "1e-5")])
def test_the_estimates_are_upper_estimates_of_the_peaks(args):
    r = subprocess.run([sys.executable, "-c", _probe(), *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    got = json.loads(r.stdout)
    assert got["peak"] <= got["estimate"] <= 3 * got["peak"], got


def test_one_cell_per_group_is_planned_the_largest():
    from verifier.sweep import preflight
    from verifier.sweep import spec as S
    sp = S.parse({"compute": "epsilon", "axes": {"sigma": ["1", "2"], "steps": [10, 100],
                                                 "epochs": [1, 5], "delta": ["1e-5", "1e-8"]}})
    reps = preflight.representatives(sp.cells())
    assert len(reps) == 4 and all(c["epochs"] == 5 and c["delta"] == F(1, 10 ** 8) for c in reps)
    assert {(c["sigma"], c["steps"]) for c in reps} == {(1, 10), (1, 100), (2, 10), (2, 100)}


def test_poisson_cells_are_not_planned_and_small_cells_not_with_a_large_share(monkeypatch):
    from verifier.sweep import preflight
    from verifier.sweep import spec as S
    cell = {"sigma": F(1), "steps": 100, "delta": F(1, 10 ** 5), "sampling": "poisson"}
    assert preflight.needs("epsilon", cell) is None
    planned = []
    monkeypatch.setattr(preflight, "needs", lambda c, cell: planned.append(cell))
    sp = S.parse({"compute": "epsilon", "axes": {"sigma": ["1"], "steps": [100, 100000],
                                                 "delta": ["1e-5"]}})
    preflight.check(sp, sp.cells(), memory.parse_size("3GiB"), "s")
    assert [c["steps"] for c in planned] == [100000]


def test_cached_engines_are_let_go_before_the_limit_refuses(monkeypatch):
    """At the limit, reserve empties the engine caches and measures again (a claims audit's
    narrower requests were refused on the memory its coarser requests' engines held): the
    process's memory (a stand-in for /proc, which other tests in the same worker move) is
    3 GiB while a cache holds an engine and 1 GiB once it is empty, the limit 2 GiB plus the
    reservation: it passes and the caches are empty; an engine held by its caller stays
    alive.  With nothing cached left, refused as before."""
    from verifier.numerics.cache import EngineCache
    cache, kept = EngineCache(2), EngineCache(2)
    held = kept.get("in use", lambda: ["an engine"])
    cache.get("old", lambda: ["an engine of an earlier question"])
    monkeypatch.setattr(memory, "resident", lambda: (3 if len(cache) else 1) * 1024 ** 3)
    need = 10 ** 5 * memory.PER_POINT["compose"] * memory.ball_bytes(128)
    with memory.limited(2 * 1024 ** 3 + need):
        memory.reserve(10 ** 5, "compose", "a test", 128)
    assert len(cache) == 0 and len(kept) == 0 and held == ["an engine"]
    with memory.limited(1024 ** 3 + need // 2), pytest.raises(memory.MemoryLimitError):
        memory.reserve(10 ** 5, "compose", "a test", 128)
