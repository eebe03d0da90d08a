#!/usr/bin/env python3
"""annotate with torch-spyre's spyre_provenance.json and PyTorch's provenance mappings (issue 5):
the join by spec path, the reader's diagnostics, stale, lost and inconsistent handles, several
--origins files at once. The sidecar is testdata/spyre/ (scripts/gen_spyre_provenance.py), made
for the demo cache in testdata/demo."""
import copy
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (SCRIPTS, SHARED_CORPUS, SKIP, TESTDATA, TempDir, copy_tree, main, run,  # noqa: E402
                 sdsc_files, snapshot)

DEMO = os.path.join(TESTDATA, "demo")
SPYRE = os.path.join(TESTDATA, "spyre")
SIDECAR = os.path.join(SPYRE, "spyre_provenance.json")
MAIN_DIR = os.path.join("inductor-spyre", "sdsc_fused_addmm_linear_relu_0_q7k2m_x4")
TAIL_DIR = os.path.join("inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e")


def annotate_json(*args, rc=0):
    _, out, err = run("annotate", "--format", "json", *args, check_rc=rc)
    return json.loads(out), err


def expanded(doc, hid):
    """A sidecar handle with fused_from ids expanded, members in the order of docs/formats.md."""
    h = doc["handles"][hid]
    return {"id": h["id"], "source": h["source"], "aten_op": h["aten_op"], "ir_chain": h["ir_chain"],
            "fused_from": [expanded(doc, c) for c in h["fused_from"]],
            "transform_history": h["transform_history"]}


def bindings(doc, kernel):
    """spec path [i] -> expanded handle, for the kernel's identity (one identity per name here)."""
    occ = next(o for o in doc["kernelOccurrences"].values() if o["compilerKernelName"] == kernel)
    ident = doc["kernelIdentities"][occ["identityKey"]]
    return {tuple(b["specPath"]): expanded(doc, b["handleId"]) for b in ident["specHandleBindings"]}


def file_handle(path):
    doc = json.load(open(path))
    (op,) = doc.values()
    return op.get("debug_handle_", "absent")


def with_demo(tmp):
    cache = os.path.join(tmp, "cache")
    copy_tree(DEMO, cache)
    os.remove(os.path.join(cache, "origins.json"))
    return cache


def handle_id(h):
    text = json.dumps({"aten_op": h["aten_op"], "fused_from": [c["id"] for c in h["fused_from"]],
                       "ir_chain": h["ir_chain"], "source": h["source"], "version": 2},
                      sort_keys=True, separators=(",", ":"))
    return str(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1)


def test_each_bound_op_gets_its_handle_and_the_report_names_what_does_not_join():
    doc = json.load(open(SIDECAR))
    with TempDir() as tmp:
        cache = with_demo(tmp)
        # A directory the sidecar does not know.
        stranger = os.path.join(cache, "inductor-spyre", "sdsc_fused_mul_7_abcdefgh")
        copy_tree(os.path.join(cache, TAIL_DIR), stranger)
        report, _ = annotate_json("--origins", SIDECAR, cache)
        a = report["totals"]["annotate"]
        assert (a["added"], a["written"], a["kernels_matched"], a["kernels_not_in_map"]) == (5, 5, 2, 1), a
        for kernel, d in (("sdsc_fused_addmm_linear_relu_0", MAIN_DIR), ("sdsc_fused_addmm_1", TAIL_DIR)):
            for path, handle in bindings(doc, kernel).items():
                got = file_handle(os.path.join(cache, d, f"sdsc_{path[0]}.json"))
                assert got == handle, (kernel, path, got, handle)
        assert file_handle(os.path.join(stranger, "sdsc_0.json")) == "absent"
        by_dir = {os.path.basename(k["dir"]): k["annotate"] for k in report["kernels"]}
        assert by_dir["sdsc_fused_mul_7_abcdefgh"]["match"] == "not-in-map"
        notes = [p for p in report["problems"] if p["code"] == "kernel-without-dir"]
        assert len(notes) == 1 and "sdsc_fused_unknown_2" in notes[0]["message"], report["problems"]
        assert notes[0]["path"] == SIDECAR and notes[0]["line"] > 0, notes
        # Kernel-level upstream data from the sidecar's projection, in the report.
        up = by_dir[os.path.basename(MAIN_DIR)]["upstream"]
        assert up["keys"] == ["sdsc_fused_addmm_linear_relu_0:1"], up
        assert up["pre_grad_nodes"] == ["linear", "relu"], up
        # Text: the unknown directory and the kernel without one, by name.
        _, text, err = run("annotate", "--dry-run", "--origins", SIDECAR, cache, check_rc=0)
        assert "  sdsc_fused_mul_7\n" in text and "x kernel not in the origins map" in text, text
        assert "kernel 'sdsc_fused_unknown_2' (identity mlpemptycccccc47) has no directory" in text + err
        # Run again: nothing to do, and the written ids verify (no inconsistent-handle-id).
        again, _ = annotate_json("--origins", SIDECAR, cache)
        assert again["totals"]["annotate"]["kept"] == 5, again["totals"]
        assert not [p for p in again["problems"] if p["code"] == "inconsistent-handle-id"]


def test_the_early_draft_and_the_cache_replay_document_annotate_alike():
    with TempDir() as tmp:
        results = []
        for name in ("spyre_provenance.json", "early_draft.json", "cache_replay.json"):
            cache = os.path.join(tmp, name)
            copy_tree(DEMO, cache)
            annotate_json("--origins", os.path.join(SPYRE, name), cache)
            results.append([open(f, "rb").read() for f in sdsc_files(cache)])
        assert results[0] == results[1] == results[2]


def test_every_invalid_variant_gets_its_diagnostic_and_exit_2():
    with TempDir() as tmp:
        cache = with_demo(tmp)
        before = snapshot(cache)
        out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "sidecar_variants.py"), SPYRE,
                              os.path.join(tmp, "variants")], check=True, capture_output=True, text=True).stdout
        seen = 0
        for line in out.splitlines():
            name, diagnostic, path = line.split(" ", 2)
            if name == "valid":
                continue
            rc, _, err = run("annotate", "--origins", path, cache, check_rc=2)
            lines = [l for l in err.splitlines() if ": error: " in l]
            assert lines, (name, err)
            for l in lines:
                assert l.startswith(path + ":") and l.endswith(f"[{diagnostic}]"), (name, l)
                line_no, col = l[len(path) + 1:].split(":")[:2]
                assert int(line_no) > 0 and int(col) > 0, l
            seen += 1
        assert seen >= 8, out
        assert snapshot(cache) == before


def test_a_diagnostic_points_at_its_value_whatever_the_member_order():
    doc = json.load(open(SIDECAR))
    with TempDir() as tmp:
        # Projections in reverse key order, and a kernel of the later-sorted one renamed.
        projections = doc["upstreamProjections"]
        keys = sorted(projections)
        projections[keys[0]]["kernels"][0]["compilerKernelName"] = "sdsc_renamed_9"
        doc["upstreamProjections"] = {k: projections[k] for k in reversed(keys)}
        path = os.path.join(tmp, "reordered.json")
        text = json.dumps(doc, indent=2)
        open(path, "w").write(text)
        _, _, err = run("annotate", "--dry-run", "--origins", path, with_demo(tmp), check_rc=2)
        line = next(l for l in err.splitlines() if "'sdsc_renamed_9'" in l and "has no occurrence" in l)
        at = int(line[len(path) + 1:].split(":")[0])
        # The kernel entry's object opens on the line before its compilerKernelName.
        assert '"sdsc_renamed_9"' in text.splitlines()[at], (at, line)


def test_a_cache_hit_is_stale_and_refresh_fixes_it():
    doc = json.load(open(SIDECAR))
    with TempDir() as tmp:
        cache = with_demo(tmp)
        # Another compile of the same model: its handles point at other lines.
        other = copy.deepcopy(doc)
        renamed = {}
        for hid in sorted(other["handles"], key=lambda i: len(other["handles"][i]["fused_from"])):
            h = other["handles"][hid]
            if h["source"]:
                h["source"]["start_line"] += 100
            h["fused_from"] = [renamed[c] for c in h["fused_from"]]
            h["id"] = handle_id(dict(h, fused_from=[{"id": c} for c in h["fused_from"]]))
            renamed[hid] = h["id"]
        other["handles"] = {h["id"]: h for h in other["handles"].values()}
        for ident in other["kernelIdentities"].values():
            ident["directHandleIds"] = [renamed[i] for i in ident["directHandleIds"]]
            for b in ident["specHandleBindings"]:
                b["handleId"] = renamed[b["handleId"]]
        other_path = os.path.join(tmp, "other_compile.json")
        json.dump(other, open(other_path, "w"), indent=2, sort_keys=True)
        annotate_json("--origins", other_path, cache)
        before = snapshot(cache)

        report, _ = annotate_json("--origins", SIDECAR, cache)
        stale = sorted(p["path"] for p in report["problems"] if p["code"] == "stale-handle")
        assert stale == sdsc_files(cache), (stale, report["problems"])
        assert all(p["severity"] == "warning" and p["line"] > 0 for p in report["problems"]
                   if p["code"] == "stale-handle")
        assert report["totals"]["annotate"]["differs"] == 5, report["totals"]
        assert snapshot(cache) == before
        # check says it once per file, as a finding (exit 1).
        rc, out, err = run("check", "--origins", SIDECAR, cache, check_rc=1)
        assert (out + err).count("[stale-handle]") == 5, out + err

        report, _ = annotate_json("--refresh", "--origins", SIDECAR, cache)
        assert report["totals"]["annotate"]["refreshed"] == 5, report["totals"]
        assert not [p for p in report["problems"] if p["code"] == "stale-handle"]
        for path, handle in bindings(doc, "sdsc_fused_addmm_linear_relu_0").items():
            assert file_handle(os.path.join(cache, MAIN_DIR, f"sdsc_{path[0]}.json")) == handle


def test_deduplicated_ops_report_the_lost_handles():
    doc = json.load(open(SIDECAR))
    with TempDir() as tmp:
        cache = with_demo(tmp)
        d = os.path.join(cache, MAIN_DIR)
        # De-duplication: OpSpec 3 runs sdsc_0.json again (both batchmatmul); sdsc_3.json is gone.
        bundle = open(os.path.join(d, "bundle.mlir")).read()
        assert bundle.count('sdsc_filename="sdsc_3.json"') == 1
        open(os.path.join(d, "bundle.mlir"), "w").write(
            bundle.replace('sdsc_filename="sdsc_3.json"', 'sdsc_filename="sdsc_0.json"'))
        os.remove(os.path.join(d, "sdsc_3.json"))
        report, _ = annotate_json("--origins", SIDECAR, cache)
        k = next(k for k in report["kernels"] if k["dir"].endswith(MAIN_DIR))
        lost = k["annotate"]["lost"]
        want = bindings(doc, "sdsc_fused_addmm_linear_relu_0")
        assert len(lost) == 1 and lost[0]["spec_path"] == [3], lost
        assert lost[0]["handle"] == want[(3,)] and lost[0]["file"].endswith("sdsc_0.json"), lost
        # The file keeps the first OpSpec's handle (torch-spyre's rule).
        assert file_handle(os.path.join(d, "sdsc_0.json")) == want[(0,)]
        _, text, _ = run("annotate", "--dry-run", "--origins", SIDECAR, cache, check_rc=0)
        assert "1 de-duplicated OpSpec: their handles are held only in the sidecar (--all lists them)" in text, text
        _, text, _ = run("annotate", "--all", "--dry-run", "--origins", SIDECAR, cache, check_rc=0)
        assert "is held only in the sidecar" in text and want[(3,)]["id"] in text, text


def test_a_handle_whose_id_is_not_its_hash_is_a_warning_never_rewritten():
    with TempDir() as tmp:
        cache = with_demo(tmp)
        annotate_json("--origins", SIDECAR, cache)
        f = os.path.join(cache, TAIL_DIR, "sdsc_0.json")
        text = open(f).read()
        # Paths rewritten after the compile: the id no longer hashes the content.
        open(f, "w").write(text.replace("/home/user/simple_mlp.py", "/mnt/user/simple_mlp.py"))
        before = snapshot(cache)
        report, _ = annotate_json("--origins", SIDECAR, cache)
        bad = [p for p in report["problems"] if p["code"] == "inconsistent-handle-id"]
        assert [p["path"] for p in bad] == [f] and bad[0]["severity"] == "warning", report["problems"]
        assert snapshot(cache) == before


def test_several_origins_first_file_wins_and_conflicts_are_reported():
    with TempDir() as tmp:
        for order, winner in (((SIDECAR, os.path.join(DEMO, "origins.json")), "sidecar"),
                              ((os.path.join(DEMO, "origins.json"), SIDECAR), "map")):
            cache = with_demo(os.path.join(tmp, winner))
            args = [a for p in order for a in ("--origins", p)]
            report, _ = annotate_json(*args, cache)
            conflicts = [p for p in report["problems"] if p["code"] == "conflicting-origins"]
            assert len(conflicts) == 5 and all(p["severity"] == "warning" for p in conflicts), conflicts
            assert all(f"{order[0]}:" in p["message"] for p in conflicts)
            # The files hold exactly what the first file alone gives.
            ref = with_demo(os.path.join(tmp, winner + "-ref"))
            annotate_json("--origins", order[0], ref)
            assert [open(f, "rb").read() for f in sdsc_files(cache)] == \
                   [open(f, "rb").read() for f in sdsc_files(ref)]


def test_a_kernel_name_with_two_identities_is_ambiguous_unless_the_files_settle_it():
    doc = json.load(open(SIDECAR))
    # A third compile where sdsc_fused_addmm_1 is another bundle (another identity).
    h = {"id": "", "source": {"file": "/home/user/simple_mlp.py", "start_line": 99, "start_col": 0,
                              "end_line": None, "end_col": None},
         "aten_op": "aten.addmm.default", "ir_chain": ["addmm_9", "buf0"], "fused_from": [],
         "transform_history": []}
    h["id"] = handle_id(h)
    key, compile_c, occ = "mlpfcaddxxxxxxx5", "c" * 64, "d" * 64
    doc["handles"][h["id"]] = h
    doc["kernelIdentities"][key] = {"directHandleIds": [h["id"]],
                                    "specHandleBindings": [{"specPath": [0], "handleId": h["id"]}],
                                    "atenOps": ["aten.addmm.default"],
                                    "eventNameBase": f"spyre_kernel_v1_fused_addmm_{key}"}
    doc["kernelOccurrences"][occ] = {"identityKey": key, "compileId": compile_c,
                                     "compilerKernelName": "sdsc_fused_addmm_1", "registrations": []}
    level0 = next(p for p in doc["upstreamProjections"].values() if p["upstreamJoin"] != "ok")
    doc["upstreamProjections"][compile_c] = dict(
        copy.deepcopy(level0), kernels=[{"compilerKernelName": "sdsc_fused_addmm_1", "identityKey": key}])
    with TempDir() as tmp:
        two = os.path.join(tmp, "two_identities.json")
        json.dump(doc, open(two, "w"), indent=2, sort_keys=True)
        cache = with_demo(tmp)
        tail = os.path.join(cache, TAIL_DIR, "sdsc_0.json")
        # No handle in the file: nothing tells the two bundles apart; never guess.
        report, _ = annotate_json("--origins", two, cache)
        k = next(k for k in report["kernels"] if k["dir"].endswith(TAIL_DIR))["annotate"]
        assert k["match"] == "ambiguous" and "do not tell them apart" in k["detail"], k
        assert file_handle(tail) == "absent"
        assert [p["code"] for p in report["problems"] if p["path"].endswith(TAIL_DIR)] == ["ambiguous-kernel"]
        # The file holds the first compile's handle: that identity fits, the other contradicts it.
        annotate_json("--origins", SIDECAR, cache)
        held = file_handle(tail)
        report, _ = annotate_json("--origins", two, cache)
        k = next(k for k in report["kernels"] if k["dir"].endswith(TAIL_DIR))
        assert k["annotate"]["match"] == "matched" and "fits the files" in k["annotate"]["detail"], k
        assert k["files"][0]["action"] == "keep" and file_handle(tail) == held, k


def test_shards_merge_to_the_single_run_with_the_sidecar_notes():
    with TempDir() as tmp:
        cache = with_demo(tmp)
        for i in range(6):
            copy_tree(os.path.join(cache, TAIL_DIR), os.path.join(cache, "inductor-spyre", f"sdsc_fused_x_{i}_abcdefgh"))
        args = ("annotate", "--dry-run", "--diff", "--format", "json", "--origins", SIDECAR, cache)
        _, single, _ = run(*args, check_rc=0)
        assert "kernel-without-dir" in single
        shards = []
        for i in (1, 2, 3):
            path = os.path.join(tmp, f"shard{i}.json")
            _, out, _ = run(*args, "--shard", f"{i}/3", check_rc=0)
            open(path, "w").write(out)
            shards.append(path)
        _, merged, _ = run("merge", *shards, check_rc=0)
        assert merged == single


def test_upstream_mappings_are_kernel_level_only():
    with TempDir() as tmp:
        cache = with_demo(tmp)
        mappings = os.path.join(tmp, "inductor_provenance_tracking_node_mappings.json")
        json.dump({"version": 2.0, "preToPost": {"linear": ["addmm"]}, "postToPre": {"addmm": ["linear"]},
                   "cppCodeToPost": {"sdsc_fused_addmm_1:1": ["addmm"]},
                   "postToCppCode": {"addmm": ["sdsc_fused_addmm_1:1"]}}, open(mappings, "w"))
        before = snapshot(cache)
        report, _ = annotate_json("--origins", mappings, cache)
        assert report["totals"]["annotate"]["written"] == 0 and snapshot(cache) == before
        up = next(k for k in report["kernels"] if k["dir"].endswith(TAIL_DIR))["annotate"]["upstream"]
        assert up["keys"] == ["sdsc_fused_addmm_1:1"] and up["pre_grad_nodes"] == ["linear"], up


def test_spyre_cli_corpus_handles_verify_as_version_2():
    corpus = os.path.join(SHARED_CORPUS, "spyre-cli")
    if not os.path.isdir(corpus):
        return SKIP
    sys.path.insert(0, SCRIPTS)
    files = sdsc_files(corpus)
    assert files
    for f in files:
        h = file_handle(f)
        assert isinstance(h, dict) and handle_id(h) == h["id"], f
    # And sdscprov says the same: no inconsistent-handle-id for any of them.
    with TempDir() as tmp:
        cache = os.path.join(tmp, "c")
        copy_tree(corpus, cache)
        empty = os.path.join(tmp, "empty.json")
        json.dump({"sdscprov_origins": 1, "nodes": {}, "kernels": []}, open(empty, "w"))
        report, _ = annotate_json("--dry-run", "--origins", empty, cache)
        assert report["totals"]["handles_populated"] == len(files), report["totals"]
        assert not [p for p in report["problems"] if p["code"] == "inconsistent-handle-id"], report["problems"]


def deepened(doc, hid, links):
    """`doc` with handle `hid` fused from a chain of `links` new handles (ATen op null, so that the
    identities' ATen ops stay as they are); the new handles come first in the text."""
    chain = {}
    below = []
    for i in range(links):
        key = str(9000000000000000000 + i)
        chain[key] = {"id": key, "source": None, "aten_op": None, "ir_chain": [],
                      "fused_from": below, "transform_history": []}
        below = [key]
    doc["handles"][hid]["fused_from"] = doc["handles"][hid]["fused_from"] + below
    doc["handles"] = {**chain, **doc["handles"]}
    return doc


def test_a_fused_from_chain_too_deep_for_a_file_stops_the_run_before_any_write():
    """Catalogue: 'A fused_from chain too deep to write'. The handle of the last op of the second
    kernel directory is fused from a chain 600 handles deep: valid as a sidecar, but written into
    an SDSC file it nests past the 1024 levels a JSON parser takes. It is found when the sidecar is
    read: no file is written, not even those of the kernel directory walked first."""
    with TempDir() as tmp:
        cache = with_demo(tmp)
        doc = deepened(json.load(open(SIDECAR)), "8096268329099866000", 600)
        path = os.path.join(tmp, "deep.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        before = snapshot(cache)
        text = open(path).read()
        at = text.index('"8096268329099866000": {') + len('"8096268329099866000": ')
        line, col = text[:at].count("\n") + 1, at - text.rfind("\n", 0, at)  # at its '{'
        # 2 levels more per handle below it, the last of which nests 1 level of its own.
        message = ("handle '8096268329099866000' nests 1201 levels deep through fused_from: an SDSC "
                   "file holds at most 1021 (JSON nests at most 1024 levels, and the handle is 2 "
                   "levels in)")
        for args in (["annotate"], ["annotate", "--dry-run"], ["check"]):
            rc, out, err = run(*args, "--origins", path, cache)
            assert rc == 2, (args, rc, err[-2000:])
            assert f"{path}:{line}:{col}: error: {message} [semantic-validation-failure]" in err.splitlines(), err
            assert snapshot(cache) == before, args
        # 510 handles deep (1021 levels, the most there is room for) is written, and reads back.
        doc = deepened(json.load(open(SIDECAR)), "8096268329099866000", 510)
        with open(path, "w") as f:
            json.dump(doc, f)
        report, _ = annotate_json("--origins", path, cache)
        assert report["totals"]["annotate"]["written"] == 5, report["totals"]
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(10000)  # Python's json reads nesting by recursion
        try:
            got = file_handle(os.path.join(cache, MAIN_DIR, "sdsc_3.json"))
            assert got == expanded(doc, "8096268329099866000")
        finally:
            sys.setrecursionlimit(limit)


if __name__ == "__main__":
    main([
        test_each_bound_op_gets_its_handle_and_the_report_names_what_does_not_join,
        test_the_early_draft_and_the_cache_replay_document_annotate_alike,
        test_every_invalid_variant_gets_its_diagnostic_and_exit_2,
        test_a_diagnostic_points_at_its_value_whatever_the_member_order,
        test_a_cache_hit_is_stale_and_refresh_fixes_it,
        test_deduplicated_ops_report_the_lost_handles,
        test_a_handle_whose_id_is_not_its_hash_is_a_warning_never_rewritten,
        test_several_origins_first_file_wins_and_conflicts_are_reported,
        test_a_kernel_name_with_two_identities_is_ambiguous_unless_the_files_settle_it,
        test_shards_merge_to_the_single_run_with_the_sidecar_notes,
        test_upstream_mappings_are_kernel_level_only,
        test_spyre_cli_corpus_handles_verify_as_version_2,
        test_a_fused_from_chain_too_deep_for_a_file_stops_the_run_before_any_write,
    ])
