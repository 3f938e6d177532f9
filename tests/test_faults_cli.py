"""Issue 46's one-line refusals on the command line: a value with a minus sign after an
option (-inf, -nan, -1e-5) is checked as a value, not read as an option; an empty, too long
or blocked --out is refused before anything is computed; a range message keeps the sign of
the value it names; a Rényi order beyond the ball arithmetic is one line."""
from __future__ import annotations


import pytest

from verifier.cli import signed_values


from conftest import cli_main as _run  # noqa: E402 (the shared in-process runner)


@pytest.mark.parametrize("value, needle", [("-inf", "sigma is not a number: '-inf'"),
                                           ("-nan", "sigma is not a number: '-nan'"),
                                           ("-1e-5", "sigma must be > 0, got -1e-5"),
                                           ("-.5", "sigma must be > 0, got -.5")])
def test_a_signed_value_is_the_option_s_value(capsys, value, needle):
    rc, _, err = _run(capsys, "epsilon", "--sigma", value, "--steps-per-epoch", "10",
                      "--delta", "1e-5")
    assert rc == 2 and needle in err and len(err.splitlines()) == 1


def test_signed_values_joins_only_values_after_long_options():
    assert signed_values(["delta", "--epsilon", "-1", "--x=-2", "-v", "-3"]) == \
        ["delta", "--epsilon=-1", "--x=-2", "-v", "-3"]
    assert signed_values(["--out", "-dir"]) == ["--out", "-dir"]      # not a number: kept


def test_a_negative_epsilon_is_answered_and_its_range_keeps_the_sign(capsys):
    rc, out, _ = _run(capsys, "delta", "--sigma", "2", "--steps-per-epoch", "10",
                      "--epsilon", "-3")
    assert rc == 0 and "epsilon = -3" in out
    for argv in (["--steps-per-epoch", "10"],
                 ["--sampling", "poisson", "--sample-rate", "0.1", "--total-steps", "10"]):
        rc, _, err = _run(capsys, "delta", "--sigma", "2", *argv, "--epsilon", "-100")
        assert rc == 2 and "epsilon = -100 is outside" in err and "[-60, 60]" in err


@pytest.mark.parametrize("out, needle", [("", "--out needs a folder name"),
                                         ("x" * 250, "more than 200 characters")])
def test_an_output_folder_is_checked_before_computing(capsys, tmp_path, out, needle, work):
    rc, _, err = work(_run, capsys, "certify", "--sigma", "1.1", "--steps-per-epoch", "20",
                      "--epochs", "3", "--delta", "1e-5", "--out", out)
    assert rc == 2 and needle in err and work.total == 0, work.counts


def test_an_output_folder_under_a_file_is_refused(capsys, tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    rc, _, err = _run(capsys, "audit", "--out", str(f / "reports"))
    assert rc == 2 and "is a file, not a folder" in err


def test_renyi_beyond_the_ball_arithmetic_is_one_line(capsys):
    rc, _, err = _run(capsys, "rdp", "--sampling", "poisson", "--sigma", "0.3",
                      "--sample-rate", "1", "--total-steps", "10000000", "--orders", "1024",
                      "--delta", "1e-12")
    assert rc == 2 and "order 1024" in err and "beyond the engine's ball arithmetic" in err
