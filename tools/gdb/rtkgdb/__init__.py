"""rtk's GDB commands. Each module adds subcommands of `rtk` with the
@subcommand decorator of rtkgdb.base; a new command is a new
module listed in MODULES."""
import importlib

from . import base

MODULES = ("cpus", "pfair", "gdq", "edf", "gfp", "clock", "tasks", "trace")


def register():
    for name in MODULES:
        importlib.import_module("." + name, __name__)
    base.register_all()
