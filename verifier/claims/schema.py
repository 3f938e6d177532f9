"""What a claim is, and the values a claims file's fields take (docs/CLAIMS.md): the formats,
the judges, the ``Claim`` record and the field readers shared by both formats' loaders
(format.py for verifier-claims/1, format2.py for expressions: verifier-claims/2)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from verifier.core.arith import InputError, parse_exact

FORMAT = "verifier-claims/1"
FORMAT2 = "verifier-claims/2"
FORMATS = (FORMAT, FORMAT2)
JUDGES = ("rounded", "relative-difference", "at-most", "at-least")
JUDGES2 = ("rounded", "truncated", "approx", "between", "at-most", "at-least",
           "relative-difference", "equals")
JUDGE_HELP = {
    "rounded": "the value rounds to the printed digits (half a unit of the last digit)",
    "truncated": "the printed digits are the value's leading digits (\"1.36843...\")",
    "approx": "|value - printed| <= tolerance |printed| (\"about\", \"roughly\")",
    "between": "low <= value <= high",
    "at-most": "value <= printed",
    "at-least": "value >= printed",
    "relative-difference": "|value - reference| <= tolerance |reference|",
    "equals": "value = reference as expressions: exact algebra (SymPy) proves, a certified "
              "nonzero difference refutes",
}
CLAIM2_KEYS = {"id", "where", "statement", "expr", "quantity", "args", "printed", "judge", "digits",
           "reference", "reference_args", "tolerance", "cases", "note", "over", "extremum",
           "low", "high", "reading", "abs_tolerance", "own"}


@dataclass(frozen=True)
class Claim:
    id: str
    where: str
    statement: str
    quantity: str
    cases: tuple            # tuple of parsed-argument dicts
    raw_cases: tuple        # the same, as given (strings) for reports
    printed: str
    judge: str
    digits: int | None
    reference: str | None
    reference_cases: tuple  # parsed reference arguments per case
    tolerance: object       # Fraction | None
    note: str
    # format 2 (expr is None for a format-1 claim)
    expr: object = None           # expr.Node
    expr_text: str = ""
    env_cases: tuple = ()         # per case: name -> exact value (Fraction or str)
    over: tuple = ()              # ((name, (lo, hi)), ...)
    extremum: str = ""            # "min" | "max" | ""
    low: object = None
    high: object = None
    reference_expr: object = None
    reference_text: str = ""
    reading: str = ""
    abs_tolerance: object = None  # approx: |value - printed| <= max(abs_tolerance, tolerance |printed|)
    case_printed: tuple = ()      # per case: its own printed value ("": the claim's)
    own: bool = False             # the verifier's own claim (not the paper's): counted apart

    def printed_of(self, idx: int) -> str:
        """The printed value case ``idx`` is judged against."""
        return (self.case_printed[idx] if self.case_printed and self.case_printed[idx]
                else self.printed)


def text_value(v, what):
    if not isinstance(v, str):
        raise InputError(f"{what} must be a string, got {type(v).__name__}")
    if len(v) > 4000:
        raise InputError(f"{what} is too long ({len(v)} characters)")
    return v


def table_value(v, what):
    if not isinstance(v, dict):
        raise InputError(f"{what} must be a table, got {type(v).__name__}")
    for k, x in v.items():
        if not isinstance(x, (str, int, Decimal)) or isinstance(x, bool):
            raise InputError(f"{what}.{k} must be a string or a number, got {type(x).__name__}")
    return v


def printed_value(v, what):
    if isinstance(v, bool) or not isinstance(v, (str, int, Decimal)):
        raise InputError(f"{what} must be a string or a number, got {type(v).__name__}")
    return str(v)


def check_bindable(k: str, where: str):
    """A name a claim binds (args, cases, defaults, over) may not also be a constant or a
    function of the expression language: ``e`` bound to 5 would be read as 5 by a quantity's
    argument and as Euler's number in the arithmetic (one name, two meanings)."""
    from verifier.claims.grammar import CONSTANTS, FUNCTIONS
    if k in CONSTANTS or k in FUNCTIONS:
        kind = "constant" if k in CONSTANTS else "function"
        raise InputError(f"{where}: the name {k!r} is bound here but is also the {kind} {k} of "
                         "the expression language; rename it")


def bind_names(raw: dict, where: str) -> dict:
    """Names bound by args, cases and defaults: each value an exact number (a decimal, an
    integer, or an expression with an exact value such as 1/400) or a string."""
    from verifier.claims import expr as X
    out = {}
    for k, v in raw.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,40}", k):
            raise InputError(f"{where}: {k!r} is not a name")
        check_bindable(k, where)
        if isinstance(v, (int, Decimal)):
            out[k] = parse_exact(v, k)
            continue
        try:
            node = X.parse(v)
        except InputError:
            if re.fullmatch(r"[A-Za-z0-9_.:-]{1,40}", v):
                out[k] = v                   # a word: an argument such as coef = rho3
                continue
            raise
        try:
            x = X.exact(node, {})
        except InputError as e:
            raise InputError(f"{where}: {k}: {e}") from None
        if x is None:
            if node.kind == "name":
                out[k] = node.value
                continue
            raise InputError(f"{where}: {k} = {v!r:.40} has no exact value")
        out[k] = x
    return out


def keyword_names(node) -> set:
    out = set()
    if node.kind == "call":
        from verifier.claims import quantities as Q
        if node.value in Q.QUANTITIES:
            out |= set(Q.QUANTITIES[node.value].all_args())
    for a in node.args:
        out |= keyword_names(a)
    for _, a in node.kwargs:
        out |= keyword_names(a)
    return out


def canon_exact(q) -> str:
    from verifier.core.arith import frac_str
    return frac_str(q)
