"""End-to-end: `sdscprov scan` on the demo, on generated caches and on bad input."""
import json
import os
import pty
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (BIN, SCRIPTS, SHARED_CORPUS, SKIP, TESTDATA, TempDir, copy_tree, generate,  # noqa: E402
                 main, run, run_json)

DEMO = os.path.join(TESTDATA, "demo")


def line_col(data, offset):
    """1-based line and column (in code points) of a byte offset, independently of the tool."""
    before = data[:offset]
    line = before.count(b"\n") + 1
    last = before.rfind(b"\n")
    col = len(before[last + 1:].decode("utf-8", errors="replace")) + 1
    return line, col


def test_demo_report():
    report = run_json("scan", DEMO)
    t = report["totals"]
    assert (t["kernels"], t["files"], t["handles_absent"], t["handles_populated"]) == (2, 5, 5, 0), t
    kernels = [(k["kernel"], [f["op"] for f in k["files"]]) for k in report["kernels"]]
    assert kernels == [
        ("sdsc_fused_addmm_1", ["0_add"]),
        ("sdsc_fused_addmm_linear_relu_0", ["0_batchmatmul", "1_add", "2_relufwd", "3_batchmatmul"]),
    ], kernels
    assert report["problems"] == []
    assert report["superdsc_json"]["members"]["debug_handle_"]["coverage"] == "none"

    rc, text, _ = run("scan", DEMO, check_rc=0)
    # Kernels by name, with their directory counts: the worst first.
    assert re.search(r"^\s+1\s+4\s+0\s+0\s+4\s+0\s+0\s+sdsc_fused_addmm_linear_relu_0\n"
                     r"\s+1\s+1\s+0\s+0\s+1\s+0\s+0\s+sdsc_fused_addmm_1\n", text, re.M), text
    assert "total: 2 kernels (2 directories), 5 SDSC files\ndebug_handle_: 0 populated, 0 null, 5 absent, 0 malformed; 0 compiler-generated" in text
    assert re.search(r"^  debug_handle_\s+none$", text, re.M), text
    rc, text, _ = run("scan", "--all", DEMO, check_rc=0, env={"COLUMNS": "300"})
    assert re.search(r"^\s+4\s+0\s+0\s+4\s+0\s+0\s+0\s+\S+/sdsc_fused_addmm_linear_relu_0_q7k2m_x4$", text, re.M), text

    rc, md, _ = run("scan", "--format", "markdown", DEMO, check_rc=0)
    assert md.startswith("## SuperDSC provenance: 5 `sdsc_*.json` files (2 kernels)"), md[:200]
    assert "### `sdsc_fused_addmm_linear_relu_0`" in md
    assert "- `sdsc_*.json` files: 4 &nbsp; provenance in JSON: \u274c" in md


def test_generated_cache_matches_manifest_and_jobs():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        manifest = generate(cache, 600, "--layout", "mixed", "--incomplete", "--seed", "7")
        outputs = {}
        for jobs in ("1", "2", "5"):
            rc, out, _ = run("scan", "--format", "json", "-j", jobs, cache, check_rc=0)
            outputs[jobs] = out
        assert outputs["1"] == outputs["2"] == outputs["5"], "output differs between -j values"
        # Files are opened and closed in groups through io_uring where the kernel allows it;
        # the ordinary open gives the same report.
        _, plain, _ = run("scan", "--format", "json", "-j", "2", cache, check_rc=0,
                          env={"SDSCPROV_IO_URING": "0"})
        assert plain == outputs["2"], "output differs without io_uring"
        report = json.loads(outputs["1"])
        t = report["totals"]
        for key in ("kernels", "files", "handles_populated", "handles_null", "handles_absent",
                    "handles_malformed"):
            assert t[key] == manifest[key], (key, t[key], manifest[key])
        assert t["skipped_incomplete"] > 0
        got = {os.path.relpath(k["dir"], cache): (k["kernel"], k["counts"]["files"],
                                                  k["counts"]["populated"], k["counts"]["null"],
                                                  k["counts"]["absent"])
               for k in report["kernels"]}
        want = {k["dir"]: (k["kernel"], k["files"], k["populated"], k["null"], k["absent"])
                for k in manifest["kernel_dirs"]}
        assert got == want, set(got.items()) ^ set(want.items())
        dirs = [k["dir"] for k in report["kernels"]]
        assert dirs == sorted(dirs, key=lambda d: d.split("/")), "kernel order is not stable"

        independent = json.loads(subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, "audit_scan.py"), "--json", cache],
            check=True, capture_output=True, text=True).stdout)
        for name, count in independent["provenance"].items():
            assert report["superdsc_json"]["members"][name]["files"] == count, (name, count)

        everything = run_json("scan", "--include-incomplete", cache)
        assert everything["totals"]["files"] == manifest["files"] + manifest["incomplete_files"]
        assert everything["totals"]["skipped_incomplete"] == 0


def test_truncated_file_gives_line_and_column():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        victim = None
        for root, _, files in os.walk(cache):
            if "sdsc_2.json" in files:
                victim = os.path.join(root, "sdsc_2.json")
        data = open(victim, "rb").read()
        # Cut inside a string value in the middle of the file, as a killed compile leaves it.
        cut = data.index(b'": "', len(data) // 2) + 6
        open(victim, "wb").write(data[:cut])
        rc, out, json_err = run("scan", "--format", "json", cache, check_rc=2)
        report = json.loads(out)
        problems = report["problems"]
        assert len(problems) == 1, problems
        p = problems[0]
        assert p["path"] == victim and p["code"] == "parse-error", p
        assert (p["line"], p["col"]) == line_col(data[:cut], cut), (p, line_col(data[:cut], cut))
        assert "unexpected end of input" in p["message"], p
        assert report["totals"]["files"] == 5 and report["totals"]["invalid_json"] == 1
        assert report["totals"]["handles_absent"] == 4

        # Every format: the error is a path:line:col line on standard error (a report redirected
        # to a file never hides it); the text report only counts it.
        line, col = line_col(data[:cut], cut)
        where = f"{victim}:{line}:{col}: error: "
        assert json_err.startswith(where) and json_err.count("\n") == 1, json_err
        for fmt in ("text", "markdown"):
            rc, text, err = run("scan", "--format", fmt, cache, check_rc=2)
            assert err.startswith(where) and err.count("\n") == 1, (fmt, err)
        assert where not in text and "1 error, 0 warnings, 0 notes (on standard error)" not in text
        rc, text, err = run("scan", cache, check_rc=2)
        assert where not in text and "1 error, 0 warnings, 0 notes (on standard error)" in text, text


def test_not_sdsc_and_unreadable_files():
    with TempDir() as tmp:
        kdir = os.path.join(tmp, "inductor-spyre", "sdsc_fused_add_0_abcdefgh")
        os.makedirs(kdir)
        open(os.path.join(kdir, "sdsc_0.json"), "w").write('{"0_add": {"debug_handle_": null}}')
        open(os.path.join(kdir, "sdsc_1.json"), "w").write('{\n  "loc_counts": {},\n  "op_counts": {}\n}')
        open(os.path.join(kdir, "sdsc_summary.json"), "w").write('{"loc_counts": {}}')
        os.mkfifo(os.path.join(kdir, "sdsc_2.json"))
        rc, out, _ = run("scan", "--format", "json", tmp, check_rc=2)
        report = json.loads(out)
        codes = [(os.path.basename(p["path"]), p["code"], p["line"], p["col"]) for p in report["problems"]]
        assert codes == [("sdsc_1.json", "not-sdsc", 3, 3), ("sdsc_2.json", "not-a-regular-file", None, None)], codes
        t = report["totals"]
        assert (t["files"], t["handles_null"], t["not_sdsc"], t["unreadable"]) == (3, 1, 1, 1), t


def test_usage_errors_exit_2():
    for args in ([], ["scan"], ["scan", "--bogus", "x"], ["scan", "--format", "xml", "x"],
                 ["scan", "-j", "0", "x"], ["frobnicate"]):
        rc, _, err = run(*args)
        assert rc == 2, (args, rc, err)
        assert err.strip(), (args, "no message")
    rc, out, _ = run("--version", check_rc=0)
    assert re.match(r"sdscprov \d+\.\d+\.\d+", out), out
    rc, out, _ = run("scan", "--help", check_rc=0)
    assert "Example" in out and "--format" in out
    rc, out, _ = run("scan", "/nonexistent/cache", DEMO, "--format", "json", check_rc=2)
    report = json.loads(out)
    assert report["problems"][0]["code"] == "bad-argument"
    assert report["totals"]["files"] == 5


def test_colour_only_on_a_terminal():
    rc, out, _ = run("scan", DEMO, check_rc=0)
    assert "\x1b[" not in out
    rc, out, _ = run("scan", "--color", "always", DEMO, check_rc=0)
    assert "\x1b[" in out

    def on_tty(env_extra):
        env = dict(os.environ)
        env.pop("NO_COLOR", None)
        env.update(env_extra)
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(BIN, [BIN, "scan", DEMO], env)
        chunks = []
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.waitpid(pid, 0)
        return b"".join(chunks).decode()

    assert "\x1b[" in on_tty({})
    assert "\x1b[" not in on_tty({"NO_COLOR": "1"})


def test_shared_corpus_matches_independent_count():
    if not os.path.isdir(SHARED_CORPUS):
        return SKIP
    report = run_json("scan", SHARED_CORPUS)
    independent = json.loads(subprocess.run(
        [sys.executable, os.path.join(SCRIPTS, "audit_scan.py"), "--json", SHARED_CORPUS],
        check=True, capture_output=True, text=True).stdout)
    t = report["totals"]
    for key in ("kernels", "files", "handles_populated", "handles_null", "handles_absent",
                "handles_malformed", "not_sdsc"):
        assert t[key] == independent[key], (key, t[key], independent[key])
    for k in report["kernels"]:
        for f in k["files"]:
            want = "populated" if "/spyre-cli/" in f["path"] else "absent"
            assert f["handle"] == want, (f["path"], f["handle"])
    members = report["superdsc_json"]["members"]
    for name, count in independent["provenance"].items():
        assert members[name]["files"] == count, (name, members[name], count)


def test_overlapping_roots_name_each_file_once():
    import shutil
    with TempDir() as tmp:
        def spellings(cache):
            parent, name = os.path.split(cache)
            kdir = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")
            return ([cache, cache], [cache, os.path.join(parent, ".", name)],
                    [cache, os.path.join(kdir, "sdsc_0.json")], [os.path.join(kdir, "sdsc_0.json"), cache],
                    [os.path.join(cache, "inductor-spyre"), cache])
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        once = json.loads(run("scan", "--format", "json", cache, check_rc=0)[1])
        assert once["totals"]["kernels"] == 2 and once["totals"]["files"] == 5, once["totals"]
        for i, roots in enumerate(spellings(cache)):
            rep = json.loads(run("scan", "--format", "json", *roots, check_rc=0)[1])
            assert rep["totals"]["kernels"] == 2 and rep["totals"]["files"] == 5, (roots, rep["totals"])
            # annotate writes every file once: no second pass calls our own write a change on
            # disk, and the map's kernels are not made ambiguous by a second name.
            copy = os.path.join(tmp, f"copy{i}")
            copy_tree(cache, copy)
            rc, out, err = run("annotate", "--format", "json", "--origins", os.path.join(DEMO, "origins.json"),
                               *spellings(copy)[i], check_rc=0)
            done = json.loads(out)["totals"]["annotate"]
            assert done["written"] == 5 and done["kernels_matched"] == 2, (roots, done, err)
            assert "changed-on-disk" not in err, err
            shutil.rmtree(copy)
        # Two names of one file, given as files.
        kdir = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")
        rep = json.loads(run("scan", "--format", "json", os.path.join(kdir, "sdsc_0.json"),
                             os.path.join(kdir, ".", "sdsc_0.json"), check_rc=0)[1])
        assert rep["totals"]["files"] == 1, rep["totals"]


if __name__ == "__main__":
    main([test_overlapping_roots_name_each_file_once, test_demo_report, test_generated_cache_matches_manifest_and_jobs,
          test_truncated_file_gives_line_and_column, test_not_sdsc_and_unreadable_files,
          test_usage_errors_exit_2, test_colour_only_on_a_terminal,
          test_shared_corpus_matches_independent_count])
