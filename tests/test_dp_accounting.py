"""The certified accountant in Google dp_accounting's shape (the `reference` extra; .ci/run
installs it and runs this file): compose/get_epsilon/get_delta/supports, the events it
certifies, the ones it refuses, and the float policy of from_dp_event."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

dp_accounting = pytest.importorskip("dp_accounting")

import verifier                                                           # noqa: E402
from verifier.accountants import from_dp_event                           # noqa: E402
from verifier.core.arith import InputError                               # noqa: E402
from verifier.dp_accountant import (CertifiedRandomAllocationAccountant,  # noqa: E402
                                    RandomAllocationDpEvent)

G = dp_accounting.GaussianDpEvent


def _epoch(sigma=1.1, M=20):
    return RandomAllocationDpEvent(G(sigma), num_selected=1, num_steps=M)


def test_is_a_dp_accounting_accountant_and_certifies_the_composed_epochs():
    acc = CertifiedRandomAllocationAccountant()
    assert isinstance(acc, dp_accounting.PrivacyAccountant)
    assert acc.get_epsilon(1e-5) == 0.0 and acc.get_delta(1) == 0.0
    assert acc.compose(_epoch(), 2) is acc
    acc.compose(dp_accounting.SelfComposedDpEvent(_epoch(), 1))
    r = verifier.epsilon("1.1", 20, 3, delta="1e-5").epsilon
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    assert acc.get_epsilon_bracket(1e-5).epsilon == r
    d = verifier.delta("1.1", 20, 3, epsilon="1").delta
    assert F(acc.get_delta(1.0)) >= d.upper and acc.get_delta(1.0) - float(d.upper) < 1e-12
    assert acc.sigma == F(11, 10) and acc.epochs == 3      # 1.1 read as 11/10
    # the same by one ComposedDpEvent, NoOp events changing nothing
    b = CertifiedRandomAllocationAccountant().compose(dp_accounting.ComposedDpEvent(
        [_epoch(), dp_accounting.NoOpDpEvent(), _epoch(), _epoch()]))
    assert b.get_epsilon(1e-5) == e


def test_smaller_sigma_in_a_later_epoch_is_accounted_at_the_smallest():
    acc = CertifiedRandomAllocationAccountant().compose(_epoch(2.0)).compose(_epoch(1.5))
    assert acc.sigma == F(3, 2)
    assert acc.get_epsilon(1e-5) >= float(verifier.epsilon("1.5", 20, 2, delta="1e-5").epsilon.upper)


def test_unsupported_events_are_refused_not_guessed():
    acc = CertifiedRandomAllocationAccountant()
    bad = [dp_accounting.PoissonSampledDpEvent(0.05, G(1.1)), G(1.1),
           RandomAllocationDpEvent(dp_accounting.LaplaceDpEvent(1.0), 1, 20),
           RandomAllocationDpEvent(G(1.1), 2, 20),
           dp_accounting.ComposedDpEvent([_epoch(M=20), _epoch(M=10)])]
    for ev in bad:
        assert not acc.supports(ev)
        with pytest.raises(dp_accounting.UnsupportedEventError):
            acc.compose(ev)
    assert acc.epochs == 0
    acc.compose(_epoch(M=20))
    assert not acc.supports(_epoch(M=10))          # one M per accountant
    with pytest.raises(InputError):
        CertifiedRandomAllocationAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE)


def test_nonprivate_and_out_of_range():
    acc = CertifiedRandomAllocationAccountant().compose(_epoch())
    acc.compose(dp_accounting.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(1) == 1.0
    low = CertifiedRandomAllocationAccountant().compose(_epoch(0.2))
    assert low.get_epsilon(1e-5) == math.inf        # below the engine's range: no guarantee
    with pytest.raises(InputError):
        low.get_epsilon(0.6)                         # outside [1e-12, 0.5]


def test_from_dp_event_returns_exact_inputs_a_user_can_pass_on():
    s, M, E = from_dp_event(G(1.1), num_steps=20)
    assert (s, M, E) == (F(11, 10), 20, 1)
    assert verifier.epsilon(s, M, E, delta=1e-5).epsilon == verifier.epsilon("1.1", 20, 1, delta="1e-5").epsilon


# ---- Poisson subsampling against dp_accounting's float accountants -------------
POISSON_CASES = [("1.1", "0.05", 20, "1e-5"), ("1", "0.01", 1000, "1e-5"),
                 ("0.8", "0.02", 200, "1e-6"), ("2", "0.1", 500, "1e-5"),
                 ("0.6", "0.005", 2000, "1e-5"), ("1.5", "0.2", 50, "1e-8"),
                 ("4", "0.5", 100, "1e-3"), ("1", "1", 10, "1e-5")]


@pytest.mark.parametrize("sigma,q,T,delta", POISSON_CASES)
def test_poisson_brackets_meet_dp_accounting_pld_and_lie_below_rdp(sigma, q, T, delta):
    """dp_accounting's PLD, pessimistic (connect the dots: an upper estimate) and optimistic
    (privacy buckets: a lower estimate), at a fine discretization: the interval they span
    meets the certified bracket; dp_accounting's RDP epsilon (an upper bound) is at or
    above the certified upper end."""
    import logging
    from dp_accounting.pld import privacy_loss_distribution as pld
    r = verifier.poisson_epsilon(sigma, q, T, delta=delta)
    e = r.epsilon
    assert e is not None and e.upper - e.lower <= F(1, 1000) * e.lower
    logging.disable(logging.WARNING)
    try:
        ests = []
        for pess in (True, False):
            p = pld.from_gaussian_mechanism(float(sigma), pessimistic_estimate=pess,
                                            value_discretization_interval=1e-4,
                                            sampling_prob=float(q), use_connect_dots=pess)
            ests.append(F(p.self_compose(T).get_epsilon_for_delta(float(delta))))
    finally:
        logging.disable(logging.NOTSET)
    hi, lo = ests
    assert lo <= e.upper and e.lower <= hi, (lo, hi, e)
    rdp = dp_accounting.rdp.RdpAccountant()
    rdp.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(float(q), G(float(sigma))), T))
    assert F(rdp.get_epsilon(float(delta))) >= e.upper


def test_certified_poisson_dp_accountant():
    from verifier.dp_accountant import CertifiedPoissonAccountant
    acc = CertifiedPoissonAccountant()
    assert isinstance(acc, dp_accounting.PrivacyAccountant)
    assert acc.get_epsilon(1e-5) == 0.0
    step = dp_accounting.PoissonSampledDpEvent(0.05, G(1.1))
    acc.compose(dp_accounting.SelfComposedDpEvent(step, 15)).compose(step, 5)
    r = verifier.poisson_epsilon("1.1", "0.05", 20, delta="1e-5").epsilon
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    assert len(acc.run().merged()) == 1 and acc.steps == 20
    d = verifier.poisson_delta("1.1", "0.05", 20, epsilon="1").delta
    assert F(acc.get_delta(1.0)) >= d.upper
    # mixed steps: a run of phases composed exactly (a tree of events, a Gaussian leaf q = 1)
    acc.compose(dp_accounting.ComposedDpEvent([dp_accounting.PoissonSampledDpEvent(0.1, G(1.3)),
                                              dp_accounting.SelfComposedDpEvent(G(8.0), 2)]))
    want = verifier.Run((verifier.phase("1.1", sample_rate="0.05", steps=20),
                         verifier.phase("1.3", sample_rate="0.1", steps=1),
                         verifier.phase("8", sample_rate="1", steps=2)))
    assert acc.run().merged() == want.merged() and acc.steps == 23
    r = verifier.epsilon(want, delta="1e-5").epsilon
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    assert not acc.supports(dp_accounting.LaplaceDpEvent(1.0))
    assert not CertifiedRandomAllocationAccountant().supports(step)
    acc.compose(dp_accounting.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf


def test_a_mixed_run_is_the_same_from_a_run_file_the_api_and_a_dp_event_tree(tmp_path):
    """Issue 44's five phases mixing random-allocation epochs, Poisson and full-batch steps:
    the run file, the API and dp_accounting's event tree give one bracket."""
    import os
    from verifier.dp_accountant import CertifiedRunAccountant, CertifiedPoissonAccountant
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = verifier.run_from_file(os.path.join(root, "examples", "runs", "five_phases_mixed.toml"))
    api = verifier.epsilon(run, delta="1e-5")
    epoch = RandomAllocationDpEvent(G(1.1), num_selected=1, num_steps=20)
    tree = dp_accounting.ComposedDpEvent([
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.05, G(2.0)), 20),
        dp_accounting.SelfComposedDpEvent(epoch, 2),
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.05, G(1.3)), 40),
        epoch, dp_accounting.SelfComposedDpEvent(G(8.0), 2)])
    acc = CertifiedRunAccountant()
    acc.compose(tree)
    assert acc.run().merged() == run.merged()
    r = acc.get_epsilon_bracket(1e-5)
    assert r.epsilon == api.epsilon and r.epsilon.upper - r.epsilon.lower <= F(1, 1000) * r.epsilon.lower
    e = acc.get_epsilon(1e-5)
    assert F(e) >= api.epsilon.upper and e - float(api.epsilon.upper) < 1e-12
    assert not CertifiedPoissonAccountant().supports(tree)


def test_k_of_m_epochs_are_a_run_with_k_per_record():
    """RandomAllocationDpEvent(..., num_selected=k, num_steps=M) is an epoch of k of M
    (RandomAllocation(M, k)): the tree's bracket is the API's on that run, bit for bit; the
    one-phase accountant refuses it naming the run accountant; k outside [1, M] refused."""
    from verifier.core.run import Gaussian, Phase, Poisson, RandomAllocation, Run
    from verifier.dp_accountant import CertifiedRunAccountant
    epoch = RandomAllocationDpEvent(G(1.1), num_selected=2, num_steps=20)
    tree = dp_accounting.ComposedDpEvent([
        dp_accounting.SelfComposedDpEvent(epoch, 2),
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.05, G(1.3)), 40)])
    acc = CertifiedRunAccountant().compose(tree)
    run = Run((Phase(Gaussian(F(11, 10)), RandomAllocation(20, 2), 40),
               Phase(Gaussian(F(13, 10)), Poisson(F(1, 20)), 40)))
    assert acc.run() == run
    r = acc.get_epsilon_bracket(1e-5).epsilon
    assert r == verifier.epsilon(run, delta="1e-5").epsilon
    # k of M leaks more than one of M (the same epochs at k = 1 are below its lower end)
    one = CertifiedRunAccountant().compose(dp_accounting.ComposedDpEvent([
        dp_accounting.SelfComposedDpEvent(_epoch(), 2),
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.05, G(1.3)), 40)]))
    assert one.get_epsilon(1e-5) < r.lower
    e = acc.get_epsilon(1e-5)
    assert F(e) >= r.upper and e - float(r.upper) < 1e-12
    refused = CertifiedRandomAllocationAccountant()
    assert not refused.supports(epoch)
    with pytest.raises(dp_accounting.UnsupportedEventError, match="CertifiedRunAccountant"):
        refused.compose(epoch)
    for k in (0, 21, 2.0, True, None):
        bad = RandomAllocationDpEvent(G(1.1), num_selected=k, num_steps=20)
        assert not CertifiedRunAccountant().supports(bad), k
    with pytest.raises(dp_accounting.UnsupportedEventError, match="num_selected = 21"):
        CertifiedRunAccountant().compose(RandomAllocationDpEvent(G(1.1), num_selected=21,
                                                                 num_steps=20))
