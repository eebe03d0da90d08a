#!/usr/bin/env python3
"""Grow an origins map to many kernels, for the memory benchmark of annotate.

    gen_big_map.py IN_MAP OUT_MAP --kernels K [--seed S] [--ops-per-kernel N]

IN_MAP is a generated cache's map (scripts/gen_cache.py --origins-map); OUT_MAP holds its kernels
and nodes unchanged, then synthetic kernels until there are K in all: each with a directory name
that no cache has, one op (two in one kernel of four) and a node per op with a short stack trace, the shape of a
compile's entries. A run over the cache of IN_MAP then needs only IN_MAP's part of the map, while
the whole map must still be read and validated: what the memory a run needs should grow with.
About 450 bytes per added kernel: 100,000 kernels make about 45 MB. The same arguments always give
the same bytes; written atomically.
--ops-per-kernel N: every synthetic kernel has N ops, fused from one node (with its stack trace);
with 3, 100,000 kernels make about 38 MB (the peak memory benchmark, scripts/bench_map_peak.py).
"""

import argparse
import json
import os
import random

OPFUNCS = [("relufwd", "aten.relu.default", "torch.relu(h)"),
           ("batchmatmul", "aten.addmm.default", "self.linear(x)"),
           ("add", "aten.add.Tensor", "x + residual"),
           ("softmax", "aten._softmax.default", "x.softmax(dim=-1)"),
           ("mul", "aten.mul.Tensor", "x * scale")]


def add_node(nodes, rng, node, aten, line, module, where=""):
    """An FX node of ATen op `aten` whose stack trace ends at a random line of `module`."""
    nodes[node] = {
        "original_aten": aten,
        "stack_trace": f"  File \"{module}\", line {rng.randint(10, 900)}{where}\n    h = {line}\n",
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("in_map")
    p.add_argument("out_map")
    p.add_argument("--kernels", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ops-per-kernel", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    with open(args.in_map) as f:
        m = json.load(f)
    nodes, kernels = m["nodes"], m["kernels"]
    serial = 0
    while len(kernels) < args.kernels:
        serial += 1
        ops = []
        if args.ops_per_kernel:
            opfunc, aten, line = rng.choice(OPFUNCS)
            node = f"g{serial}"
            add_node(nodes, rng, node, aten, line, f"/src/m{serial % 97}.py")
            ops = [{"opfunc": opfunc, "buffer": f"buf{k}", "origins": [node]}
                   for k in range(args.ops_per_kernel)]
        for k in range(0 if args.ops_per_kernel else 1 if rng.random() < 0.75 else 2):
            opfunc, aten, line = rng.choice(OPFUNCS)
            node = f"g{serial}_{opfunc}_{k}"
            add_node(nodes, rng, node, aten, line, f"/src/net/m{serial % 97}.py", ", in forward")
            ops.append({"opfunc": opfunc, "buffer": f"buf{k}", "origins": [node], "origin_node": node,
                        "transform_history": []})
        name = f"sdsc_fused_{ops[0]['opfunc']}_{serial}"
        kernels.append({"name": name, "dir": f"{rng.getrandbits(32):08x}_{name}_x", "ops": ops})
    tmp = args.out_map + ".tmp"
    with open(tmp, "w") as f:
        json.dump(m, f)
    os.replace(tmp, args.out_map)


if __name__ == "__main__":
    main()
