"""End-to-end: `sdscprov annotate` writes debug_handle_ exactly, safely, and only where it should."""
import glob
import json
import re
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, SHARED_CORPUS, SKIP, TESTDATA, TempDir, copy_tree, generate, main, run, sdsc_files, snapshot  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")


def annotate_json(*args, rc=0):
    code, out, err = run("annotate", "--format", "json", *args, check_rc=rc)
    return json.loads(out)


def test_demo_annotated_then_nothing_to_do():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        report = annotate_json("--origins", DEMO_MAP, cache)
        a = report["totals"]["annotate"]
        assert (a["added"], a["written"], a["lacking"], a["kernels_matched"]) == (5, 5, 0, 2), a
        scanned = json.loads(run("scan", "--format", "json", cache, check_rc=0)[1])
        assert scanned["totals"]["handles_populated"] == 5
        assert scanned["superdsc_json"]["members"]["debug_handle_"]["coverage"] == "all"
        handles = {os.path.basename(f["path"]) + ":" + k["kernel"]: f["debug_handle"]
                   for k in scanned["kernels"] for f in k["files"]}
        mm = handles["sdsc_0.json:sdsc_fused_addmm_linear_relu_0"]
        # op0: origins mm_default_1 + permute, origin_node mm_default_1 (no trace): the source is
        # the one the origins agree on, permute's innermost non-torch frame (fc1, line 18).
        assert mm["source"]["file"] == "/workspace/simple_mlp.py" and mm["source"]["start_line"] == 18, mm
        assert mm["aten_op"] == "aten.mm.default"
        assert mm["ir_chain"] == ["mm_default_1", "permute", "op0"]
        assert [c["ir_chain"] for c in mm["fused_from"]] == [["mm_default_1"], ["permute"]]
        assert handles["sdsc_2.json:sdsc_fused_addmm_linear_relu_0"]["source"]["start_line"] == 19
        assert handles["sdsc_1.json:sdsc_fused_addmm_linear_relu_0"]["source"] is None

        before = snapshot(cache)
        report = annotate_json("--origins", DEMO_MAP, cache)
        a = report["totals"]["annotate"]
        assert (a["written"], a["kept"], a["lacking"]) == (0, 5, 0), a
        assert snapshot(cache) == before, "second run changed bytes, modes or mtimes"


def test_kernels_without_directory_are_named_then_counted():
    """A sidecar of a whole model against a few of its directories: the first 20 of its kernels
    with no directory are named, one note counts the rest, from the 21st kernel on."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        for extra, named in ((21, 21), (22, 20), (120, 20)):
            big = os.path.join(tmp, f"map{extra}.json")
            subprocess.run([sys.executable, os.path.join(SCRIPTS, "gen_big_map.py"), DEMO_MAP, big,
                            "--kernels", str(2 + extra)], check=True, capture_output=True)
            with open(big) as f:
                kernels = [k["name"] for k in json.load(f)["kernels"]][2:]
            report = annotate_json("--dry-run", "--origins", big, cache)
            notes = [p for p in report["problems"] if p["code"] == "kernel-without-dir"]
            assert [p["message"].split("'")[1] for p in notes[:named]] == kernels[:named], notes
            assert all(p["message"].endswith("has no directory in the caches given") for p in notes[:named])
            if named == extra:
                assert len(notes) == extra, notes
                continue
            assert len(notes) == named + 1, notes
            rest = notes[named]
            assert rest["message"] == (f"{extra - named} more kernels of this sidecar (from kernel "
                                       f"'{kernels[named]}' on) have no directory in the caches given"), rest
            assert rest["severity"] == "note" and rest["path"] == big and rest["line"] >= 1, rest
            assert report["totals"]["annotate"]["kernels_matched"] == 2, report["totals"]


def test_strip_then_annotate_gives_the_same_bytes():
    """Fidelity on files of our own making: an annotated file, with its handle removed or nulled
    the way json.dump would have written it, annotates back to the same bytes."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        annotated = {p: open(p, "rb").read() for p in sdsc_files(cache)}
        for i, (path, data) in enumerate(sorted(annotated.items())):
            obj = json.loads(data)
            op = next(iter(obj.values()))
            if i % 2:
                del op["debug_handle_"]
            else:
                op["debug_handle_"] = None
            stripped = json.dumps(obj, indent=2).encode()
            assert stripped != data
            open(path, "wb").write(stripped)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        for path, data in annotated.items():
            assert open(path, "rb").read() == data, path


def test_independent_python_derivation_agrees():
    """scripts/py_annotate_baseline.py derives handles from the map with its own code (the
    derivation of docs/formats.md in Python, json.dump to write): on the demo it must produce the
    same bytes."""
    with TempDir() as tmp:
        ours = os.path.join(tmp, "ours")
        theirs = os.path.join(tmp, "theirs")
        copy_tree(DEMO, ours)
        copy_tree(DEMO, theirs)
        run("annotate", "--origins", DEMO_MAP, ours, check_rc=0)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(DEMO), "..", "scripts",
                                                     "py_annotate_baseline.py"),
                        "--origins", DEMO_MAP, theirs], check=True, capture_output=True)
        a = sdsc_files(ours)
        assert len(a) == 5
        for path in a:
            other = os.path.join(theirs, os.path.relpath(path, ours))
            assert open(path, "rb").read() == open(other, "rb").read(), path


def test_generated_cache_restored_byte_for_byte():
    """A generated cache whose handles torch-spyre-style were stripped (null or removed) is
    annotated back from the generator's origins map: every stripped file in a mapped directory
    equals its original, and the totals are the generator's prediction."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        originals = os.path.join(tmp, "originals")
        mp = os.path.join(tmp, "origins.json")
        manifest = generate(cache, 400, "--layout", "mixed", "--seed", "11", "--origins-map", mp,
                            "--strip-to", "mixed", "--keep-originals", originals)
        report = annotate_json("--origins", mp, cache, "-j", "2")
        expected = manifest["origins"]["expected_after_annotate"]
        scanned = json.loads(run("scan", "--format", "json", cache, check_rc=0)[1])["totals"]
        got = {k: scanned["handles_" + k] for k in ("populated", "null", "absent")}
        assert got == expected, (got, expected)
        a = report["totals"]["annotate"]
        assert a["kernels_not_in_map"] == manifest["origins"]["kernels_not_in_map"], a
        assert a["no_origin"] == manifest["origins"]["no_origin_files"], a
        restored = 0
        in_map = {d["dir"] for d in manifest["kernel_dirs"] if d["in_map"]}
        for path in sdsc_files(originals):
            rel = os.path.relpath(path, originals)
            kdir = os.path.relpath(os.path.dirname(path), originals)
            if kdir.endswith("/execute/" + os.path.basename(kdir)):
                kdir = os.path.dirname(os.path.dirname(kdir))
            data = open(path, "rb").read()
            if kdir in in_map and b'"debug_handle_": {' in data:
                assert open(os.path.join(cache, rel), "rb").read() == data, rel
                restored += 1
        assert restored > 50, restored
        again = annotate_json("--origins", mp, cache)
        assert again["totals"]["annotate"]["written"] == 0


def test_dry_run_check_and_diff_write_nothing():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        before = snapshot(cache)
        report = annotate_json("--dry-run", "--origins", DEMO_MAP, cache)
        assert report["totals"]["annotate"]["added"] == 5 and report["totals"]["annotate"]["written"] == 0
        rc, out, _ = run("annotate", "--check", "--origins", DEMO_MAP, cache, check_rc=1)
        rc, out, _ = run("annotate", "--check", "--diff", "--origins", DEMO_MAP, cache, check_rc=1)
        assert out.count("+++ b/") == 5, out[:2000]
        assert '+    "debug_handle_": {' in out
        assert snapshot(cache) == before, "a dry run changed something"
        assert not [f for f in os.listdir(os.path.join(cache, "inductor-spyre")) if "sdscprov" in f]
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        run("annotate", "--check", "--origins", DEMO_MAP, cache, check_rc=0)


def test_markdown_shows_the_state_after_writing_and_what_was_written():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        rc, dry, _ = run("annotate", "--dry-run", "--format", "markdown", "--origins", DEMO_MAP, cache,
                         check_rc=0)
        assert "`debug_handle_` if written: populated 5 of 5 SDSC documents (as read: populated 0," in dry, dry
        assert "- would write: `sdsc_0.json` (add), `sdsc_1.json` (add)," in dry, dry
        rc, md, _ = run("annotate", "--format", "markdown", "--origins", DEMO_MAP, cache, check_rc=0)
        assert "`debug_handle_` after this run: populated 5 of 5 SDSC documents (as read: populated 0," in md, md
        assert "written 5 (5 added, 0 filled, 0 refreshed, 0 stripped)" in md, md
        assert "| `debug_handle_` | \u2705 |" in md, md
        assert "- written: `sdsc_0.json` (add)\n" in md, md
        # Run again: everything is already right, nothing is written.
        rc, md, _ = run("annotate", "--format", "markdown", "--origins", DEMO_MAP, cache, check_rc=0)
        assert "after this run: populated 5 of 5 SDSC documents (as read: populated 5," in md, md
        assert "- written: nothing\n" in md and "written 0 (0 added" in md, md


def test_entry_placed_by_spec_path_annotates_exactly_its_ops():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        m = json.load(open(DEMO_MAP))
        relu = next(k for k in m["kernels"] if k["name"] == "sdsc_fused_addmm_linear_relu_0")
        ops = [dict(op) for op in relu["ops"]]
        # Only the relu OpSpec, at its place in the bundle: the third sdsc_execute.
        relu["ops"] = [dict(ops[2], spec_path=[2])]
        mp = os.path.join(tmp, "some.json")
        json.dump(m, open(mp, "w"), indent=1)
        kdir = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_linear_relu_0_q7k2m_x4")
        before = snapshot(kdir)
        report = annotate_json("--origins", mp, cache)
        files = next(k for k in report["kernels"] if k["kernel"] == relu["name"])["files"]
        assert [f["action"] for f in files] == ["no-op", "no-op", "add", "no-op"], files
        after = snapshot(kdir)
        changed = sorted(rel for rel in after if after[rel][0] != before[rel][0])
        assert changed == ["sdsc_2.json"], changed
        # The same bytes as the full map gives that file.
        full = os.path.join(tmp, "full")
        copy_tree(DEMO, full)
        annotate_json("--origins", DEMO_MAP, full)
        fkdir = os.path.join(full, "inductor-spyre", "sdsc_fused_addmm_linear_relu_0_q7k2m_x4")
        assert open(os.path.join(kdir, "sdsc_2.json"), "rb").read() == \
            open(os.path.join(fkdir, "sdsc_2.json"), "rb").read()
        # Ops with and without spec_path in one entry: an error at the op, nothing written.
        relu["ops"] = [dict(ops[2], spec_path=[2]), dict(ops[3])]
        json.dump(m, open(mp, "w"), indent=1)
        rc, out, err = run("annotate", "--origins", mp, cache, check_rc=2)
        assert re.search(re.escape(mp) + r":\d+:\d+: error: kernels\[\d\]\.ops\[1\] has no 'spec_path' but", err), err
        assert snapshot(kdir) == after


def test_bad_origins_map_changes_nothing():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        before = snapshot(cache)
        text = open(DEMO_MAP).read().replace('"origin_node": "relu"', '"orign_node": "relu"', 1)
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write(text)
        line = text[:text.index('"orign_node"')].count("\n") + 1
        col = len(text[:text.index('"orign_node"')].rsplit("\n", 1)[-1]) + 1
        rc, out, err = run("annotate", "--origins", bad, cache, check_rc=2)
        assert f"{bad}:{line}:{col}: error: unknown member 'orign_node'" in err, err
        open(bad, "w").write(text[: len(text) // 2])
        rc, out, err = run("annotate", "--origins", bad, cache, check_rc=2)
        assert "unexpected end of input" in err, err
        rc, out, err = run("annotate", "--origins", os.path.join(tmp, "missing.json"), cache, check_rc=2)
        assert snapshot(cache) == before


def test_ambiguous_unmatched_and_mismatched_kernels_are_left_alone():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        copy_tree(DEMO, cache)
        spyre = os.path.join(cache, "inductor-spyre")
        # A recompile of the relu kernel: the same kernel name in a second directory.
        shutil.copytree(os.path.join(spyre, "sdsc_fused_addmm_linear_relu_0_q7k2m_x4"),
                        os.path.join(spyre, "sdsc_fused_addmm_linear_relu_0_zz9yy8xx"))
        m = json.load(open(DEMO_MAP))
        for k in m["kernels"]:
            del k["dir"]
        m["kernels"][1]["ops"][0]["opfunc"] = "mul"  # sdsc_fused_addmm_1's file is an add
        mp = os.path.join(tmp, "map.json")
        json.dump(m, open(mp, "w"))
        before = snapshot(cache)
        report = annotate_json("--origins", mp, cache)
        a = report["totals"]["annotate"]
        assert (a["written"], a["kernels_ambiguous"], a["opfunc_mismatch"], a["lacking"]) == (0, 2, 1, 9), a
        codes = sorted(p["code"] for p in report["problems"])
        assert codes == ["ambiguous-kernel", "ambiguous-kernel"], codes
        assert snapshot(cache) == before
        rc, text, _ = run("annotate", "--all", "--origins", mp, cache, check_rc=0)
        assert "  lacking: 4 x 2 directories carry this kernel name" in text, text
        assert "  lacking: 1 x opfunc differs from the map's op" in text, text
        # By default: the kernels, each once, with why their files still lack provenance.
        rc, text, _ = run("annotate", "--origins", mp, cache, check_rc=0)
        assert "2 kernels (3 directories) still lack provenance" in text, text
        assert "       8 x 2 directories carry this kernel name" in text, text


def test_stale_handle_reported_then_refreshed_and_mode_kept():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        m = json.load(open(DEMO_MAP))
        m["nodes"]["add_tensor"]["original_aten"] = "aten.add.Scalar"  # another compile
        mp = os.path.join(tmp, "other.json")
        json.dump(m, open(mp, "w"))
        target = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e", "sdsc_0.json")
        os.chmod(target, 0o640)
        before = open(target, "rb").read()
        report = annotate_json("--origins", mp, cache)
        assert report["totals"]["annotate"]["differs"] == 1 and report["totals"]["annotate"]["written"] == 0
        assert open(target, "rb").read() == before
        # --check is the gate for goldens: a handle other than the map's fails it (exit 1), with
        # or without --refresh, and nothing is written.
        rc, out, err = run("annotate", "--check", "--origins", mp, cache, check_rc=1)
        assert "stale-handle" in err, err
        run("annotate", "--check", "--refresh", "--origins", mp, cache, check_rc=1)
        assert open(target, "rb").read() == before
        report = annotate_json("--refresh", "--origins", mp, cache)
        assert report["totals"]["annotate"]["refreshed"] == 1 and report["totals"]["annotate"]["written"] == 1
        after = open(target, "rb").read()
        assert b'"aten_op": "aten.add.Scalar"' in after
        assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
        # Only the handle's value changed.
        assert after[:after.index(b'"debug_handle_"')] == before[:before.index(b'"debug_handle_"')]
        assert after[after.index(b'"sdscFoldProps_"'):] == before[before.index(b'"sdscFoldProps_"'):]


def test_unwritable_directory_is_reported_and_untouched():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        kdir = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")
        # root writes into read-only directories: an immutable directory stops root as well.
        if os.geteuid() == 0:
            lock = ["chattr", "+i", kdir]
            unlock = ["chattr", "-i", kdir]
        else:
            lock = ["chmod", "555", kdir]
            unlock = ["chmod", "755", kdir]
        if subprocess.run(lock, capture_output=True).returncode != 0:
            return SKIP  # no chattr, or a file system without the immutable attribute
        try:
            before = snapshot(kdir)
            rc, out, err = run("annotate", "--format", "json", "--origins", DEMO_MAP, cache, check_rc=2)
            report = json.loads(out)
            failed = [p for p in report["problems"] if p["code"] == "write-failed"]
            assert len(failed) == 1 and failed[0]["path"].startswith(kdir), report["problems"]
            assert report["totals"]["annotate"]["written"] == 4  # the other kernel's files
            assert snapshot(kdir) == before
        finally:
            subprocess.run(unlock, check=True)


def test_symlinked_file_is_never_written_through():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        kdir = os.path.join(cache, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")
        outside = os.path.join(tmp, "outside.json")
        shutil.move(os.path.join(kdir, "sdsc_0.json"), outside)
        os.symlink(outside, os.path.join(kdir, "sdsc_0.json"))
        before = open(outside, "rb").read()
        rc, out, _ = run("annotate", "--format", "json", "--origins", DEMO_MAP, cache, check_rc=2)
        report = json.loads(out)
        assert [p["code"] for p in report["problems"]] == ["write-failed"], report["problems"]
        assert "symbolic link" in report["problems"][0]["message"]
        assert os.path.islink(os.path.join(kdir, "sdsc_0.json"))
        assert open(outside, "rb").read() == before
        assert not [f for f in os.listdir(kdir) if "sdscprov" in f]
        assert report["totals"]["annotate"]["written"] == 4


def test_shared_corpus_fidelity_and_every_other_byte():
    if not os.path.isdir(SHARED_CORPUS):
        return SKIP
    original = open(os.path.join(SHARED_CORPUS, "spyre-cli", "add", "sdsc_0.json"), "rb").read()
    start = original.index(b'"debug_handle_"')
    end = original.index(b'"sdscFoldProps_"')
    variants = {"absent": original[:start] + original[end:],
                "null": original[:start] + b'"debug_handle_": null,\n    ' + original[end:]}
    origins = {"sdscprov_origins": 1,
               "nodes": {"add": {"original_aten": "aten.add.Tensor",
                                 "stack_trace": '  File "/home/senuser/compile_add.py", line 11, in <module>\n    z = x + y\n'}},
               "kernels": [{"name": "sdsc_fused_add_0", "dir": "add_kernel",
                            "ops": [{"opfunc": "add", "buffer": "buf0", "origins": ["add"], "origin_node": "add"}]}]}
    with TempDir() as tmp:
        mp = os.path.join(tmp, "origins.json")
        json.dump(origins, open(mp, "w"))
        for name, data in variants.items():
            kdir = os.path.join(tmp, name, "add_kernel")
            os.makedirs(kdir)
            path = os.path.join(kdir, "sdsc_0.json")
            open(path, "wb").write(data)
            run("annotate", "--origins", mp, kdir, check_rc=0)
            assert open(path, "rb").read() == original, f"{name}: not byte for byte torch-spyre's file"

        # swiglu (June 2026, no bundle.mlir): a map for its 9 ops; the diff is the inserted members.
        src = glob.glob(os.path.join(SHARED_CORPUS, "kernel-dirs", "swiglu-2026-06-22-inductor-spyre", "sdsc_*"))[0]
        kdir = os.path.join(tmp, "swiglu", os.path.basename(src))
        copy_tree(src, kdir)
        ops, nodes = [], {}
        for i in range(9):
            key = next(iter(json.load(open(os.path.join(kdir, f"sdsc_{i}.json")))))
            node = f"node_{i}"
            nodes[node] = {"original_aten": "aten.mul.Tensor",
                           "stack_trace": f'  File "/w/swiglu.py", line {40 + i}, in forward\n    y = f(x)\n'}
            ops.append({"opfunc": key.split("_", 1)[1], "buffer": f"buf{i}", "origins": [node], "origin_node": node})
        mp = os.path.join(tmp, "swiglu.json")
        json.dump({"sdscprov_origins": 1, "nodes": nodes,
                   "kernels": [{"name": "sdsc_fused_linear_mul_silu_split_with_sizes_0", "ops": ops}]}, open(mp, "w"))
        before = {p: open(p, "rb").read() for p in sdsc_files(kdir)}
        report = annotate_json("--origins", mp, os.path.dirname(kdir))
        assert report["totals"]["annotate"]["written"] == 9, report["totals"]
        for path, old in before.items():
            new = open(path, "rb").read()
            # The difference is one insertion right after the op object's '{': the member and
            # its comma, and not one other byte.
            brace = old.index(b"{", old.index(b'": '))
            inserted = new[brace + 1:brace + 1 + len(new) - len(old)]
            assert new == old[:brace + 1] + inserted + old[brace + 1:], path
            assert inserted.startswith(b'\n    "debug_handle_": {') and inserted.endswith(b"},"), inserted[:80]
            member = json.loads(b"{" + inserted.strip()[:-1] + b"}")["debug_handle_"]
            assert member["ir_chain"][-1].startswith("buf"), member


if __name__ == "__main__":
    main([test_demo_annotated_then_nothing_to_do, test_kernels_without_directory_are_named_then_counted,
          test_strip_then_annotate_gives_the_same_bytes,
          test_independent_python_derivation_agrees, test_generated_cache_restored_byte_for_byte,
          test_dry_run_check_and_diff_write_nothing,
          test_markdown_shows_the_state_after_writing_and_what_was_written,
          test_entry_placed_by_spec_path_annotates_exactly_its_ops,
          test_bad_origins_map_changes_nothing,
          test_ambiguous_unmatched_and_mismatched_kernels_are_left_alone,
          test_stale_handle_reported_then_refreshed_and_mode_kept,
          test_unwritable_directory_is_reported_and_untouched,
          test_symlinked_file_is_never_written_through,
          test_shared_corpus_fidelity_and_every_other_byte])
