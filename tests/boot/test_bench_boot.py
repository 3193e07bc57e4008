"""The boot benchmark runs end to end (smoke mode: one boot)."""
import subprocess
import sys

from harness import ROOT


def test_boot_benchmark_smoke(iso, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/run_all.py"), "--mode",
         "smoke", "--only", "boot", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    csv = (tmp_path / "boot" / "boot.csv").read_text().splitlines()
    assert len(csv) == 1 + 2, csv  # header, aligned and staggered rows
