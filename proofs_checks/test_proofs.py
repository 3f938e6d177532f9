"""pytest runs every proof check: each must be proved (or be a labelled demonstration)."""
import pytest

from proofs_checks import all_checks
from proofs_checks.framework import CITED, DEMONSTRATION, PROVED, run_check

# the checks whose chains rest on a cited textbook lemma (verdict "cited", not "proved")
CITED_CHECKS = {"chisquare.tv-bound": "Cauchy-Schwarz", "chisquare.attack-accuracy": "Cauchy-Schwarz",
                "lognormal.coef-lyapunov-lower-bound": "Lyapunov",
                "profile.jensen-over-pairs": "Jensen", "profile.binomial-tail": "Boole",
                "renyi.add-moment": "arithmetic-geometric", "renyi.log-convexity": "Lyapunov",
                "renyi.profile-moment": "Tonelli", "renyi.zcdp-remove": "Jensen",
                "tradeoff.primal-dual": "Dong, Roth & Su",
                "profile.add-moment-bound": "arithmetic and geometric means",
                "views.profile-convex-in-c": "Boyd & Vandenberghe",
                "profile.first-cell-split": "binomial theorem",
                "chisquare.product-rule": "Billingsley",
                "renyi.moment-sum": "multinomial theorem",
                "poisson.connect-the-dots": "Connect the dots",
                "laplace.power-integrals": "Tonelli",
                "runs.union-charge": "Zhu, Dong & Wang",
                "runs.gaussian-composition": "Billingsley",
                "compose.upper-ends": "Concrete Mathematics",
                "compose.lower-ends": "Dwork & Roth"}

CHECKS = all_checks()


@pytest.mark.parametrize("cid", sorted(CHECKS))
def test_check(cid):
    c = CHECKS[cid]
    outcome, _ = run_check(c)
    if cid.startswith("edgeworth.demo"):
        assert outcome.verdict == DEMONSTRATION
    elif cid in CITED_CHECKS:
        assert outcome.verdict == CITED, outcome.evidence
        assert CITED_CHECKS[cid] in outcome.evidence
    else:
        assert outcome.verdict == PROVED, outcome.evidence


def test_required_checks_exist():
    required = [
        "lognormal.mean-one", "lognormal.raw-moments", "lognormal.central-moments",
        "lognormal.partial-moment", "lognormal.rho3-closed-form", "lognormal.simplification-22",
        "lognormal.coef-S-asymptotic", "lognormal.coef-X-asymptotic", "lognormal.coef-X-le-coef-S",
        "taylor.phi2-sup", "taylor.phi3-form", "taylor.phi5-max-at-0", "taylor.E4-bracket",
        "taylor.E4-kappa-term", "tail.t-at-worst-sigma", "tail.exponent-25-24",
        "tail.exact-constants", "tail.printed-constants-safe", "tail.T6-bounds-tail",
        "tail.t-increasing-in-sigma", "tail.denominator-positive",
        *[f"monotonicity.T{i}-decreases-in-M" for i in range(1, 7)],
        "monotonicity.hypotheses-persist-in-M", "interpretation.condition-2-forces-sigma",
        "interpretation.closed-form-4", "edgeworth.p_n", "edgeworth.demo-n2",
        "chisquare.second-moment", "chisquare.product-rule", "chisquare.tv-bound",
    ]
    assert not [r for r in required if r not in CHECKS]
    for c in CHECKS.values():  # every entry is fully described
        assert c.statement and c.symbols and c.variables and c.method and c.source


def test_bindings_resolve():
    """Every engine object a check says it binds exists (a renamed or removed object fails
    here, not silently in the check)."""
    from proofs_checks.framework import bound
    names = [n for c in CHECKS.values() for n in c.binds]
    assert len(names) >= 10
    for n in names:
        bound(n)


def test_every_cited_check_exists():
    """The package names the checks its certified statements rest on ("proof check <id>",
    "proof checks <id>, <id>", and check ids in strings); each must exist."""
    import os
    import re
    groups = sorted({c.split(".")[0] for c in CHECKS})
    # a check id: a known group, a dot, then a name with a hyphen (attribute paths such as
    # views.grid have none); f-string pieces such as monotonicity.T{i}-... are skipped
    pat = re.compile(r"\b((?:" + "|".join(groups) + r")\.[A-Za-z0-9_]*-[A-Za-z0-9_-]*[A-Za-z0-9])")
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "verifier")
    missing = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith((".py", ".toml")):
                path = os.path.join(d, f)
                for i, line in enumerate(open(path, encoding="utf-8"), 1):
                    for m in pat.finditer(line):
                        if m.group(1) not in CHECKS and "{" not in line[m.end():m.end() + 1]:
                            missing.append(f"{os.path.relpath(path, root)}:{i}: {m.group(1)}")
    assert not missing, missing


def test_no_step_is_a_constant_proved_outcome():
    """A step of a chain is proved by a computation, never written as a constant: an
    ``Outcome(PROVED, ...)`` directly inside a step tuple ("name", Outcome(...)) is refused
    (conditional ones, ``Outcome(PROVED, ...) if ok else ...``, are computed verdicts)."""
    import ast
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    bad = []
    for f in sorted(os.listdir(here)):
        if not f.endswith(".py") or f in ("framework.py", "test_proofs.py"):
            continue
        tree = ast.parse(open(os.path.join(here, f), encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant) \
                    and isinstance(node.elts[0].value, str):         # a step: ("name", outcome)
                for elt in node.elts[1:]:
                    if (isinstance(elt, ast.Call) and getattr(elt.func, "id", "") == "Outcome"
                            and elt.args and getattr(elt.args[0], "id", "") == "PROVED"):
                        bad.append(f"{f}:{elt.lineno}")
    assert not bad, bad


def test_generated_evaluators_are_bound():
    """Every SymPy expression a certified evaluator is generated from
    (verifier/symbolic/codegen.py) is read and verified by some check; the two labelled
    comparisons (mu_P, mu_U: asymptotic, never certified) are the exceptions."""
    from proofs_checks.framework import engine_refs
    bound_all = {b for c in CHECKS.values() for b in engine_refs(c)}
    generated = ["lognormal:s2", "lognormal:rho3", "lognormal:coef_simplified",
                 "lognormal:coef_rho3", "terms:terms", "terms:hypotheses",
                 "terms:closed_form_steps", "comparisons:chi_square_tv",
                 "comparisons:chi_square_sigma_inverse", "comparisons:chi_square_steps_inverse",
                 "comparisons:gaussian_tv"]
    missing = [g for g in generated if f"verifier.symbolic.{g}" not in bound_all]
    assert not missing, missing
