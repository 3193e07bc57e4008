"""Every fuzz target (tests/fuzz/targets/, docs/testing.md "Fuzzing") runs
under `make test` for a short, fixed number of inputs with a fixed seed:
its committed seeds and regression inputs first, each of which must pass,
then mutations of them. A crash fails the test with libFuzzer's report and
the command that replays the input. `make fuzz` runs the same targets for
as long as one likes."""
import importlib.util
import pathlib

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location(
    "fuzz_run", ROOT / "tests" / "fuzz" / "run.py")
fuzz_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz_run)

TARGETS = fuzz_run.targets()
SEED = 1


def test_every_target_has_seeds():
    assert TARGETS, "no fuzz target found"
    for name in TARGETS:
        seeds = ROOT / "tests" / "fuzz" / "corpus" / name
        assert seeds.is_dir() and any(seeds.iterdir()), (
            f"fuzz target {name} has no seed corpus in {seeds}")


@pytest.mark.parametrize("name", TARGETS)
def test_fuzz_target_briefly(name, tmp_path):
    why = fuzz_run.missing(name)
    assert why is None, why
    runs = fuzz_run.TEST_RUNS.get(name, fuzz_run.TEST_RUNS_DEFAULT)
    status, out = fuzz_run.run(name, tmp_path, runs=runs, seed=SEED)
    found = fuzz_run.crash_file(out, tmp_path)
    assert status == 0, (
        "\n".join(out.splitlines()[-60:]) +
        (f"\nreplay: {fuzz_run.replay_command(name, found)}" if found else ""))
    # Every seed and regression input was read (libFuzzer counts them).
    for folder in fuzz_run.seed_dirs(name):
        n = sum(1 for _ in folder.iterdir())
        assert f"INFO: {n:8d} files found in {folder.parent.name}" in out, (
            f"the inputs in {folder} were not all read")
