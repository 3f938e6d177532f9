"""The input layer (a review finding): every hostile argument is refused with one line
and exit 2 before any computation (the work counted by conftest.Work, not timed), and nothing is written; inputs inside
the limits whose answer the hypotheses decide at once are answered at once."""
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.cli import main
BIG = "1." + "1" * 5000
HUGE_INT = "1" * 5000

# (argv, what it attacks): each must be exit 2, quickly, with an untouched output folder
REFUSED = [
    (["bound", "--sigma", "1e-400", "--steps", "1000"], "tiny sigma (aborted inside FLINT)"),
    (["steps", "--sigma", "1e-30", "--delta", "0.01"], "tiny sigma (aborted inside FLINT)"),
    (["bound", "--sigma", BIG, "--steps", "1000"], "5,000-digit sigma"),
    (["bound", "--sigma", "1", "--steps", HUGE_INT], "5,000-digit steps"),
    (["steps", "--sigma", "1", "--delta", BIG], "5,000-digit delta"),
    (["steps", "--sigma", "1", "--delta", "1e-4000"], "delta below 1e-300"),
    (["exact", "--sigma", "1", "--steps", "1e4000"], "steps beyond 1e18"),
    (["compare", "--sigma", "1", "--steps", "1e4000"], "steps beyond 1e18"),
    (["exact", "--sigma", "1", "--steps", "100", "--epochs", "1e9"], "epochs for the exact engine"),
    (["certify", "--sigma", "1", "--steps", "1000", "--delta", "1e-400"], "delta below 1e-300"),
    (["calibrate", "sigma", "--steps", "1e4000", "--delta", "0.01"], "steps beyond 1e18"),
    (["bound", "--sigma", "nan", "--steps", "1000"], "NaN"),
    (["bound", "--sigma", "inf", "--steps", "1000"], "infinity"),
    (["bound", "--sigma", "-1", "--steps", "1000"], "negative sigma"),
    (["bound", "--sigma", "0", "--steps", "1000"], "zero sigma"),
    (["bound", "--sigma", "1e7", "--steps", "1000"], "sigma beyond 1e6"),
    (["bound", "--sigma", "1/0", "--steps", "1000"], "zero denominator"),
    (["bound", "--sigma", "1", "--steps", "2.5"], "non-integral steps"),
    (["bound", "--sigma", "1", "--steps", "1000", "--epochs", "0"], "zero epochs"),
    (["bound", "--sigma", "1", "--steps", "1000", "--epochs", "1e10"], "epochs beyond 1e9"),
    (["steps", "--sigma", "1", "--delta", "1"], "delta = 1"),
    (["steps", "--sigma", "1", "--delta", "0.01", "--noise-level", "-1"], "negative noise level"),
    (["calibrate", "sigma", "--steps", "1000", "--delta", "0.01", "--resolution", "0"],
     "zero resolution"),
    (["certify", "--config", "/dev/zero"], "endless file"),
    (["certify", "--config", "/nonexistent/cfg.toml"], "missing file"),
    (["audit", "/dev/zero"], "endless claims file"),
    (["bound", "--sigma", "1", "--steps", "1000", "--max-prec", "99999999"], "precision cap"),
    (["bound", "--sigma", "\u202e1", "--steps", "1000"], "bidi control character"),
    (["bound", "--sigma", "\uff11", "--steps", "1000"], "full-width digit"),
]


@pytest.fixture
def out_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = tmp_path / "out"
    d.mkdir()
    (d / "keep.txt").write_text("untouched")
    return d


def _run(argv, out_dir, capsys):
    """(exit code, stderr, the work done: conftest.Work, counted instead of timed)."""
    from conftest import Work
    before = sorted(os.listdir(out_dir.parent))
    work = Work()
    rc = work(main, argv + (["--out", str(out_dir)] if argv[0] in ("certify", "audit") else []))
    _, err = capsys.readouterr()
    assert sorted(os.listdir(out_dir.parent)) == before          # nothing written beside
    assert sorted(os.listdir(out_dir)) == ["keep.txt"]           # nor inside
    return rc, err, work


@pytest.mark.parametrize("argv,what", REFUSED, ids=[w for _, w in REFUSED])
def test_refused_quickly_and_nothing_written(argv, what, out_dir, capsys):
    rc, err, work = _run(argv, out_dir, capsys)
    assert rc == 2, (what, err)
    assert err.count("\n") == 1 and err.startswith("verifier: error:"), err
    assert "Traceback" not in err
    assert work.total == 0, (what, work.counts)             # refused before computing


@pytest.mark.parametrize("argv", [REFUSED[0][0], REFUSED[1][0]])
def test_former_aborts_in_a_process(argv):
    """These aborted the interpreter (SIGABRT) inside FLINT: now exit 2 in a real process."""
    p = subprocess.run([sys.executable, "-m", "verifier", *argv], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2, (p.returncode, p.stderr)


DECIDED_AT_ONCE = [
    # inside the limits, but the hypotheses (or a certified lower bound) decide at once
    (["bound", "--sigma", "0.01", "--steps", "1000"], 1),
    (["bound", "--sigma", "0.05", "--steps", "1000", "--epochs", "1000000000"], 1),
    (["steps", "--sigma", "0.01", "--delta", "0.01"], 3),
    (["steps", "--sigma", "0.1", "--delta", "1e-300"], 3),
    (["calibrate", "steps", "--sigma", "0.01", "--delta", "0.01", "--bound",
      "theorem31-simplified"], 3),
]


@pytest.mark.parametrize("argv,code", DECIDED_AT_ONCE)
def test_hypotheses_decide_before_any_search(argv, code, out_dir, capsys):
    rc, err, work = _run(argv, out_dir, capsys)
    assert rc == code, err
    # decided by a few certified evaluations (measured: at most 16 balls, 3 precision loops),
    # no search over M (hundreds) and no engine
    assert work.counts["decide"] <= 5 and work.counts["to_arb"] <= 50, work.counts
    assert work.counts["reserve"] == 0, work.counts


# a fuzz over the classes: out-of-range magnitudes, overlong digit strings, non-numbers
HOSTILE_NUMBER = st.one_of(
    st.integers(401, 10**6).map(lambda e: f"1e{e}"),
    st.integers(401, 10**6).map(lambda e: f"1e-{e}"),
    st.integers(2001, 6000).map(lambda n: "9" * n),
    st.integers(2001, 6000).map(lambda n: "0." + "1" * n),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "", " ", "1e", "--1", "0x10", "1_000",
                     "\x00", "1\n2", "١", "½", "None", "[]", "{}", "1/0", "0/0"]),
)
TEMPLATES = [
    ["bound", "--sigma", None, "--steps", "1000"],
    ["bound", "--sigma", "1", "--steps", None],
    ["bound", "--sigma", "1", "--steps", "1000", "--epochs", None],
    ["steps", "--sigma", None, "--delta", "0.01"],
    ["steps", "--sigma", "1", "--delta", None],
    ["exact", "--sigma", "1", "--steps", None],
    ["compare", "--sigma", None, "--steps", "100"],
    ["certify", "--sigma", "1", "--steps", "1000", "--delta", None],
    ["calibrate", "sigma", "--steps", None, "--delta", "0.01"],
    ["calibrate", "steps", "--sigma", "1", "--delta", None],
    ["epsilon", "--sigma", "1", "--total-steps", None, "--epochs", "2", "--delta", "1e-5"],
    ["epsilon", "--sigma", "1", "--steps-per-epoch", None, "--delta", "1e-5"],
    ["delta", "--sigma", "1", "--steps-per-epoch", "10", "--total-steps", None, "--epsilon", "1"],
]


@settings(max_examples=int(os.environ.get("VERIFIER_FUZZ", "60")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(template=st.sampled_from(TEMPLATES), value=HOSTILE_NUMBER)
def test_fuzz_hostile_numbers(template, value, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("hostile")
    out = d / "out"
    out.mkdir()
    argv = [value if a is None else a for a in template]
    if argv[0] == "certify":
        argv += ["--out", str(out)]
    from conftest import Work
    work = Work()
    rc = work(main, argv)
    _, err = capsys.readouterr()
    assert rc == 2, (argv[:6], err)
    assert err.count("\n") == 1 and "Traceback" not in err
    assert os.listdir(out) == []
    assert work.total == 0, (argv[:6], work.counts)          # refused before computing
