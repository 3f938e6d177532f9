"""The exact total variation of the random-allocation pair, bracketed rigorously (the
registry's Bracket ``EXACT_TV``): bracket.py (front), one_epoch.py, epochs.py, lattice.py."""
from verifier.bounds.base import Bracket
from verifier.bounds.exact_tv.bracket import exact_tv

EXACT_TV = Bracket(
    name="exact-tv", title="exact TV (bracket)",
    source="the exact total variation E_P0[(prod_e Ybar_e - 1)_+] of the random-allocation pair "
           "(docs/THEORY.md section 1), a rigorous two-sided bracket (verifier.bounds.exact_tv)",
    monotonicity="decreases in sigma: the pair at a larger sigma is a post-processing of the "
                 "pair at a smaller one (rescale and add independent Gaussian noise)",
    bracket=exact_tv, aliases=("exact",))
