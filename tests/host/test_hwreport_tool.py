"""tools/rtk-hwreport against lib/hwblock (the kernel's writer of the
hardware report's block, served by tests/host/c/test_hwblock.c): what the
writer puts in a block the tool reads back, and a block damaged the ways a
copy goes wrong -- a character changed, a line lost, lines swapped, the
end line changed or cut off -- is refused, naming what is wrong."""
import functools
import importlib.machinery
import importlib.util
import json
import subprocess

from hypothesis import given, settings, strategies as st

from conftest import ROOT, host_tool

TOOL = ROOT / "tools" / "rtk-hwreport"

# The fields of a block Bochs printed (docs/hardware.md shows it).
BOCHS = [
    ("cpu", "vendor=GenuineIntel family=6 model=60 stepping=3"),
    ("name", "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz"),
    ("uses", "x2apic tsc_deadline invtsc arat smep nx"),
    ("lacks", "smap umip"), ("unused", "pcid xsave"),
    ("topo", "src=leaf0b smt_bits=0 core_bits=1 packages=1 cores=2"),
    ("apic", "mode=x2apic bsp=0 online=2 found=2"), ("ids", "0-1"),
    ("tsc", "khz=50000 via=hpet invariant=1 skew_cycles=2"),
    ("ref", "hpet=+0ppm pmtimer=+0ppm pit=+0ppm rejected=0"),
    ("timer", "tsc_deadline=1 used=deadline arat=1"),
    ("refclocks", "hpet_mhz=100.000 hpet_bits=64 pmtimer_bits=24"),
    ("run", "q_us=1000 quanta=30 smi_before=0 smi_after=0"),
    ("aligned", "missed=0 p50_us=0.060 p99_us=0.060 max_us=0.060"),
    ("aligned_late", "1.160us@0:0 1.160us@0:1 1.160us@0:2"),
    ("staggered", "missed=0 p50_us=1.100 p99_us=1.100 max_us=1.100"),
    ("staggered_late", "1.100us@0:0 1.100us@0:1 1.100us@0:2"),
]


def write(fields):
    """The block lib/hwblock makes of [(key, "tokens")]."""
    cmd = "".join(f"K {k}\n" + "".join(f"T {t}\n" for t in v.split())
                  for k, v in fields) + "E\n"
    out = subprocess.run([str(host_tool("tests/test_hwblock")), "--stdin"],
                         input=cmd, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def load_tool():
    """The tool as a module, for the property tests' many blocks."""
    loader = importlib.machinery.SourceFileLoader("rtk_hwreport", str(TOOL))
    spec = importlib.util.spec_from_loader("rtk_hwreport", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


hw = load_tool()


def decode(text):
    """The tool's reading of the one block in text; Damaged if refused."""
    (found,) = hw.blocks(text.split("\n"))
    return hw.verify(*found)


@functools.lru_cache(maxsize=None)
def bochs_block():
    return write(BOCHS)


def tool(text, *args):
    return subprocess.run([str(TOOL), *args], input=text,
                          capture_output=True, text=True, timeout=60)


def refused(text, *messages):
    out = tool(text)
    assert out.returncode == 1, out.stdout
    assert out.stdout == "", "a damaged block must not be shown"
    assert "the block does not verify" in out.stderr
    for m in messages:
        assert m in out.stderr, out.stderr
    return out.stderr


def test_a_real_block_reads_back_as_written():
    block = write(BOCHS)
    lines = block.splitlines()
    assert max(len(l) for l in lines) <= 64
    # In a console log, pasted with indentation, CRs and doubled spaces.
    pasted = "noise before\n" + "\n".join(
        "   " + l.replace(" ", "  ") + "\r" for l in lines) + "\nRESULT x\n"
    out = tool(pasted, "--json")
    assert out.returncode == 0, out.stderr
    fields = json.loads(out.stdout)
    assert fields == {k: v.split() for k, v in BOCHS}
    table = tool(block)
    assert table.returncode == 0
    assert "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz" in table.stdout


def test_notes_point_at_what_matters():
    bad = dict(BOCHS)
    bad["tsc"] = "khz=50000 via=hpet invariant=0 skew_cycles=2"
    bad["ref"] = "hpet=+0ppm pmtimer=-250ppm pit=+3ppm rejected=0"
    bad["run"] = "q_us=1000 quanta=30 smi_before=7 smi_after=10"
    bad["staggered"] = "missed=4 p50_us=1.100 p99_us=1.100 max_us=1.100"
    bad["lacks"] = "smap umip arat"
    out = tool(write(list(bad.items()))).stdout
    notes = [l for l in out.splitlines() if l.startswith("note: ")]
    assert notes == [
        "note: the TSC is not invariant: its rate may change with power "
        "states, so times measured may be off",
        "note: pmtimer disagrees with the TSC's rate by -250 ppm",
        "note: 3 SMIs during the measurement (firmware took the CPUs "
        "away): see docs/hardware.md on SMIs",
        "note: staggered: 4 boundaries missed",
        "note: no always-running APIC timer (ARAT): deep C-states may stop "
        "the quantum timer; turn C-states off"]
    assert "note:" not in tool(write(BOCHS)).stdout


def test_each_way_a_copy_goes_wrong_is_named():
    lines = bochs_block().splitlines()
    changed = list(lines)
    changed[9] = changed[9].replace("khz=50000", "khz=60000")
    refused("\n".join(changed), "line 09 ('tsc khz=60000 via=hpet "
            "invariant=1 skew_cycles=2') was changed")
    refused("\n".join(lines[:5] + lines[6:]), "line 05 missing")
    swapped = lines[:3] + [lines[4], lines[3]] + lines[5:]
    refused("\n".join(swapped), "lines out of order or repeated: 01 02 04 "
            "03 05")
    end = lines[-1][:-1] + ("0" if lines[-1][-1] != "0" else "1")
    refused("\n".join(lines[:-1] + [end]), "the end line says")
    refused("\n".join(lines[:-1]), "no 'rtk-hw end' line after 'rtk-hw "
            "begin': the block is cut short")
    refused("rtk: real-time SMP microkernel\nRESULT exit status=pass\n",
            "no 'rtk-hw begin' line")
    refused("\n".join(["rtk-hw begin v9"] + lines[1:]),
            "'rtk-hw begin v9': this tool reads v1")
    refused("\n".join(lines[:3] + ["03 zz what"] + lines[3:]),
            "'03 zz what' is not a report line")
    out = subprocess.run([str(TOOL), "/no/such/file"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "cannot read /no/such/file" in out.stderr


tokens = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e),
                 min_size=1, max_size=30)
keys = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"), min_size=1,
               max_size=15)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(keys, st.lists(tokens, max_size=12)), min_size=1,
                max_size=12))
def test_any_fields_read_back(fields):
    block = write([(k, " ".join(v)) for k, v in fields])
    assert all(len(l) <= 64 for l in block.splitlines())
    want = {}
    for k, v in fields:
        want.setdefault(k, []).extend(v)
    assert decode(block) == want


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_changed_character_is_refused(data):
    """A CRC-32 sees every change of one character; where the line's own
    check sees it too (all but 1 in 256), the line is named."""
    lines = bochs_block().splitlines()
    i = data.draw(st.integers(1, len(lines) - 1))
    line = lines[i]
    at = data.draw(st.integers(0, len(line) - 1))
    if line[at] == " ":
        at = max(0, at - 1)
    new = data.draw(st.characters(min_codepoint=0x21, max_codepoint=0x7e)
                    .filter(lambda c: c != line[at]))
    lines[i] = line[:at] + new + line[at + 1:]
    try:
        decode("\n".join(lines))
    except hw.Damaged as e:
        err = "\n".join(e.args[0])
    else:
        raise AssertionError(f"accepted with line {i} changed: {lines[i]}")
    if i < len(lines) - 1 and at >= 6:
        assert f"line {i:02d} (" in err or "CRC-32" in err, err
