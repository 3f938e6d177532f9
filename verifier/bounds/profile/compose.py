"""E epochs: the four per-epoch laws of laws.py (remove, add, the test statistic under P0
and P1) composed two per complex DFT (x1 + i x2), and the privacy profile delta(eps)
bracketed from them for any eps at O(1) cost.

Upper end, remove.  With law_R the E-fold composition of the remove grid law (x = sum of
the epochs' grid values, step eta) and c = e^eps, s0 = ceil(eps / eta):

    sum_s law_R[s] (e^{s eta} - c)_+ = T - sum_{s < s0} law_R[s] e^{s eta} - c sum_{s >= s0} law_R[s],
    T = (sum_k rem_k e^{k eta})^E                            (an identity of polynomials)

so no tail of the grid is cut off, and the balls' radii are multiplied by at most e^eps.
Plus E times the per-epoch charge of the union bound (laws.py, step (e)).

Upper end, add.  The same with the add law (under nu): s1 = floor(-eps / eta),

    sum_s law_A[s] (e^{-s eta} - c)_+ = T' - sum_{s > s1} law_A[s] e^{-s eta} - c sum_{s <= s1} law_A[s],
    T' = (sum_k add_k e^{-k eta})^E,

the weighted sum over s > s1 kept as a suffix sum (the weights e^{-s eta} are huge at the
window's left end; a difference of prefix sums would carry their radii).

Lower ends.  The tests {sum_e lambda_e >= t} (remove) and {sum_e lambda_e <= t} (add) on the
composed laws of the test statistic under P0 and P1, for thresholds t near eps; the P1
(resp. P0) probability is lowered by the aliasing excess E a (1 + a)^{E-1}.

Every bound is clamped to [0, 1] (0 <= delta <= 1)."""
from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.core.arith import to_arb
from verifier.bounds.exact_tv.lattice import _two_dfts, _two_inverse
from verifier.bounds.profile.laws import MAX_GRID, EpochLaws
from verifier.core.arith import InputError


def _plan(sub: dict, E: int, what: str, target: float):
    """The window of the E-fold sum of the grid variable with sub-probabilities ``sub``
    (index -> ball): (N, start, best, centre) with start None when the window holds the
    whole support, best(sign, a) the float Chernoff choice (log bound, theta), centre the
    float mean of the sum.  The window is the
    shortest smooth length whose float-estimated mass outside is below target."""
    import numpy as np
    kmin, kmax = min(sub), max(sub)
    full = E * (kmax - kmin) + 1
    ks = np.array(sorted(sub), dtype=float)
    # upper ends (a ball's radius times e^{theta k} counts in the Arb bound too)
    ws = np.array([max(float(sub[k].upper()), 0.0) for k in sorted(sub)])
    tot = ws.sum()
    mu = float(np.dot(ks, ws) / tot)
    sd = math.sqrt(max(float(np.dot((ks - mu) ** 2, ws) / tot), 1e-12))
    centre = E * mu

    thetas = 2.0 ** np.linspace(-10, 8, 73) / (sd * math.sqrt(E))
    with np.errstate(divide="ignore"):
        logw = np.log(ws)
    lmgf = {}
    for sign in (1, -1):               # E log E[e^{theta (k - mu)}] on the theta ladder
        z = sign * thetas[:, None] * (ks - mu)[None, :] + logw[None, :]
        zm = z.max(axis=1)
        lmgf[sign] = E * (zm + np.log(np.exp(z - zm[:, None]).sum(axis=1)))

    def best(sign, a):                 # float: (log bound of P(sign (S - centre) >= a), theta)
        vals = lmgf[sign] - thetas * a
        i = int(np.argmin(vals))
        return float(vals[i]), sign * float(thetas[i])
    ladder = sorted({c << k for k in range(2, 26) for c in (4, 5, 6)})
    for n in ladder:
        if n < 16:
            continue
        if n >= full:
            break
        half = n / 2 - 2
        if max(best(1, half)[0], best(-1, half)[0]) < math.log(target):
            return n, int(math.floor(centre)) - n // 2, best, centre
    N = min(n for n in ladder if n >= max(16, full))
    if N > MAX_GRID:
        raise InputError(f"the {what} grid of E = {E} epochs needs {full} points "
                         f"(more than {MAX_GRID}); not supported")
    return N, None, best, centre


def _power2(subs: list, E: int, what: str, target: float):
    """The E-fold sums of one or two grid variables (sub-probabilities ``subs``, index ->
    ball), both by one complex DFT of x1 + i x2 and one inverse: for each, (start, masses on
    [start, start + N), P_out) where the masses are those of the sum reduced mod N (aliasing
    only adds: each is >= the true mass at its index, and the excess in all is at most the
    true mass outside the window) and P_out >= the mass outside the window, a Chernoff bound
    of each side in Arb (0 when the window holds the whole support)."""
    plans = [_plan(sub, E, what, target) for sub in subs]
    N = max(p[0] for p in plans)
    kmin = min(min(sub) for sub in subs)
    off = E * kmin                     # y[i] holds the sums' index off + i (mod N)
    pts = [[(k - kmin, v) for k, v in sub.items()] for sub in subs]
    X = _two_dfts(pts[0], pts[1] if len(pts) > 1 else [], N)
    Y = [[z ** E for z in Xi] for Xi in X[:len(subs)]]
    y = _two_inverse(Y[0], Y[1] if len(Y) > 1 else [acb(0)] * len(Y[0]), N)
    out = []
    for i, (sub, (n, start, best, centre)) in enumerate(zip(subs, plans)):
        if start is None:                      # the whole support fits (full <= n <= N)
            start, p_out = E * min(sub), arb(0)
        else:
            start -= (N - n) // 2              # centred in the longer window
            b_hi, b_lo = start + N, start - 1
            _, th_up = best(1, b_hi - centre)
            _, th_lo = best(-1, centre - b_lo)
            p_out = _cher(sub, E, th_up, b_hi) + _cher(sub, E, th_lo, b_lo)
        r0 = (start - off) % N
        part = [z.real if i == 0 else z.imag for z in y[r0:] + y[:r0]]
        out.append((start, part, p_out))
    return out


def _cher(sub: dict, E: int, theta: float, b: int) -> arb:
    """e^{-theta b} (sum_k sub_k e^{theta k})^E: for theta > 0 a bound of the mass of
    {S >= b}, for theta < 0 of {S <= b} (Markov on e^{theta S}); capped at the total mass."""
    th = to_arb(Fraction(theta).limit_denominator(10 ** 12))
    mg = sum((v * (th * k).exp() for k, v in sub.items()), arb(0))
    mg = arb(mg.upper())        # the true (nonnegative) sum is at most the upper end
    c = (E * mg.log() - th * b).exp() if mg > 0 else arb(0)
    total = sum(sub.values(), arb(0)) ** E
    if not c.is_finite():
        return arb(total.upper())
    return arb(c.upper()) if c < total else arb(total.upper())


def _suffix(vals):
    """S[i] = sum_{j >= i} vals[j] (len + 1 entries, S[len] = 0)."""
    out = [arb(0)] * (len(vals) + 1)
    acc = arb(0)
    for j in range(len(vals) - 1, -1, -1):
        acc = acc + vals[j]
        out[j] = acc
    return out


def _prefix(vals):
    """P[i] = sum_{j < i} vals[j] (len + 1 entries)."""
    out = [arb(0)]
    acc = arb(0)
    for v in vals:
        acc = acc + v
        out.append(acc)
    return out


class Profile:
    """The composed laws of (sigma, M, E); ``upper_*(eps)`` and ``lower_*(eps)`` are
    certified ends of each direction at any exact eps >= 0 (O(1) each)."""

    def __init__(self, laws: EpochLaws, E: int, prec: int, floor: float, eps_cap: float = 16,
                 symmetric: bool = False, pair: tuple | None = None):
        self.E, self.prec, self.laws, self.eps_cap = E, prec, laws, eps_cap
        self.symmetric = symmetric
        self.pair = pair                  # (sigma, M): the add direction's moment bound
        # the composed windows' outside mass is charged as 2 e^eps P_out: below 1e-5 floor
        # for every eps <= eps_cap (beyond, still valid, only looser)
        target = 1e-5 * floor * math.exp(-eps_cap)
        with ctx.workprec(prec):
            eta = to_arb(laws.eta)
            ez = eta.exp()
            # remove: prefix sums of law and of law e^{s eta}
            (self.sR, law, self.oR), (self.sA, lawA, self.oA) = _power2(
                [laws.rem, laws.add], E, "upper", target)
            z = (self.sR * eta).exp()
            weighted = []
            for v in law:
                weighted.append(v * z)
                z = z * ez
            self.R_w, self.R_0 = _prefix(weighted), _prefix(law)
            self.T_R = sum((v * (k * eta).exp() for k, v in laws.rem.items()), arb(0)) ** E
            # add: prefix sums of law and of law e^{-s eta}
            law = lawA
            z = (-self.sA * eta).exp()
            iz = 1 / ez
            weighted = []
            for v in law:
                weighted.append(v * z)
                z = z * iz
            # the weighted sum over j >= i as a suffix sum: the weights e^{-s eta} are huge
            # at the window's left end, and a difference of prefix sums would carry their
            # radii (cancellation)
            self.A_ws, self.A_0 = _suffix(weighted), _prefix(law)
            self.T_A = sum((v * (-k * eta).exp() for k, v in laws.add.items()), arb(0)) ** E
            # tests: the two composed laws of the statistic; P1 (remove) and P0 (add) are
            # lowered by the label windows' aliasing excess E a (1 + a)^{E-1} and by the
            # composed window's P_out; the other probability is raised by its P_out
            (self.s0, l0, self.o0), (self.s1, l1, self.o1) = _power2(
                [laws.test0, laws.test1], E, "test", target)
            self.P0, self.P1 = _prefix(l0), _prefix(l1)
            self.ex0 = E * laws.alias0 * (1 + laws.alias0) ** (E - 1) + self.o0
            self.ex1 = E * laws.alias1 * (1 + laws.alias1) ** (E - 1) + self.o1
            self.ch_R = E * laws.charge_R
            self.ch_A = E * laws.charge_A

    # M = 1 (the Gaussian mechanism): the reflection x -> 1/sigma - x maps P0 to P1 and P1
    # to P0 and L to 1/L, so delta_A = delta_R (proof check profile.gaussian-symmetry): with
    # ``symmetric`` each end is the better of the two directions'
    def _end(self, kind: str, which: str, eps: Fraction) -> arb:
        own = getattr(self, f"_{kind}_{which}")(eps)
        if not self.symmetric:
            return own
        other = getattr(self, f"_{kind}_{'add' if which == 'remove' else 'remove'}")(eps)
        return _min(own, other) if kind == "upper" else _max(own, other)

    def upper_remove(self, eps: Fraction) -> arb:
        return self._end("upper", "remove", eps)

    def upper_add(self, eps: Fraction) -> arb:
        return self._end("upper", "add", eps)

    def lower_remove(self, eps: Fraction) -> arb:
        return self._end("lower", "remove", eps)

    def lower_add(self, eps: Fraction) -> arb:
        return self._end("lower", "add", eps)

    # ---- upper ends (compose.py docstring); 2 c P_out: the composed window's aliasing
    def _upper_remove(self, eps: Fraction) -> arb:
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            n = len(self.R_0) - 1
            i = min(max(math.ceil(eps / self.laws.eta) - self.sR, 0), n)
            U = (self.T_R - self.R_w[i] - c * (self.R_0[n] - self.R_0[i])
                 + 2 * c * self.oR + self.ch_R)
            return _clamp(U)

    def _upper_add(self, eps: Fraction) -> arb:
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            n = len(self.A_0) - 1
            i = min(max(math.floor(-eps / self.laws.eta) + 1 - self.sA, 0), n)  # j < i: s <= s1
            U = (self.T_A - self.A_ws[i] - c * self.A_0[i]
                 + 2 * c * self.oA + self.ch_A)
            U = _clamp(U)
            if self.pair is not None:       # the better of two valid upper ends
                U = _min(U, add_moment_bound(*self.pair, self.E, eps))
            return U

    # ---- lower ends
    @staticmethod
    def _ge(P, start: int, t: int) -> arb:     # window mass at composed index >= t
        n = len(P) - 1
        i = min(max(t - start, 0), n)
        return P[n] - P[i]

    @staticmethod
    def _le(P, start: int, t: int) -> arb:     # window mass at composed index <= t
        n = len(P) - 1
        return P[min(max(t + 1 - start, 0), n)]

    def _lower_remove(self, eps: Fraction) -> arb:
        """max over thresholds t of P1(S >= t) - e^eps P0(S >= t), P1 lowered and P0 raised."""
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            t0 = round(eps / self.laws.eta_l)
            best = arb(0)
            for t in range(t0 - 6, t0 + 7):
                v = (self._ge(self.P1, self.s1, t) - self.ex1
                     - c * (self._ge(self.P0, self.s0, t) + self.o0))
                if v.lower() > best.lower():
                    best = arb(v.lower())
            return best

    def _lower_add(self, eps: Fraction) -> arb:
        """max over t of P0(S <= t) - e^eps P1(S <= t), P0 lowered and P1 raised."""
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            t0 = round(-eps / self.laws.eta_l)
            best = arb(0)
            for t in range(t0 - 6, t0 + 7):
                v = (self._le(self.P0, self.s0, t) - self.ex0
                     - c * (self._le(self.P1, self.s1, t) + self.o1))
                if v.lower() > best.lower():
                    best = arb(v.lower())
            return best


def add_moment_bound(sigma: Fraction, M: int, E: int, eps: Fraction) -> arb:
    """An upper end of delta_A(eps) = E_P0[(1 - c L)_+] from moments (the verifier's
    construction; docs/THEORY.md section 9): for theta > 0, (1 - x)_+ <= C_theta x^{-theta}
    with C_theta = theta^theta / (1 + theta)^{1 + theta} (the maximum of (1 - x) x^theta), and
    E_P0[L^{-theta}] = (E_P0[W^{-theta}])^E <= e^{E theta (theta/M + 1) u / 2} (W >= the
    geometric mean of its M lognormals, AM-GM; E[Y^{-s}] = e^{s (s + 1) u / 2}, proof check
    profile.add-moment-bound), so delta_A(eps) <= C_theta e^{-theta eps + E theta (theta/M + 1) u / 2}.
    The best of a ladder of dyadic theta around the float optimum (a free parameter).  Tight
    only far in the tail, where the lattice's spread is not (small sigma, small M)."""
    uf = float(sigma) ** -2
    k = E * uf / M                              # exponent: -theta (eps - E u / 2) + k theta^2 / 2
    t0 = (float(eps) - E * uf / 2) / k
    if not t0 > 0:
        return arb(1)
    u = 1 / to_arb(sigma) ** 2
    e = to_arb(eps)
    best = arb(1)
    for f in (0.5, 0.7, 0.85, 1.0, 1.2, 1.5, 2.0):
        th = to_arb(Fraction(t0 * f).limit_denominator(2 ** 20))
        C = (th * th.log() - (1 + th) * (1 + th).log()).exp()
        b = C * (-th * e + E * th * (th / M + 1) * u / 2).exp()
        if b.upper() < best.upper():
            best = arb(b.upper())
    return best


def _min(a: arb, b: arb) -> arb:      # upper ends: the smaller (both are valid; nan never wins)
    if not b.is_finite():
        return a
    return a if a.is_finite() and a.upper() <= b.upper() else b


def _max(a: arb, b: arb) -> arb:      # lower ends: the larger (nan never wins)
    if not b.is_finite():
        return a
    return a if a.is_finite() and a.lower() >= b.lower() else b


def _clamp(U: arb) -> arb:
    if U.is_finite() and U < 1:
        return arb(U.upper())
    return arb(1)
