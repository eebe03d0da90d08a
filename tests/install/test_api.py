"""The Python API as a user of the wheel has it: the wheel built from the checkout (as
test_wheel.py builds it), installed into a fresh virtual environment, and api_checks.py run
there, with the environment's sdscprov on PATH and no build tree anywhere.

Usage: test_api.py BUILD_DIR SOURCE_DIR pandas|plain. `pandas`: the environment sees the Debian
Python's packages (`--system-site-packages`), pandas among them (python3-pandas, installed by
scripts/setup.sh with the test tools): the tables are DataFrames. `plain`: an environment of its
own, where pandas cannot be imported: the tables are lists of dicts. Exit 77 (skipped) in a
build tree that is not a plain Release one, and for `pandas` when the Debian Python cannot
import pandas, with the reason.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from wheel_venv import SKIP, build_wheel, builder_python, install, make_venv, plain_release, run, user_env

BUILD, ROOT, MODE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
CHECKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_checks.py")


def main():
    if not plain_release(BUILD):
        print("test_api: skipped: the wheel is made from plain Release build trees only")
        return SKIP
    python = builder_python()
    if MODE == "pandas":
        p = subprocess.run([python, "-c", "import pandas"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"test_api: skipped: {python} cannot import pandas (Debian: python3-pandas; "
                  f"scripts/setup.sh installs it with the test tools): "
                  f"{(p.stderr.strip().splitlines() or ['no message'])[-1]}")
            return SKIP
    tmp = tempfile.mkdtemp(prefix="sdscprov-api.")
    try:
        wheel = build_wheel(python, BUILD, ROOT, os.path.join(tmp, "dist"))
        venv = os.path.join(tmp, "venv")
        vpython = make_venv(python, venv, system_site_packages=MODE == "pandas")
        install(vpython, BUILD, wheel)
        p = run([vpython, CHECKS, MODE, ROOT], env=user_env(venv), cwd=tmp)
        print(p.stdout, end="")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
