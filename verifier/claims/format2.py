"""Format ``verifier-claims/2`` claims (docs/CLAIMS.md): an expression over the quantities,
optionally an extremum over a box, and a judge.  Each mistake is one InputError line that
names the claim (format.py collects them per file)."""
from __future__ import annotations

from verifier.claims.schema import (CLAIM2_KEYS, JUDGES2, Claim, bind_names, canon_exact,
                                    check_bindable, keyword_names, printed_value, table_value,
                                    text_value)
from verifier.core.arith import DECIMAL_RE, InputError, parse_exact


def _parse_expr(text: str, label: str, where: str):
    from verifier.claims import expr as X
    try:
        return X.parse(text)
    except InputError as e:
        raise InputError(f"{where}: {label}: {e}") from None


def _over_box(c: dict, where: str) -> tuple[dict, str]:
    """({name: (low, high)}, "min" | "max" | "") of an extremum over a box."""
    over = {}
    if "over" in c:
        ov = c["over"]
        if not isinstance(ov, dict) or not ov or len(ov) > 3:
            raise InputError(f"{where}: over must be a table of 1 to 3 names, each [low, high]")
        for k, v in ov.items():
            check_bindable(k, where)
            if not isinstance(v, list) or len(v) != 2:
                raise InputError(f"{where}: over.{k} must be [low, high]")
            lo, hi = (parse_exact(x, f"over.{k}") for x in v)
            if not lo < hi:
                raise InputError(f"{where}: over.{k} must have low < high, got [{v[0]}, {v[1]}]")
            over[k] = (lo, hi)
    ext = c.get("extremum", "")
    if ext not in ("", "min", "max"):
        raise InputError(f"{where}: extremum must be 'min' or 'max', got {ext!r:.20}")
    if bool(over) != bool(ext):
        raise InputError(f"{where}: over and extremum go together")
    return over, ext


def _bound_cases(c: dict, node, defaults: dict, over: dict, where: str,
                 runs: dict | None = None) -> tuple[list, list]:
    """(environments, shown arguments) of each case: the file's runs (each name bound to its
    run's JSON), defaults, args and the case's own names bound to exact values; every free
    name of the expression bound."""
    from verifier.claims import expr as X
    args = table_value(c.get("args", {}), f"{where}: args")
    cases = c.get("cases", [{}])
    if not isinstance(cases, list) or not cases or len(cases) > 1000:
        raise InputError(f"{where}: cases must be a non-empty list of tables")
    env_cases, raw_cases = [], []
    runs = runs or {}
    base = bind_names({**defaults, **args}, where)
    for k in base:
        if k in runs:
            raise InputError(f"{where}: {k!r} names a run of [runs]; bind another name")
    base = {**runs, **base}
    free, kws = X.free_names(node), keyword_names(node)
    for j, case in enumerate(cases):
        case = dict(table_value(case, f"{where}: cases[{j}]"))
        case.pop("printed", None)                # a case's own printed value, not a name
        env = {**base, **bind_names(case, where)}
        if set(case) & set(runs):
            raise InputError(f"{where}: cases[{j}]: {sorted(set(case) & set(runs))[0]!r} "
                             "names a run of [runs]; bind another name")
        missing = sorted(free - set(env) - set(over))
        if missing:
            raise InputError(f"{where}: expr uses unbound name {missing[0]!r} (bind it in "
                             "args, cases, defaults or over)")
        env_cases.append(env)
        raw_cases.append({k: (f"[runs.{k}]" if k in runs else v if isinstance(v, str)
                              else canon_exact(v))
                          for k, v in sorted(env.items()) if k in free or k in kws})
    return env_cases, raw_cases


def _case_printed(c: dict, judge: str, where: str) -> tuple:
    """Each case's own printed value ("" where it has none), checked as the claim's is; a
    judge that reads a printed value needs one per case or one for the claim."""
    cases = c.get("cases", [{}])
    out = tuple(_printed_for({"printed": x["printed"]}, judge, f"{where}: cases[{j}]")
                if isinstance(x, dict) and "printed" in x else "" for j, x in enumerate(cases))
    return out if any(out) else ()


def _printed_for(c: dict, judge: str, where: str, per_case: tuple = ()) -> str:
    """The printed value, checked where the judge reads it (a decimal where its digits set
    the accuracy)."""
    printed = printed_value(c["printed"], f"{where}: printed") if "printed" in c else ""
    if judge not in ("rounded", "truncated", "approx", "at-most", "at-least"):
        return printed
    if per_case and all(per_case) and not printed:
        return printed
    if not printed:
        raise InputError(f"{where}: judge {judge!r} needs printed (for the claim or for "
                         "every case)")
    core = printed.strip()[:-3] if judge == "truncated" and printed.strip().endswith("...") \
        else printed.strip()
    if judge in ("rounded", "truncated") and not DECIMAL_RE.fullmatch(core):
        raise InputError(f"{where}: printed value {printed!r:.40} must be a decimal for "
                         f"judge {judge!r} (its digits set the accuracy)")
    try:
        parse_exact(core, "printed")
    except InputError:
        raise InputError(f"{where}: printed value {printed!r:.40} is not a number") from None
    return printed


def _judge_numbers(c: dict, judge: str, where: str) -> tuple:
    """(tolerance, absolute tolerance, low, high) of the judges that take them."""
    tolerance = abs_tol = low = high = None
    if "abs_tolerance" in c:
        if judge != "approx":
            raise InputError(f"{where}: abs_tolerance is for judge 'approx'")
        abs_tol = parse_exact(c["abs_tolerance"], f"{where}: abs_tolerance")
        if abs_tol < 0:
            raise InputError(f"{where}: abs_tolerance must be >= 0")
    if judge in ("approx", "relative-difference"):
        if "tolerance" not in c and abs_tol is None:
            raise InputError(f"{where}: judge {judge!r} needs tolerance"
                             + (" (relative) or abs_tolerance" if judge == "approx" else ""))
        if "tolerance" in c:
            tolerance = parse_exact(c["tolerance"], f"{where}: tolerance")
            if tolerance < 0:
                raise InputError(f"{where}: tolerance must be >= 0")
    if judge == "between":
        if "low" not in c or "high" not in c:
            raise InputError(f"{where}: judge 'between' needs low and high")
        low, high = parse_exact(c["low"], f"{where}: low"), parse_exact(c["high"], f"{where}: high")
        if low > high:
            raise InputError(f"{where}: low must be <= high")
    return tolerance, abs_tol, low, high


def _reference(c: dict, judge: str, env: dict, over: dict, where: str) -> tuple:
    """(node, text) of the reference expression of the judges that compare with one."""
    from verifier.claims import expr as X
    if judge not in ("relative-difference", "equals"):
        return None, ""
    if "reference" not in c:
        raise InputError(f"{where}: judge {judge!r} needs reference (an expression)")
    text = text_value(c["reference"], f"{where}: reference")
    node = _parse_expr(text, "reference", where)
    missing = sorted(X.free_names(node) - set(env) - set(over))
    if missing:
        raise InputError(f"{where}: reference uses unbound name {missing[0]!r}")
    return node, text


def _own(c: dict, where: str) -> bool:
    """``own = true``: a claim the verifier adds (not one the paper makes); counted apart."""
    v = c.get("own", False)
    if not isinstance(v, bool):
        raise InputError(f"{where}: own must be true or false")
    return v


def digits_of(c: dict, where: str):
    if "digits" not in c:
        return None
    d = c["digits"]
    if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 60:
        raise InputError(f"{where}: digits must be an integer from 1 to 60")
    return d


def claim2(c: dict, cid: str, defaults: dict, where: str, runs: dict | None = None) -> Claim:
    """A format-2 claim: an expression, optionally an extremum over a box, and a judge."""
    from verifier.claims import expr as X
    for k in c:
        if k not in CLAIM2_KEYS:
            raise InputError(f"{where}: unknown key {k!r}")
    for k in ("where", "expr", "judge"):
        if k not in c:
            raise InputError(f"{where}: missing key {k!r}")
    text = text_value(c["expr"], f"{where}: expr")
    node = _parse_expr(text, "expr", where)
    judge = text_value(c["judge"], f"{where}: judge")
    if judge not in JUDGES2:
        raise InputError(f"{where}: unknown judge {judge!r:.40} (expected one of "
                         f"{', '.join(JUDGES2)})")
    over, ext = _over_box(c, where)
    env_cases, raw_cases = _bound_cases(c, node, defaults, over, where, runs)
    per_case = _case_printed(c, judge, where)
    printed = _printed_for(c, judge, where, per_case)
    tolerance, abs_tol, low, high = _judge_numbers(c, judge, where)
    ref_node, ref_text = _reference(c, judge, env_cases[0], over, where)
    for label, nd in (("expr", node), ("reference", ref_node)):
        for env in (env_cases if nd is not None else ()):
            try:
                X.check_sizes(nd, env)           # every exact sub-value within the limit
            except InputError as e:
                raise InputError(f"{where}: {label}: {e}") from None
    return Claim(cid, text_value(c["where"], f"{where}: where"),
                 text_value(c.get("statement", ""), f"{where}: statement"), "", (),
                 tuple(raw_cases), printed, judge, digits_of(c, where), None, (), tolerance,
                 text_value(c.get("note", ""), f"{where}: note"),
                 expr=node, expr_text=text, env_cases=tuple(env_cases),
                 over=tuple(sorted(over.items())), extremum=ext, low=low, high=high,
                 reference_expr=ref_node, reference_text=ref_text,
                 reading=text_value(c.get("reading", ""), f"{where}: reading"),
                 abs_tolerance=abs_tol, case_printed=per_case, own=_own(c, where))
