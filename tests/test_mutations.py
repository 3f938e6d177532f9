"""The mutation suite (``python -m pytest -m mutation``; run by .ci/run): every mutation
listed in tests/mutations.py must be killed, i.e. make at least one of its killer tests
fail, and the killers must pass unmutated.  Each run is a fresh interpreter, the mutation
applied before pytest collects anything."""
import os
import subprocess
import sys

import pytest

from mutations import MUTATIONS

pytestmark = pytest.mark.mutation
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))

RUNNER = """
import sys
sys.path.insert(0, {here!r})
import mutations
if {mid!r}:
    mutations.apply({mid!r})
import pytest
sys.exit(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-m", "not mutation",
                      "-o", "addopts=", *{nodes!r}]))
"""


def _run(mid: str, nodes) -> subprocess.CompletedProcess:
    env = dict(os.environ, HYPOTHESIS_PROFILE="default", VERIFIER_FUZZ="20")
    code = RUNNER.format(here=HERE, mid=mid, nodes=list(nodes))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


def _missing(node: str):
    """The optional module a killer's file needs and this install lacks (its module-level
    ``pytest.importorskip``, bare or assigned: the sweep's files need Dask, Opacus's torch),
    or None."""
    import importlib.util
    import re
    with open(os.path.join(ROOT, node.split("::")[0])) as f:
        mods = re.findall(r'^(?:\w+ = )?pytest\.importorskip\("([^"]+)"\)', f.read(), re.M)
    return next((m for m in mods if importlib.util.find_spec(m) is None), None)


def test_every_mutation_is_listed_once_with_killers():
    ids = [m.id for m in MUTATIONS]
    assert len(ids) == len(set(ids)) and len(ids) >= 20
    kinds = {m.kind for m in MUTATIONS}
    assert {"hypothesis", "box", "search", "tail", "spread", "judge", "proof"} <= kinds
    assert all(m.killers for m in MUTATIONS)


def _lacking(mut) -> set:
    return {_missing(n) for n in mut.killers} - {None}


def _unmutated_nodes() -> list:
    return sorted({n for m in MUTATIONS for n in m.killers if _missing(n) is None})


@pytest.fixture(scope="module")
def runs(request):
    """Every selected run of this module started at once on a pool of one worker per core
    (each is its own interpreter, so the machine's cores run them side by side: the suite
    takes about half its serial time on 2 cores); a test waits for its own run's result.
    Only the selected tests' runs are started (``-k`` picks a few, the pool runs those).
    Under pytest-xdist (``-n``) each worker runs the runs of its own tests, one at a time."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = {}
    for item in request.session.items:
        if item.module is not request.module:
            continue
        if item.originalname == "test_killers_pass_unmutated":
            jobs[""] = _unmutated_nodes()
        elif item.originalname == "test_mutation_is_killed":
            mut = item.callspec.params["mut"]
            if not _lacking(mut):
                jobs[mut.id] = mut.killers
    if hasattr(request.config, "workerinput"):    # under pytest-xdist: its workers share the
        yield lambda mid: _run(mid, jobs[mid])    # runs out; each runs its own in turn
        return
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1)))
    futures = {mid: pool.submit(_run, mid, nodes) for mid, nodes in jobs.items()}
    yield lambda mid: futures[mid].result()
    pool.shutdown(cancel_futures=True)


def test_killers_pass_unmutated(runs):
    p = runs("")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]


@pytest.mark.parametrize("mut", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_mutation_is_killed(mut, runs):
    lacking = _lacking(mut)
    if lacking:                 # .ci/run installs every extra before this suite
        pytest.skip(f"its killers need {', '.join(sorted(lacking))} (an optional extra)")
    p = runs(mut.id)
    # 1: a test failed (killed); 0 would mean the mutation survived; anything else is an
    # error of the harness, not a kill
    assert p.returncode == 1, (f"mutation {mut.id} ({mut.what}) survived or errored "
                               f"(exit {p.returncode}):\n" + p.stdout[-3000:] + p.stderr[-2000:])
