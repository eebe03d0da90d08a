"""A fake torch.compile of SimpleMLP (Linear -> ReLU -> Linear) on the fake torch and torch_spyre
of fake_site/ (put it on PYTHONPATH).

The graph is the one of testdata/demo, measured on a real compile: the seven post-grad FX nodes
(with the ATen ops and source lines of testdata/demo/origins.json), the five ComputedBuffers with
their origins and origin_node, generated into two kernels the way torch-spyre does it: OpSpecs,
kernel name, call; then the generated module is loaded, which compiles each kernel into its
output directory.

Prints one line per compiled kernel: its name and directory relative to the Inductor cache dir.

    fake_simplemlp_compile.py [--compiles N] [--transform-history] [--broken-meta NODE]...
                              [--exit-status N]
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
from torch.nn.modules.linear import Linear
from torch_spyre._inductor.op_spec import ProvenanceTransform
from torch_spyre._inductor.scheduler import Bundle, codegen_graph

MODEL = "/workspace/simple_mlp.py"


def stack_trace(line, code):
    """What Dynamo records: the script's call, torch's Module._call_impl, then the forward line."""
    return (f'  File "{MODEL}", line 34, in <module>\n    out = model(x)\n'
            '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1751, '
            'in _call_impl\n    return forward_call(*args, **kwargs)\n'
            f'  File "{MODEL}", line {line}, in forward\n    {code}\n')


class NodeWithBrokenMeta(Node):
    """An FX node whose meta cannot be read: the capture must survive it, the compile too."""

    @property
    def meta(self):
        raise RuntimeError(f"meta of {self.name} is unavailable")

    @meta.setter
    def meta(self, value):
        pass


def post_grad_nodes(broken):
    def node(name, aten, **meta):
        cls = NodeWithBrokenMeta if name in broken else Node
        return cls(name, OpOverload(aten), {"original_aten": OpOverload(aten), **meta})

    def linear(fc, source_node, line):
        return {"stack_trace": stack_trace(line, f"x = self.{fc}(x)"),
                "nn_module_stack": {f"L__self___{fc}": (f"L['self'].{fc}", Linear)},
                "source_fn_stack": [(f"l__self___{fc}", Linear)],
                "from_node": [(source_node, "<built-in function linear>")]}

    relu_fn = "<built-in method relu>"
    return {
        "permute": node("permute", "aten.permute.default", **linear("fc1", "x", 18)),
        "mm_default_1": node("mm_default_1", "aten.mm.default"),
        "add_tensor_1": node("add_tensor_1", "aten.add.Tensor"),
        "relu": node("relu", "aten.relu.default", stack_trace=stack_trace(19, "x = torch.relu(x)"),
                     source_fn_stack=[("x_1", relu_fn)], from_node=[("x_1", relu_fn)]),
        "permute_1": node("permute_1", "aten.permute.default", **linear("fc2", "x_2", 20)),
        "mm_default": node("mm_default", "aten.mm.default"),
        "add_tensor": node("add_tensor", "aten.add.Tensor"),
    }


def compile_once(args):
    n = post_grad_nodes(set(args.broken_meta))
    # The measurement names the buffers op0..op4 (its "buffer" column) and the demo map follows
    # it, so this ComputedBuffer's get_name() gives those names. Inductor keeps origins in
    # insertion order, not sorted: sorting is the capture's job.
    op0 = ComputedBuffer("op0", [n["permute"], n["mm_default_1"]], n["mm_default_1"])
    op1 = ComputedBuffer("op1", [n["add_tensor_1"]], n["add_tensor_1"])
    op2 = ComputedBuffer("op2", [n["relu"]], n["relu"])
    op3 = ComputedBuffer("op3", [n["permute_1"], n["mm_default"]], n["mm_default"])
    op4 = ComputedBuffer("op4", [n["add_tensor"]], n["add_tensor"])
    if args.transform_history:
        op2._spyre_prov_history = (ProvenanceTransform("rewrite", "insert_restickify", None),)

    graph = GraphLowering()
    with V.set_graph_handler(graph):
        codegen_graph([Bundle([(op0, "batchmatmul", True), (op1, "add", False),
                               (op2, "relufwd", False), (op3, "batchmatmul", True)],
                              "fused_addmm_linear_relu"),
                       Bundle([(op4, "add", False)], "fused_addmm")])
    for name, directory in graph.compile_and_run("compiled_simple_mlp"):
        print(name, os.path.relpath(directory, cache_dir()))


def parse_args(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiles", type=int, default=1)
    parser.add_argument("--transform-history", action="store_true")
    parser.add_argument("--broken-meta", action="append", default=[], metavar="NODE")
    parser.add_argument("--exit-status", type=int, default=0)
    return parser.parse_args(argv)


def main():
    args = parse_args(sys.argv[1:])
    for _ in range(args.compiles):
        compile_once(args)
    sys.exit(args.exit_status)


if __name__ == "__main__":
    main()
