class WrapperCode:
    """The generated Python module of one graph, as Inductor's wrapper codegen builds it: kernel
    definitions (``name = async_compile.sdsc('name', [OpSpec(...), ...])``) and the calls."""

    def __init__(self):
        self.src_to_kernel = {}
        self._definitions = []
        self._calls = []
        self._suffix = 0

    def next_kernel_suffix(self):
        suffix, self._suffix = str(self._suffix), self._suffix + 1
        return suffix

    def define_kernel(self, name, code):
        self._definitions.append(f"{name} = {code}")

    def writeline(self, line):
        self._calls.append(line)

    def getvalue(self):
        return "\n".join([
            "from torch_spyre._inductor.op_spec import Coordinate, LoopSpec, OpSpec, TensorArg, UnimplementedOp",
            "from torch_spyre.execution.async_compile import SpyreAsyncCompile",
            "async_compile = SpyreAsyncCompile()",
            *self._definitions,
            "async_compile.wait(globals())",
            "",
            "def call():",
            *(f"    {line}" for line in self._calls or ["pass"]),
            "",
        ])


class GraphLowering:
    """Stands in for torch._inductor.graph.GraphLowering: one FX graph being compiled."""

    def __init__(self):
        self.wrapper_code = WrapperCode()

    def compile_and_run(self, module_name):
        """Loads the generated module (which compiles its kernels) and calls it once; returns
        [(kernel name, output directory)] of the kernels it compiled."""
        module = {"__name__": module_name}
        exec(compile(self.wrapper_code.getvalue(), "<generated wrapper>", "exec"), module)
        module["call"]()
        return [(name, value.output_dir) for name, value in module.items() if hasattr(value, "output_dir")]
