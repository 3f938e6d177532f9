"""Training through Opacus's own entry points (the `opacus` extra: `pip install ".[opacus]"`):
``PrivacyEngine(accountant="random_allocation")``, ``make_private``,
``make_private_with_epsilon``; the certified epsilon is about the sampler that ran, and every
other sampler gets a one-line refusal, not a number.  Skipped when Opacus is not installed;
.ci/run installs the extra and runs this file and the example."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from fractions import Fraction as F

import pytest

opacus = pytest.importorskip("opacus")
torch = pytest.importorskip("torch")

import verifier                                                     # noqa: E402
from verifier.accountants import RandomAllocationAccountant, UncertifiedSampler  # noqa: E402
from verifier.training import EmptyBatchCollate, random_allocation_loader  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore", module="opacus")


def _data(n=400, d=5):
    from torch.utils.data import TensorDataset
    torch.manual_seed(0)
    return TensorDataset(torch.randn(n, d), torch.randint(0, 2, (n,)))


def _train(loader, *, epochs=1, accountant="random_allocation", poisson_sampling=False,
           noise_multiplier=1.1, target_epsilon=None, engine=None):
    """A logistic regression trained as an ML engineer would; returns (engine, optimizer,
    steps, empty batches)."""
    model = torch.nn.Linear(5, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = engine or opacus.PrivacyEngine(accountant=accountant)
    common = dict(module=model, optimizer=opt, data_loader=loader, max_grad_norm=1.0,
                  poisson_sampling=poisson_sampling)
    if target_epsilon is None:
        model, opt, loader = engine.make_private(noise_multiplier=noise_multiplier, **common)
    else:
        model, opt, loader = engine.make_private_with_epsilon(
            target_epsilon=target_epsilon, target_delta=1e-5, epochs=epochs, **common)
    steps = empty = 0
    for _ in range(epochs):
        for xb, yb in loader:
            empty += len(xb) == 0
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
            steps += 1
    return engine, opt, steps, empty


def _cli_epsilon(sigma, M, E, delta="1e-5"):
    r = subprocess.run([sys.executable, "-m", "verifier", "epsilon", "--sigma", sigma,
                        "--steps-per-epoch", str(M), "--epochs", str(E), "--delta", delta,
                        "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["epsilon"]


def test_accountant_is_registered_and_an_opacus_accountant():
    from opacus.accountants import IAccountant, create_accountant
    assert isinstance(create_accountant("random_allocation"), RandomAllocationAccountant)
    assert isinstance(RandomAllocationAccountant(steps_per_epoch=4), IAccountant)


def test_make_private_certifies_the_random_allocation_run_as_the_cli_does():
    engine, opt, steps, _ = _train(random_allocation_loader(_data(), 20, seed=1), epochs=2)
    acc = engine.accountant
    assert isinstance(acc, RandomAllocationAccountant) and len(acc) == steps == 40
    assert acc.sampler is not None and acc.epochs() == 2
    e = engine.get_epsilon(1e-5)                      # Opacus's own entry point
    cli = _cli_epsilon("1.1", 20, 2)
    up = F(cli["upper"])       # the exact upper end rounded up to 17 digits; e: up to a float
    assert up * (1 - F(1, 10 ** 16)) <= F(e) <= up * (1 + F(1, 2 ** 52))
    br = acc.get_epsilon_bracket(1e-5).epsilon
    # the CLI prints the same ends as decimals rounded outward (16 digits)
    assert F(cli["lower"]) <= br.lower <= br.upper <= F(cli["upper"])
    assert br.lower - F(cli["lower"]) < F(1, 10 ** 15) and F(cli["upper"]) - br.upper < F(1, 10 ** 15)


def test_opacus_default_poisson_sampler_is_refused_in_one_line():
    # poisson_sampling=True (Opacus's default) replaces the batch sampler, whatever the
    # loader was: a refusal at make_private, before any training
    for loader in (random_allocation_loader(_data(), 20, seed=1),
                   torch.utils.data.DataLoader(_data(), batch_size=20, shuffle=True)):
        with pytest.raises(UncertifiedSampler, match="Poisson sampling ran") as err:
            _train(loader, poisson_sampling=True)
        assert "\n" not in str(err.value) and isinstance(err.value, ValueError)


def test_a_plain_shuffled_loader_is_refused_in_one_line():
    loader = torch.utils.data.DataLoader(_data(), batch_size=20, shuffle=True)
    with pytest.raises(UncertifiedSampler, match="shuffles into fixed-size batches"):
        _train(loader, poisson_sampling=False)
    loader = torch.utils.data.DataLoader(_data(), batch_size=20)
    with pytest.raises(UncertifiedSampler, match="fixed order"):
        _train(loader, poisson_sampling=False)


def test_make_private_with_epsilon_meets_the_target_certified():
    engine, opt, steps, _ = _train(random_allocation_loader(_data(), 20, seed=1), epochs=2,
                                   target_epsilon=2.0)
    sigma = F(repr(opt.noise_multiplier))
    r = verifier.epsilon(sigma, 20, 2, delta="1e-5")
    assert r.epsilon.upper <= 2 and engine.get_epsilon(1e-5) <= 2.0
    assert r.epsilon.upper > F("1.98")                # Opacus's epsilon_tolerance = 0.01
    with pytest.raises(UncertifiedSampler, match="poisson_sampling=True"):
        _train(random_allocation_loader(_data(), 20, seed=1), target_epsilon=2.0,
               poisson_sampling=True)


def test_a_k_of_m_loader_trains_and_is_certified_as_k_of_m():
    """A loader with steps_per_record = 2 (each record in 2 of the M = 10 steps of an epoch):
    make_private binds it and the epochs are certified as 2 of 10 (the API's run, bit for
    bit); make_private_with_epsilon calibrates sigma for the k of M that will run (larger
    than one of M's), certified below the target."""
    from verifier.core.run import Gaussian, Phase, RandomAllocation, Run

    def run(sigma):
        return Run((Phase(Gaussian(sigma), RandomAllocation(10, 2), 20),))
    engine, opt, steps, _ = _train(random_allocation_loader(_data(), 10, seed=1,
                                                            steps_per_record=2), epochs=2)
    assert steps == 20 and engine.accountant.steps_per_record == 2
    assert engine.accountant.run() == run(F("1.1"))
    r = verifier.epsilon(run(F("1.1")), delta="1e-5").epsilon
    e = engine.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    engine, opt, _, _ = _train(random_allocation_loader(_data(), 10, seed=1, steps_per_record=2),
                               epochs=2, target_epsilon=3.0)
    sigma = F(repr(opt.noise_multiplier))
    assert verifier.epsilon(run(sigma), delta="1e-5").epsilon.upper <= 3
    assert engine.get_epsilon(1e-5) <= 3.0
    _, one, _, _ = _train(random_allocation_loader(_data(), 10, seed=1), epochs=2,
                          target_epsilon=3.0)
    assert F(repr(one.noise_multiplier)) < sigma       # one of M needs less noise


def test_an_epoch_with_empty_batches_trains():
    # N = 400 records over M = 100 steps: Binomial(400, 1/100) batch sizes, ~2 empty a epoch
    engine, opt, steps, empty = _train(random_allocation_loader(_data(), 100, seed=3), epochs=2)
    assert steps == 200 and empty > 0
    assert engine.get_epsilon(1e-5) < float("inf")


def test_empty_batch_collate_keeps_structure_shape_and_dtype():
    ds = [{"x": torch.ones(3, 2), "y": torch.tensor(1)}]
    c = EmptyBatchCollate(ds)
    e = c([])                                            # an empty first batch works too
    assert e["x"].shape == (0, 3, 2) and e["y"].shape == (0,) and e["y"].dtype == torch.int64
    full = c([ds[0], ds[0]])
    assert full["x"].shape == (2, 3, 2)
    ds2 = _data(10)
    assert [t.shape for t in EmptyBatchCollate(ds2)([])] == [(0, 5), (0,)]


def test_noise_multiplier_from_get_noise_multiplier_goes_straight_to_opacus():
    s = verifier.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=1 / 20,
                                      epochs=2)
    engine, opt, steps, _ = _train(random_allocation_loader(_data(), 20, seed=1), epochs=2,
                                   noise_multiplier=s)
    assert engine.accountant.sigma() == s.sigma          # read back as the exact decimal
    assert engine.get_epsilon(1e-5) <= 2.0


def test_accountant_assigned_before_make_private():
    engine = opacus.PrivacyEngine()
    engine.accountant = RandomAllocationAccountant(steps_per_epoch=20)
    engine, _, steps, _ = _train(random_allocation_loader(_data(), 20, seed=1), engine=engine)
    assert engine.accountant.history == [(1.1, 1 / 20, 20)]
    with pytest.raises(verifier.InputError, match="steps_per_epoch = 10"):
        e2 = opacus.PrivacyEngine()
        e2.accountant = RandomAllocationAccountant(steps_per_epoch=10)
        _train(random_allocation_loader(_data(), 20, seed=1), engine=e2)


def test_example_runs_and_prints_a_certified_epsilon_and_the_refusals():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "opacus_random_allocation.py"),
                        "--epochs", "2"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "verifier (random allocation, certified):  epsilon in [" in r.stdout
    assert "refused: Poisson sampling ran" in r.stdout
    assert "refused: the data loader shuffles" in r.stdout
    assert "verifier (Poisson at q = 0.05, 40 steps, certified): epsilon in [" in r.stdout


def test_checkpoint_and_resume_through_opacus(tmp_path):
    """Opacus's save_checkpoint / load_checkpoint carry the run: the resumed engine's
    epsilon covers the epochs before and after."""
    ds = _data()
    engine, opt, steps, _ = _train(random_allocation_loader(ds, 20, seed=1), epochs=2)
    path = tmp_path / "ckpt.pt"
    engine.save_checkpoint(path=path, module=opacus.GradSampleModule(torch.nn.Linear(5, 2)))
    e2 = opacus.PrivacyEngine(accountant="random_allocation")
    m2 = torch.nn.Linear(5, 2)
    o2 = torch.optim.SGD(m2.parameters(), lr=0.1)
    m2, o2, loader = e2.make_private(module=m2, optimizer=o2,
                                     data_loader=random_allocation_loader(ds, 20, seed=2),
                                     noise_multiplier=1.1, max_grad_norm=1.0,
                                     poisson_sampling=False)
    e2.load_checkpoint(path=path, module=m2)
    assert e2.accountant.epochs() == 2
    for xb, yb in loader:                              # one more epoch
        o2.zero_grad()
        torch.nn.functional.cross_entropy(m2(xb), yb).backward()
        o2.step()
    assert e2.accountant.epochs() == 3 and len(e2.accountant) == 60
    r = verifier.epsilon("1.1", 20, 3, delta="1e-5")
    assert F(e2.get_epsilon(1e-5)) >= r.epsilon.upper


# ---- Poisson subsampling (verifier.poisson_accountant) ---------------------------
def test_certified_poisson_accountant_is_registered():
    from opacus.accountants import IAccountant, create_accountant
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    assert isinstance(create_accountant("certified_poisson"), CertifiedPoissonAccountant)
    assert isinstance(CertifiedPoissonAccountant(), IAccountant)


def test_opacus_default_poisson_run_gets_a_certified_epsilon():
    """Opacus's default (poisson_sampling=True) with accountant='certified_poisson': the
    epsilon of the steps taken, certified, at or below Opacus's RDP figure (an upper bound)
    and equal to the CLI's upper end."""
    from torch.utils.data import DataLoader
    from opacus.accountants import RDPAccountant
    loader = DataLoader(_data(), batch_size=20)
    engine, opt, steps, _ = _train(loader, epochs=2, accountant="certified_poisson",
                                   poisson_sampling=True)
    acc = engine.accountant
    assert len(acc) == steps == 40 and acc._bound and acc.sample_rate == 0.05
    e = engine.get_epsilon(1e-5)
    rdp = RDPAccountant()
    rdp.history = [(1.1, 1 / 20, 40)]
    assert e <= rdp.get_epsilon(1e-5)
    r = subprocess.run([sys.executable, "-m", "verifier", "epsilon", "--sampling", "poisson",
                        "--sigma", "1.1", "--sample-rate", "0.05", "--total-steps", "40",
                        "--delta", "1e-5", "--json"], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    up = F(json.loads(r.stdout)["epsilon"]["upper"])
    # e: the least float >= the exact upper end; up: that end rounded up to 17 digits
    assert up * (1 - F(1, 10 ** 16)) <= F(e) <= up * (1 + F(1, 2 ** 52))


def test_certified_poisson_refuses_other_samplers_and_accumulation():
    from torch.utils.data import DataLoader
    with pytest.raises(UncertifiedSampler, match="random allocation"):
        _train(random_allocation_loader(_data(), 20, seed=1), accountant="certified_poisson")
    with pytest.raises(UncertifiedSampler, match="shuffles"):
        _train(DataLoader(_data(), batch_size=20, shuffle=True), accountant="certified_poisson")
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    acc = CertifiedPoissonAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=0.05)
    with pytest.raises(UncertifiedSampler, match="did not see the data loader"):
        acc.get_epsilon(1e-5)


def test_make_private_with_epsilon_certified_poisson():
    from torch.utils.data import DataLoader
    engine, opt, steps, _ = _train(DataLoader(_data(), batch_size=20), epochs=2,
                                   accountant="certified_poisson", poisson_sampling=True,
                                   target_epsilon=3.0)
    e = engine.get_epsilon(1e-5)
    assert e <= 3.0 and opt.noise_multiplier > 0.3
    assert len(engine.accountant) == steps


def test_a_noise_schedule_under_opacus_is_composed_exactly():
    """Issue 44's run in a real PrivacyEngine: Opacus's Poisson sampler at q = 0.05, 40 steps
    at noise multiplier 1.2, then the optimizer's noise set to 0.9 for 40 more; the certified
    accountant composes the two phases: epsilon(1e-5) below 3.42 and inside Opacus PRV's own
    [lower, upper] error band, where the worst-phase collapse gave 4.02."""
    import verifier.poisson_accountant  # noqa: F401 (registers "certified_poisson")
    from opacus.accountants import PRVAccountant
    from torch.utils.data import DataLoader
    model = torch.nn.Linear(5, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = opacus.PrivacyEngine(accountant="certified_poisson")
    model, opt, loader = engine.make_private(module=model, optimizer=opt,
                                             data_loader=DataLoader(_data(), batch_size=20),
                                             noise_multiplier=1.2, max_grad_norm=1.0,
                                             poisson_sampling=True)
    steps = 0
    while steps < 80:
        for xb, yb in loader:
            if steps == 40:
                opt.noise_multiplier = 0.9
            if steps == 80:
                break
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
            steps += 1
    assert engine.accountant.history == [(1.2, 0.05, 40), (0.9, 0.05, 40)]
    e = engine.get_epsilon(1e-5)
    prv = PRVAccountant()
    prv.history = list(engine.accountant.history)
    low, _, high = prv._get_dprv(eps_error=0.01, delta_error=1e-8).compute_epsilon(
        1e-5, 1e-8, 0.01)
    assert e < 3.42 and low <= e <= high
    assert engine.accountant.get_epsilon_bracket(1e-5).epsilon.lower >= low


def test_certified_poisson_refuses_a_skipped_step():
    """A Poisson batch drawn without its noisy step (the old example skipped empty ones)
    makes the number of updates depend on the data: refused at get_epsilon in one line, as
    the random-allocation accountant does (issue 47); a run with a step on every batch,
    empty ones too, is certified."""
    from torch.utils.data import DataLoader
    model = torch.nn.Linear(5, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = opacus.PrivacyEngine(accountant="certified_poisson")
    model, opt, loader = engine.make_private(module=model, optimizer=opt,
                                             data_loader=DataLoader(_data(), batch_size=20),
                                             noise_multiplier=1.1, max_grad_norm=1.0)
    for i, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        if i != 3:                                   # the fourth batch's step skipped
            opt.step()
    with pytest.raises(UncertifiedSampler, match="batches drawn, 19 optimizer steps"):
        engine.get_epsilon(1e-5)
    engine2, _, steps, _ = _train(DataLoader(_data(), batch_size=20), accountant="certified_poisson",
                                  poisson_sampling=True)
    assert steps == 20 and engine2.get_epsilon(1e-5) < 10
