"""End-to-end: `--diff` previews. annotate --diff and strip --diff print the diff of each change on
standard output and write nothing: every file keeps its bytes and its mtime, and the run exits 0;
with --check too, it exits 1 when there are changes. The demo cache (testdata/demo) is the tree."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, TESTDATA, TempDir, copy_tree, main, run, snapshot  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")


def assert_preview(cache, args, rc, removed_or_added):
    before = snapshot(cache)
    code, out, err = run(*args, cache, check_rc=rc)
    assert out.startswith("--- a/") and "+++ b/" in out, (args, out[:500], err)
    assert out.count(removed_or_added) == 5, (args, out)
    assert snapshot(cache) == before, f"{args} changed the tree"  # bytes, mtimes, modes
    return err


def test_annotate_diff_writes_nothing():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        err = assert_preview(cache, ["annotate", "--diff", "--origins", DEMO_MAP], 0, '+    "debug_handle_": {')
        assert "would write: 5 files" in err and "nothing was written" in err, err
        assert_preview(cache, ["annotate", "--diff", "--check", "--origins", DEMO_MAP], 1, '+    "debug_handle_": {')
        assert_preview(cache, ["annotate", "-q", "--diff", "--origins", DEMO_MAP], 0, '+    "debug_handle_": {')
        # Without --diff the same command writes, so the preview above was one.
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        assert snapshot(cache) != snapshot(DEMO)


def test_strip_diff_writes_nothing():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        err = assert_preview(cache, ["strip", "--remove", "--diff"], 0, '-    "debug_handle_": {')
        assert "would strip: 5 files" in err, err
        assert_preview(cache, ["strip", "--diff"], 0, '-    "debug_handle_": {')
        assert_preview(cache, ["strip", "--diff", "--check"], 1, '-    "debug_handle_": {')
        # Nothing to change: an empty diff, exit 0 even with --check.
        stripped = os.path.join(tmp, "stripped")
        copy_tree(DEMO, stripped)
        before = snapshot(stripped)
        rc, out, err = run("strip", "--diff", "--check", stripped, check_rc=0)
        assert out == "" and snapshot(stripped) == before, out
        # The README's line: the diff is redirected to a file and the tree is left alone.
        before = snapshot(cache)
        diff = os.path.join(tmp, "stripped.diff")
        with open(diff, "w") as f:
            rc = subprocess.call([os.path.abspath(BIN), "strip", "--remove", "--diff", "."], cwd=cache, stdout=f)
        assert rc == 0 and os.path.getsize(diff) > 0 and snapshot(cache) == before


if __name__ == "__main__":
    main([test_annotate_diff_writes_nothing, test_strip_diff_writes_nothing])
