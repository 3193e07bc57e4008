"""The ISO carries ring-3 programs as multiboot2 modules named user:NAME,
in every menu entry, after the task set when there is one: every program
of user/ without a task set, exactly those the set names with one, and a
name no program has is refused before any boot (scripts/mkiso.sh,
boot/grub.cfg, make's USER_PROGS_DIR)."""
import re
import subprocess

from harness import BUILD, ROOT, drop_user_progs_build, user_progs_build

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


def check_programs(tree, modules, programs=PROGRAMS, built=None):
    assert modules == [f"module2 /boot/user/{p}.elf user:{p}" for p in programs]
    for p in programs:
        src = (built or {}).get(p, BUILD / "user" / f"{p}.elf")
        assert (tree / "user" / f"{p}.elf").read_bytes() == src.read_bytes()
    assert sorted(f.stem for f in (tree / "user").iterdir()) == sorted(programs)


def test_every_entry_carries_every_program(iso, tmp_path):
    tree = extract(iso, tmp_path)
    cfg = (tree / "grub" / "grub.cfg").read_text()
    entries = menu_modules(cfg)
    assert len(entries) == cfg.count("menuentry ") and entries
    for title, modules in entries:
        check_programs(tree, modules)
    assert all(l.strip() != "@MODULE@" for l in cfg.splitlines())


def test_task_set_comes_first_and_only_its_programs_follow(iso_with,
                                                          tmp_path):
    tasks = tmp_path / "two.tasks"
    tasks.write_text("task A e=1 p=2 work=writer\ntask B e=1 p=3\n"
                     "task C e=1 p=4 work=writer\n")
    tree = extract(iso_with("sched=spd2", tasks=tasks, entry=2), tmp_path)
    cfg = (tree / "grub" / "grub.cfg").read_text()
    assert "set default=2" in cfg
    assert re.findall(r"^set timeout=(.*)$", cfg, re.M) == ["0"]
    for title, modules in menu_modules(cfg):
        assert modules[0] == "module2 /boot/taskset.tasks two.tasks"
        check_programs(tree, modules[1:], ["writer", "spin"])
    assert (tree / "taskset.tasks").read_text() == tasks.read_text()


def make_iso_of(tmp_path, tasks, *more):
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT),
                           f"RUN_ISO_FILE={tmp_path / 'run.iso'}",
                           "SCHED=gedf", f"TASKS={tasks}", *more,
                           str(tmp_path / "run.iso")],
                          capture_output=True, text=True, timeout=600)


def test_make_packs_a_program_of_user_progs_dir(tmp_path):
    """USER_PROGS_DIR=DIR: DIR/mine.c is built with user/'s library and
    packed as user:mine when the set names it."""
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "mine.c").write_text(
        '#include "lib/start.h"\n'
        "int64_t user_main(int argc, char **argv,\n"
        "                  volatile struct rt_control *ctl)\n"
        "{ (void)argv; (void)ctl; return argc; }\n")
    tasks = tmp_path / "mine.tasks"
    tasks.write_text("task M e=1 p=2 work=mine\n")
    proc = make_iso_of(tmp_path, tasks, f"USER_PROGS_DIR={progs}")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    tree = extract(tmp_path / "run.iso", tmp_path)
    cfg = (tree / "grub" / "grub.cfg").read_text()
    for _, modules in menu_modules(cfg):
        check_programs(tree, modules[1:], ["mine"],
                       {"mine": user_progs_build(progs) / "mine.elf"})
    drop_user_progs_build(progs)
    # Made for this one boot: GRUB boots its entry at once.
    assert re.findall(r"^set timeout=(.*)$", cfg, re.M) == ["0"]


def test_a_name_without_a_program_is_refused_before_the_boot(tmp_path):
    tasks = tmp_path / "missing.tasks"
    tasks.write_text("task A e=1 p=2\n\ntask B e=1 p=4 work=nosuch\n")
    proc = make_iso_of(tmp_path, tasks)
    assert proc.returncode != 0
    assert f"mkiso: {tasks}:3: task B: work=nosuch: no program nosuch (no " \
        "user/nosuch.c, and no nosuch.c in USER_PROGS_DIR)" in proc.stderr
    assert not (tmp_path / "run.iso").exists()


def test_a_bad_user_progs_dir_is_named(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "9lives.c").write_text("")
    (tmp_path / "twice").mkdir()
    (tmp_path / "twice" / "spin.c").write_text("")
    for d, words in [(tmp_path / "nodir", "no such directory"),
                     (empty, "no NAME.c in it"),
                     (tmp_path / "bad", "work= cannot name"),
                     (tmp_path / "twice", "spin: in user/ and in USER_PROGS_DIR")]:
        proc = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT),
                               f"USER_PROGS_DIR={d}", "user"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode != 0 and words in proc.stderr, (d, proc.stderr)


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


def menu_wait(out, tmp_path, *args):
    """The `set timeout=` of an ISO scripts/mkiso.sh makes with args."""
    subprocess.run([str(ROOT / "scripts/mkiso.sh"), str(out), *args],
                   capture_output=True, check=True, timeout=120)
    cfg = (extract(out, tmp_path / out.stem) / "grub" / "grub.cfg").read_text()
    return re.findall(r"^set timeout=(.*)$", cfg, re.M)


def test_the_menu_waits_a_second_unless_told(tmp_path):
    """A medium for a person's screen (make iso, make usb) shows GRUB's menu
    for a second; the tests' boots, which nobody watches, ask for 0
    (tests/boot/harness.make_iso), as make run's ISO does (above); a wait
    that is not a number is refused."""
    assert menu_wait(tmp_path / "plain.iso", tmp_path) == ["1"]
    assert menu_wait(tmp_path / "none.iso", tmp_path, "--menu-wait", "0") == ["0"]
    assert menu_wait(tmp_path / "five.iso", tmp_path, "--menu-wait", "5") == ["5"]
    bad = subprocess.run([str(ROOT / "scripts/mkiso.sh"),
                          str(tmp_path / "bad.iso"), "--menu-wait", "1s"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and not (tmp_path / "bad.iso").exists()
    assert "mkiso: --menu-wait wants a number of seconds, not '1s'" in bad.stderr
