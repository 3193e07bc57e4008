"""The experiments, in the order REPORT.md lists them. Each is
tools/experiments/exp_NAME.py with run(mode, outdir) -> common.Section,
mode one of common.MODES: tiny (seconds, for the tests), quick (all of them
together well under 15 minutes on 2 cores) or full (the papers' sizes)."""
import importlib.util

from common import HERE

EXPERIMENTS = (
    "pfair_overhead",
    "bus_contention",
    "gdq_error",
    "edf_push",
    "servers",
    "servers_qemu",
    "litmus_schedulability",
)


def load(name):
    if name not in EXPERIMENTS:
        raise SystemExit(f"no experiment '{name}'; have: "
                         f"{' '.join(EXPERIMENTS)}")
    spec = importlib.util.spec_from_file_location(
        f"exp_{name}", HERE / f"exp_{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
