"""A script that needs neither torch nor torch-spyre: it shows what it was given (argv,
sys.path[0], __name__) and exits with --exit-status, so a test can compare a run under the
capture with a plain `python3 plain_script.py` run."""
import os
import sys

if __name__ == "__main__":
    print("argv:", sys.argv[1:])
    print("path0:", os.path.relpath(sys.path[0], os.path.dirname(os.path.abspath(__file__))))
    print("name:", __name__)
    print("plain_script: a line on stderr", file=sys.stderr)
    status = sys.argv[sys.argv.index("--exit-status") + 1] if "--exit-status" in sys.argv else "0"
    sys.exit(int(status))
