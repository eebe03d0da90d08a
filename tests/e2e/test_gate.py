"""End-to-end: the gate can go green on a build server's cache. Compiler-generated ops (a
source-less handle, a restickify op without a handle, an op the origins map lists with no FX
origins) are a class of their own in scan, annotate, check and profile; check --origins judges the
kernels of that compile; --strict, --all-kernels and --fail-under."""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TempDir, generate, main, run  # noqa: E402

FINDING = re.compile(r"^(.*):(\d+):(\d+): (.*) \[([a-z-]+)\]$")
# torch-spyre's passes whose new buffers have no model source, and the opfunc family they make:
# written out here, apart from the code under test.
SOURCELESS_PASSES = {"insert_restickify", "insert_post_mutation_restickify", "insert_bmm_padding"}


def sdsc_files(cache):
    """Every SDSC file of the cache: sdsc_<N>.json, sdsc_<N>_<opfunc>.json, execute/*/sdsc.json."""
    found = []
    for top, _, names in os.walk(cache):
        found += [os.path.join(top, n) for n in names
                  if re.fullmatch(r"sdsc_\d+(_\w+)?\.json", n) or n == "sdsc.json"]
    return sorted(found)


def op_of(path):
    doc = json.load(open(path, encoding="utf-8"))
    key = next(iter(doc))
    return key, doc[key]


def form_of(path):
    """How the file shows a compiler-generated op: 'sourceless-handle', 'restickify' or None."""
    key, op = op_of(path)
    opfunc = key.split("_", 1)[1]
    h = op.get("debug_handle_", None)
    if isinstance(h, dict):
        passes = {s["pass_name"] for s in h.get("transform_history", [])}
        return "sourceless-handle" if h["source"] is None and passes & SOURCELESS_PASSES else None
    lowered = opfunc.lower()
    return "restickify" if "restickify" in lowered or "padding" in lowered else None


def kernel_dir_of(path, cache):
    rel = os.path.relpath(path, cache).split(os.sep)
    return os.path.join(cache, rel[0], rel[1])


def findings_of(out):
    found = []
    for line in out.splitlines():
        m = FINDING.match(line)
        assert m, f"not a finding line: {line!r}"
        found.append((m.group(1), m.group(5)))
    return found


def build_server(tmp, forms="sourceless-handle,restickify"):
    cache = os.path.join(tmp, "cache")
    origins = os.path.join(tmp, "origins.json")
    manifest = generate(cache, 900, "--handles", "populated,null,absent", "--compiles", "3",
                        "--compiler-generated", forms, "--origins-map", origins, "--jobs", "1")
    in_map = {os.path.join(cache, k["dir"]) for k in manifest["kernel_dirs"] if k["in_map"]}
    foreign = {os.path.join(cache, k["dir"]) for k in manifest["kernel_dirs"] if not k["in_map"]}
    return cache, origins, manifest, in_map, foreign


def test_annotate_then_check_of_one_compile_goes_green():
    with TempDir() as tmp:
        cache, origins, manifest, in_map, foreign = build_server(tmp)
        assert manifest["compiles"] == 3 and len(foreign) > len(in_map) > 5, manifest["origins"]
        assert {k["compile"] for k in manifest["kernel_dirs"] if k["in_map"]} == {0}
        assert manifest["compiler_generated"]["sourceless-handle"] > 0
        assert manifest["compiler_generated"]["restickify"] > 0
        run("annotate", "--origins", origins, cache, check_rc=0)
        rc, out, err = run("check", "--origins", origins, cache)
        assert rc == 0 and out == "", (rc, out, err)
        foreign_names = {k["kernel"] for k in manifest["kernel_dirs"] if not k["in_map"]}
        assert f"({len(foreign)} directories) not from this compile" in err, err
        assert f"{len(foreign_names)} kernels ({len(foreign)} directories)" in err, err
        assert "--all-kernels judges them" in err, err
        # The notes: the restickify ops of this compile without a handle, and nothing else.
        report = json.loads(run("check", "--format", "json", "--origins", origins, cache,
                                check_rc=0)[1])
        notes = [f for f in report["findings"] if f["severity"] == "note"]
        assert notes and len(notes) == len(report["findings"]), report["findings"][:3]
        for f in notes:
            assert f["rule"] == "compiler-generated", f
            assert kernel_dir_of(f["path"], cache) in in_map, f
            assert form_of(f["path"]) == "restickify", f
        m = re.search(r"sdscprov check: (\d+) compiler-generated ops without a handle", err)
        assert m and int(m.group(1)) == len(notes), err
        sarif = json.loads(run("check", "--format", "sarif", "--origins", origins, cache,
                               check_rc=0)[1])
        levels = {(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]}
        assert levels == {("compiler-generated", "note")}, levels
        github = run("check", "--format", "github", "--origins", origins, cache, check_rc=0)[1]
        assert github.count("::notice ") == len(notes) and "::error" not in github, github[:300]
        junit = run("check", "--format", "junit", "--origins", origins, cache, check_rc=0)[1]
        assert 'failures="0"' in junit and "<system-out>" in junit, junit[:400]
        # --strict: the notes fail, as findings, one line each.
        rc, out, err = run("check", "--strict", "--origins", origins, cache)
        assert rc == 1 and sorted(findings_of(out)) == sorted(
            (f["path"], "compiler-generated") for f in notes), out[:500]
        # --all-kernels: the other compiles' directories are judged too, and fail.
        rc, out, err = run("check", "--all-kernels", "--origins", origins, cache)
        judged = {kernel_dir_of(p, cache) for p, _ in findings_of(out)}
        assert rc == 1 and judged and judged <= foreign, (rc, judged - foreign)
        assert "not from this compile" not in err, err


def test_check_without_the_map_names_only_what_a_fix_changes():
    with TempDir() as tmp:
        cache, origins, manifest, in_map, foreign = build_server(tmp)
        run("annotate", "--origins", origins, cache, check_rc=0)
        rc, out, err = run("check", cache)
        found = findings_of(out)
        assert rc == 1 and found, (rc, err)
        for path, rule in found:
            # Another compile's op that its own map would give a handle: never this compile's,
            # never a compiler-generated op.
            assert kernel_dir_of(path, cache) in foreign, (path, rule)
            assert rule in ("missing-handle", "null-handle"), (path, rule)
            assert form_of(path) is None, path
        # Every op lacking a handle is a finding or a note.
        lacking = [p for p in sdsc_files(cache)
                   if not isinstance(op_of(p)[1].get("debug_handle_"), dict)]
        notes = [p for p in lacking if form_of(p) == "restickify"]
        assert len(found) + len(notes) == len(lacking), (len(found), len(notes), len(lacking))
        assert re.search(r"sdscprov check: %d compiler-generated ops" % len(notes), err), err


def test_fail_under_and_the_share():
    with TempDir() as tmp:
        cache, origins, manifest, in_map, foreign = build_server(tmp)
        files = sdsc_files(cache)
        populated = sum(isinstance(op_of(p)[1].get("debug_handle_"), dict) for p in files)
        share = 100.0 * populated / len(files)
        tenths = populated * 1000 // len(files)
        shown = "%d.%d %% of %d judged SDSC ops" % (tenths // 10, tenths % 10, len(files))
        rc, _, err = run("check", cache)
        assert rc == 1 and "a populated debug_handle_ in " + shown in err, err
        under, over = math.floor(share), math.floor(share) + 1
        rc, _, err = run("check", "--fail-under", str(under), cache)
        assert rc == 0 and f"(--fail-under {under}: passes)" in err, (rc, err)
        rc, _, err = run("check", "--fail-under", str(over), cache)
        assert rc == 1 and f"(--fail-under {over}: fails)" in err, (rc, err)
        # A fraction, compared exactly: just above the share fails, just below passes.
        rc, _, _ = run("check", "--fail-under", "%.4f" % (share + 0.0001), cache)
        assert rc == 1
        rc, _, _ = run("check", "--fail-under", "%.4f" % (share - 0.0001), cache)
        assert rc == 0
        # With the map: the share of this compile's ops only.
        run("annotate", "--origins", origins, cache, check_rc=0)
        judged = [p for p in sdsc_files(cache) if kernel_dir_of(p, cache) in in_map]
        held = sum(isinstance(op_of(p)[1].get("debug_handle_"), dict) for p in judged)
        tenths = held * 1000 // len(judged)
        rc, _, err = run("check", "--fail-under", "100", "--origins", origins, cache)
        assert "in %d.%d %% of %d judged SDSC ops" % (tenths // 10, tenths % 10, len(judged)) in err
        assert rc == (0 if held == len(judged) else 1), (rc, held, len(judged))


def test_the_three_forms_are_recognised():
    with TempDir() as tmp:
        cache, origins, manifest, in_map, foreign = build_server(
            tmp, "sourceless-handle,restickify,no-origins")
        # scan: each file's class as the files show it, and the column.
        report = json.loads(run("scan", "--format", "json", cache, check_rc=0)[1])
        flagged = {f["path"] for k in report["kernels"] for f in k["files"]
                   if f["compiler_generated"]}
        expected = {p for p in sdsc_files(cache) if form_of(p)}
        assert flagged == expected, (len(flagged), len(expected))
        by_form = [form_of(p) for p in expected]
        assert by_form.count("sourceless-handle") >= manifest["compiler_generated"]["sourceless-handle"] > 0
        assert by_form.count("restickify") > 0
        assert report["totals"]["compiler_generated"] == len(expected)
        text = run("scan", cache, check_rc=0)[1]
        assert f"0 malformed; {len(expected)} compiler-generated" in text, text[:400]
        assert re.search(r"^ dirs  files  populated   null  absent  malformed  generated  problems  "
                         r"kernel$", text, re.M), text
        md = run("scan", "--format", "markdown", cache, check_rc=0)[1]
        assert f"compiler-generated {len(expected)}" in md, md[:400]
        html = run("scan", "--format", "html", cache, check_rc=0)[1]
        assert '"compiler-generated"' in html and '"gen":true' in html
        # The third form is only the map's: with it, a note naming the map; without, a finding.
        rc, out, err = run("check", "--format", "json", "--origins", origins, cache)
        no_origins = [f for f in json.loads(out)["findings"]
                      if "the origins map lists it with no FX origins" in f["message"]]
        assert no_origins, out[:500]
        for f in no_origins:
            assert f["rule"] == "compiler-generated" and f["severity"] == "note", f
            assert form_of(f["path"]) is None and kernel_dir_of(f["path"], cache) in in_map, f
        plain = {p: r for p, r in findings_of(run("check", cache)[1])}
        assert all(plain.get(f["path"]) in ("missing-handle", "null-handle") for f in no_origins)
        # annotate says so in its reasons.
        rc, out, _ = run("annotate", "--dry-run", "--origins", origins, cache, check_rc=0)
        assert "compiler-generated op (no model source by design)" in out, out[-1500:]
        assert re.search(r"still lack provenance \(\d+ of them compiler-generated", out), out[-800:]


# ---- profile: time in compiler-generated ops, apart from time of no known source -----------------

def handle(hid, source_line, chain, passes=()):
    return {"id": hid, "source": None if source_line is None else {
        "file": "/m/model.py", "start_line": source_line, "start_col": 0, "end_line": None,
        "end_col": None}, "aten_op": None, "ir_chain": chain, "fused_from": [],
        "transform_history": [{"kind": "rewrite", "pass_name": p, "reason": None} for p in passes]}


def write_kernel(cache, dirname, opfunc, h):
    kdir = os.path.join(cache, "inductor-spyre", dirname)
    os.makedirs(kdir)
    with open(os.path.join(kdir, "sdsc_0.json"), "w") as f:
        json.dump({"0_" + opfunc: {"debug_handle_": h, "numCoresUsed_": 1}}, f, indent=2)


def test_profile_names_compiler_generated_time():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        write_kernel(cache, "sdsc_fused_add_0_aaaaaaaa", "add", handle("11", 2, ["add", "buf0"]))
        write_kernel(cache, "sdsc_fused_1_bbbbbbbb", "ReStickifyOpHBM",
                     handle("22", None, ["buf1"], ["insert_bmm_padding"]))
        write_kernel(cache, "sdsc_fused_2_cccccccc", "identity",
                     handle("33", None, ["clone", "buf2"], ["fuse"]))
        events = []
        for name, dur, hid in (("add_" + "a" * 16, 5, "11"), ("x_" + "b" * 16, 3, "22"),
                               ("y_" + "c" * 16, 2, "33")):
            events.append({"ph": "X", "cat": "kernel", "name": "spyre_kernel_v1_fused_" + name,
                           "pid": 1, "tid": 0, "ts": 1.0, "dur": dur,
                           "args": {"debug_handles": [hid]}})
        trace = os.path.join(tmp, "trace.json")
        with open(trace, "w") as f:
            json.dump({"traceEvents": events}, f)
        report = json.loads(run("profile", trace, cache, "--format", "json", check_rc=0)[1])
        lines = {r["label"]: r["device_ns"]
                 for r in report["by_line"]}
        assert lines == {"/m/model.py:2": 5000, "[compiler-generated]": 3000,
                         "[no source]": 2000}, lines
        flags = {b["label"]: b["compiler_generated"] for b in report["bundles"]}
        assert sorted(flags.values()) == [False, False, True], flags
        text = run("profile", trace, cache, check_rc=0)[1]
        assert re.search(r"^ .*\[compiler-generated\]$", text, re.M), text
        assert re.search(r"^ .*\[no source\]$", text, re.M), text
        folded = run("profile", trace, cache, "--format", "folded", check_rc=0)[1]
        assert re.search(r"^\[compiler-generated\];\[no aten op\];\S+ 3000$", folded, re.M), folded


if __name__ == "__main__":
    main([test_annotate_then_check_of_one_compile_goes_green,
          test_check_without_the_map_names_only_what_a_fix_changes,
          test_fail_under_and_the_share,
          test_the_three_forms_are_recognised,
          test_profile_names_compiler_generated_time])
