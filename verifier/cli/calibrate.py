"""verifier calibrate sigma | steps | samples."""
from __future__ import annotations

from fractions import Fraction

from verifier.bounds.exact_tv import EXACT_TV
from verifier.core.arith import pct
from verifier.cli.common import (EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, deploy_inputs,
                                 print_json, run_shape)


def _calibrate_poisson(args) -> int:
    """calibrate sigma --sampling poisson --target-epsilon EPS --delta D: Opacus's tolerance
    search (get_noise_multiplier's contract), certified by the Poisson engine."""
    from verifier.api.profile import parse_poisson, parse_epsilon
    from verifier.core.arith import InputError, frac_str, parse_delta, parse_epochs, parse_steps
    from verifier.deploy.epsilon import calibrate_sigma_tolerance
    if args.what != "sigma" or args.target_epsilon is None or args.delta is None:
        raise InputError("with --sampling poisson: calibrate sigma --target-epsilon EPS --delta D "
                         "(--sample-rate q --total-steps T, or --steps-per-epoch M --epochs E)")
    if args.config or args.bound or args.samples or args.batch_size:
        raise InputError("with --sampling poisson, calibrate sigma takes --sample-rate, "
                         "--total-steps or --steps-per-epoch/--epochs, --target-epsilon, --delta "
                         "(no --config, --bound, --samples, --batch-size)")
    T = args.poisson_total_steps
    if T is None:
        if args.steps is None:
            raise InputError("give --total-steps T (or --steps-per-epoch M and --epochs E)")
        m = parse_steps(args.steps, name="steps per epoch", minimum=1)
        T = m * parse_epochs(args.epochs if args.epochs is not None else 1, 10 ** 7)
    elif args.steps is not None or args.epochs is not None:
        raise InputError("give --total-steps T or --steps-per-epoch M --epochs E, not both")
    q = args.sample_rate
    if q is None:
        if args.steps is None:
            raise InputError("give --sample-rate q (or --steps-per-epoch M: q = 1/M)")
        q = f"1/{args.steps}"
    _, q, T = parse_poisson(1, q, T)
    eps, d = parse_epsilon(args.target_epsilon), parse_delta(args.delta)
    tol = Fraction(1, 100)
    cal = calibrate_sigma_tolerance(eps, d, 1, 1, tol, poisson=(q, T))
    if args.json:
        print_json(cal.to_json())
    else:
        print(f"calibrate sigma, Poisson subsampling at q = {frac_str(q)}, T = {T} steps in all, "
              f"target epsilon <= {frac_str(eps)} at delta = {frac_str(d)}")
        print(f"  {cal.status}" + (f": sigma = {frac_str(cal.sigma)}" if cal.sigma else "")
              + (f"  ({cal.message})" if cal.message else ""))
        if cal.at is not None:
            print(f"  delta({frac_str(eps)}) at the answer in {cal.at.short(6)}")
    return (EXIT_OK if cal.status == "certified" else
            EXIT_NEGATIVE if cal.status == "infeasible" else EXIT_INCONCLUSIVE)


def _calibrate_run(args) -> int:
    """calibrate sigma --run FILE: the smallest common scale of the run's noise multipliers."""
    from verifier.core.arith import InputError, frac_str, parse_delta, parse_exact
    from verifier.core.run_files import run_from_file
    from verifier.deploy.run_sigma import calibrate_run_scale
    if args.what != "sigma" or args.target_epsilon is None or args.delta is None:
        raise InputError("calibrate --run FILE: calibrate sigma with --target-epsilon EPS and "
                         "--delta D (the smallest common scale of the run's noise multipliers)")
    for flag in ("sigma", "steps", "epochs", "sample_rate", "poisson_total_steps", "samples"):
        if getattr(args, flag, None) is not None:
            raise InputError(f"calibrate --run FILE carries the run's parameters; drop "
                             f"--{flag.replace('poisson_', '').replace('_', '-')}")
    run = run_from_file(args.run)
    eps = parse_exact(args.target_epsilon, "target-epsilon")
    res = parse_exact(args.resolution, "resolution") if args.resolution else Fraction(1, 100)
    r = calibrate_run_scale(run, eps, parse_delta(args.delta), res, phase=args.phase)
    if args.json:
        print_json(r.to_json())
        return _calibrate_exit(r.status)
    c = "c" if args.phase is None else f"sigma_{args.phase}"
    print(f"calibrate sigma of {run.describe()}: "
          + ("every noise multiplier times a common scale c" if args.phase is None else
             f"phase {args.phase}'s noise multiplier sigma_{args.phase}, the others kept")
          + f" (resolution {frac_str(res)}); target (epsilon, delta) = "
          f"({frac_str(eps)}, {frac_str(r.delta)})")
    if r.status == "certified":
        print(f"  certified: {c} = {frac_str(r.scale)}; noise multipliers "
              + ", ".join(frac_str(p.noise_multiplier) for p in r.run.phases))
        print(f"  delta({frac_str(eps)}) in {r.at.short(8)} at the answer")
        if r.below is not None:
            print(f"  delta({frac_str(eps)}) in {r.below.short(8)} at {c} = "
                  f"{frac_str(r.scale - res)} (certified to fail), hence every smaller {c}")
    else:
        print(f"  {r.status}: {r.message}")
    return _calibrate_exit(r.status)


def _calibrate_exit(status: str) -> int:
    return (EXIT_OK if status == "certified" else EXIT_NEGATIVE if status == "infeasible"
            else EXIT_INCONCLUSIVE)


def cmd_calibrate(args) -> int:
    from verifier import deploy as Dp
    from verifier.core.arith import frac_str
    if getattr(args, "run", None) is not None:
        return _calibrate_run(args)
    if getattr(args, "phase", None) is not None:
        from verifier.core.arith import InputError
        raise InputError("--phase I names a phase of a run: calibrate sigma --run FILE --phase I")
    if getattr(args, "sampling", "random-allocation") == "poisson":
        return _calibrate_poisson(args)
    if args.sample_rate is not None or args.poisson_total_steps is not None:
        from verifier.core.arith import InputError
        raise InputError("--sample-rate and --total-steps are for --sampling poisson; random "
                         "allocation takes --steps-per-epoch M and --epochs E")
    if getattr(args, "target_epsilon", None) is None and getattr(args, "config", None):
        from verifier.deploy.inputs import load_config      # a target_epsilon in the config
        args.target_epsilon = load_config(args.config).get("target_epsilon")   # selects it too
    if getattr(args, "target_epsilon", None) is not None or args.what == "epochs":
        return _calibrate_eps(args)
    inp = deploy_inputs(args, args.what in ("steps", "samples"), args.what == "sigma")
    with_exact_tv = args.what == "sigma" and inp.bound == EXACT_TV.name
    # --bound exact-tv: the registry bounds' answers too, and the noise saved against each
    names = Dp.BOUNDS if with_exact_tv else Dp.check_bounds(inp.bound)
    out = {"what": args.what, "target": {"kind": inp.target.kind,
                                         "value": frac_str(inp.target.value)},
           "epochs": inp.epochs, "bounds": {}}
    lines = []
    if args.what == "sigma":
        found, inconclusive = _sigma_over_bounds(inp, names, args, with_exact_tv, out, lines)
    else:
        found, inconclusive = _steps_or_samples(inp, names, args, out, lines)
    status = EXIT_OK if found else EXIT_INCONCLUSIVE if inconclusive else EXIT_NEGATIVE
    if args.json:
        print_json(out)
        return status
    print(f"calibrate {args.what}: target {inp.target.kind} {frac_str(inp.target.value)}, "
          f"E = {inp.epochs}")
    for line in lines:
        print(line)
    key = {"sigma": "sigma", "steps": "steps", "samples": "samples"}[args.what]
    print(f"result: {key} = {out.get(key, 'none certified')}")
    return status


def _sigma_over_bounds(inp, names, args, with_exact_tv, out, lines):
    """calibrate sigma against the TV bounds (and the exact TV): fills ``out`` and ``lines``;
    returns (found, inconclusive)."""
    from verifier import deploy as Dp
    from verifier.core.arith import frac_str
    out["steps"] = inp.steps
    out["resolution"] = frac_str(inp.resolution)
    res = Dp.calibrate_sigma_over(inp.steps, inp.epochs, inp.target, names, inp.resolution,
                                  args.max_prec, with_exact_tv)
    out.update(res.to_json())
    for b, r in res.per_bound.items():
        rng = f" .. {frac_str(r.sigma_max)}" if r.sigma_max is not None else " and above"
        lines.append(f"  {b:<22} {r.status:<13} "
                     + (f"sigma = {frac_str(r.sigma)}{rng}" if r.sigma else "")
                     + (f"  ({r.message})" if r.message else ""))
        if r.branch and r.status == "certified":
            lines.append(f"      {r.branch}")
    r = res.exact
    if r is not None:
        lines.append(f"  {EXACT_TV.title:<22} {r.status:<13} "
                     + (f"sigma = {frac_str(r.sigma)}" if r.sigma else "")
                     + (f"  ({r.message})" if r.message else ""))
        for b, q in (r.noise_saved or {}).items():
            lines.append(f"  noise saved against {b}: {pct(q, 'down')} "
                         f"(sigma {frac_str(r.sigma)} instead of "
                         f"{frac_str(res.per_bound[b].sigma)})")
        if r.sigma is None:   # the exact calibration did not decide: the bounds' answers stand
            lines.append("  (the exact-TV calibration is inconclusive: the result is the "
                         "smallest answer the bounds certify)")
    found = [res.value] if res.value is not None else []
    inconclusive = res.status == "inconclusive"
    return found, inconclusive


def _steps_or_samples(inp, names, args, out, lines):
    """calibrate steps | samples against the TV bounds: fills ``out`` and ``lines``; returns
    (found, inconclusive)."""
    from verifier import deploy as Dp
    from verifier.core.arith import frac_str
    found, inconclusive = [], False
    steps = inp.steps
    if args.what == "steps" or steps is None:
        cal = {b: Dp.calibrate_steps(inp.sigma, inp.epochs, inp.target, b, args.max_prec)
               for b in names}
        c = Dp.combine("steps", cal)
        out["bounds"] = {b: r.to_json() for b, r in cal.items()}
        for b, r in cal.items():
            lines.append(f"  {b:<22} {r.status:<13} "
                         + (f"M = {r.steps}" if r.steps else "")
                         + (f"  ({r.message})" if r.message else ""))
        steps = c.value
        found = [steps] if steps is not None else []
        inconclusive = c.status == "inconclusive"
        if steps is not None:
            out["steps"] = steps
    else:
        found.append(steps)
        out["steps"] = steps
    out["sigma"] = frac_str(inp.sigma)
    if args.what == "samples" and steps is not None:
        n = Dp.min_samples(inp.sigma, steps, inp.clip, inp.noise_level)
        out["samples"] = n
        out["noise_level"] = frac_str(inp.noise_level)
        lines.append(f"  min N = {n}  (C sigma M / N <= {frac_str(inp.noise_level)}, "
                     f"C = {frac_str(inp.clip)}, M = {steps})")
    return found, inconclusive


def _fixed_words(fixed: dict) -> str:
    """The fixed parameters in the header's words: M, E and T named as every header names
    them (steps per epoch, epochs, steps in all)."""
    from verifier.core.arith import frac_str
    M, E = fixed.get("steps"), fixed.get("epochs")
    words = []
    if M is not None and E is not None:
        words.append(run_shape(M, E))
    elif M is not None:
        words.append(f"M = {M} steps per epoch")
    elif E is not None:
        words.append(f"E = {E} epoch{'s' if E != 1 else ''}")
    words += [f"{k} = {frac_str(v) if not isinstance(v, int) else v}"
              for k, v in fixed.items() if k not in ("steps", "epochs")]
    return ", ".join(words)


def _calibrate_eps(args) -> int:
    """calibrate sigma | steps | epochs --target-epsilon EPS --delta D (verifier.deploy.epsilon)."""
    from verifier.core.arith import InputError, frac_str
    from verifier.deploy import epsilon as DE
    if args.what == "samples":
        raise InputError("calibrate samples takes a TV target (--delta or --target-accuracy), "
                         "not --target-epsilon")
    if getattr(args, "target_epsilon", None) is None:
        raise InputError("calibrate epochs needs --target-epsilon EPS --delta D")
    inp = deploy_inputs(args, args.what in ("steps", "epochs"), args.what in ("sigma", "epochs"))
    eps, d = inp.target_epsilon, inp.target.delta
    if args.what == "sigma":
        r = DE.calibrate_sigma_eps(eps, d, inp.steps, inp.epochs, inp.resolution)
    elif args.what == "epochs":
        r = DE.calibrate_epochs_eps(eps, d, inp.sigma, inp.steps)
    else:
        r = DE.calibrate_steps_eps(eps, d, inp.sigma, inp.epochs)
    status = {"certified": EXIT_OK, "infeasible": EXIT_NEGATIVE}.get(r.status, EXIT_INCONCLUSIVE)
    if r.status == "beyond-range" and args.what == "epochs" and r.value is not None:
        status = EXIT_OK
    if args.json:
        print_json(r.to_json())
        return status
    fx = _fixed_words(r.fixed)
    print(f"calibrate {args.what}: target (epsilon, delta) = ({frac_str(eps)}, {frac_str(d)}); {fx}")
    print(f"  {r.status}: {args.what} = "
          + ("none certified" if r.value is None else
             frac_str(r.value) if not isinstance(r.value, int) else str(r.value)))
    if r.at is not None:
        print(f"  delta({frac_str(eps)}) in {r.at.short(8)} at the answer")
    if r.below is not None:
        print(f"  delta({frac_str(eps)}) in {r.below.short(8)} at its neighbour (certified to fail)")
    if r.message:
        print(f"  {r.message}")
    print(f"  monotonicity: {DE.MONOTONE[args.what]}")
    if r.compared:              # not like for like: a TV bound certifies (0, delta), stronger
        print(f"  for comparison, a different guarantee: (0, {frac_str(r.delta)})-DP (TV <= "
              "delta, every eps at once) needs")
    for b, v in r.compared.items():
        if v.get("sigma"):
            print(f"    {b}: sigma {v['sigma']}")
        else:
            print(f"    {b}: {v.get('status')}")
    print(f"  {r.evaluations} certified evaluations")
    return status
