"""What every experiment shares: the section it contributes to REPORT.md,
the platform it ran on, and access to the benchmarks of tools/bench (which
the wrapping experiments call rather than copy)."""
import csv
import dataclasses
import importlib.util
import os
import pathlib
import platform
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BENCH = ROOT / "tools" / "bench"
# The benchmarks import their helpers (benchlib) by bare name.
sys.path.insert(0, str(BENCH))

# The benchmarks know smoke/quick/full; an experiment's tiny mode is the
# benchmark's smoke mode.
BENCH_MODE = {"tiny": "smoke", "quick": "quick", "full": "full"}
MODES = tuple(BENCH_MODE)

PLACEHOLDERS = ("TODO", "TBD", "FIXME", "XXX", "placeholder")


@dataclasses.dataclass
class Section:
    """One experiment's part of REPORT.md. `table` is (headers, rows) of the
    numbers measured here; `published` what the paper reports for the same
    figure; `differences` says, from the data, where and why they differ."""
    title: str
    paper: str
    figure: str
    measured: str
    platform: str
    table: tuple
    published: str
    differences: str
    files: list = dataclasses.field(default_factory=list)


def bench_module(name):
    """tools/bench/bench_NAME.py, imported (its run(mode, outdir) is what
    the wrapping experiments call)."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", BENCH / f"bench_{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def host_platform(what):
    """The host this ran on, for a section measured outside the kernel."""
    model = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"host, not the kernel: {what} on {model} "
            f"({os.cpu_count()} CPUs visible, {platform.system()} "
            f"{platform.release()})")


def fmt(v):
    if isinstance(v, float):
        if v != 0 and abs(v) < 0.01:
            return f"{v:.2g}"
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.0f}"
    return str(v)


def md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join(" --- " for _ in headers) + "|"]
    out += ["| " + " | ".join(fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def render(name, mode, sec):
    """The markdown of one section; plots are linked relative to
    REPORT.md, which sits beside the experiments' directories."""
    headers, rows = sec.table
    parts = [f"## {sec.title}",
             "",
             f"- Experiment: `{name}` (mode {mode})",
             f"- Paper: {sec.paper}, {sec.figure}",
             f"- Measured here: {sec.measured}",
             f"- Platform: {sec.platform}",
             "",
             md_table(headers, rows),
             "",
             f"**Published.** {sec.published}",
             "",
             f"**Differences and why.** {sec.differences}",
             ""]
    pics = [f for f in sec.files if f.endswith(".png")]
    data = [f for f in sec.files if not f.endswith(".png")]
    if data:
        parts += ["Data: " + ", ".join(f"[{f}]({name}/{f})" for f in data),
                  ""]
    parts += [f"![{f}]({name}/{f})" for f in pics]
    return "\n".join(parts).rstrip() + "\n"


def panel(ax, series, xlabel, ylabel, title):
    """One plot panel: series of (points, style, label), points (x, y)
    pairs drawn in order; then the axes' labels, title and legend."""
    for pts, style, label in series:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)


def save_figure(plt, fig, path, dpi=100):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
