"""The Poisson engine's first float choices (docs/THEORY.md section 12, "Free parameters";
any value leaves the bounds valid): a float guess of epsilon from the Renyi moments, and the
first lattice step."""
from __future__ import annotations

import math
from fractions import Fraction

STEP_GRID = 12           # first lattice: points per standard deviation of one step's loss,
EPS_GRID = 400           # ... and at least this many per unit of the guessed epsilon,
START_POINTS = 30_000    # ... but at most about this many points in one step's loss range


def log_moments(sigma: Fraction, q: Fraction):
    """Floats log E_Q[W^a] for the orders a = 2 .. 64 (a numpy array) of the remove
    direction, E_Q[W^a] = sum_k C(a, k) (1 - q)^{a - k} q^k e^{k (k - 1) u / 2} (binomial
    expansion; Mironov, Talwar and Zhang, arXiv 1908.10530 v1, Section 3.3), on whole arrays
    (orders x terms); for guesses only."""
    import numpy as np
    A, K = np.arange(2, 65)[:, None], np.arange(65)[None, :]
    lf = np.array([math.lgamma(i + 1) for i in range(66)])       # log i!
    inside = K <= A
    u, qf = float(sigma) ** -2, float(q)
    if qf == 1:
        terms = np.where(K == A, K * (K - 1) * u / 2, -np.inf)
    else:
        terms = np.where(inside, lf[A] - lf[K] - lf[np.where(inside, A - K, 0)]
                         + (A - K) * math.log1p(-qf), -np.inf) \
            + K * math.log(qf) + K * (K - 1) * u / 2
    m = terms.max(axis=1)
    return m + np.log(np.exp(terms - m[:, None]).sum(axis=1))


def guess_epsilon(sigma: Fraction, q: Fraction, T: int, delta: float) -> float:
    """A float guess of epsilon(delta) (a free parameter: it picks the lattice step and the
    composed windows' eps cap): the Renyi conversion of the integer-order moments of the
    remove direction (``log_moments``), the best order from 2 to 64."""
    import numpy as np
    orders = np.arange(2, 65)
    return max(float(((T * log_moments(sigma, q) + math.log(1 / delta)) / (orders - 1)).min()),
               0.0)


def lattice_step(sigma: Fraction, q: Fraction, T: int, guess: float) -> Fraction:
    """The first lattice step eta (a free parameter: a dyadic rational with three
    significant bits, at most 1/STEP_GRID of one step's loss's standard deviation and
    1/EPS_GRID of the guessed epsilon or of the composed loss's
    standard deviation, and at least 1/START_POINTS of the range of one step's loss (to
    9 standard deviations of the noise); ``refine`` makes it finer where needed)."""
    sf, qf = float(sigma), float(q)
    u = sf ** -2
    sd_x = math.sqrt(math.log1p(qf * qf * math.expm1(min(u, 700.0))))
    want = min(sd_x / STEP_GRID, max(guess, sd_x * math.sqrt(T)) / EPS_GRID)
    x_hi = math.log1p(qf * math.expm1(min(9 / sf + u / 2, 700.0)))
    x_lo = math.log1p(-qf) if qf < 1 else -(9 / sf + u / 2)
    want = max(want, (x_hi - x_lo) / START_POINTS)
    want = max(want, 2.0 ** -40)
    e = math.floor(math.log2(want)) - 2
    return Fraction(math.floor(want / 2.0 ** e)) * Fraction(2) ** e


def small_eps_floor(floor: float, base: float, both) -> float:
    """The charge floor for the next lattice step (a free parameter: any floor is valid, a
    smaller one tighter): ``base`` (the request's, bounds.poisson.charge_floor) times
    min(1, 10 eps), eps the certified upper end ``both`` just found, as the width target
    scales (bounds.poisson.eps_target: 0.1% of eps where eps < 0.1), and never above the
    current ``floor``.  At a tiny epsilon the charges at delta's floor stalled the refinement
    (sigma 0.628, q 5.1e-6, T 70, delta 2e-5, epsilon 1.13e-4: four lattice steps at floor
    2e-5, then the stall's retry at 2e-8 on a 2-million-point window, 46 s; with this, 12 s)."""
    if both is None or both.upper is None:
        return floor
    return min(floor, base * min(1.0, max(10 * float(both.upper), 1e-6)))


def following_floor(compute, state: dict):
    """``compute`` (eta -> (bracket, profile)) with state["floor"] lowered after every step
    by ``small_eps_floor``, its base the floor at the start (the request's)."""
    base = state["floor"]

    def stepped(eta):
        iv, P = compute(eta)
        state["floor"] = small_eps_floor(state["floor"], base, iv)
        return iv, P
    return stepped
