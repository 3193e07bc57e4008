"""The benchmarks that boot the ISO run end to end in smoke mode: the boot
benchmark (one boot: an aligned and a staggered row), the clock under a
scheduler (one spd2 boot on 2 CPUs) and bring-up against the CPU count (one
boot each on 1 and 4 CPUs)."""
import subprocess
import sys

import pytest

from harness import ROOT


@pytest.mark.parametrize("name,csv,first_cells", [
    ("boot", "boot.csv", ["tcg,2,0,", "tcg,2,0,"]),
    ("sched_clock", "sched_clock.csv", ["spd2,tcg,2,0,staggered,"]),
    ("bringup", "bringup.csv", ["tcg,1,0,", "tcg,4,0,"]),
])
def test_booting_benchmark_smoke(iso, tmp_path, name, csv, first_cells):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/run_all.py"), "--mode",
         "smoke", "--only", name, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = (tmp_path / name / csv).read_text().splitlines()[1:]
    assert len(rows) == len(first_cells), rows
    for row, start in zip(rows, first_cells):
        assert row.startswith(start), (row, start)
