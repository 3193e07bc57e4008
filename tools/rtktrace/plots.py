"""Pictures of a decoded run: the Gantt chart (like LITMUS^RT's st-draw: one
row per CPU, tasks coloured, releases, deadlines and misses marked) and the
overhead histograms and CDFs. matplotlib draws them, to files only."""
import dataclasses

from .derive import OVERHEAD_KINDS

DPI = 100
IDLE_COLOUR = (1.0, 1.0, 1.0)
MISS_COLOUR = (0.85, 0.0, 0.0)
# Twenty colours far enough apart to tell tasks apart on screen and in the
# pixel test (matplotlib's tab20, reordered: the dark tones first).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78",
           "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7",
           "#dbdb8d", "#9edae5"]


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def task_colour(i):
    """RGB in 0..1 of task i's bars."""
    h = PALETTE[i % len(PALETTE)]
    return tuple(int(h[k:k + 2], 16) / 255 for k in (1, 3, 5))


@dataclasses.dataclass
class Bar:
    cpu: int
    start: float     # quanta from T0
    stop: float
    task: int


@dataclasses.dataclass
class Mark:
    kind: str        # release, deadline, miss
    at: float        # quanta from T0
    task: int


def bars(view):
    """What each CPU ran (the view's slices), in quanta from time 0."""
    q = max(1, view.quantum_us * 1000)
    index = {name: i for i, name in enumerate(view.tasks)}
    return [Bar(s.cpu, s.start / q, s.stop / q, index[s.task])
            for s in view.slices]


# The instants the chart marks: a dropped job is a miss.
MARKED = {"release": "release", "deadline": "deadline", "miss": "miss",
          "drop": "miss"}


def marks(view):
    """Releases, deadlines and misses (at the late completion, or where
    the job was dropped)."""
    q = max(1, view.quantum_us * 1000)
    index = {name: i for i, name in enumerate(view.tasks)}
    return [Mark(MARKED[e.kind], e.at / q, index[e.task])
            for e in view.instants if e.kind in MARKED]


@dataclasses.dataclass
class Hatch:
    cpu: int
    start: float     # quanta from T0
    stop: float
    kind: str        # hold (a critical section) or spin


def hatches(view):
    """The parts of the bars where their job held a resource or spun for
    one (docs/locking.md): each lock span cut to the task's slices."""
    q = max(1, view.quantum_us * 1000)
    out = []
    for lk in view.locks:
        if lk.kind not in ("hold", "spin"):
            continue
        for s in view.slices:
            if s.task != lk.task:
                continue
            a, b = max(s.start, lk.start), min(s.stop, lk.stop)
            if b > a:
                out.append(Hatch(s.cpu, a / q, b / q, lk.kind))
    return out


def chart(view, png, svg=None):
    """The view's Gantt chart into png (and svg); returns its Geometry."""
    return gantt(view, bars(view), marks(view), lambda i: view.tasks[i],
                 png, svg, hatches(view))


@dataclasses.dataclass
class Geometry:
    """The chart's axes as matplotlib laid them out: to_px maps data
    coordinates (quanta from T0, row height) to PNG pixels (x right, y
    down); rows maps each y-axis label ("CPU 0", ..., "jobs") to its data
    height."""
    width: int
    height: int
    to_px: object
    rows: dict


def row_of(p, cpu):
    """CPU 0 on top; the job marks above it."""
    return p.cpus - 1 - cpu


# How the bars of a job that holds a resource, or spins for one, are
# hatched.
HATCH = {"hold": ("////", "holding a resource"),
         "spin": ("xxxx", "spinning for one")}


def row_bars(ax, p, items, label, **style):
    """items (with cpu, start, stop) drawn on their CPUs' rows in one
    style, labelled once in the legend."""
    labelled = False
    for k in range(p.cpus):
        spans = [(x.start, x.stop - x.start) for x in items if x.cpu == k]
        if spans:
            ax.broken_barh(spans, (row_of(p, k) - 0.4, 0.8),
                           label=None if labelled else label, **style)
            labelled = True


def gantt(p, bar_list, mark_list, names, png, svg=None, hatch_list=()):
    """Draws the chart into png (and svg); returns its Geometry. p: the
    run's cpus, slots, staggered and event_driven (a view); hatch_list:
    Hatch, the parts of bars drawn over for locks."""
    plt = pyplot()
    span = max(p.slots + (1 if p.staggered else 0), 1)
    width = min(max(6 + span * 0.25, 8), 60)
    fig, ax = plt.subplots(figsize=(width, 1.6 + 0.55 * (p.cpus + 1)),
                           dpi=DPI)
    ntasks = max([b.task for b in bar_list] + [m.task for m in mark_list],
                 default=-1) + 1
    for i in range(ntasks):
        row_bars(ax, p, [b for b in bar_list if b.task == i], names(i),
                 facecolors=[task_colour(i)], edgecolor="none")
    for kind, (pattern, label) in HATCH.items():
        row_bars(ax, p, [h for h in hatch_list if h.kind == kind], label,
                 facecolors="none", edgecolor="black", hatch=pattern,
                 linewidth=0)
    if p.slots <= 200:
        for k in range(p.cpus):
            off = k / p.cpus if p.staggered else 0
            y = row_of(p, k)
            ax.vlines([t + off for t in range(p.slots + 1)], y - 0.45,
                      y + 0.45, colors="0.8", linewidth=0.5, zorder=0)
    top = p.cpus - 0.5 + 0.35
    style = {"release": ("^", None), "deadline": ("v", None),
             "miss": ("x", MISS_COLOUR)}
    for kind, (marker, colour) in style.items():
        ms = [m for m in mark_list if m.kind == kind]
        if ms:
            ax.scatter([m.at for m in ms], [top] * len(ms), marker=marker,
                       s=30, zorder=3,
                       c=[colour or task_colour(m.task) for m in ms],
                       label=kind if kind == "miss" else None)
    ax.set_xlim(0, span)
    ax.set_ylim(-0.6, p.cpus - 0.5 + 0.7)
    ax.set_yticks([row_of(p, k) for k in range(p.cpus)] + [top])
    ax.set_yticklabels([f"CPU {k}" for k in range(p.cpus)] + ["jobs"])
    ax.set_xlabel("time (quanta from T0); ^ release, v deadline, x miss")
    ax.set_title(f"{p.cpus} CPUs, {p.slots} slots, " + (
        "event-driven" if p.event_driven else
        f"{'staggered' if p.staggered else 'aligned'} quanta"))
    if ntasks <= 30:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.subplots_adjust(left=0.08, right=0.88, bottom=0.2, top=0.85)
    fig.savefig(png, dpi=DPI)
    if svg:
        fig.savefig(svg)
    fig.canvas.draw()
    w, h = fig.canvas.get_width_height()
    trans = ax.transData

    def to_px(x, y):
        px, py = trans.transform((x, y))
        return int(px), int(h - py)

    rows = {t.get_text(): y for t, y in zip(ax.get_yticklabels(),
                                            ax.get_yticks())}
    plt.close(fig)
    return Geometry(w, h, to_px, rows)


def overhead_plots(samples, khz, hist_png, cdf_png):
    """One histogram per overhead kind, and every kind's CDF on one axes."""
    plt = pyplot()
    kinds = [k for k in OVERHEAD_KINDS if any(s.kind == k for s in samples)]
    if not kinds:
        return False
    fig, axes = plt.subplots(len(kinds), 1, figsize=(7, 2.2 * len(kinds)),
                             squeeze=False)
    for ax, kind in zip(axes[:, 0], kinds):
        values = [s.cycles * 1_000_000 // khz for s in samples
                  if s.kind == kind]
        ax.hist(values, bins=min(50, max(5, len(values) // 4)),
                color="#1f77b4")
        ax.set_title(f"{kind}: {len(values)} samples")
        ax.set_xlabel("ns")
        ax.set_ylabel("samples")
    fig.tight_layout()
    fig.savefig(hist_png, dpi=DPI)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    for kind in kinds:
        values = sorted(s.cycles * 1_000_000 // khz for s in samples
                        if s.kind == kind)
        n = len(values)
        ax.step(values, [(i + 1) / n for i in range(n)], where="post",
                label=f"{kind} (n={n})")
    ax.set_xscale("symlog")
    ax.set_xlabel("ns")
    ax.set_ylabel("fraction of samples at or below")
    ax.grid(True, linewidth=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(cdf_png, dpi=DPI)
    plt.close(fig)
    return True
