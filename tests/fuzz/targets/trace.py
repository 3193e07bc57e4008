"""Fuzz target `trace`: the trace decoder (tools/rtktrace, `rtk-trace
decode --check`) on a console log, coverage-guided with atheris (libFuzzer
for Python). The input's first byte is a flag, the rest the log, read as
the tool reads it (UTF-8, undecodable bytes replaced). With flag bit 0 set
the target first makes the CRC of every TRACE- line hold (the KV lines' of
their text, a DATA line's of its decoded records, a SUMMARY line's of its
part), so that mutations reach the records and the fields rather than stop
at the CRCs. The decoder must name what is damaged and go on: any
exception is a crash. It must also keep its own promises: problems are
(line, text) pairs inside the log, and each run's files can be made.

    build/venv/bin/python tests/fuzz/targets/trace.py [libFuzzer options]
"""
import base64
import binascii
import pathlib
import re
import sys
import zlib

import atheris

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))

with atheris.instrument_imports():
    from rtktrace import decode
    from rtktrace.jobs import rows as job_rows

KV = re.compile(r"^(.*TRACE-(?:BEGIN|TASK|CPU|END) .*) crc=[0-9a-f]{8}$")
DATA = re.compile(r"^(.*TRACE-DATA cpu=\d+ seq=\d+ n=\d+ crc=)[0-9a-f]{8}"
                  r"( (\S+))$")
SUMMARY = re.compile(r"^(.*TRACE-SUMMARY part=\d+ parts=\d+ crc=)"
                     r"[0-9a-f]{8}( (.*))$")


def crc(data):
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08x}"


def seal_line(line):
    m = KV.match(line)
    if m:
        text = m.group(1)
        return f"{text} crc={crc(text[text.find('TRACE-'):].encode())}"
    m = DATA.match(line)
    if m:
        try:
            raw = base64.b64decode(m.group(3), validate=True)
        except (binascii.Error, ValueError):
            return line
        return m.group(1) + crc(raw) + m.group(2)
    m = SUMMARY.match(line)
    if m:
        return m.group(1) + crc(m.group(3).encode()) + m.group(2)
    return line


def seal(text):
    """text with every TRACE- line's CRC made to hold; a serial console's
    "\r" line ends are kept (the decoder strips them)."""
    out = []
    for line in text.split("\n"):
        body = line.rstrip("\r")
        out.append(seal_line(body) + line[len(body):])
    return "\n".join(out)


def TestOneInput(data):
    if not data:
        return
    text = data[1:].decode("utf-8", errors="replace")
    if data[0] & 1:
        text = seal(text)
    nlines = len(text.splitlines())
    runs, loose = decode.runs_from(text)
    for line, what in loose:
        assert 1 <= line <= max(nlines, 1) and isinstance(what, str), (
            line, what)
    for run in runs:
        for line, what in run.dump.problems:
            assert 1 <= line <= nlines and isinstance(what, str), (line, what)
        rows = run.schedule_rows()
        assert len(rows) == len(run.derived.schedule)
        run.summary_line()
        list(job_rows(run.params, run.jobs, run.name, run.d_of))
        decode.report(run, [])
        decode.check_console(text, run, runs)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
