"""verifier certify: every bound at deployed parameters; the certificate files on --out."""
from __future__ import annotations

from verifier.cli.common import (EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, _deploy_inputs,
                                 _print_json)


def cmd_certify(args) -> int:
    from verifier import deploy as Dp
    from verifier.report.certificate import certificate_json, write_certificate
    from verifier.core.arith import frac_str
    inp = _deploy_inputs(args, True, True)
    c = Dp.certify(inp.sigma, inp.steps, inp.epochs, inp.target, inp.bound, inp.samples,
                   inp.clip, args.max_prec)
    paths = None
    if args.out is not None:   # the figures' data computed here, the renderer only draws
        from verifier.deploy import series
        feas = series.feasibility(c.sigma, c.epochs, c.target, list(c.bounds))
        paths = write_certificate(c, args.out, feas)
    status = {"certified": EXIT_OK, "not-certified": EXIT_NEGATIVE,
              "inconclusive": EXIT_INCONCLUSIVE}[c.status]
    if args.json:
        _print_json(certificate_json(c))
        return status
    print(f"sigma = {frac_str(c.sigma)}, M = {c.steps}, E = {c.epochs}; target: {c.target.kind} "
          f"{frac_str(c.target.value)} (delta_E <= {frac_str(c.target.delta)})")
    for name, ev in c.bounds.items():
        hyp = "" if not ev.hypotheses else "  hypotheses " + ", ".join(
            h.verdict.value for h in ev.hypotheses)
        print(f"  {name:<22} delta_E {ev.delta_epochs.short(8):<34} accuracy <= "
              f"{ev.accuracy.short(8):<34} {ev.verdict.value}{hyp}")
    if c.noise_per_round is not None:
        print(f"  per-round noise C sigma M / N = {frac_str(c.noise_per_round)}")
    cm = c.comparisons
    print(f"  comparison (asymptotic, not certified): mu_P = {cm['mu_poisson'].short(6)}, "
          f"mu_U = {cm['mu_uniform'].short(6)}")
    print(f"status: {c.status.upper()}")
    if paths:
        print(f"  wrote {paths[0]} and {paths[1]}")
    return status
