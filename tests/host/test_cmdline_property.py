"""lib/cmdline against a reference written here: words are separated by
runs of spaces, tabs or carriage returns; a word's key runs up to its first
'=', the value is everything after it (possibly empty, possibly holding
more '='), and a word without '=' has no value."""
import json
import re
import subprocess

from hypothesis import given, settings, strategies as st

from conftest import host_tool

ALPHABET = " \t\r=ab_/.19-"


def reference(line):
    words = [w for w in re.split(r"[ \t\r]+", line) if w]
    return [[w.split("=", 1)[0], w.split("=", 1)[1] if "=" in w else None]
            for w in words]


def split_all(lines):
    proc = subprocess.run([str(host_tool("cmdline_split"))],
                          input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, timeout=60,
                          check=True)
    return [json.loads(l) for l in proc.stdout.splitlines()]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=40), min_size=1,
                max_size=50))
def test_words_keys_and_values_match_the_reference(lines):
    assert split_all(lines) == [reference(l) for l in lines]


def test_examples():
    got = split_all(["  quantum_us=500\tticks=aligned  ", "a==b = x= =y", ""])
    assert got == [[["quantum_us", "500"], ["ticks", "aligned"]],
                   [["a", "=b"], ["", ""], ["x", ""], ["", "y"]],
                   []]
