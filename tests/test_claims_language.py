"""Claims-language completions: approx with an absolute tolerance, a printed
value per case, the source's title, authors and url in the report, and the reconstruction
note only where a claim rests on the reconstructed Theorem 3.1."""
from __future__ import annotations

import textwrap

import pytest

from verifier.claims import audit as A
from verifier.claims import format as CF
from verifier.core.arith import InputErrors
from verifier.report.writer import audit_markdown

HEAD = '''format = "verifier-claims/2"
[source]
paper = "Example paper"
title = "A title"
authors = "A. Author and B. Author"
url = "https://example.org/paper"
'''


def _load(tmp_path, body, name="c.toml"):
    f = tmp_path / name
    f.write_text(HEAD + textwrap.dedent(body))
    return CF.load(str(f))


def test_approx_with_an_absolute_tolerance(tmp_path):
    cf = _load(tmp_path, '''
        [[claims]]
        id = "a.in"
        where = "w"
        expr = "exp(1)"
        printed = "2.7183"
        judge = "approx"
        abs_tolerance = "1e-4"
        [[claims]]
        id = "a.out"
        where = "w"
        expr = "exp(1)"
        printed = "2.7185"
        judge = "approx"
        abs_tolerance = "1e-4"
    ''')
    r = {x.claim.id: x for x in A.audit(cf)}
    assert r["a.in"].verdict == A.CONFIRMED and r["a.out"].verdict == A.REFUTED
    acc = r["a.in"].cases[0].accepted
    assert acc.upper - acc.lower == pytest.approx(2e-4)


@pytest.mark.parametrize("extra,needle", [("", "needs tolerance (relative) or abs_tolerance"),
                                          ('abs_tolerance = "-1"', "abs_tolerance must be >= 0")])
def test_approx_mistakes_are_one_line(tmp_path, extra, needle):
    with pytest.raises(InputErrors) as e:
        _load(tmp_path, f'''
            [[claims]]
            id = "bad"
            where = "w"
            expr = "exp(1)"
            printed = "2.7183"
            judge = "approx"
            {extra}
        ''')
    assert any(needle in m and "claim 'bad'" in m for m in e.value.messages)


def test_a_printed_value_per_case(tmp_path):
    cf = _load(tmp_path, '''
        [[claims]]
        id = "table"
        where = "a table of printed values"
        expr = "sqrt(x)"
        judge = "rounded"
        cases = [{ x = "2", printed = "1.4142" }, { x = "3", printed = "1.7321" },
                 { x = "5", printed = "2.2362" }]
    ''')
    r = A.audit(cf)[0]
    assert [c.verdict for c in r.cases] == [A.CONFIRMED, A.CONFIRMED, A.REFUTED]
    assert [c.printed for c in r.cases] == ["1.4142", "1.7321", "2.2362"]
    md = audit_markdown(cf, [r], 4096)
    assert "| arguments | printed | value |" in md and "| x=5 | 2.2362 |" in md
    assert "per case" in md


def test_a_case_without_printed_needs_the_claims(tmp_path):
    with pytest.raises(InputErrors) as e:
        _load(tmp_path, '''
            [[claims]]
            id = "table"
            where = "w"
            expr = "sqrt(x)"
            judge = "rounded"
            cases = [{ x = "2", printed = "1.4142" }, { x = "3" }]
        ''')
    assert any("needs printed" in m for m in e.value.messages)


def test_report_names_its_source_and_only_the_notes_it_needs(tmp_path):
    cf = _load(tmp_path, '''
        [[claims]]
        id = "e"
        where = "w"
        expr = "exp(1)"
        printed = "2.718"
        judge = "rounded"
    ''', name="my_audit.toml")
    md = audit_markdown(cf, A.audit(cf), 4096)
    assert md.startswith("# Audit of A title")
    assert ("Source: Example paper, \u201cA title\u201d, A. Author and B. Author, "
            "https://example.org/paper.") in md
    assert "Reconstructed statements" not in md
    t31 = CF.load(CF.shipped_claims_files()[0])          # arXiv 2605.06259: Theorem 3.1
    sub = CF.ClaimsFile(t31.name, t31.source, t31.claims[:1], t31.format, t31.path)
    assert "Reconstructed statements" in audit_markdown(sub, A.audit(sub), 4096)


def test_a_refuted_claim_says_which_way_and_by_how_much(tmp_path):
    cf = _load(tmp_path, '''
        [[claims]]
        id = "high"
        where = "w"
        expr = "exp(1)"
        printed = "2.7190"
        judge = "rounded"
        [[claims]]
        id = "bound"
        where = "w"
        expr = "exp(1)"
        printed = "2.7"
        judge = "at-most"
    ''')
    r = {x.claim.id: x.cases[0] for x in A.audit(cf)}
    assert r["high"].verdict == A.REFUTED
    assert "below the printed value's interval by at least 0.000668" in r["high"].note
    assert "above the printed bound by at least 0.01828" in r["bound"].note


def test_index_lists_titles_and_verdict_counts(tmp_path):
    from verifier.cli import main
    out = tmp_path / "r"
    f = tmp_path / "c.toml"
    f.write_text(HEAD + '[[claims]]\nid = "e"\nwhere = "w"\nexpr = "exp(1)"\n'
                 'printed = "2.718"\njudge = "rounded"\n')
    assert main(["audit", str(f), "--out", str(out)]) == 0
    html = (out / "index.html").read_text()
    assert "Example paper, \u201cA title\u201d" in html and "1 claims: 1 confirmed" in html


def test_the_verifiers_own_claims_are_counted_apart(tmp_path):
    cf = _load(tmp_path, '''
        [[claims]]
        id = "paper"
        where = "w"
        expr = "exp(1)"
        printed = "2.718"
        judge = "rounded"
        [[claims]]
        id = "mine"
        where = "not a claim of the paper"
        expr = "exp(2)"
        printed = "7.389"
        judge = "rounded"
        own = true
    ''')
    res = A.audit(cf)
    assert A.summary(res)["total"] == 1 and A.summary(res, own=True)["total"] == 1
    line = A.summary_line(res)
    assert line.startswith("1 claims: 1 confirmed") and "1 of the verifier's own" in line
    md = audit_markdown(cf, res, 4096)
    assert "**confirmed** (V)" in md and "(V): the verifier's own claim" in md
