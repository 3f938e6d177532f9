"""Proof-consistency checks for arXiv 2605.06259 (issue: CI proof consistency).

``proofs_checks.all_checks()`` imports every group module and returns the
registry; ``verifier check-proofs`` runs them and writes reports/proofs.*.
"""
GROUPS = ("lognormal", "taylor", "tail", "monotonicity", "interpretation", "edgeworth",
          "chisquare", "profile", "views", "poisson", "laplace", "runs", "compose")


def all_checks():
    import importlib

    from .framework import REGISTRY

    for g in GROUPS:
        importlib.import_module(f"{__name__}.{g}")
    return REGISTRY
