"""What the sources say a user may write or will read, extracted from the
code itself for the docs tests (test_docs_formats.py, test_docs.py): the
task-file parser's declarations and keys (lib/taskset.c), the kernel's
command-line words (kernel/core/options.c) and the scheduler registry
(sched/), every RESULT line the kernel prints with its keys, the exit
reasons, and the make targets and variables (Makefile, mk/).

Nothing here is a hand list: a key, word, field or reason added to the C
sources appears in these results, so a doc that does not name it fails.
The extraction reads C as text -- comments stripped, adjacent string
literals joined, calls split into arguments -- which is all the sources
need: their tables and format strings are literals."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The folders built into the kernel image (mk/kernel.mk's K_C_SRC).
KERNEL_DIRS = ("kernel", "lib", "arch", "drivers", "sched")


# ----------------------------------------------------------------- C as text

def _string_end(text, i):
    """Index just past the string or character constant opening at i."""
    q, j = text[i], i + 1
    while j < len(text) and text[j] != q:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def strip_comments(src):
    """The source with /* */ and // comments removed (their newlines kept),
    strings and character constants left whole."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src[i] in "\"'":
            j = _string_end(src, i)
            out.append(src[i:j])
            i = j
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


_ONE_LIT = r'"(?:[^"\\\n]|\\.)*"'
_LITS = re.compile(rf"{_ONE_LIT}(?:\s*{_ONE_LIT})*")


def c_string(expr):
    """The value of an expression made only of adjacent string literals,
    else None."""
    expr = expr.strip()
    if not expr or not _LITS.fullmatch(expr):
        return None
    parts = re.findall(_ONE_LIT, expr)
    return "".join(p[1:-1].encode().decode("unicode_escape") for p in parts)


def string_literals(text):
    """Every run of adjacent literals in comment-free text, joined."""
    return [c_string(m.group(0)) for m in _LITS.finditer(text)]


def _match_close(text, i, open_="(", close=")"):
    """Index of the bracket closing the one at text[i]."""
    depth, j, n = 0, i, len(text)
    while j < n:
        c = text[j]
        if c in "\"'":
            j = _string_end(text, j) - 1
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ValueError("unbalanced brackets")


def split_args(text):
    """A call's argument text split at its top-level commas."""
    args, depth, cur, i, n = [], 0, [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = _string_end(text, i)
            cur.append(text[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        args.append("".join(cur).strip())
    return args


def calls(text, name):
    """[(start, [args])] for every call of function `name` in text."""
    out = []
    for m in re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*\(", text):
        open_ = m.end() - 1
        close = _match_close(text, open_)
        out.append((m.start(), split_args(text[open_ + 1:close])))
    return out


def functions(text):
    """{name: (params, body)} for the function definitions in comment-free
    text (a top-level `... name(params) {`)."""
    out = {}
    for m in re.finditer(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(([^;{}]*?)\)\s*"
                         r"(?:__attribute__\s*\(\(.*?\)\)\s*)?\{", text,
                         re.M | re.S):
        if m.group(1) in ("if", "for", "while", "switch", "return"):
            continue
        body_open = m.end() - 1
        body = text[body_open:_match_close(text, body_open, "{", "}") + 1]
        params = [p.strip() for p in m.group(2).split(",")]
        out[m.group(1)] = (params, body)
    return out


def string_array(text, name):
    """The strings of `... name[] = { "a", "b", ... }` (designated
    initialisers `[X] = "a"` too)."""
    m = re.search(rf"\b{re.escape(name)}\s*\[[^\]]*\]\s*=\s*\{{", text)
    if not m:
        raise LookupError(f"no array {name}")
    body = text[m.end() - 1:_match_close(text, m.end() - 1, "{", "}") + 1]
    return [s for s in string_literals(body)]


def c_source(path):
    return strip_comments((ROOT / path).read_text())


def kernel_c_files(root=ROOT):
    return sorted(p for d in KERNEL_DIRS for p in (root / d).rglob("*.c"))


def defines(text):
    """{NAME: value} for `#define NAME <integer expression>`."""
    out = {}
    for m in re.finditer(r"^#define\s+(\w+)\s+([^\n]+)$", text, re.M):
        out[m.group(1)] = m.group(2).strip()
    return out


def eval_int(expr, macros):
    """An integer constant expression of numbers, macros and + - * << ( )."""
    num = re.compile(r"\b(0x[0-9a-f]+|\d+)[ul]*\b", re.I)
    expr = num.sub(r"\1", expr.strip())
    for _ in range(8):
        new = re.sub(r"\b([A-Z_][A-Z0-9_]*)\b",
                     lambda m: f"({macros[m.group(1)]})"
                     if m.group(1) in macros else m.group(1), expr)
        if new == expr:
            break
        expr = num.sub(r"\1", new)
    if not re.fullmatch(r"[\da-fA-Fx\s+\-*()<>]+", expr):
        raise ValueError(f"not a constant: {expr}")
    return int(eval(expr))  # digits and operators only, checked above


# ----------------------------------------------------------------- task files

def taskset_grammar(root=ROOT):
    """{declaration: {"keys": {key: {"min": n, "max": m, "words": [...]}},
    "actions": [...]}} from lib/taskset.c: the first word dispatched in
    taskset_parse, the key_def tables its parse function passes to
    parse_keys, and for `at` the action names."""
    text = strip_comments((root / "lib/taskset.c").read_text())
    macros = defines(text)
    macros.update(defines(strip_comments(
        (root / "lib/taskset.h").read_text())))
    limit = eval_int(macros["TASKSET_VALUE_LIMIT"], macros) - 1
    funcs = functions(text)
    grammar = {}
    dispatch = re.findall(r'str_eq_n\(tok\[0\]\.s, tok\[0\]\.n, "(\w+)"\)\)\s*'
                          r'rc = (\w+)\(', funcs["taskset_parse"][1])
    if not dispatch:
        raise LookupError("taskset_parse dispatches no declaration")
    for decl, fn in dispatch:
        body = funcs[fn][1]
        keys = {}
        for _, args in calls(body, "parse_keys"):
            for key in key_table(text, args[4], macros, limit):
                keys[key["name"]] = key
        # Hand-checked limits beside the table: `val[K] > LIMIT`.
        for m in re.finditer(r"val\[(\w+)\] > (TASKSET_\w+)", body):
            enum = m.group(1)
            for key in keys.values():
                if key.get("enum") == enum:
                    key["max"] = eval_int(macros[m.group(2)], macros)
        entry = {"keys": keys, "function": fn}
        if "action_names" in body:
            entry["actions"] = string_array(text, "action_names")
        grammar[decl] = entry
    return grammar


def key_table(text, table, macros, limit):
    """The entries of `static const struct key_def table[...] = {...}`."""
    m = re.search(rf"\bkey_def\s+{re.escape(table)}\s*\[(\w*)\]\s*=\s*\{{",
                  text)
    if not m:
        raise LookupError(f"no key_def table {table}")
    body = text[m.end():_match_close(text, m.end() - 1, "{", "}")]
    # The enum naming the entries, in order, when the size is an enum count.
    enum_names = []
    if m.group(1):
        e = re.search(rf"enum\s*\w*\s*\{{([^}}]*\b{m.group(1)}\b[^}}]*)\}}",
                      text)
        if e:
            enum_names = [x.strip() for x in e.group(1).split(",")
                          if x.strip()]
    out = []
    for i, em in enumerate(re.finditer(r"\{\s*(\"\w+\")\s*,([^{}]*)\}", body)):
        fields = split_args(em.group(2))
        words_arr = fields[1].strip()
        entry = {"name": c_string(em.group(1)), "min": eval_int(fields[0],
                                                                 macros),
                 "max": limit, "words": None,
                 "enum": enum_names[i] if i < len(enum_names) else None,
                 # A text value (work=, args=): no numeric range.
                 "text": len(fields) > 3 and fields[3].strip() not in
                 ("0", "")}
        if words_arr not in ("0", "NULL"):
            entry["words"] = string_array(text, words_arr)
        out.append(entry)
    return out


# ------------------------------------------------------- kernel command line

def sched_plugins(root=ROOT):
    """The registry's plugins in order: [(name, [params])] from
    sched/registry.c's sched_plugins[] and each plugin's initialiser."""
    reg = strip_comments((root / "sched/registry.c").read_text())
    arr = re.search(r"sched_plugins\[\]\s*=\s*\{([^}]*)\}", reg)
    symbols = re.findall(r"&(\w+)", arr.group(1))
    sources = {p: strip_comments(p.read_text())
               for p in sorted((root / "sched").rglob("*.[ch]"))}
    everything = "\n".join(sources.values())
    macro_bodies = {m.group(1): m.group(2) for m in re.finditer(
        r"#define\s+(\w+)\s*((?:[^\n]*\\\n)*[^\n]*)", everything)}
    out = []
    for sym in symbols:
        m = re.search(rf"struct sched_plugin\s+{sym}\s*=\s*\{{", everything)
        if not m:
            raise LookupError(f"no initialiser for plugin {sym}")
        init = everything[m.end() - 1:_match_close(everything, m.end() - 1,
                                                   "{", "}") + 1]
        for name, body in macro_bodies.items():
            if re.search(rf"\b{name}\b", init):
                init += body
        name = c_string(re.search(r"\.name\s*=\s*(\"[^\"]*\")", init)
                        .group(1))
        params = []
        pm = re.search(r"\.params\s*=\s*(\w+)", init)
        if pm:
            params = [p for p in string_array(everything, pm.group(1))]
        out.append((name, params))
    return out


def _values_in(body):
    """Words a branch or helper accepts: cmdline_value_is literals and the
    string arrays it looks values up in."""
    vals = [c_string(a[1]) for _, a in calls(body, "cmdline_value_is")
            if len(a) == 2 and c_string(a[1]) is not None]
    return vals


def kernel_words(root=ROOT):
    """{key: {"kind": "number"|"words"|"slot_or_words"|"late"|"sched"|
    "param", "min", "max", "values", "default"}} for every word
    kernel/core/options.c accepts, with the scheduler parameters."""
    text = strip_comments((root / "kernel/core/options.c").read_text())
    macros = defines(text)
    macros.update(defines(strip_comments(
        (root / "arch/x86/percpu.h").read_text())))
    funcs = functions(text)
    init_m = re.search(r"struct kernel_options options\s*=\s*\{(.*?)\};",
                       text, re.S)
    init = dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+),", init_m.group(1)))
    body = funcs["options_parse"][1]
    pieces = re.split(r'cmdline_key_is\(&w, ("\w+")\)', body)
    words = {}
    for i in range(1, len(pieces), 2):
        key = c_string(pieces[i])
        branch = pieces[i + 1].split("} else if", 1)[0]
        helper = ""
        for hm in re.finditer(r"\b(\w+)\(&w\)", branch):
            if hm.group(1) in funcs:
                helper += funcs[hm.group(1)][1]
        w = {"values": [], "min": None, "max": None, "default": None}
        num = calls(branch, "number")
        if num:
            args = num[0][1]
            w.update(kind="number", min=eval_int(args[2], macros),
                     max=eval_int(args[3], macros), default=c_string(args[4]))
        elif "on_off(" in branch:
            field = calls(branch, "on_off")[0][1][1].split(".")[-1]
            w.update(kind="words", values=["on", "off"],
                     default="on" if init.get(field, "0").strip() == "1"
                     else "off")
        elif "one_of(" in branch:
            args = calls(branch, "one_of")[0][1]
            names = string_array(text, args[1])
            field = args[3].split(".")[-1]
            cur = init.get(field, "0").strip()
            w.update(kind="words", values=names,
                     default=names[int(cur)] if cur.isdigit() else names[0])
        elif "sched_plugins" in branch:
            w.update(kind="sched", values=[n for n, _ in sched_plugins(root)],
                     default="none")
        else:
            src = branch + helper
            w["values"] = _values_in(src)
            for arr in re.findall(r"static const char \*const (\w+)\[\]",
                                  helper):
                w["values"] += [v for v in string_array(helper, arr)
                                if v not in w["values"]]
            bads = calls(src, "bad")
            if bads:
                w["default"] = c_string(bads[-1][1][2])
            if "parse_u64" in helper and ":" in "".join(
                    string_literals(helper)):
                maxes = re.search(r"max\[3\]\s*=\s*\{([^}]*)\}", helper)
                w.update(kind="late", parts=[eval_int(x, macros) for x in
                                             split_args(maxes.group(1))],
                         cpu_words=[v for v in string_literals(helper)
                                    if re.fullmatch(r"[a-z]+", v)])
            elif "parse_u64" in helper:
                pu = calls(helper, "parse_u64")[0][1]
                w.update(kind="slot_or_words", min=0,
                         max=eval_int(pu[2], macros))
            else:
                w["kind"] = "words"
        words[key] = w
    # A parameter of any plugin: a number up to what sched_param_word
    # parses; the plugin checks its own range.
    pmax = eval_int(calls(funcs["sched_param_word"][1], "parse_u64")[0][1][2],
                    macros)
    for _, params in sched_plugins(root):
        for p in params:
            words[p] = {"kind": "param", "values": [], "min": 0,
                        "max": pmax, "default": None}
    return words


def word_accepts(words, key, value):
    """None when the kernel accepts key=value, else why not. A value
    written as a placeholder (upper case, e.g. N, SLOT, NAME) or with
    alternatives (a|b) is checked part by part."""
    if key not in words:
        return f"no kernel word '{key}'"
    w = words[key]
    for v in value.split("|"):
        if not v or re.fullmatch(r"[A-Z][A-Z0-9_:]*", v):
            continue
        kind = w["kind"]
        if kind in ("words", "sched"):
            if v not in w["values"]:
                return f"{key}={v}: not one of {', '.join(w['values'])}"
        elif kind in ("number", "param", "slot_or_words"):
            if v in w["values"]:
                continue
            if not v.isdigit() or not w["min"] <= int(v) <= w["max"]:
                return f"{key}={v}: not a number from {w['min']} to {w['max']}"
        elif kind == "late":
            parts = v.split(":")
            if len(parts) != 3 or not all(
                    p.isdigit() and int(p) <= m or re.fullmatch(r"[A-Z]+", p)
                    or (i == 0 and p in w.get("cpu_words", ()))
                    for i, (p, m) in enumerate(zip(parts, w["parts"]))):
                return f"{key}={v}: not CPU:SLOT:US within {w['parts']}"
    return None


# ------------------------------------------------------------- RESULT lines

_CONV = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[a-zA-Z])")


def _conversions(fmt):
    return [c for c in _CONV.findall(fmt) if c != "%%"]


def _fields(fmt, args, resolve):
    """Keys of one format string, its bare %s arguments resolved into the
    keys of the text they stand for and templated keys (`%s_bytes`)
    expanded."""
    keys, argi = [], 0
    for tok in fmt.replace("\n", " ").split(" "):
        n_conv = len(_conversions(tok))
        if "=" in tok:
            key = tok.split("=", 1)[0]
            if "%" in key:
                # A key built from an argument: every value it can take.
                names = resolve(args[argi] if argi < len(args) else "",
                                "names")
                keys += [re.sub(r"%[a-z]+", n, key, count=1) for n in names]
            elif key:
                keys.append(key)
        elif re.fullmatch(r"%s", tok):
            keys += resolve(args[argi] if argi < len(args) else "", "keys")
        argi += n_conv
    return [k for k in keys if re.fullmatch(r"[a-z][a-z0-9_]*", k)]


def result_lines(root=ROOT):
    """{topic: {key: [files]}} for every RESULT line in the kernel's
    sources: kprintf or fmt_snprintf calls whose format begins "RESULT ",
    continued by the kprintf calls after it until one ends the line."""
    files = {p: strip_comments(p.read_text()) for p in kernel_c_files(root)}
    all_funcs = {}
    for text in files.values():
        all_funcs.update(functions(text))
    topics = {}
    for path, text in files.items():
        for fname, (_, body) in functions(text).items():
            def resolve(expr, what, body=body, text=text):
                return _resolve(expr, what, body, text, all_funcs)
            seq = sorted([(pos, "kprintf", a) for pos, a in
                          calls(body, "kprintf")] +
                         [(pos, "fmt_snprintf", a) for pos, a in
                          calls(body, "fmt_snprintf")])
            i = 0
            while i < len(seq):
                _, fn, args = seq[i]
                fi = 0 if fn == "kprintf" else 2
                fmt = c_string(args[fi]) if len(args) > fi else None
                i += 1
                if not fmt or not fmt.startswith("RESULT "):
                    continue
                topic = fmt.split()[1]
                keys = _fields(fmt[len("RESULT ") + len(topic):],
                               args[fi + 1:], resolve)
                while fn == "kprintf" and "\n" not in fmt and i < len(seq):
                    _, fn2, args2 = seq[i]
                    i += 1
                    if fn2 != "kprintf":
                        continue
                    fmt = c_string(args2[0]) or ""
                    keys += _fields(fmt, args2[1:], resolve)
                rel = str(path.relative_to(root))
                for k in keys:
                    topics.setdefault(topic, {}).setdefault(k, [])
                    if rel not in topics[topic][k]:
                        topics[topic][k].append(rel)
                topics.setdefault(topic, {})
    return topics


def _resolve(expr, what, body, text, all_funcs):
    """What an argument stands for. what == "keys": the keys written into
    the buffer `expr` (by fmt_snprintf into it in this function, or by a
    function it is passed to as the first argument). what == "names": the
    strings of the array `expr` indexes."""
    expr = expr.strip()
    if what == "names":
        m = re.match(r"(\w+)\s*\[", expr)
        return string_array(text, m.group(1)) if m else []
    m = re.fullmatch(r"\w+", expr)
    if not m:
        return []
    keys = []
    for _, args in calls(body, "fmt_snprintf"):
        if args and args[0] == expr:
            keys += _fields(c_string(args[2]) or "", args[3:],
                            lambda e, w: [])
    for fname, (params, fbody) in all_funcs.items():
        for _, args in calls(body, fname):
            if args and args[0] == expr:
                first = params[0].split()[-1].lstrip("*") if params else ""
                for _, a in calls(fbody, "fmt_snprintf"):
                    if a and a[0] == first:
                        keys += _fields(c_string(a[2]) or "", a[3:],
                                        lambda e, w: [])
    return keys


def exit_reasons(root=ROOT):
    """Every reason= the kernel can end with: literals given to finish() or
    panic() or assigned to a variable named reason."""
    reasons = set()
    for path in kernel_c_files(root):
        text = strip_comments(path.read_text())
        for m in re.finditer(r"\breason\s*=\s*(\"[^\"]+\")", text):
            reasons.add(c_string(m.group(1)))
        for name in ("finish", "panic"):
            for _, args in calls(text, name):
                for a in args[:2]:
                    s = c_string(a)
                    if s and re.fullmatch(r"[a-z][a-z0-9_]*", s):
                        reasons.add(s)
    return sorted(reasons)


# ------------------------------------------------------------- make

def make_targets_and_vars(root=ROOT):
    """(targets, variables) of the Makefile and mk/*.mk: rule targets and
    .PHONY names; variables assigned there."""
    targets, variables = set(), set()
    for path in [root / "Makefile", *sorted((root / "mk").glob("*.mk"))]:
        text = path.read_text()
        for m in re.finditer(r"^\.PHONY:\s*(.*)$", text, re.M):
            targets.update(m.group(1).split())
        for m in re.finditer(r"^([A-Za-z][\w.\-/ $()]*?)\s*:(?!=)", text,
                             re.M):
            for t in m.group(1).split():
                if "$" not in t and "%" not in t:
                    targets.add(t)
        for m in re.finditer(r"^(?:override\s+)?([A-Z][A-Z0-9_]*)\s*[:?+]?=",
                             text, re.M):
            variables.add(m.group(1))
        # Read without being assigned (V=1, KVM_TESTS=1): make still
        # passes them on.
        variables.update(re.findall(r"\$\(([A-Z][A-Z0-9_]*)\)", text))
    return targets, variables


def env_variables(root=ROOT):
    """Environment variables the scripts and tools read (a make variable on
    the command line reaches them through the environment)."""
    names = set()
    pats = [r"os\.environ(?:\.get)?\s*[\[(]\s*[\"']([A-Z][A-Z0-9_]*)",
            r"getenv\(\s*[\"']([A-Z][A-Z0-9_]*)",
            r"\$\{([A-Z][A-Z0-9_]*)[:}\-]"]
    for d in ("scripts", "tools", "tests"):
        for p in (root / d).rglob("*"):
            if p.is_file() and p.suffix in ("", ".sh", ".py", ".c"):
                try:
                    t = p.read_text()
                except UnicodeDecodeError:
                    continue
                for pat in pats:
                    names.update(re.findall(pat, t))
    return names


# ------------------------------------------------------------- Markdown

def md_sections(text):
    """[(level, title, body)] for every heading outside code fences; body
    runs to the next heading of the same or a higher level."""
    lines = text.split("\n")
    heads, fence = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2)))
    out = []
    for j, (i, level, title) in enumerate(heads):
        end = len(lines)
        for i2, level2, _ in heads[j + 1:]:
            if level2 <= level:
                end = i2
                break
        out.append((level, title, "\n".join(lines[i + 1:end])))
    return out


def md_section(text, pattern):
    """The body of the first heading matching the regex, or None."""
    for _, title, body in md_sections(text):
        if re.search(pattern, title):
            return body
    return None


def md_rows(text):
    """The cells of every table row, header and separator rows left out;
    `\\|` inside a cell is a literal bar."""
    def cells(line):
        return [c.strip().replace("\\|", "|")
                for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]

    def separator(line):
        return line.startswith("|") and all(
            re.fullmatch(r":?-{3,}:?", c) for c in cells(line))

    lines = text.split("\n")
    rows = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or separator(line):
            continue
        if i + 1 < len(lines) and separator(lines[i + 1]):
            continue
        rows.append(cells(line))
    return rows


def code_names(cell):
    """The `code` spans of a cell."""
    return re.findall(r"`([^`]+)`", cell)
