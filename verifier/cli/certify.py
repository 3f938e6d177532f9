"""verifier certify: every bound at deployed parameters; the certificate files on --out."""
from __future__ import annotations

from verifier.cli.common import run_shape

from verifier.cli.common import (EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, deploy_inputs,
                                 print_json)


def cmd_certify(args) -> int:
    from verifier import deploy as Dp
    from verifier.report.certificate import certificate_json, write_certificate
    from verifier.core.arith import frac_str
    inp = deploy_inputs(args, True, True)
    c = Dp.certify(inp.sigma, inp.steps, inp.epochs, inp.target, inp.bound, inp.samples,
                   inp.clip, args.max_prec, inp.target_epsilon)
    paths = None
    if args.out is not None:   # the figures' data computed here, the renderer only draws
        from verifier.deploy import series
        feas = (series.feasibility(c.sigma, c.epochs, c.target, list(c.bounds))
                if c.bounds else {})
        paths = write_certificate(c, args.out, feas)
    status = {"certified": EXIT_OK, "not-certified": EXIT_NEGATIVE,
              "inconclusive": EXIT_INCONCLUSIVE}[c.status]
    if args.json:
        print_json(certificate_json(c))
        return status
    if c.privacy is not None:
        print(f"sigma = {frac_str(c.sigma)}, {run_shape(c.steps, c.epochs)}; target: (epsilon, delta) = "
              f"({frac_str(c.privacy.epsilon)}, {frac_str(c.privacy.delta)}); a TV bound meets it "
              f"when delta_E <= {frac_str(c.target.delta)}")
    else:
        print(f"sigma = {frac_str(c.sigma)}, {run_shape(c.steps, c.epochs)}; target: {c.target.kind} "
              f"{frac_str(c.target.value)} (delta_E <= {frac_str(c.target.delta)})")
    for name, ev in c.bounds.items():
        hyp = "" if not ev.hypotheses else "  hypotheses " + ", ".join(
            h.verdict.value for h in ev.hypotheses)
        print(f"  {name:<22} delta_E {ev.delta_epochs.short(8):<34} accuracy <= "
              f"{ev.accuracy.short(8):<34} {ev.verdict.value}{hyp}")
    if c.privacy is not None:
        pv = c.privacy
        print(f"  (epsilon, delta)        delta({frac_str(pv.epsilon)}) {pv.delta_at_eps.short(8):<26} "
              f"<= {frac_str(pv.delta)}: {pv.verdict.value}")
        if pv.epsilon_bracket is not None:
            print(f"                          epsilon({frac_str(pv.delta)}) in "
                  f"{pv.epsilon_bracket.short(8)}  (larger direction: {pv.larger})")
        print(f"                          TV in {pv.tv.short(8)}, attack accuracy in "
              f"{pv.accuracy.short(8)}")
        if pv.views is not None:
            r = {row.name: row for row in pv.views.rows}
            ren, z = r["Rényi curve, improved conversion"], r["zCDP, improved conversion"]
            print(f"  other views             Rényi-converted epsilon <= "
                  f"{ren.value.short(8).split(', ')[-1].rstrip(']')}, zCDP-converted <= "
                  f"{z.value.short(8).split(', ')[-1].rstrip(']')} (rho = "
                  f"{pv.views.rho.short(8)}): what compressing the curve costs")
    if c.noise_per_round is not None:
        print(f"  per-round noise C sigma M / N = {frac_str(c.noise_per_round)}")
    cm = c.comparisons
    if c.privacy is not None and c.privacy.poisson is not None:
        verdict, d = c.privacy.sampler_comparison()
        pe = c.privacy.poisson.epsilon
        print(f"  Poisson at q = 1/M      epsilon({frac_str(c.privacy.delta)}) in "
              f"{pe.short(8) if pe is not None else 'inconclusive'} (certified, T = M E): "
              f"{verdict}" + (f", by {d.short(6)}" if d is not None else ""))
    elif cm:
        print(f"  comparison (asymptotic, not certified): mu_P = {cm['mu_poisson'].short(6)}, "
              f"mu_U = {cm['mu_uniform'].short(6)} (--target-epsilon: the certified "
              "comparison with Poisson subsampling)")
    if c.epsilon_at_delta is not None and c.epsilon_at_delta.epsilon is not None:
        e = c.epsilon_at_delta
        print(f"  (epsilon, delta)        epsilon({frac_str(e.delta)}) in {e.epsilon.short(8)} "
              "(certified, the exact privacy profile; --target-epsilon EPS makes (EPS, delta) "
              "the target)")
    print(f"status: {c.status_line}")
    if paths:
        print(f"  wrote {len(paths)} files: " + ", ".join(paths))
    return status
