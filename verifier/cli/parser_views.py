"""verifier rdp and verifier tradeoff: their arguments (the views of the pair or of a run)."""
from __future__ import annotations

from verifier.cli.flags import pair_args, sampling_args


def add_rdp(sub):
    """verifier rdp."""
    from verifier.bounds.profile import RANGE_HELP
    from verifier.views.renyi import MAX_ORDER
    r = sub.add_parser(
        "rdp", help="certified Rényi curve of both directions, zCDP, and conversions to (eps, delta)",
        description="Rigorous brackets of D_a(P1^E || P0^E) (remove) and D_a(P0^E || P1^E) (add) "
                    "at each order a > 1 (integer orders of the remove direction exact; real "
                    "orders and the add direction through the certified privacy profile), the "
                    "zCDP parameter rho of each direction (a proof over all orders), and with "
                    "--delta the (epsilon, delta) they imply beside the exact epsilon(delta).",
        epilog=f"Exit status: 0 ok; 2 bad input. Orders in (1, {MAX_ORDER}]. {RANGE_HELP}.")
    pair_args(r, run=True)
    sampling_args(r)
    og = r.add_mutually_exclusive_group()
    og.add_argument("--orders", metavar="A1,A2,...", help="orders (exact decimals > 1)")
    og.add_argument("--alpha-max", dest="alpha_max", metavar="K", help="the integer orders 2..K")
    r.add_argument("--delta", metavar="D", help="also convert to (epsilon, D): Rényi (classical "
                                               "and improved), zCDP, and the exact epsilon(D)")
    r.add_argument("--rel-width", dest="rel_width", metavar="W",
                   help="every order's brackets at most W wide relative, W >= 1e-9 (random "
                        "allocation; default about 0.1%%): orders up to min(256, 160 sigma^2) "
                        "by the Laplace transform of one lognormal (1e-8 in 1-5 s), the "
                        "others by refining the profile grid; or say what stopped it")
    r.add_argument("--json", action="store_true", help="print one JSON object")


def add_tradeoff(sub):
    """verifier tradeoff."""
    from verifier.bounds.profile import RANGE_HELP
    t = sub.add_parser(
        "tradeoff", help="certified trade-off curves T(P0^E, P1^E) and the reversed pair",
        description="Rigorous band of the trade-off function f(a) = T(P0^E, P1^E)(a) and of "
                    "T(P1^E, P0^E)(a) on a grid of type I errors a, from both directions of "
                    "the certified privacy profile (Dong, Roth & Su, Proposition 2.12); its "
                    "distance to the diagonal is the exact TV.",
        epilog=f"Exit status: 0 ok; 2 bad input. {RANGE_HELP}.")
    pair_args(t, run=True)
    tg = t.add_mutually_exclusive_group()
    tg.add_argument("--points", default=None, metavar="N", help="N equally spaced a in [0, 1] "
                                                                "(default 21)")
    tg.add_argument("--at", metavar="A1,A2,...", help="the type I errors a (exact decimals)")
    t.add_argument("--rel-width", dest="rel_width", metavar="W",
                   help="refine the profile grid and its engine until every band is at most W "
                        "wide relative to its upper end (W >= 1e-9), or say what stopped it")
    t.add_argument("--json", action="store_true", help="print one JSON object")
