#!/usr/bin/env python3
"""Reproduces the papers' figures: runs experiments (all, or --exp NAME),
each writing its CSV and plots under OUT/NAME/ and its section OUT/NAME/
section.md, then assembles OUT/REPORT.md from every section present, so
running one experiment updates its section and keeps the others."""
import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from common import MODES, ROOT, render  # noqa: E402
from registry import EXPERIMENTS, load  # noqa: E402


def assemble(out):
    """OUT/REPORT.md: a header and the sections in registry order."""
    sections = [(n, out / n / "section.md") for n in EXPERIMENTS]
    present = [(n, p) for n, p in sections if p.exists()]
    head = ["# rtk: the papers' figures, measured here", "",
            "Regenerate with `make experiments [EXP=name] [MODE=quick|full]`"
            " (docs/experiments.md). Each section names the paper's figure, "
            "what was measured, on what, the published result beside it and "
            "where they differ.", "",
            "| experiment | section written |", "| --- | --- |"]
    head += [f"| [{n}](#{n}) | {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(p.stat().st_mtime))} |"
             for n, p in present]
    body = [p.read_text() for _, p in present]
    (out / "REPORT.md").write_text("\n".join(head) + "\n\n" +
                                   "\n".join(body))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exp", help="run only this experiment")
    ap.add_argument("--mode", choices=MODES, default="quick")
    ap.add_argument("--out", default=str(ROOT / "build" / "experiments"))
    args = ap.parse_args()
    names = [args.exp] if args.exp else list(EXPERIMENTS)
    mods = [(n, load(n)) for n in names]
    out = pathlib.Path(args.out)
    for name, mod in mods:
        outdir = out / name
        outdir.mkdir(parents=True, exist_ok=True)
        print(f"== {name} ({args.mode}) ==", flush=True)
        start = time.monotonic()
        sec = mod.run(args.mode, outdir)
        (outdir / "section.md").write_text(
            f'<a id="{name}"></a>\n\n' + render(name, args.mode, sec))
        print(f"== {name}: {time.monotonic() - start:.1f} s ==\n", flush=True)
    assemble(out)
    print(f"report: {out / 'REPORT.md'}")


if __name__ == "__main__":
    main()
