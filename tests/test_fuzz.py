"""Hostile input: fuzzed claims files, config files and command lines never give a
traceback, never evaluate anything, and write nothing on error."""
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.claims import format as C
from verifier.core.arith import InputError
from verifier.cli import main
# the claims file whose mutations are audited: the format-2 file of expressions (its grammar
# is the larger attack surface; the format-1 quantities are in it too through the registry)
SHIPPED = [f for f in C.shipped_claims_files() if f.endswith("2610.02414.toml")][0]
FUZZ = settings(max_examples=int(os.environ.get("VERIFIER_FUZZ", "150")), deadline=None,
                suppress_health_check=list(HealthCheck))
# the mutated-claims fuzz audits 11 claims per example: about 25 examples by default, the
# full count under HYPOTHESIS_PROFILE=ci (or VERIFIER_FUZZ)
_CI = os.environ.get("HYPOTHESIS_PROFILE") == "ci"
FUZZ_AUDIT = settings(max_examples=int(os.environ.get("VERIFIER_FUZZ", "150" if _CI else "25")),
                      deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VERIFIER_DEBUG", "")


def _assert_clean(rc, err, out_dir):
    assert rc in (0, 1, 2, 3), (rc, err)          # 4 = internal error: a bug
    assert "Traceback" not in err
    if rc == 2:           # one line per mistake found (a claims file reports them all)
        lines = err.strip("\n").split("\n")
        assert lines and all(ln.startswith("verifier: error: ") for ln in lines), err
        assert not os.path.exists(out_dir)


@pytest.mark.slow      # the default suite under 10 minutes (issue 47); CI runs -m slow
@FUZZ_AUDIT
@given(data=st.data())
def test_mutated_shipped_claims(data, tmp_path_factory, capsys):
    text = open(SHIPPED, encoding="utf-8").read()
    n = data.draw(st.integers(1, 6))
    chars = list(text)
    for _ in range(n):
        i = data.draw(st.integers(0, len(chars) - 1))
        op = data.draw(st.sampled_from(["del", "ins", "sub"]))
        ch = data.draw(st.sampled_from(list("[]{}=\"'#.,\n0123456789eE-+ abc\u00e9\u2028\x00")))
        if op == "del":
            del chars[i]
        elif op == "ins":
            chars.insert(i, ch)
        else:
            chars[i] = ch
    d = tmp_path_factory.mktemp("mut")
    p = d / "mutated.toml"
    p.write_text("".join(chars), encoding="utf-8", errors="surrogateescape")
    out = d / "out"
    rc = main(["audit", str(p), "--out", str(out), "--max-prec", "256"])
    _, err = capsys.readouterr()
    _assert_clean(rc, err, out)


SCALARS = st.one_of(
    st.text(max_size=30), st.integers(-10**30, 10**30), st.booleans(),
    st.sampled_from(["1e999999999", "nan", "inf", "__import__('os').system('touch pwned')",
                     "${HOME}", "0.1", "1/0", "1/3", "-0", "１", "\u202e1", "0" * 5000]),
)
VALUES = st.recursive(SCALARS, lambda ch: st.one_of(st.lists(ch, max_size=3),
                                                      st.dictionaries(st.text(max_size=8), ch, max_size=3)),
                      max_leaves=8)


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
            .encode("unicode_escape").decode("ascii").replace("\\\\", "\\") + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f'"{k}" = {toml_value(x)}' for k, x in v.items()) + "}"


@FUZZ
@given(claim=st.dictionaries(st.sampled_from(sorted(C._CLAIM) + ["exec", "eval"]), VALUES, max_size=9),
       top=st.dictionaries(st.sampled_from(["format", "source", "defaults", "x"]), VALUES, max_size=3))
def test_structured_claims_fuzz(claim, top, tmp_path_factory, capsys):
    lines = ['format = "verifier-claims/1"'] if "format" not in top else []
    lines += [f"{k} = {toml_value(v)}" for k, v in top.items()]
    lines += ["[[claims]]"] + [f"{k} = {toml_value(v)}" for k, v in claim.items()]
    d = tmp_path_factory.mktemp("fz")
    p = d / "fuzz.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
    try:
        C.load(str(p))
    except InputError as e:          # each mistake is one line (InputErrors lists several)
        assert all("\n" not in m for m in getattr(e, "messages", [str(e)]))
    out = d / "out"
    rc = main(["audit", str(p), "--out", str(out), "--max-prec", "256"])
    _, err = capsys.readouterr()
    _assert_clean(rc, err, out)
    assert not os.path.exists("pwned")


@FUZZ
@given(cfg=st.dictionaries(st.sampled_from(["sigma", "steps", "samples", "batch_size", "epochs",
                                             "clip", "delta", "target_accuracy", "bound", "nope"]),
                           VALUES, max_size=6),
       as_json=st.booleans())
def test_config_fuzz(cfg, as_json, tmp_path_factory, capsys):
    import json
    d = tmp_path_factory.mktemp("cfg")
    if as_json:
        p = d / "c.json"
        p.write_text(json.dumps(cfg))
    else:
        p = d / "c.toml"
        p.write_text("\n".join(f"{k} = {toml_value(v)}" for k, v in cfg.items()) + "\n",
                     encoding="utf-8", errors="surrogateescape")
    out = d / "out"
    rc = main(["certify", "--config", str(p), "--out", str(out), "--max-prec", "256"])
    _, err = capsys.readouterr()
    _assert_clean(rc, err, out)


TOKENS = ["audit", "bound", "steps", "certify", "calibrate", "check-proofs", "sigma", "steps",
          "samples", "--sigma", "--steps", "--delta", "--epochs", "--coef", "--json", "--bound",
          "--samples", "--batch-size", "--target-accuracy", "--max-prec", "--out", "--only",
          "--resolution", "--config", "--noise-level", "exact", "simplified", "chi-square",
          "1", "0.5", "2", "3", "1000", "1e6", "-1", "0", "nan", "inf", "0.01", "0.6", "64",
          "abc", "", "--", "-h", "1/3", "99999999999999999999", "1e-300", "tail.", "x.toml"]


@FUZZ
@given(argv=st.lists(st.sampled_from(TOKENS), max_size=9))
def test_cli_fuzz(argv, capsys):
    if "--out" not in argv:
        argv = argv + ["--out", "out"] if argv[:1] in (["audit"], ["certify"], ["check-proofs"]) else argv
    if argv[:1] == ["check-proofs"] and "--only" not in argv:
        argv = argv + ["--only", "tail.printed"]
    try:
        rc = main(argv)
    except SystemExit as e:    # --help / --version
        rc = e.code
    _, err = capsys.readouterr()
    assert rc in (0, 1, 2, 3), (argv, rc, err)
    assert "Traceback" not in err and "internal error" not in err
