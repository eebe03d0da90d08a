"""python3 -m sdscprov_capture --out origins.json [--annotate CACHE] script.py [args...]

Runs the script as ``python3 script.py args...`` would (same ``sys.argv``, ``sys.path[0]`` and
``__main__``), with the capture on; the exit status is the script's. With ``--annotate CACHE``,
when the script succeeds the map is written and ``sdscprov annotate --origins MAP CACHE`` runs
(the installed sdscprov); the exit status is then annotate's.
"""
import argparse
import os
import runpy
import sys

# Absolute imports: run as `-m sdscprov_capture` (the alias), this module's package is named
# sdscprov_capture, from which `..` reaches nothing.
from sdscprov.binary import ENV_VARIABLE, annotate, find_sdscprov
from sdscprov.capture import start, stop
from sdscprov.capture.hookpoints import check
from sdscprov.capture.session import say


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m sdscprov_capture",
        description="Run a torch-spyre compile script and write its origins map "
                    "for `sdscprov annotate --origins`.")
    parser.add_argument("--out", metavar="MAP", help="where to write the origins map (JSON)")
    parser.add_argument("--annotate", metavar="CACHE", action="append", default=[],
                        help="when the script succeeds, run `sdscprov annotate --origins MAP "
                             "CACHE` with the map just written; may be given more than once")
    parser.add_argument("--check", action="store_true",
                        help="import torch-spyre, list the hook points found, and exit")
    parser.add_argument("script", nargs="?", help="the compile script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    ns = parser.parse_args(argv)
    if ns.check:
        return 0 if check() else 1
    if not ns.out or not ns.script:
        parser.error("--out MAP and a script are required")
    if not os.path.isdir(os.path.dirname(os.path.abspath(ns.out))):
        parser.error(f"--out {ns.out}: the directory does not exist")
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")

    binary = None
    if ns.annotate:
        binary = find_sdscprov()
        if binary is None:
            parser.error(f"--annotate: no sdscprov found (installed with this module, on PATH, "
                         f"or ${ENV_VARIABLE})")
        for cache in ns.annotate:
            if not os.path.exists(cache):
                parser.error(f"--annotate {cache}: no such file or directory")
    before = _identity(ns.out)

    start(ns.out)
    sys.argv = [ns.script, *ns.args]
    sys.path[0] = os.path.dirname(os.path.abspath(ns.script))
    # The script's exceptions and SystemExit go through untouched: Python reports them and sets
    # the exit status as for the script alone; the map is written by the capture's atexit.
    if not ns.annotate:
        runpy.run_path(ns.script, run_name="__main__")
        return 0
    try:
        runpy.run_path(ns.script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise  # a failed compile: nothing to annotate with
    stop()  # the map, now rather than at exit
    after = _identity(ns.out)
    if after is None or after == before:
        say(f"no origins map written to {ns.out}; nothing annotated")
        return 2
    say(f"annotating {' '.join(ns.annotate)} with {ns.out} ({binary})")
    sys.stdout.flush()
    return annotate(ns.out, ns.annotate, binary)


def _identity(path):
    """What tells a freshly written file from the one that was there: None when absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


if __name__ == "__main__":
    sys.exit(main())
