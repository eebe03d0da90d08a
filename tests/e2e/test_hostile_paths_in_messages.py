"""End-to-end: a path holding a newline, a terminal escape and a byte that is not UTF-8 is quoted
the same way in every message, whatever command prints it: profile's diagnostics, its unreadable
trace, its missing cache and merge's unreadable report are quoted as scan quotes a file name.

The expected quoting is written out here (as git's core.quotePath has it), never taken from
sdscprov's output.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, TempDir, main  # noqa: E402

NAME = b"odd\xff\n\x1b[31m"
ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0a: b"\\n", 0x0b: b"\\v", 0x0c: b"\\f",
           0x0d: b"\\r", 0x22: b'\\"', 0x5c: b"\\\\"}


def quoted(path):
    """`path` between double quotes, escaped as git quotes paths (valid UTF-8 kept)."""
    out = bytearray(b'"')
    for byte in path:
        if byte in ESCAPES:
            out += ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7f or byte >= 0x80:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


def run_bytes(*args):
    p = subprocess.run([os.fsencode(BIN), *args], capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def assert_quoted(err, path, what):
    assert b"\x1b" not in err and NAME not in err, (what, err)
    assert quoted(path) in err, (what, quoted(path), err)
    err.decode("utf-8")  # nothing that is not UTF-8 reaches the terminal


def test_profile_quotes_hostile_trace_and_cache_paths_like_scan():
    with TempDir() as tmp:
        base = os.path.join(os.fsencode(tmp), NAME)
        os.makedirs(base)
        cache = os.path.join(base, b"cache")
        os.makedirs(cache)
        # scan's own line about a file of that directory: the reference quoting.
        broken = os.path.join(base, b"sdsc_0.json")
        with open(broken, "wb") as f:
            f.write(b"{")
        rc, _, err = run_bytes(b"scan", broken)
        assert rc == 2, (rc, err)
        assert err.startswith(quoted(broken) + b":1:2: error: "), err
        os.unlink(broken)

        # A diagnostic of two events (unparsable-name, a warning) at the first one's line:col.
        trace = os.path.join(base, b"trace.json")
        with open(trace, "wb") as f:
            f.write(b'{"traceEvents": [\n'
                    b'{"ph": "X", "name": "spyre_kernel_x", "dur": 1},\n'
                    b'{"ph": "X", "name": "spyre_kernel_x#2", "dur": 2}\n'
                    b']}\n')
        rc, out, err = run_bytes(b"profile", trace, cache)
        assert rc == 0, (rc, err)
        assert_quoted(err, trace, "diagnostic")
        line = [x for x in err.splitlines() if b"[unparsable-name]" in x]
        assert len(line) == 1, err
        assert line[0].startswith(quoted(trace) + b":2:1: warning: event name "), line
        assert line[0].endswith(b" (2 events) [unparsable-name]"), line

        # A trace that cannot be read: one error at its position.
        with open(trace, "wb") as f:
            f.write(b'{"traceEvents": [\n{"ph": "X"')
        for extra in ([], [b"--baseline", trace]):
            rc, out, err = run_bytes(b"profile", trace, cache, *extra)
            assert rc == 2 and out == b"", (extra, rc, err)
            assert_quoted(err, trace, "unreadable trace")
            assert (quoted(trace) + b":2:11: error: ") in err, (extra, err)
            assert err.count(b"[parse-error]") == 1, (extra, err)

        # A cache that does not exist.
        missing = os.path.join(base, b"no-cache")
        rc, out, err = run_bytes(b"profile", trace, missing)
        assert rc == 2 and out == b"", (rc, err)
        assert_quoted(err, missing, "missing cache")
        assert err.startswith(quoted(missing) + b": error: cannot access: "), err
        assert err.rstrip().endswith(b" [bad-argument]"), err


def test_merge_quotes_a_hostile_report_name():
    with TempDir() as tmp:
        base = os.path.join(os.fsencode(tmp), NAME)
        os.makedirs(base)
        report = os.path.join(base, b"report.json")
        os.mkdir(report)  # not a file: not read (a FIFO would be waited on, as merge reads streams)
        rc, out, err = run_bytes(b"merge", report)
        assert rc == 2 and out == b"", (rc, err)
        assert_quoted(err, report, "merge")
        assert (b"sdscprov merge: cannot read " + quoted(report) + b": nothing merged") in err, err


def test_merge_refusal_is_one_problem_line():
    with TempDir() as tmp:
        report = os.path.join(tmp, "r.json")
        with open(report, "w") as f:
            f.write("[]")
        rc, out, err = run_bytes(b"merge", os.fsencode(report))
        assert rc == 2 and out == b"", (rc, err)
        lines = err.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("sdscprov merge: error: " + report + ": "), lines
        assert lines[0].endswith(" [merge-refused]"), lines


if __name__ == "__main__":
    main([test_profile_quotes_hostile_trace_and_cache_paths_like_scan,
          test_merge_quotes_a_hostile_report_name, test_merge_refusal_is_one_problem_line])
