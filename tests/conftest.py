import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # tests/reference.py

from hypothesis import settings  # noqa: E402

settings.register_profile("default", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, max_examples=300)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# ---- shared fixtures (issue 47: one CLI runner, behaviour instead of the clock)

import subprocess  # noqa: E402

import pytest  # noqa: E402


def cli_process(*args, timeout=300, cwd=None, env=None) -> subprocess.CompletedProcess:
    """The CLI as users run it: a new interpreter (``python -m verifier``)."""
    return subprocess.run([sys.executable, "-m", "verifier", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env=env)


def cli_main(capsys, *argv) -> tuple:
    """The CLI in this process: (exit code, stdout, stderr), captured by pytest's capsys."""
    from verifier.cli import main
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def cli(capsys):
    """``cli(*argv) -> (exit code, stdout, stderr)``: cli_main bound to this test's capsys."""
    return lambda *argv: cli_main(capsys, *argv)


class Work:
    """What a call computed, counted instead of timed (a refusal "before anything is
    computed" is one that made no certified evaluation, on any machine at any load): calls
    of the entry points every certified computation passes through -- a rational made a
    ball (``core.arith.to_arb``), the precision loop (``core.decide.decide``) and an
    engine's allocation (``numerics.memory.reserve``)."""

    def __init__(self, **extra):
        from verifier.core import arith, decide
        from verifier.numerics import memory
        self.codes = {arith.to_arb.__code__: "to_arb", decide.decide.__code__: "decide",
                      memory.reserve.__code__: "reserve"}
        self.codes.update({getattr(fn, "__code__", fn): name       # more to count: functions
                           for name, fn in extra.items()})         # or code objects
        self.counts = dict.fromkeys(self.codes.values(), 0)

    def _hook(self, frame, event, arg):
        if event == "call":
            name = self.codes.get(frame.f_code)
            if name is not None:
                self.counts[name] += 1

    def __call__(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) with its work counted (self.counts); returns its result."""
        self.counts = dict.fromkeys(self.codes.values(), 0)
        old = sys.getprofile()
        sys.setprofile(self._hook)
        try:
            return fn(*args, **kwargs)
        finally:
            sys.setprofile(old)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@pytest.fixture
def work():
    return Work()
