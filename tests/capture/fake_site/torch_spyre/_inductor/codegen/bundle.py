import json
import os

from torch_spyre._inductor.codegen.superdsc import compile_op_spec
from torch_spyre._inductor.op_spec import LoopSpec, OpSpec


def generate_bundle(kernel_name, output_dir, specs, use_symbols=None, unroll_loops=None,
                    symbolic_args=None, pool_size=0):
    """Stand-in for torch-spyre's bundle writer: compile_op_spec's document as sdsc_<N>.json per
    OpSpec (depth first) and a bundle.mlir running them in order. A file already there (a copy
    of testdata/demo) is kept, and must be this OpSpec's: it has the key compile_op_spec made."""
    executes = []
    for n, spec in enumerate(_op_specs(specs)):
        document, _, _, _ = compile_op_spec(n, spec, [])
        path = os.path.join(output_dir, f"sdsc_{n}.json")
        if os.path.exists(path):
            with open(path) as f:
                key = next(iter(json.load(f)))
            if [key] != list(document):
                raise RuntimeError(f"{path} holds {key}, not OpSpec {list(document)[0]}")
        else:
            with open(path, "w") as f:
                json.dump(document, f, indent=2)
        executes.append(f'\t\tsdscbundle.sdsc_execute () {{sdsc_filename="sdsc_{n}.json", "symbol_ids"=[]}}')
    bundle = os.path.join(output_dir, "bundle.mlir")
    if not os.path.exists(bundle):
        with open(bundle, "w") as f:
            f.write("\n".join(["module {", "\tfunc.func @sdsc_bundle() {", *executes,
                               "\t\treturn", "\t}", "}", ""]))


def _op_specs(specs):
    for spec in specs:
        if isinstance(spec, LoopSpec):
            yield from _op_specs(spec.body)
        elif isinstance(spec, OpSpec):
            yield spec
