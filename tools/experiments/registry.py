"""The experiments, in the order REPORT.md lists them. Each is
tools/experiments/exp_NAME.py with run(mode, outdir) -> common.Section,
mode one of common.MODES: tiny (seconds, for the tests), quick (all of them
together well under 15 minutes on 2 cores) or full (the papers' sizes)."""
import importlib.util

from common import HERE

# The host-side ones (tests/host/test_experiments.py runs them).
HOST_EXPERIMENTS = (
    "pfair_overhead",
    "bus_contention",
    "gdq_error",
    "edf_push",
    "servers",
)
# The ones that boot the kernel in QEMU (tests/boot/
# test_experiments_kernel.py runs them). litmus_schedulability and
# litmus_rnp (and locking_schedulability) inflate with litmus_overheads'
# CSVs, so they come after it
# (tools/experiments/kernel_overheads.py; without the CSVs they boot).
KERNEL_EXPERIMENTS = (
    "pfair_overhead_kernel",
    "litmus_overheads",
    "litmus_schedulability",
    "litmus_rnp",
    "locking_schedulability",
    "litmus_tardiness",
    "litmus_backtest",
    "gdq_kernel",
    "edf_kernel",
    "release_latency",
    "servers_qemu",
    "bus_contention_kernel",
)
EXPERIMENTS = HOST_EXPERIMENTS + KERNEL_EXPERIMENTS
# Experiments run side by side (tools/experiments/run.py); these read
# another's output from the same root, so they start when it has ended.
AFTER = {
    "pfair_overhead_kernel": ("pfair_overhead",),
    "litmus_schedulability": ("litmus_overheads",),
    "litmus_rnp": ("litmus_overheads",),
    "locking_schedulability": ("litmus_overheads",),
}


def load(name):
    if name not in EXPERIMENTS:
        raise SystemExit(f"no experiment '{name}'; have: "
                         f"{' '.join(EXPERIMENTS)}")
    spec = importlib.util.spec_from_file_location(
        f"exp_{name}", HERE / f"exp_{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
