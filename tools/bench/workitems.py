"""Work items: what the experiments and the benchmarks that boot hand to a
distributed engine (Dask distributed), each a pure function of its inputs
returning its parsed results, and a cache of those results keyed by their
content.

An Item is one of
- a boot (`boot_item`): an ISO made from the build's kernel and programs
  with a task set and command-line words, booted once in QEMU; the result
  is the console, the exit code and whether it timed out;
- a program run (`program_item`): a host program of build/host over input
  files written for it; the result is its output;
- a call (`call_item`): a module-level function of a Python file of this
  repository called with JSON keyword arguments (a benchmark's one boot
  and its parsing, a batch of simulations); the result is what it
  returns, as JSON.

Its key is the SHA-256 of everything its result depends on: the kind, the
arguments (task set, command line, QEMU's arguments, timing mode, seed),
the content of every file it reads (the kernel, the ring-3 programs, the
host program, the Python file of a call), and the versions of the
emulator and of grub-mkrescue. A Session runs a list of items: those whose
key is in the cache (build/cache/items, safe to delete) come from there,
the others go to Dask -- a LocalCluster on this machine by default, a
scheduler's address for a cluster -- retried once when they fail, and a
line per finished item shows the progress. Without a Session (the tests
of single experiments) items run here, one after another, uncached."""
import contextlib
import dataclasses
import gzip
import hashlib
import json
import logging
import os
import pathlib
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
# A worker imports the experiments' and benchmarks' modules by bare name,
# as the driver does.
for _d in ("tools/bench", "tools/experiments", "tests/boot"):
    if str(ROOT / _d) not in sys.path:
        sys.path.insert(0, str(ROOT / _d))

CACHE_DIR = ROOT / "build" / "cache" / "items"
# Bumped when what an item kind computes from the same inputs changes.
FORMAT = {"boot": 1, "program": 1, "call": 1}
# An item that must have its worker to itself (timing on the host's
# clock): it asks for every core of the largest worker.
ALL_CORES = 0
TAIL_LINES = 40


class ItemFailed(Exception):
    """An item that ran and did not give a result: its message says what
    failed and ends with the end of its console or output."""


@dataclasses.dataclass(frozen=True)
class Item:
    kind: str
    args: dict
    files: tuple
    label: str
    cores: int = 1
    versions: tuple = ()
    # Hashed into the key beside the arguments, not passed to the item.
    extra_key: str = ""

    def inputs(self):
        """The arguments in a line, long values shortened (failure
        reports)."""
        args, parts = self.args, []
        if self.kind == "call":
            args = args["kwargs"]
            parts.append(f"{self.args['module']}: {self.args['function']}")
        for k, v in sorted(args.items()):
            s = json.dumps(v) if not isinstance(v, str) else v
            if len(s) > 160:
                s = s[:150] + f"... ({len(s)} chars)"
            parts.append(f"{k}={s}")
        return "; ".join(parts)


# ------------------------------------------------------------ content keys
_digests = {}
_versions = {}


def file_digest(rel):
    """SHA-256 of ROOT/rel, remembered while the file's size and mtime
    stay the same."""
    path = ROOT / rel
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ItemFailed(f"{rel} is missing (run make host iso?)") from None
    memo = (str(path), st.st_mtime_ns, st.st_size)
    if memo not in _digests:
        _digests[memo] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _digests[memo]


def tool_version(cmd):
    """The first line of `cmd --version` (the emulator's, GRUB's)."""
    if cmd not in _versions:
        try:
            out = subprocess.run([cmd, "--version"], capture_output=True,
                                 text=True, timeout=60).stdout
        except OSError as e:
            out = f"not runnable: {e}"
        _versions[cmd] = (out.strip().splitlines() or ["?"])[0]
    return _versions[cmd]


def digests(item):
    return {rel: file_digest(rel) for rel in item.files}


def key(item):
    """The item's content key (hex)."""
    payload = {"kind": item.kind, "format": FORMAT[item.kind],
               "args": item.args, "files": digests(item),
               "versions": {c: tool_version(c) for c in item.versions},
               "extra": item.extra_key}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()
                          ).hexdigest()


# ------------------------------------------------------------ the items
def boot_files(omit_program=None):
    """What an ISO made by scripts/mkiso.sh holds: the kernel, every
    ring-3 program (one per user/*.c), GRUB's configuration, the script."""
    progs = sorted(p.stem for p in (ROOT / "user").glob("*.c")
                   if p.stem != omit_program)
    return (("build/kernel/kernel.elf",)
            + tuple(f"build/user/{p}.elf" for p in progs)
            + ("boot/grub.cfg", "scripts/mkiso.sh"))


BOOT_VERSIONS = ("qemu-system-x86_64", "grub-mkrescue")


def boot_item(tasks=None, cmdline=None, smp=2, icount=None, memory="256M",
              machine="pc", firmware="bios", extra=(), timeout=900,
              entry=0, omit_program=None, tasks_name="set.tasks",
              require_pass=True, rep=0, label=None, insn_count=False):
    """One boot. tasks: a task set's text; cmdline: the extra kernel
    words; icount: QEMU's -icount argument (virtual time) or None (plain
    TCG on the host's clock, which then has the worker to itself); rep
    tells repeated boots of the same inputs apart; insn_count: with the
    plugin that counts each CPU's instructions (harness.qemu), its counts
    in the result's `marks`."""
    import harness
    args = dict(tasks=tasks, cmdline=cmdline or "", smp=smp, icount=icount,
                memory=memory, machine=machine, firmware=firmware,
                extra=list(extra), timeout=timeout, entry=entry,
                omit_program=omit_program, tasks_name=tasks_name,
                require_pass=require_pass, rep=rep)
    files = boot_files(omit_program)
    if insn_count:
        # Only then a key of its own: the items without it keep theirs.
        args["insn_count"] = True
        extra = list(extra) + harness.insn_count_args("MARKS")
        files += (str(harness.INSN_COUNT.relative_to(ROOT)),)
    argv = harness.qemu_command("ISO", "SERIAL", smp=smp, machine=machine,
                                firmware=firmware, icount=icount,
                                extra=extra, memory=memory, vars_copy="VARS")
    return Item("boot", args, files,
                label or f"boot smp={smp} {cmdline or ''}".strip(),
                cores=1 if icount else ALL_CORES, versions=BOOT_VERSIONS,
                extra_key=json.dumps(argv))


def program_item(tool, argv, inputs=None, timeout=1800, check=True,
                 timed=False, label=None):
    """A run of build/host/TOOL with argv; inputs {file name: text} are
    written to a directory whose path replaces `{dir}` in argv. timed: it
    times itself on the host's clock, so it has its worker to itself."""
    rel = f"build/host/{tool}"
    args = dict(tool=rel, argv=[str(a) for a in argv], inputs=inputs or {},
                timeout=timeout, check=check)
    return Item("program", args, (rel,),
                label or f"{tool} {' '.join(map(str, argv))}"[:100],
                cores=ALL_CORES if timed else 1)


def call_item(module, function, kwargs, boots=False, timed=False,
              files=(), versions=(), label=None):
    """A call of FUNCTION(**kwargs) of the Python file `module` (relative
    to the repository). boots: it boots the kernel (the ISO's files and
    the emulator's version join the key); timed: it reads the host's
    clock (a plain-TCG boot, a host timing), so it has its worker to
    itself; files and versions (commands): more of what it depends on."""
    mod = str(pathlib.Path(module))
    deps = (mod,) + tuple(files) + (boot_files() if boots else ())
    return Item("call", dict(module=mod, function=function, kwargs=kwargs),
                deps, label or f"{pathlib.Path(mod).stem}.{function}",
                cores=ALL_CORES if timed else 1,
                versions=tuple(versions) + (BOOT_VERSIONS if boots else ()))


def _boot(args, tmp):
    import harness
    tasks = None
    if args["tasks"] is not None:
        tasks = tmp / args["tasks_name"]
        tasks.write_text(args["tasks"])
    iso = harness.make_iso(tmp / "run.iso", cmdline=args["cmdline"] or None,
                           tasks=tasks, entry=args["entry"],
                           omit_program=args["omit_program"])
    b = harness.qemu(iso, smp=args["smp"], machine=args["machine"],
                     firmware=args["firmware"], timeout=args["timeout"],
                     icount=args["icount"], extra=args["extra"],
                     memory=args["memory"],
                     insn_count=args.get("insn_count", False))
    # A late run (docs/running.md) measured all it reports: taken.
    if args["require_pass"] and not b.finished:
        why = (f"timed out after {args['timeout']} s" if b.timed_out else
               f"did not end with 'RESULT exit status=pass' or 'late' "
               f"(QEMU exit {b.returncode})")
        raise ItemFailed(f"the boot {why}; the end of its console:\n"
                         + b.tail(TAIL_LINES))
    out = dict(returncode=b.returncode, serial=b.serial,
               timed_out=b.timed_out)
    if args.get("insn_count"):
        out["marks"] = b.marks
    return out


def _program(args, tmp):
    for name, text in args["inputs"].items():
        (tmp / name).write_text(text)
    argv = [str(ROOT / args["tool"])] + [a.replace("{dir}", str(tmp))
                                         for a in args["argv"]]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=args["timeout"])
    except subprocess.TimeoutExpired:
        raise ItemFailed(f"{args['tool']} timed out after "
                         f"{args['timeout']} s") from None
    if args["check"] and proc.returncode:
        tail = "\n".join((proc.stderr or proc.stdout).splitlines()
                         [-TAIL_LINES:])
        raise ItemFailed(f"{args['tool']} exited {proc.returncode}; the end "
                         f"of its output:\n{tail}")
    return dict(returncode=proc.returncode, stdout=proc.stdout,
                stderr=proc.stderr)


_modules = {}


def load_module(rel):
    """The Python file ROOT/rel as a module, loaded once per process."""
    import importlib.util
    if rel not in _modules:
        name = "item_" + rel.replace("/", "_").replace(".", "_")
        spec = importlib.util.spec_from_file_location(name, ROOT / rel)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[rel] = mod
    return _modules[rel]


def _call(args, tmp):
    fn = getattr(load_module(args["module"]), args["function"])
    return fn(**args["kwargs"])


KINDS = {"boot": _boot, "program": _program, "call": _call}


def _announce(key):
    """Tells the client this item started (Dask's worker events), so that
    its progress counts it as running."""
    try:
        from distributed import get_worker
        get_worker().log_event("rtk-items", {"start": key})
    except (ImportError, ValueError):
        pass


def execute(item, want, key_hex=""):
    """Runs one item where it is (a Dask worker or here). want: the
    digests the client hashed; a worker whose files differ (another build)
    refuses rather than compute something else."""
    for rel, d in want.items():
        if file_digest(rel) != d:
            raise ItemFailed(f"{rel} on {socket.gethostname()} differs from "
                             "the client's: build the same tree there")
    _announce(key_hex)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rtk-item-") as tmp:
        result = KINDS[item.kind](item.args, pathlib.Path(tmp))
    # Through JSON here, so a result is the same fresh or from the cache.
    return dict(result=json.loads(json.dumps(result)),
                seconds=round(time.monotonic() - start, 3),
                host=socket.gethostname())


# ------------------------------------------------------------ the cache
class Cache:
    """Results by key, one gzip'd JSON file each; written whole or not at
    all, so a directory that is deleted or half written is safe."""

    def __init__(self, root):
        self.root = pathlib.Path(root)

    def path(self, k):
        return self.root / k[:2] / f"{k}.json.gz"

    def get(self, k):
        try:
            with gzip.open(self.path(k), "rt") as f:
                return json.load(f)
        except (OSError, ValueError, EOFError):
            return None

    def put(self, k, item, done):
        p = self.path(k)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        with gzip.open(tmp, "wt") as f:
            json.dump(dict(key=k, kind=item.kind, label=item.label,
                           args=item.args, seconds=done["seconds"],
                           host=done["host"], result=done["result"]), f)
        os.replace(tmp, p)


# ------------------------------------------------------------ progress
def clock(s):
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 \
        else f"{s // 60}:{s % 60:02d}"


class Progress:
    """Counts and a line per finished item: done, running, failed, left,
    the time since the first item and an estimate of the time left (the
    rate of the items computed so far; cached ones take no time)."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.lock = threading.Lock()
        self.total = self.done = self.cached = self.failed = 0
        self.computed = 0
        self.running, self.ended = set(), set()
        self.start = None

    def add(self, n, cached):
        with self.lock:
            if self.start is None:
                self.start = time.monotonic()
            self.total += n
            self.done += cached
            self.cached += cached

    def started(self, k):
        with self.lock:
            # A start's event can come in after its result.
            if k not in self.ended:
                self.running.add(k)

    def status(self):
        left = self.total - self.done - self.failed
        el = time.monotonic() - (self.start or time.monotonic())
        est = ""
        if self.computed:
            est = f", about {clock(el / self.computed * left)} left"
        return (f"[{self.done}/{self.total}] running {len(self.running)}, "
                f"failed {self.failed}, left {left - len(self.running)}; "
                f"{clock(el)} elapsed{est}")

    def finished(self, k, what, seconds, ok, note=""):
        with self.lock:
            self.running.discard(k)
            self.ended.add(k)
            if ok:
                self.done += 1
                self.computed += 1
            else:
                self.failed += 1
            line = (f"  {what}: {'' if ok else 'FAILED '}{seconds:.1f} s"
                    f"{note} | {self.status()}")
            print(line, file=self.out, flush=True)

    def say(self, text):
        with self.lock:
            print(text, file=self.out, flush=True)


# ------------------------------------------------------------ sessions
_ctx = threading.local()
_session = None


def context():
    """The name of the experiment or benchmark this thread runs."""
    return getattr(_ctx, "name", None) or "items"


@contextlib.contextmanager
def named(name, session=None):
    """Runs the block as experiment/benchmark NAME, holding the driver's
    lock (released while its items run elsewhere)."""
    s = session or current()
    _ctx.name = name
    s.lock.acquire()
    _ctx.holds = True
    try:
        yield
    finally:
        _ctx.holds = False
        s.lock.release()
        _ctx.name = None


def current():
    global _session
    if _session is None:
        _session = Session(workers=0, cache=None)
    return _session


class Session:
    """Where items run and what came of them. workers: 0 runs them here,
    one after another (no Dask); N a LocalCluster of one worker process
    with N threads and N 'cores' (a boot under -icount takes one core, a
    plain-TCG boot or a host timing all of them); None every core of this
    machine. scheduler: a Dask scheduler's address (tcp://host:8786),
    whose workers declare 'cores' (make dask-worker). cache: the
    directory of results, or None for none."""

    def __init__(self, workers=None, scheduler=None, cache=CACHE_DIR,
                 out=None):
        self.workers = os.cpu_count() if workers is None else workers
        self.scheduler = scheduler
        self.cache = Cache(cache) if cache else None
        self.progress = Progress(out)
        self.client = self.cluster = None
        self.where = "this process, one item at a time (no Dask)"
        # Experiment code runs one thread at a time (matplotlib's pyplot
        # and the prints are not thread-safe); their items run anywhere.
        self.lock = threading.Lock()
        self.stats = {}
        self.failures = {}

    # -- the engine
    def __enter__(self):
        global _session
        if self.scheduler:
            from distributed import Client
            self.client = Client(self.scheduler, timeout=60)
            self.client.wait_for_workers(1, timeout=120)
            self.where = f"the Dask scheduler at {self.scheduler}"
        elif self.workers:
            from distributed import Client, LocalCluster
            self.cluster = LocalCluster(
                n_workers=1, threads_per_worker=self.workers,
                resources={"cores": self.workers}, processes=True,
                dashboard_address=None, silence_logs=logging.CRITICAL)
            self.client = Client(self.cluster)
            self.where = (f"a local Dask cluster of {self.workers} "
                          f"core{'s' * (self.workers > 1)}")
        if self.client:
            self.client.subscribe_topic(
                "rtk-items",
                lambda ev: self.progress.started(ev[1].get("start")))
        cache = (f"cache {self.cache.root}" if self.cache else "no cache")
        self.progress.say(f"items run on {self.where}; {cache}")
        _session = self
        return self

    def __exit__(self, *exc):
        global _session
        _session = None
        if self.client:
            self.client.close()
        if self.cluster:
            self.cluster.close()

    def cores(self):
        """The 'cores' of the largest worker (what ALL_CORES asks for)."""
        have = [w.get("resources", {}).get("cores", 0) for w in
                self.client.scheduler_info()["workers"].values()]
        if not have or not max(have):
            raise SystemExit(
                f"no worker of {self.where} declares a 'cores' resource: "
                "start each with `make dask-worker DASK_SCHEDULER=...` "
                "(dask worker ADDRESS --nthreads N --resources cores=N)")
        return int(max(have))

    # -- running items
    def run(self, items, name=None):
        """The results of items, in order; None where an item failed
        twice (recorded with its inputs for the report)."""
        name = name or context()
        keys = [key(it) for it in items]
        results = [None] * len(items)
        todo = []
        for i, k in enumerate(keys):
            hit = self.cache.get(k) if self.cache else None
            if hit is not None:
                results[i] = hit["result"]
            else:
                todo.append(i)
        st = self.stats.setdefault(name, dict(items=0, cached=0, computed=0,
                                              failed=0))
        st["items"] += len(items)
        st["cached"] += len(items) - len(todo)
        self.progress.add(len(items), len(items) - len(todo))
        if len(todo) < len(items):
            self.progress.say(f"  {name}: {len(items) - len(todo)} of "
                              f"{len(items)} items from the cache")
        if not todo:
            return results
        done = (self._run_dask if self.client else self._run_here)(
            [(i, items[i], keys[i]) for i in todo], name)
        for i, out in done.items():
            if out is not None:
                results[i] = out["result"]
                st["computed"] += 1
            else:
                st["failed"] += 1
        return results

    def _store(self, k, item, out):
        """Into the cache as soon as it is done: a run stopped half way
        keeps what it computed."""
        if self.cache:
            self.cache.put(k, item, out)

    def _fail(self, name, item, why):
        self.failures.setdefault(name, []).append(
            dict(label=item.label, inputs=item.inputs(), why=why.strip()))
        self.progress.say(f"  {name}: item failed twice: {item.label}\n"
                          f"    inputs: {item.inputs()}\n"
                          + "\n".join("    | " + l for l in
                                      why.strip().splitlines()))

    def _run_here(self, todo, name):
        done = {}
        for i, item, k in todo:
            want = digests(item)
            out, why = None, ""
            for _ in range(2):
                self.progress.started(k)
                try:
                    out = execute(item, want, k)
                    break
                except ItemFailed as e:
                    why = str(e)
                except Exception:  # noqa: BLE001 (reported, not hidden)
                    why = traceback.format_exc()
            self.progress.finished(
                k, f"{name}: {item.label}", out["seconds"] if out else 0,
                out is not None)
            if out is None:
                self._fail(name, item, why)
            else:
                self._store(k, item, out)
            done[i] = out
        return done

    def _run_dask(self, todo, name):
        from distributed import as_completed
        most = None
        futs = {}
        for i, item, k in todo:
            cores = item.cores
            if cores == ALL_CORES or self.scheduler:
                most = most or self.cores()
                cores = most if cores == ALL_CORES else min(cores, most)
            fut = self.client.submit(
                execute, item, digests(item), k, key=f"{item.kind}-{k}",
                retries=1, resources={"cores": cores})
            futs[fut] = (i, item, k)
        held = getattr(_ctx, "holds", False)
        if held:
            self.lock.release()
        done = {}
        try:
            for fut in as_completed(list(futs)):
                i, item, k = futs[fut]
                if fut.status == "finished":
                    out = fut.result()
                    done[i] = out
                    self._store(k, item, out)
                    where = ("" if out["host"] == platform.node()
                             else f" on {out['host']}")
                    self.progress.finished(k, f"{name}: {item.label}",
                                           out["seconds"], True, where)
                    continue
                exc = fut.exception()
                why = str(exc) if isinstance(exc, ItemFailed) else (
                    f"{type(exc).__name__}: {exc}\n" + "".join(
                        traceback.format_tb(fut.traceback()))[-3000:])
                self.progress.finished(k, f"{name}: {item.label}", 0, False)
                self._fail(name, item, why)
                done[i] = None
        finally:
            if held:
                self.lock.acquire()
        return done

    # -- what the report says
    def summary(self, name):
        """A sentence on NAME's items, or None when it had none."""
        st = self.stats.get(name)
        if not st or not st["items"]:
            return None
        return (f"{st['items']} ({st['cached']} from the cache, "
                f"{st['computed']} computed on {self.where}, "
                f"{st['failed']} failed)")

    def missing(self, name):
        """Markdown for NAME's failed items (what the section lacks)."""
        fails = self.failures.get(name)
        if not fails:
            return ""
        out = [f"**Missing points.** {len(fails)} work item"
               f"{'s' * (len(fails) > 1)} failed twice; the table, CSVs and "
               "plots lack their points:", ""]
        for f in fails:
            tail = "\n".join(f["why"].splitlines()[-12:])
            out += [f"- `{f['label']}` (inputs: {f['inputs']})", "",
                    "  ```", *("  " + l for l in tail.splitlines()),
                    "  ```", ""]
        return "\n".join(out)

    def report_totals(self, started):
        t = self.totals()
        self.progress.say(
            f"work items: {t['items']} in all, {t['cached']} from the "
            f"cache, {t['computed']} computed, {t['failed']} failed "
            f"({clock(time.monotonic() - started)} in all)")

    def totals(self):
        t = dict(items=0, cached=0, computed=0, failed=0)
        for st in self.stats.values():
            for k in t:
                t[k] += st[k]
        return t


def add_options(ap):
    """The options that say where work items run (tools/experiments/run.py
    and tools/bench/run_all.py)."""
    ap.add_argument("--workers", type=int,
                    help="cores of the local Dask cluster (default: every "
                         "core); 0 runs items here one after another")
    ap.add_argument("--scheduler", help="a Dask scheduler's address "
                                        "(tcp://host:8786) instead of a "
                                        "local cluster")
    ap.add_argument("--cache", default=str(CACHE_DIR),
                    help="the result cache's directory")
    ap.add_argument("--no-cache", action="store_true",
                    help="compute every item (and store nothing)")


def session_of(args):
    """The Session add_options' options ask for."""
    if args.workers is not None and args.workers < 0:
        raise SystemExit(f"--workers {args.workers}: want 0 (here, one at "
                         "a time) or a number of cores")
    return Session(workers=args.workers, scheduler=args.scheduler,
                   cache=None if args.no_cache else args.cache)


def run_items(items):
    """The results of items (None where one failed twice) in the current
    session, or here, one after another, without a session."""
    return current().run(list(items))


def as_boot(result):
    """A boot item's result as a harness.Boot."""
    import harness
    return harness.Boot(**result)


def boots(items):
    """run_items for boot items, as harness.Boot objects (None where the
    boot failed twice)."""
    return [None if r is None else as_boot(r) for r in run_items(items)]
