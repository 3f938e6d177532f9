"""Fault injection: interrupted writers, full disks, read-only directories,
precision exhaustion."""
import errno
import os
import signal
import time

import pytest

import verifier.report.writer as rep
from verifier.cli import main
@pytest.fixture
def reports(tmp_path, capsys):
    out = tmp_path / "reports"
    assert main(["audit", "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def snapshot(d):
    return {p: (d / p).read_bytes() for p in sorted(os.listdir(d))}


def test_signal_mid_write_keeps_previous_report(reports, monkeypatch, capsys):
    # the test's own SIGINT handler: a runner in the background ignores SIGINT (SIG_IGN is
    # inherited), and then the signal would never reach the writer
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _signal_mid_write(reports, monkeypatch)
    finally:
        signal.signal(signal.SIGINT, previous)


def _signal_mid_write(reports, monkeypatch):
    before = snapshot(reports)
    real_replace = os.replace
    calls = {"n": 0}

    def replace_then_signal(a, b):
        calls["n"] += 1
        if calls["n"] == 1:
            os.kill(os.getpid(), signal.SIGINT)   # a real signal while the writer runs
            time.sleep(0.1)
        real_replace(a, b)

    monkeypatch.setattr(rep.os, "replace", replace_then_signal)
    rc = main(["audit", "--out", str(reports)])
    assert rc == 130
    assert snapshot(reports) == before            # no half-written file, no temp left


def test_exception_mid_write_keeps_previous_report(reports, monkeypatch, capsys):
    before = snapshot(reports)

    class Boom(Exception):
        pass

    real_fdopen = os.fdopen
    calls = {"n": 0}

    def fdopen_then_fail(fd, *a, **k):
        calls["n"] += 1
        fh = real_fdopen(fd, *a, **k)
        if calls["n"] == 2:
            fh.close()
            raise Boom("disk went away")
        return fh

    monkeypatch.setattr(rep.os, "fdopen", fdopen_then_fail)
    rc = main(["audit", "--out", str(reports)])
    err = capsys.readouterr().err
    assert rc == 4 and "internal error" in err and "Traceback" not in err
    assert snapshot(reports) == before


@pytest.mark.parametrize("code,needle", [(errno.ENOSPC, "No space left"),
                                         (errno.EROFS, "Read-only file system"),
                                         (errno.EACCES, "Permission denied")])
def test_disk_errors_are_clear(reports, monkeypatch, capsys, code, needle):
    before = snapshot(reports)

    def fail(*a, **k):
        raise OSError(code, os.strerror(code), str(reports / "x.tmp"))

    monkeypatch.setattr(rep.tempfile, "mkstemp", fail)
    rc = main(["audit", "--out", str(reports)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and needle in err
    assert snapshot(reports) == before


def test_full_disk_while_writing(reports, monkeypatch, capsys):
    before = snapshot(reports)
    real_fsync = os.fsync

    def enospc(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(rep.os, "fsync", enospc)
    rc = main(["certify", "--sigma", "1", "--steps", "1000", "--delta", "0.5",
               "--out", str(reports)])
    err = capsys.readouterr().err
    assert rc == 2 and "No space left" in err
    monkeypatch.setattr(rep.os, "fsync", real_fsync)
    assert snapshot(reports) == before            # no certificate, no temp files


def test_precision_exhaustion_is_inconclusive_not_a_hang(capsys):
    from fractions import Fraction

    from flint import arb, ctx

    from verifier.symbolic import derived as D
    from verifier.bounds import theorem31_steps as TS
    with ctx.workprec(3000):
        d = sum(D.terms(arb(10**6), arb(1), D.coef_simplified(arb(1))))
        q = d.mid().fmpq()
    from conftest import Work
    work = Work()
    rc = work(main, ["steps", "--sigma", "1", "--delta", f"{int(q.p)}/{int(q.q)}",
                     "--max-prec", "256"])
    out = capsys.readouterr().out
    assert rc == 3 and "INCONCLUSIVE" in out
    assert work.counts["decide"] <= 200, work.counts     # a bisection's steps, not a hang
    r = TS.steps_exact(Fraction(1), Fraction(int(q.p), int(q.q)), max_prec=256)
    assert r.status == "inconclusive" and r.m_exact is None
