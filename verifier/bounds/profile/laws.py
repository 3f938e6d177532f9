"""One epoch of the random-allocation pair as three discrete laws, each a rigorous bound:
the remove and add upper laws of x = log W on a grid with their charges, and the test
statistic's laws under P0 and P1 (docs/THEORY.md section 9: the definitions, steps (a)-(e)
of the upper ends, the first cell, the tests, and the free parameters).  The stages, each a
function from plain inputs to a small result:

    plan.plan            the free parameters (lattice step, T1, cells, kmax, budget)
    body.body_laws       the spread body items, labels, windows and ball DFT powers
    upper.log_grid       the grid of log W and the K = 0 sum on a coarse lattice
    upper.coarse_body    the body sums of the K >= 1 parts on coarse lattices
    upper.remove_law     the remove law and its charge (under P0)
    upper.add_law        the add law and its charge (under nu = W P0; the first-cell split)
    statistic.*          the tests' outcomes and the statistic's laws

Floats only choose free parameters; every reported number is an Arb ball, the DFTs included.
"""
from __future__ import annotations

from fractions import Fraction

from flint import ctx

from verifier.core.arith import InputError
from verifier.numerics.compose import StepLaws
from verifier.bounds.profile.body import body_laws
from verifier.bounds.profile.plan import Plan, band_boosts, grid_refinement, plan
from verifier.bounds.profile.statistic import alias_masses, statistic_laws, test_blocks
from verifier.bounds.profile.upper import add_law, coarse_body, log_grid, remove_law

__all__ = ["epoch_laws", "assemble", "plan", "Plan"]

DROP_SHARE = 0.1    # refined levels: the tests leave out outcomes worth at most this share of
                    # the per-epoch budget (statistic_laws: sigma 0.5, M 1000, E 10, level 4,
                    # the whole budget lowered the remove bracket's lower end 8e-7 relative)


def epoch_laws(sigma: Fraction, M: int, E: int, floor: float, prec: int,
               fine: int = 1) -> StepLaws:
    """The per-epoch laws of (sigma, M), their charges kept below about 1e-4 floor / E, at
    refinement level ``fine`` (plan.plan)."""
    *finer, own = band_boosts(sigma, M, fine)
    for boost in finer:
        try:
            return planned_laws(sigma, M, E, floor, prec, fine, boost)
        except InputError:
            # the band path's finer lattice (plan.lattice_refinement) past the engine's
            # limits: the next coarser one, at last the level's own (which refuses as it did)
            continue
    return planned_laws(sigma, M, E, floor, prec, fine, own)


def planned_laws(sigma: Fraction, M: int, E: int, floor: float, prec: int, fine: int,
                 boost: int) -> StepLaws:
    """The per-epoch laws planned at refinement level ``fine`` with lattice ``boost``."""
    P = plan(sigma, M, E, floor, fine, boost)
    with ctx.workprec(prec):
        return assemble(sigma, M, P, prec)


def assemble(sigma: Fraction, M: int, P: Plan, prec: int) -> StepLaws:
    B = body_laws(sigma, M, P, prec)
    G = log_grid(B, P, M)
    CB = coarse_body(B, P, M)
    rem, charge_R = remove_law(B, G, CB, P, M)
    add, charge_A, first_cell = add_law(sigma, B, G, CB, P, M)
    test0, test1, eta_l = statistic_laws(test_blocks(B, P, M, CB.sd_b, first_cell),
                                         grid_refinement(P.fine, P.band),
                                         DROP_SHARE * P.budget if P.fine > 1 else 0.0)
    alias0, alias1 = alias_masses(B, M)
    info = {"h": P.h, "J1": P.J1, "N": B.win.N, "tail_cells": len(P.tail), "kmax": P.kmax,
            "cells": len(P.bounds) + len(P.tail)}
    if P.fine > 1:
        info["refinement"] = P.fine
    return StepLaws(G.eta, rem, add, charge_R, charge_A, eta_l, test0, test1, alias0, alias1, info)
