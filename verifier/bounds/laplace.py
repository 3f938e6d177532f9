"""Real-order Rényi moments of one epoch of random allocation through the Laplace transform of
one lognormal, to a requested relative accuracy (docs/THEORY.md section 10b; a construction of
this project, not a statement of the audited papers).

Notation (THEORY section 10): u = 1/sigma^2, Y = exp(sqrt(u) Z - u/2) with Z ~ N(0, 1),
m_j = E[Y^j] = e^{j(j-1)u/2}, Ybar the mean of M independent copies, mbar_k = E[Ybar^k]
(``moments.integer_moments``).  The one-epoch divergences are
    remove  D_a = log E[Ybar^a] / (a - 1),      add  D_a = log E[Ybar^{1-a}] / (a - 1).

The pieces, each an identity or a bound with its reason:
- L(s) = E[e^{-sY}] = int phi(z) exp(-s e^{sqrt(u) z - u/2}) dz: Arb's certified quadrature
  (``acb.integral``; the integrand is entire) over a window, plus the tails outside it,
  bounded by Phi(z_lo) (e^{-sY} <= 1) and Phi(-z_hi) e^{-s Y(z_hi)} (Y increasing);
- tilting: E[Y^j e^{-sY}] = m_j L(s e^{ju})  (the shift z -> z + j sqrt(u); proof check
  laplace.tilting);
- Psi_k(t) = E[Ybar^k e^{-t Ybar}] = k! M^{-k} [h^k] (sum_j E[Y^j e^{-tY/M}] h^j / j!)^M
  (the coefficient form of ``moments``, the factor e^{-tY/M} carried by every copy);
  d/dt Psi_k = -Psi_{k+1}, so each |Psi_k| is decreasing in t;
- remove, a = n + b, 0 < b < 1 (integer a: exact, ``moments``):
      x^b = b / Gamma(1 - b) int_0^inf (1 - e^{-tx}) t^{-b-1} dt      (x > 0),
      E[Ybar^a] = b / Gamma(1 - b) int_0^inf t^{-b-1} h(t) dt,  h = mbar_n - Psi_n  (Tonelli);
- add, g = a - 1 > 0:
      x^{-g} = 1 / Gamma(g) int_0^inf t^{g-1} e^{-tx} dt,
      E[Ybar^{-g}] = 1 / Gamma(g) int_0^inf t^{g-1} Psi_0(t) dt;
- the integral over t: a head [0, t_0] by the Taylor polynomial at 0 with exact moments
  (h^{(k)}(0) = (-1)^{k+1} mbar_{n+k}, Psi_0^{(k)}(0) = (-1)^k mbar_k; Lagrange remainder
  bounded by mbar_{top} t^K / K!), geometric cells [t_i, rho t_i] with the Taylor polynomial of
  degree K - 1 at t_i integrated exactly against the weight (J_k = int_0^{rho-1} x^k (1+x)^p dx,
  the same for every cell) and the remainder bounded by |f^{(K)}(t_i)| (t - t_i)^K / K!
  (|f^{(K)}| decreasing), and a tail [T, inf): remove, h in [mbar_n - Psi_n(T), mbar_n];
  add, e^{-y} <= (c/e)^c y^{-c} and E[Ybar^{-c}] <= e^{cu/2 + c^2 u/(2M)} (arithmetic-geometric
  mean), so int_T^inf t^{g-1} Psi_0 <= (c/e)^c e^{cu/2 + c^2u/(2M)} T^{g-c} / (c - g), c > g.

Floats choose only free parameters (t_0, the cells' ratio, K, the windows, T, c); every
number returned is an Arb enclosure of the quantity.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb, arb_poly, ctx

from verifier.bounds.moments import moment_egf, moment_from_coefficient, truncated_power
from verifier.core.arith import to_arb
from verifier.numerics.cache import EngineCache

TAYLOR = 24                  # K, the cells' Taylor degree + 1 (and the head's)
CELL_LOG = 0.25              # the cells' ratio rho = e^{u/r}, r = ceil(u / CELL_LOG) * fine
# add: the Taylor terms of Psi_0 around t grow like binom(g + K - 1, K) (rho - 1)^K before they
# fall (the weight t^{g-1} favours the cell's right end), so the cells' log ratio is at most
# ADD_CELL K / (g + K): ((g + K) e (rho - 1) / K)^K <= 0.3^K
ADD_CELL = 0.11
MAX_CELLS = 20000
MAX_ORDER = 256              # orders beyond (or a u beyond MAX_ORDER_U): the profile engine
MAX_ORDER_U = 160            # (views/renyi.py); the cost grows with a u: a few seconds at 160


def applies(alpha, sigma) -> bool:
    """Whether the engine is used at this order (its cost, not its validity, decides)."""
    return alpha <= MAX_ORDER and alpha <= MAX_ORDER_U * sigma ** 2


def _log_phi_tail(x: float) -> float:
    """log Phi(x), a float (chooses windows only)."""
    if x < -5:
        return -x * x / 2 - math.log(-x) - 0.5 * math.log(2 * math.pi)
    return math.log(0.5 * math.erfc(-x / math.sqrt(2)))


def _window(ls: float, uf: float, bits: int) -> tuple:
    """(z_lo, z_hi, log L estimate): outside the window L(e^ls)'s integrand is worth at most
    2^-bits of L (floats: the tails are bounded in Arb by the caller)."""
    su = math.sqrt(uf)

    def g(z):       # d/dz of the log integrand, decreasing; zero at the peak
        return -z - su * math.exp(min(su * z - uf / 2 + ls, 700.0))
    lo, hi = -(abs(ls) / su + 60.0), 60.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    z = lo
    y = math.exp(min(su * z - uf / 2 + ls, 700.0))
    logl = -z * z / 2 - y - 0.5 * math.log(1 + uf * y) - 3.0
    need = logl - bits * math.log(2) - 5
    zlo = z - 1.0
    while _log_phi_tail(zlo) > need:
        zlo -= 0.5
    zhi = z + 1.0
    while _log_phi_tail(-zhi) - math.exp(min(su * zhi - uf / 2 + ls, 700.0)) > need:
        zhi += 0.5
    return zlo, zhi, logl


def lognormal_laplace(s: arb, u: arb, bits: int) -> arb:
    """L(s) = E[exp(-s Y)] for a positive ball s (module docstring): the window's certified
    quadrature plus both tails' bounds."""
    ls = float(s.log().mid())
    zlo, zhi, logl = _window(ls, float(u.mid()), bits)
    su, h = u.sqrt(), u / 2
    c = 1 / (2 * arb.pi()).sqrt()

    def f(z, _):
        return (-(z * z) / 2 - s * (su * z - h).exp()).exp() * c
    body = acb.integral(f, zlo, zhi, rel_tol=arb(2) ** -bits,
                        abs_tol=arb(2) ** -bits * arb(logl).exp()).real
    a, b, r2 = arb(zlo), arb(zhi), arb(2).sqrt()
    tails = (-a / r2).erfc() / 2 + (-(s * (su * b - h).exp())).exp() * (b / r2).erfc() / 2
    return body + _upto(tails)


def _weights(rho1: arb, p: arb, K: int) -> list:
    """J_k = int_0^{rho - 1} x^k (1 + x)^p dx, k = 0..K (certified quadrature)."""
    out = []
    for k in range(K + 1):
        def f(x, an, k=k):
            return x ** k * (p * (1 + x).log(analytic=an)).exp()
        out.append(acb.integral(f, 0, rho1).real)
    return out


class _Lattice:
    """L at s_k = (t_0 / M) e^{k u / r} (cached) and the series Psi_0..Psi_J at t_i = t_0 e^{i u / r}."""

    def __init__(self, u: arb, M: int, t0: Fraction, r: int, bits: int, J: int):
        self.u, self.M, self.r, self.bits, self.J = u, M, r, bits, J
        self.step = lattice_step(u, r)
        self.s0 = to_arb(t0) / M
        self.egf = moment_egf(u, J + 1)          # m_j / j!
        self.cache = {}

    def L(self, k: int) -> arb:
        v = self.cache.get(k)
        if v is None:
            v = self.cache[k] = lognormal_laplace(self.s0 * (k * self.step).exp(), self.u, self.bits)
        return v

    def psi(self, i: int, J: int | None = None) -> list:
        """[Psi_j(t_i) for j = 0..J]."""
        J = self.J if J is None else J
        P = arb_poly([self.egf[j] * self.L(tilted_index(i, j, self.r)) for j in range(J + 1)])
        Q = truncated_power(P, self.M, J + 1).coeffs()
        Q = Q + [arb(0)] * (J + 1 - len(Q))
        return [moment_from_coefficient(Q[j], j, arb(self.M)) for j in range(J + 1)]


def _ratio(uf: float, fine: int, cell: float = CELL_LOG) -> int:
    return max(1, math.ceil(uf / min(CELL_LOG, cell))) * fine


def _dyadic_below(log_t: float) -> Fraction:
    return Fraction(2) ** math.floor(log_t / math.log(2))


def _pm(x: arb) -> arb:
    """The ball [-|x|, |x|] of a remainder whose sign is unknown (x >= 0 its bound)."""
    return arb(0, x.upper())


def _upto(x: arb) -> arb:
    """The ball [0, upper end of x] of a nonnegative term bounded by x."""
    return arb(0).union(arb(x.upper()))


def _log(x: arb) -> float:
    """log of the upper end of a ball (a float; -inf at 0; chooses only where to stop)."""
    hi = arb(x.upper())
    return float(hi.log().mid()) if hi > 0 else -math.inf


def scale_arb(b, gamma=None):
    """b / Gamma(1 - b), the constant of x^b's integral form (``gamma``: the Gamma function of
    b's kind, an arb's ``.gamma()`` by default; proof check laplace.power-integrals calls this
    with a SymPy b and sympy.gamma)."""
    gamma = gamma or (lambda x: x.gamma())
    return b / gamma(1 - b)


def add_scale(g, gamma=None):
    """1 / Gamma(g), the constant of x^{-g}'s integral form (as ``scale_arb``)."""
    gamma = gamma or (lambda x: x.gamma())
    return 1 / gamma(g)


def lattice_step(u, r):
    """The lattice's log step u / r (r an integer: e^{ju} is j r steps)."""
    return u / r


def tilted_index(i, j, r):
    """The lattice index of s_i e^{ju} on the lattice s_k = s_0 e^{k u / r} (proof check
    laplace.tilting: e^{(i + j r) u / r} = e^{i u / r} e^{j u}, with SymPy symbols)."""
    return i + j * r


def _bits(tol: float, M: int) -> int:
    return max(60, int(-math.log2(tol)) + 16) + M.bit_length()


def _head(mbar: list, first: int, sign0: int, T0: arb, q: arb, K: int) -> tuple:
    """int_0^{t0} t^{q-1} f(t) dt and f(t0) for f(t) = sum_{k>=1 or 0} sign0 (-1)^k mbar_{first+k}
    t^k / k! (f's Taylor polynomial at 0 of degree K - 1 with exact moments, Lagrange's
    remainder bounded by mbar_{first+K} t^K / K!): remove first = n, from k = 1, sign0 = -1
    (h = mbar_n - Psi_n), q = -b; add first = 0, from k = 0, sign0 = 1 (Psi_0), q = g."""
    integral, value = arb(0), arb(0)
    for k in range(1 if sign0 < 0 else 0, K):
        c = sign0 * (-1) ** k * mbar[first + k] / math.factorial(k)
        integral += c * T0 ** (k + q) / (k + q)
        value += c * T0 ** k
    rem = mbar[first + K] / math.factorial(K)
    return integral + _pm(rem * T0 ** (K + q) / (K + q)), value + _pm(rem * T0 ** K)


def _cell(c: list, top: arb, ti: arb, q: arb, J: list, K: int) -> arb:
    """int_{t_i}^{rho t_i} t^{q-1} f(t) dt for f = sum_k c_k (t - t_i)^k + R, |R| <= top
    (t - t_i)^K: t_i^q sum_k c_k t_i^k J_k (J_k = int_0^{rho-1} x^k (1+x)^{q-1} dx)."""
    body = sum((c[k] * ti ** k * J[k] for k in range(K)), arb(0))
    return ti ** q * (body + _pm(top * ti ** K * J[K]))


def remove_moment(sigma: Fraction, M: int, alpha: Fraction, mbar: list, tol: float,
                  fine: int = 1, K: int = TAYLOR) -> arb:
    """E[Ybar^alpha] for non-integer alpha > 1 (module docstring; mbar: the exact integer
    moments up to floor(alpha) + K at least), an enclosure whose relative width is about tol."""
    n = math.floor(alpha)
    beta = alpha - n
    bits = _bits(tol, M)
    with ctx.workprec(bits + 64):
        u, b = 1 / to_arb(sigma) ** 2, to_arb(beta)
        # E[Ybar^a] >= mbar_n >= 1 (Lyapunov): the absolute tolerance of the t-integral, as a log
        log_tol = math.log(tol / 8) + float(mbar[n].log().mid()) - float(scale_arb(b).log().mid())
        t0 = _dyadic_below((log_tol + math.lgamma(K + 1) + math.log(K - float(beta))
                            - float(mbar[n + K].log().mid())) / (K - float(beta)))
        T0 = to_arb(t0)
        total, h = _head(mbar, n, -1, T0, -b, K)
        lat = _Lattice(u, M, t0, _ratio(float(u.mid()), fine), bits, n + K)
        rho1 = lat.step.exp() - 1
        J = _weights(rho1, -b - 1, K)
        i = 0
        while True:
            ti = T0 * (i * lat.step).exp()
            ps = lat.psi(i)
            direct = mbar[n] - ps[n]
            if not h.overlaps(direct):          # two enclosures of h(t_i) that do not meet
                raise AssertionError(f"inconsistent Laplace enclosures at alpha = {alpha}")
            h = h.intersection(direct)
            c = [h] + [(-1) ** (k + 1) * ps[n + k] / math.factorial(k) for k in range(1, K)]
            top = ps[n + K] / math.factorial(K)
            total += _cell(c, top, ti, -b, J, K)
            d = ti * rho1                        # h at the cell's right end, its Taylor model
            h = sum((c[k] * d ** k for k in range(K)), arb(0)) + _pm(top * d ** K)
            i += 1
            T = T0 * (i * lat.step).exp()
            # tail: h in [mbar_n - Psi_n(T), mbar_n] on [T, inf)
            low, high = (mbar[n] - lat.psi(i, n)[n]) * T ** (-b) / b, mbar[n] * T ** (-b) / b
            if _log(high - low) <= log_tol or i >= MAX_CELLS:
                break
        return scale_arb(b) * (total + arb(low.lower()).union(arb(high.upper())))


def add_moment(sigma: Fraction, M: int, alpha: Fraction, mbar: list, tol: float,
               fine: int = 1, K: int = TAYLOR) -> arb:
    """E[Ybar^{1 - alpha}] for alpha > 1 (module docstring; mbar up to K at least)."""
    gamma_ = alpha - 1
    gf = float(gamma_)
    bits = _bits(tol, M)
    with ctx.workprec(bits + 64):
        u, g = 1 / to_arb(sigma) ** 2, to_arb(gamma_)
        log_tol = math.log(tol / 8) + math.lgamma(gf)     # E[Ybar^{-g}] >= 1 (Jensen)
        t0 = _dyadic_below((log_tol + math.lgamma(K + 1) + math.log(K + gf)
                            - float(mbar[K].log().mid())) / (K + gf))
        T0 = to_arb(t0)
        total, _ = _head(mbar, 0, 1, T0, g, K)
        lat = _Lattice(u, M, t0, _ratio(float(u.mid()), fine, ADD_CELL * K / (gf + K)), bits, K)
        J = _weights(lat.step.exp() - 1, g - 1, K)
        i = 0
        while True:
            ti = T0 * (i * lat.step).exp()
            ps = lat.psi(i)
            c = [(-1) ** k * ps[k] / math.factorial(k) for k in range(K)]
            total += _cell(c, ps[K] / math.factorial(K), ti, g, J, K)
            i += 1
            tail = _add_tail(T0 * (i * lat.step).exp(), g, u, M)
            if _log(tail) <= log_tol or i >= MAX_CELLS:
                break
        return add_scale(g) * (total + _upto(tail))


def _add_tail(T: arb, g: arb, u: arb, M: int) -> arb:
    """int_T^inf t^{g-1} Psi_0(t) dt <= (c/e)^c e^{cu/2 + c^2 u/(2M)} T^{g-c} / (c - g), the best
    c > g of a float search (module docstring)."""
    lT, gf, uf = float(T.log().mid()), float(g.mid()), float(u.mid())

    def f(c):
        return c * math.log(c) - c + c * uf / 2 + c * c * uf / (2 * M) + (gf - c) * lT - math.log(c - gf)
    cands = [gf + 2.0 ** (k / 4) for k in range(-20, 60)]
    c = to_arb(Fraction(min(cands, key=f)).limit_denominator(1 << 20))
    if not c > g:
        c = g + 1
    return ((c * c.log() - c + c * u / 2 + c * c * u / (2 * M)).exp() * T ** (g - c) / (c - g))


# one-epoch brackets by (direction, sigma, M, alpha, requested width, level): a requested
# Rényi width refines the profile grid for the other orders level by level and asks again
# for these (docs/THEORY.md section 10b); any bracket computed once stays valid
_BRACKETS = EngineCache(256)


def clear_cache():
    """Forget the cached one-epoch brackets (benchmarks time cold runs)."""
    _BRACKETS.clear()


def divergences(sigma: Fraction, M: int, alpha: Fraction, rel_width: float, moments: list,
                lower: tuple, fine: int = 1) -> tuple:
    """((remove lower, upper) or None, (add lower, upper)): the one-epoch divergences D_a of
    both directions as exact rationals (outward), their relative widths about ``rel_width``
    (``lower``: known lower ends of both, which set the moments' tolerance: a relative width
    w of D needs about w (a - 1) D of E; a bracket cached for the same order, width and
    level is reused whatever ``lower``).  Remove is None at an integer order (exact there)."""
    out = []
    for which, lo in zip(("remove", "add"), lower):
        if which == "remove" and alpha.denominator == 1:
            out.append(None)
            continue
        out.append(_BRACKETS.get((which, sigma, M, alpha, rel_width, fine), lambda: _divergence(
            which, sigma, M, alpha, rel_width, moments, lo, fine)))
    return tuple(out)


def _divergence(which: str, sigma: Fraction, M: int, alpha: Fraction, rel_width: float,
                moments: list, lo: Fraction, fine: int) -> tuple:
    from verifier.core.arith import ball_bounds
    need = rel_width * float(alpha - 1) * max(float(lo), 1e-12) / 4
    tol = min(max(need, 1e-30), 1e-4)
    f = remove_moment if which == "remove" else add_moment
    with ctx.workprec(max(160, int(-math.log2(tol)) + 96)):
        m = f(sigma, M, alpha, moments, tol, fine)
        t = to_arb(alpha - 1)
        lo_b, hi_b = arb(m.lower()), arb(m.upper())
        low = ball_bounds(lo_b.log() / t)[0] if lo_b > 1 else Fraction(0)
        high = ball_bounds(hi_b.log() / t)[1] if hi_b.is_finite() else None
    return low, high
