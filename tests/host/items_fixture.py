"""Functions that tests/host/test_workitems.py hands to work items (call
items name them by this file's path): each leaves a mark of its every run
in a directory, so the tests count the runs and see which process ran
what."""
import os
import pathlib
import time


def mark(where, what):
    """A file per run: what, the process and a counter, never
    overwritten."""
    d = pathlib.Path(where)
    d.mkdir(parents=True, exist_ok=True)
    k = len(list(d.glob(f"{what}.*")))
    while True:
        try:
            (d / f"{what}.{os.getpid()}.{k}").open("x").close()
            return
        except FileExistsError:
            k += 1


def runs(where, what):
    """How many times `what` ran, and in which processes."""
    files = list(pathlib.Path(where).glob(f"{what}.*"))
    return len(files), {int(f.name.split(".")[-2]) for f in files}


def square(x, where):
    mark(where, f"square{x}")
    return {"x": x, "square": x * x}


def fail_times(n, where, what):
    """Fails its first n runs (counted in `where`), then returns how many
    runs it took."""
    mark(where, what)
    count, _ = runs(where, what)
    if count <= n:
        raise RuntimeError(f"{what}: failing on purpose, run {count}")
    return count


def wait_then_square(x, where, go, limit=120):
    """Marks that it started, then waits for the file `go` (the test makes
    it once it has killed a worker), then returns x squared and the
    process that computed it."""
    mark(where, f"start{x}")
    deadline = time.monotonic() + limit
    while not pathlib.Path(go).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{go} never came")
        time.sleep(0.05)
    return {"x": x, "square": x * x, "pid": os.getpid()}
