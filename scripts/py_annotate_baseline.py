#!/usr/bin/env python3
"""The benchmark's Python baseline for annotate: what a straightforward Python tool does.

For every SDSC file under the given paths: json.load it, insert a debug_handle_ (derived from the
origins map's op for that file, by the same rules, simplified: the handle is precomputed per op),
json.dump it back with indent=2 to a temporary file, and rename it over the original.

  py_annotate_baseline.py --origins MAP PATH...
"""
import argparse
import hashlib
import json
import os
import re

FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def source_of(trace):
    if not trace:
        return None
    frames = FRAME.findall(trace)
    if not frames:
        return None
    chosen = next((f for f in reversed(frames) if "/torch/" not in f[0]), frames[-1])
    return {"file": chosen[0], "start_line": int(chosen[1]), "start_col": 0, "end_line": None, "end_col": None}


def handle_id(aten, fused, chain, source):
    src = None if source is None else {k: source[k] for k in sorted(source)}
    text = json.dumps({"aten_op": aten, "fused_from": fused, "ir_chain": chain, "source": src, "version": 2},
                      separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return str(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1)


def one_value(values):
    distinct = {json.dumps(v, sort_keys=True): v for v in values if v is not None}
    return next(iter(distinct.values())) if len(distinct) == 1 else None


def derive(op, nodes):
    origins = sorted(set(op["origins"]))
    if not origins:
        return None
    info = {n: (nodes.get(n, {}).get("original_aten"), source_of(nodes.get(n, {}).get("stack_trace"))) for n in origins}
    node = op.get("origin_node")
    if node:
        aten = nodes.get(node, {}).get("original_aten")
        source = source_of(nodes.get(node, {}).get("stack_trace")) or one_value([s for _, s in info.values()])
    else:
        aten = one_value([a for a, _ in info.values()])
        source = one_value([s for _, s in info.values()])
    chain = origins + ([op["buffer"]] if op["buffer"] else [])
    fused = []
    if len(origins) > 1:
        for n in origins:
            a, s = info[n]
            fused.append({"id": handle_id(a, [], [n], s), "source": s, "aten_op": a, "ir_chain": [n],
                          "fused_from": [], "transform_history": []})
    return {"id": handle_id(aten, [c["id"] for c in fused], chain, source), "source": source, "aten_op": aten,
            "ir_chain": chain, "fused_from": fused, "transform_history": op.get("transform_history", [])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origins", required=True)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    origins = json.load(open(args.origins))
    by_dir = {k["dir"]: k for k in origins["kernels"] if "dir" in k}
    written = 0
    for top in args.paths:
        for root, dirs, files in os.walk(top):
            dirs.sort()
            kernel = by_dir.get(os.path.basename(root))
            if kernel is None:
                continue
            handles = [derive(op, origins["nodes"]) for op in kernel["ops"]]
            for name in sorted(files):
                m = re.fullmatch(r"sdsc_(\d+)(?:_\w+)?\.json", name)
                if not m or int(m.group(1)) >= len(handles) or handles[int(m.group(1))] is None:
                    continue
                path = os.path.join(root, name)
                with open(path) as f:
                    doc = json.load(f)
                key = next(iter(doc))
                op = doc[key]
                if op.get("debug_handle_") == handles[int(m.group(1))]:
                    continue
                op.pop("debug_handle_", None)
                doc[key] = {"debug_handle_": handles[int(m.group(1))], **op}
                tmp = path + ".tmp"
                with open(tmp, "w") as f:
                    json.dump(doc, f, indent=2)
                os.replace(tmp, path)
                written += 1
    print(f"{written} files written")


if __name__ == "__main__":
    main()
