"""Small helpers shared by the benchmarks: host programs, tables, CSV and
plots."""
import csv
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def host_tool(name):
    """build/host/NAME, building the host programs first if it is missing."""
    path = ROOT / "build" / "host" / name
    if not path.exists():
        subprocess.run(["make", "-C", str(ROOT), "-j2", "host"], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def ensure_iso():
    """build/kernel.iso, made first if it is missing (the benchmarks that
    boot)."""
    iso = ROOT / "build" / "kernel.iso"
    if not iso.exists():
        subprocess.run(["make", "-C", str(ROOT), "iso"], check=True)
    return iso


def print_table(headers, rows, title=None):
    """Prints rows (lists) under headers, columns right-aligned."""
    cells = [[str(h) for h in headers]] + [[fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    if title:
        print(title)
    for k, r in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
        if k == 0:
            print("  ".join("-" * w for w in widths))
    print()


def fmt(c):
    if isinstance(c, float):
        return f"{c:.3f}" if abs(c) < 1000 else f"{c:.0f}"
    return str(c)


def write_csv(path, headers, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(headers)
        w.writerows(rows)


def pyplot():
    """matplotlib's pyplot with a file-only backend."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_plot(plt, fig, ax, path, xlabel, ylabel, logx=False):
    """Labels ax, adds its legend, and writes fig to path."""
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
