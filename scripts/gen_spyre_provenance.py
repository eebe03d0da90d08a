#!/usr/bin/env python3
"""Writes testdata/spyre/: a spyre_provenance.json (schema v1, docs/formats.md) for the demo
cache in testdata/demo (the SimpleMLP compile), its cache-replay twin, and the early-draft shape.

The documents are made here, not copied: two compiles of SimpleMLP, the second at provenance
level 0; kernel sdsc_fused_addmm_linear_relu_0 has the same identity in both (a repeated bundle
identity); one handle is fused from two constituents; one identity binds no handle; a kernel of the
second compile has no directory in the demo cache. Handle ids are real id-version-2 hashes
(docs/formats.md). Output as torch-spyre writes it: keys sorted, indent 2, trailing newline.

    python3 scripts/gen_spyre_provenance.py [OUT_DIR]     # default testdata/spyre
"""
import copy
import hashlib
import json
import os
import sys

MODEL = "/home/user/simple_mlp.py"


def handle_id(h, children):
    text = json.dumps(
        {
            "aten_op": h["aten_op"],
            "fused_from": [c["id"] for c in children],
            "ir_chain": h["ir_chain"],
            "source": h["source"],
            "version": 2,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return str(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1)


def source(line):
    return {"file": MODEL, "start_line": line, "start_col": 0, "end_line": None, "end_col": None}


def make_handle(src, aten, chain, children=(), history=()):
    h = {"id": "", "source": src, "aten_op": aten, "ir_chain": list(chain),
         "fused_from": [], "transform_history": list(history)}
    h["id"] = handle_id(h, children)
    h["fused_from"] = [c["id"] for c in children]
    return h


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def documents():
    permute = make_handle(source(11), "aten.permute.default", ["permute"])
    relu_c = make_handle(source(12), "aten.relu.default", ["relu"])
    mm1 = make_handle(source(11), "aten.addmm.default", ["addmm", "buf0"])
    add1 = make_handle(source(11), "aten.addmm.default", ["addmm", "buf1"])
    relu = make_handle(None, None, ["permute", "relu", "buf2"], [permute, relu_c],
                       [{"kind": "fusion", "pass_name": "fuse_pointwise", "reason": None}])
    mm2 = make_handle(source(13), "aten.addmm.default", ["addmm_1", "buf3"])
    add2 = make_handle(source(13), "aten.addmm.default", ["addmm_1", "buf4"],
                       history=[{"kind": "rewrite", "pass_name": "insert_restickify",
                                 "reason": "stick layout"}])
    handles = {h["id"]: h for h in (permute, relu_c, mm1, add1, relu, mm2, add2)}

    k_main, k_tail, k_empty = "mlpfcreluaaaaaa2", "mlpfcaddbbbbbbb3", "mlpemptycccccc47"

    def identity(key, name, bound):
        ids = []
        for _, h in bound:
            if h["id"] not in ids:
                ids.append(h["id"])
        aten = set()

        def walk(i):
            h = handles[i]
            if h["aten_op"]:
                aten.add(h["aten_op"])
            for c in h["fused_from"]:
                walk(c)

        for i in ids:
            walk(i)
        return {"directHandleIds": ids,
                "specHandleBindings": [{"specPath": p, "handleId": h["id"]} for p, h in bound],
                "atenOps": sorted(aten),
                "eventNameBase": f"spyre_kernel_v1_{name}_{key}"}

    identities = {
        k_main: identity(k_main, "fused_addmm_linear_relu",
                         [([0], mm1), ([1], add1), ([2], relu), ([3], mm2)]),
        k_tail: identity(k_tail, "fused_addmm", [([0], add2)]),
        k_empty: identity(k_empty, "fused_unknown", []),
    }
    compile_a = digest("simplemlp compile a")
    compile_b = digest("simplemlp compile b")
    occurrences = {}

    def occurrence(compile_id, name, key, ordinals):
        occurrences[digest(compile_id + name + key)] = {
            "identityKey": key, "compileId": compile_id, "compilerKernelName": name,
            "registrations": [{"ordinal": o, "alias": f"{name}:{o}"} for o in ordinals]}

    occurrence(compile_a, "sdsc_fused_addmm_linear_relu_0", k_main, [1])
    occurrence(compile_a, "sdsc_fused_addmm_1", k_tail, [2])
    occurrence(compile_b, "sdsc_fused_addmm_linear_relu_0", k_main, [])
    occurrence(compile_b, "sdsc_fused_unknown_2", k_empty, [])

    def projection(kernels, join, level, pre_to_post, code_to_post, traces):
        def reverse(m):
            out = {}
            for k, vs in m.items():
                for v in vs:
                    out.setdefault(v, []).append(k)
            return out

        return {"source": "inductor_provenance_tracking_node_mappings", "version": 2.0,
                "producer": {"torchSpyreVersion": "0.1.0", "torchVersion": "2.13.0+cpu"},
                "settings": {"provenanceTrackingLevel": level, "structuredTracing": level > 0},
                "kernels": [{"compilerKernelName": n, "identityKey": k} for n, k in kernels],
                "uncollectedKernels": [], "upstreamProjectionFailed": False,
                "upstreamJoin": join,
                "preToPost": pre_to_post, "postToPre": reverse(pre_to_post),
                "cppCodeToPost": code_to_post, "postToCppCode": reverse(code_to_post),
                "kernelStackTraces": traces}

    a_main = "sdsc_fused_addmm_linear_relu_0:1"
    a_tail = "sdsc_fused_addmm_1:2"
    trace = 'File "' + MODEL + '", line {}, in forward'
    projections = {
        compile_a: projection(
            [("sdsc_fused_addmm_linear_relu_0", k_main), ("sdsc_fused_addmm_1", k_tail)], "ok", 1,
            {"linear": ["permute", "addmm"], "relu": ["relu"], "linear_1": ["addmm_1"]},
            {a_main: ["permute", "addmm", "relu"], a_tail: ["addmm_1"]},
            {a_main: {"stackTraces": [trace.format(11), trace.format(12)],
                      "postGradNodes": ["permute", "addmm", "relu"],
                      "preGradNodes": ["linear", "relu"]},
             a_tail: {"stackTraces": [trace.format(13)], "postGradNodes": ["addmm_1"],
                      "preGradNodes": ["linear_1"]}}),
        compile_b: projection(
            [("sdsc_fused_addmm_linear_relu_0", k_main), ("sdsc_fused_unknown_2", k_empty)],
            "unavailable-provenance-level-0", 0, {}, {}, {}),
    }
    valid = {"schemaVersion": 1,
             "eventKey": {"version": 1, "algorithm": "sha256-prefix-80-base32-lower", "width": 16,
                          "stepAttribution": "bundle"},
             "mergeGeneration": 2, "status": "partial", "diagnostics": {}, "handles": handles,
             "kernelIdentities": identities, "kernelOccurrences": occurrences,
             "upstreamProjections": projections}

    # Cache replay of compile a: same ids, no registrations, no upstream data.
    replay = copy.deepcopy(valid)
    replay["mergeGeneration"] = 1
    replay["kernelOccurrences"] = {
        k: dict(o, registrations=[]) for k, o in valid["kernelOccurrences"].items()
        if o["compileId"] == compile_a}
    replay["kernelIdentities"] = {k: v for k, v in identities.items() if k != k_empty}
    replay["upstreamProjections"] = {compile_a: dict(
        projections[compile_a], upstreamJoin="unavailable-cache-replay", preToPost={},
        postToPre={}, cppCodeToPost={}, postToCppCode={}, kernelStackTraces={})}

    draft = copy.deepcopy(valid)
    for p in draft["upstreamProjections"].values():
        del p["uncollectedKernels"]
        del p["upstreamProjectionFailed"]
    docs = {"spyre_provenance.json": valid, "cache_replay.json": replay,
            "early_draft.json": draft}
    docs["fixture_manifest.json"] = manifest(valid, replay, compile_a, k_main, relu["id"])
    return docs


def manifest(valid, replay, compile_a, k_main, fused_id):
    """Invalid variants as mutations of a valid document, in the shape of torch-spyre's own
    fixture_manifest.json, each with the reader diagnostic it must produce."""
    a_occurrence = next(k for k, o in replay["kernelOccurrences"].items()
                        if o["compilerKernelName"] == "sdsc_fused_addmm_linear_relu_0")
    a_handle = next(iter(valid["handles"]))
    schema, semantic = "schema-validation-failure", "semantic-validation-failure"
    variants = [
        ("forward-version", "spyre_provenance.json", "replace", "/schemaVersion", 2,
         "unsupported-schema-version"),
        ("no-version", "spyre_provenance.json", "remove", "/schemaVersion", None,
         "unsupported-schema-version"),
        ("unknown-field", "spyre_provenance.json", "add", "/futureField", True, schema),
        ("numeric-handle-id", "spyre_provenance.json", "replace", f"/handles/{a_handle}/id",
         int(a_handle), schema),
        ("empty-spec-path", "spyre_provenance.json", "replace",
         f"/kernelIdentities/{k_main}/specHandleBindings/0/specPath", [], schema),
        ("bad-upstream-join", "spyre_provenance.json", "replace",
         f"/upstreamProjections/{compile_a}/upstreamJoin", "fine", schema),
        ("half-draft-projection", "spyre_provenance.json", "remove",
         f"/upstreamProjections/{compile_a}/uncollectedKernels", None, schema),
        ("dangling-handle-reference", "spyre_provenance.json", "replace",
         f"/kernelIdentities/{k_main}/directHandleIds/0", "999", semantic),
        ("dangling-fused-from", "spyre_provenance.json", "replace",
         f"/handles/{fused_id}/fused_from/0", "998", semantic),
        ("handle-id-not-its-key", "spyre_provenance.json", "replace",
         f"/handles/{a_handle}/id", "7", semantic),
        ("wrong-compile-id", "cache_replay.json", "replace",
         f"/upstreamProjections/{compile_a}/kernels/0/compilerKernelName", "sdsc_wrong_name",
         semantic),
        ("wrong-occurrence-id", "cache_replay.json", "replace",
         f"/kernelOccurrences/{a_occurrence}/compilerKernelName", "sdsc_wrong_name", semantic),
        ("wrong-document-status", "spyre_provenance.json", "replace", "/status", "complete",
         semantic),
    ]
    invalid = []
    for name, base, op, path, value, diagnostic in variants:
        mutation = {"operation": op, "path": path}
        if op != "remove":
            mutation["value"] = value
        invalid.append({"name": name, "base": base, "mutation": mutation,
                        "expectedReaderDiagnostic": diagnostic})
    return {"valid": [{"path": "spyre_provenance.json"}, {"path": "cache_replay.json"},
                      {"path": "early_draft.json"}],
            "invalid": invalid}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "testdata", "spyre")
    os.makedirs(out, exist_ok=True)
    for name, doc in documents().items():
        with open(os.path.join(out, name), "w") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
