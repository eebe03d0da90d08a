"""End-to-end: the progress line. On standard error when standard error is a terminal (here a
pseudo-terminal), for scan, annotate, strip, check and profile: what is done of the total (files;
the trace's bytes for profile), the share, the rate; erased before the report. Never when standard
error is not a terminal, never with --quiet, and not when the report streams to the same terminal
(--all). The caches and the trace are made by scripts/gen_cache.py and scripts/gen_trace.py."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402
from pty_run import run_pty  # noqa: E402

NUMBER = r"\d{1,3}(?:,\d{3})*"
# "sdscprov: scanned 1,270/3,000 files (42%), 4,866 files/s"; "1,270/1,760+ files" while walking.
FILES_LINE = re.compile(rf"^sdscprov: (\w+) ({NUMBER})/({NUMBER})(\+ files| files \((\d+)%\))"
                        rf"(?:, {NUMBER} files/s)?$")
DRAWN = re.compile(r"sdscprov: (scanned|checked|annotated|stripped|read the trace:) ")
BYTES_LINE = re.compile(r"^sdscprov: read the trace: (\d+\.\d)/(\d+\.\d) MB \((\d+)%\)(?:, \d+\.\d MB/s)?$")


def progress_lines(err):
    """The progress lines drawn on the terminal, each as it was drawn (each begins with a carriage
    return; spaces erase what is left of a longer line)."""
    return [piece.rstrip(" ") for piece in err.split("\r")[1:] if piece.strip(" ")]


def erased(err):
    """Whether the terminal's line is empty again at the end: spaces over the last line, then a
    carriage return."""
    return re.search(r"\r *\r$", err) is not None and "\x1b" not in err


def assert_progress(err, verb, files):
    lines = progress_lines(err)
    assert lines, f"no progress line: {err!r}"
    for line in lines:
        m = FILES_LINE.match(line)
        assert m and m.group(1) == verb, (line, err)
        done, total = (int(g.replace(",", "")) for g in m.group(2, 3))
        assert 0 < done <= total <= files, line
        if m.group(5) is not None:
            assert int(m.group(5)) == done * 100 // total, line
            assert total == files, line
    assert erased(err), f"the line is not erased at the end: {err[-200:]!r}"


def generate(root, files, *extra):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, "gen_cache.py"), root, "--files", str(files),
                    *extra], check=True, capture_output=True, timeout=600)


def test_progress_on_a_terminal():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins = os.path.join(tmp, "origins.json")
        generate(cache, 3000, "--origins-map", origins, "--strip-to", "mixed")
        rc, out, err = run_pty("scan", cache, stdout_tty=False, stderr_tty=True)
        assert rc == 0 and out.startswith("total: "), out[:300]
        assert_progress(err, "scanned", 3000)
        rc, out, err = run_pty("check", cache, stdout_tty=False, stderr_tty=True)
        assert rc == 1, (rc, err[-300:])
        # The summary line comes after the erased progress line.
        assert_progress(err.split("sdscprov check:")[0], "checked", 3000)
        assert re.search(r"\r *\rsdscprov check: \d+ findings", err), err[-300:]
        rc, out, err = run_pty("annotate", "--dry-run", "--origins", origins, cache, stdout_tty=False,
                               stderr_tty=True)
        assert rc == 0 and "would write:" in out, out[:300]
        assert_progress(err, "checked", 3000)
        # annotate knows its total before it starts: every line has it, with the share.
        assert all("%)" in line for line in progress_lines(err)), err
        rc, out, err = run_pty("annotate", "--durability", "none", "--origins", origins, cache,
                               stdout_tty=False, stderr_tty=True)
        assert rc == 0 and "written:" in out, out[:300]
        assert_progress(err, "annotated", 3000)
        rc, out, err = run_pty("strip", "--durability", "none", cache, stdout_tty=False, stderr_tty=True)
        assert rc == 0 and out.startswith("stripped: "), out
        assert_progress(err, "stripped", 3000)

        # The report on the same terminal: the line is erased before the report's first line.
        rc, tty, _ = run_pty("scan", "--color", "never", cache, stdout_tty=True, stderr_tty=True)
        assert progress_lines(tty.split("total: ")[0]), tty[:300]
        assert erased(tty.split("total: ")[0]) and "\r" not in tty.split("total: ", 1)[1], tty[:500]
        # ... unless the report streams there (--all): no line at all.
        rc, tty, _ = run_pty("scan", "--all", "--color", "never", cache, stdout_tty=True, stderr_tty=True)
        assert "\r" not in tty and "sdscprov: scanned" not in tty, tty[:300]
        # --quiet: no progress either.
        for args in (["scan", "-q", cache], ["check", "-q", cache], ["strip", "-q", "--dry-run", cache]):
            rc, out, err = run_pty(*args, stdout_tty=False, stderr_tty=True)
            assert "\r" not in err and "sdscprov: " not in err.replace("sdscprov check:", ""), (args, err)


def test_no_progress_without_a_terminal():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins = os.path.join(tmp, "origins.json")
        generate(cache, 3000, "--origins-map", origins, "--strip-to", "mixed")
        for args in (["scan", cache], ["check", cache], ["annotate", "--dry-run", "--origins", origins, cache],
                     ["strip", "--dry-run", cache]):
            rc, out, err = run(*args)
            assert not DRAWN.search(err) and "\r" not in err, (args, err[:300])
            # Standard output a terminal, standard error not: no line either.
            rc, out, err = run_pty(*args, "--color", "never", stdout_tty=True, stderr_tty=False)
            assert not DRAWN.search(err) and "\r" not in err, (args, err[:300])


def test_profile_shows_the_bytes_of_the_trace_read():
    with TempDir() as tmp:
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "gen_trace.py"), tmp, "--files", "300",
                        "--target-bytes", "3e6"], check=True, capture_output=True, timeout=600)
        trace = os.path.join(tmp, "trace.json")
        sidecar = os.path.join(tmp, "spyre_provenance.json")
        size_mb = os.path.getsize(trace) / 1e6
        rc, out, err = run_pty("profile", trace, "--origins", sidecar, stdout_tty=False, stderr_tty=True)
        assert rc == 0 and out.startswith("sdscprov profile: "), out[:300]
        lines = progress_lines(err)
        assert lines and erased(err), err
        for line in lines:
            m = BYTES_LINE.match(line)
            assert m, (line, err)
            done, total, share = float(m.group(1)), float(m.group(2)), int(m.group(3))
            assert done <= total and abs(total - size_mb) < 0.06, line
        rc, out, err = run("profile", trace, "--origins", sidecar)
        assert rc == 0 and not DRAWN.search(err), err[:300]
        rc, out, err = run_pty("profile", "-q", trace, "--origins", sidecar, stdout_tty=False, stderr_tty=True)
        assert "\r" not in err, err


if __name__ == "__main__":
    main([test_progress_on_a_terminal, test_no_progress_without_a_terminal,
          test_profile_shows_the_bytes_of_the_trace_read])
