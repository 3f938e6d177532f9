"""The numerical kernel shared by every engine (docs/ARCHITECTURE.md "The numerical kernel"):

- lattice.py: lattice laws on DFT windows, Chernoff bounds of what lies outside, packed
  ball-arithmetic DFTs and their powers, suffix and prefix sums;
- compose.py: the T-fold composition of one step's four lattice laws (remove, add, the test
  statistic under P0 and P1) and the privacy profile bracketed from them;
- brackets.py: delta(eps) brackets of both directions and epsilon(delta) by certified
  bisection, for any composed profile;
- dominating.py: a step's pair as a dominating lattice pair from its privacy profile at grid
  points ("connect the dots"), and the dominated test laws.

Floats only choose free parameters (windows, theta); every number is an Arb ball."""
