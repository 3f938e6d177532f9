"""The accountant inside a real Opacus PrivacyEngine (issue #16; the `opacus` extra:
`pip install ".[opacus]"`).  Skipped when Opacus is not installed; .ci/run installs the
extra and runs this file and the example."""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction as F

import pytest

opacus = pytest.importorskip("opacus")
torch = pytest.importorskip("torch")

import verifier                                                     # noqa: E402
from verifier.accountants import RandomAllocationAccountant         # noqa: E402
from verifier.sampling import RandomAllocationBatchSampler          # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _train(M=8, epochs=2, sigma=1.5, n=256):
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0)
    X, y = torch.randn(n, 5), torch.randint(0, 2, (n,))
    ds = TensorDataset(X, y)
    loader = DataLoader(ds, batch_sampler=RandomAllocationBatchSampler(n, M, seed=1))
    model = torch.nn.Linear(5, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = opacus.PrivacyEngine()
    acc = RandomAllocationAccountant(steps_per_epoch=M)
    engine.accountant = acc
    model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                             noise_multiplier=sigma, max_grad_norm=1.0,
                                             poisson_sampling=False)
    calls = 0
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            before = len(acc)
            opt.step()
            assert len(acc) == before + 1                 # the hook: one step per step
            calls += 1
    return engine, acc, calls


def test_accountant_is_an_opacus_accountant():
    from opacus.accountants import IAccountant
    assert isinstance(RandomAllocationAccountant(steps_per_epoch=4), IAccountant)


def test_privacy_engine_calls_the_accountant_once_per_step():
    engine, acc, calls = _train()
    assert engine.accountant is acc and len(acc) == calls == 16
    assert acc.history == [(1.5, 1 / 8, 16)]
    r = verifier.epsilon(F(3, 2), 8, 2, "1e-5")
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.epsilon.upper and e - float(r.epsilon.upper) < 1e-12
    assert engine.get_epsilon(1e-5) == e              # Opacus's own entry point


def test_example_runs_and_prints_a_certified_epsilon():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "opacus_random_allocation.py"),
                        "--epochs", "2"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "verifier (random allocation, certified):  epsilon in [" in r.stdout
    assert "Opacus RDP (Poisson" in r.stdout and "Opacus PRV (Poisson" in r.stdout
