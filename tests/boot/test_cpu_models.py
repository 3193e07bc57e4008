"""The CPUs people own (issue 24, item 3): the default task set under
staggered Pfair on QEMU CPU models other than the default -- `max`, an
Intel server (Icelake-Server), AMD's EPYC, and `max` with one feature
taken away at a time. On each, the kernel comes up, `RESULT cpu` names
the CPU and sorts the features exactly as QEMU says it exposes them (asked
over QMP, apart from the kernel), and the executed schedule under virtual
time is the simulator's.

Under QEMU 7.2's TCG, x2apic, tsc-deadline, pcid and invtsc are never
exposed, whatever the model asks (QEMU warns "TCG doesn't support
requested feature"): taking them away from `max` must change nothing, and
the test checks that it changes nothing. Bochs (tests/boot/test_bochs.py)
and KVM (test_kvm.py, opt-in) run x2APIC and TSC-deadline mode. `max`
under TCG is an AMD CPU (AuthenticAMD, family 15), as EPYC is, so the
SYSCALL/SYSRET path of every ring-3 task's system calls and the APIC run
on an AMD-vendor CPU in three of the boots."""
import json
import os
import socket
import subprocess
import tempfile
import time

import pytest

from harness import ROOT, qemu
from test_sched_in_kernel import ICOUNT, kernel_schedule, simulator_schedule

# The kernel's feature names (RESULT cpu) and QEMU's property names.
QEMU_PROP = {"x2apic": "x2apic", "tsc_deadline": "tsc-deadline",
             "invtsc": "invtsc", "arat": "arat", "smep": "smep",
             "smap": "smap", "umip": "umip", "nx": "nx", "pcid": "pcid",
             "xsave": "xsave"}
REMOVED = ["x2apic", "tsc_deadline", "smap", "smep", "umip", "pcid",
           "xsave", "invtsc"]
MODELS = (["max", "Icelake-Server", "EPYC"] +
          [f"max,-{QEMU_PROP[f]}" for f in REMOVED])
SLOTS = 30
CPUS = 2


def qmp_cpu(model):
    """What QEMU says the CPU model exposes under TCG: its vendor, family,
    model, stepping and the features of QEMU_PROP, read from the CPU object
    of a machine that never starts (-S)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qmp.sock")
        proc = subprocess.Popen(
            ["qemu-system-x86_64", "-machine", "pc,accel=tcg", "-cpu", model,
             "-display", "none", "-nodefaults", "-S",
             "-qmp", f"unix:{path},server=on,wait=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            sock = socket.socket(socket.AF_UNIX)
            deadline = time.monotonic() + 30
            while True:
                try:
                    sock.connect(path)
                    break
                except OSError:
                    assert proc.poll() is None, f"QEMU refused -cpu {model}"
                    assert time.monotonic() < deadline, "no QMP socket"
                    time.sleep(0.05)
            f = sock.makefile("rw")

            def ask(cmd, **args):
                f.write(json.dumps({"execute": cmd, "arguments": args}) +
                        "\n")
                f.flush()
                while True:
                    r = json.loads(f.readline())
                    if "return" in r:
                        return r["return"]
                    assert "error" not in r, r

            json.loads(f.readline())            # the greeting
            ask("qmp_capabilities")
            cpu = ask("query-cpus-fast")[0]["qom-path"]
            out = {k: ask("qom-get", path=cpu, property=k)
                   for k in ("vendor", "family", "model", "stepping")}
            out["features"] = {name for name, prop in QEMU_PROP.items()
                               if ask("qom-get", path=cpu, property=prop)}
            ask("quit")
            sock.close()
        finally:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return out


@pytest.mark.parametrize("model", MODELS)
def test_cpu_model_boots_and_runs_the_simulators_schedule(iso_with, model):
    want = qmp_cpu(model)
    removed = model.partition(",-")[2]
    if removed:
        name = next(k for k, v in QEMU_PROP.items() if v == removed)
        assert name not in want["features"], want
    tasks = ROOT / "tasks" / "default.tasks"
    boot = qemu(iso_with(f"sched=spd2 slots={SLOTS}", tasks=tasks),
                smp=CPUS, icount=ICOUNT, extra=["-cpu", model])
    assert boot.passed, boot.tail()
    cpu = boot.result("cpu")
    assert {k: cpu[k] for k in ("vendor", "family", "model", "stepping")} \
        == {k: str(want[k]) for k in ("vendor", "family", "model",
                                      "stepping")}
    lists = {k: set(cpu[k].split(",")) - {"none"}
             for k in ("uses", "lacks", "unused")}
    assert lists["uses"] | lists["unused"] == want["features"], cpu
    assert lists["lacks"] == set(QEMU_PROP) - want["features"], cpu
    # The modes the kernel chose are what the CPU has.
    assert boot.result("smp")["apic"] == \
        ("x2apic" if "x2apic" in want["features"] else "xapic")
    assert boot.result("tsc")["deadline"] == \
        ("1" if "tsc_deadline" in want["features"] else "0")
    assert kernel_schedule(boot.serial) == \
        simulator_schedule("spd2", CPUS, SLOTS, tasks)
