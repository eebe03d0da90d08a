#!/usr/bin/env python3
"""Write one large SDSC file, for measuring the memory a run needs on it.

    gen_big_sdsc.py OUT_DIR --mb M [--handle populated|null|absent] [--compact]

OUT_DIR becomes a kernel directory (sdsc_big_0_aaaaaaaa/sdsc_0.json inside it is the file; the
directory is created) holding one SDSC document of about M megabytes (10**6 bytes): the op
`0_add` with its `debug_handle_` first, then `sdscFoldProps_` and a `dscs_` array of as many
per-core entries as needed, laid out as torch-spyre's json.dump(indent=2) writes them (or on one
line with --compact). The entries have the shape of a real file's (nested maps of strings and
integers, short arrays) so that the parse's tape has about as many words per byte as a real file.
Written in pieces, atomically; the same arguments always give the same bytes. Prints the path and
the size in bytes.
"""

import argparse
import json
import os

HANDLE = {
    "id": "8249498605557491263",
    "source": {"file": "/home/senuser/compile_add.py", "start_line": 11, "start_col": 0,
               "end_line": None, "end_col": None},
    "aten_op": "aten.add.Tensor",
    "ir_chain": ["add", "buf0"],
    "fused_from": [],
    "transform_history": [],
}


def entry(i):
    """One `dscs_` element: a core's share of the op."""
    return {"add": {
        "coreId_": i,
        "numWkSlices_": {"mb": 4, "out": 2, "in": 1},
        "labeledDs_": [{"dsName_": f"Tensor{k}", "dsType_": "INPUT" if k else "OUTPUT",
                        "scale_": [1, 1, 1], "wordLength": 2,
                        "layoutDimOrder_": ["mb", "out"],
                        "startAddressCoreCorelet_": {"dim_prop_func": [{"Const": {}}, {"Map": {}}],
                                                     "dim_prop_attr": [{"factor_": 2, "label_": "core"}]}}
                       for k in range(3)],
        "constantInfo_": "{}",
        "symbolAddr_": str(1000000007 * (i + 1) % (1 << 63)),
    }}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--mb", type=float, required=True)
    p.add_argument("--handle", choices=["populated", "null", "absent"], default="populated")
    p.add_argument("--compact", action="store_true")
    args = p.parse_args()
    target = int(args.mb * 1_000_000)
    indent = None if args.compact else 2
    sep = (",", ":") if args.compact else (",", ": ")

    def dump(value, level):
        text = json.dumps(value, indent=indent, separators=sep)
        return text if indent is None else text.replace("\n", "\n" + "  " * level)

    kdir = os.path.join(args.out_dir, "sdsc_big_0_aaaaaaaa")
    os.makedirs(kdir, exist_ok=True)
    path = os.path.join(kdir, "sdsc_0.json")
    nl = "" if args.compact else "\n"
    ind = (lambda n: "") if args.compact else (lambda n: "  " * n)
    kv = ":" if args.compact else ": "
    head = "{" + nl + ind(1) + '"0_add"' + kv + "{" + nl
    if args.handle != "absent":
        handle = HANDLE if args.handle == "populated" else None
        head += ind(2) + '"debug_handle_"' + kv + dump(handle, 2) + "," + nl
    head += ind(2) + '"sdscFoldProps_"' + kv + dump([{"factor_": 1, "label_": "time"}], 2) + "," + nl
    head += ind(2) + '"dscs_"' + kv + "[" + nl
    tail = nl + ind(2) + "]" + nl + ind(1) + "}" + nl + "}"
    tmp = path + ".tmp"
    size = len(head) + len(tail)
    with open(tmp, "w") as f:
        f.write(head)
        i = 0
        pieces = []
        while size < target or i == 0:
            text = ("," + nl if i else "") + ind(3) + dump(entry(i), 3)
            pieces.append(text)
            size += len(text)
            i += 1
            if len(pieces) == 1000:
                f.write("".join(pieces))
                pieces.clear()
        f.write("".join(pieces))
        f.write(tail)
    os.replace(tmp, path)
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
