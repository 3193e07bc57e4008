"""Each benchmark runs end to end in its smoke mode and writes a CSV."""
import subprocess
import sys

import pytest

from conftest import ROOT

BENCHES = sorted(p.stem[len("bench_"):]
                 for p in (ROOT / "tools/bench").glob("bench_*.py"))


@pytest.mark.parametrize("name", BENCHES)
def test_benchmark_smoke(name, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/run_all.py"), "--mode",
         "smoke", "--only", name, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert list((tmp_path / name).glob("*.csv")), "no CSV written"
