"""Claims files: generic engine, verdicts, and hostile files."""
import json
import os

import pytest

from verifier.claims import audit as A
from verifier.claims import format as C
from verifier.core.arith import InputError
from verifier.cli import main
HEAD = 'format = "verifier-claims/1"\n[source]\npaper = "test"\n'


def write(tmp_path, body, name="mine.toml"):
    p = tmp_path / name
    p.write_text(HEAD + body, encoding="utf-8")
    return str(p)


def verdicts(path):
    return {r.claim.id: r.verdict for r in A.audit(C.load(path))}


def test_user_claims_all_verdicts(tmp_path):
    path = write(tmp_path, '''
[defaults]
delta = "0.01"
[[claims]]
id = "ok"
where = "mine"
quantity = "m_exact"
args = { sigma = 1 }
printed = "1.14e6"
judge = "rounded"
[[claims]]
id = "wrong-digit"
where = "mine"
quantity = "m_exact"
args = { sigma = "1" }
printed = "1.15e6"
judge = "rounded"
[[claims]]
id = "float-number-is-exact-decimal"
where = "mine"
quantity = "m_closed_form"
args = { sigma = 1.00, coef = "rho3" }
printed = 4.29e5
judge = "rounded"
[[claims]]
id = "n-a"
where = "mine"
quantity = "delta_rhs"
args = { sigma = "0.5", steps = 1000 }
printed = "1"
judge = "at-most"
[[claims]]
id = "at-most"
where = "mine"
quantity = "delta_rhs"
args = { sigma = "1", steps = 1140369 }
printed = "0.01"
judge = "at-most"
[[claims]]
id = "at-least-refuted"
where = "mine"
quantity = "delta_rhs"
args = { sigma = "1", steps = 1140369 }
printed = "0.01"
judge = "at-least"
[[claims]]
id = "relative"
where = "mine"
quantity = "m_closed_form"
reference = "m_exact"
tolerance = "0.0001"
printed = "0.01%"
judge = "relative-difference"
cases = [{ sigma = "1" }, { sigma = "2" }]
[[claims]]
id = "rho3"
where = "mine"
quantity = "rho3"
args = { sigma = "1" }
printed = "14.3025470"
judge = "rounded"
''')
    v = verdicts(path)
    assert v == {"ok": "confirmed", "wrong-digit": "refuted",
                 "float-number-is-exact-decimal": "confirmed", "n-a": "not-applicable",
                 "at-most": "confirmed", "at-least-refuted": "refuted",
                 "relative": "refuted", "rho3": "confirmed"}


def test_audit_exit_1_on_refuted(tmp_path, capsys):
    path = write(tmp_path, '''
[[claims]]
id = "wrong"
where = "x"
quantity = "m_exact"
args = { sigma = "1", delta = "0.01" }
printed = "1.13e6"
judge = "rounded"
''')
    rc = main(["audit", path, "--out", str(tmp_path / "r")])
    assert rc == 1
    data = json.loads((tmp_path / "r" / "mine.json").read_text())
    assert data["claims"][0]["verdict"] == "refuted"
    assert data["claims"][0]["accepted"] == {"lower": "1125000", "upper": "1135000"}


def test_inconclusive_at_low_precision_cap(tmp_path):
    # rounding boundary exactly at an irrational value is impossible; instead ask
    # for 40 digits of rho3 with a 64-bit cap: the ball cannot decide
    path = write(tmp_path, '''
[[claims]]
id = "too-many-digits"
where = "x"
quantity = "rho3"
args = { sigma = "1" }
printed = "14.30254701095566508700000000000000000000"
judge = "rounded"
''')
    res = A.audit(C.load(path), max_prec=64)
    assert res[0].verdict in ("inconclusive", "refuted")
    assert res[0].verdict == "inconclusive"
    assert A.exit_status(res) == 1


HOSTILE = {
    "malformed": "[[claims]\nid=",
    "wrong-format": 'format = "other"\n',
    "no-claims": 'format = "verifier-claims/1"\n',
    "unknown-quantity": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="__import__(\'os\')"\nprinted="1"\njudge="rounded"\n',
    "code-in-arg": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="__import__(\'os\').system(\'true\')"}\nprinted="1"\njudge="rounded"\n',
    "unknown-judge": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted="1"\njudge="eval"\n',
    "unknown-key": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted="1"\njudge="rounded"\nexec="x"\n',
    "unknown-arg": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1", steps=3}\nprinted="1"\njudge="rounded"\n',
    "missing-arg": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="m_exact"\nargs={sigma="1"}\nprinted="1"\njudge="rounded"\n',
    "bad-sigma": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="-1"}\nprinted="1"\njudge="rounded"\n',
    "nan": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma=nan}\nprinted="1"\njudge="rounded"\n',
    "inf-printed": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted=inf\njudge="rounded"\n',
    "bool": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma=true}\nprinted="1"\njudge="rounded"\n',
    "nested": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma={x=1}}\nprinted="1"\njudge="rounded"\n',
    "deep": HEAD + "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "dup-id": HEAD + ('[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted="1"\njudge="rounded"\n' * 2),
    "bad-id": HEAD + '[[claims]]\nid="../../etc"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted="1"\njudge="rounded"\n',
    "huge-number": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1e99999999"}\nprinted="1"\njudge="rounded"\n',
    "printed-not-number": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="1"}\nprinted="one"\njudge="rounded"\n',
    "unicode": HEAD + '[[claims]]\nid="a"\nwhere="w"\nquantity="rho3"\nargs={sigma="１"}\nprinted="1"\njudge="rounded"\n',
    "binary": "\x00\xff\xfe",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_claims_files(tmp_path, capsys, name):
    p = tmp_path / f"{name}.toml"
    p.write_bytes(HOSTILE[name].encode("utf-8", "surrogateescape"))
    with pytest.raises(InputError) as e:
        C.load(str(p))
    assert "\n" not in str(e.value)
    out = tmp_path / "out"
    rc = main(["audit", str(p), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_shipped_claims_are_in_the_package():
    files = C.shipped_claims_files()
    assert [os.path.basename(f) for f in files] == ["2605.06259.toml", "2610.02414.toml",
                                                    "2610.09651.toml"]
    counts = {C.load(f).source["arxiv"]: len(C.load(f).claims) for f in files}
    assert counts == {"2605.06259": 57, "2610.02414": 11, "2610.09651": 3}


def test_rounding_interval():
    from fractions import Fraction as F
    iv = A.rounding_interval("1.57e9")
    assert (iv.lower, iv.upper) == (F(1565 * 10**6), F(1575 * 10**6))
    iv = A.rounding_interval("4.30e5")
    assert (iv.lower, iv.upper) == (F(429500), F(430500))
    iv = A.rounding_interval("1.10")
    assert (iv.lower, iv.upper) == (F(1095, 1000), F(1105, 1000))


def test_audit_max_prec_reaches_the_m_exact_search(monkeypatch):
    """`verifier audit --max-prec` caps the M_exact search too (it escalates on its own)."""
    from verifier.claims import quantities as Q
    from verifier.bounds import theorem31_steps as TS
    seen = []
    real = TS.steps_exact

    def spy(sigma, delta, coef="simplified", max_prec=4096, reading="table1"):
        seen.append(max_prec)
        return real(sigma, delta, coef, max_prec, reading)

    monkeypatch.setattr(TS, "steps_exact", spy)
    Q._steps_cached.cache_clear()
    from fractions import Fraction as F
    args = {"sigma": F(1), "delta": F(1, 100), "coef": "simplified"}
    Q.get("m_exact").evaluate(args, 64, 256)
    assert seen == [256]
    Q._steps_cached.cache_clear()


def test_claims_reach_every_registry_bound(tmp_path):
    """quantity bound_delta: delta_E of any bound of the registry, hypotheses checked."""
    path = write(tmp_path, '''
[[claims]]
id = "chi"
where = "mine"
quantity = "bound_delta"
args = { bound = "chi-square", sigma = "1", steps = 1000000 }
printed = "0.00066"
judge = "at-most"
[[claims]]
id = "rho3"
where = "mine"
quantity = "bound_delta"
args = { bound = "theorem31-rho3", sigma = "1", steps = 1000000, epochs = 3 }
printed = "0.0195"
judge = "rounded"
[[claims]]
id = "below-hypothesis-2"
where = "mine"
quantity = "bound_delta"
args = { bound = "theorem31-simplified", sigma = "0.4", steps = 1000000 }
printed = "1"
judge = "at-most"
''')
    assert verdicts(path) == {"chi": "confirmed", "rho3": "confirmed",
                              "below-hypothesis-2": "not-applicable"}
