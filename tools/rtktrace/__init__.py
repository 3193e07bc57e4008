"""rtk's trace decoder (docs/trace-format.md): tools/rtk-trace is its
command line; the tests import it."""
from .decode import Run, check_console, check_log, runs_from, write_files

__all__ = ["Run", "check_console", "check_log", "runs_from", "write_files"]
