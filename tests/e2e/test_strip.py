"""End-to-end: `sdscprov strip` sets debug_handle_ to null or removes it, touching no other byte."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SHARED_CORPUS, SKIP, TESTDATA, TempDir, copy_tree, main, run, sdsc_files, snapshot  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")


def contents(root):
    return {os.path.relpath(p, root): open(p, "rb").read() for p in sdsc_files(root)}


def test_demo_round_trips_and_null_is_as_json_dump_writes_it():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        original = contents(cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        annotated = contents(cache)
        assert annotated != original

        # strip: the handle becomes null, as json.dump(indent=2) writes a None member.
        rc, out, err = run("strip", cache, check_rc=0)
        assert "stripped: 5 files (set to null)" in out, out
        for rel, data in annotated.items():
            obj = json.loads(data)
            next(iter(obj.values()))["debug_handle_"] = None
            assert contents(cache)[rel] == json.dumps(obj, indent=2).encode(), rel
        # Nothing left to strip: a second run writes nothing.
        before = snapshot(cache)
        rc, out, _ = run("strip", cache, check_rc=0)
        assert "stripped: 0 files" in out and snapshot(cache) == before

        # annotate fills the nulls back; strip --remove gives the original bytes.
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        assert contents(cache) == annotated
        run("strip", "--remove", cache, check_rc=0)
        assert contents(cache) == original


def test_dry_run_check_and_json_write_nothing():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        run("annotate", "--origins", DEMO_MAP, cache, check_rc=0)
        before = snapshot(cache)
        # With --diff the diffs are the output; the summary goes to standard error.
        rc, out, err = run("strip", "--dry-run", "--diff", cache, check_rc=0)
        assert "would strip: 5 files" in err and out.count('-    "debug_handle_": {') == 5, out
        assert "would strip" not in out, out
        rc, out, err = run("strip", "-q", "--dry-run", "--diff", cache, check_rc=0)
        assert out.count('-    "debug_handle_": {') == 5 and err == "", (out, err)
        run("strip", "--check", cache, check_rc=1)
        rc, out, _ = run("strip", "--dry-run", "--format", "json", "--remove", cache, check_rc=0)
        report = json.loads(out)
        assert report["command"] == "strip"
        assert report["totals"]["annotate"]["stripped"] == 5
        assert [f["action"] for k in report["kernels"] for f in k["files"]] == ["remove"] * 5
        assert snapshot(cache) == before
        run("strip", "--format", "markdown", cache, check_rc=2)


def test_bad_files_and_duplicate_handles_are_left_alone():
    with TempDir() as tmp:
        kdir = os.path.join(tmp, "k_aaaaaaaa")
        os.makedirs(kdir)
        twice = '{\n  "0_add": {\n    "debug_handle_": null,\n    "debug_handle_": null,\n    "x": 1\n  }\n}'
        open(os.path.join(kdir, "sdsc_0.json"), "w").write(twice)
        open(os.path.join(kdir, "sdsc_1.json"), "w").write('{"1_add": {"debug_handle_": {')
        before = snapshot(tmp)
        rc, out, err = run("strip", "--remove", kdir)
        assert rc == 2, (rc, err)  # the truncated file is bad input
        assert "sdsc_1.json:1:" in err, err
        assert snapshot(tmp) == before  # the duplicate handle was not touched either


def scan_map(root):
    """An origins map that gives every SDSC file under root a handle: one entry per kernel
    directory (matched by its exact name), ops in file-index order, one made-up node each."""
    report = json.loads(run("scan", "--format", "json", root)[1])
    nodes, kernels = {}, []
    for k in report["kernels"]:
        files = [f for f in k["files"] if f["status"] == "ok" and f["index"] is not None]
        if [f["index"] for f in files] != list(range(len(files))) or len(files) != len(k["files"]):
            continue
        ops = []
        for f in files:
            node = f"n{len(nodes)}"
            nodes[node] = {"original_aten": f"aten.{f['opfunc']}.default",
                           "stack_trace": f'  File "/w/model.py", line {len(nodes)}, in forward\n    y = f(x)\n'}
            ops.append({"opfunc": f["opfunc"], "buffer": f"buf{f['index']}", "origins": [node]})
        kernels.append({"name": k["kernel"] or "sdsc_unknown_0", "dir": os.path.basename(k["dir"]), "ops": ops})
    return {"sdscprov_origins": 1, "nodes": nodes, "kernels": kernels}


def test_corpus_strip_annotate_strip_round_trips():
    """Issue 6: strip, then annotate, then strip gives back the first strip's bytes, for every
    SDSC file of the shared corpus (copies), with --remove and with null."""
    if not os.path.isdir(SHARED_CORPUS):
        return SKIP
    with TempDir() as tmp:
        mp = os.path.join(tmp, "origins.json")
        for mode in (["--remove"], []):
            cache = os.path.join(tmp, "corpus" + "".join(mode))
            copy_tree(SHARED_CORPUS, cache)
            original = contents(cache)
            run("strip", *mode, cache)  # some corpus files are not SDSC documents: exit 2 is fine
            first = contents(cache)
            if mode:
                # Files without a handle are untouched by strip --remove.
                held = [r for r, d in original.items() if b'"debug_handle_"' in d]
                assert all(first[r] == original[r] for r in original if r not in held)
                assert held and all(first[r] != original[r] for r in held)
            json.dump(scan_map(cache), open(mp, "w"))
            report = json.loads(run("annotate", "--format", "json", "--origins", mp, cache)[1])
            written = report["totals"]["annotate"]["written"]
            assert written >= len(original) // 2, (written, len(original))
            assert contents(cache) != first
            run("strip", *mode, cache)
            after = contents(cache)
            if mode:
                assert after == first
            else:
                # null: files that had a member come back to the first strip's bytes; files that
                # had none now hold "debug_handle_": null (torch-spyre's convention), nothing else.
                had = {r for r, d in first.items() if b'"debug_handle_"' in d}
                assert had and all(after[r] == first[r] for r in had)
                for r in set(first) - had:
                    if after[r] != first[r]:
                        assert json.loads(after[r])[next(iter(json.loads(after[r])))]["debug_handle_"] is None


if __name__ == "__main__":
    main([test_demo_round_trips_and_null_is_as_json_dump_writes_it,
          test_dry_run_check_and_json_write_nothing,
          test_bad_files_and_duplicate_handles_are_left_alone,
          test_corpus_strip_annotate_strip_round_trips])
