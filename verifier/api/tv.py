"""The Theorem 3.1 and total-variation face of the API: ``bound``, ``steps_exact``,
``closed_form``, ``min_samples``, ``certify``, ``calibrate_sigma``, ``calibrate_steps``,
``exact_tv``, ``compare``.  Inputs: decimal strings, ints, Fractions, or floats read as the
decimals they print as (``1.1`` is 11/10); arguments after (sigma, steps, epochs) by keyword."""
from __future__ import annotations

from verifier.api.keywords import (keywords_after, progress_keyword,
                                   steps_per_epoch_keyword)


def _max_prec(max_prec) -> int:
    """The precision cap in bits (default DEFAULT_MAX_PREC), or a one-line refusal."""
    from verifier.core.arith import DEFAULT_MAX_PREC, InputError
    cap = DEFAULT_MAX_PREC if max_prec is None else max_prec
    if isinstance(cap, bool) or not isinstance(cap, int) or not 64 <= cap <= 1 << 20:
        raise InputError(f"max_prec must be an integer number of bits in [64, 1048576], got "
                         f"{max_prec!r:.40}")
    return cap


def _exact_args(sigma, delta=None):
    from verifier.core.arith import parse_delta, parse_sigma
    return parse_sigma(sigma), (parse_delta(delta) if delta is not None else None)


@steps_per_epoch_keyword
def bound(sigma, steps, epochs=1, *, coef="simplified", delta=None, max_prec=None):
    """Certified delta_rhs of Theorem 3.1 (reconstructed) with hypothesis verdicts (a
    ``BoundResult``); ``delta``: a target over all epochs; ``max_prec``: the precision cap."""
    from verifier.bounds import theorem31 as T
    from verifier.core.arith import parse_epochs, parse_steps
    s, d = _exact_args(sigma, delta)
    return T.bound(s, parse_steps(steps), T.check_coef(coef), parse_epochs(epochs), d,
                   _max_prec(max_prec))


@keywords_after(2, "coef")
def steps_exact(sigma, delta, *, coef="simplified"):
    """M_exact with its certificate (a ``StepsResult``)."""
    from verifier.bounds import theorem31_steps as TS
    s, d = _exact_args(sigma, delta)
    return TS.steps_exact(s, d, coef)


@keywords_after(2, "coef")
def closed_form(sigma, delta, *, coef="simplified"):
    """M_BE, closed form (4), as a certified Interval."""
    from verifier.bounds import theorem31 as T
    s, d = _exact_args(sigma, delta)
    return T.closed_form(s, d, coef)


@keywords_after(2, "coef", "noise_level")
def min_samples(sigma, delta, *, coef="simplified", noise_level="0.1"):
    """Min N = ceil(sigma M_exact / noise_level), or None if M_exact is not certified."""
    from fractions import Fraction

    from verifier.bounds import theorem31_steps as TS
    from verifier.core.arith import parse_exact
    r = steps_exact(sigma, delta, coef=coef)
    if r.m_exact is None:
        return None
    return TS.min_samples(r.m_exact, r.sigma, Fraction(parse_exact(noise_level, "noise_level")))


def _inputs(**kw):
    """Keyword inputs as strings for certificate.parse_inputs; a float is read as the
    decimal it prints as (the one float policy: ``parse_exact``)."""
    from verifier.core.arith import plain_number
    return {k: (str(plain_number(v, k)) if v is not None else None) for k, v in kw.items()}


def _certify_run(run, steps, samples, batch_size, epochs, delta, target_accuracy, bound, clip,
                 target_epsilon, max_prec):
    """certify(run, ...): deploy.run_certify, the run's own flags refused in one line."""
    from verifier.api.profile import parse_epsilon
    from verifier.core.arith import InputError, parse_delta, parse_exact
    from verifier.deploy.run_certify import certify_run
    given = [n for n, v, d in (("steps", steps, None), ("samples", samples, None),
                               ("batch_size", batch_size, None), ("epochs", epochs, 1),
                               ("bound", bound, "all"), ("clip", clip, 1),
                               ("max_prec", max_prec, None)) if v != d]
    if given:
        raise InputError(f"certify(run, ...): a Run carries its steps; drop {', '.join(given)}")
    if delta is None:
        raise InputError("certify(run, delta=D, ...): delta is required")
    return certify_run(run, parse_delta(delta),
                       None if target_epsilon is None else parse_epsilon(target_epsilon),
                       None if target_accuracy is None else
                       parse_exact(target_accuracy, "target accuracy"))


@steps_per_epoch_keyword
def certify(sigma, steps=None, *, samples=None, batch_size=None, epochs=1, delta=None,
            target_accuracy=None, bound="all", clip=1, target_epsilon=None, max_prec=None):
    """Certify deployed parameters against a target; returns a frozen ``Certificate``.

    Every figure is an ``Interval`` (exact rational ``lower`` and ``upper``); every
    verdict is three-valued.  The target is met when one valid bound meets it.

    >>> import verifier
    >>> c = verifier.certify("1", steps_per_epoch=1140369, delta="0.01")
    >>> c.certified, c.status
    (True, 'certified')
    >>> ev = c.bounds["theorem31-simplified"]
    >>> ev.verdict.value, float(ev.delta_epochs.upper) <= 0.01
    ('holds', True)
    >>> verifier.certify("1", steps_per_epoch=1140368, delta="0.01", bound="theorem31-simplified").status
    'not-certified'
    >>> verifier.certify("1", steps_per_epoch=1000, epochs=5, target_accuracy="0.55").certified
    True
    >>> verifier.certify("1.1", steps_per_epoch=20, epochs=3, delta="1e-5", target_epsilon=2).status
    'certified'

    ``target_epsilon`` (with ``delta``): the (epsilon, delta) target, certified by the privacy
    profile, as ``verifier certify --target-epsilon``; ``max_prec``: the precision cap in bits
    (the CLI's ``--max-prec``).  ``certify(run, delta=..., target_epsilon=... or
    target_accuracy=...)`` with a ``verifier.Run``: a ``RunCertificate`` (the run's
    (epsilon, delta), TV and attack accuracy; delta alone: TV <= delta).
    """
    from verifier import deploy as Dp
    from verifier.core.run import Run
    if isinstance(sigma, Run):
        return _certify_run(sigma, steps, samples, batch_size, epochs, delta, target_accuracy,
                            bound, clip, target_epsilon, max_prec)
    from verifier.deploy.inputs import parse_inputs
    inp = parse_inputs(_inputs(sigma=sigma, steps=steps, samples=samples, batch_size=batch_size,
                               epochs=epochs, delta=delta, target_accuracy=target_accuracy,
                               bound=bound, clip=clip, target_epsilon=target_epsilon))
    return Dp.certify(inp.sigma, inp.steps, inp.epochs, inp.target, inp.bound, inp.samples,
                      inp.clip, _max_prec(max_prec), inp.target_epsilon)


def calibrate_steps(sigma, *, epochs=1, delta=None, target_accuracy=None, bound="all"):
    """Smallest steps per epoch M (certified minimal) meeting the target.

    >>> import verifier
    >>> r = verifier.calibrate_steps("1", delta="0.01", bound="theorem31-simplified")
    >>> r.value, r.status
    (1140369, 'certified')
    >>> r.per_bound["theorem31-simplified"].below.verdict.value   # M - 1 certifiably fails
    'fails'
    >>> verifier.calibrate_steps("1", delta="0.01").value          # best valid bound: chi-square
    4296
    """
    from verifier import deploy as Dp
    from verifier.deploy.inputs import parse_inputs
    inp = parse_inputs(_inputs(sigma=sigma, epochs=epochs, delta=delta,
                               target_accuracy=target_accuracy, bound=bound), need_steps=False)
    res = {b: Dp.calibrate_steps(inp.sigma, inp.epochs, inp.target, b)
           for b in Dp.check_bounds(inp.bound)}
    return Dp.combine("steps", res)


def calibrate_sigma(steps, *, epochs=1, delta=None, target_accuracy=None, bound="all",
                    resolution="0.01"):
    """Smallest noise multiplier on the grid ``resolution * k`` meeting the target (like
    Opacus' ``get_noise_multiplier``, but certified: feasible at the answer, certifiably
    infeasible one grid step below).

    >>> import verifier
    >>> r = verifier.calibrate_sigma(10**6, delta="0.01", bound="chi-square")
    >>> r.value
    Fraction(41, 100)
    >>> r = verifier.calibrate_sigma(10**6, delta="0.01", bound="theorem31-rho3")
    >>> r.value, r.per_bound["theorem31-rho3"].sigma_max   # U-shaped: a feasible range
    (Fraction(87, 100), Fraction(921, 100))
    >>> verifier.calibrate_sigma(10**6, delta="0.01", bound="exact-tv").value   # the exact TV
    Fraction(39, 100)
    """
    from verifier import deploy as Dp
    from verifier.deploy.inputs import parse_inputs
    inp = parse_inputs(_inputs(steps=steps, epochs=epochs, delta=delta,
                               target_accuracy=target_accuracy, bound=bound,
                               resolution=resolution), need_sigma=False)
    from verifier.bounds.exact_tv import EXACT_TV
    if inp.bound == EXACT_TV.name:    # against the exact-TV bracket, beside every bound
        r = Dp.calibrate_sigma_over(inp.steps, inp.epochs, inp.target, Dp.BOUNDS,
                                    inp.resolution, with_exact_tv=True)
        return Dp.Calibration("sigma", r.value, r.status, {**r.per_bound, EXACT_TV.name: r.exact})
    res = {b: Dp.calibrate_sigma(inp.steps, inp.epochs, inp.target, b, inp.resolution)
           for b in Dp.check_bounds(inp.bound)}
    return Dp.combine("sigma", res)


@progress_keyword
@steps_per_epoch_keyword
def exact_tv(sigma, steps, epochs=1):
    """Rigorous bracket of the exact total variation (and attack accuracy 1/2 + TV/2).

    >>> import verifier
    >>> r = verifier.exact_tv("1", 10**4)
    >>> r.relative_width < 0.01, float(r.tv.lower) > 0.0052, float(r.tv.upper) < 0.00525
    (True, True, True)
    """
    from verifier.bounds.exact_tv import bracket as X
    from verifier.core.arith import MAX_EXACT_EPOCHS, parse_epochs, parse_steps
    s, _ = _exact_args(sigma)
    return X.exact_tv(s, parse_steps(steps, minimum=2), parse_epochs(epochs, MAX_EXACT_EPOCHS))


@steps_per_epoch_keyword
def compare(sigma, steps, epochs=1):
    """Every bound on delta_E beside the exact bracket: {name: (Interval, ratio Interval)}.

    >>> import verifier
    >>> out = verifier.compare("1", 10**5)
    >>> float(out["chi-square"][1].lower) > 1.2, float(out["theorem31-rho3"][1].lower) > 12
    (True, True)
    """
    from fractions import Fraction

    from verifier import deploy as Dp
    from verifier.core.arith import Interval
    r = exact_tv(sigma, steps, epochs)
    tgt = Dp.Target.make(delta=Fraction(1, 2))
    out = {}
    for b in Dp.BOUNDS:
        ev = Dp.evaluate(b, r.sigma, r.steps, r.epochs, tgt)
        out[b] = (ev.delta_epochs, r.ratio(ev.delta_epochs))
    out["exact-tv"] = (r.tv, Interval(Fraction(1), Fraction(1)))
    return out
