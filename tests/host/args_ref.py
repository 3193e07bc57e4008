"""An independent model of a task line's args="..." (docs/user-programs.md,
"Arguments"), written from the documented rules, not from lib/taskset or
lib/task_args:

- the value starts at the double quote after `args=` and ends at the next
  double quote that no backslash escapes; a word must end right after it
  (a blank, '#' or the end of the line);
- inside, a backslash followed by ", ' or \\ is that character, literally;
  a backslash before anything else is an error;
- blanks (space, tab) outside single quotes separate words; '...' groups
  what it encloses, blanks included, and '' alone is an empty word; an
  unclosed single quote is an error;
- a control byte (below 0x20 but tab, or 0x7f) is an error; more than 32
  words are an error.

words(rest) takes the text of a line from just after `args=` to its end
and returns ("ok", [words]) or ("error", phrase), phrase a piece of the
parser's message."""
import re

# One lexical item of the value: an escape pair, or one character.
ITEM = re.compile(r"\\.|.", re.S)


def value(rest):
    """The raw text between the quotes, or ("error", phrase)."""
    if not rest.startswith('"'):
        return ("error", "the value goes in double quotes")
    items = ITEM.findall(rest[1:])
    raw, closed = "", False
    for k, item in enumerate(items):
        if item == '"':
            closed = True
            after = "".join(items[k + 1:])
            if after and after[0] not in " \t#":
                return ("error", "a quoted value ends its word")
            break
        raw += item
    if not closed:
        return ("error", "has no closing double quote")
    return ("ok", raw)


def words(rest):
    kind, raw = value(rest)
    if kind == "error":
        return (kind, raw)
    out, cur, quoted = [], None, False
    for item in ITEM.findall(raw):
        if (ord(item[0]) < 0x20 and item[0] != "\t") or ord(item[0]) == 0x7F:
            return ("error", "a control character")
        if item.startswith("\\"):
            if len(item) < 2 or item[1] not in "\"'\\":
                return ("error", "a backslash before something other than")
            cur = (cur or "") + item[1]
        elif item == "'":
            quoted = not quoted
            cur = cur or ""
        elif item in " \t" and not quoted:
            if cur is not None:
                out.append(cur)
            cur = None
        else:
            cur = (cur or "") + item
    if quoted:
        return ("error", "a single quote that is not closed")
    if cur is not None:
        out.append(cur)
    if len(out) > 32:
        return ("error", "more than 32 arguments")
    return ("ok", out)


# A program name (work=): 1 to 31 letters, digits, '_' and '-', the first
# a letter.
WORK = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")


def work_ok(name):
    return WORK.fullmatch(name) is not None
