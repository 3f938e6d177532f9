"""SymPy derivations (imported only by codegen, proof checks and tests)."""
