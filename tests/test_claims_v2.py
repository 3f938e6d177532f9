"""Claims format 2: the expression grammar, extrema over boxes, the judges, the
new quantities, and a file with ten mistakes giving ten one-line messages in one run."""
from __future__ import annotations

import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from verifier.claims import audit as A
from verifier.claims import expr as X
from verifier.claims import format as C
from verifier.core.arith import InputError

mpmath.mp.dps = 50


def _val(text, env=None, prec=128):
    return X.evaluate(X.parse(text), env or {}, prec, 1024)


def _inside(ball, ref) -> bool:
    from verifier.core.arith import ball_bounds
    lo, hi = ball_bounds(ball)
    return mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator


# ------------------------------------------------------------------ the grammar
@pytest.mark.parametrize("text,ref", [
    ("1 + 2*3", 7), ("2^3^2", 2 ** 9), ("-2^2", -4), ("(1 + 2)*3", 9), ("6/11", mpmath.mpf(6) / 11),
    ("1e-5*2", mpmath.mpf("2e-5")), ("sqrt(2)", mpmath.sqrt(2)), ("exp(1) - e", 0),
    ("log(10)", mpmath.log(10)), ("Phi(1)", mpmath.ncdf(1)), ("erf(0.5)", mpmath.erf(0.5)),
    ("erfc(2)", mpmath.erfc(2)), ("gamma(5.5)", mpmath.gamma(5.5)), ("zeta(3)", mpmath.zeta(3)),
    ("binomial(10, 3)", 120), ("binomial(5.5, 2)", mpmath.binomial(5.5, 2)), ("abs(-3)", 3),
    ("min(3, 1, 2)", 1), ("max(3, 1, 2)", 3), ("8/sqrt(pi)", 8 / mpmath.sqrt(mpmath.pi)),
    ("2^0.5", mpmath.sqrt(2)),
])
def test_grammar_values_enclose_mpmath(text, ref):
    assert _inside(_val(text, prec=200), mpmath.mpf(ref))


@pytest.mark.parametrize("bad", [
    "", "1 +", "(1", "1)", "2 ** 3", "foo(1)", "sqrt()", "sqrt(1, 2)", "__import__('os')",
    "x.y", "lambda: 1", "1; 2", "[1]", "coef(0.5)", "m_exact(sigma=1, bogus=2)",
    "m_exact(sigma=1, sigma=2)", "sqrt(x=1)", "'abc'", "1" * 3000, "(" * 100 + "1" + ")" * 100,
    "exp(1e99999)", "open('f')",
])
def test_grammar_refuses_with_one_line(bad):
    with pytest.raises(InputError) as e:
        X.evaluate(X.parse(bad), {}, 64, 64)
    assert "\n" not in str(e.value)


def test_names_are_bound_not_evaluated():
    with pytest.raises(InputError, match="unbound name"):
        _val("sigma + 1")
    assert _inside(_val("sigma^2", {"sigma": F(3, 2)}), mpmath.mpf(9) / 4)
    assert X.free_names(X.parse("coef(sigma=s) + pi + t")) == {"s", "t"}


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=-100, max_value=100, max_denominator=50),
       st.fractions(min_value=F(1, 10), max_value=100, max_denominator=50))
def test_exact_arithmetic_property(a, b):
    env = {"a": a, "b": b}
    node = X.parse("(a + b)*(a - b)/b - a^2/b")
    assert X.exact(node, env) == -b
    assert _inside(X.evaluate(node, env, 128, 128), mpmath.mpf(-b.numerator) / b.denominator)


def test_quantities_inside_expressions():
    v = _val("m_exact(sigma=1, delta=1/100)")
    assert v.lower() == v.upper() == 1140369          # Table 1 row sigma = 1
    c = _val('coef(sigma=0.5, coef="rho3")', prec=200)
    u = mpmath.mpf(4)                                  # 1/sigma^2 at sigma = 0.5
    P = lambda x: mpmath.ncdf(x)                       # noqa: E731
    rho3 = (mpmath.e ** (3 * u) * (1 - 2 * P(-5)) - 3 * mpmath.e ** u * (1 - 2 * P(-3))
            + 4 * (1 - 2 * P(-1)))                     # docs/THEORY.md section 2
    assert _inside(c, rho3 / mpmath.expm1(u) ** 2)
    # a quantity's missing argument comes from the bound names
    v2 = X.evaluate(X.parse("m_exact(sigma=1)"), {"delta": F(1, 100)}, 128, 1024)
    assert v2.lower() == 1140369
    with pytest.raises(InputError, match="needs exact arguments"):
        X.evaluate(X.parse("m_exact(sigma=s, delta=1/100)"), {"s": (F(1), F(2))}, 64, 64)


# ------------------------------------------------------------------ extrema
def test_extremum_of_a_parabola_and_its_argmin():
    from verifier.claims.extremum import extremum
    r = extremum(X.parse("(s - 1/3)^2 + 2"), {}, {"s": (F(0), F(2))}, "min", 128, 1024)
    assert r.value.lower <= 2 <= r.value.upper and r.value.upper - r.value.lower < F(1, 10 ** 6)
    assert abs(r.at["s"] - F(1, 3)) < F(1, 100)
    r = extremum(X.parse("(s - 1/3)^2 + 2"), {}, {"s": (F(0), F(2))}, "max", 128, 1024)
    assert r.value.lower <= F(2) + F(25, 9) <= r.value.upper              # at s = 2


def test_extremum_two_dimensions_against_a_grid():
    from verifier.claims.extremum import extremum
    node = X.parse("x*y - x^2 + y/3")
    r = extremum(node, {}, {"x": (F(0), F(1)), "y": (F(0), F(1))}, "max", 128, 1024)
    grid = max(x * y - x * x + y / 3 for x in [i / 200 for i in range(201)]
               for y in [j / 200 for j in range(201)])
    assert float(r.value.lower) - 1e-9 <= max(grid, float(r.value.lower)) <= float(r.value.upper) + 1e-9
    assert float(r.value.upper) >= grid - 1e-12                          # encloses the max


def test_section_31_interior_minima():
    from verifier.claims.extremum import extremum
    node = X.parse('1 + 2*0.4748*sqrt(2*pi)*coef(sigma=s, coef="rho3")')
    r = extremum(node, {}, {"s": (F(3, 4), F(2))}, "min", 128, 1024)
    assert F(107, 10) - F(5, 100) <= r.value.lower <= r.value.upper <= F(107, 10) + F(5, 100)
    assert F(13, 10) < r.at["s"] < F(16, 10)                            # interior
    # the value at the reported point lies in the enclosure's range (it is attained)
    at = X.evaluate(node, {"s": r.at["s"]}, 128, 1024)
    assert float(r.value.lower) <= float(at.mid()) <= float(r.value.upper) + 1e-12


# ------------------------------------------------------------------ judges
def _file(tmp_path, body, fmt="verifier-claims/2"):
    p = tmp_path / "c.toml"
    p.write_text(f'format = "{fmt}"\n' + body, encoding="utf-8")
    return C.load(str(p))


def _verdicts(cf):
    return {r.claim.id: r.verdict for r in A.audit(cf)}


def test_every_judge_confirms_and_refutes(tmp_path):
    body = '''
[[claims]]
id = "trunc.ok"
where = "x"
expr = "zeta(2)/zeta(3)"
printed = "1.36843..."
judge = "truncated"
[[claims]]
id = "trunc.no"
where = "x"
expr = "zeta(2)/zeta(3)"
printed = "1.36844..."
judge = "truncated"
[[claims]]
id = "trunc.rounding-is-not-truncation"
where = "x"
expr = "2/3"
printed = "0.667"
judge = "truncated"
[[claims]]
id = "approx.ok"
where = "x"
expr = "coef_ratio(sigma=0.5)"
printed = "1.001"
judge = "approx"
tolerance = "0.0001"
[[claims]]
id = "approx.no"
where = "x"
expr = "coef_ratio(sigma=0.5)"
printed = "1.002"
judge = "approx"
tolerance = "0.0001"
[[claims]]
id = "between.ok"
where = "x"
expr = "pi"
low = "3.14"
high = "3.15"
judge = "between"
[[claims]]
id = "between.no"
where = "x"
expr = "pi"
low = "3.15"
high = "4"
judge = "between"
[[claims]]
id = "equals.algebra"
where = "x"
expr = "sqrt(8)"
reference = "2*sqrt(2)"
judge = "equals"
[[claims]]
id = "equals.refuted"
where = "x"
expr = "sqrt(8)"
reference = "2.8284271"
judge = "equals"
[[claims]]
id = "rel.ok"
where = "x"
expr = "m_closed_form(sigma=1, delta=1/100)"
reference = "m_exact(sigma=1, delta=1/100)"
judge = "relative-difference"
tolerance = "0.001"
[[claims]]
id = "atmost.no"
where = "x"
expr = "5/sqrt(3)"
printed = "2.88"
judge = "at-most"
[[claims]]
id = "rounded.over"
where = "x"
expr = '1 + 2*0.4748*sqrt(2*pi)*coef(sigma=s, coef="simplified")'
over = { s = ["0.75", "2"] }
extremum = "max"
printed = "181.5"
judge = "rounded"
'''
    v = _verdicts(_file(tmp_path, body))
    assert v == {"trunc.ok": "confirmed", "trunc.no": "refuted",
                 "trunc.rounding-is-not-truncation": "refuted", "approx.ok": "confirmed",
                 "approx.no": "refuted", "between.ok": "confirmed", "between.no": "refuted",
                 "equals.algebra": "confirmed", "equals.refuted": "refuted", "rel.ok": "confirmed",
                 "atmost.no": "refuted", "rounded.over": "confirmed"}


def test_equals_with_a_quantity_is_numeric_only(tmp_path):
    body = '''
[[claims]]
id = "eq.q"
where = "x"
expr = "2*coef_ratio(sigma=1)"
reference = "coef_ratio(sigma=1) + coef_ratio(sigma=1)"
judge = "equals"
'''
    r = A.audit(_file(tmp_path, body))[0]
    assert r.verdict == "inconclusive"             # numerics refute, never prove


def test_exact_value_claims_need_the_whole_bracket(tmp_path):
    # the exact TV of (sigma = 1, M = 100) is about 0.0514: a bracket, judged as a whole
    body = '''
[[claims]]
id = "tv.at-most"
where = "x"
expr = "exact_tv(sigma=1, steps=100)"
printed = "0.0515"
judge = "at-most"
[[claims]]
id = "tv.rounded-too-fine"
where = "x"
expr = "exact_tv(sigma=1, steps=100)"
printed = "0.051420"
judge = "rounded"
'''
    v = _verdicts(_file(tmp_path, body))
    assert v["tv.at-most"] == "confirmed"
    assert v["tv.rounded-too-fine"] in ("inconclusive", "refuted")


def test_ten_mistakes_ten_lines(tmp_path):
    body = '''
[[claims]]
id = "m1"
where = "x"
expr = "1 +"
printed = "1"
judge = "rounded"
[[claims]]
id = "m2"
where = "x"
expr = "nosuch(sigma=1)"
printed = "1"
judge = "rounded"
[[claims]]
id = "m3"
where = "x"
expr = "1"
printed = "1"
judge = "roughly"
[[claims]]
id = "m4"
where = "x"
expr = "sigma"
printed = "1"
judge = "rounded"
[[claims]]
id = "m5"
where = "x"
expr = "1"
judge = "approx"
printed = "1"
[[claims]]
id = "m6"
where = "x"
expr = "1"
judge = "between"
low = "2"
[[claims]]
id = "m7"
where = "x"
expr = "1"
judge = "rounded"
printed = "6/11"
[[claims]]
id = "m8"
where = "x"
expr = "s"
over = { s = ["2", "1"] }
extremum = "min"
printed = "1"
judge = "rounded"
[[claims]]
id = "m9"
where = "x"
expr = "1"
judge = "equals"
[[claims]]
id = "m10"
where = "x"
quantity = "no_such_quantity"
printed = "1"
judge = "rounded"
'''
    p = tmp_path / "ten.toml"
    p.write_text('format = "verifier-claims/2"\n' + body, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verifier", "audit", str(p), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 10, r.stderr
    for i, ln in enumerate(lines, 1):
        assert ln.startswith("verifier: error: ") and str(p) in ln and f"'m{i}'" in ln, ln
    assert not (tmp_path / "out").exists()


def test_format_1_files_keep_working(tmp_path):
    body = '''
[defaults]
delta = "0.01"
[[claims]]
id = "v1"
where = "Table 1"
quantity = "m_exact"
args = { sigma = "1" }
printed = "1140369"
judge = "rounded"
'''
    assert _verdicts(_file(tmp_path, body, "verifier-claims/1")) == {"v1": "confirmed"}


def test_printed_values_echoed_as_written(tmp_path):
    body = '''
[[claims]]
id = "p"
where = "x"
expr = "1140000"
printed = 1.14e6
judge = "rounded"
'''
    cf = _file(tmp_path, body)
    assert cf.claims[0].printed == "1.14e6"


def test_new_quantities_against_references():
    chi = _val("chi_square(sigma=1, steps=100, epochs=10)")
    ref = mpmath.sqrt((1 + mpmath.expm1(1) / 100) ** 10 - 1) / 2
    assert _inside(chi, ref)
    d2 = _val("renyi(sigma=2, steps=1, alpha=3)")
    assert _inside(d2, mpmath.mpf(3) / 8)
    f = _val("tradeoff(sigma=1, steps=1, a=1/2)")
    assert _inside(f, mpmath.ncdf(-1))                                # G_1(1/2) = Phi(-1)
    eps = _val("epsilon(sigma=2, steps=1, delta=1/100000)")
    assert 1.99 < float(eps.mid()) < 2.0                              # README: [1.99307, 1.99338]


@pytest.mark.parametrize("binding", ['cases = [{ e = "5" }]', 'args = { pi = "3" }',
                                     'over = { e = ["1", "2"] }\nextremum = "max"',
                                     'cases = [{ Phi = "1" }]'])
def test_a_bound_name_that_is_a_constant_or_function_is_refused(tmp_path, binding):
    """Issue 45: `e` bound to 5 was passed as 5 to quantities but read as Euler's number in
    the arithmetic, and a true claim was certified refuted; now refused when the file is read,
    in one line naming the claim and the name."""
    name = binding.split("{ ")[1].split(" =")[0]
    body = f'''
[[claims]]
id = "collide"
where = "x"
expr = "{name} + 0" 
printed = "5"
judge = "rounded"
{binding}
'''
    with pytest.raises(InputError, match=f"claim 'collide': the name '{name}' is bound here") as e:
        _file(tmp_path, body)
    assert "\n" not in str(e.value)


def test_a_case_outside_an_engine_s_range_is_not_applicable_with_the_range(tmp_path):
    """Issue 47: one row outside an engine's range (TF Privacy's sigma 0.1) no longer fails the
    whole file with exit 2: that case is *not applicable*, its note the range; the file's other
    claims are judged."""
    body = '''
[[claims]]
id = "row"
where = "x"
expr = "poisson_epsilon(sigma=s, sample_rate=0.01, total_steps=100, delta=1e-5)"
cases = [{ s = "0.1" }, { s = "1" }]
printed = "1.0"
judge = "at-most"
[[claims]]
id = "other"
where = "x"
expr = "1 + 1"
printed = "2"
judge = "rounded"
'''
    res = {r.claim.id: r for r in A.audit(_file(tmp_path, body))}
    assert res["row"].verdict == "not-applicable" and res["other"].verdict == "confirmed"
    first, second = res["row"].cases
    assert first.verdict == "not-applicable" and "outside" in first.note and "[0.3, 50]" in first.note
    assert second.verdict == "confirmed"


def test_load_and_evaluation_mistakes_come_in_one_run(tmp_path, capsys):
    """Issue 45: a file with mistakes found when it is read and others found only when its
    claims are evaluated reports all of them at once (one line each, exit 2, nothing
    written)."""
    from verifier.cli import main
    f = tmp_path / "mix.toml"
    claims = "".join(f'''
[[claims]]
id = "load{i}"
where = "x"
expr = "1 +"
printed = "2"
judge = "rounded"
[[claims]]
id = "eval{i}"
where = "x"
expr = "m_closed_form(sigma=1, delta=1/100, coef=\\"bogus{i}\\")"
printed = "2"
judge = "rounded"
''' for i in range(5))
    f.write_text('format = "verifier-claims/2"\n[source]\npaper = "t"\n' + claims)
    rc = main(["audit", str(f), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and not (tmp_path / "out").exists()
    lines = err.strip().split("\n")
    assert len(lines) == 10 and sum("incomplete expression" in ln for ln in lines) == 5
    assert sum("unknown coef 'bogus" in ln for ln in lines) == 5
