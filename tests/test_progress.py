"""Progress on long work: a line on stderr when it is a terminal, nothing when
it is not, nothing with --json."""
from __future__ import annotations

import os
import pty
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLAIMS = """format = "verifier-claims/2"
[source]
paper = "p"
[[claims]]
id = "e"
where = "w"
expr = "exp(1)"
printed = "2.718"
judge = "rounded"
[[claims]]
id = "d"
where = "w"
expr = "delta_at(sigma=2, steps=10, epsilon=1)"
printed = "0.00000001"
judge = "at-least"
"""


def _file(tmp_path):
    f = tmp_path / "small.toml"
    f.write_text(CLAIMS)
    return str(f)


def _in_pty(*args):
    m, s = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "verifier", *args], stdout=subprocess.PIPE,
                         stderr=s, stdin=subprocess.DEVNULL, cwd=ROOT)
    os.close(s)
    err = b""
    while True:
        try:
            chunk = os.read(m, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    p.wait(timeout=600)
    os.close(m)
    return p.returncode, p.stdout.read().decode(), err.decode()


def test_progress_on_a_terminal_only(tmp_path):
    FILE = _file(tmp_path)
    rc, out, err = _in_pty("audit", FILE, "--out", str(tmp_path / "a"))
    assert "auditing small: 0/2" in err
    assert "auditing" not in out and "small: 2 claims" in out
    p = subprocess.run([sys.executable, "-m", "verifier", "audit", FILE, "--out",
                        str(tmp_path / "b")], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert p.stderr == "" and p.returncode == rc


def test_no_progress_with_json_even_on_a_terminal(tmp_path):
    rc, out, err = _in_pty("audit", _file(tmp_path), "--out", str(tmp_path / "a"), "--json")
    assert "auditing" not in err and out.lstrip().startswith("{")


# ---- the waits issue 47 names: each says what it is doing (the API's progress= callback)

def _heard(call, **kwargs):
    seen = []
    result = call(**kwargs, progress=lambda stage, done, total: seen.append((stage, done, total)))
    return result, seen


def test_get_noise_multiplier_says_which_sigma_it_tries():
    import verifier
    for acc, extra in (("random_allocation", {}), ("certified_poisson", {})):
        s, seen = _heard(verifier.get_noise_multiplier, target_epsilon=2.0, target_delta=1e-5,
                         sample_rate=0.05, epochs=2, epsilon_tolerance=0.1, accountant=acc,
                         **extra)
        tries = [st for st, _, _ in seen if st.startswith("get_noise_multiplier: trying sigma")]
        assert tries and f"trying sigma = {s}" in " ".join(tries), (acc, seen[:5])
        quiet = verifier.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5,
                                              sample_rate=0.05, epochs=2, epsilon_tolerance=0.1,
                                              accountant=acc)
        assert quiet.sigma == s.sigma                            # listening changes nothing


def test_the_poisson_engine_and_the_renyi_orders_report_their_stages():
    import verifier
    r, seen = _heard(verifier.poisson_epsilon, sigma=1, sample_rate=0.01, steps=200,
                     delta=1e-5)
    assert any(st.startswith("Poisson, T = 200 steps: composing") for st, _, _ in seen), seen
    r, seen = _heard(verifier.rdp, sigma=2, steps_per_epoch=10, epochs=1, orders=[2, 3])
    assert [(d, t) for st, d, t in seen if st.startswith("Rényi")][:2] == [(0, 2), (1, 2)]


def test_calibrate_says_which_value_it_tries(cli, monkeypatch):
    from verifier.core import progress
    seen = []
    with progress.listening(lambda *a: seen.append(a[0])):
        rc, out, _ = cli("calibrate", "steps", "--epochs", "3", "--sigma", "1.2",
                         "--target-epsilon", "2", "--delta", "1e-5")
    assert rc == 0 and any(s.startswith("calibrate steps: trying steps = ") for s in seen)


def test_a_progress_argument_that_is_no_callable_is_refused_and_one_that_raises_stops():
    import pytest

    import verifier
    with pytest.raises(verifier.InputError, match="progress must be a callable"):
        verifier.epsilon(1, 10, 1, delta=1e-5, progress=3)

    def stop(stage, done, total):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        verifier.poisson_epsilon("1.1", 0.01, 203, delta=1e-5, progress=stop)   # not cached
