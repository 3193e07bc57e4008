"""Each host benchmark runs end to end in its smoke mode and writes a CSV.
Benchmarks that boot the ISO (NEEDS_ISO) are run by tests/boot instead."""
import subprocess
import sys

import pytest

from conftest import HERE_UNCACHED, ROOT


def bench_needs_iso(path):
    return "\nNEEDS_ISO = True" in path.read_text()


BENCHES = sorted(p.stem[len("bench_"):]
                 for p in (ROOT / "tools/bench").glob("bench_*.py")
                 if not bench_needs_iso(p))


@pytest.mark.parametrize("name", BENCHES)
def test_benchmark_smoke(name, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/run_all.py"), "--mode",
         "smoke", "--only", name, "--out", str(tmp_path), *HERE_UNCACHED],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert list((tmp_path / name).glob("*.csv")), "no CSV written"
