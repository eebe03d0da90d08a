"""Checks of the Python API (`import sdscprov`) against the binary it runs, on the demo cache and
trace (testdata/demo) and on a generated cache, sidecar and trace (scripts/gen_trace.py): every
table equals the binary's own `--format json` report, row for row and value for value (as
DataFrames with pandas, as the report's dicts without it); errors raise SdscprovError with the
problems; check's findings are a result.

Run by test_api.py with the installed wheel, in a fresh virtual environment that sees Debian's
pandas (MODE pandas) or no pandas at all (MODE plain); the reference binary is the one on PATH
(the environment's). From a checkout, against a build tree:

    PATH=build:$PATH PYTHONPATH=python python3 tests/install/api_checks.py plain .
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MODE, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
assert MODE in ("pandas", "plain"), MODE

import sdscprov  # noqa: E402
from sdscprov import tables  # noqa: E402

BIN = shutil.which("sdscprov")


def reference(command, *args, ok=(0,), cwd=None):
    """The binary's own report for the same run, read with the json module alone."""
    p = subprocess.run([BIN, command, "--format", "json", *args], capture_output=True, cwd=cwd)
    assert p.returncode in ok, (command, args, p.returncode, p.stderr[-2000:])
    return json.loads(p.stdout)


def binary_stderr(command, *args, cwd=None):
    return subprocess.run([BIN, command, "--format", "json", *args], capture_output=True,
                          text=True, cwd=cwd).stderr


def cell(row, column):
    """The JSON value a DataFrame column stands for (`a.b`: member b of member a), None when a
    member on the way is missing or null."""
    value = row
    for part in column.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def leaves(row, prefix=""):
    for name, value in row.items():
        if isinstance(value, dict):
            yield from leaves(value, f"{prefix}{name}.")
        else:
            yield prefix + name, value


def same_table(table, rows, what):
    """The API's table equals the report's rows: the very dicts without pandas; with it, one
    DataFrame row per JSON row, each column the leaf it names, integers kept integers."""
    if MODE == "plain":
        assert isinstance(table, list) and table == rows, (what, table, rows)
        return
    import pandas as pd
    assert isinstance(table, pd.DataFrame), (what, type(table))
    assert list(table.index) == list(range(len(rows))), (what, table.index)
    for row in rows:  # nothing of the JSON is left out
        for column, value in leaves(row):
            assert value is None or column in table.columns, (what, column, list(table.columns))
    for column in table.columns:
        values = [cell(row, column) for row in rows]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            assert str(table[column].dtype) in ("int64", "Int64"), (what, column, table[column].dtype)
        for i, value in enumerate(values):
            got = table[column].iloc[i]
            if value is None:
                assert got is None or pd.isna(got), (what, column, i, got)
            elif isinstance(value, list):
                assert list(got) == value, (what, column, i, got, value)
            else:
                assert got == value and not pd.isna(got), (what, column, i, got, value)


def copy_demo(tmp, annotated):
    demo = os.path.join(tmp, "demo-annotated" if annotated else "demo")
    shutil.copytree(os.path.join(ROOT, "testdata", "demo"), demo)
    if annotated:
        subprocess.run([BIN, "annotate", "--origins", "origins.json", "."], cwd=demo, check=True,
                       capture_output=True)
    return demo


def generate(tmp):
    """A generated cache (some kernels with ideal cycles, one malformed), its sidecar and trace."""
    out = os.path.join(tmp, "gen")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), out,
                    "--files", "40", "--steps", "3", "--ideal-cycles", "0.8",
                    "--ideal-malformed", "0.2"], check=True, capture_output=True, timeout=300)
    return out


def test_the_package_and_pandas():
    if os.environ.get("VIRTUAL_ENV"):  # test_api.py: the installed wheel, not a checkout
        assert sdscprov.__file__.startswith(sys.prefix + os.sep), (sdscprov.__file__, sys.prefix)
    assert sdscprov.find_sdscprov() == BIN, (sdscprov.find_sdscprov(), BIN)
    try:
        import pandas  # noqa: F401
        has_pandas = True
    except ImportError:
        has_pandas = False
    assert has_pandas == (MODE == "pandas"), f"pandas importable: {has_pandas}, mode {MODE}"
    assert (tables.pandas_module() is not None) == has_pandas
    import sdscprov_capture
    from sdscprov import capture
    assert sdscprov_capture is capture and sdscprov_capture.find_sdscprov() == BIN


def check_profile(run, ref):
    assert run.report == ref
    rankings = [m for m in ref if m.startswith("by_")]
    assert rankings and list(run.rankings) == rankings, (list(run.rankings), rankings)
    for member in rankings:
        same_table(run.rankings[member], ref[member], member)
    for alias, member in (("lines", "by_line"), ("ops", "by_aten"), ("kernels", "by_kernel"),
                          ("categories", "by_category")):
        assert getattr(run, alias) is run.rankings[member], alias
    for member in ("bundles", "traces"):
        if member in ref:
            same_table(getattr(run, member), ref[member], member)
    assert run.problems == ref.get("problems", []) + ref.get("diagnostics", [])
    if "coverage" in ref:
        assert run.totals == ref["coverage"]
        if MODE == "pandas":
            assert str(run.lines["device_ns"].dtype) == "int64"
            assert run.kernels["device_ns"].sum() == ref["coverage"]["kernel_ns"]
        else:
            assert sum(row["device_ns"] for row in run.kernels) == ref["coverage"]["kernel_ns"]
    else:
        assert run.totals == {m: ref[m] for m in ("base", "new", "change_ns", "change_percent")}


def test_profile_of_the_demo():
    with tempfile.TemporaryDirectory() as tmp:
        demo = copy_demo(tmp, annotated=True)
        ref = reference("profile", "trace.json", ".", cwd=demo)
        here = os.getcwd()
        os.chdir(demo)  # paths as a notebook beside the trace gives them
        try:
            run = sdscprov.profile("trace.json", ".")
        finally:
            os.chdir(here)
        assert ref["coverage"]["kernel_events"] == 48 and len(ref["by_line"]) == 4, ref["coverage"]
        check_profile(run, ref)
        # The page: the binary's HTML of the same run, in a frame of its own for a notebook.
        page = sdscprov.profile(os.path.join(demo, "trace.json"), demo).page()
        expected = subprocess.run([BIN, "profile", "--format", "html", os.path.join(demo, "trace.json"), demo],
                                  capture_output=True, text=True, check=True).stdout
        assert page.html == expected
        frame = re.fullmatch(r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts" style="[^"]*"></iframe>',
                             page._repr_html_())
        assert frame and html.unescape(frame.group(1)) == expected, page._repr_html_()[:200]


def test_profile_of_a_generated_trace():
    with tempfile.TemporaryDirectory() as tmp:
        gen = generate(tmp)
        trace, cache, sidecar = (os.path.join(gen, n) for n in ("trace.json", "cache", "spyre_provenance.json"))
        # Keywords as options: a list given once per item, a number as its text.
        second = os.path.join(gen, "second_provenance.json")
        shutil.copy(sidecar, second)
        run = sdscprov.profile(trace, cache, origins=[sidecar, second], core_mhz=1000)
        ref = reference("profile", trace, cache, "--origins", sidecar, "--origins", second,
                        "--core-mhz", "1000")
        assert ref["sidecars"] == [sidecar, second], ref["sidecars"]
        assert ref["ideal"]["core_mhz"] == 1000 and ref["ideal"]["bundles_with_ideal"] > 0, ref["ideal"]
        assert any(p["code"] == "bad-ideal-cycles" for p in ref["problems"]), ref["problems"]
        check_profile(run, ref)
        # Two runs compared, and two traces as the ranks of one run.
        compared = sdscprov.profile(trace, cache, baseline=trace)
        check_profile(compared, reference("profile", "--baseline", trace, trace, cache))
        ranks = sdscprov.profile(trace, trace, cache)
        check_profile(ranks, reference("profile", trace, trace, cache))
        assert len(ranks.report["traces"]) == 2


def test_the_steps_of_a_trace_with_host_lanes():
    """profile's timeline steps as a table (a trace with runtime launch events); none without."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lanes")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), out,
                        "--files", "40", "--host-lanes", "--steps", "3"], check=True,
                       capture_output=True, timeout=300)
        trace, sidecar = os.path.join(out, "trace.json"), os.path.join(out, "spyre_provenance.json")
        run = sdscprov.profile(trace, origins=sidecar)
        ref = reference("profile", trace, "--origins", sidecar)
        assert run.report == ref and len(ref["timeline"]["steps"]) == 3, ref.get("timeline")
        same_table(run.steps, ref["timeline"]["steps"], "steps")
        assert run.steps is run.steps  # made once
        walls = [s["wall_ns"] for s in ref["timeline"]["steps"]]
        if MODE == "pandas":
            assert str(run.steps["idle.idle_ns"].dtype) == "int64"
            assert list(run.steps["wall_ns"]) == walls == sorted(walls, reverse=True)
        else:
            assert [s["wall_ns"] for s in run.steps] == walls == sorted(walls, reverse=True)
        demo = copy_demo(tmp, annotated=True)
        plain = sdscprov.profile(os.path.join(demo, "trace.json"), demo)
        assert "timeline" not in plain.report
        try:
            plain.steps
            raise AssertionError("steps of a trace without runtime launch events")
        except KeyError as e:
            assert "no runtime launch event" in str(e), e


def test_the_notebook_example_of_the_docs():
    """docs/usage.md's example runs as written (with pandas: it uses DataFrames) and its table is
    what the notebook shows."""
    if MODE != "pandas":
        return
    with open(os.path.join(ROOT, "docs", "usage.md")) as f:
        section = f.read().split("## Python and notebooks", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"^(run\.lines\[.*\]\]\n)((?:# .*\n)+)", code, re.M)
    assert shown, code
    with tempfile.TemporaryDirectory() as tmp:
        demo = copy_demo(tmp, annotated=True)
        here = os.getcwd()
        os.chdir(demo)
        try:
            names = {}
            exec(compile(code, "docs/usage.md", "exec"), names)
            table = eval(shown.group(1), names)
        finally:
            os.chdir(here)
    expected = "".join(line[2:] for line in shown.group(2).splitlines(keepends=True))
    assert str(table) + "\n" == expected, (str(table), expected)


def test_a_new_ranking_is_a_table_without_a_change():
    with tempfile.TemporaryDirectory() as tmp:
        demo = copy_demo(tmp, annotated=True)
        ref = reference("profile", "trace.json", ".", cwd=demo)
    later = dict(ref, by_span=ref["by_line"])  # a ranking the binary may add one day
    run = sdscprov.Profile(later, 0, "", lambda: None)
    assert list(run.rankings) == [m for m in later if m.startswith("by_")]
    same_table(run.spans, ref["by_line"], "spans")
    same_table(run.by_span, ref["by_line"], "by_span")
    assert "spans" in dir(run) and "by_span" in dir(run)


def test_scan_check_and_explain():
    with tempfile.TemporaryDirectory() as tmp:
        demo, fresh = copy_demo(tmp, annotated=True), copy_demo(tmp, annotated=False)
        ref = reference("scan", demo)
        scan = sdscprov.scan(demo)
        assert scan.report == ref and scan.totals == ref["totals"] and scan.problems == []
        same_table(scan.kernels, ref["kernels"], "scan kernels")
        files = [dict(dir=k["dir"], kernel=k["kernel"], **f) for k in ref["kernels"] for f in k["files"]]
        assert len(files) == 5
        same_table(scan.files, files, "scan files")
        # check: findings (exit 1) are a result, not an error.
        ref = reference("check", fresh, ok=(1,))
        failed = sdscprov.check(fresh)
        assert not failed.passed and failed.status == 1 and failed.report == ref
        assert len(ref["findings"]) == 5, ref["findings"]
        same_table(failed.findings, ref["findings"], "findings")
        assert failed.totals == {"files": 5, "findings": 5, "notes": 0}
        passed = sdscprov.check(demo, origins=os.path.join(demo, "origins.json"))
        assert passed.passed and passed.status == 0 and passed.report == reference(
            "check", demo, "--origins", os.path.join(demo, "origins.json"))
        ref = reference("explain", "sdsc_fused_addmm_linear_relu_0", demo)
        explained = sdscprov.explain("sdsc_fused_addmm_linear_relu_0", demo)
        assert explained.report == ref
        same_table(explained.kernels, ref["kernels"], "explain kernels")
        ops = [dict(dir=k["dir"], kernel=k["kernel"], **op) for k in ref["kernels"] for op in k["ops"]]
        assert len(ops) == 4 and ops[0]["source_line_text"] is None
        same_table(explained.ops, ops, "explain ops")


def test_paths_that_are_not_utf8():
    """A path of bytes that are not UTF-8 ({"bytes": BASE64} in the JSON, quoted on standard
    error) is the str os.fsdecode gives for them, as os.listdir names it."""
    with tempfile.TemporaryDirectory() as tmp:
        odd = os.fsdecode(os.fsencode(tmp) + b"/odd\xff\n")
        shutil.copytree(os.path.join(ROOT, "testdata", "demo"), odd)
        ref = reference("scan", odd)
        assert all(isinstance(k["dir"], dict) and "bytes" in k["dir"] for k in ref["kernels"]), ref["kernels"]
        dirs = [k["dir"] for k in sdscprov.scan(odd).report["kernels"]]
        assert sorted(dirs) == sorted(os.path.join(odd, "inductor-spyre", d)
                                      for d in os.listdir(os.path.join(odd, "inductor-spyre"))), dirs
        missing = os.path.join(odd, "no-such-cache")
        e = raised(lambda: sdscprov.profile(os.path.join(odd, "trace.json"), missing))
        assert '"' in binary_stderr("profile", os.path.join(odd, "trace.json"), missing)  # quoted there
        assert [(p["path"], p["code"]) for p in e.problems] == [(missing, "bad-argument")], e.problems


def raised(call):
    try:
        call()
    except sdscprov.SdscprovError as e:
        return e
    raise AssertionError("no SdscprovError")


def test_errors_raise_with_the_problems():
    with tempfile.TemporaryDirectory() as tmp:
        demo = copy_demo(tmp, annotated=True)
        trace = os.path.join(demo, "trace.json")
        cut = os.path.join(tmp, "cut.json")
        with open(trace, "rb") as f, open(cut, "wb") as g:
            g.write(f.read()[:5000])
        # A truncated trace: no report; the problem as the binary wrote it on standard error.
        e = raised(lambda: sdscprov.profile(cut, demo))
        line = re.search(r"^(.*):(\d+):(\d+): error: (.*) \[parse-error\]$", binary_stderr("profile", cut, demo), re.M)
        assert line, binary_stderr("profile", cut, demo)
        assert e.status == 2 and e.result is None
        assert e.problems == [{"path": line.group(1), "line": int(line.group(2)), "col": int(line.group(3)),
                               "severity": "error", "code": "parse-error", "message": line.group(4)}], e.problems
        assert "parse-error" in str(e)
        # A cache that is not there.
        missing = os.path.join(tmp, "no-such-cache")
        e = raised(lambda: sdscprov.profile(trace, missing))
        assert e.status == 2 and [(p["path"], p["code"]) for p in e.problems] == [(missing, "bad-argument")], e.problems
        # A file that is not JSON: scan reports it and the others; the report's problems raise.
        bad = os.path.join(demo, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e", "sdsc_0.json")
        with open(bad, "w") as f:
            f.write('{"0_add": {')
        ref = reference("scan", demo, ok=(2,))
        e = raised(lambda: sdscprov.scan(demo))
        assert e.status == 2 and isinstance(e.result, sdscprov.Scan) and e.result.report == ref
        assert e.problems == ref["problems"] and e.problems[0]["code"] == "parse-error", e.problems
        e = raised(lambda: sdscprov.explain("sdsc_fused_nope", demo))
        assert e.status == 2 and [p["code"] for p in e.problems] == ["bad-argument"], e.problems
        assert e.result.report == reference("explain", "sdsc_fused_nope", demo, ok=(2,))
        # A keyword that is no option: spelled as the binary's options are, refused by it.
        e = raised(lambda: sdscprov.profile(trace, demo, no_such_option=1))
        assert e.status == 2 and "--no-such-option" in e.problems[0]["message"], e.problems
        for keyword in ("format", "quiet"):
            try:
                sdscprov.profile(trace, demo, **{keyword: True})
                raise AssertionError(keyword)
            except TypeError as refused:
                assert keyword in str(refused)


if __name__ == "__main__":
    checks = [test_the_package_and_pandas, test_profile_of_the_demo, test_profile_of_a_generated_trace,
              test_the_steps_of_a_trace_with_host_lanes, test_the_notebook_example_of_the_docs,
              test_a_new_ranking_is_a_table_without_a_change, test_scan_check_and_explain,
              test_errors_raise_with_the_problems, test_paths_that_are_not_utf8]
    for check in checks:
        check()
        print(f"ok {check.__name__}")
    print(f"api_checks: {len(checks)} checks passed ({MODE})")
