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
