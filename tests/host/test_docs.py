"""The documentation says only what is there: in every Markdown file of the
repository (README.md, docs/, the folders' READMEs -- a new page is
checked as soon as it exists) every relative link and #anchor resolves,
every repository path named exists, every `make` target and variable shown
exists in the Makefile or mk/, every kernel word shown is one
kernel/core/options.c accepts with a value it accepts, and a quoted
section ("docs/X.md, "Heading"") is a heading of that page. No file of the
repository points outside it. README stays a front door: small, every
folder, scheduler and page of docs/ named. Each check is also run on a
planted error (the tests named test_planted_*) to show that it fails."""
import re

import pytest

import docs_src as src

ROOT = src.ROOT

TOP_DIRS = ("boot", "arch", "drivers", "kernel", "sched", "lib", "tools",
            "tests", "docs", "user", "tasks", "scripts", "mk")


# What .gitignore leaves out, and git's own folder. The tree is walked, not
# asked of git: the fresh-Debian check copies it without .git or git.
IGNORED_DIRS = {".git", "build", "__pycache__", ".pytest_cache",
                ".hypothesis"}
IGNORED_FILES = ("*.pyc", "bx.out", ".git")  # .git: a worktree's pointer


def repo_files(pattern=None):
    """The repository's files (relative paths) matching a glob pattern."""
    out = []
    stack = [ROOT]
    while stack:
        d = stack.pop()
        for p in d.iterdir():
            if p.is_dir():
                if p.name not in IGNORED_DIRS and not p.is_symlink():
                    stack.append(p)
            elif p.is_file() and not any(p.match(g) for g in IGNORED_FILES):
                rel = p.relative_to(ROOT)
                if pattern is None or rel.match(pattern):
                    out.append(str(rel))
    return sorted(out)


def read_texts(paths):
    texts = {}
    for f in paths:
        try:
            texts[f] = (ROOT / f).read_text()
        except UnicodeDecodeError:
            pass  # pictures and other binary files
    return texts


@pytest.fixture(scope="module")
def md():
    return read_texts(repo_files("*.md"))


@pytest.fixture(scope="module")
def everything():
    return read_texts(repo_files())


# ------------------------------------------------------------ Markdown text

def strip_code_blocks(text):
    """The text with fenced blocks blanked (line count kept) and HTML
    comments removed: neither is shown as prose."""
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            out.append("")
        else:
            out.append("" if fence else line)
    return "\n".join(out)


def code_lines(text):
    """Code the page shows: the lines of fenced blocks and inline spans."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            out.append(line)
        else:
            out += re.findall(r"`([^`]+)`", line)
    return out


def slug(title):
    """GitHub's anchor for a heading."""
    s = title.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(text):
    seen, out = {}, set()
    for _, title, _ in src.md_sections(text):
        base = slug(title)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def resolve(base_file, target):
    """A link target relative to the file that holds it, as a repository
    path (None when it leaves the repository)."""
    parts = (base_file.split("/")[:-1] + target.split("/"))
    stack = []
    for p in parts:
        if p in ("", "."):
            continue
        if p == "..":
            if not stack:
                return None
            stack.pop()
        else:
            stack.append(p)
    return "/".join(stack)


# ----------------------------------------------------------------- checks

def check_links(md):
    problems = []
    for f, text in md.items():
        prose = strip_code_blocks(text)
        prose = re.sub(r"`[^`\n]*`", "", prose)
        for m in re.finditer(r"!?\[[^\]]*\]\(([^)\s]+)\)", prose):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            dest = f if not path else resolve(f, path)
            if dest is None or not (dest in md or (ROOT / dest).exists()):
                problems.append(f"{f}: link to {target}: no such file")
                continue
            if frag:
                dest_text = md.get(dest)
                if dest_text is None and (ROOT / dest).suffix == ".md":
                    dest_text = (ROOT / dest).read_text()
                if dest_text is None or frag not in anchors(dest_text):
                    problems.append(f"{f}: link to {target}: no heading "
                                    f"#{frag} in {dest}")
    return problems


def check_quoted_sections(texts, md):
    """`docs/X.md, "Heading"` (or `X.md, "Heading"` inside docs/) names a
    heading of that page."""
    problems = []
    # A heading starts right after its quote; a quote followed by a line
    # break ends a string literal that happened to end in a page's name.
    pat = re.compile(r"((?:docs/)?[a-z][\w-]*\.md)`?\)?,?\s+\"(?!\s)([^\"]{1,80})\"")
    for f, text in texts.items():
        for m in pat.finditer(text):
            page = m.group(1)
            path = page if page.startswith("docs/") else resolve(f, page)
            if path not in md:
                if (ROOT / path).exists():
                    continue
                problems.append(f"{f}: {page} (quoted section) does not "
                                f"exist")
                continue
            # A quote may run over lines of a comment.
            quoted = re.sub(r"\s*\n\s*(?:\*|#|//)?\s*", " ", m.group(2))
            titles = {t for _, t, _ in src.md_sections(md[path])}
            # Bold paragraph names count too: **Late timers.**
            titles |= set(re.findall(r"^\*\*([^*\n]+?)\.?\*\*", md[path],
                                     re.M))
            # A heading may be quoted without its parenthesis: "The dump"
            # for "The dump (`trace=events`)".
            if not any(t == quoted or t.startswith(quoted + " (")
                       for t in titles):
                problems.append(f"{f}: {page} has no section "
                                f"\"{quoted}\"")
    return problems


_PATH = re.compile(rf"(?<![\w/.\-$])((?:{'|'.join(TOP_DIRS)})/[\w./*\-]*)")


def path_exists(path):
    path = path.rstrip(".,:;")
    if (ROOT / path).exists():
        return True
    for ext in (".c", ".h", ".py", ".md", ".sh"):
        if (ROOT / (path + ext)).exists():
            return True
    # Placeholders (NAME, FILE, ...) and globs stand for any name.
    pattern = re.sub(r"[A-Z][A-Z0-9_]+", "*", path)
    if "*" in pattern and list(ROOT.glob(pattern)):
        return True
    return False


def check_paths(md):
    problems = []
    for f, text in md.items():
        body = re.sub(r"<!--.*?-->", "", text, flags=re.S)
        for line_no, line in enumerate(body.split("\n"), 1):
            # An example's #include is resolved by its compiler's include
            # path (a ring-3 program's "lib/x.h" is user/lib/x.h).
            if re.match(r"\s*#\s*include\b", line):
                continue
            for m in _PATH.finditer(line):
                if not path_exists(m.group(1)):
                    problems.append(f"{f}:{line_no}: {m.group(1)} does not "
                                    f"exist")
    return problems


_MAKE = re.compile(r"(?:^|[\s;&(])make\s+([^#|;&)]*)")
_ASSIGN = re.compile(r"([A-Z][A-Z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)")


def make_invocations(text):
    """[(targets, {VAR: value})] for every `make ...` the page shows."""
    out = []
    for code in code_lines(text):
        for m in _MAKE.finditer(code):
            rest = m.group(1)
            targets, variables = [], {}
            for tok in re.finditer(r"\"[^\"]*\"|'[^']*'|\S+", rest):
                t = tok.group(0)
                a = _ASSIGN.fullmatch(t) or _ASSIGN.match(t)
                if "=" in t and a:
                    full = _ASSIGN.match(rest, tok.start())
                    variables[full.group(1)] = full.group(2).strip("\"'")
                elif re.fullmatch(r"[a-z][\w.\-]*", t):
                    targets.append(t)
                elif t.startswith(("\"", "'")):
                    continue  # the value of the assignment before it
                else:
                    break
            out.append((targets, variables))
    return out


def check_make(md, targets, variables, words, plugins):
    problems = []
    for f, text in md.items():
        for ts, vs in make_invocations(text):
            for t in ts:
                if t not in targets:
                    problems.append(f"{f}: make {t}: no such target")
            for v, value in vs.items():
                if v not in variables:
                    problems.append(f"{f}: make {v}=: no such variable")
                if v == "SCHED" and value and not re.fullmatch(
                        r"[A-Z]+", value) and value not in plugins:
                    problems.append(f"{f}: SCHED={value}: no such scheduler")
                if v == "CMDLINE":
                    problems += [f"{f}: CMDLINE: {p}" for p in
                                 check_words(value, words)]
        # Tables of variables: the first cell names it.
        for _, _, body in [(0, "", text)]:
            for line in body.split("\n"):
                if re.match(r"\|\s*variable\s*\|", line):
                    table = body[body.index(line):].split("\n\n")[0]
                    for row in src.md_rows(table):
                        for name in src.code_names(row[0]):
                            v = name.split("=")[0]
                            if re.fullmatch(r"[A-Z][A-Z0-9_]*", v) and \
                                    v not in variables:
                                problems.append(f"{f}: variable {v} (table) "
                                                f"does not exist")
    return problems


def check_words(line, words):
    problems = []
    if "=" not in line:
        return problems  # a placeholder: CMDLINE="words"
    for w in line.split():
        key, eq, value = w.partition("=")
        if not eq:
            problems.append(f"'{w}' is not key=value")
            continue
        why = src.word_accepts(words, key, value)
        if why:
            problems.append(why)
    return problems


def shown_kernel_words(text):
    """Kernel words a page shows: CMDLINE="..." and --cmdline "...", and
    `key=value` spans on a line that calls them kernel words."""
    out = []
    for m in re.finditer(r"(?:CMDLINE=|--cmdline\s+)\"([^\"]*)\"", text):
        out.append(m.group(1))
    # Spans in the sentence that says "kernel word(s)", after those words.
    prose = re.sub(r"\s+", " ", strip_code_blocks(text))
    for m in re.finditer(r"kernel words?\b([^.;]*(?:\.\.\.[^.;]*)*)",
                         prose):
        out += re.findall(r"`([A-Za-z_0-9]+=[^`\s]*)`", m.group(1))
    return out


def check_kernel_words_shown(md, words):
    problems = []
    for f, text in md.items():
        for shown in shown_kernel_words(text):
            problems += [f"{f}: {p}" for p in check_words(shown, words)]
    return problems


def outside_patterns():
    """What points outside the repository: the team's notes, the folder of
    papers beside it, the papers' file numbers. Built from pieces so that
    this file does not match itself."""
    notes = ["FORMATS" + r"\.md", "DESIGN" + r"\.md", "FORMATS" + " section"]
    return [re.compile(p) for p in [
        # An absolute path of the machine the team works on, not a
        # folder named work inside the tree (build/fuzz/work/).
        r"\.\./" + "shared", r"(?<![\w.\-])/work" + "/", *notes,
        r"\(00[0-4]\)", r", 00[0-4]\)", r"papers/" + "00[0-4]",
        r"\b00[0-4]_[0-9a-f]{16}", r"\b(?:seed|paper) 00[0-4]\b"]]


def check_outside(texts):
    problems = []
    pats = outside_patterns()
    for f, text in texts.items():
        for line_no, line in enumerate(text.split("\n"), 1):
            for p in pats:
                if p.search(line):
                    problems.append(f"{f}:{line_no}: points outside the "
                                    f"repository: {line.strip()[:80]}")
    return problems


def check_readme(readme, docs_pages, top_dirs, plugins):
    problems = []
    size = len(readme.encode())
    if size > 12 * 1024:
        problems.append(f"README.md is {size} bytes; the front door stays "
                        f"within 12 KiB (move reference material to docs/)")
    layout = src.md_section(readme, r"^Layout$") or ""
    for d in top_dirs:
        if f"`{d}/" not in layout:
            problems.append(f"README's layout does not name {d}/")
    for name in plugins:
        if f"`{name}`" not in readme:
            problems.append(f"README does not name the scheduler {name}")
    for page in docs_pages:
        if f"({page})" not in readme:
            problems.append(f"README's index does not link {page}")
    return problems


# ------------------------------------------------------ the repository now

@pytest.fixture(scope="module")
def words():
    return src.kernel_words()


@pytest.fixture(scope="module")
def make_names():
    targets, variables = src.make_targets_and_vars()
    return targets, variables | src.env_variables()


def plugin_names():
    return [n for n, _ in src.sched_plugins()]


def test_links_and_anchors_resolve(md):
    assert check_links(md) == []


def test_quoted_sections_exist(everything, md):
    assert check_quoted_sections(everything, md) == []


def test_paths_named_exist(md):
    assert check_paths(md) == []


def test_make_targets_and_variables_exist(md, words, make_names):
    targets, variables = make_names
    assert {"run", "test", "iso"} <= targets
    assert check_make(md, targets, variables, words, plugin_names()) == []


def test_kernel_words_shown_are_accepted(md, words):
    assert check_kernel_words_shown(md, words) == []


def test_nothing_points_outside_the_repository(everything):
    assert check_outside(everything) == []


def test_readme_is_a_front_door(md):
    top = sorted(d for d in {f.split("/")[0] for f in repo_files()
                             if "/" in f} if not d.startswith("."))
    pages = sorted(f for f in md if f.startswith("docs/") and
                   f.count("/") == 1)
    assert check_readme(md["README.md"], pages, top, plugin_names()) == []


def test_every_benchmark_and_scheduler_is_described():
    benches = sorted(p.stem[len("bench_"):] for p in
                     (ROOT / "tools/bench").glob("bench_*.py"))
    bench_doc = (ROOT / "docs/benchmarks.md").read_text()
    rows = {src.code_names(r[0])[0] for r in src.md_rows(bench_doc)
            if src.code_names(r[0])}
    assert [b for b in benches if b not in rows] == []
    sched_doc = src.md_rows((ROOT / "docs/schedulers.md").read_text())
    named = {src.code_names(r[0])[0] for r in sched_doc
             if src.code_names(r[0])}
    assert [n for n in plugin_names() if n not in named] == []


# ------------------------------------------- planted errors: each check fails

def test_planted_broken_link_and_anchor(md):
    planted = dict(md)
    planted["docs/x.md"] = ("[a](formats.md#no-such-heading) "
                            "[b](missing.md) [c](../README.md#layout) "
                            "[d](#here)\n\n## Here\n")
    assert sorted(check_links({"docs/x.md": planted["docs/x.md"]})) == [
        "docs/x.md: link to formats.md#no-such-heading: no heading "
        "#no-such-heading in docs/formats.md",
        "docs/x.md: link to missing.md: no such file"]


def test_planted_stale_quoted_section(md):
    design = "docs/design" + ".md"  # so that this file does not match
    planted = {"kernel/x.c": f'/* the boot ({design}, "How data flows at '
                             f'boot") and {design}, "A boot, in\n * order" '
                             f'and {design}, "Inside kernel/" */'}
    assert check_quoted_sections(planted, md) == [
        'kernel/x.c: docs/design.md has no section "How data flows at boot"']


def test_planted_missing_path():
    planted = {"docs/x.md": "written by kernel/exit.c, read by "
                            "kernel/core/options.c and user/NAME.c, "
                            "lib/trace_stats and sched/pfair/."}
    assert check_paths(planted) == ["docs/x.md:1: kernel/exit.c does not "
                                    "exist"]


def test_planted_make_target_variable_and_words(words, make_names):
    targets, variables = make_names
    planted = {"docs/x.md": "`make runn`, `make run SHED=gedf`, "
                            "`make run SCHED=typo`,\n"
                            "```\nmake run CMDLINE=\"slots=0 trace=events "
                            "quantum_us=N\"\n```\n"
                            "| variable | x |\n| --- | --- |\n"
                            "| `SMPS=N` | y |\n"}
    assert check_make(planted, targets, variables, words,
                      plugin_names()) == [
        "docs/x.md: make runn: no such target",
        "docs/x.md: make SHED=: no such variable",
        "docs/x.md: SCHED=typo: no such scheduler",
        "docs/x.md: CMDLINE: slots=0: not a number from 1 to 1000000",
        "docs/x.md: variable SMPS (table) does not exist"]


def test_planted_kernel_word_shown(words):
    planted = {"docs/x.md": "the kernel word `gdb=always` and\n"
                            "`late_boundary=1:5:2000000`, and "
                            "`scripts/mkiso.sh x.iso --cmdline \"ticks=both "
                            "tick=both\"`. The task key `cpu=7` is not one"}
    assert check_kernel_words_shown(planted, words) == [
        "docs/x.md: no kernel word 'tick'",
        "docs/x.md: gdb=always: not one of off, on, panic, wait",
        "docs/x.md: late_boundary=1:5:2000000: not CPU:SLOT:US within "
        "[255, 1000000, 1000000]"]


def test_planted_outside_references():
    shared = ".." + "/shared/papers/"
    planted = {"a.c": "/* see " + "FORMATS" + ".md */",
               "b.md": f"the text in `{shared}`",
               "c.py": "paper=\"GDQ (Caprita, 00" + "1) Sec. 4\"",
               "d.h": "/* seed 00" + "2 */", "e.md": "fine (Holman and "
               "Anderson, 2004)"}
    problems = check_outside(planted)
    assert [p.split(":")[0] for p in problems] == ["a.c", "b.md", "c.py",
                                                   "d.h"]


def test_planted_readme_problems():
    readme = ("# x\n\n## Layout\n\n| `boot/` |\n\n"
              "`spd2` [docs/formats.md](docs/formats.md)\n" + "x" * 13000)
    assert check_readme(readme, ["docs/formats.md", "docs/new.md"],
                        ["boot", "user"], ["spd2", "gfp"]) == [
        f"README.md is {len(readme)} bytes; the front door stays within 12 KiB "
        "(move reference material to docs/)",
        "README's layout does not name user/",
        "README does not name the scheduler gfp",
        "README's index does not link docs/new.md"]
