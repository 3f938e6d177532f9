"""The registry of bounds (verifier.bounds.base.Bound): certify, calibrate, compare,
figures and claims iterate it.  Adding a bound is one module and one line here."""
from verifier.bounds.chisquare import CHI_SQUARE
from verifier.bounds.exact_tv import EXACT_TV
from verifier.bounds.theorem31 import THEOREM31_EXACT, THEOREM31_SIMPLIFIED

REGISTRY = {b.name: b for b in (THEOREM31_SIMPLIFIED, THEOREM31_EXACT, CHI_SQUARE)}
BRACKETS = {b.name: b for b in (EXACT_TV,)}
