"""Shared helpers for the end-to-end tests: they run the real binary on temporary trees.

Each test script is run by ctest with SDSCPROV_BIN (the built binary) and SDSCPROV_ROOT (the
source tree) in the environment. A script exits 0 on success, 77 when it is skipped, and fails
with an AssertionError otherwise.
"""
import glob
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SDSCPROV_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.environ.get("SDSCPROV_BIN", os.path.join(ROOT, "build", "sdscprov"))
SCRIPTS = os.path.join(ROOT, "scripts")
TESTDATA = os.path.join(ROOT, "testdata")
SHARED_CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
SKIP = 77


def sanitized():
    """Whether the binary under test is built with AddressSanitizer (whose shadow memory cannot
    live under an address-space limit, and which needs more resident memory)."""
    with open(BIN, "rb") as f:
        return b"AddressSanitizer" in f.read()


def run(*args, check_rc=None, env=None, cwd=None):
    """Runs sdscprov with args; returns (rc, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    if env:
        full_env.update(env)
    p = subprocess.run([BIN, *args], capture_output=True, text=True, env=full_env, cwd=cwd,
                       timeout=300)
    if check_rc is not None:
        assert p.returncode == check_rc, (
            f"sdscprov {' '.join(args)}: exit {p.returncode}, expected {check_rc}\n"
            f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}")
    return p.returncode, p.stdout, p.stderr


def run_json(*args, check_rc=0):
    rc, out, err = run(*args, "--format", "json", check_rc=check_rc)
    return json.loads(out)


def generate(out_dir, files, *extra):
    """Runs the corpus generator; returns its manifest."""
    manifest = out_dir.rstrip("/") + ".manifest.json"
    subprocess.run([sys.executable, os.path.join(SCRIPTS, "gen_cache.py"), out_dir,
                    "--files", str(files), "--manifest", manifest, *extra],
                   check=True, capture_output=True, timeout=600)
    with open(manifest) as f:
        return json.load(f)


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="sdscprov-e2e-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def sdsc_files(root):
    """Every SDSC-named file under root, sorted."""
    return sorted(glob.glob(os.path.join(root, "**", "sdsc_*.json"), recursive=True))


def snapshot(root):
    """Bytes, mtimes and modes of every file under root."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (open(p, "rb").read(), st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    for root, dirs, files in os.walk(dst):
        for name in dirs + files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)


def main(tests):
    """Runs each test function in order; prints one line per test and a closing count."""
    passed = failed = skipped = 0
    # A test function left out of the list would run nothing and pass unseen.
    script = sys.modules["__main__"]
    listed = {t.__name__ for t in tests}
    unlisted = sorted(name for name, f in vars(script).items()
                      if name.startswith("test_") and callable(f) and name not in listed)
    if unlisted:
        print(f"FAIL not run (missing from main's list): {', '.join(unlisted)}")
        sys.exit(1)
    for t in tests:
        try:
            result = t()
        except Exception:  # noqa: BLE001 - report every failure and go on
            import traceback
            traceback.print_exc()
            print(f"FAIL {t.__name__}")
            failed += 1
            continue
        if result == SKIP:
            print(f"SKIP {t.__name__}")
            skipped += 1
        else:
            print(f"ok   {t.__name__}")
            passed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed:
        sys.exit(1)
    if passed == 0 and skipped == 0:
        print("FAIL: no test ran: a test entry that tests nothing is a failure")
        sys.exit(1)
    if passed == 0 and skipped:
        sys.exit(SKIP)
