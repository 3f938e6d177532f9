"""The accountant and the sampler for training code, the parts without torch:
Opacus's conventions, the certified epsilon it reports, the batches' law."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

import verifier
from verifier.accountants import RandomAllocationAccountant, UncertifiedSampler, from_dp_event
from verifier.core.arith import InputError
from verifier.sampling import RandomAllocationBatchSampler, allocate


class _Loader:
    """A stand-in for a DataLoader (no torch here): what the accountant reads of one."""

    def __init__(self, batch_sampler):
        self.batch_sampler = batch_sampler

    def __iter__(self):
        return iter(self.batch_sampler)


def _run(acc, sigma, steps, M, n=50):
    """Train `steps` steps on a random-allocation loader the accountant is bound to."""
    if acc.sampler is None:
        acc.bind(_Loader(RandomAllocationBatchSampler(n, M, seed=0)))
    loader, done = _Loader(acc.sampler), 0
    while done < steps:
        for _ in loader:
            acc.step(noise_multiplier=sigma, sample_rate=1 / M)
            done += 1
            if done == steps:
                break


def test_opacus_conventions_and_state():
    acc = RandomAllocationAccountant(steps_per_epoch=10)
    assert acc.mechanism() == "random_allocation" and len(acc) == 0
    _run(acc, 2.0, 25, 10)
    assert len(acc) == 25 and acc.history == [(2.0, 0.1, 25)] and acc.epochs() == 3
    st = acc.state_dict()
    other = RandomAllocationAccountant(steps_per_epoch=1)
    other.load_state_dict(st)
    assert other.history == acc.history and other.steps_per_epoch == 10


def test_get_epsilon_is_the_certified_upper_end():
    acc = RandomAllocationAccountant(steps_per_epoch=10)
    _run(acc, 2.0, 25, 10)               # a partial third epoch counts as a whole one
    r = verifier.epsilon(F(2), 10, 3, delta="1e-6")
    e = acc.get_epsilon(1e-6)
    assert F(e) >= r.epsilon.upper and e - float(r.epsilon.upper) < 1e-12
    br = acc.get_epsilon_bracket(1e-6)
    assert br.epsilon == verifier.epsilon(F(2), 10, 3, delta=F(1e-6)).epsilon


def test_both_accountants_refuse_alike():
    """A value that is no number is an InputError at step() in both accountants; what ran but
    cannot be certified (here a sample rate that is not 1/M in a random-allocation run) is
    refused at get_epsilon (UncertifiedSampler) naming the step (docs/TRAINING.md)."""
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    for acc in (RandomAllocationAccountant(), CertifiedPoissonAccountant()):
        for nm, q in ((0, 0.1), (1.0, 0), (1.0, 1.5), ("x", 0.1), (1.0, None)):
            with pytest.raises(InputError):
                acc.step(noise_multiplier=nm, sample_rate=q)
    ra = RandomAllocationAccountant()
    for _ in range(10):
        ra.step(noise_multiplier=1.0, sample_rate=0.1)
    ra.step(noise_multiplier=1.0, sample_rate=0.3)
    with pytest.raises(UncertifiedSampler, match="step 11: sample_rate = 0.3 is not 1/M"):
        ra.get_epsilon(1e-5)
    assert "step 11" in ra.state_dict()["refused"]


def test_refusals():
    acc = RandomAllocationAccountant(steps_per_epoch=10)
    acc.step(noise_multiplier=1.0, sample_rate=0.2)       # another M: refused at get_epsilon,
    with pytest.raises(UncertifiedSampler, match="step 1: sample_rate = 0.2"):  # not in step()
        acc.get_epsilon(1e-5)
    acc = RandomAllocationAccountant(steps_per_epoch=10)
    _run(acc, 1.0, 5, 10)
    acc.step(noise_multiplier=1.5, sample_rate=0.1)      # no exception inside optimizer.step()
    with pytest.raises(UncertifiedSampler, match="inside an epoch"):
        acc.get_epsilon(1e-5)
    assert "inside an epoch" in acc.state_dict()["refused"]
    for bad in (0, -1.0, math.nan, "x", None):
        with pytest.raises(InputError):
            acc.step(noise_multiplier=bad, sample_rate=0.1)
    with pytest.raises(InputError):
        RandomAllocationAccountant(steps_per_epoch=0)
    with pytest.raises(InputError):
        RandomAllocationAccountant(steps_per_epoch=10).get_epsilon(1e-5)


def test_noise_change_at_an_epoch_boundary_composes_the_epochs_exactly():
    """One epoch at sigma 3 then one at 2 (M = 4): a run of two kinds of epoch composed
    exactly, below the collapse to sigma 2 for both (certified), above two epochs at 3."""
    from verifier.core.run import Run, phase
    acc = RandomAllocationAccountant(steps_per_epoch=4)
    _run(acc, 3.0, 4, 4)
    _run(acc, 2.0, 4, 4)
    assert acc.sigma() == F(2) and acc.epochs() == 2
    want = Run((phase("3.0", steps_per_epoch=4, epochs=1), phase("2.0", steps_per_epoch=4, epochs=1)))
    assert acc.run() == want
    r = verifier.epsilon(want, delta="1e-5").epsilon
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    assert F(e) < verifier.epsilon(F(2), 4, 2, delta="1e-5").epsilon.lower
    assert r.lower > verifier.epsilon(F(3), 4, 2, delta="1e-5").epsilon.upper
    assert acc.get_epsilon_bracket(1e-5).epsilon == r


def test_sampler_allocates_every_record_once_and_is_reproducible():
    a = list(RandomAllocationBatchSampler(1000, 7, seed=5))
    b = list(RandomAllocationBatchSampler(1000, 7, seed=5))
    assert a == b and len(a) == 7
    assert sorted(i for batch in a for i in batch) == list(range(1000))
    s = RandomAllocationBatchSampler(10, 3, seed=1)
    assert s.sample_rate == 1 / 3 and len(s) == 3
    e1, e2 = list(s), list(s)
    assert e1 != e2                                   # a fresh allocation each epoch


def test_batch_sizes_follow_the_binomial_law():
    # chi-square goodness of fit against Binomial(N, 1/M) at a fixed seed (mpmath for the
    # pmf and the chi-square tail: no scipy needed)
    import numpy as np
    import mpmath
    rng = np.random.default_rng(20261201)
    N, M, epochs = 200, 20, 500
    sizes = np.array([len(b) for _ in range(epochs) for b in allocate(N, M, rng)])
    p = mpmath.mpf(1) / M
    pmf = [mpmath.binomial(N, k) * p ** k * (1 - p) ** (N - k) for k in range(N + 1)]
    n = len(sizes)
    cells, o, e = [], [], []
    for k in range(N + 1):                  # pool consecutive sizes until >= 5 expected
        cells.append(k)
        if sum(pmf[j] for j in cells) * n >= 5 or k == N:
            o.append(int(sum((sizes == j).sum() for j in cells)))
            e.append(float(sum(pmf[j] for j in cells) * n))
            cells = []
    if cells:
        o[-1] += int(sum((sizes == j).sum() for j in cells))
    chi2 = sum((a - b) ** 2 / b for a, b in zip(o, e))
    dof = len(o) - 1
    pval = mpmath.gammainc(mpmath.mpf(dof) / 2, chi2 / 2, mpmath.inf, regularized=True)
    assert sum(o) == n and pval > 0.001, (chi2, dof, pval)


def test_dp_accounting_event_mapping():
    dp_accounting = pytest.importorskip("dp_accounting")
    g = dp_accounting.GaussianDpEvent(noise_multiplier=2.0)
    assert from_dp_event(g, num_selected=1, num_steps=10) == (F(2), 10, 1)
    g11 = dp_accounting.GaussianDpEvent(noise_multiplier=1.1)     # the float policy
    assert from_dp_event(g11, num_steps=20) == (F(11, 10), 20, 1)
    assert from_dp_event(dp_accounting.SelfComposedDpEvent(g, 5), num_selected=2,
                         num_steps=20) == (F(2), 10, 10)
    with pytest.raises(InputError, match="does not divide"):
        from_dp_event(g, num_selected=3, num_steps=10)
    with pytest.raises(InputError, match="cannot map"):
        from_dp_event(dp_accounting.LaplaceDpEvent(1.0), num_steps=10)


def test_reported_float_is_rounded_up():
    from verifier.accountants import up_float
    for q in (F(1, 3), F(2, 3), F(10 ** 20 + 1, 10 ** 20), F(7)):
        f = up_float(q)
        assert F(f) >= q and F(math.nextafter(f, -math.inf)) < q


# ---------------------------------------------------------------- only the sampler that ran
class _BatchSampler:          # a stand-in for torch's BatchSampler (read by class name)
    def __init__(self, sampler, batch_size):
        self.sampler, self.batch_size = sampler, batch_size


_BatchSampler.__name__ = "BatchSampler"


def _named(name, **attrs):
    return type(name, (), attrs)()


def test_refuses_every_sampler_but_random_allocation():
    from verifier.accountants import UncertifiedSampler
    cases = {"Poisson sampling ran": _named("UniformWithReplacementSampler", sample_rate=0.05),
             "shuffles into fixed-size batches": _BatchSampler(_named("RandomSampler"), 20),
             "fixed order": _BatchSampler(_named("SequentialSampler"), 20),
             "not random allocation": _named("WeightedRandomSampler")}
    for why, bs in cases.items():
        acc = RandomAllocationAccountant()
        with pytest.raises(UncertifiedSampler, match=why) as err:
            acc.bind(_Loader(bs))
        assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
        acc.step(noise_multiplier=1.1, sample_rate=0.05)      # training may go on ...
        with pytest.raises(UncertifiedSampler, match=why):    # ... but no number comes out
            acc.get_epsilon(1e-5)


def test_steps_whose_loader_was_not_seen_are_refused():
    from verifier.accountants import UncertifiedSampler
    acc = RandomAllocationAccountant(steps_per_epoch=20)
    acc.step(noise_multiplier=1.1, sample_rate=0.05)
    with pytest.raises(UncertifiedSampler, match="did not see the data loader"):
        acc.get_epsilon(1e-5)
    # bound, but more optimizer steps than the sampler produced batches
    acc = RandomAllocationAccountant()
    acc.bind(_Loader(RandomAllocationBatchSampler(40, 20, seed=0)))
    acc.step(noise_multiplier=1.1, sample_rate=0.05)
    with pytest.raises(UncertifiedSampler, match="did not all come from it"):
        acc.get_epsilon(1e-5)


def test_a_planned_history_is_answered_for_random_allocation():
    # Opacus's get_noise_multiplier assigns history = [(sigma, sample_rate, steps)]
    acc = RandomAllocationAccountant()
    acc.history = [(1.1, 0.05, 60)]
    r = verifier.epsilon("1.1", 20, 3, delta="1e-5")
    assert acc.get_epsilon(1e-5) == _up_float_of(r.epsilon.upper)
    assert acc.steps_per_epoch == 20 and acc.epochs() == 3
    acc.history = [(0.15625, 0.05, 60)]          # below the engine's range: no guarantee
    assert acc.get_epsilon(1e-5) == math.inf
    acc.history = [(80.0, 0.05, 60)]             # above: the answer at 50 is an upper bound
    assert acc.get_epsilon(1e-5) == _up_float_of(verifier.epsilon(50, 20, 3, delta="1e-5").epsilon.upper)


def _up_float_of(q):
    from verifier.accountants import up_float
    return up_float(q)


def test_epochs_left_early_count_as_allocations_drawn():
    acc = RandomAllocationAccountant()
    s = RandomAllocationBatchSampler(100, 10, seed=0)
    acc.bind(_Loader(s))
    for _ in range(3):                 # three epochs left after 4 of 10 steps each
        for i, _b in enumerate(s):
            acc.step(noise_multiplier=2.0, sample_rate=0.1)
            if i == 3:
                break
    assert len(acc) == 12 and acc.epochs() == 3 and s.epochs_drawn == 3


def test_float_policy_in_the_accountant():
    acc = RandomAllocationAccountant()
    acc.history = [(1.1, 0.05, 20)]
    assert acc.sigma() == F(11, 10)              # 1.1 is 11/10, not its binary value
    with pytest.raises(InputError, match="delta = 0.6 is outside"):
        acc.get_epsilon(0.6)


def test_renyi_to_epsilon_takes_a_string_delta():
    c = verifier.rdp("2", 10, 1)
    assert c.to_epsilon("1e-5").to_json() == c.to_epsilon(F(1, 10 ** 5)).to_json()
    assert c.to_epsilon(1e-5).to_json() == c.to_epsilon(F(1, 10 ** 5)).to_json()


def test_resume_from_a_checkpoint():
    acc = RandomAllocationAccountant()
    _run(acc, 2.0, 25, 10)                           # 3 epochs begun (the third partial)
    st = acc.state_dict()
    assert st["stepped"] == 25 and st["epochs"] == 3 and st["refused"] is None
    new = RandomAllocationAccountant()
    new.load_state_dict(st)
    assert new.epochs() == 3 and new.get_epsilon(1e-6) == acc.get_epsilon(1e-6)
    _run(new, 2.0, 10, 10)                           # a new sampler: one more allocation
    assert len(new) == 35 and new.epochs() == 4
    r = verifier.epsilon("2", 10, 4, delta="1e-6")
    assert F(new.get_epsilon(1e-6)) >= r.epsilon.upper
    # a run that could not be certified stays refused after a checkpoint
    from verifier.accountants import UncertifiedSampler
    bad = RandomAllocationAccountant(steps_per_epoch=10)
    bad.step(noise_multiplier=2.0, sample_rate=0.1)
    again = RandomAllocationAccountant()
    again.load_state_dict(bad.state_dict())
    with pytest.raises(UncertifiedSampler, match="did not see the data loader"):
        again.get_epsilon(1e-6)


# ------------------------------------------------------------- hostile values, no crash
from hypothesis import HealthCheck, given, settings              # noqa: E402
from hypothesis import strategies as st                          # noqa: E402

HOSTILE = st.one_of(st.none(), st.booleans(), st.text(max_size=8),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-10 ** 30, 10 ** 30), st.sampled_from(["1e999", "1/0", "-0", []]))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(nm=HOSTILE, rate=HOSTILE, delta=HOSTILE)
def test_accountant_hostile_values_are_one_line_input_errors(nm, rate, delta):
    """Whatever a training loop passes, the accountant answers or raises a ValueError with a
    one-line message (InputError, or UncertifiedSampler), never another exception."""
    acc = RandomAllocationAccountant()
    try:
        acc.step(noise_multiplier=nm, sample_rate=rate)
    except ValueError as e:
        assert "\n" not in str(e)
        return
    acc.history = list(acc.history)
    try:
        acc.get_epsilon(delta)
    except ValueError as e:
        assert "\n" not in str(e)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(eps=HOSTILE, delta=HOSTILE, rate=HOSTILE, tol=HOSTILE)
def test_get_noise_multiplier_hostile_values(eps, delta, rate, tol):
    """Bad arguments are InputErrors naming the value (one line), before any search."""
    from conftest import Work
    work = Work()
    try:
        work(verifier.get_noise_multiplier, target_epsilon=eps, target_delta=delta,
             sample_rate=rate, epochs=1, epsilon_tolerance=tol)
    except ValueError as e:
        assert "\n" not in str(e)
        assert work.counts["reserve"] == 0, (str(e), work.counts)   # no engine ran first


def test_k_of_m_sampler_puts_each_record_in_k_distinct_steps():
    from collections import Counter
    s = RandomAllocationBatchSampler(2000, 5, seed=2, steps_per_record=2)
    assert s.sample_rate == 2 / 5
    seen = Counter()
    for step, batch in enumerate(s):
        assert len(set(batch)) == len(batch)
        seen.update(batch)
    assert set(seen.values()) == {2} and len(seen) == 2000
    with pytest.raises(InputError, match="more than"):
        RandomAllocationBatchSampler(10, 3, steps_per_record=4)


def test_a_k_of_m_loader_makes_the_accountant_certify_k_of_m():
    """Bound to a sampler with steps_per_record = 2 (M = 5), the steps are epochs of 2 of 5:
    the accountant's run and bracket are the API's on that run, above one of M; a step's
    rate 1/M (Opacus's) or k/M (the sampler's) both read as M; the state keeps k."""
    from verifier.core.run import Gaussian, Phase, RandomAllocation, Run
    acc = RandomAllocationAccountant()
    acc.bind(_Loader(RandomAllocationBatchSampler(40, 5, seed=0, steps_per_record=2)))
    loader, done = _Loader(acc.sampler), 0
    for epoch in range(2):
        for _ in loader:
            acc.step(noise_multiplier=2.0, sample_rate=1 / 5 if epoch == 0 else 2 / 5)
    run = Run((Phase(Gaussian(F(2)), RandomAllocation(5, 2), 10),))
    assert acc.steps_per_record == 2 and acc.run().merged() == run.merged() and acc.epochs() == 2
    r = verifier.epsilon(run, delta="1e-5").epsilon
    assert acc.get_epsilon_bracket(1e-5).epsilon == r
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    assert r.lower > verifier.epsilon(F(2), 5, 2, delta="1e-5").epsilon.upper   # one of M
    st = acc.state_dict()
    assert st["steps_per_record"] == 2
    again = RandomAllocationAccountant()
    again.load_state_dict(st)
    assert again.steps_per_record == 2 and again.get_epsilon(1e-5) == e
    for k in (0, 6, "2", True):
        with pytest.raises(InputError, match="steps_per_record"):
            RandomAllocationAccountant().load_state_dict({**st, "steps_per_record": k})
    with pytest.raises(InputError, match="steps_per_record = 3"):
        RandomAllocationAccountant(steps_per_record=3).bind(
            _Loader(RandomAllocationBatchSampler(40, 5, seed=0, steps_per_record=2)))
    with pytest.raises(InputError, match="steps_per_record = 1"):
        acc1 = RandomAllocationAccountant()       # steps at one of M, then a k-of-M loader
        _run(acc1, 2.0, 5, 5)
        acc1.bind(_Loader(RandomAllocationBatchSampler(40, 5, seed=0, steps_per_record=2)))
    with pytest.raises(InputError, match="more than"):
        RandomAllocationAccountant(steps_per_epoch=2, steps_per_record=3)


def test_a_batch_drawn_without_its_noisy_step_is_refused_at_get_epsilon():
    """Skipping the step of a batch (the old example skipped empty ones) makes the number of
    updates depend on the data: refused in one line at get_epsilon, not certified."""
    acc = RandomAllocationAccountant(steps_per_epoch=5)
    acc.bind(_Loader(RandomAllocationBatchSampler(40, 5, seed=0)))
    for i, _ in enumerate(_Loader(acc.sampler)):
        if i != 2:                                   # the third batch's step skipped
            acc.step(noise_multiplier=1.0, sample_rate=0.2)
    with pytest.raises(UncertifiedSampler, match="without its noisy step"):
        acc.get_epsilon(1e-5)


def test_a_state_that_contradicts_itself_is_refused_on_load():
    """Issue 46: a state whose epochs are fewer than its steps begin (1.27 certified instead of
    1.95) or whose history has a negative count is refused in one line when loaded."""
    acc = RandomAllocationAccountant(steps_per_epoch=10)
    _run(acc, 1.0, 30, 10)
    good = acc.state_dict()
    fresh = RandomAllocationAccountant()
    fresh.load_state_dict(good)
    assert fresh.epochs() == 3
    for bad, word in (({**good, "epochs": 1}, "contradicts its 30 steps"),
                      ({**good, "history": [(1.0, 0.1, 40), (1.0, 0.1, -10)]}, "entry 2"),
                      ({**good, "steps_per_epoch": 0}, "steps_per_epoch"),
                      ({**good, "history": "x"}, "list of")):
        with pytest.raises(InputError, match=word) as e:
            RandomAllocationAccountant().load_state_dict(bad)
        assert "\n" not in str(e.value)


def test_a_run_trained_in_parts_is_the_sum_of_its_accountants_runs():
    """Issue 44's five phases from Opacus: Poisson steps under ``certified_poisson`` (its
    history) and the random-allocation epochs under ``random_allocation`` (bound to its
    loader), the two accountants' runs added: the bracket of the run file and the API.
    Composition is a product measure, so the order of the parts does not matter."""
    import os
    from verifier.core.run_files import run_from_file
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = run_from_file(os.path.join(root, "examples", "runs", "five_phases_mixed.toml"))
    pois = CertifiedPoissonAccountant()
    for nm, q, n in ((2.0, 0.05, 20), (1.3, 0.05, 40), (8.0, 1.0, 2)):
        for _ in range(n):
            pois.step(noise_multiplier=nm, sample_rate=q)
    ra = RandomAllocationAccountant(steps_per_epoch=20)
    _run(ra, 1.1, 60, 20)
    both = pois.run() + ra.run()
    assert both.steps == run.steps == 122 and len(both.phases) == 4
    api = verifier.epsilon(run, delta="1e-5").epsilon
    assert verifier.epsilon(both, delta="1e-5").epsilon == api
    assert verifier.epsilon(ra.run() + pois.run(), delta="1e-5").epsilon == api
    with pytest.raises(TypeError):
        both + 1


class UniformWithReplacementSampler:
    """A stand-in for Opacus's Poisson batch sampler (the accountant reads its name and
    sample_rate): 10 batches an epoch, some empty."""
    sample_rate = 0.1

    def __iter__(self):
        for i in range(10):
            yield [] if i % 4 == 0 else [i]




def test_the_poisson_accountant_refuses_a_batch_drawn_without_its_step():
    """Without torch: every batch drawn from the bound Poisson sampler, empty ones too,
    must take its step; a skipped one is refused at get_epsilon (one line), an epoch whose
    last batch awaits its step is not."""
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    for skip in (None, 4):
        loader = _Loader(UniformWithReplacementSampler())
        acc = CertifiedPoissonAccountant().bind(loader)
        for i, batch in enumerate(loader.batch_sampler):
            if i != skip:
                acc.step(noise_multiplier=1.0, sample_rate=0.1)
            if i == 5 and skip is None:          # mid-epoch: one batch in flight is fine
                assert acc.get_epsilon(1e-5) > 0
        if skip is None:
            assert acc.get_epsilon(1e-5) > 0
        else:
            with pytest.raises(UncertifiedSampler, match="10 Poisson batches drawn, 9 optimizer"):
                acc.get_epsilon(1e-5)
