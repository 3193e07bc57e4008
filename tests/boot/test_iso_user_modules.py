"""The ISO carries every ring-3 program of user/ as a multiboot2 module
named user:NAME, in every menu entry, after the task set when there is one
(scripts/mkiso.sh, boot/grub.cfg)."""
import re
import subprocess

from harness import BUILD, ROOT

PROGRAMS = sorted(p.stem for p in (ROOT / "user").glob("*.c"))


def extract(iso, tmp_path):
    out = tmp_path / "tree"
    subprocess.run(["xorriso", "-osirrox", "on", "-indev", str(iso),
                    "-extract", "/boot", str(out)], capture_output=True,
                   check=True, timeout=120)
    return out


def menu_modules(cfg):
    """[(entry title, [module2 lines])] of a grub.cfg."""
    entries = re.findall(r'menuentry "([^"]+)" \{(.*?)\n\}', cfg, re.S)
    return [(title, [l.strip() for l in body.splitlines()
                     if l.strip().startswith("module2")])
            for title, body in entries]


def check_programs(tree, modules):
    assert modules == [f"module2 /boot/user/{p}.elf user:{p}" for p in PROGRAMS]
    for p in PROGRAMS:
        assert (tree / "user" / f"{p}.elf").read_bytes() == \
            (BUILD / "user" / f"{p}.elf").read_bytes()


def test_every_entry_carries_every_program(iso, tmp_path):
    tree = extract(iso, tmp_path)
    cfg = (tree / "grub" / "grub.cfg").read_text()
    entries = menu_modules(cfg)
    assert len(entries) == cfg.count("menuentry ") and entries
    for title, modules in entries:
        check_programs(tree, modules)
    assert all(l.strip() != "@MODULE@" for l in cfg.splitlines())


def test_task_set_comes_first_with_its_own_string(iso_with, tmp_path):
    tasks = tmp_path / "two.tasks"
    tasks.write_text("task A e=1 p=2 work=writer\ntask B e=1 p=3\n")
    tree = extract(iso_with("sched=spd2", tasks=tasks, entry=2), tmp_path)
    cfg = (tree / "grub" / "grub.cfg").read_text()
    assert "set default=2" in cfg
    for title, modules in menu_modules(cfg):
        assert modules[0] == "module2 /boot/taskset.tasks two.tasks"
        check_programs(tree, modules[1:])
    assert (tree / "taskset.tasks").read_text() == tasks.read_text()


def test_menu_entries_are_named_after_what_they_boot(iso, iso_with,
                                                     tmp_path):
    """The first entry says which scheduler runs over which task set (or,
    without one, the self-measurement); the others add the words given."""
    plain = [t for t, _ in menu_modules(
        (extract(iso, tmp_path / "plain") / "grub" / "grub.cfg").read_text())]
    assert plain[0] == "rtk: measure the aligned and staggered quantum clocks"
    assert all("@" not in t for t in plain), plain
    tasks = tmp_path / "two.tasks"
    tasks.write_text("task A e=1 p=2\n")
    words = "sched=gedf slots=40 timing=virtual"
    tree = extract(iso_with(words, tasks=tasks), tmp_path / "run")
    titles = [t for t, _ in menu_modules(
        (tree / "grub" / "grub.cfg").read_text())]
    assert titles[0] == "rtk: run gedf over two.tasks (slots=40 timing=virtual)"
    assert titles[1:] == [f"{t} ({words})" for t in plain[1:]]
