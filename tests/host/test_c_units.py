"""Runs every C unit test (tests/host/c/test_*.c, built with sanitizers)."""
import subprocess

import pytest

from conftest import HOST, ROOT

C_TESTS = sorted(p.stem for p in (ROOT / "tests/host/c").glob("test_*.c"))


@pytest.mark.parametrize("name", C_TESTS)
def test_c_unit(name):
    binary = HOST / "tests" / name
    assert binary.exists(), f"{binary} missing: run `make host`"
    proc = subprocess.run([str(binary)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
