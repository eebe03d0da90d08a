"""The wheel as a user gets it: `pip wheel --no-build-isolation` of the checkout (offline, with
Debian's setuptools and wheel), reusing the build tree the tests run in (SDSCPROV_BUILD_DIR);
installed into a fresh virtual environment; the README's tour run from that environment with no
build tree on PATH; `python -m sdscprov_capture --check` and `--annotate CACHE`; the man page;
then uninstalled, leaving the environment as it was. The Python API from such an environment:
test_api.py.

Usage: test_wheel.py BUILD_DIR SOURCE_DIR. Exit 77 (skipped) in a build tree that is not a plain
Release one (the sanitizer suite's): the wheel is made from Release builds only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

from wheel_venv import (SKIP, build_wheel, builder_python, fail, install, make_venv, plain_release,
                        pip_env, project_version, run, user_env)

BUILD, ROOT = (os.path.abspath(p) for p in sys.argv[1:3])
FAKE_SITE = os.path.join(ROOT, "tests", "capture", "fake_site")
FAKE_COMPILE = os.path.join(ROOT, "tests", "capture", "fake_simplemlp_compile.py")
DEMO = os.path.join(ROOT, "testdata", "demo")


def files_under(root):
    out = set()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out |= {os.path.relpath(os.path.join(dirpath, f), root) for f in files}
    return out


def git_status():
    """The checkout's changed and untracked files (ignored ones aside), when it is a git one."""
    p = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=all"],
                       capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


def tour_lines():
    with open(os.path.join(ROOT, "README.md")) as f:
        tour = re.search(r"<!-- tour:[^>]*-->\n```sh\n(.*?)```\n<!-- /tour -->", f.read(), re.S)
    if not tour:
        fail("the README has no tour block")
    return [line.split("  #")[0] for line in tour.group(1).splitlines() if line.strip()]


def main():
    if not plain_release(BUILD):
        print("test_wheel: skipped: the wheel is made from plain Release build trees only")
        return SKIP
    version = project_version(ROOT)
    python = builder_python()
    sources = git_status()
    tmp = tempfile.mkdtemp(prefix="sdscprov-wheel.")
    try:
        started = time.monotonic()
        wheel = build_wheel(python, BUILD, ROOT, os.path.join(tmp, "dist"))
        if git_status() != sources:
            fail(f"the wheel build changed the sources: {git_status()} (was {sources})")
        with zipfile.ZipFile(wheel) as z:
            names = {i.filename: i for i in z.infolist()}
        data = f"sdscprov-{version}.data/"
        script = names.get(data + "scripts/sdscprov")
        if script is None or not (script.external_attr >> 16) & 0o111:
            fail(f"the wheel has no executable {data}scripts/sdscprov: {sorted(names)}")
        for name in ("data/share/man/man1/sdscprov.1", "data/share/bash-completion/completions/sdscprov",
                     "data/share/zsh/site-functions/_sdscprov",
                     "data/share/fish/vendor_completions.d/sdscprov.fish",
                     "data/share/doc/sdscprov/README.md", "data/share/doc/sdscprov/docs/usage.md"):
            if data + name not in names:
                fail(f"the wheel has no {data}{name}")
        # The package: the API, the capture module and its first name (an alias).
        for module in ("/sdscprov/__init__.py", "/sdscprov/capture/__main__.py",
                       "/sdscprov_capture/__init__.py"):
            if not any(n.endswith(module) for n in names):
                fail(f"the wheel has no {module[1:]}: {sorted(names)}")
        built = time.monotonic()

        venv = os.path.join(tmp, "venv")
        vpython = make_venv(python, venv)
        before = files_under(venv)
        install(vpython, BUILD, wheel)
        installed = time.monotonic()

        # The environment as a user's shell has it: its bin/ first, no build tree anywhere.
        env = user_env(venv)
        path = env["PATH"]
        found = shutil.which("sdscprov", path=path)
        if found != os.path.join(venv, "bin", "sdscprov"):
            fail(f"sdscprov on PATH is {found}, not the environment's")
        out = run(["sdscprov", "--version"], env=env).stdout.strip()
        if out != f"sdscprov {version}":
            fail(f"the installed sdscprov says {out!r}, the project is {version}")

        demo = os.path.join(tmp, "demo")
        shutil.copytree(DEMO, demo)
        tour_env = dict(env, TORCHINDUCTOR_CACHE_DIR=demo)
        for line in tour_lines():
            run(["bash", "-c", line], env=tour_env, cwd=demo)
        scan = json.loads(run(["sdscprov", "scan", "--format", "json", demo], env=env).stdout)
        # The tour annotates the cache; its last strip only previews (--diff writes nothing).
        if scan["totals"]["handles_populated"] != 5 or scan["totals"]["handles_absent"] != 0:
            fail(f"after the tour every demo file should hold its handle: {scan['totals']}")

        # The capture module, from the environment (not the checkout), with the fake torch-spyre.
        fake_env = dict(env, PYTHONPATH=FAKE_SITE)
        where = run(["python", "-c", "import sdscprov_capture; print(sdscprov_capture.__file__)"],
                    env=fake_env).stdout.strip()
        if not where.startswith(venv + os.sep):
            fail(f"sdscprov_capture imported from {where}, not from the environment")
        check = run(["python", "-m", "sdscprov_capture", "--check"], env=fake_env)
        if "found" not in check.stdout or "MISSING" in check.stdout:
            fail(f"--check found no hook point:\n{check.stdout}")
        # The helper finds the environment's binary through the environment, PATH or not.
        bare_env = dict(env, PATH="/usr/bin:/bin")
        helper = run([vpython, "-c", "import sdscprov_capture; print(sdscprov_capture.find_sdscprov())"],
                     env=bare_env).stdout.strip()
        if helper != os.path.join(venv, "bin", "sdscprov"):
            fail(f"find_sdscprov() gave {helper!r}")
        # One line: the compile captured, its cache annotated with the map it wrote.
        cache = os.path.join(tmp, "cache")
        shutil.copytree(os.path.join(DEMO, "inductor-spyre"), os.path.join(cache, "inductor-spyre"))
        with open(os.path.join(DEMO, "origins.json")) as f:
            dirs = {k["name"]: [k["dir"]] for k in json.load(f)["kernels"]}
        origins = os.path.join(tmp, "origins.json")
        compile_env = dict(bare_env, PYTHONPATH=FAKE_SITE, TORCHINDUCTOR_CACHE_DIR=cache,
                           FAKE_SPYRE_OUTPUT_DIRS=json.dumps(dirs))
        p = run([vpython, "-m", "sdscprov_capture", "--out", origins, "--annotate", cache,
                 FAKE_COMPILE], env=compile_env)
        if "written: 5 files (5 added" not in p.stdout:
            fail(f"--annotate did not annotate the cache:\n{p.stdout}\n{p.stderr}")
        scan = json.loads(run(["sdscprov", "scan", "--format", "json", cache], env=env).stdout)
        if scan["totals"]["handles_populated"] != 5:
            fail(f"after --annotate: {scan['totals']}")

        # The man page and the completions where the wheel put them: man-db finds the page from
        # PATH (the environment's bin/ gives its share/man), as in an activated environment.
        man_env = dict(env, MANWIDTH="100", MANPAGER="cat", PAGER="cat")
        man_env.pop("MANPATH", None)
        where = run(["man", "-w", "sdscprov"], env=man_env).stdout.strip()
        if where != os.path.join(venv, "share", "man", "man1", "sdscprov.1"):
            fail(f"`man sdscprov` in the environment finds {where!r}")
        page = run(["man", "sdscprov"], env=man_env).stdout
        for section in ("SDSCPROV SCAN", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"):
            if f"\n{section}\n" not in page:
                fail(f"`man sdscprov` from the environment has no {section}")
        for name in ("share/bash-completion/completions/sdscprov", "share/zsh/site-functions/_sdscprov",
                     "share/fish/vendor_completions.d/sdscprov.fish", "share/doc/sdscprov/README.md"):
            if not os.path.isfile(os.path.join(venv, name)):
                fail(f"{name} is not installed in the environment")
        used = time.monotonic()

        run([vpython, "-m", "pip", "uninstall", "-y", "sdscprov"], env=pip_env(BUILD))
        left = files_under(venv) - before
        if left:
            fail(f"uninstall left {sorted(left)}")
        if os.path.exists(os.path.join(venv, "bin", "sdscprov")):
            fail("uninstall left bin/sdscprov")
        for module in ("sdscprov", "sdscprov_capture"):
            if run([vpython, "-c", f"import {module}"], ok=(0, 1), env=bare_env).returncode == 0:
                fail(f"{module} is still importable after uninstall")
        done = time.monotonic()
        print(f"test_wheel: ok: wheel {built - started:.1f} s, venv and install "
              f"{installed - built:.1f} s, tour and capture {used - installed:.1f} s, uninstall "
              f"{done - used:.1f} s")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
