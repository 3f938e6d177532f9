"""verifier certify: every bound at deployed parameters; the certificate files on --out."""
from __future__ import annotations

from verifier.cli.common import run_shape
from verifier.core.arith import decimal_str, frac_str

from verifier.cli.common import (EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, deploy_inputs,
                                 print_json)


RUN_CONFLICTS = (("sigma", "--sigma"), ("steps", "--steps-per-epoch"), ("samples", "--samples"),
                 ("batch_size", "--batch-size"), ("epochs", "--epochs"), ("clip", "--clip"),
                 ("bound", "--bound"), ("config", "--config"))


def _certify_run(args) -> int:
    """verifier certify --run FILE: the run's certificate (deploy/run_certify.py)."""
    from verifier.api.profile import parse_epsilon
    from verifier.core.arith import InputError, parse_delta, parse_exact
    from verifier.core.run_files import run_from_file
    from verifier.deploy.run_certify import certify_run
    from verifier.report.run_certificate import run_certificate_json, write_run_certificate
    for attr, flag in RUN_CONFLICTS:
        if getattr(args, attr, None) is not None:
            raise InputError(f"verifier certify: --run FILE carries the run's parameters; "
                             f"drop {flag}")
    if args.delta is None:
        raise InputError("verifier certify --run FILE: give --delta D (with --target-epsilon "
                         "EPS for an (epsilon, delta) target)")
    run = run_from_file(args.run)
    c = certify_run(run, parse_delta(args.delta),
                    None if args.target_epsilon is None else parse_epsilon(args.target_epsilon),
                    None if args.target_accuracy is None else
                    parse_exact(args.target_accuracy, "target accuracy"))
    paths = write_run_certificate(c, args.out) if args.out is not None else None
    status = {"certified": EXIT_OK, "not-certified": EXIT_NEGATIVE,
              "inconclusive": EXIT_INCONCLUSIVE}[c.status]
    if args.json:
        print_json(run_certificate_json(c))
        return status
    d = frac_str(c.delta)
    print(f"{run.describe()}; target: {c.target_line}")
    print(f"  epsilon({d})   in {c.epsilon.short(8) if c.epsilon else 'inconclusive'} "
          f"(larger direction: {c.larger})")
    if c.kind == "epsilon-delta":
        print(f"  delta({frac_str(c.target_epsilon)})   in {c.decided_by.short(8)}: "
              f"{c.verdict.value}")
    print(f"  TV in {c.tv.short(8)}, attack accuracy in {c.accuracy.short(8)}")
    if c.renyi_epsilon is not None and c.renyi_epsilon.upper is not None:
        print(f"  the Rényi curve converted: epsilon({d}) <= "
              f"{decimal_str(c.renyi_epsilon.upper, 8, 'up')} (what an RDP accountant reports)")
    if c.worst_phase is not None:
        print(f"  at the worst phase: epsilon({d}) in {c.worst_phase.short(8)} (every step at "
              "the smallest noise multiplier and largest sample rate)")
    print(f"status: {c.status_line}")
    if paths:
        print(f"  wrote {len(paths)} files: " + ", ".join(paths))
    return status


def cmd_certify(args) -> int:
    from verifier import deploy as Dp
    if getattr(args, "run", None) is not None:
        return _certify_run(args)
    from verifier.report.certificate import certificate_json, write_certificate
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
