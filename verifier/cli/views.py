"""verifier rdp and verifier tradeoff: the Rényi and trade-off views of the random-allocation
pair, certified (docs/THEORY.md section 10)."""
from __future__ import annotations

from fractions import Fraction

from verifier.core.arith import decimal_str, frac_str
from verifier.cli.common import EXIT_OK, print_json, run_shape


def _orders(args):
    """The orders asked for; without --delta (no conversion) and none asked, the default
    orders only (the float accountants' lists serve the conversions: views.renyi)."""
    if args.orders is None and args.alpha_max is None and args.delta is None:
        from verifier.views.renyi import DEFAULT_ORDERS
        return list(DEFAULT_ORDERS)
    return args.orders


def shown(args, orders) -> list:
    """The rows printed: every order asked for (--orders, --alpha-max); by default the
    default orders, with a line saying how many more the conversions searched (the float
    accountants' lists: views.renyi.CONVERSION_ORDERS; all of them in --json)."""
    from verifier.views.renyi import DEFAULT_ORDERS
    if args.orders is not None or args.alpha_max is not None:
        return list(orders)
    return [o for o in orders if o.alpha in DEFAULT_ORDERS]


def hidden_line(n: int) -> None:
    """One line for the ``n`` orders computed but not printed."""
    if n:
        print(f"  ... and {n} more orders, every one searched by the conversions (Opacus's and "
              "dp_accounting's default lists included; --json lists all)")

def _renyi_answer(args, c, exact_of, head: str, cols: tuple, rho_note: str) -> int:
    """Print (or --json) a Rényi curve of Poisson steps or of a run: the orders' brackets, the
    zCDP parameter, and with --delta the conversions beside the exact epsilon (exact_of(delta))."""
    delta = exact = None
    if args.delta is not None:
        from verifier.core.arith import parse_delta
        delta = parse_delta(args.delta)
        exact = exact_of(delta)
    if args.json:
        out = c.to_json(delta)
        if exact is not None:
            out["conversions"]["exact"] = (None if exact.epsilon is None
                                           else exact.epsilon.to_json())
        print_json(out)
        return EXIT_OK
    print(head)
    print(f"  {'alpha':>10}  {cols[0]:<34} {cols[1]:<34}")
    rows = shown(args, c.orders)
    for o in rows:
        print(f"  {frac_str(o.alpha):>10}  {o.remove.short(8):<34} {o.add.short(8):<34}")
    hidden_line(len(c.orders) - len(rows))
    print(f"  zCDP rho (remove) = {c.zcdp_remove.short(10)}{rho_note}")
    if delta is not None:
        print(f"  (epsilon, delta = {frac_str(delta)}), each an upper bound of epsilon(delta):")
        for name, cv in (("Rényi, classical", c.to_epsilon(delta, improved=False)),
                         ("Rényi, improved", c.to_epsilon(delta))):
            print(f"    {name:<17} epsilon <= {decimal_str(cv.epsilon.upper, 8, 'up')}"
                  f"   (order {decimal_str(Fraction(cv.alpha), 6)})")
        if exact.epsilon is not None:
            print(f"    exact profile     epsilon in {exact.epsilon.short(8)}")
    print(f"  {c.seconds:.2f} s")
    return EXIT_OK


def _rdp_poisson(args) -> int:
    from verifier.api.profile import poisson_epsilon
    from verifier.api.views import poisson_rdp
    from verifier.cli.profile import poisson_inputs
    sigma, q, T = poisson_inputs(args)
    c = poisson_rdp(sigma, q, T, orders=_orders(args), alpha_max=args.alpha_max)
    return _renyi_answer(
        args, c, lambda d: poisson_epsilon(sigma, q, T, delta=d),
        f"Rényi divergences of Poisson subsampling, sigma = {frac_str(sigma)}, sample rate "
        f"q = {frac_str(q)}, T = {T} steps in all (certified brackets)",
        ("remove D(P||Q)", "add D(Q||P)"),
        " (= T/(2 sigma^2): no amplification by subsampling survives)")


def _digits(rel_width) -> tuple:
    """(significant digits, column width) of the brackets: 8, or enough to show a requested
    relative width (three digits past it)."""
    if rel_width is None:
        return 8, 34
    import math
    from verifier.numerics.brackets import check_rel_width
    dg = max(8, math.ceil(-math.log10(float(check_rel_width(rel_width)))) + 3)
    return dg, 2 * dg + 10


def _rdp_run(args, run) -> int:
    """verifier rdp --run FILE: the run's Rényi curve (the phases' brackets summed)."""
    from verifier.api.profile import epsilon
    from verifier.api.views import parse_orders
    from verifier.views.run_renyi import run_renyi
    if args.rel_width is not None:
        from verifier.core.arith import InputError
        raise InputError("--rel-width of verifier rdp is for one random-allocation phase")
    c = run_renyi(run, parse_orders(_orders(args), args.alpha_max))
    return _renyi_answer(args, c, lambda d: epsilon(run, delta=d),
                         f"Rényi divergences of {run.describe()} (certified brackets, the "
                         "phases' summed)", ("remove", "add"), "")


def cmd_rdp(args) -> int:
    from verifier.api.views import rdp
    from verifier.cli.profile import run_args
    run = run_args(args)
    if run is not None:
        return _rdp_run(args, run)
    if getattr(args, "sampling", "random-allocation") == "poisson":
        if getattr(args, "rel_width", None) is not None:
            from verifier.core.arith import InputError
            raise InputError("--rel-width of verifier rdp is for random allocation (Poisson's "
                             "Rényi curve has its own accuracy)")
        return _rdp_poisson(args)
    if getattr(args, "sample_rate", None) is not None:
        from verifier.core.arith import InputError
        raise InputError("--sample-rate is for --sampling poisson")
    c = rdp(args.sigma, args.steps, args.epochs, orders=args.orders, alpha_max=args.alpha_max,
            delta=args.delta, rel_width=args.rel_width)
    delta = None
    exact = None
    if args.delta is not None:
        from verifier.core.arith import parse_delta
        from verifier.bounds.profile import epsilon_bracket
        delta = parse_delta(args.delta)
        exact = epsilon_bracket(c.sigma, c.steps, c.epochs, delta)
    if args.json:
        out = c.to_json(delta)
        if exact is not None:
            ex = exact.epsilon
            out["conversions"]["exact"] = None if ex is None else ex.to_json()
            if ex is not None:         # what each conversion loses: its epsilon - the exact one
                from verifier.views.summary import conversion_loss
                for k, cv in (("renyi_classical", c.to_epsilon(delta, improved=False)),
                              ("renyi_improved", c.to_epsilon(delta)),
                              ("zcdp_classical", c.zcdp_epsilon(delta, improved=False)),
                              ("zcdp_improved", c.zcdp_epsilon(delta))):
                    out["conversions"][k]["loss"] = conversion_loss(cv.epsilon, ex).to_json()
        print_json(out)
        return EXIT_OK
    print(f"Rényi divergences of random allocation, sigma = {frac_str(c.sigma)}, "
          f"{run_shape(c.steps, c.epochs)} (certified brackets)")
    dg, wd = _digits(args.rel_width)
    print(f"  {'alpha':>10}  {'remove D(P1||P0)':<{wd}} {'add D(P0||P1)':<{wd}}")
    rows = shown(args, c.orders)
    for o in rows:
        print(f"  {frac_str(o.alpha):>10}  {o.remove.short(dg):<{wd}} {o.add.short(dg):<{wd}}")
    hidden_line(len(c.orders) - len(rows))
    print(f"  zCDP rho: remove = {c.zcdp_remove.short(10)} (= E/(2 sigma^2): no amplification "
          f"survives), add in {c.zcdp_add.short(8)}")
    if delta is not None:
        print(f"  (epsilon, delta = {frac_str(delta)}), each an upper bound of epsilon(delta):")
        rows = [("Rényi, classical", c.to_epsilon(delta, improved=False)),
                ("Rényi, improved", c.to_epsilon(delta)),
                ("zCDP, classical", c.zcdp_epsilon(delta, improved=False)),
                ("zCDP, improved", c.zcdp_epsilon(delta))]
        ex = exact.epsilon if exact is not None else None
        for name, cv in rows:
            loss = (f", {decimal_str(cv.epsilon.upper - ex.lower, 4, 'up')} above the exact"
                    if ex is not None else "")
            print(f"    {name:<17} epsilon <= {decimal_str(cv.epsilon.upper, 8, 'up')}"
                  f"   (order {decimal_str(Fraction(cv.alpha), 6)}{loss})")
        if ex is not None:
            print(f"    exact profile     epsilon in {ex.short(8)}")
    _engine_lines(c.info, ", orders up to min(256, 160 sigma^2) also by the Laplace transform"
                  if "laplace_rel_width" in c.info else "")
    return EXIT_OK


def _engine_lines(info: dict, extra: str = "") -> None:
    """The grid, its refinement level, the time, and what stopped a requested width short."""
    level = info.get("refinement")
    print(f"  {info['grid_points']} profile grid points"
          + (f" (refinement level {level})" if level else "") + extra
          + f", {info['seconds']:.2f} s")
    if "refinement_limit" in info:
        print(f"  the requested width was not reached: {info['refinement_limit']}")


def cmd_tradeoff(args) -> int:
    from verifier.api.views import tradeoff
    from verifier.cli.profile import run_args
    run = run_args(args)
    if run is not None and args.rel_width is not None:
        from verifier.core.arith import InputError
        raise InputError("--rel-width of verifier tradeoff is for one random-allocation phase")
    c = tradeoff(run if run is not None else args.sigma,
                 *(() if run is not None else (args.steps, args.epochs)),
                 points=args.points if args.points is not None else 21, at=args.at,
                 **({} if run is not None else {"rel_width": args.rel_width}))
    if args.json:
        print_json(c.to_json())
        return EXIT_OK
    print(f"Trade-off curves of {run.describe()} (certified bands)" if run is not None else
          f"Trade-off curves of random allocation, sigma = {frac_str(c.sigma)}, "
          f"{run_shape(c.steps, c.epochs)} (certified bands)")
    dg, wd = _digits(args.rel_width)
    wd = 30 if args.rel_width is None else wd
    print(f"  {'a':>10}  {'f = T(P0^E, P1^E)(a)':<{wd}} {'reversed T(P1^E, P0^E)(a)':<{wd}}")
    for p in c.points:
        print(f"  {frac_str(p.a):>10}  {p.f.short(dg):<{wd}} {p.reverse.short(dg):<{wd}}")
    print(f"  distance to the diagonal max_a (1 - a - f(a)) in {c.closest.short(dg)}; "
          f"exact TV in {c.tv.short(dg)}")
    _engine_lines(c.info)
    return EXIT_OK
