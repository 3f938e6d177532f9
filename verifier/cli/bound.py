"""verifier bound: delta_rhs of Theorem 3.1 with every term, delta_E, the hypotheses."""
from __future__ import annotations

from verifier.core.arith import Tri, parse_delta, parse_epochs, parse_sigma, parse_steps
from verifier.cli.common import EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, print_json, run_shape


def cmd_bound(args) -> int:
    from verifier.bounds import theorem31 as T
    from verifier.core.arith import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps)
    epochs, coef = parse_epochs(args.epochs), T.check_coef(args.coef)
    delta = parse_delta(args.delta) if args.delta is not None else None
    r = T.bound(sigma, steps, coef, epochs, delta, args.max_prec)
    meets = None
    if delta is not None:   # the target is over all epochs: delta_E (= delta_rhs when E = 1)
        meets = r.meets(delta)
    app = r.applicable
    status = {Tri.HOLDS: EXIT_OK, Tri.FAILS: EXIT_NEGATIVE, Tri.UNDECIDED: EXIT_INCONCLUSIVE}[app]
    if meets is Tri.FAILS:
        status = max(status, EXIT_NEGATIVE)
    elif meets is Tri.UNDECIDED and status == EXIT_OK:
        status = EXIT_INCONCLUSIVE
    if args.json:
        obj = r.to_json()
        print_json(obj)
        return status
    print(f"{T.SOURCE} (reconstructed), coef = {coef}")
    print(f"sigma = {frac_str(sigma)}, {run_shape(steps, epochs)}   "
          f"[{r.precision}-bit Arb balls; intervals rounded outward]")
    print(f"  coef      = {r.coef_value.short(16)}")
    for n, t in zip(T.TERM_NAMES, r.terms):
        print(f"  {n}        = {t.short(16)}")
    print(f"  delta_rhs = {r.delta.short(16)}")
    if epochs > 1:
        print(f"  delta_E   = {r.delta_epochs.short(16)}   (E = {epochs}: 1 - (1 - delta)^E)")
    print("hypotheses (margin >= 0 means holds):")
    for h in r.hypotheses:
        print(f"  {h.name:<34} {h.verdict.value:<9} margin {h.value.short(10)}")
    if delta is not None:
        print(f"target delta = {frac_str(delta)} over {epochs} epoch{'s' if epochs > 1 else ''}: "
              f"{'delta_E' if epochs > 1 else 'delta_rhs'} <= target {meets.value}")
    verdict = {Tri.HOLDS: "the theorem applies: one epoch is f_{0,delta}-DP (f(a) >= 1 - a - delta) "
                          "with delta = the upper end of delta_rhs"
                          + ("" if epochs == 1 else f"; {epochs} epochs with delta_E"),
               Tri.FAILS: "NOT applicable: a hypothesis fails",
               Tri.UNDECIDED: "INCONCLUSIVE: a hypothesis is undecided at the precision cap"}[app]
    print(f"verdict: {verdict}")
    print(f"note: {T.RECONSTRUCTED_NOTE}")
    return status
