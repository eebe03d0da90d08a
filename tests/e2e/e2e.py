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


def check_merge_reads_streams(paths):
    """`sdscprov merge` of the report files `paths` (at least two), given as streams instead:
    process substitution (`<(cat a.json)`), standard input (`-`, a file or a pipe, once only) and
    a FIFO whose writer comes late give the bytes the files give; a FIFO nobody writes to is
    waited on with one line on standard error, and SIGINT (Ctrl-C) ends the wait at once, killed
    by the signal (130 in a shell) with nothing on standard output."""
    import select
    import signal
    import threading
    import time

    def merge(args, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        return subprocess.run([BIN, "merge", *args], capture_output=True, timeout=60, **kwargs)

    files = merge(paths)
    assert files.returncode == 0 and files.stdout, files.stderr
    expected = files.stdout
    # Process substitution: each report a pipe named /dev/fd/N.
    substituted = " ".join(f'<(cat "${{{i + 1}}}")' for i in range(len(paths)))
    p = subprocess.run(["bash", "-c", f'exec "$0" merge {substituted}', BIN, *paths],
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == expected, p.stderr
    assert b"waiting" not in p.stderr, p.stderr  # data at once: nothing said
    # Standard input: a file, then a pipe; once only.
    with open(paths[0], "rb") as first:
        p = merge(["-", *paths[1:]], stdin=first)
    assert p.returncode == 0 and p.stdout == expected, p.stderr
    with open(paths[-1], "rb") as f:
        p = merge([*paths[:-1], "-"], input=f.read(), stdin=None)
    assert p.returncode == 0 and p.stdout == expected, p.stderr
    p = merge(["-", "-"], input=b"{}", stdin=None)
    assert p.returncode == 2 and p.stdout == b"", p
    assert b"sdscprov merge: standard input (-) is given more than once" in p.stderr, p.stderr
    # A FIFO whose writer comes after two seconds: said once, then merged.
    with tempfile.TemporaryDirectory(prefix="sdscprov-fifo-") as tmp:
        fifo = os.path.join(tmp, "shard\x1b[31m.json")
        os.mkfifo(fifo)

        def write_late():
            time.sleep(2)
            deadline = time.monotonic() + 20
            while True:  # without blocking: a merge that is gone must not hang the test
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    break
                except OSError:  # ENXIO: no reader (yet, or any more)
                    if time.monotonic() > deadline:
                        return
                    time.sleep(0.05)
            os.set_blocking(fd, True)
            with os.fdopen(fd, "wb") as w, open(paths[1], "rb") as r:
                w.write(r.read())

        writer = threading.Thread(target=write_late)
        writer.start()
        p = merge([paths[0], fifo, *paths[2:]])
        writer.join()
        assert p.returncode == 0 and p.stdout == expected, p.stderr
        said = (b'sdscprov merge: waiting for data on "' + fifo.replace("\x1b", "\\033").encode()
                + b'" (a pipe) ...\n')
        assert p.stderr == said, p.stderr  # the name quoted: no escape reaches the terminal
        # A FIFO nobody writes to: the wait is said, and SIGINT ends it.
        os.unlink(fifo)
        os.mkfifo(fifo)
        start = time.monotonic()
        proc = subprocess.Popen([BIN, "merge", paths[0], fifo], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            line = b""
            while not line.endswith(b"\n") and time.monotonic() - start < 10:
                ready, _, _ = select.select([proc.stderr], [], [], 0.1)
                if ready:
                    byte = os.read(proc.stderr.fileno(), 1)
                    if not byte:
                        break
                    line += byte
            waited = time.monotonic() - start
            assert line == said, (line, waited)
            assert 0.9 <= waited < 10, waited
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            rc = proc.wait(timeout=10)
            assert time.monotonic() - sent < 2, time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert rc == -signal.SIGINT, rc
        assert proc.stdout.read() == b"" and proc.stderr.read() == b""
        proc.stdout.close()
        proc.stderr.close()
