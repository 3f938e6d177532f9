"""DP-SGD with random allocation in Opacus, certified by the verifier.

    pip install ".[opacus]"
    python examples/opacus_random_allocation.py

A small classifier on generated data (10 Gaussian classes in 64 dimensions, 2,000 records)
trained through Opacus's own entry points: ``PrivacyEngine(accountant="random_allocation")``
and ``make_private(..., poisson_sampling=False)`` on the verifier's random-allocation data
loader.  At the end it prints the certified epsilon bracket beside Opacus's Poisson-based RDP
and PRV figures (which assume a sampler this run did not use), then shows what the
accountant does with the samplers it cannot certify: Opacus's default Poisson sampler and a
plain shuffled DataLoader are refused in one line, not given a number.  Last, the same model
trained with Opacus's default Poisson sampler and ``accountant="certified_poisson"``: that run
gets its own certified epsilon.  Runs in well under a minute on 2 CPU cores.
"""
from __future__ import annotations

import argparse
import warnings


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps-per-epoch", type=int, default=20)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--sigma", type=float, default=1.0)
    p.add_argument("--delta", type=float, default=1e-5)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)

    import numpy as np
    import torch
    from opacus import PrivacyEngine
    from opacus.accountants import PRVAccountant, RDPAccountant
    from torch.utils.data import DataLoader, TensorDataset

    from verifier.accountants import UncertifiedSampler
    from verifier.training import random_allocation_loader   # registers the accountant

    warnings.filterwarnings("ignore")
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    n, d, k = 2000, 64, 10
    centres = rng.normal(0, 1, (k, d))
    y = rng.integers(0, k, n)
    X = centres[y] + rng.normal(0, 1.5, (n, d))
    ds = TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y))
    M = a.steps_per_epoch

    def private(loader, poisson_sampling, accountant="random_allocation"):
        model = torch.nn.Sequential(torch.nn.Linear(d, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, k))
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        engine = PrivacyEngine(accountant=accountant)
        model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                                 noise_multiplier=a.sigma, max_grad_norm=1.0,
                                                 poisson_sampling=poisson_sampling)
        return engine, model, opt, loader

    loss_fn = torch.nn.CrossEntropyLoss(reduction="sum")

    def train(model, opt, loader):
        for epoch in range(a.epochs):
            for xb, yb in loader:
                # every batch takes its noisy step, an empty one too: DP-SGD's guarantee
                # assumes one noisy update per sampled batch (skipping an empty batch would
                # make the number of updates depend on the data); the summed loss of an
                # empty batch is 0, its clipped gradient sum 0, and the step adds the noise
                opt.zero_grad()
                loss = loss_fn(model(xb), yb) / max(len(xb), 1)
                loss.backward()
                opt.step()
            with torch.no_grad():
                acc = (model(ds.tensors[0]).argmax(1) == ds.tensors[1]).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.3f}, accuracy {acc:.3f}")

    engine, model, opt, loader = private(random_allocation_loader(ds, M, seed=a.seed), False)
    train(model, opt, loader)

    steps = len(engine.accountant)
    br = engine.accountant.get_epsilon_bracket(a.delta)
    q = 1 / M
    rdp, prv = RDPAccountant(), PRVAccountant()
    rdp.history = [(a.sigma, q, steps)]
    prv.history = [(a.sigma, q, steps)]
    print(f"\nsigma = {a.sigma}, M = {M} steps per epoch, E = {a.epochs} epochs, T = M E = "
          f"{steps} steps in all, delta = {a.delta}")
    print(f"  verifier (random allocation, certified):  epsilon in {br.epsilon.short(6)}")
    print(f"  engine.get_epsilon({a.delta}) = {engine.get_epsilon(a.delta)} (the upper end)")
    print(f"  Opacus RDP (Poisson sampling at q = 1/M):  epsilon = {rdp.get_epsilon(a.delta):.6f}")
    print(f"  Opacus PRV (Poisson sampling at q = 1/M):  epsilon = {prv.get_epsilon(a.delta):.6f}")
    print("  The verifier's bracket is a proof for the batches this run used (each record in "
          "exactly one step per epoch); Opacus's figures assume Poisson sampling at rate 1/M, "
          "which this run did not do (floats, not certified).")

    print("\nThe samplers the verifier cannot certify get a one-line refusal, not a number:")
    for what, loader, poisson in (
            ("Opacus's default (poisson_sampling=True)", random_allocation_loader(ds, M), True),
            ("DataLoader(batch_size=100, shuffle=True)",
             DataLoader(ds, batch_size=n // M, shuffle=True), False)):
        try:
            private(loader, poisson)
            print(f"  {what}: NOT refused (a bug)")
            return 1
        except UncertifiedSampler as e:
            print(f"  {what}: refused: {e}")

    print("\nOpacus's default Poisson sampler with accountant=\"certified_poisson\":")
    import verifier.poisson_accountant  # noqa: F401 (registers accountant="certified_poisson")
    engine, model, opt, loader = private(DataLoader(ds, batch_size=n // M), True,
                                         "certified_poisson")
    train(model, opt, loader)
    steps = len(engine.accountant)
    pb = engine.accountant.get_epsilon_bracket(a.delta)
    rdp, prv = RDPAccountant(), PRVAccountant()
    rdp.history = [(a.sigma, q, steps)]
    prv.history = [(a.sigma, q, steps)]
    print(f"  verifier (Poisson at q = {q:g}, {steps} steps, certified): epsilon in "
          f"{pb.epsilon.short(6)}")
    print(f"  Opacus RDP: {rdp.get_epsilon(a.delta):.6f} (an upper bound, floats); Opacus PRV: "
          f"{prv.get_epsilon(a.delta):.6f} (an estimate, floats)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
