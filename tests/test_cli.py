"""The command line: outputs, exit codes, one-line errors, reports."""
import hashlib
import json
import os
import shutil

import pytest

import verifier.core.arith
from conftest import cli_process
from verifier.cli import main
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, cwd=None):
    """Run the CLI as users do (a new interpreter) and return (rc, out, err)."""
    p = cli_process(*args, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def test_audit_confirms_table1_and_is_byte_reproducible(tmp_path):
    rc, out, err = run("audit", "--out", str(tmp_path / "a"))
    assert rc == 0, err
    assert "57 claims: 57 confirmed, 0 refuted, 0 inconclusive, 0 not-applicable" in out
    assert ("2610.02414: 10 claims: 10 confirmed, 0 refuted, 0 inconclusive, 0 not-applicable; "
            "and 1 of the verifier's own (not the paper's): 1 confirmed") in out
    assert "2610.09651: 3 claims: 3 confirmed" in out
    rc2, _, _ = run("audit", "--out", str(tmp_path / "b"))
    assert rc2 == 0
    for name in ("2605.06259.json", "2605.06259.md", "2605.06259.html",
                 "figure-steps-vs-sigma.svg", "figure-delta-vs-steps.svg"):
        a, b = tmp_path / "a" / name, tmp_path / "b" / name
        assert digest(a) == digest(b)
        # the committed report is what the command produces
        assert digest(a) == digest(os.path.join(ROOT, "reports", name))
    data = json.loads((tmp_path / "a" / "2605.06259.json").read_text())
    assert data["summary"]["confirmed"] == 57
    cells = [c for c in data["claims"] if c["id"].startswith("table1.") and "caption" not in c["id"]]
    assert len(cells) == 30 and all(c["verdict"] == "confirmed" for c in cells)
    assert all(c.get("reconstructed") for c in cells)
    m = {c["id"]: c for c in data["claims"]}
    assert m["table1.S.sigma-1.00.M_exact"]["value"] == {"exact": "1140369"}


@pytest.mark.parametrize("coef,want", [("simplified", 1140369), ("rho3", 429713)])
def test_steps_json(coef, want):
    rc, out, err = run("steps", "--sigma", "1", "--delta", "0.01", "--coef", coef, "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["m_exact"] == want
    assert set(d["m_closed_form"]) == {"lower", "upper"}
    assert float(d["m_closed_form"]["upper"]) <= want
    cert = d["certificate"]
    assert cert["at_m_exact"]["steps"] == want and cert["at_m_exact"]["verdict"] == "holds"
    assert cert["at_m_exact_minus_1"]["steps"] == want - 1
    assert cert["at_m_exact_minus_1"]["verdict"] == "fails"
    assert d["min_n"] == 10 * want


def test_bound_json_and_text():
    rc, out, err = run("bound", "--sigma", "1", "--steps", "1000000", "--epochs", "3", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["hypotheses"] == {"steps_at_least_3": "holds",
                               "sigma_at_least_sqrt_3_over_ln_M": "holds",
                               "validity_condition_2": "holds"}
    lo, hi = float(d["delta"]["lower"]), float(d["delta"]["upper"])
    assert lo <= 0.010678905440854304 <= hi
    assert float(d["delta_epochs"]["lower"]) > 3 * lo * 0.98
    assert sorted(d["terms"]) == ["T1", "T2", "T3", "T4", "T5", "T6"]
    rc, out, _ = run("bound", "--sigma", "1", "--steps", "1000000")
    assert rc == 0 and "delta_rhs" in out and "validity_condition_2" in out and "reconstructed" in out


def test_bound_hypothesis_fails_exit_1():
    # sigma = 0.5 needs ln M >= 12 (M >= 162755) for sigma >= sqrt(3/ln M)
    rc, out, _ = run("bound", "--sigma", "0.5", "--steps", "1000", "--json")
    assert rc == 1
    assert json.loads(out)["hypotheses"]["sigma_at_least_sqrt_3_over_ln_M"] == "fails"


def test_bound_with_target_delta():
    rc, out, _ = run("bound", "--sigma", "1", "--steps", "1140369", "--delta", "0.01", "--json")
    assert rc == 0 and json.loads(out)["meets_target"] == "holds"
    rc, out, _ = run("bound", "--sigma", "1", "--steps", "1140368", "--delta", "0.01", "--json")
    assert rc == 1 and json.loads(out)["meets_target"] == "fails"


BAD = [
    ("bound", "--sigma", "1", "--steps", "2"),
    ("bound", "--sigma", "0", "--steps", "10"),
    ("bound", "--sigma", "-1", "--steps", "10"),
    ("bound", "--sigma", "nan", "--steps", "10"),
    ("bound", "--sigma", "inf", "--steps", "10"),
    ("bound", "--sigma", "abc", "--steps", "10"),
    ("bound", "--sigma", "1", "--steps", "10.5"),
    ("bound", "--sigma", "1", "--steps", "10", "--coef", "other"),
    ("bound", "--sigma", "1", "--steps", "10", "--epochs", "0"),
    ("bound", "--sigma", "1e999999", "--steps", "10"),
    ("bound", "--steps", "10"),
    ("steps", "--sigma", "1", "--delta", "0"),
    ("steps", "--sigma", "1", "--delta", "1"),
    ("steps", "--sigma", "1", "--delta", "1.5"),
    ("steps", "--sigma", "1", "--delta", "NaN"),
    ("steps", "--sigma", "1", "--delta", "0.01", "--coef", "approx"),
    ("steps", "--sigma", "1", "--delta", "0.01", "--max-prec", "12"),
    ("steps", "--sigma", "1", "--delta", "0.01", "--noise-level", "0"),
    ("audit", "/nonexistent/claims.toml"),
    ("frobnicate",),
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_one_line_exit_2(argv, capsys):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("verifier: error:")
    assert "Traceback" not in err and out == ""


def test_error_names_the_value(capsys):
    main(["bound", "--sigma", "1", "--steps", "2"])
    assert "2" in capsys.readouterr().err
    main(["steps", "--sigma", "-0.3", "--delta", "0.01"])
    assert "-0.3" in capsys.readouterr().err


def test_bad_claims_file_touches_no_report(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    good = os.path.join(ROOT, "reports", "2605.06259.json")
    shutil.copy(good, out / "2605.06259.json")
    before = digest(out / "2605.06259.json")
    bad = tmp_path / "bad.toml"
    bad.write_text('format = "verifier-claims/1"\n[[claims]]\nid = "x"\nquantity = "nope"\n')
    shipped = os.path.join(ROOT, "verifier", "data", "claims", "2605.06259.toml")
    rc, so, se = run("audit", shipped, str(bad), "--out", str(out))
    assert rc == 2 and se.count("\n") == 1 and "Traceback" not in se
    assert sorted(os.listdir(out)) == ["2605.06259.json"]  # nothing written, no temp left
    assert digest(out / "2605.06259.json") == before


def test_unwritable_report_dir_is_a_clear_error(tmp_path):
    target = tmp_path / "file-not-dir"
    target.write_text("x")
    rc, _, se = run("audit", "--out", str(target))
    assert rc == 2 and se.startswith("verifier: error: --out") and "is a file, not a folder" in se


def test_help_and_version():
    rc, out, _ = run("--help")
    assert rc == 0 and "audit" in out and "steps" in out and "Exit status" in out
    rc, out, _ = run("--version")
    assert rc == 0 and out.startswith("verifier ")


def test_check_proofs_writes_reproducible_reports(tmp_path):
    rc, out, err = run("check-proofs", "--only", "tail.", "--out", str(tmp_path / "a"))
    assert rc == 0, err
    assert "8 checks: 8 proved, 0 cited, 0 refuted, 0 unknown, 0 demonstration" in out
    rc, _, _ = run("check-proofs", "--only", "tail.", "--out", str(tmp_path / "b"))
    for ext in ("json", "md"):
        assert digest(tmp_path / "a" / f"proofs.{ext}") == digest(tmp_path / "b" / f"proofs.{ext}")
    data = json.loads((tmp_path / "a" / "proofs.json").read_text())
    c = {x["id"]: x for x in data["checks"]}["tail.printed-constants-safe"]
    assert c["verdict"] == "proved" and c["method"] and c["assumptions"] == []
    assert "seconds" not in c


def test_check_proofs_unknown_prefix_exit_2(capsys):
    assert main(["check-proofs", "--only", "nope.", "--out", "/tmp/never-written"]) == 2
    assert capsys.readouterr().err.startswith("verifier: error: no check id")


# ------------------------------------------------------- steps per epoch, total steps
def _eps(capsys, *argv):
    rc = main(["epsilon", "--sigma", "0.91", "--delta", "1e-5", "--json", *argv])
    out, err = capsys.readouterr()
    return rc, (_untimed(json.loads(out)) if rc == 0 else None), err


def _untimed(obj):
    """A JSON answer without its wall times ("seconds")."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def test_steps_per_epoch_total_steps_and_the_former_spelling(capsys):
    rc, a, err = _eps(capsys, "--steps-per-epoch", "100", "--epochs", "20")
    assert rc == 0 and err == "" and (a["steps"], a["epochs"]) == (100, 20)
    # Opacus's "steps" (total): T = 2000 with E = 20 is M = 100; with M = 100 it is E = 20
    assert _eps(capsys, "--total-steps", "2000", "--epochs", "20")[1] == a
    assert _eps(capsys, "--total-steps", "2000", "--steps-per-epoch", "100")[1] == a
    # --steps is steps per epoch, as before, with a note that says so
    rc, b, err = _eps(capsys, "--steps", "100", "--epochs", "20")
    assert b == a and err.startswith("verifier: note: --steps is deprecated; use --steps-per-epoch")
    for argv in (("--total-steps", "2001", "--epochs", "20"),
                 ("--total-steps", "2000", "--steps-per-epoch", "100", "--epochs", "3"),
                 ("--total-steps", "0",), ("--epochs", "3")):
        rc, _, err = _eps(capsys, *argv)
        assert rc == 2 and err.count("\n") == 1 and err.startswith("verifier: error:")


def test_every_header_says_steps_per_epoch_epochs_and_total(capsys):
    shape = "M = 100 steps per epoch, E = 20 epochs, T = M E = 2000 steps in all"
    for argv in (["epsilon", "--delta", "1e-5"], ["delta", "--epsilon", "1"],
                 ["rdp", "--alpha-max", "3"], ["tradeoff", "--points", "3"]):
        rc = main([*argv, "--sigma", "0.91", "--steps-per-epoch", "100", "--epochs", "20"])
        out, _ = capsys.readouterr()
        assert rc == 0 and shape in out.splitlines()[0], (argv, out[:300])
    rc = main(["bound", "--sigma", "1", "--steps-per-epoch", "100", "--epochs", "20"])
    out, _ = capsys.readouterr()
    assert shape in out


def test_config_takes_steps_per_epoch(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('sigma = "1.1"\nsteps_per_epoch = 20\nepochs = 3\ndelta = "1e-5"\n'
                   'target_epsilon = 2\n')
    rc = main(["certify", "--config", str(cfg), "--json"])
    a = _untimed(json.loads(capsys.readouterr().out))
    rc2 = main(["certify", "--sigma", "1.1", "--steps-per-epoch", "20", "--epochs", "3",
                "--delta", "1e-5", "--target-epsilon", "2", "--json"])
    assert rc == rc2 and _untimed(json.loads(capsys.readouterr().out)) == a
    cfg.write_text('steps = 10\nsteps_per_epoch = 20\n')
    assert main(["certify", "--config", str(cfg)]) == 2


def test_engine_range_stated_once(capsys):
    """The (epsilon, delta) engine's range generates its refusals and its --help text."""
    from verifier.bounds.profile import RANGE
    from verifier.core.ranges import Range
    r = Range("toy engine", sigma=(1, 2), steps=(1, 10 ** 7), epochs=(1, 5))
    assert r.help() == "toy engine: sigma in [1, 2], M in [1, 1e7], E in [1, 5]"
    with pytest.raises(verifier.core.arith.InputError, match=r"steps = 0 is outside the toy "
                                                              r"engine's range \[1, 1e7\]"):
        r.check(1, 0, 1)
    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert RANGE.help() in out and "steps M integer in [3, 1e18]" not in out
    rc = main(["epsilon", "--sigma", "0.2", "--steps-per-epoch", "10", "--delta", "1e-5"])
    err = capsys.readouterr().err
    assert rc == 2 and "sigma = 0.2 is outside the (epsilon, delta) engine's range [0.3, 50]" in err


def test_usage_errors_are_one_clean_line():
    """One 'verifier: error:' prefix, the subcommand named once; a negative number in any
    notation is a value whose range check names it (not 'expected one argument')."""
    import subprocess
    import sys

    def run(*a):
        return subprocess.run([sys.executable, "-m", "verifier", *a], capture_output=True,
                              text=True, timeout=120)
    p = run("epsilom")
    assert p.returncode == 2 and p.stderr.count("verifier") == 1 and "invalid choice" in p.stderr
    p = run("epsilon", "--sigma", "1", "--steps-per-epoch", "10", "--delta", "-1e-5")
    assert p.returncode == 2 and p.stderr.strip() == "verifier: error: delta must be in (0, 1), got -1e-5"
    p = run("delta", "--help")
    assert "--epsilon EPS" in p.stdout


def test_a_subset_of_the_proof_checks_writes_no_report_unless_asked(tmp_path, monkeypatch):
    """check-proofs --only in the repository used to replace reports/proofs.* with the
    subset; now a subset is written only to an explicit --out."""
    monkeypatch.chdir(tmp_path)
    rc, out, err = run("check-proofs", "--only", "tail.")
    assert rc == 0 and "no report written" in out and not (tmp_path / "reports").exists()
