"""End-to-end: `sdscprov check`, the gate for golden kernels: findings at path:line:col, exit 1."""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")
FINDING = re.compile(r"^(.*):(\d+):(\d+): (.*) \[([a-z-]+)\]$")


def sdsc_files(root):
    return sorted(glob.glob(os.path.join(root, "**", "sdsc_*.json"), recursive=True))


def position_of(path, needle):
    """1-based line:col of the first occurrence of needle in the file (ASCII files)."""
    text = open(path, encoding="utf-8").read()
    at = text.index(needle)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return line, col


def findings_of(out):
    found = []
    for line in out.splitlines():
        m = FINDING.match(line)
        assert m, f"not a finding line: {line!r}"
        found.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(5)))
    return found


def annotated_demo(tmp):
    cache = os.path.join(tmp, "demo")
    copy_tree(DEMO, cache)
    run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
    return cache


def test_missing_handles_are_findings_at_the_op_key():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        rc, out, err = run("check", cache)
        assert rc == 1, (rc, out, err)
        found = findings_of(out)
        files = sdsc_files(cache)
        assert len(found) == len(files) == 5, found
        for path, line, col, rule in found:
            op_key = next(iter(json.load(open(path))))
            assert (line, col) == position_of(path, f'"{op_key}"'), (path, line, col)
            assert rule == "missing-handle"
        assert "5 findings in 5 SDSC files" in err, err


def test_clean_after_annotate_and_files_one_by_one():
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        run("check", cache, check_rc=0)
        run("check", "--origins", DEMO_MAP, cache, check_rc=0)
        # As pre-commit passes them: file by file.
        run("check", *sdsc_files(cache), check_rc=0)


def test_null_handle_and_stale_handle():
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        files = sdsc_files(cache)
        # A null handle: found at the handle's key.
        nulled = files[0]
        doc = json.load(open(nulled))
        op = next(iter(doc))
        doc[op]["debug_handle_"] = None
        with open(nulled, "w") as f:
            json.dump(doc, f, indent=2)
        # Another compile's handle (a kernel-cache hit): well-formed, so only --origins sees it.
        stale = files[1]
        text = open(stale).read()
        old_id = json.loads(text)[next(iter(json.loads(text)))]["debug_handle_"]["id"]
        new_id = "1" if old_id != "1" else "2"
        with open(stale, "w") as f:
            f.write(text.replace(f'"id": "{old_id}"', f'"id": "{new_id}"', 1))

        rc, out, _ = run("check", cache)
        assert rc == 1
        assert findings_of(out) == [(nulled, *position_of(nulled, '"debug_handle_"'), "null-handle")]

        rc, out, _ = run("check", "--origins", DEMO_MAP, cache)
        assert rc == 1
        assert findings_of(out) == [
            (nulled, *position_of(nulled, '"debug_handle_"'), "null-handle"),
            (stale, *position_of(stale, '"debug_handle_"'), "stale-handle"),
        ], out

        # The JSON form carries the same findings.
        rc, out, _ = run("check", "--format", "json", "--origins", DEMO_MAP, cache)
        assert rc == 1
        report = json.loads(out)
        assert report["files"] == 5
        assert [(f["path"], f["line"], f["col"], f["rule"]) for f in report["findings"]] == \
            findings_of(run("check", "--origins", DEMO_MAP, cache)[1])


def test_bad_input_is_exit_2_and_other_findings_still_reported():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        files = sdsc_files(cache)
        data = open(files[0], "rb").read()
        with open(files[0], "wb") as f:
            f.write(data[: len(data) // 2])
        rc, out, err = run("check", cache)
        assert rc == 2, (rc, err)
        assert len(findings_of(out)) == 4  # the other files are still checked
        assert files[0] in err and "parse-error" in err, err
        # Usage errors are exit 2 as well.
        assert run("check", "--format", "markdown", cache)[0] == 2
        assert run("check", "--origins", os.path.join(tmp, "missing.json"), cache)[0] == 2


if __name__ == "__main__":
    main([test_missing_handles_are_findings_at_the_op_key,
          test_clean_after_annotate_and_files_one_by_one,
          test_null_handle_and_stale_handle,
          test_bad_input_is_exit_2_and_other_findings_still_reported])
