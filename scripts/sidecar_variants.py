#!/usr/bin/env python3
"""Applies a spyre_provenance fixture manifest (torch-spyre's fixture_manifest.json shape): writes
each invalid variant (a JSON-pointer mutation of a valid document) to OUT_DIR/<name>.json and
prints one line per variant: `<name> <expected diagnostic> <file>`; valid documents print as
`valid - <file>`.

    python3 scripts/sidecar_variants.py testdata/spyre OUT_DIR
    python3 scripts/sidecar_variants.py path/to/torch-spyre-v1-fixtures OUT_DIR
"""
import copy
import json
import os
import sys


def unescape(token):
    return token.replace("~1", "/").replace("~0", "~")


def apply(doc, mutation):
    tokens = [unescape(t) for t in mutation["path"].split("/")[1:]]
    parent = doc
    for t in tokens[:-1]:
        parent = parent[int(t)] if isinstance(parent, list) else parent[t]
    last = tokens[-1]
    op = mutation["operation"]
    if isinstance(parent, list):
        i = len(parent) if last == "-" else int(last)
        if op == "add":
            parent.insert(i, mutation["value"])
        elif op == "replace":
            parent[i] = mutation["value"]
        elif op == "remove":
            del parent[i]
        else:
            raise SystemExit(f"unsupported operation {op}")
    else:
        if op in ("add", "replace"):
            if op == "replace" and last not in parent:
                raise SystemExit(f"replace of a missing member: {mutation['path']}")
            parent[last] = mutation["value"]
        elif op == "remove":
            del parent[last]
        else:
            raise SystemExit(f"unsupported operation {op}")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(src, "fixture_manifest.json")) as f:
        manifest = json.load(f)
    os.makedirs(out, exist_ok=True)
    for v in manifest.get("valid", []):
        print("valid", "-", os.path.join(src, v["path"]))
    for v in manifest["invalid"]:
        with open(os.path.join(src, v["base"])) as f:
            doc = json.load(f)
        doc = copy.deepcopy(doc)
        apply(doc, v["mutation"])
        path = os.path.join(out, v["name"] + ".json")
        with open(path, "w") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        print(v["name"], v["expectedReaderDiagnostic"], path)


if __name__ == "__main__":
    main()
