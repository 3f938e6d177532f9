"""Generate ``verifier/symbolic/derived.py``: python-flint (arb) evaluators printed
from the SymPy expressions of ``lognormal`` and ``theorem31``.

One source of truth: the proof checks and tests verify the SymPy
expressions; the numeric layer runs code printed from those same
expressions.  The generated module is committed (so that the CLI starts
without importing SymPy); ``tests/test_derived.py`` regenerates it and fails
if the committed file differs.

Regenerate with ``python -m verifier.symbolic.codegen``.

Printing rules (all rigorous in ball arithmetic):
- subexpressions without free symbols (pi, sqrt(2 e pi), 0.4748, 25/24, ...)
  are built once per working precision in a constants table, from exact
  integers, so decimal constants never pass through binary floats;
- integers inside symbolic expressions stay Python ints (exact in arb);
- sqrt -> ``.sqrt()``, x^(-1/2) -> ``.rsqrt()``, exp/log/erf/erfc/expm1 ->
  the arb methods of the same name.
"""
from __future__ import annotations

import hashlib
import os
import sys

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from verifier.symbolic import comparisons as C
from verifier.symbolic import gaussian as G
from verifier.symbolic import lognormal as L
from verifier.symbolic import poisson as P
from verifier.symbolic import terms as T
_FUNCS = {sp.exp: "exp", sp.log: "log", sp.erf: "erf", sp.erfc: "erfc", expm1: "expm1",
          log1p: "log1p"}


class ArbPrinter:
    """Print a SymPy expression as python-flint arb code."""

    def __init__(self):
        self.constants: list[str] = []
        self._const_index: dict[str, int] = {}

    # -- constants -----------------------------------------------------
    def const(self, expr) -> str:
        code = self._p(expr, const_mode=True)
        if code not in self._const_index:
            self._const_index[code] = len(self.constants)
            self.constants.append(code)
        return f"K[{self._const_index[code]}]"

    # -- main entry ----------------------------------------------------
    def __call__(self, expr) -> str:
        return self._p(expr, const_mode=False)

    def _p(self, e, const_mode: bool) -> str:
        p = lambda z: self._p(z, const_mode)  # noqa: E731
        if e.has(sp.Float):
            raise TypeError(f"binary float in an expression to print: {e}")
        if not const_mode and not e.free_symbols and not e.is_Integer:
            return self.const(e)
        if e.is_Integer:
            return f"arb({int(e)})" if const_mode else str(int(e))
        if e.is_Rational:
            return f"(arb({e.p}) / {e.q})"
        if e is sp.pi:
            return "arb.pi()"
        if e is sp.E:
            return "arb(1).exp()"
        if e.is_Symbol:
            return e.name
        if e.is_Add:
            terms = [p(a) for a in e.as_ordered_terms()]
            out = terms[0]
            for t in terms[1:]:
                out += f" - {t[1:]}" if t.startswith("-") else f" + {t}"
            return f"({out})"
        if e.is_Mul:
            num, den = [], []
            coeff, factors = e.as_coeff_mul()
            sign = ""
            if coeff == -1:
                sign = "-"
            elif coeff != 1:
                factors = (coeff,) + factors
            for f in factors:
                if f.is_Pow and f.exp.is_negative and f.exp.is_Rational and f.free_symbols:
                    den.append(p(sp.Pow(f.base, -f.exp)))
                else:
                    num.append(p(f))
            out = " * ".join(num) if num else "1"
            if den:
                d = den[0] if len(den) == 1 else "(" + " * ".join(den) + ")"
                out = f"{out} / {d}" if num else f"1 / {d}"
            return f"(-({out}))" if sign else f"({out})"
        if e.is_Pow:
            base, ex = e.base, e.exp
            if base is sp.E:
                return f"({p(ex)}).exp()"
            if ex == sp.Rational(1, 2):
                return f"({p(base)}).sqrt()"
            if ex == sp.Rational(-1, 2):
                return f"({p(base)}).rsqrt()"
            if ex.is_Integer:
                n = int(ex)
                if n > 0:
                    return f"({p(base)})**{n}"
                return f"(1 / ({p(base)})**{-n})"
            return f"(({p(base)})**({p(ex)}))"
        if isinstance(e, sp.Abs):
            return f"abs({p(e.args[0])})"
        if e.func in _FUNCS:
            (arg,) = e.args
            return f"({p(arg)}).{_FUNCS[e.func]}()"
        raise TypeError(f"no arb printing rule for {e.func}: {e}")


def _function(printer: ArbPrinter, name: str, args: list[str], exprs, doc: str,
              tuple_out: bool = False) -> str:
    exprs = list(exprs)
    repl, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("t"), optimizations=None)
    lines = [f"def {name}({', '.join(args)}):", f'    """{doc}"""']
    body = [f"    {sym.name} = {printer(sub)}" for sym, sub in repl]
    outs = [printer(r) for r in reduced]
    if any("K[" in b for b in body + outs):
        lines.append("    K = _constants()")
    lines += body
    if tuple_out:
        lines.append("    return (" + ", ".join(outs) + ",)")
    else:
        lines.append(f"    return {outs[0]}")
    return "\n".join(lines)


def _derivative_specs():
    """d/dsigma of delta_rhs and of the margin of condition (2) taken at delta = delta_rhs,
    with coef = coef_S or coef_X substituted: the mean-value form of the sigma calibration's
    branch and bound (verifier.bounds.theorem31._mean_value, via verifier.deploy.sigma)."""
    out = []
    for tag, cx in (("simplified", L.coef_simplified()), ("rho3", L.coef_rho3())):
        d = sp.Add(*T.terms()).subs(T.coef, cx)
        g3 = T.hypotheses()["validity_condition_2"].subs(T.delta, d).subs(T.coef, cx)
        out.append((f"delta_rhs_dsigma_{tag}", ["M", "sigma"], [sp.diff(d, L.sigma)],
                    f"d/dsigma of delta_rhs(M, sigma) with coef_{tag[0].upper()} (SymPy derivative).",
                    False))
        out.append((f"validity_dsigma_{tag}", ["M", "sigma"], [sp.diff(g3, L.sigma)],
                    f"d/dsigma of the margin of condition (2) at delta = delta_rhs, coef_"
                    f"{tag[0].upper()} (SymPy derivative).", False))
    return out


def specs():
    """(name, argument names, expressions, docstring, returns-tuple)."""
    return [
        ("lognormal_variance", ["sigma"], [L.s2],
         "s2 = e^u - 1, u = 1/sigma^2 (docs/THEORY.md section 2).", False),
        ("rho3", ["sigma"], [L.rho3()],
         "rho3 = E|Y - 1|^3, Proposition D.2 of arXiv 2605.06259 v1.", False),
        ("coef_simplified", ["sigma"], [L.coef_simplified()],
         "coef_S = (e^{3u} + 4)/s2^2, simplification (22) of arXiv 2605.06259 v1.", False),
        ("coef_rho3", ["sigma"], [L.coef_rho3()],
         "coef_X = rho3/s2^2, Section 3.1 of arXiv 2605.06259 v1.", False),
        ("terms", ["M", "sigma", "coef"], list(T.terms()),
         "(T1, ..., T6) of Theorem 3.1, arXiv 2605.06259 v1 (reconstructed).", True),
        ("hyp_sigma", ["M", "sigma"], [T.hypotheses()["sigma_at_least_sqrt_3_over_ln_M"]],
         "sigma^2 ln M - 3; hypothesis sigma >= sqrt(3/ln M) holds iff >= 0.", False),
        ("hyp_validity", ["M", "sigma", "coef", "delta"],
         [T.hypotheses()["validity_condition_2"]],
         "1/2 - eps - delta - Phi(-kappa); validity condition (2) "
         "(reconstructed from Lemma E.1) holds iff >= 0.", False),
        ("closed_form_steps", ["sigma", "coef", "delta"], [T.closed_form_steps()],
         "M_BE, closed form (4) of arXiv 2605.06259 v1 (T1 + T2 = delta solved for M).",
         False),
        *_derivative_specs(),
        ("chi_square_tv", ["M", "sigma", "E"], [C.chi_square_tv()],
         "sqrt((1 + s2/M)^E - 1)/2, the chi-square bound on TV (arXiv 2610.09651).", False),
        ("chi_square_sigma_inverse", ["M", "E", "tau"], [C.chi_square_sigma_inverse()],
         "sigma with chi-square TV bound = tau (closed-form inversion).", False),
        ("chi_square_steps_inverse", ["sigma", "E", "tau"], [C.chi_square_steps_inverse()],
         "real M with chi-square TV bound = tau (closed-form inversion).", False),
        ("mu_poisson", ["M", "sigma", "E"], [C.mu_poisson()],
         "mu_P = sqrt(E/M) sqrt(s2) (Poisson subsampling, Theorem 4.2 limit).", False),
        ("mu_uniform", ["M", "sigma", "E"], [C.mu_uniform()],
         "mu_U of Dong, Roth & Su, Corollary 5.4.", False),
        ("gaussian_tv", ["mu"], [C.gaussian_tv()],
         "TV of the Gaussian trade-off G_mu: 2 Phi(mu/2) - 1.", False),
        ("gaussian_profile", ["mu", "eps"], [G.profile()],
         "delta(eps) of the Gaussian pair N(mu, 1) vs N(0, 1), both directions, every real eps "
         "(docs/THEORY.md section 13).", False),
        ("poisson_loss_threshold", ["sigma", "q", "a"], [P.loss_threshold()],
         "b(a) = sigma (log((e^a - 1 + q)/q) + u/2): the Poisson step's loss x >= a iff "
         "Z >= b(a), for e^a > 1 - q (docs/THEORY.md section 12).", False),
        ("poisson_step_tails", ["sigma", "q", "b"], list(P.step_tails()),
         "(Q(Z >= b), P(Z >= b)) of one Poisson-subsampled Gaussian step, P = (1 - q) Q + q "
         "N(1, sigma^2) (docs/THEORY.md section 12).", True),
        ("lognormal_upper_tail", ["sigma", "b"],
         [L.upper_partial_moment(0), L.upper_partial_moment(1)],
         "(P(X >= b), E[Y 1{X >= b}]), Y = e^{X/sigma - u/2}: partial moments in complement "
         "form (docs/THEORY.md section 2), for the exact-TV cells.", True),
    ]


def digest(spec_list) -> str:
    h = hashlib.sha256()
    for name, args, exprs, _doc, _t in spec_list:
        h.update(name.encode())
        for e in exprs:
            h.update(sp.srepr(e).encode())
    return h.hexdigest()


def render() -> str:
    spec_list = specs()
    printer = ArbPrinter()
    bodies = [_function(printer, *s) for s in spec_list]
    consts = "\n".join(f"            {c}," for c in printer.constants)
    header = f'''# GENERATED by verifier.symbolic.codegen from SymPy expressions; do not edit.
# Regenerate: python -m verifier.symbolic.codegen
# Expression digest (sha256 of srepr): {digest(spec_list)}
"""Arb evaluators printed from the SymPy expressions of verifier.symbolic.

Every function takes python-flint ``arb`` arguments and returns a ball that
contains the exact value at the current working precision (``ctx.prec``).
"""
from flint import arb, ctx

_CACHE = {{}}


def _constants():
    """Symbol-free subexpressions, built from exact integers at ctx.prec."""
    prec = ctx.prec
    K = _CACHE.get(prec)
    if K is None:
        K = (
{consts}
        )
        _CACHE[prec] = K
    return K
'''
    return header + "\n\n" + "\n\n\n".join(bodies) + "\n"


TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "derived.py")


def main(argv=None) -> int:
    text = render()
    if argv and "--check" in argv:
        with open(TARGET, encoding="utf-8") as fh:
            same = fh.read() == text
        print("up to date" if same else "OUT OF DATE: run python -m verifier.symbolic.codegen")
        return 0 if same else 1
    tmp = TARGET + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, TARGET)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
