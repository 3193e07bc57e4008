#!/usr/bin/env python3
"""Reproduces the papers' figures: runs experiments (all, or --exp NAME),
each writing its CSV and plots under OUT/NAME/ and its section OUT/NAME/
section.md, then assembles OUT/REPORT.md from every section present, so
running one experiment updates its section and keeps the others.

Their work items (boots, simulations; tools/bench/workitems.py) run on a
Dask cluster -- a local one over every core by default, a scheduler's
address with --scheduler -- and come from the result cache when nothing
they depend on changed. The experiments run side by side, each waiting
for the ones whose output it reads (registry.AFTER)."""
import argparse
import concurrent.futures
import pathlib
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from common import MODES, ROOT, render  # noqa: E402
from registry import AFTER, EXPERIMENTS, load  # noqa: E402
import workitems  # noqa: E402 (tools/bench, on the path through common)


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


def failed_section(name, mode, error, session):
    """The section of an experiment that could not finish: what stopped
    it and the items that failed."""
    return "\n".join([
        f"## {name}: not completed", "",
        f"- Experiment: `{name}` (mode {mode})", "",
        "The experiment stopped before its section was written:", "",
        "```", error.rstrip(), "```", "",
        session.missing(name) or "No work item failed.", ""])


def run_one(name, mod, mode, out, session, waits):
    """One experiment in its thread: waits for those it reads, runs,
    writes its section (with its items' counts and missing points).
    None when it completed, else what stopped it or is missing."""
    for dep in waits:
        dep.result()
    outdir = out / name
    outdir.mkdir(parents=True, exist_ok=True)
    with workitems.named(name, session):
        session.progress.say(f"== {name} ({mode}) ==")
        start = time.monotonic()
        try:
            sec = mod.run(mode, outdir)
            text = render(name, mode, sec)
            note = session.summary(name)
            if note:
                text += f"\nWork items: {note}.\n"
            missing = session.missing(name)
            if missing:
                text += "\n" + missing
            why = (f"{len(session.failures[name])} work items failed "
                   "twice; its section lists them" if missing else None)
        except (Exception, SystemExit) as e:  # noqa: BLE001 (reported)
            why = (str(e) if isinstance(e, SystemExit)
                   else traceback.format_exc())
            session.progress.say(f"== {name}: FAILED ==\n{why}")
            text = failed_section(name, mode, why, session)
        (outdir / "section.md").write_text(f'<a id="{name}"></a>\n\n'
                                           + text)
        session.progress.say(f"== {name}: {time.monotonic() - start:.1f} s"
                             f"{'' if why is None else ', INCOMPLETE'} ==\n")
    return why


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exp", help="run only this experiment")
    ap.add_argument("--mode", choices=MODES, default="quick")
    ap.add_argument("--out", default=str(ROOT / "build" / "experiments"))
    workitems.add_options(ap)
    args = ap.parse_args()
    names = [args.exp] if args.exp else list(EXPERIMENTS)
    mods = {n: load(n) for n in names}
    out = pathlib.Path(args.out)
    started = time.monotonic()
    with workitems.session_of(args) as session:
        if not session.client:
            # Here, one after another, in the registry's order.
            whys = [run_one(n, mods[n], args.mode, out, session, [])
                    for n in names]
        else:
            # Side by side: their items share the cluster.
            with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
                futs = {}
                for n in names:
                    waits = [futs[d] for d in AFTER.get(n, ()) if d in futs]
                    futs[n] = pool.submit(run_one, n, mods[n], args.mode,
                                          out, session, waits)
                whys = [futs[n].result() for n in names]
        session.report_totals(started)
    assemble(out)
    print(f"report: {out / 'REPORT.md'}")
    bad = [(n, w) for n, w in zip(names, whys) if w is not None]
    if bad:
        sys.exit("incomplete (the sections say what is missing):\n"
                 + "\n".join(f"{n}: {w}" for n, w in bad))


if __name__ == "__main__":
    main()
