from torch._inductor.virtualized import V

from .spyre_kernel import SpyreKernel


class SchedulerNode:
    def __init__(self, node):
        self.node = node  # the ComputedBuffer


class SuperDSCScheduling:
    """Code generation of fused nodes into one kernel, in the order torch-spyre's does it:
    OpSpecs, then define_kernel (which names the kernel), then call_kernel."""

    dsc_type = "sdsc"

    def codegen_node(self, ops, fused_name):
        """ops: [(ComputedBuffer, Spyre op, is_reduction)]; fused_name: "fused_<aten ops>"."""
        kernel = SpyreKernel()
        for buffer, op, is_reduction in ops:
            kernel.store(SchedulerNode(buffer), op, is_reduction)
        src_code = kernel.codegen_kernel()
        kernel_name = self.define_kernel(src_code, fused_name)
        kernel.kernel_name = kernel_name
        kernel.call_kernel(kernel.kernel_name)

    def define_kernel(self, src_code, fused_name):
        wrapper = V.graph.wrapper_code
        if src_code in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[src_code]
        kernel_name = "_".join([self.dsc_type, fused_name, wrapper.next_kernel_suffix()])
        wrapper.src_to_kernel[src_code] = kernel_name
        wrapper.define_kernel(kernel_name, f"async_compile.{self.dsc_type}({kernel_name!r}, {src_code})")
        return kernel_name
