"""End-to-end: `sdscprov check`, the gate for golden kernels: findings at path:line:col, exit 1."""
import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TESTDATA, TempDir, copy_tree, main, run, sdsc_files  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")
FINDING = re.compile(r"^(.*):(\d+):(\d+): (.*) \[([a-z-]+)\]$")


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
        # --quiet: the findings and nothing else.
        rc, quiet_out, quiet_err = run("check", "--quiet", cache)
        assert rc == 1 and quiet_out == out and quiet_err == "", (quiet_out, quiet_err)
        rc, scan_out, scan_err = run("scan", "-q", cache)
        assert rc == 0 and scan_out == "" and scan_err == "", (scan_out, scan_err)


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


def test_ci_formats_carry_every_finding_and_problem():
    """SARIF parses and carries every finding of the text output; the GitHub lines match them one
    to one; JUnit has a test case per kernel directory; the same bytes whatever -j."""
    with TempDir() as tmp:
        cache = annotated_demo(tmp)
        files = sdsc_files(cache)
        doc = json.load(open(files[0]))
        next(iter(doc.values()))["debug_handle_"] = None
        json.dump(doc, open(files[0], "w"), indent=2)
        for f in files[2:4]:  # two files without handles
            d = json.load(open(f))
            del next(iter(d.values()))["debug_handle_"]
            json.dump(d, open(f, "w"), indent=2)
        data = open(files[4], "rb").read()
        open(files[4], "wb").write(data[: len(data) // 3])  # and one truncated: a problem
        rc, text, err = run("check", cache)
        assert rc == 2, err
        findings = findings_of(text)
        assert len(findings) == 3
        problem_line = next(l for l in err.splitlines() if "parse-error" in l)

        outputs = {}
        for fmt in ("sarif", "github", "junit", "json"):
            rc, out, _ = run("check", "--format", fmt, "-j", "1", cache)
            assert rc == 2
            assert run("check", "--format", fmt, "-j", "2", cache)[1] == out, fmt
            outputs[fmt] = out

        sarif = json.loads(outputs["sarif"])
        assert sarif["version"] == "2.1.0"
        run_ = sarif["runs"][0]
        rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
        got = []
        for r in run_["results"]:
            assert rules[r["ruleIndex"]] == r["ruleId"]
            loc = r["locations"][0]["physicalLocation"]
            region = loc.get("region", {})
            got.append((urllib.parse.unquote(loc["artifactLocation"]["uri"]),
                        region.get("startLine"), region.get("startColumn"), r["ruleId"]))
        assert got[:3] == findings, got
        assert got[3][0] == files[4] and got[3][3] == "parse-error", got[3]
        assert len(got) == 4

        github = outputs["github"].splitlines()
        gh = re.compile(r"^::(error|warning) file=([^,]*),line=(\d+),col=(\d+),title=sdscprov ([a-z-]+)::(.*)$")
        parsed = [gh.match(l) for l in github]
        assert all(parsed), github
        assert [(m.group(2), int(m.group(3)), int(m.group(4)), m.group(5)) for m in parsed[:3]] == findings
        assert len(parsed) == 4 and parsed[3].group(5) == "parse-error"
        assert parsed[3].group(6) in problem_line

        suite = ET.fromstring(outputs["junit"]).find("testsuite")
        cases = suite.findall("testcase")
        assert len(cases) == 2 and suite.get("tests") == "2"
        assert {c.get("name") for c in cases} == {os.path.dirname(f) for f in files}
        failed = [c for c in cases if c.find("failure") is not None]
        errored = [c for c in cases if c.find("error") is not None]
        assert len(failed) == 2 and len(errored) == 1  # the truncated file's directory

        # With $GITHUB_STEP_SUMMARY, a Markdown summary is appended to it.
        summary = os.path.join(tmp, "summary.md")
        open(summary, "w").write("earlier step\n")
        run("check", "--format", "github", cache, env={"GITHUB_STEP_SUMMARY": summary})
        text_summary = open(summary).read()
        assert text_summary.startswith("earlier step\n## sdscprov check"), text_summary
        assert "3 findings in 5 SDSC files" in text_summary and "`missing-handle` | 2" in text_summary


def test_a_gate_given_nothing_to_check_fails():
    with TempDir() as tmp:
        empty = os.path.join(tmp, "not-a-cache")
        os.makedirs(os.path.join(empty, "sub"))
        open(os.path.join(empty, "sub", "notes.json"), "w").write("{}")
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        for args in ([empty], [cache, empty], ["--origins", DEMO_MAP, empty]):
            rc, out, err = run("check", *args, check_rc=2)
            assert f"{empty}: error: no SDSC file" in err and "[no-sdsc-files]" in err, (args, err)
        # scan only warns: a report of nothing is still a report.
        rc, out, err = run("scan", empty, check_rc=0)
        assert f"{empty}: warning: no SDSC file" in err, err
        run("check", cache, check_rc=0)


if __name__ == "__main__":
    main([test_a_gate_given_nothing_to_check_fails,
          test_missing_handles_are_findings_at_the_op_key,
          test_clean_after_annotate_and_files_one_by_one,
          test_null_handle_and_stale_handle,
          test_bad_input_is_exit_2_and_other_findings_still_reported,
          test_ci_formats_carry_every_finding_and_problem])
