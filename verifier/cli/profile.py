"""verifier epsilon, verifier delta and verifier compare-samplers: the certified privacy
profile of the random-allocation pair (docs/THEORY.md section 9) and of Poisson subsampling
(--sampling poisson; docs/THEORY.md section 12, docs/POISSON.md)."""
from __future__ import annotations

from verifier.core.arith import decimal_str, frac_str
from verifier.cli.common import EXIT_INCONCLUSIVE, EXIT_OK, print_json, run_shape


def _inputs(args):
    from verifier.bounds.profile import parse_pair
    if getattr(args, "sample_rate", None) is not None and \
            getattr(args, "sampling", "random-allocation") != "poisson":
        from verifier.core.arith import InputError
        raise InputError("--sample-rate is for --sampling poisson; random allocation takes "
                         "--steps-per-epoch M (each record in exactly one of the M steps)")
    return parse_pair(args.sigma, args.steps, args.epochs, gaussian=True)


def poisson_inputs(args) -> tuple:
    """(sigma, q, T) of --sampling poisson: q = --sample-rate (default 1/M), T = M E (the
    steps in all, --total-steps T resolved into M and E by the parser)."""
    from verifier.api.profile import parse_poisson
    from verifier.cli.common import opacus_epochs
    from verifier.core.arith import parse_epochs, parse_exact, parse_steps
    if opacus_epochs(args):               # Opacus's steps: T = int(epochs / sample_rate)
        from verifier.core.run import phase
        e = parse_epochs(args.epochs if args.epochs is not None else 1, 10 ** 7)
        T = phase(args.sigma, sample_rate=args.sample_rate, epochs=e).steps
        args.opacus_note = (f"T = floor(E / q) = floor({e} / {args.sample_rate}) = {T} steps "
                            "(Opacus's rule)")
        return parse_poisson(args.sigma, parse_exact(args.sample_rate, "sample rate"), T)
    m = parse_steps(args.steps, name="steps per epoch", minimum=1)
    e = parse_epochs(args.epochs if args.epochs is not None else 1, 10 ** 7)
    q = args.sample_rate if args.sample_rate is not None else f"1/{m}"
    return parse_poisson(args.sigma, q, m * e)


def _poisson_shape(sigma, q, T, args=None) -> str:
    note = getattr(args, "opacus_note", None)
    if note:
        return (f"Poisson subsampling, sigma = {frac_str(sigma)}, sample rate q = {frac_str(q)}, "
                f"{note}")
    return (f"Poisson subsampling, sigma = {frac_str(sigma)}, sample rate q = {frac_str(q)}, "
            f"T = {T} steps in all")


def _poisson_engine_line(info: dict, seconds: float) -> str:
    if "closed_form" in info:
        return f"  {info['closed_form']}, {seconds:.2f} s"
    return (f"  lattice step eta = {frac_str(info['eta'])}, {info['points']} points per step, "
            f"{seconds:.2f} s; rigorous (dominating pairs, explicit tests, Arb balls)")


def _print_directions(r, what: str):
    for w in ("remove", "add"):
        iv = getattr(r, w)
        print(f"  {w:<9} in {iv.short(8) if iv is not None else 'inconclusive'}")
    print(f"  larger direction: {r.larger}" + (" (certified)" if r.larger != "undecided" else ""))


def _unreached(args, iv, info: dict | None = None):
    """Say so when the width asked (--rel-width, or the default) was not reached, with what
    stopped the refinement (info["refinement_limit"]: the memory limit, the lattice's point
    limit, a bracket that stopped narrowing)."""
    if info and info.get("refinement_limit"):
        print(f"  the bracket is wider than asked: {info['refinement_limit']}")
        return
    if args.rel_width is None or iv is None or iv.lower <= 0:
        return
    from verifier.bounds.poisson import check_rel_width
    w = check_rel_width(args.rel_width)
    if iv.upper - iv.lower > w * iv.lower:
        print(f"  the requested relative width {frac_str(w)} was not reached")


def _epsilon_poisson(args) -> int:
    from verifier.api.profile import poisson_epsilon
    sigma, q, T = poisson_inputs(args)
    r = poisson_epsilon(sigma, q, T, delta=args.delta, rel_width=args.rel_width)
    if args.json:
        print_json(r.to_json())
        return EXIT_OK if r.bracketed else EXIT_INCONCLUSIVE
    print(f"epsilon(delta) of {_poisson_shape(sigma, q, T, args)}, delta = {frac_str(r.delta)}")
    if not r.bracketed:
        print("  inconclusive: no epsilon <= 60 is certified to meet delta")
        return EXIT_INCONCLUSIVE
    print(f"  epsilon   in {r.epsilon.short(8)}   ({_width(r.epsilon)})")
    _print_directions(r, "epsilon")
    print(_poisson_engine_line(r.info, r.seconds))
    _unreached(args, r.epsilon, r.info)
    return EXIT_OK


def _delta_poisson(args) -> int:
    from verifier.api.profile import poisson_delta
    sigma, q, T = poisson_inputs(args)
    r = poisson_delta(sigma, q, T, epsilon=args.epsilon, rel_width=args.rel_width)
    if args.json:
        print_json(r.to_json())
        return EXIT_OK
    print(f"delta(epsilon) of {_poisson_shape(sigma, q, T, args)}, epsilon = {frac_str(r.epsilon)}")
    print(f"  delta     in {r.delta.short(8)}   ({_width(r.delta)})")
    _print_directions(r, "delta")
    print(_poisson_engine_line(r.info, r.seconds))
    _unreached(args, r.delta, r.info)
    return EXIT_OK


def _engine_line(info: dict, seconds: float) -> str:
    if "closed_form" in info:
        return f"  {info['closed_form']}, {info['digits']} digits, {seconds:.2f} s"
    ref = f" (refined {info['refinement']}x)" if info.get("refinement") else ""
    return (f"  lattice step h = {frac_str(info['h'])}{ref}, {info['cells']} cells, DFT length "
            f"{info['N']}, {seconds:.2f} s; rigorous (one-sided steps, explicit tests, Arb balls)")


def _width(iv) -> str:
    if iv.lower > 0:
        return "relative width <= " + decimal_str((iv.upper - iv.lower) / iv.lower * 100, 3, "up") + "%"
    return "absolute width <= " + decimal_str(iv.upper - iv.lower, 3, "up")


def _gaussian_mu2(args):
    """mu^2 = T / sigma^2 when the pair is the Gaussian mechanism, else a one-line refusal."""
    from verifier.bounds.gaussian import mu_squared
    from verifier.core.arith import InputError
    if args.sampling == "poisson":
        sigma, q, T = poisson_inputs(args)
        if q == 1:
            return sigma, T, mu_squared([(sigma, T)])
    else:       # the pair's own refusals first (E up to 1e7 at M = 1, else 1000)
        sigma, M, E = _inputs(args)
        if M == 1:                             # the closed form: no lattice
            return sigma, E, mu_squared([(sigma, E)])
    raise InputError("--digits needs the Gaussian mechanism (--steps-per-epoch 1, or "
                     "--sampling poisson --sample-rate 1), which has a closed form; other "
                     "pairs get the engines' brackets (about 0.01%-0.3% wide) without --digits")


def _digits(args, what: str) -> int:
    from verifier.bounds import gaussian as G
    from verifier.core.arith import parse_delta
    digits = G.check_digits(args.digits)
    sigma, T, mu2 = _gaussian_mu2(args)
    if what == "epsilon":
        at = parse_delta(args.delta)
        iv, n = G.epsilon_interval(mu2, at, digits)
        if iv is None:
            print(f"epsilon of the Gaussian mechanism: inconclusive (no epsilon <= 1e6 is "
                  f"certified to meet delta = {frac_str(at)})")
            return EXIT_INCONCLUSIVE
    else:
        from verifier.api.profile import parse_epsilon
        at = parse_epsilon(args.epsilon, negative=True)
        iv, n = G.delta_interval(mu2, at, digits), 1
    ans = G.GaussianAnswer(what, mu2, at, iv, digits, n)
    if args.json:
        print_json({"sigma": frac_str(sigma), "compositions": T, **ans.to_json()})
        return EXIT_OK
    other = "delta" if what == "epsilon" else "epsilon"
    print(f"{what} of the Gaussian mechanism, sigma = {frac_str(sigma)}, T = {T} compositions "
          f"(mu^2 = T / sigma^2 = {frac_str(mu2)}), {other} = {frac_str(at)}, closed form")
    print(f"  {what} in [{decimal_str(iv.lower, digits + 3, 'down')}, "
          f"{decimal_str(iv.upper, digits + 3, 'up')}]")
    print(f"  both directions equal; {n} certified evaluations")
    return EXIT_OK


def _refinement_line(r):
    """Where a requested --rel-width was not reached: what stopped the refinement."""
    lim = r.info.get("refinement_limit")
    if lim:
        print(f"  the requested relative width was not reached: {lim}")


RUN_CONFLICTS = (("sigma", "--sigma"), ("steps", "--steps-per-epoch"), ("epochs", "--epochs"),
                 ("sample_rate", "--sample-rate"), ("total_steps", "--total-steps"),
                 ("poisson_total_steps", "--total-steps"), ("digits", "--digits"),
                 ("steps_per_record", "--steps-per-record"))


def run_args(args):
    """The run of --run FILE (a verifier.Run), or None; with --sigma or a sampler's flags
    too, one line naming the flag; without either, one line saying what to give."""
    path = getattr(args, "run", None)
    if path is None and getattr(args, "steps_per_record", None) is not None:
        return k_of_m_run(args)
    if path is None:
        if getattr(args, "sigma", None) is None:
            from verifier.core.arith import InputError
            raise InputError(f"verifier {args.command}: give --sigma S (and the sampler's "
                             "flags) or --run FILE")
        return None
    from verifier.core.arith import InputError
    from verifier.core.run_files import run_from_file
    for attr, flag in RUN_CONFLICTS:
        if getattr(args, attr, None) is not None:
            raise InputError(f"verifier {args.command}: --run FILE carries the run's "
                             f"parameters; drop {flag}")
    if getattr(args, "sampling", "random-allocation") != "random-allocation":
        raise InputError(f"verifier {args.command}: --run FILE names each phase's sampler; "
                         "drop --sampling")
    return run_from_file(path)


def k_of_m_run(args):
    """--steps-per-record K with --sigma, --steps-per-epoch M, --epochs E: the one-phase run
    of E epochs of K of M (None at K = 1: the one-of-M engine's own answer)."""
    from verifier.core.arith import InputError
    from verifier.core.run import Gaussian, Phase, RandomAllocation, Run, integer_arg
    if getattr(args, "sampling", "random-allocation") != "random-allocation":
        raise InputError(f"verifier {args.command}: --steps-per-record K is random "
                         "allocation's (each record in K of the M steps of an epoch); drop "
                         "--sampling poisson")
    k = integer_arg(args.steps_per_record, "--steps-per-record", 1)
    if getattr(args, "sigma", None) is None:
        raise InputError(f"verifier {args.command}: give --sigma S with --steps-per-record")
    if getattr(args, "digits", None) is not None:
        raise InputError(f"verifier {args.command}: --digits is the Gaussian mechanism's; "
                         "drop --steps-per-record")
    sigma, M, E = _inputs(args)
    return None if k == 1 else Run((Phase(Gaussian(sigma), RandomAllocation(M, k), M * E),))


def _run_answer(args, what: str) -> int:
    """verifier epsilon|delta --run FILE."""
    from verifier.api.profile import delta, epsilon
    run = run_args(args)
    if what == "epsilon":
        r = epsilon(run, delta=args.delta, rel_width=args.rel_width)
        head = f"epsilon(delta) of {run.describe()}; delta = {frac_str(r.delta)}"
    else:
        r = delta(run, epsilon=args.epsilon, rel_width=args.rel_width)
        head = f"delta(epsilon) of {run.describe()}; epsilon = {frac_str(r.epsilon)}"
    if args.json:
        print_json(r.to_json())
        return EXIT_OK if what == "delta" or r.bracketed else EXIT_INCONCLUSIVE
    print(head)
    iv = r.epsilon if what == "epsilon" else r.delta
    if iv is None:
        print("  inconclusive: no epsilon <= 60 is certified to meet delta")
        return EXIT_INCONCLUSIVE
    print(f"  {what:<9} in {iv.short(8)}   ({_width(iv)})")
    _print_directions(r, what)
    info = r.info
    if "closed_form" in info:
        print(f"  {info['closed_form']}, {info.get('digits', '')} digits, {r.seconds:.2f} s"
              if "digits" in info else f"  {info['closed_form']}, {r.seconds:.2f} s")
    elif "k_of_m" in info:
        print(f"  k of M: {info['k_of_m']}; {r.seconds:.2f} s; rigorous (docs/THEORY.md "
              "section 15, \"k of M\")")
    elif info.get("sampling") == "run":
        eta = info["eta"]
        shown = frac_str(eta) if eta.denominator & (eta.denominator - 1) == 0 else f"{float(eta):.6g}"
        print(f"  {info['phases']} kinds of step composed on one lattice, eta = "
              f"{shown}, at most {info['points']} points per step, "
              f"{r.seconds:.2f} s; rigorous (dominating pairs per phase, explicit tests, Arb "
              "balls; docs/THEORY.md section 15)")
    elif "h" in info:
        print(_engine_line(info, r.seconds))
    else:
        print(_poisson_engine_line(info, r.seconds))
    _unreached(args, iv, info)
    return EXIT_OK


def cmd_epsilon(args) -> int:
    from verifier.api.profile import epsilon
    if run_args(args) is not None:
        return _run_answer(args, "epsilon")
    if args.digits is not None:
        return _digits(args, "epsilon")
    if args.sampling == "poisson":
        return _epsilon_poisson(args)
    sigma, steps, epochs = _inputs(args)
    r = epsilon(sigma, steps, epochs, delta=args.delta, rel_width=args.rel_width)
    if args.json:
        print_json(r.to_json())
        return EXIT_OK if r.bracketed else EXIT_INCONCLUSIVE
    print(f"epsilon(delta) of random allocation, sigma = {frac_str(sigma)}, "
          f"{run_shape(steps, epochs)}, delta = {frac_str(r.delta)}")
    if not r.bracketed:
        print("  inconclusive: no epsilon <= 60 is certified to meet delta (epsilon may be larger "
              "than 60, the engine's range)")
        return EXIT_INCONCLUSIVE
    print(f"  epsilon   in {r.epsilon.short(8)}   ({_width(r.epsilon)})")
    for w in ("remove", "add"):
        iv = getattr(r, w)
        print(f"  {w:<9} in {iv.short(8)}")
    print(f"  larger direction: {r.larger}" + (" (certified)" if r.larger != "undecided" else ""))
    _refinement_line(r)
    print(_engine_line(r.info, r.seconds))
    return EXIT_OK


def cmd_delta(args) -> int:
    from verifier.api.profile import delta
    if run_args(args) is not None:
        return _run_answer(args, "delta")
    if args.digits is not None:
        return _digits(args, "delta")
    if args.sampling == "poisson":
        return _delta_poisson(args)
    sigma, steps, epochs = _inputs(args)
    r = delta(sigma, steps, epochs, epsilon=args.epsilon, rel_width=args.rel_width)
    if args.json:
        print_json(r.to_json())
        return EXIT_OK
    print(f"delta(epsilon) of random allocation, sigma = {frac_str(sigma)}, "
          f"{run_shape(steps, epochs)}, epsilon = {frac_str(r.epsilon)}")
    print(f"  delta     in {r.delta.short(8)}   ({_width(r.delta)})")
    for w in ("remove", "add"):
        print(f"  {w:<9} in {getattr(r, w).short(8)}")
    print(f"  larger direction: {r.larger}" + (" (certified)" if r.larger != "undecided" else ""))
    _refinement_line(r)
    print(_engine_line(r.info, r.seconds))
    return EXIT_OK


def cmd_compare_samplers(args) -> int:
    from verifier.api.profile import compare_samplers
    sigma, M, E = _inputs(args)
    c = compare_samplers(sigma, M, E, delta=args.delta, target_epsilon=args.target_epsilon)
    if args.json:
        print_json(c.to_json())
    else:
        print(f"random allocation vs Poisson subsampling, sigma = {frac_str(sigma)}, "
              f"{run_shape(M, E)}; Poisson at q = 1/M = {frac_str(c.poisson.sample_rate)}, "
              f"T = {M * E} steps; delta = {frac_str(c.delta)}")
        for name, r in (("random allocation", c.random_allocation), ("Poisson", c.poisson)):
            e = r.epsilon
            print(f"  {name:<18} epsilon in {e.short(8) if e is not None else 'inconclusive'}"
                  + (f"   ({_width(e)})" if e is not None else ""))
        line = c.verdict
        if c.difference is not None:
            line += f": Poisson's epsilon minus random allocation's in {c.difference.short(6)}"
        print(f"  {line}")
        for name, cal in (c.sigma_needed or {}).items():
            print(f"  noise for epsilon <= {frac_str(c.target_epsilon)}: "
                  f"{name.replace('_', ' '):<18} {cal.status:<12}"
                  + (f" sigma = {frac_str(cal.sigma)}" if cal.sigma is not None else "")
                  + (f"  ({cal.message})" if cal.message else ""))
    bracketed = c.random_allocation.epsilon is not None and c.poisson.epsilon is not None
    return EXIT_OK if bracketed else EXIT_INCONCLUSIVE
