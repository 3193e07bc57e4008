"""docs/formats.md against the sources: every task-file declaration and key
(lib/taskset.c's tables), every kernel word with its values, range and
default (kernel/core/options.c), every RESULT topic and key the kernel
prints, and every exit reason are documented there, and nothing is
documented that the code does not have. The lists come from the sources
(docs_src.py), never from a hand list; the planted tests below add a key,
a word, a field, a topic and a reason to a copy of the sources and watch
the check name each one."""
import re
import shutil

import pytest

import docs_src as src

FORMATS = src.ROOT / "docs" / "formats.md"


def doc():
    return FORMATS.read_text()


def first_name(cell):
    names = src.code_names(cell)
    return names[0] if names else None


def two_pow(expr):
    """The value of "N", "2^K" or "2^K - N"."""
    m = re.fullmatch(r"(\d+)(?:\^(\d+))?(?:\s*-\s*(\d+))?", expr.strip())
    if not m:
        return None
    v = int(m.group(1)) ** int(m.group(2)) if m.group(2) else int(m.group(1))
    return v - int(m.group(3) or 0)


# ----------------------------------------------------------------- checks

def check_taskset(text, grammar):
    problems = []
    sec = src.md_section(text, r"^Task files$")
    if sec is None:
        return ["no section 'Task files'"]
    documented = {re.search(r"`(\w+)`", t).group(1): body
                  for _, t, body in src.md_sections(sec)
                  if re.search(r"`(\w+)` lines", t)}
    for decl, entry in grammar.items():
        body = documented.get(decl)
        if body is None:
            problems.append(f"declaration '{decl}' has no section "
                            f"'`{decl}` lines'")
            continue
        rows = {first_name(r[0]): r for r in src.md_rows(body)}
        for key, k in entry["keys"].items():
            row = rows.get(key)
            if row is None:
                problems.append(f"{decl}: key '{key}' is not documented")
                continue
            rng = row[2]
            if k.get("text"):
                continue        # its form is said in words (e.g. work=)
            if k["words"]:
                for w in k["words"]:
                    if w not in src.code_names(rng):
                        problems.append(f"{decl}: {key}={w} is not in its "
                                        f"range cell")
                continue
            m = re.fullmatch(r"(\d+) to (.+)", rng)
            if not m or int(m.group(1)) != k["min"] or \
                    two_pow(m.group(2)) != k["max"]:
                problems.append(f"{decl}: {key}'s range is {k['min']} to "
                                f"{k['max']}, the doc says '{rng}'")
        for key in rows:
            if key not in entry["keys"]:
                problems.append(f"{decl}: documented key '{key}' is not in "
                                f"the parser's table")
        for action in entry.get("actions", []):
            if not re.search(rf"\b{action}\b", body):
                problems.append(f"{decl}: action '{action}' is not "
                                f"documented")
    for decl in documented:
        if decl not in grammar:
            problems.append(f"documented declaration '{decl}' is not parsed")
    return problems


def check_kernel_words(text, words):
    problems = []
    sec = src.md_section(text, r"^The kernel command line$")
    if sec is None:
        return ["no section 'The kernel command line'"]
    rows = {}
    for r in src.md_rows(sec):
        name = first_name(r[0])
        if name:
            rows[name.split("=")[0]] = r
    for key, w in words.items():
        row = rows.get(key)
        if row is None:
            problems.append(f"kernel word '{key}' is not documented")
            continue
        values, default = row[1], row[2]
        if w["kind"] in ("words", "sched", "slot_or_words"):
            for v in w["values"]:
                if v not in src.code_names(values):
                    problems.append(f"{key}={v} is not in its values cell")
        if w["kind"] in ("number", "slot_or_words") and not re.search(
                rf"\b{w['min']} to {w['max']}\b", values):
            problems.append(f"{key}: the range is {w['min']} to {w['max']}, "
                            f"the doc says '{values}'")
        if w["kind"] == "late":
            for part in w["parts"]:
                if not re.search(rf"\b0 to {part}\b", values):
                    problems.append(f"{key}: a part's range 0 to {part} is "
                                    f"not in '{values}'")
        if w["default"] is not None and \
                default.strip("` ") != w["default"]:
            problems.append(f"{key}: the default is '{w['default']}', the "
                            f"doc says '{default}'")
    for key in rows:
        if key not in words:
            problems.append(f"documented kernel word '{key}' is not accepted "
                            f"by kernel/core/options.c")
    return problems


def check_results(text, topics):
    problems = []
    sec = src.md_section(text, r"^`RESULT` lines$")
    if sec is None:
        return ["no section '`RESULT` lines'"]
    documented = {}
    for _, title, body in src.md_sections(sec):
        m = re.fullmatch(r"`RESULT (\w+)`", title)
        if m:
            documented[m.group(1)] = {n for r in src.md_rows(body)
                                      for n in src.code_names(r[0])}
    for topic, keys in topics.items():
        if topic not in documented:
            problems.append(f"RESULT {topic} is not documented")
            continue
        for key, files in keys.items():
            if key not in documented[topic]:
                problems.append(f"RESULT {topic} {key}= ({', '.join(files)}) "
                                f"is not documented")
        for key in documented[topic]:
            if key not in keys:
                problems.append(f"RESULT {topic}: documented key '{key}' is "
                                f"not printed")
    for topic in documented:
        if topic not in topics:
            problems.append(f"documented RESULT {topic} is not printed")
    return problems


def check_exit_reasons(text, reasons):
    sec = src.md_section(text, r"^Exit statuses$")
    if sec is None:
        return ["no section 'Exit statuses'"]
    documented = {n for r in src.md_rows(sec) for n in src.code_names(r[0])}
    return ([f"exit reason '{r}' is not documented" for r in reasons
             if r not in documented] +
            [f"documented exit reason '{r}' is never given" for r in
             sorted(documented) if r not in reasons])


# ------------------------------------------------- the page against the code

def test_task_file_reference_matches_the_parser():
    assert check_taskset(doc(), src.taskset_grammar()) == []


def test_kernel_words_match_options_c():
    assert check_kernel_words(doc(), src.kernel_words()) == []


def test_every_result_line_is_documented():
    topics = src.result_lines()
    # The extraction itself must see the lines we know are there.
    assert {"exit", "smp", "tsc", "ticks", "sched", "task"} <= set(topics)
    assert check_results(doc(), topics) == []


def test_every_exit_reason_is_documented():
    reasons = src.exit_reasons()
    assert "taskset" in reasons and "exception" in reasons
    assert check_exit_reasons(doc(), reasons) == []


# --------------------------------- planted: a change to the code fails the test

@pytest.fixture
def tree(tmp_path):
    """A copy of the folders the extraction reads, to plant changes in."""
    for d in src.KERNEL_DIRS:
        shutil.copytree(src.ROOT / d, tmp_path / d,
                        ignore=shutil.ignore_patterns("*.md"))
    return tmp_path


def plant(tree, path, old, new):
    p = tree / path
    text = p.read_text()
    assert old in text, (path, old)
    p.write_text(text.replace(old, new, 1))


def test_planted_task_key_and_word_are_caught(tree):
    plant(tree, "lib/taskset.c", '{ "cs", 0, 0, 0, 1 },\n};',
          '{ "cs", 0, 0, 0, 1 }, { "burst", 2, 0, 0, 0 },\n};')
    plant(tree, "lib/taskset.c", '{ "immediate", "gradual" }',
          '{ "immediate", "gradual", "lazy" }')
    plant(tree, "lib/taskset.h", "#define TASKSET_MAX_REPL_LIMIT 4096",
          "#define TASKSET_MAX_REPL_LIMIT 512")
    problems = check_taskset(doc(), src.taskset_grammar(tree))
    assert "task: key 'burst' is not documented" in problems
    assert "server: coalesce=lazy is not in its range cell" in problems
    assert any(p.startswith("server: max_repl's range is 1 to 512")
               for p in problems), problems
    assert len(problems) == 3, problems


def test_planted_kernel_word_range_and_default_are_caught(tree):
    plant(tree, "kernel/core/options.c",
          '} else if (cmdline_key_is(&w, "irq_cpu")) {',
          '} else if (cmdline_key_is(&w, "watchdog_ms")) {\n'
          '\t\t\tnumber(&w, &options.slots, 1, 500, "100");\n'
          '\t\t} else if (cmdline_key_is(&w, "irq_cpu")) {')
    plant(tree, "kernel/core/options.c", "#define QUANTUM_US_MIN 50",
          "#define QUANTUM_US_MIN 20")
    plant(tree, "kernel/core/options.c", ".spin_us = 50,", ".spin_us = 50,\n"
          "\t.e9 = 1,")
    plant(tree, "kernel/core/options.c", '"timer", [ARRIVALS_HPET] = "hpet",',
          '"timer", [ARRIVALS_HPET] = "hpet", [4] = "msi",')
    plant(tree, "sched/gdq/gdq.c", '"gdq_T", "gdq_delta",',
          '"gdq_T", "gdq_delta", "gdq_rounds",')
    problems = check_kernel_words(doc(), src.kernel_words(tree))
    assert "kernel word 'watchdog_ms' is not documented" in problems
    assert any(p.startswith("quantum_us: the range is 20 to 1000000")
               for p in problems), problems
    assert "e9: the default is 'on', the doc says 'off'" in problems
    assert "arrivals=msi is not in its values cell" in problems
    assert "kernel word 'gdq_rounds' is not documented" in problems
    assert len(problems) == 5, problems


def test_planted_result_field_and_topic_are_caught(tree):
    plant(tree, "kernel/run/run_report.c",
          '"misses=%llu boundary_missed=%llu\\n"',
          '"misses=%llu boundary_missed=%llu late_max_ns=%llu\\n"')
    plant(tree, "kernel/run/run_report.c",
          'kprintf("RESULT trace cycles_per_record=%llu\\n",',
          'kprintf("RESULT watchdog fired=%u\\n", 0);\n'
          '\tkprintf("RESULT trace cycles_per_record=%llu\\n",')
    # A key of a fragment that RESULT task prints through a bare %s.
    plant(tree, "lib/trace_stats.c", '"faults=%llu"', '"faults=%llu wakes=%u"')
    problems = check_results(doc(), src.result_lines(tree))
    assert ("RESULT sched late_max_ns= (kernel/run/run_report.c) is not "
            "documented") in problems
    assert "RESULT watchdog is not documented" in problems
    assert ("RESULT task wakes= (kernel/run/run_report.c) is not "
            "documented") in problems
    assert len(problems) == 3, problems


def test_planted_exit_reason_is_caught(tree):
    plant(tree, "kernel/main.c", 'finish(0, "tsc_calibration");',
          'finish(0, "tsc_unstable");')
    problems = check_exit_reasons(doc(), src.exit_reasons(tree))
    assert problems == ["exit reason 'tsc_unstable' is not documented",
                        "documented exit reason 'tsc_calibration' is never "
                        "given"]


def test_planted_stale_doc_entries_are_caught():
    text = doc()
    text = text.replace("| `cycles_per_record` |",
                        "| `cycles_per_record` | x |\n| `bytes` |", 1)
    text = text.replace("| `slots=N` | 1 to 1000000 |",
                        "| `turbo=on\\|off` | `on`, `off` | off | x |\n"
                        "| `slots=N` | 1 to 1000000 |", 1)
    assert check_results(text, src.result_lines()) == [
        "RESULT trace: documented key 'bytes' is not printed"]
    assert check_kernel_words(text, src.kernel_words()) == [
        "documented kernel word 'turbo' is not accepted by "
        "kernel/core/options.c"]
