"""A fake torch.compile of a small model with reductions, on the fake torch and torch_spyre of
fake_site/ (put it on PYTHONPATH):

    def forward(self, x):                 # x: [c0, c1], c1 the stick dimension
        p = torch.softmax(x, dim=0)       # line 9: reduces c0, along no stick
        m = torch.amax(x, dim=-1)         # line 10: reduces c1, the stick
        return p, torch.neg(m)            # line 11

Inductor decomposes the softmax into five post-grad nodes whose original_aten is still
aten._softmax.default (as real softmax handles show): amax, sub, exp, sum_1, div. torch-spyre
names the SDSC files of the two softmax reductions "maxnonstick" and "sumnonstick", and that of
the amax over the stick plain "max". Kernels: sdsc_fused__softmax_0 (buf0..buf4) and
sdsc_fused_amax_1 (buf5); with --ktir-kernel the neg is compiled through the KTIR emitter as a
third kernel, ktir_fused_neg_2 (buf6), whose directory gets no SDSC file. With --discard-prepared
(late-2026 layout) the first preparation of the amax kernel is rejected, so the softmax and amax
kernels of that attempt are thrown away after building their OpSpecs, and prepared again.

Prints one line per compiled kernel: its name and directory relative to the Inductor cache dir.
"""
import argparse
import os
import sys

from torch._inductor.graph import GraphLowering
from torch._inductor.ir import ComputedBuffer
from torch._inductor.runtime.runtime_utils import cache_dir
from torch._inductor.virtualized import V
from torch._ops import OpOverload
from torch.fx import Node
from torch_spyre._inductor.scheduler import Bundle, codegen_graph

MODEL = "/workspace/reductions.py"


def stack_trace(line, code):
    return (f'  File "{MODEL}", line 20, in <module>\n    out = model(x)\n'
            '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1751, '
            'in _call_impl\n    return forward_call(*args, **kwargs)\n'
            f'  File "{MODEL}", line {line}, in forward\n    {code}\n')


def compile_once(args):
    softmax = {"original_aten": OpOverload("aten._softmax.default"),
               "stack_trace": stack_trace(9, "p = torch.softmax(x, dim=0)")}
    nodes = {name: Node(name, OpOverload(target), dict(softmax)) for name, target in (
        ("amax", "aten.amax.default"), ("sub", "aten.sub.Tensor"), ("exp", "aten.exp.default"),
        ("sum_1", "aten.sum.dim_IntList"), ("div", "aten.div.Tensor"))}
    nodes["amax_1"] = Node("amax_1", OpOverload("aten.amax.default"), {
        "original_aten": OpOverload("aten.amax.default"),
        "stack_trace": stack_trace(10, "m = torch.amax(x, dim=-1)")})
    nodes["neg"] = Node("neg", OpOverload("aten.neg.default"), {
        "original_aten": OpOverload("aten.neg.default"),
        "stack_trace": stack_trace(11, "return p, torch.neg(m)")})
    buf = [ComputedBuffer(f"buf{i}", [nodes[name]], nodes[name])
           for i, name in enumerate(("amax", "sub", "exp", "sum_1", "div", "amax_1", "neg"))]

    bundles = [
        Bundle([(buf[0], "max", True, "c0"), (buf[1], "sub", False), (buf[2], "exp", False),
                (buf[3], "sum", True, "c0"), (buf[4], "realdiv", False)], "fused__softmax"),
        Bundle([(buf[5], "max", True, "c1")], "fused_amax",
               rejections=1 if args.discard_prepared else 0),
    ]
    if args.ktir_kernel:
        bundles.append(Bundle([(buf[6], "neg", False)], "fused_neg", method="ktir"))
    graph = GraphLowering()
    with V.set_graph_handler(graph):
        codegen_graph(bundles)
    for name, directory in graph.compile_and_run("compiled_reductions"):
        print(name, os.path.relpath(directory, cache_dir()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--discard-prepared", action="store_true")
    parser.add_argument("--ktir-kernel", action="store_true")
    compile_once(parser.parse_args(sys.argv[1:]))


if __name__ == "__main__":
    main()
