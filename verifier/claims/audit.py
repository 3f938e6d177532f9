"""The audit engine: judge every claim of a claims file with certified values.

Verdicts (per case, then per claim):
- ``confirmed``: the certified enclosure lies inside the printed value's
  rounding interval, or the stated relation certifiably holds;
- ``refuted``: certifiably not;
- ``inconclusive``: undecided at the precision cap;
- ``not-applicable``: a hypothesis of the theorem the quantity rests on fails.
A claim is refuted if any case is, else inconclusive if any case is, else
not-applicable if any case is, else confirmed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from verifier.claims import quantities as Q
from verifier.core.decide import decide
from verifier.core.arith import DEFAULT_MAX_PREC, InputError, Interval, Tri, decimal_str, parse_exact
from verifier.claims import accuracy as AC
from verifier.claims import judges as J
from verifier.claims.format import Claim, ClaimsFile
from verifier.claims.judges import (CONFIRMED, INCONCLUSIVE, NOT_APPLICABLE, REFUTED, VERDICTS,
                                    rounding_interval, truncation_interval)

__all__ = ["CONFIRMED", "REFUTED", "INCONCLUSIVE", "NOT_APPLICABLE", "VERDICTS", "CaseResult",
           "ClaimResult", "rounding_interval", "truncation_interval", "judge_case",
           "judge_case_expr", "judge", "audit", "summary", "exit_status", "describe_args",
           "value_text", "figure_data"]
@dataclass(frozen=True)
class CaseResult:
    args: dict
    verdict: str
    value: Interval | None
    reference: Interval | None
    accepted: Interval | None
    precision: int
    integer: bool            # the value is an integer, known exactly
    note: str = ""
    printed: str = ""        # the case's own printed value (per-case printed), if any

    def to_json(self) -> dict:
        out = {"args": self.args, "verdict": self.verdict, "precision_bits": self.precision}
        if self.printed:
            out["printed"] = self.printed
        if self.value is not None:
            out["value"] = _ivjson(self.value, self.integer)
        if self.reference is not None:
            out["reference_value"] = _ivjson(self.reference, True)
        if self.accepted is not None:
            out["accepted"] = self.accepted.to_json(25)
        if self.note:
            out["note"] = self.note
        return out


def _ivjson(iv: Interval, integer: bool):
    """An integer known exactly is written {"exact": "<digits>"} (the reports' JSON key, kept);
    anything else as an outward-rounded interval."""
    if integer and iv.lower == iv.upper and iv.lower.denominator == 1:
        return {"exact": str(iv.lower.numerator)}
    return iv.to_json()


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    verdict: str
    cases: tuple
    reconstructed: bool
    source: str


# the exact-algebra path of the equals judge is bounded in size and time; past either
# bound it gives no proof (the numerics may still refute) and says why
SYMPY_MAX_OPS = 600          # operations in expr - reference (sympy.count_ops)
SYMPY_SECONDS = 10           # wall time of simplify, in a forked child that is killed after


def _exactly_equal(claim: Claim, env: dict) -> tuple[bool, str]:
    """(True, "") when SymPy reduces expr - reference to 0 exactly (no quantity in either);
    (False, why) otherwise."""
    import sympy as sp
    from verifier.claims import expr as X
    try:
        a, b = X.to_sympy(claim.expr, env), X.to_sympy(claim.reference_expr, env)
        if a is None or b is None:
            return False, ""
        diff = a - b
        ops = sp.count_ops(diff)
    except InputError:          # a stated limit: the caller reports it
        raise
    except Exception:           # noqa: BLE001 (SymPy refused the expression: not proved;
        return False, ""        # e.g. Min(0, zoo) for min(0, log(0)))
    if ops > SYMPY_MAX_OPS:
        return False, (f"exact algebra not tried: expr - reference has {ops} operations "
                       f"(the limit is {SYMPY_MAX_OPS})")
    ok = _bounded(lambda: sp.simplify(sp.expand_func(diff)) == 0, SYMPY_SECONDS)
    if ok is None:
        return False, f"exact algebra (SymPy) gave no answer within {SYMPY_SECONDS} s"
    return ok, ""


def _quickly_refuted(claim: Claim, env: dict, max_prec: int) -> bool:
    """expr and reference certified different at 128 bits: the numerics refute, no algebra
    is needed (it could only fail to prove)."""
    from flint import ctx
    from verifier.claims import expr as X
    if claim.over:
        return False
    try:
        with ctx.workprec(128):
            d = X.evaluate(claim.expr, env, 128, max_prec) - \
                X.evaluate(claim.reference_expr, env, 128, max_prec)
            return bool(d > 0 or d < 0)
    except InputError:
        raise
    except (X.Undecided, ArithmeticError, ValueError, ZeroDivisionError):
        return False


def _bounded(f, seconds: float):
    """f() (a bool) computed in a forked child killed after ``seconds``; None when it did not
    answer in time or failed.  Where fork does not exist, f() in this process (unbounded)."""
    import multiprocessing as mp
    try:
        ctx = mp.get_context("fork")
    except ValueError:
        try:
            return bool(f())
        except Exception:       # noqa: BLE001
            return None
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(bool(f()))
        except BaseException:   # noqa: BLE001 (SymPy gave up: no answer)
            send.send(None)
    p = ctx.Process(target=child, daemon=True)
    p.start()
    send.close()
    try:
        return recv.recv() if recv.poll(seconds) else None
    except EOFError:
        return None
    finally:
        p.kill()
        p.join()
        recv.close()


def judge_case_expr(claim: Claim, idx: int, max_prec: int) -> CaseResult:
    """One case of a format-2 claim: the expression (or its extremum over the box) as a
    ball, the precision raised until the judge decides."""
    from verifier.claims import expr as X
    from verifier.claims.extremum import extremum
    from verifier.claims.extremum import extremum_at_corner
    env, raw = claim.env_cases[idx], claim.raw_cases[idx]
    printed = claim.printed_of(idx)
    acc = AC.accepted_interval(claim, printed)
    algebra = (False, "")
    if claim.judge == "equals" and not _quickly_refuted(claim, env, max_prec):
        algebra = _exactly_equal(claim, env)
    if algebra[0]:
        try:
            from flint import ctx
            with ctx.workprec(128):
                shown = Interval.of(X.evaluate(claim.expr, env, 128, max_prec))
        except X.Undecided:
            shown = None
        return CaseResult(raw, CONFIRMED, shown, None, None, 0, False,
                          "exact algebra: SymPy reduces expr - reference to 0")

    def value(node, p):
        from flint import ctx
        with ctx.workprec(p):          # the ends read off at the working precision
            return _value(node, p)

    def _value(node, p):
        if claim.over:
            c = extremum_at_corner(node, env, dict(claim.over), claim.extremum, p, max_prec)
            if c is not None:
                return c
            ext = extremum(node, env, dict(claim.over), claim.extremum, p, max_prec)
            where = ", ".join(f"{k} = {decimal_str(v, 10)}" for k, v in sorted(ext.at.items()))
            return ext.value, f"{claim.extremum} over the box, attained near {where} " \
                              f"({ext.evaluations} evaluations)"
        return Interval.of(X.evaluate(node, env, p, max_prec)), ""

    def at(p):
        try:
            v, note = value(claim.expr, p)
            ref = value(claim.reference_expr, p)[0] if claim.reference_expr is not None else None
        except X.Undecided as u:
            verdict = INCONCLUSIVE if u.status == "inconclusive" else NOT_APPLICABLE
            return CaseResult(raw, verdict, None, None, acc, p, False, u.why), True
        verdict = None
        if v.finite and (ref is None or ref.finite):
            j = claim.judge
            if j in ("rounded", "between"):
                verdict = J.within(v, acc) if j == "rounded" else J.between(v, claim.low, claim.high)
            elif j == "truncated":
                verdict = J.truncated(v, printed)
            elif j == "approx":
                verdict = J.within(v, acc)
            elif j in ("at-most", "at-least"):
                b = parse_exact(printed, "printed")
                verdict = J.at_most(v, b) if j == "at-most" else J.at_least(v, b)
            elif j == "relative-difference":
                verdict = J.relative(v, ref, claim.tolerance)
            elif j == "equals":
                d = J.sub(v, ref)
                verdict = REFUTED if (d.lower > 0 or d.upper < 0) else None
        if verdict is None and claim.judge == "equals" and p >= max_prec:
            note = (note + "; " if note else "") + "not proved by algebra" + (
                f" ({algebra[1]})" if algebra[1] else "") + ", no certified difference"
        return CaseResult(raw, verdict or INCONCLUSIVE, v if v.finite else None, ref, acc, p,
                          False, note if verdict else (note + "; " if note else "")
                          + undecided_expr_note(claim.expr, max_prec)), verdict is not None
    res = AC.with_accuracy(claim, lambda: decide(at, lambda r: r[1], max_prec)[0], printed)
    return replace(res, printed=printed) if claim.case_printed else res


def undecided_note(q, value, max_prec: int) -> str:
    """What limited an undecided quantity: an engine's bracket (its accuracy; raising the
    working precision would not narrow it), or the working precision's cap."""
    if q.engine:
        return (f"undecided: the {q.name} engine's bracket {value.short(8)} is too wide for "
                f"the judge (its accuracy limits it, not the working precision)")
    return f"undecided at the precision cap ({max_prec} bits)"


def undecided_expr_note(node, max_prec: int) -> str:
    from verifier.claims.grammar import calls
    engines = sorted(n for n in calls(node) if n in Q.QUANTITIES and Q.QUANTITIES[n].engine)
    if engines:
        return (f"undecided at the precision cap ({max_prec} bits): the width comes from the "
                f"engine bracket{'s' if len(engines) > 1 else ''} of {', '.join(engines)} "
                "(their accuracy, not the working precision)")
    return f"undecided at the precision cap ({max_prec} bits)"


def judge_case(claim: Claim, idx: int, max_prec: int) -> CaseResult:
    """One case of a claim, the precision raised (core.decide) until the judge decides or
    the evaluation is final (inconclusive, not applicable)."""
    if claim.expr is not None:
        return judge_case_expr(claim, idx, max_prec)
    q = Q.get(claim.quantity)
    args, raw = claim.cases[idx], claim.raw_cases[idx]
    acc = rounding_interval(claim.printed, claim.digits) if claim.judge == "rounded" else None
    b = parse_exact(claim.printed, "printed") if claim.judge in ("at-most", "at-least") else None

    def at(p):
        """(CaseResult at precision p, final?)."""
        ev = q.evaluate(args, p, max_prec)
        if ev.status == "inconclusive":
            return CaseResult(raw, INCONCLUSIVE, None, None, acc, p, ev.integer, ev.failed), True
        if ev.applicable is Tri.FAILS:
            return CaseResult(raw, NOT_APPLICABLE, ev.value if ev.status == "ok" else None,
                              None, acc, p, ev.integer, ev.failed), True
        ref_iv = None
        verdict = None
        if ev.applicable is Tri.HOLDS and ev.value.finite:
            if claim.judge == "rounded":
                verdict = J.within(ev.value, acc)
            elif claim.judge == "at-most":
                verdict = J.at_most(ev.value, b)
            elif claim.judge == "at-least":
                verdict = J.at_least(ev.value, b)
            else:
                rq = Q.get(claim.reference)
                rev = rq.evaluate(claim.reference_cases[idx], p, max_prec)
                if rev.status == "inconclusive":
                    return CaseResult(raw, INCONCLUSIVE, ev.value, None, None, p, ev.integer,
                                      rev.failed), True
                if rev.applicable is Tri.FAILS:
                    return CaseResult(raw, NOT_APPLICABLE, ev.value, rev.value, None, p, ev.integer,
                                      rev.failed), True
                if rev.applicable is Tri.HOLDS and rev.value.finite:
                    ref_iv = rev.value
                    verdict = J.relative(ev.value, ref_iv, claim.tolerance)
        return CaseResult(raw, verdict or INCONCLUSIVE, ev.value, ref_iv,
                          acc if claim.judge == "rounded" else None, p, ev.integer,
                          "" if verdict else undecided_note(q, ev.value, max_prec)
                          ), verdict is not None or q.engine
    return AC.with_accuracy(claim, lambda: decide(at, lambda r: r[1], max_prec)[0])


def _aggregate(verdicts) -> str:
    for v in (REFUTED, INCONCLUSIVE, NOT_APPLICABLE):
        if v in verdicts:
            return v
    return CONFIRMED


def judge(claim: Claim, max_prec: int = DEFAULT_MAX_PREC) -> ClaimResult:
    from verifier.core.ranges import RangeError
    n = len(claim.env_cases) if claim.expr is not None else len(claim.cases)

    def case(i):             # outside an engine's range: this case is not applicable
        try:
            return judge_case(claim, i, max_prec)
        except RangeError as e:
            return CaseResult(claim.raw_cases[i] if i < len(claim.raw_cases) else {},
                              NOT_APPLICABLE, None, None, None, 0, False, str(e))
    cases = tuple(case(i) for i in range(n))
    if claim.expr is not None:
        from verifier.claims import expr as X
        names = X.calls(claim.expr) | (X.calls(claim.reference_expr)
                                       if claim.reference_expr is not None else set())
        qs = [Q.get(nm) for nm in sorted(names)]
        recon = any(q.reconstructed for q in qs)
        source = "; ".join(dict.fromkeys(q.source for q in qs)) or "exact arithmetic"
        return ClaimResult(claim, _aggregate([c.verdict for c in cases]), cases, recon, source)
    q = Q.get(claim.quantity)
    recon = q.reconstructed or (claim.reference is not None and Q.get(claim.reference).reconstructed)
    return ClaimResult(claim, _aggregate([c.verdict for c in cases]), cases, recon, q.source)


def audit(cf: ClaimsFile, max_prec: int = DEFAULT_MAX_PREC) -> list[ClaimResult]:
    """Every claim judged (a case outside an engine's range is *not applicable*, with the
    range); a claim whose evaluation meets another stated limit (a value beyond the size
    limit) is one error line naming the file and the claim, and the other claims are still
    judged so that all such lines come at once."""
    from verifier.core.arith import InputErrors
    from verifier.core.progress import report
    out, errors = [], []
    for i, c in enumerate(cf.claims):
        report(f"auditing {cf.name}", i, len(cf.claims))
        try:
            out.append(judge(c, max_prec))
        except InputErrors as e:
            errors += [f"{cf.path or cf.name}: claim {c.id!r}: {m}" for m in e.messages]
        except InputError as e:
            errors.append(f"{cf.path or cf.name}: claim {c.id!r}: {e}")
    if errors:
        raise InputErrors(errors)
    return out


def summary(results, own: bool = False) -> dict:
    """Verdict counts of the paper's claims (``own``: of the verifier's own claims, which are
    counted apart)."""
    out = {v: 0 for v in VERDICTS}
    chosen = [r for r in results if r.claim.own == own]
    for r in chosen:
        out[r.verdict] += 1
    out["total"] = len(chosen)
    return out


def summary_line(results) -> str:
    """'N claims: ...' of the paper's claims, and the verifier's own apart when there are."""
    s, o = summary(results), summary(results, own=True)
    line = f"{s['total']} claims: " + ", ".join(f"{s[k]} {k}" for k in VERDICTS)
    if o["total"]:
        line += (f"; and {o['total']} of the verifier's own (not the paper's): "
                 + ", ".join(f"{o[k]} {k}" for k in VERDICTS if o[k]))
    return line


def exit_status(results) -> int:
    """0 when no claim is refuted or inconclusive, 1 otherwise."""
    return 1 if any(r.verdict in (REFUTED, INCONCLUSIVE) for r in results) else 0


def describe_args(args: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())


def value_text(c: CaseResult) -> str:
    if c.value is None:
        return "-"
    if c.integer and c.value.lower == c.value.upper:
        q = c.value.lower
        return str(q.numerator) if q.denominator == 1 else decimal_str(q, 25)
    return c.value.short(8)


def figure_data(cf) -> dict | None:
    """The figures' data of an audit of arXiv 2605.06259 (the paper's Figure 1 and delta vs M
    at sigma = 1), computed here, in the pipeline; None for other papers."""
    if cf.source.get("arxiv") != "2605.06259":
        return None
    from verifier.deploy import series
    return {"steps_vs_sigma": series.steps_vs_sigma(), "delta_vs_steps": series.delta_vs_steps()}
