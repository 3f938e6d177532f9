"""Claims files: published numbers as data (TOML).

Format ``verifier-claims/1`` (documented in docs/CLAIMS.md)::

    format = "verifier-claims/1"

    [source]                       # where the claims are published
    paper = "van Dijk & Ertan, ..."
    arxiv = "2605.06259"
    version = "v1"

    [defaults]                     # arguments given to every quantity that takes them
    delta = "0.01"

    [[claims]]
    id = "table1.S.sigma-0.50.M_BE"     # stable id: letters, digits, . _ : -
    where = "Table 1, row sigma = 0.50 (coef_S), column M_BE"
    quantity = "m_closed_form"          # a name from verifier.quantities
    args = { sigma = "0.50", coef = "simplified" }
    printed = "1.57e9"                  # the value as printed
    judge = "rounded"                   # or relative-difference, at-most, at-least

Numbers may be strings or TOML numbers; TOML floats are read as exact
decimals (never binary floats).  A claim may list ``cases`` (tables of
arguments); it is confirmed when every case is.  Nothing in a claims file is
evaluated as code.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources

from verifier.claims import quantities as Q
from verifier.claims.format2 import claim2
from verifier.claims.schema import (CLAIM2_KEYS, FORMAT, FORMAT2, FORMATS,  # noqa: F401
                                    JUDGE_HELP, JUDGES, JUDGES2, Claim, bind_names, canon_exact,
                                    keyword_names, printed_value, table_value, text_value)
from verifier.core.arith import MAX_FILE_BYTES, InputError, InputErrors, parse_exact, read_bounded
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,119}")
ID_RULE = ("ids are 1 to 120 characters: letters, digits and . _ : - "
           "(the first a letter or digit)")

_TOP = {"format", "source", "defaults", "claims", "runs"}
_SOURCE = {"paper", "arxiv", "version", "title", "authors", "url", "note"}
_CLAIM = {"id", "where", "statement", "quantity", "args", "printed", "judge", "digits",
          "reference", "reference_args", "tolerance", "cases", "note"}
@dataclass(frozen=True)
class ClaimsFile:
    name: str               # file stem, used for report names
    source: dict
    claims: tuple
    format: str = FORMAT
    path: str = ""          # as given (error messages name it)


def shipped_claims_files() -> list[str]:
    """Paths of the claims files shipped inside the package."""
    base = resources.files("verifier") / "data" / "claims"
    return sorted(str(p) for p in base.iterdir() if p.name.endswith(".toml"))


class _Written(Decimal):
    """A TOML float read as an exact decimal that keeps its text (a printed value is echoed
    as written: 1.14e6, not 1.14E+6)."""

    def __new__(cls, text):
        d = super().__new__(cls, text)
        d.text = text
        return d

    def __str__(self):
        return self.text


def _canon(v) -> str:
    return str(v)


def load(path: str) -> ClaimsFile:
    """Read and validate a claims file; any problem is one InputError line."""
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)     # never more (a device, a pipe)
        data = tomllib.loads(raw.decode("utf-8"), parse_float=_Written)
    except InputError:
        raise
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: malformed TOML: {e}") from None
    except RecursionError:
        raise InputError(f"{path}: malformed TOML: nested too deeply") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"{path}: cannot read claims file: {e.__class__.__name__}: {e}") from None
    try:
        return _validate(data, name, path)
    except RecursionError:
        raise InputError(f"{path}: claims file nested too deeply") from None


def _runs(data: dict, fmt, path: str, errors: list) -> dict:
    """The file's ``[runs.NAME]`` tables (format 2; docs/CLAIMS.md): each a run file's table
    of phases, bound to NAME in every claim as the run's canonical JSON (a word the run
    quantities read back: claims/run_quantities.py)."""
    import json
    from verifier.claims.schema import check_bindable
    from verifier.core.run_files import run_from_dict
    raw = data.get("runs", {})
    if raw and fmt != FORMAT2:
        errors.append(f"{path}: [runs] needs format {FORMAT2!r}")
        return {}
    if not isinstance(raw, dict):
        errors.append(f"{path}: [runs] must be a table of runs, each with a list 'phases'")
        return {}
    out = {}
    for k, v in raw.items():
        try:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,40}", k):
                raise InputError(f"{path}: runs.{k!s:.40} is not a name")
            check_bindable(k, f"{path}: runs")
            run = run_from_dict(_plain(v), f"{path}: runs.{k}")
            out[k] = json.dumps(run.to_json(), sort_keys=True, separators=(",", ":"))
        except InputError as e:
            errors.append(str(e))
    return out


def _plain(v):
    """TOML's exact decimals (``_Written``) as their text, in nested tables and lists."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return str(v) if isinstance(v, Decimal) else v


def _validate(data: dict, name: str, path: str) -> ClaimsFile:
    """Every mistake of the file is collected (one line each, naming the file and the claim
    id) and reported together: InputErrors."""
    errors = []
    unknown = set(data) - _TOP
    if unknown:
        errors.append(f"{path}: unknown top-level key {sorted(unknown)[0]!r}")
    fmt = data.get("format")
    if fmt not in FORMATS:
        raise InputError(f"{path}: format must be {FORMAT2!r} or {FORMAT!r}, got {fmt!r:.60}")
    source = data.get("source", {})
    if not isinstance(source, dict):
        errors.append(f"{path}: [source] must be a table")
        source = {}
    for k, v in source.items():
        try:
            if k not in _SOURCE:
                raise InputError(f"{path}: unknown key source.{k}")
            text_value(v, f"{path}: source.{k}")
        except InputError as e:
            errors.append(str(e))
    try:
        defaults = table_value(data.get("defaults", {}), f"{path}: defaults")
    except InputError as e:
        errors.append(str(e))
        defaults = {}
    runs = _runs(data, fmt, path, errors)
    raw_claims = data.get("claims")
    if not isinstance(raw_claims, list) or not raw_claims:
        raise InputErrors(errors + [f"{path}: needs at least one [[claims]] entry"])
    seen = set()
    claims = []
    for i, c in enumerate(raw_claims):
        if not isinstance(c, dict):
            errors.append(f"{path}: claims[{i}] must be a table")
            continue
        cid = c.get("id")
        if not isinstance(cid, str) or not _ID.fullmatch(cid):
            errors.append(f"{path}: claims[{i}] has a missing or invalid id {cid!r:.60} "
                          f"({ID_RULE})")
            continue
        if cid in seen:
            errors.append(f"{path}: duplicate claim id {cid!r}")
            continue
        seen.add(cid)
        where = f"{path}: claim {cid!r}"
        try:
            if fmt == FORMAT2 and "quantity" not in c:
                claims.append(claim2(c, cid, defaults, where, runs))
            else:
                claims.append(_claim(c, cid, defaults, where))
        except InputError as e:
            msg = str(e)
            errors.append(msg if msg.startswith(where) else f"{where}: {msg}")
    cf = ClaimsFile(name, {k: source[k] for k in sorted(source)}, tuple(claims), fmt, path)
    if errors:
        e = InputErrors(errors)
        e.partial = cf        # the claims that loaded: their evaluation errors come in the same run
        raise e
    return cf


def _claim(c: dict, cid: str, defaults: dict, where: str) -> Claim:
    for k in c:
        if k not in _CLAIM:
            raise InputError(f"{where}: unknown key {k!r}")
    for k in ("where", "quantity", "printed", "judge"):
        if k not in c:
            raise InputError(f"{where}: missing key {k!r}")
    try:
        q = Q.get(text_value(c["quantity"], f"{where}: quantity"))
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    judge = text_value(c["judge"], f"{where}: judge")
    if judge not in JUDGES:
        raise InputError(f"{where}: unknown judge {judge!r:.40} (expected one of {', '.join(JUDGES)})")
    printed = printed_value(c["printed"], f"{where}: printed")
    args = table_value(c.get("args", {}), f"{where}: args")
    cases = c.get("cases", [{}])
    if not isinstance(cases, list) or not cases or len(cases) > 1000:
        raise InputError(f"{where}: cases must be a non-empty list of tables")
    raw_cases, parsed, ref_parsed = [], [], []
    ref = None
    if judge == "relative-difference":
        if "reference" not in c or "tolerance" not in c:
            raise InputError(f"{where}: judge 'relative-difference' needs reference and tolerance")
        ref = Q.get(text_value(c["reference"], f"{where}: reference"))
    ref_args = table_value(c.get("reference_args", {}), f"{where}: reference_args")
    for j, case in enumerate(cases):
        case = table_value(case, f"{where}: cases[{j}]")
        merged = {**args, **case}
        applicable_defaults = {k: v for k, v in defaults.items()
                               if k in q.args or k in q.defaults}
        full = {**applicable_defaults, **merged}
        raw_cases.append({k: _canon(v) for k, v in sorted(full.items())})
        parsed.append(q.parse_args(full, where))
        if ref is not None:
            rdef = {k: v for k, v in defaults.items() if k in ref.args or k in ref.defaults}
            rfull = {**rdef, **{k: v for k, v in merged.items() if k in ref.args or k in ref.defaults},
                     **ref_args}
            ref_parsed.append(ref.parse_args(rfull, where + " reference"))
    digits = None
    if "digits" in c:
        if not isinstance(c["digits"], int) or isinstance(c["digits"], bool) or not 1 <= c["digits"] <= 60:
            raise InputError(f"{where}: digits must be an integer from 1 to 60")
        digits = c["digits"]
    tolerance = None
    if judge == "relative-difference":
        tolerance = parse_exact(c["tolerance"], f"{where}: tolerance")
        if tolerance < 0:
            raise InputError(f"{where}: tolerance must be >= 0")
    elif judge in ("rounded", "at-most", "at-least"):
        try:
            parse_exact(printed, "printed")
        except InputError:
            raise InputError(f"{where}: printed value {printed!r:.40} is not a number") from None
    if judge == "rounded":
        # the printed digits set the rounding: a decimal is needed, not a ratio like 6/11
        from verifier.core.arith import DECIMAL_RE
        if not DECIMAL_RE.fullmatch(printed.strip()):
            raise InputError(f"{where}: printed value {printed!r:.40} must be a decimal for "
                             "judge 'rounded' (its digits set the rounding)")
    return Claim(cid, text_value(c["where"], f"{where}: where"),
                 text_value(c.get("statement", ""), f"{where}: statement"), q.name, tuple(parsed),
                 tuple(raw_cases), printed, judge, digits, ref.name if ref else None,
                 tuple(ref_parsed), tolerance, text_value(c.get("note", ""), f"{where}: note"))
