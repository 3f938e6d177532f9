"""Extrema of engine quantities over a box, by monotonicity: when a claim's expression is one
call of a quantity and each name of its box enters only as one whole argument in which the
quantity is monotone, the extremum is attained at a corner of the box, which is an exact
point: the quantity's certified bracket there is the extremum's (no branch and bound, which
would need ball evaluators these engines do not have).  Each direction is an argument:
- sigma: the pair (random allocation or Poisson) at a larger sigma is a post-processing of
  the pair at a smaller one (rescale, add independent Gaussian noise), so every divergence
  and delta(eps) does not increase with sigma, epsilon(delta) neither, and the trade-off
  curve does not decrease (docs/THEORY.md section 11; deploy.epsilon.MONOTONE);
- delta, epsilon: epsilon(delta) and delta(eps) are nonincreasing by definition (the
  privacy profile is nonincreasing in eps); a trade-off function is nonincreasing in a;
- alpha: D_alpha is nondecreasing in alpha (van Erven & Harremoës 2014, Theorem 3: cited);
- target_epsilon, delta of sigma*: a looser target is met by every sigma that meets a
  tighter one.
The Rényi conversion is not monotone in alpha and is not listed for it.
"""
from __future__ import annotations

from verifier.claims.grammar import free_names

DOWN, UP = -1, 1
WHY = {"sigma": "it does not increase with sigma (post-processing)",
       "sigma+": "it does not decrease with sigma (post-processing)",
       "delta": "it does not increase with delta (definition)",
       "epsilon": "it does not increase with epsilon (the privacy profile is nonincreasing)",
       "a": "a trade-off function is nonincreasing",
       "alpha": "D_alpha does not decrease with alpha (van Erven & Harremoës 2014, Theorem 3)",
       "target_epsilon": "a looser target is met by every sigma meeting a tighter one"}
MONOTONE = {
    "epsilon": {"sigma": DOWN, "delta": DOWN},
    "delta_at": {"sigma": DOWN, "epsilon": DOWN},
    "poisson_epsilon": {"sigma": DOWN, "delta": DOWN},
    "poisson_delta_at": {"sigma": DOWN, "epsilon": DOWN},
    "exact_tv": {"sigma": DOWN},
    "renyi": {"sigma": DOWN, "alpha": UP},
    "tradeoff": {"sigma": UP, "a": DOWN},
    "noise_multiplier": {"target_epsilon": DOWN, "delta": DOWN},
    "poisson_noise_multiplier": {"target_epsilon": DOWN, "delta": DOWN},
    "rdp_epsilon": {"sigma": DOWN, "delta": DOWN},
    "zcdp_rho": {"sigma": DOWN},
    "zcdp_epsilon": {"sigma": DOWN, "delta": DOWN},
}


def corner(node, box: dict, kind: str, takes) -> tuple[dict, str] | None:
    """(the corner of ``box`` where the extremum ``kind`` of ``node`` is attained, why), or
    None when monotonicity does not settle it.  ``takes(name)``: the quantity's arguments."""
    if node.kind != "call" or node.value not in MONOTONE:
        return None
    mono, given = MONOTONE[node.value], dict(node.kwargs)
    point, why = {}, []
    for name, (lo, hi) in sorted(box.items()):
        direct = [a for a, sub in given.items() if sub.kind == "name" and sub.value == name]
        inside = [a for a, sub in given.items() if name in free_names(sub)]
        if name not in given and name in takes:      # taken from the box by its own name
            direct, inside = direct + [name], inside + [name]
        if len(direct) != 1 or len(inside) != 1 or direct[0] not in mono:
            return None
        arg = direct[0]
        s = mono[arg] * (UP if kind == "max" else DOWN)
        point[name] = hi if s == UP else lo
        key = "sigma+" if arg == "sigma" and mono[arg] == UP else arg
        why.append(f"{arg}: {WHY[key]}")
    return point, "; ".join(why)
