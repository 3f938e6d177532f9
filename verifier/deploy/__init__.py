"""Deployed parameters: certify a configuration, calibrate sigma, steps or samples, over
the bounds of the registry (verifier.bounds).  The names below are the stage's API."""
from verifier.deploy.certify import Certificate, certify
from verifier.deploy.evaluate import (BOUNDS, BoundEval, Target, check_bounds, clamp_tv,
                                      comparisons, evaluate, resolve)
from verifier.deploy.sigma import SigmaCalibration, calibrate_sigma
from verifier.deploy.sigma_exact_tv import (SigmaCalibrations, calibrate_sigma_exact,
                                         calibrate_sigma_over, exact_verdict)
from verifier.deploy.steps import (Calibration, StepsCalibration, calibrate_steps, combine,
                                   min_samples)

__all__ = ["BOUNDS", "BoundEval", "Calibration", "Certificate", "SigmaCalibration",
           "SigmaCalibrations", "calibrate_sigma_over",
           "StepsCalibration", "Target", "calibrate_sigma", "calibrate_sigma_exact",
           "calibrate_steps", "certify", "check_bounds", "clamp_tv", "combine", "comparisons",
           "evaluate", "exact_verdict", "min_samples", "resolve"]
