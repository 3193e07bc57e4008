"""Staggered Pfair Sec. 5.1, Fig. 9(a): cycles lost to bus contention when
every quantum starts with each CPU's task reloading its working set, aligned
against staggered quantum boundaries.

What this models (the paper used the Limes hardware simulator; under QEMU
there is no memory system to measure, so this is a model): M CPUs, quantum
Q bus cycles; at each of its quantum boundaries a CPU starts a task that
fetches its whole working set, WSS / 32-byte lines, one blocking request at
a time (the paper's blocking direct-mapped caches with 32-byte lines); one
bus serves one line per bus cycle, shared round robin among the CPUs with a
request pending, taken as fluid (k pending CPUs each progress at 1/k line
per cycle), so a CPU loses k - 1 of every k cycles, as the paper counts
waiting requests. A burst not finished at the CPU's next boundary is cut
off (the task is preempted). Aligned: all CPUs' boundaries at t Q;
staggered: CPU k's at t Q + k Q / M (staggered Pfair's t(i, k))."""
from benchlib import pyplot, write_csv
from common import Section, host_platform

LINE = 32
Q_BUS = 20000  # bus cycles per quantum: the model's one free parameter
QUANTA = 4     # the first quantum is warm-up and not counted

PLANS = {
    "tiny": dict(m=[1, 2, 4], wss=[16, 128]),
    "quick": dict(m=[1, 2, 4, 8, 16], wss=[16, 32, 64, 128, 256]),
    "full": dict(m=list(range(1, 17)), wss=[4, 8, 16, 32, 64, 128, 256]),
}


def simulate(m, lines, staggered, q=Q_BUS, quanta=QUANTA):
    """Per counted burst: (cycles lost waiting, fraction of the working set
    loaded). Returns their means."""
    bounds = sorted((t * q + (k * q / m if staggered else 0), k)
                    for t in range(quanta) for k in range(m))
    bounds.append((quanta * q + q, -1))  # end of the run
    rem, start, served_lost = {}, {}, []
    now = 0.0

    def close(k, t_end):
        if bounds_seen[k] > 1:  # skip each CPU's first (warm-up) burst
            done = lines - rem.get(k, 0.0)
            served_lost.append((t_end - start[k] - done, done / lines))
        rem.pop(k, None)

    bounds_seen = dict.fromkeys(range(m), 0)
    finished = set()
    for t_next, cpu in bounds:
        while rem and now < t_next:
            active = len(rem)
            k_min = min(rem, key=rem.get)
            dt = min(rem[k_min] * active, t_next - now)
            for k in rem:
                rem[k] -= dt / active
            now += dt
            if rem[k_min] <= 1e-9:
                rem[k_min] = 0.0
                close(k_min, now)
                finished.add(k_min)
        now = t_next
        if cpu < 0:
            break
        if cpu in rem:
            close(cpu, now)
        bounds_seen[cpu] += 1
        rem[cpu], start[cpu] = float(lines), now
    lost = sum(x[0] for x in served_lost) / len(served_lost)
    loaded = sum(x[1] for x in served_lost) / len(served_lost)
    return lost, loaded


def run(mode, outdir):
    plan = PLANS[mode]
    rows = []
    for w in plan["wss"]:
        lines = w * 1024 // LINE
        for m in plan["m"]:
            al, al_ld = simulate(m, lines, False)
            st, st_ld = simulate(m, lines, True)
            rows.append([m, w, lines, al, st, al_ld, st_ld])
    headers = ["m", "wss_kb", "lines", "aligned_lost", "staggered_lost",
               "aligned_loaded", "staggered_loaded"]
    write_csv(outdir / "bus_contention.csv", headers, rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for w in plan["wss"]:
        sel = [r for r in rows if r[1] == w]
        line, = ax.plot([r[0] for r in sel], [r[3] for r in sel], "o-",
                        label=f"aligned {w}K")
        ax.plot([r[0] for r in sel], [r[4] for r in sel], "x--",
                color=line.get_color(), label=f"staggered {w}K")
    ax.set_xlabel("processors M")
    ax.set_ylabel("bus cycles lost per task per quantum")
    ax.set_title("Bus contention model (cf. staggered Pfair Fig. 9(a))")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(outdir / "bus_contention.png", dpi=100)
    plt.close(fig)
    return section(rows, plan)


def section(rows, plan):
    big = max(plan["wss"])
    mmax = max(plan["m"])
    sel = {(r[0], r[1]): r for r in rows}
    r = sel[mmax, big]
    free = [(m, w) for m, w in sel if m > 1 and sel[m, w][4] == 0]
    over = sorted({(m, w) for m, w in sel if m * w * 1024 // LINE > Q_BUS})
    conv = (f"at M = {mmax}, WSS {big}K (bus demand {mmax * r[2]} lines per "
            f"{Q_BUS}-cycle quantum) aligned loses {r[3]:.0f} and staggered "
            f"{r[4]:.0f} cycles per task, loading {r[5]:.0%} and {r[6]:.0%} "
            "of the working set")
    diff = (
        f"Staggering removes the contention entirely in {len(free)} of "
        f"{sum(1 for m, w in sel if m > 1)} multi-CPU points (each CPU's burst "
        "ends before the next CPU's boundary), while aligned bursts always "
        "collide; " + conv + ". " +
        (f"{len(over)} points ask for more lines per quantum than the bus "
         "serves; there the two models converge, as the paper's Fig. 9(a) "
         "curves do when the bus overloads. " if over else "")
        + "The paper's numbers are cycles of a simulated 200 MHz machine with "
          "MESI caches (Limes) and its Fig. 9(b)-(c) random-access pattern; "
          "this model has one line per bus cycle, no coherence traffic and "
          f"a quantum of {Q_BUS} bus cycles, so the shape (aligned loss "
          "growing with M, staggering near zero until overload, convergence "
          "past it) is what compares, not the magnitudes.")
    return Section(
        title="Staggered Pfair: bus contention, aligned against staggered",
        paper="staggered Pfair (Holman & Anderson, 000) Sec. 5.1",
        figure="Fig. 9(a) (Fig. 2's bus-load picture)",
        measured="a model, not a measurement: bus cycles each task loses "
                 "waiting for the bus while reloading its working set at "
                 "each quantum start, and the fraction loaded before its "
                 "quantum ends, aligned and staggered boundaries (see "
                 "tools/experiments/exp_bus_contention.py)",
        platform=host_platform("Python fluid round-robin bus model"),
        table=(["M", "WSS_KB", "lines", "aligned_lost", "staggered_lost",
                "aligned_loaded", "staggered_loaded"], rows),
        published="Limes simulation, 200 MHz CPUs, 10 ms quanta, 256 KB "
                  "direct-mapped blocking caches with 32-byte lines, M in "
                  "1..16, three slots: Fig. 9(a), each task writing its whole "
                  "cache at each quantum start, shows the average cycles lost "
                  "per task; the aligned and staggered curves converge as M "
                  "grows because the bus overloads. Fig. 9(b)-(c), random "
                  "writes to a fraction of the array: \"staggering produces "
                  "significantly less loss in all cases\". On the 4-CPU "
                  "prototype (Fig. 10) up to 7 (linear) and 2.5 (random) "
                  "times more writes under staggering.",
        differences=diff,
        files=["bus_contention.csv", "bus_contention.png"])
