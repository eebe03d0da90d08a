"""python3 -m sdscprov_capture --out origins.json script.py [args...]

Runs the script as ``python3 script.py args...`` would (same ``sys.argv``, ``sys.path[0]`` and
``__main__``), with the capture on; the exit status is the script's.
"""
import argparse
import os
import runpy
import sys

from . import start
from .hookpoints import check


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m sdscprov_capture",
        description="Run a torch-spyre compile script and write its origins map "
                    "for `sdscprov annotate --origins`.")
    parser.add_argument("--out", metavar="MAP", help="where to write the origins map (JSON)")
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

    start(ns.out)
    sys.argv = [ns.script, *ns.args]
    sys.path[0] = os.path.dirname(os.path.abspath(ns.script))
    # The script's exceptions and SystemExit go through untouched: Python reports them and sets
    # the exit status as for the script alone; the map is written by the capture's atexit.
    runpy.run_path(ns.script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
