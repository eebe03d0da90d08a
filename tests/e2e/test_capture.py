"""End-to-end: `python3 -m sdscprov_capture` records a (fake) torch-spyre compile's origins map,
and `sdscprov annotate` gives every kernel file the handle torch-spyre's rules give.

torch is not needed: tests/capture/fake_site holds fake `torch` and `torch_spyre` packages with the
module paths and function names of the real ones, and tests/capture/fake_simplemlp_compile.py
compiles SimpleMLP with them into the kernel directories of testdata/demo, and
tests/capture/fake_reductions_compile.py a softmax and an amax into fresh ones.
"""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import ROOT, TESTDATA, TempDir, main, run, sdsc_files  # noqa: E402

CAPTURE_DIR = os.path.join(ROOT, "tests", "capture")
sys.path.insert(0, CAPTURE_DIR)
from schema_check import validate  # noqa: E402

FAKE_SITE = os.path.join(CAPTURE_DIR, "fake_site")
FAKE_COMPILE = os.path.join(CAPTURE_DIR, "fake_simplemlp_compile.py")
REDUCTIONS_COMPILE = os.path.join(CAPTURE_DIR, "fake_reductions_compile.py")
REDUCTIONS_EXPECTED = os.path.join(TESTDATA, "capture-reductions")
PLAIN_SCRIPT = os.path.join(CAPTURE_DIR, "plain_script.py")
DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")
PREFIX = "sdscprov_capture:"


def load(path):
    with open(path) as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


DEMO_DIRS = {k["name"]: k["dir"] for k in load(DEMO_MAP)["kernels"]}  # kernel -> directory
SCHEMA = load(os.path.join(ROOT, "docs", "origins-map.schema.json"))


def python(args, site=FAKE_SITE, env=None, cwd=None):
    """Runs python3 with the capture module (and a fake site) importable; returns the result."""
    full_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                    PYTHONPATH=os.pathsep.join(p for p in (os.path.join(ROOT, "python"), site) if p))
    for key in ("FAKE_TORCH_SPYRE_LAYOUT", "FAKE_SPYRE_OUTPUT_DIRS", "SPYRE_KERNEL_CACHE",
                "TORCH_SPYRE_KTIR"):
        full_env.pop(key, None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=full_env,
                          cwd=cwd, timeout=120)


def capture(out, script_args, **kw):
    return python(["-m", "sdscprov_capture", "--out", out, *script_args], **kw)


def our_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith(PREFIX)]


def others(stderr):
    return [line for line in stderr.splitlines() if not line.startswith(PREFIX)]


def compile_env(cache, dirs=None, **extra):
    """The fake compile's environment: the Inductor cache, and the directory names its
    get_output_dir hands out (instead of random ones) when ``dirs`` is given."""
    env = {"TORCHINDUCTOR_CACHE_DIR": cache, **extra}
    if dirs is not None:
        env["FAKE_SPYRE_OUTPUT_DIRS"] = json.dumps(dirs)
    return env


def demo_cache(path, extra_suffix=None):
    """A copy of the demo cache as an Inductor cache dir; with ``extra_suffix``, each kernel
    directory a second time under another random suffix (a second compile's)."""
    copy = os.path.join(path, "inductor-spyre")
    shutil.copytree(os.path.join(DEMO, "inductor-spyre"), copy)
    dirs = {name: [d] for name, d in DEMO_DIRS.items()}
    if extra_suffix:
        for name, d in DEMO_DIRS.items():
            again = f"{name}_{extra_suffix}"
            shutil.copytree(os.path.join(copy, d), os.path.join(copy, again))
            dirs[name].append(again)
    return dirs


def scan(root):
    return json.loads(run("scan", "--format", "json", root, check_rc=0)[1])


def handles_by_dir(root):
    """{(kernel directory name, file name): debug_handle} from `sdscprov scan`."""
    return {(os.path.basename(os.path.dirname(f["path"])), os.path.basename(f["path"])): f["debug_handle"]
            for k in scan(root)["kernels"] for f in k["files"]}


def test_units():
    suite = unittest.defaultTestLoader.loadTestsFromName("test_units")
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)
    assert result.wasSuccessful(), "unit tests of tests/capture/test_units.py failed"


def test_captured_map_annotates_the_demo_cache_like_the_audit_map():
    """Acceptance 1: the capture of the fake SimpleMLP compile fills all 5 files, byte for byte
    as the hand-made map of testdata/demo does, and the SuperDSC column goes from none to all."""
    with TempDir() as tmp:
        cache, reference = os.path.join(tmp, "cache"), os.path.join(tmp, "reference")
        dirs = demo_cache(cache)
        demo_cache(reference)
        before = scan(cache)
        assert before["totals"]["handles_populated"] == 0 and before["totals"]["handles_absent"] == 5
        assert before["superdsc_json"]["members"]["debug_handle_"]["coverage"] == "none"

        out = os.path.join(tmp, "origins.json")
        p = capture(out, [FAKE_COMPILE], env=compile_env(cache, dirs))
        assert p.returncode == 0, p.stderr
        assert our_lines(p.stderr) == [f"{PREFIX} wrote {out}: 2 kernels, 5 OpSpecs, 7 FX nodes"], p.stderr
        assert p.stdout.split() == ["sdsc_fused_addmm_linear_relu_0",
                                    f"inductor-spyre/{DEMO_DIRS['sdsc_fused_addmm_linear_relu_0']}",
                                    "sdsc_fused_addmm_1", f"inductor-spyre/{DEMO_DIRS['sdsc_fused_addmm_1']}"]

        captured = load(out)
        assert validate(captured, SCHEMA) == []
        # Beyond the hand-made map, the capture writes each op's spec_path and no kernel metadata
        # (neither enters a handle); everything else must be the same.
        spec_paths = [[op.pop("spec_path") for op in k["ops"]] for k in captured["kernels"]]
        assert spec_paths == [[[0], [1], [2], [3]], [[0]]], spec_paths
        audit_map = load(DEMO_MAP)
        for k in audit_map["kernels"]:
            del k["metadata"]
        assert captured == audit_map, json.dumps(captured, indent=1)[:3000]

        run("annotate", "--origins", out, cache, check_rc=0)
        run("annotate", "--origins", DEMO_MAP, reference, check_rc=0)
        after = scan(cache)
        assert after["totals"]["handles_populated"] == 5, after["totals"]
        assert after["superdsc_json"]["members"]["debug_handle_"]["coverage"] == "all"
        files = sdsc_files(cache)
        assert len(files) == 5
        for path in files:
            assert read(path) == read(os.path.join(reference, os.path.relpath(path, cache))), path
        text = run("scan", cache, check_rc=0)[1]
        assert any(line.split() == ["debug_handle_", "all"] for line in text.splitlines()), text


def id_version_2(handle):
    """torch-spyre's id of ``handle``, from the rule itself: SHA-256 of the compact, key-sorted
    JSON of aten_op, fused_from (the children's ids), ir_chain, source and "version": 2; the
    first 8 bytes read big-endian, shifted right by one bit."""
    hashed = {"aten_op": handle["aten_op"], "fused_from": [c["id"] for c in handle["fused_from"]],
              "ir_chain": handle["ir_chain"], "source": handle["source"], "version": 2}
    text = json.dumps(hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return str(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1)


def expected_reduction_files():
    """{(kernel name, file name): bytes} of testdata/capture-reductions, each id checked first."""
    out = {}
    for path in sdsc_files(REDUCTIONS_EXPECTED):
        handle = next(iter(load(path).values()))["debug_handle_"]
        assert handle["id"] == id_version_2(handle), f"fixture {path}: wrong id"
        out[(os.path.basename(os.path.dirname(path)), os.path.basename(path))] = read(path)
    assert len(out) == 6, out.keys()
    return out


def test_reductions_annotate_every_file_as_derived_by_hand():
    """The SDSC key of a reduction is its op + "nonstick" unless it reduces along the stick: the
    captured map carries the file's opfunc, so annotate writes all six files of a softmax and an
    amax, each byte for byte the hand-written file of testdata/capture-reductions. A prepared
    kernel thrown away (late-2026 scheduling) and a kernel compiled to KTIR in the same compile
    change nothing: the KTIR kernel is left out and counted, its directory left alone."""
    expected = expected_reduction_files()
    variants = [("mid-2026", []), ("late-2026", []),
                ("late-2026", ["--discard-prepared", "--ktir-kernel"])]
    maps = []
    for layout, flags in variants:
        with TempDir() as tmp:
            cache, out = os.path.join(tmp, "cache"), os.path.join(tmp, "origins.json")
            p = capture(out, [REDUCTIONS_COMPILE, *flags],
                        env=compile_env(cache, FAKE_TORCH_SPYRE_LAYOUT=layout))
            assert p.returncode == 0, p.stderr
            left_out = " (1 kernel left out: compiled to KTIR, which writes no SDSC files)" \
                if "--ktir-kernel" in flags else ""
            assert our_lines(p.stderr) == [
                f"{PREFIX} wrote {out}: 2 kernels, 6 OpSpecs, 6 FX nodes{left_out}"], (layout, flags, p.stderr)
            compiled = dict(line.split() for line in p.stdout.splitlines())
            m = load(out)
            assert validate(m, SCHEMA) == []
            assert [[op["opfunc"] for op in k["ops"]] for k in m["kernels"]] == [
                ["maxnonstick", "sub", "exp", "sumnonstick", "realdiv"], ["max"]], m["kernels"]
            maps.append([{key: v for key, v in k.items() if key != "dir"} for k in m["kernels"]] + [m["nodes"]])

            ktir_dir = os.path.join(cache, compiled.get("ktir_fused_neg_2", "none"))
            ktir_before = tree(ktir_dir) if "--ktir-kernel" in flags else None
            run("annotate", "--origins", out, cache, check_rc=0)
            totals = scan(cache)["totals"]
            assert (totals["handles_populated"], totals["handles_absent"]) == (6, 0), totals
            written = {(name, os.path.basename(f)): read(f) for name, d in compiled.items()
                       for f in sdsc_files(os.path.join(cache, d))}
            assert written.keys() == expected.keys(), (layout, flags, sorted(written))
            for key, data in written.items():
                assert data == expected[key], (layout, flags, key, data.decode()[:400])
            if ktir_before is not None:
                assert list(ktir_before) == ["ktir_fused_neg_2.ktir"] and tree(ktir_dir) == ktir_before
    assert maps[0] == maps[1] == maps[2], maps

    with TempDir() as tmp:  # TORCH_SPYRE_KTIR=1: every kernel is a KTIR one, and none is mapped
        cache, out = os.path.join(tmp, "cache"), os.path.join(tmp, "origins.json")
        p = capture(out, [REDUCTIONS_COMPILE], env=compile_env(
            cache, FAKE_TORCH_SPYRE_LAYOUT="late-2026", TORCH_SPYRE_KTIR="1"))
        assert p.returncode == 0 and p.stdout.count(" inductor-spyre/") == 2, p
        assert our_lines(p.stderr) == [
            f"{PREFIX} wrote {out}: 0 kernels, 0 OpSpecs, 0 FX nodes "
            "(2 kernels left out: compiled to KTIR, which writes no SDSC files)"], p.stderr
        assert load(out)["kernels"] == [] and sdsc_files(cache) == []


def test_two_compiles_in_one_process_make_one_map():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        dirs = demo_cache(cache, extra_suffix="r2x9k4mz")
        out = os.path.join(tmp, "origins.json")
        p = capture(out, [FAKE_COMPILE, "--compiles", "2"], env=compile_env(cache, dirs))
        assert p.returncode == 0, p.stderr
        assert our_lines(p.stderr) == [f"{PREFIX} wrote {out}: 4 kernels, 10 OpSpecs, 7 FX nodes"], p.stderr
        m = load(out)
        assert validate(m, SCHEMA) == []
        assert [(k["name"], k["dir"]) for k in m["kernels"]] == [
            (name, d) for i in range(2) for name, ds in dirs.items() for d in ds[i:i + 1]], m["kernels"]
        run("annotate", "--origins", out, cache, check_rc=0)
        assert scan(cache)["totals"]["handles_populated"] == 10
        handles = handles_by_dir(cache)
        for name, (first, second) in dirs.items():
            for (d, f), h in handles.items():
                if d == first:
                    assert h is not None and h == handles[(second, f)], (name, f)


def test_late_layout_and_persistent_kernel_cache():
    """late-2026: the kernel cache compiles into <key>.tmp.<uuid> and renames it to <key>; the map
    names the final directory. A transformation history recorded by torch-spyre is kept."""
    with TempDir() as tmp:
        cache, reference = os.path.join(tmp, "cache"), os.path.join(tmp, "reference")
        os.makedirs(cache)
        demo_cache(reference)
        out = os.path.join(tmp, "origins.json")
        env = compile_env(cache, FAKE_TORCH_SPYRE_LAYOUT="late-2026", SPYRE_KERNEL_CACHE="1")
        p = capture(out, [FAKE_COMPILE, "--transform-history"], env=env)
        assert p.returncode == 0, p.stderr
        assert our_lines(p.stderr) == [f"{PREFIX} wrote {out}: 2 kernels, 5 OpSpecs, 7 FX nodes"], p.stderr
        m = load(out)
        assert validate(m, SCHEMA) == []
        root = os.path.join(cache, "inductor-spyre-cache")
        assert sorted(k["dir"] for k in m["kernels"]) == sorted(os.listdir(root))
        assert all(len(k["dir"]) == 64 and k["name"] not in k["dir"] for k in m["kernels"])

        run("annotate", "--origins", out, cache, check_rc=0)
        run("annotate", "--origins", DEMO_MAP, reference, check_rc=0)
        assert scan(cache)["totals"]["handles_populated"] == 5
        ours, theirs = handles_by_dir(cache), handles_by_dir(reference)
        kernel_of = {k["dir"]: k["name"] for k in m["kernels"]}
        assert len(ours) == 5
        for (d, f), handle in ours.items():
            expected = dict(theirs[(DEMO_DIRS[kernel_of[d]], f)])
            if handle["ir_chain"][-1] == "op2":  # relufwd: the rewrite torch-spyre recorded
                expected["transform_history"] = [
                    {"kind": "rewrite", "pass_name": "insert_restickify", "reason": None}]
            assert handle == expected, (d, f, handle, expected)


def test_without_torch_or_torch_spyre_the_script_runs_unchanged():
    """Acceptance 2, first half: one line says why, and the script's output and status are its own."""
    with TempDir() as tmp:
        only_torch = os.path.join(tmp, "site")
        shutil.copytree(os.path.join(FAKE_SITE, "torch"), os.path.join(only_torch, "torch"))
        no_torch = "torch"
        if python(["-c", "import torch"], site=None).returncode == 0:
            no_torch = "torch_spyre"  # a machine with the real torch
        off = "is not installed (not importable); capture is off, no origins map will be written"
        cases = [(None, f"{no_torch} {off}"), (only_torch, f"torch_spyre {off}"),
                 (FAKE_SITE, "torch_spyre was never imported, so nothing was compiled for Spyre; "
                             "no origins map written")]
        args = [PLAIN_SCRIPT, "--exit-status", "3", "a b"]
        for site, line in cases:
            alone = python(args, site=site)
            assert alone.returncode == 3 and "name: __main__" in alone.stdout, alone
            out = os.path.join(tmp, "origins.json")
            p = capture(out, args, site=site)
            assert (p.returncode, p.stdout, others(p.stderr)) == (3, alone.stdout, others(alone.stderr)), p
            assert our_lines(p.stderr) == [f"{PREFIX} {line}"], p.stderr
            assert not os.path.exists(out)


def test_start_and_stop_inside_a_script():
    """sdscprov_capture.start() in the script itself; stop() writes the map at once, and what is
    compiled after it is not captured."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        dirs = demo_cache(cache, extra_suffix="r2x9k4mz")
        out = os.path.join(tmp, "origins.json")
        script = os.path.join(tmp, "compile_twice.py")
        with open(script, "w") as f:
            f.write(f"""import json, sys
sys.path.insert(0, {CAPTURE_DIR!r})
import sdscprov_capture
assert sdscprov_capture.start({out!r})
import fake_simplemlp_compile as mlp
mlp.compile_once(mlp.parse_args([]))
sdscprov_capture.stop()
print("kernels in the map:", len(json.load(open({out!r}))["kernels"]))
mlp.compile_once(mlp.parse_args([]))
""")
        p = python([script], env=compile_env(cache, dirs))
        assert p.returncode == 0, p.stderr
        assert "kernels in the map: 2" in p.stdout, p.stdout
        assert our_lines(p.stderr) == [f"{PREFIX} wrote {out}: 2 kernels, 5 OpSpecs, 7 FX nodes"], p.stderr
        assert [k["dir"] for k in load(out)["kernels"]] == [ds[0] for ds in dirs.values()]
        run("annotate", "--origins", out, cache, check_rc=0)
        totals = scan(cache)["totals"]
        assert (totals["handles_populated"], totals["handles_absent"]) == (5, 5), totals


def test_renamed_hook_function_leaves_the_compile_unchanged():
    """Acceptance 2, second half: torch-spyre without SpyreKernel.create_op_spec (renamed): one
    line names it; the compile makes the same directories and output, with the same status."""
    with TempDir() as tmp:
        site = os.path.join(tmp, "site")
        shutil.copytree(FAKE_SITE, site)
        kernel_py = os.path.join(site, "torch_spyre", "_inductor", "spyre_kernel.py")
        with open(kernel_py) as f:
            text = f.read()
        assert "def create_op_spec(" in text
        with open(kernel_py, "w") as f:
            f.write(text.replace("create_op_spec(", "build_op_spec("))
        with_capture, without = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        dirs = demo_cache(with_capture)
        demo_cache(without)
        args = [FAKE_COMPILE, "--exit-status", "3"]
        alone = python(args, site=site, env=compile_env(without, dirs))
        out = os.path.join(tmp, "origins.json")
        p = capture(out, args, site=site, env=compile_env(with_capture, dirs))
        assert alone.returncode == 3 and alone.stdout.count("inductor-spyre/") == 2, alone
        assert (p.returncode, p.stdout, others(p.stderr)) == (3, alone.stdout, others(alone.stderr)), p
        assert our_lines(p.stderr) == [
            f"{PREFIX} cannot capture: torch_spyre._inductor.spyre_kernel has no function "
            "SpyreKernel.create_op_spec (hook points found so far: SpyreKernel.call_kernel); "
            "the script runs on without capture, no origins map will be written"], p.stderr
        assert not os.path.exists(out)
        assert tree(with_capture) == tree(without)

        check = python(["-m", "sdscprov_capture", "--check"], site=site)
        assert check.returncode == 1, check
        assert "MISSING  SpyreKernel.create_op_spec: torch_spyre._inductor.spyre_kernel has no " \
               "function SpyreKernel.create_op_spec" in check.stdout, check.stdout
        check = python(["-m", "sdscprov_capture", "--check"])
        assert check.returncode == 0 and check.stdout.count("found ") == 7, check.stdout


def test_capture_failure_warns_once_and_the_compile_goes_on():
    """An FX node whose meta cannot be read, in both compiles: one warning; the kernel that needs
    it is left out, the other is captured; the compile's output and status are unchanged."""
    with TempDir() as tmp:
        with_capture, without = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        dirs = demo_cache(with_capture, extra_suffix="r2x9k4mz")
        demo_cache(without, extra_suffix="r2x9k4mz")
        args = [FAKE_COMPILE, "--compiles", "2", "--broken-meta", "add_tensor"]
        alone = python(args, env=compile_env(without, dirs))
        out = os.path.join(tmp, "origins.json")
        p = capture(out, args, env=compile_env(with_capture, dirs))
        assert alone.returncode == 0, alone.stderr
        assert (p.returncode, p.stdout, others(p.stderr)) == (0, alone.stdout, others(alone.stderr)), p
        assert our_lines(p.stderr) == [
            f"{PREFIX} warning: capture failed in SpyreKernel.create_op_spec (RuntimeError: meta of "
            "add_tensor is unavailable); the compile goes on, the kernels concerned are left out "
            "of the origins map",
            f"{PREFIX} wrote {out}: 2 kernels, 8 OpSpecs, 6 FX nodes "
            "(2 kernels left out: capture error)"], p.stderr
        assert [k["name"] for k in load(out)["kernels"]] == ["sdsc_fused_addmm_linear_relu_0"] * 2
        run("annotate", "--origins", out, with_capture, check_rc=0)
        totals = scan(with_capture)["totals"]
        assert (totals["handles_populated"], totals["handles_absent"]) == (8, 2), totals


def tree(root):
    return {os.path.relpath(p, root): read(p) for p in glob.glob(os.path.join(root, "**"), recursive=True)
            if os.path.isfile(p)}


if __name__ == "__main__":
    main([test_units, test_captured_map_annotates_the_demo_cache_like_the_audit_map,
          test_reductions_annotate_every_file_as_derived_by_hand,
          test_two_compiles_in_one_process_make_one_map, test_late_layout_and_persistent_kernel_cache,
          test_without_torch_or_torch_spyre_the_script_runs_unchanged, test_start_and_stop_inside_a_script,
          test_renamed_hook_function_leaves_the_compile_unchanged,
          test_capture_failure_warns_once_and_the_compile_goes_on])
