from torch._inductor.virtualized import V

from .op_spec import Coordinate, OpSpec, TensorArg

# Every fake buffer is a [c0, c1] tensor whose innermost dimension c1 is the stick: its device
# coordinates are (c1 // stick size, c0, c1 % stick size).
INPUT_COORDINATES = (frozenset({"c1"}), frozenset({"c0"}), frozenset({"c1"}))


def tensor_args(reduces=None):
    """Input and output of one op; a reduction over ``reduces`` ("c0" or "c1") drops that symbol
    from the output's coordinates (reducing c1, the stick, leaves the output without one)."""
    dropped = frozenset({reduces} if reduces else ())
    return [TensorArg(True, [Coordinate(c) for c in INPUT_COORDINATES]),
            TensorArg(False, [Coordinate(c - dropped) for c in INPUT_COORDINATES])]


class SpyreKernel:
    """The code generator of one kernel: one OpSpec per stored buffer, in op_specs."""

    def __init__(self, pool_size=0):
        self.op_specs = []
        self.current_node = None
        self.pool_size = pool_size
        self.failed_node = None

    def store(self, scheduler_node, op, is_reduction=False, reduces=None):
        """What SpyreKernel.store/store_reduction do for one buffer, minus the tensor work."""
        self.current_node = scheduler_node
        self.op_specs.append(self.create_op_spec(op, is_reduction, tensor_args(reduces), {}))

    def create_op_spec(self, op, is_reduction, args, op_info, indirect_var_names=None):
        ir_node = self.current_node.node  # ComputedBuffer
        it_space = {f"c{i}": (64, 1) for i in range(2 if is_reduction else 1)}
        assert ir_node is not None
        return OpSpec(op, is_reduction, it_space, list(args), dict(op_info))

    def codegen_kernel(self):
        """The OpSpec list as Python source, which the generated module evaluates again."""
        return "[" + ", ".join(repr(spec) for spec in self.op_specs) + "]"

    def call_kernel(self, name, node=None):
        V.graph.wrapper_code.writeline(f"{name}.run()")
