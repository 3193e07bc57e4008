"""Every #include follows the layer table of docs/design.md: a folder uses
only itself and the layers it may use, so arrows run downward and sched/ and
lib/ stay free of hardware."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]

# folder -> the folders its files may include from (besides itself).
MAY_USE = {
    "boot": set(),
    "lib": set(),
    "arch/x86": {"lib"},
    "drivers/apic": {"arch/x86", "lib"},
    "drivers/fb": {"arch/x86", "lib"},
    "drivers/serial": {"arch/x86", "lib"},
    "sched": {"lib"},
    "kernel": {"arch/x86", "drivers/apic", "drivers/fb", "drivers/serial",
               "sched", "lib"},
    # Ring-3 programs: their own lib part, and the ABI header they share
    # with the kernel.
    "user": {"lib/rt_abi.h"},
    "tools": {"sched", "lib"},
}

INCLUDE = re.compile(r'^\s*(?:#\s*include\s+"([^"]+)"|%include\s+"([^"]+)")',
                     re.M)


def layer_of(path):
    """The layer table's folder holding path (relative to ROOT), or None."""
    rel = path.as_posix()
    best = None
    for folder in MAY_USE:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def allowed(src_layer, target):
    if layer_of(target) == src_layer:
        return True
    for use in MAY_USE[src_layer]:
        t = target.as_posix()
        if t == use or t.startswith(use + "/"):
            return True
    return False


def sources():
    for folder in MAY_USE:
        base = ROOT / folder
        if not base.exists():
            continue
        for p in sorted(base.rglob("*")):
            if p.suffix in (".c", ".h", ".asm", ".inc", ".S"):
                yield p


def violations():
    found = set()
    for src in sources():
        rel_src = src.relative_to(ROOT)
        layer = layer_of(rel_src)
        for m in INCLUDE.finditer(src.read_text(errors="replace")):
            inc = m.group(1) or m.group(2)
            # NASM resolves %include from the repository root (-I. is not
            # needed: the build runs there); C from the including file.
            if m.group(2):
                target = pathlib.Path(inc)
            else:
                target = (src.parent / inc).resolve().relative_to(ROOT)
            if not allowed(layer, target):
                found.add((rel_src.as_posix(), target.as_posix()))
    return found


def test_every_include_follows_the_layer_table():
    assert violations() == set(), (
        "includes that run against the layer table (docs/design.md):\n" +
        "\n".join(f"  {s} -> {t}" for s, t in sorted(violations())))


def test_the_check_sees_a_violation(tmp_path, monkeypatch):
    """The check is not vacuous: an arch/ file reaching up into kernel/ is
    caught, and one using lib/ is not."""
    fake = tmp_path / "arch" / "x86"
    fake.mkdir(parents=True)
    (fake / "bad.c").write_text('#include "../../kernel/console.h"\n'
                                '#include "../../lib/fmt.h"\n')
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "console.h").write_text("")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fmt.h").write_text("")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert violations() == {("arch/x86/bad.c", "kernel/console.h")}
