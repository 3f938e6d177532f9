"""Certificates that say one thing: the status names what certified it, the
verdicts and inputs carry every target, and a TV-only certificate still reports the run's
certified epsilon at the given delta (and how to make it the target)."""
from __future__ import annotations

import json

from conftest import cli_process


def _run(*args, timeout=600):
    return cli_process(*args, timeout=timeout)


def test_tv_certificate_reports_the_runs_epsilon():
    p = _run("certify", "--sigma", "1.1", "--steps-per-epoch", "20", "--epochs", "3",
             "--delta", "1e-5")
    assert p.returncode == 1, p.stderr
    assert "epsilon(0.00001) in [1.949" in p.stdout and "--target-epsilon EPS" in p.stdout
    assert "status: NOT-CERTIFIED: no valid bound meets the target" in p.stdout
    j = json.loads(_run("certify", "--sigma", "1.1", "--steps-per-epoch", "20", "--epochs", "3",
                        "--delta", "1e-5", "--json").stdout)
    assert j["epsilon_at_delta"]["status"] == "bracketed" and j["certified_by"] == []


def test_epsilon_certificate_names_what_certified_it(tmp_path):
    out = tmp_path / "cert"
    p = _run("certify", "--sigma", "1", "--steps-per-epoch", "100", "--epochs", "10",
             "--target-epsilon", "2", "--delta", "1e-5", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "status: CERTIFIED by the exact privacy profile: delta(2) <= 0.00001" in p.stdout
    md = (out / "certificate.md").read_text()
    assert "**Status: CERTIFIED by the exact privacy profile" in md
    assert "- target: (epsilon, delta) = (2, 0.00001)" in md
    assert "| the exact privacy profile | delta(2) in [" in md          # the verdict's own row
    j = json.loads((out / "certificate.json").read_text())
    assert j["target"]["epsilon"] == "2" and j["target"]["delta"] == "0.00001"
    assert j["certified_by"] == ["the exact privacy profile"]
    html = (out / "certificate.html").read_text()
    assert "CERTIFIED by the exact privacy profile" in html and "(epsilon, delta) = (2" in html
