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


# ---- inside kernel/: its subsystem folders (docs/design.md, "Inside
# kernel/"), each using only itself and the folders listed; kernel/main.c,
# the boot sequence at the top, may use them all.
KERNEL_MAY_USE = {
    "kernel/core": set(),
    "kernel/trace": {"kernel/core"},
    "kernel/time": {"kernel/core", "kernel/trace"},
    "kernel/arrivals": {"kernel/core"},
    "kernel/task": {"kernel/core", "kernel/trace", "kernel/time"},
    "kernel/run": {"kernel/core", "kernel/trace", "kernel/time",
                   "kernel/task"},
    "kernel/events": {"kernel/core", "kernel/trace", "kernel/time",
                      "kernel/arrivals", "kernel/task", "kernel/run"},
    "kernel/debug": {"kernel/core", "kernel/trace", "kernel/time",
                     "kernel/task", "kernel/run"},
    "kernel/report": {"kernel/core", "kernel/trace", "kernel/time"},
}
C_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def kernel_includes():
    """(file, included file) for every quoted #include between two files
    of kernel/, paths relative to ROOT."""
    for src in sorted((ROOT / "kernel").rglob("*")):
        if src.suffix not in (".c", ".h"):
            continue
        for inc in C_INCLUDE.findall(src.read_text(errors="replace")):
            target = (src.parent / inc).resolve()
            try:
                rel = target.relative_to(ROOT / "kernel")
            except ValueError:
                continue        # outside kernel/: the table above covers it
            yield (src.relative_to(ROOT).as_posix(),
                   ("kernel" / rel).as_posix())


def kernel_folder(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else None


def kernel_violations():
    found = set()
    for src, target in kernel_includes():
        have, want = kernel_folder(src), kernel_folder(target)
        if have is None or have == want:
            continue            # kernel/main.c, or the same folder
        if have not in KERNEL_MAY_USE:
            found.add((src, f"{have}/ is not in the table"))
        elif want not in KERNEL_MAY_USE[have]:
            found.add((src, target))
    return found


def kernel_cycles():
    """Include cycles between kernel/'s units: a unit is a .c file and the
    header of the same name (what one file's includes and calls reach),
    so x.c including y.h and y.c including x.h is a cycle. Returns the
    strongly connected components of more than one unit, sorted."""
    graph = {}
    for src, target in kernel_includes():
        a, b = src.rsplit(".", 1)[0], target.rsplit(".", 1)[0]
        graph.setdefault(a, set())
        graph.setdefault(b, set())
        if a != b:
            graph[a].add(b)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):       # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(comps)


def test_kernel_folders_follow_their_table():
    folders = {p.relative_to(ROOT).as_posix()
               for p in (ROOT / "kernel").iterdir() if p.is_dir()}
    assert folders == set(KERNEL_MAY_USE), (
        "kernel/'s folders and the table differ (docs/design.md)")
    assert kernel_violations() == set(), (
        "includes inside kernel/ that run against its table "
        "(docs/design.md):\n" +
        "\n".join(f"  {s} -> {t}" for s, t in sorted(kernel_violations())))


def test_no_include_cycle_inside_kernel():
    assert kernel_cycles() == [], kernel_cycles()


def test_the_kernel_checks_see_an_upward_include_and_a_cycle(tmp_path,
                                                              monkeypatch):
    """Not vacuous: task/ including run/ is caught as upward, and two units
    of one folder that include each other's headers are a cycle."""
    k = tmp_path / "kernel"
    for folder in KERNEL_MAY_USE:
        (tmp_path / folder).mkdir(parents=True)
    (k / "task" / "a.c").write_text('#include "b.h"\n#include "../run/r.h"\n')
    (k / "task" / "b.c").write_text('#include "a.h"\n')
    (k / "task" / "a.h").write_text("")
    (k / "task" / "b.h").write_text("")
    (k / "run" / "r.h").write_text('#include "../task/a.h"\n')
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert kernel_violations() == {("kernel/task/a.c", "kernel/run/r.h")}
    assert kernel_cycles() == [["kernel/run/r", "kernel/task/a",
                                "kernel/task/b"]]
